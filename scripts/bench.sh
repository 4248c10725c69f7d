#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: build the benchmark kernel (base.config + bench.config: no
# KASAN, lockdep or atomic-sleep checks), boot it with 4 vCPUs, run the
# benchmark job and save its tables with the exact command to
# BENCHMARKS.md. Figures under QEMU TCG are noisy and skewed: read the
# ratios, measured in the same boot, not the absolute times.
. "$(dirname "$0")/common.sh"
"$KLOG_REPO/scripts/deps.sh"
"$KLOG_REPO/scripts/tree.sh"
"$KLOG_REPO/scripts/build-kernel.sh" bench "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/bench.config"
"$KLOG_REPO/scripts/initramfs.sh" bench
logf=$KLOG_CACHE/console-bench-full.log
KLOG_CMDLINE="klog.bench=full loglevel=4" "$KLOG_REPO/scripts/vm.sh" bench bench "$logf" 3000
"$KLOG_REPO/scripts/vmlog.py" "$logf" > /dev/null || die "the benchmark run was not clean: see $logf"
{
	echo "# klog benchmarks"
	echo
	echo "Measured by \`make bench\` ($(git -C "$KLOG_REPO" describe --always --dirty)) on $(date -u +%Y-%m-%d):"
	echo "Linux $(make -s -C "$KSRC" kernelversion) + patches/, the benchmark kernel (no KASAN/lockdep),"
	echo "QEMU $(qemu-system-x86_64 --version | head -n1 | awk '{print $4}') TCG, 4 vCPUs on a $(nproc)-core host. Under TCG absolute times mean"
	echo "little; the ratios compare cases measured in the same boot."
	echo
	sed -n 's/^KLOG-BENCH: //p' "$logf" | sed 's/\r$//'
} > "$KLOG_REPO/BENCHMARKS.md"
cat "$KLOG_REPO/BENCHMARKS.md"
