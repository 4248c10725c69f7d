/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog-format.h - the text of a klog call recorded with binary arguments
 *
 * klog_args_text() turns a call site's format and an argument block
 * (<linux/klog_args.h>) into exactly what the kernel's vsnprintf() would
 * have made of the call. The format walker is the kernel's own
 * (kernel/klog_format.h, compiled here too: build with -I on the kernel
 * source's kernel/ directory). %pS, %ps and %pB addresses are resolved
 * with a copy of /proc/kallsyms (klog_ksyms_load()), as sprint_symbol()
 * resolves them.
 */
#ifndef KLOG_FORMAT_H
#define KLOG_FORMAT_H

#include <stddef.h>

struct klog_ksyms;

/**
 * klog_ksyms_load() - read a kallsyms file ("ADDR TYPE NAME [MODULE]")
 * @path: /proc/kallsyms (as root: addresses are zero otherwise) or a copy
 *	(a collection's DIR/kallsyms); opened with O_NOFOLLOW
 * @out: the table, for klog_args_text(); free with klog_ksyms_free()
 * @err: on failure, why: "PATH:LINE: what is wrong" for a bad line
 * @err_size: its size
 *
 * Nothing in the file is trusted: every line must be a hexadecimal
 * address of at most 16 digits, a space, a one-character type (a letter,
 * or '?'), a space, a
 * name, and optionally a tab (or spaces) and "[MODULE]"; the first line
 * that is not fails the load.
 *
 * Return: 0, or -errno (-ENOENT, -ENOMEM, -EIO; -EINVAL for a bad line
 * or a file with no symbol, -EPERM when every address is 0: not read as
 * root).
 */
int klog_ksyms_load(const char *path, struct klog_ksyms **out, char *err,
		    size_t err_size);
void klog_ksyms_free(struct klog_ksyms *ks);

/**
 * klog_ksyms_sprint() - @addr as sprint_symbol() prints it
 * @ks: the symbols
 * @addr: a code address
 * @buf: output: "NAME+0xOFF/0xSIZE [MODULE]", or "" when no symbol
 *	covers @addr; cut like snprintf()
 * @size: its size (at least 1)
 *
 * The names are the file's bytes: escape them before printing.
 */
void klog_ksyms_sprint(const struct klog_ksyms *ks, unsigned long long addr,
		       char *buf, size_t size);

/**
 * klog_args_text() - the text of one recorded call
 * @buf: output, NUL-terminated when @size > 0 (cut like snprintf())
 * @size: its size
 * @fmt: the call site's format
 * @blk: the argument block
 * @len: its length
 * @ks: symbols for %pS and friends, or NULL (they print as "0x...")
 *
 * Return: the length of the whole text, or -EINVAL if the block is
 * malformed or does not match @fmt.
 */
int klog_args_text(char *buf, size_t size, const char *fmt, const void *blk,
		   size_t len, const struct klog_ksyms *ks);

#endif /* KLOG_FORMAT_H */
