#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: build the benchmark kernel (base.config + bench.config: no
# KASAN, lockdep or atomic-sleep checks), boot it with 4 vCPUs, run the
# benchmark job and save its tables with the exact command to
# BENCHMARKS.md. Figures under QEMU TCG are noisy and skewed: read the
# ratios, measured in the same boot, not the absolute times.
#
# QEMU runs single-threaded TCG here (KLOG_QEMU_ACCEL overrides): with
# multi-threaded TCG this kernel (no KASAN slowing it down) died at boot
# with "Oops: int3" in code being live-patched by a static key, which is
# TCG's cross-modifying-code handling, not klog. The 4 vCPUs then share
# one host thread, so the "CPUs at once" rows show time-slicing, not
# parallel scaling.
. "$(dirname "$0")/common.sh"
"$KLOG_REPO/scripts/deps.sh"
"$KLOG_REPO/scripts/tree.sh"
"$KLOG_REPO/scripts/build-kernel.sh" bench "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/bench.config"
"$KLOG_REPO/scripts/initramfs.sh" bench
logf=$KLOG_CACHE/console-bench-full.log
export KLOG_QEMU_ACCEL=${KLOG_QEMU_ACCEL:-tcg,thread=single}
KLOG_CMDLINE="klog.bench=full loglevel=4" "$KLOG_REPO/scripts/vm.sh" bench bench "$logf" 3000
"$KLOG_REPO/scripts/vmlog.py" "$logf" > /dev/null || die "the benchmark run was not clean: see $logf"
{
	echo "# klog benchmarks"
	echo
	echo "Measured by \`make bench\` ($(git -C "$KLOG_REPO" describe --always --dirty)) on $(date -u +%Y-%m-%d):"
	echo "Linux $(make -s -C "$KSRC" kernelversion) + patches/, the benchmark kernel (no KASAN/lockdep),"
	echo "QEMU $(qemu-system-x86_64 --version | head -n1 | awk '{print $4}') ($KLOG_QEMU_ACCEL), 4 vCPUs on a $(nproc)-core host. Under TCG absolute"
	echo "times mean little; the ratios compare cases measured in the same boot. With"
	echo "single-threaded TCG the 4 vCPUs share one host thread: the \"CPUs at once\" rows"
	echo "show time-slicing, not parallel scaling."
	echo
	sed -n 's/^KLOG-BENCH: //p' "$logf" | sed 's/\r$//'
	echo
	echo "Notes: figures move between runs by tens of percent (one run put"
	echo "klog_printk with a handler at 1.1x trace_printk, another at 1.9x); compare"
	echo "rows of one run. A 4096-byte trace_puts() does not fit an ftrace ring-buffer"
	echo "event and is refused, so that row times a failure. klog_printk() formats at"
	echo "the call (vsnprintf), trace_printk() stores binary arguments: that is most"
	echo "of the difference between them."
} > "$KLOG_REPO/BENCHMARKS.md"
cat "$KLOG_REPO/BENCHMARKS.md"
