#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-32bit.sh RESULTS: compile the klog core, the relay handler, the tests,
# the benchmark
# and the samples for 32-bit x86 (i386 tinyconfig + config/i386.config),
# with W=1 -Werror, and fail if any object needs a libgcc 64-bit division
# helper (the kernel has none on 32-bit: the module would not load).
# Compile only: no vmlinux, no modpost; the build directory is
# $KLOG_CACHE/build-i386 and the compiler cache is shared, so a warm run
# takes seconds.
. "$(dirname "$0")/common.sh"
res=$1
frag=$KLOG_REPO/config/i386.config
b=$KLOG_CACHE/build-i386
k32() { kmake i386 ARCH=i386 "$@"; }

if [ ! -f "$b/.config" ] || ! cmp -s "$frag" "$b/.klog-frag"; then
	k32 tinyconfig >/dev/null
	(cd "$b" && ARCH=i386 "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$b" .config "$frag" >/dev/null)
	k32 olddefconfig >/dev/null
	cp "$frag" "$b/.klog-frag"
fi
k32 olddefconfig >/dev/null
if ! "$KLOG_REPO/scripts/kconfig-check.sh" "$b/.config" "$frag"; then
	rec "not ok" build:i386-compile; exit 0
fi
k32 modules_prepare >/dev/null

# Our objects: the core and the relay handler (kernel/klog*.c), the tests
# and the benchmark.
objs="$(cd "$KLOG_REPO" && ls kernel/klog*.c | sed 's/\.c$/.o/' | tr '\n' ' ')"
objs="$objs lib/klog_kunit.o lib/klog_sites_kunit.o lib/test_klog.o lib/klog_bench.o"
# Only our objects: every file of kernel/ and lib/ is not rebuilt.
(cd "$b" && rm -f $objs)
rm -rf "$b/samples/klog"
if out=$(k32 W=1 KCFLAGS=-Werror $objs samples/klog/ 2>&1); then
	bad=$(cd "$b" && find $objs samples/klog -name '*.o' ! -name '*.mod.o' \
		-exec nm -u -A {} + | grep -E ' U __(u?div|u?mod)di3$' || true)
	n=$(find "$b/samples/klog" -name '*.o' | wc -l)
	if [ -n "$bad" ]; then
		echo "$bad"
		echo "64-bit division on 32-bit: use div_u64() and friends" >&2
		rec "not ok" build:i386-compile
	elif [ "$n" -lt 5 ]; then
		echo "only $n sample objects were built" >&2
		rec "not ok" build:i386-compile
	else
		rec ok build:i386-compile
	fi
else
	echo "$out"
	rec "not ok" build:i386-compile
fi
