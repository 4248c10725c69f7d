#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# lint.sh RESULTS: checkpatch --strict on every patch, kernel-doc on the
# files with exported symbols, and sparse (C=2) plus W=1 on our objects in
# the test build. One result line per check is appended to RESULTS; any
# finding fails that check and is printed.
. "$(dirname "$0")/common.sh"
res=$1

# Ignored checkpatch types, each for a reason:
#  FILE_PATH_CHANGES: asked of every patch that adds a file; the first
#    patch adds a MAINTAINERS entry whose patterns cover all our files.
#  MACRO_ARG_REUSE: klog_printk() names its format twice, in the call
#    site descriptor and in the printf-checked call (as trace_printk()
#    does); it is a string literal, so it has no side effects.
#  MACRO_ARG_UNUSED: __KLOG_NARGS_() counts klog_printk()'s arguments
#    by position, as COUNT_ARGS() of <linux/args.h> does: the value is
#    the parameter after the arguments, the others are only places.
#  PREFER_DEFINED_ATTRIBUTE_MACRO: user-space samples and selftests have
#    no <linux/compiler_attributes.h>; they define __printf themselves.
#  TRACE_PRINTK: lib/klog_bench.c measures trace_printk() itself, in a
#    module that only a debugging option (CONFIG_KLOG_BENCH) builds.
#  UNKNOWN_COMMIT_ID: the tree is a release tarball with no history, so
#    checkpatch cannot look up the relay fixes' Fixes: commits.
#  INCLUDE_LINUX: test_klog's NMI source needs register_nmi_handler(),
#    x86 API from <asm/nmi.h>, which <linux/nmi.h> includes only with
#    ACPI APEI (not in the 32-bit compile check).
#  AVOID_BUG: test_klog's crash=1 BUG()s on request, in the context a
#    stream runs in, for the dump's crash matrix (guest/crash-ctx.sh), as
#    LKDTM's BUG crash type does.
# The patches are checked $JOBS at a time (checkpatch of the tool's
# patch alone takes about a minute), each into a file of its own; the
# results are then recorded in the series' order.
cd "$KSRC"
cp_out=$(mktemp -d)
trap 'rm -rf "$cp_out"' EXIT
xargs -P "$JOBS" -I{} sh -c 'scripts/checkpatch.pl --strict --quiet --ignore FILE_PATH_CHANGES,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,PREFER_DEFINED_ATTRIBUTE_MACRO,TRACE_PRINTK,UNKNOWN_COMMIT_ID,INCLUDE_LINUX,AVOID_BUG \
	"$1/patches/$2" > "$3/$2.out" 2>&1; echo $? > "$3/$2.rc"' sh "$KLOG_REPO" {} "$cp_out" \
	< "$KLOG_REPO/patches/series"
while read -r p; do
	if [ "$(cat "$cp_out/$p.rc" 2>/dev/null)" = 0 ] && [ ! -s "$cp_out/$p.out" ]; then
		rec ok "checkpatch:${p%.patch}"
	else
		cat "$cp_out/$p.out" 2>/dev/null; rec "not ok" "checkpatch:${p%.patch}"
	fi
done < "$KLOG_REPO/patches/series"

# The repo's own kernel C files, mapped to tree paths.
srcs=$(cd "$KLOG_REPO" && for f in include/linux/klog*.h include/uapi/linux/klog*.h \
	kernel/klog*.c kernel/klog_query.h kernel/klog_relay*.h lib/*klog*.c samples/klog/*/*-mod*.c samples/klog/*/*-mod.h \
	samples/klog/*/*-format.h samples/klog/example/*.c; do [ -f "$f" ] && tree_path "$f"; done)
out=$(scripts/kernel-doc -none -Wall $srcs 2>&1)
if [ -z "$out" ]; then rec ok "kernel-doc"; else echo "$out"; rec "not ok" "kernel-doc"; fi

# relay, which the series' relay patches extend: their kernel-doc must be
# well formed. Without -Wall: relay's older functions have no "Return:"
# sections, which is not ours to change here.
out=$(scripts/kernel-doc -none kernel/relay.c include/linux/relay.h 2>&1)
if [ -z "$out" ]; then rec ok "kernel-doc:relay"; else echo "$out"; rec "not ok" "kernel-doc:relay"; fi

objs=$(for f in $srcs; do case $f in *.c) echo "${f%.c}.o" ;; esac; done)
# The driver the series' example patch instruments (null_blk, =m).
objs="$objs drivers/block/null_blk/main.o"
out=$(kmake test C=2 W=1 $objs 2>&1 | grep -E "warning|error" || true)
if [ -z "$out" ]; then rec ok "sparse-W1:$(echo $objs | tr ' ' ',')"; else echo "$out"; rec "not ok" "sparse-W1"; fi
