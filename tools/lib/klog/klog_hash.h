/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klog_hash.h - FNV-1a (32 bit)
 *
 * The hash of klog -r --stat's keys, and the checksum of test_klog's
 * self-checking payloads as the selftests verify it (lib/test_klog.c
 * computes it in the kernel).
 */
#ifndef _KLOG_HASH_H
#define _KLOG_HASH_H

#include <linux/types.h>
#include <stddef.h>

#define KLOG_FNV1A_INIT		0x811c9dc5u
#define KLOG_FNV1A_PRIME	0x01000193u

/**
 * klog_fnv1a() - continue an FNV-1a hash over @n bytes
 * @h: KLOG_FNV1A_INIT, or the value of an earlier call to continue it
 * @data: the bytes
 * @n: how many
 *
 * Context: any; touches only @data.
 * Return: the hash of everything hashed so far.
 */
static inline __u32 klog_fnv1a(__u32 h, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n--) {
		h ^= *p++;
		h *= KLOG_FNV1A_PRIME;
	}
	return h;
}

#endif /* _KLOG_HASH_H */
