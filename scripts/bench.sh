#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench.sh: build the benchmark kernel (base.config + bench.config: no
# KASAN, lockdep or atomic-sleep checks), boot it with 4 vCPUs, run the
# benchmark job and save its tables with the exact command to
# BENCHMARKS.md. Figures under QEMU TCG are noisy and skewed: read the
# ratios, measured in the same boot, not the absolute times. The job
# measures in interleaved rounds (guest/job-bench.sh): each ratio comes
# with its 10th-90th percentile range over the rounds, and the host's
# /proc/loadavg before and after the run goes into BENCHMARKS.md.
#
# KLOG_BENCH_MODE=percall: only the cost-per-call rows and the profiles,
# printed, not saved (to try a change; KLOG_QEMU_ICOUNT=1 to count
# instructions). A full run also runs the per-call and null_blk rows with
# the guest's clock counting instructions (vm.sh: -icount) and saves both. KLOG_BENCH_ROUNDS=N: N rounds
# (default 21). A full run takes about 10-15 minutes on a loaded
# 2-core host once the kernel is built.
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
mode=${KLOG_BENCH_MODE:-full}
rounds=${KLOG_BENCH_ROUNDS:+ klog.bench_rounds=$KLOG_BENCH_ROUNDS}
load0=$(cat /proc/loadavg); t0=$(date +%s)
KLOG_CMDLINE="klog.bench=$mode$rounds loglevel=4" "$KLOG_REPO/scripts/vm.sh" bench bench "$logf" 3000
load1=$(cat /proc/loadavg); t1=$(date +%s)
log "host /proc/loadavg before the run: $load0; after: $load1 ($((t1 - t0)) s)"
"$KLOG_REPO/scripts/vmlog.py" "$logf" > /dev/null || die "the benchmark run was not clean: see $logf"
# The per-call and null_blk rows again with the guest's clock counting
# instructions (vm.sh, KLOG_QEMU_ICOUNT): figures that depend on the
# code, not on the host's load; a cache miss or an atomic costs what instructions do not
# show, so the wall-clock rows above stay.
logi=$KLOG_CACHE/console-bench-icount.log
if [ "$mode" = full ]; then
	KLOG_QEMU_ICOUNT=1 KLOG_CMDLINE="klog.bench=icount$rounds loglevel=4" \
		"$KLOG_REPO/scripts/vm.sh" bench bench "$logi" 3000
	"$KLOG_REPO/scripts/vmlog.py" "$logi" > /dev/null || die "the icount benchmark run was not clean: see $logi"
fi
if [ "$mode" != full ]; then	# a trial (KLOG_BENCH_MODE=percall): print, keep nothing
	sed -n 's/^KLOG-BENCH: //p' "$logf"
	exit 0
fi
rev=$(git -C "$KLOG_REPO" describe --always --dirty)	# before BENCHMARKS.md is rewritten
{
	echo "# klog benchmarks"
	echo
	echo "Measured by \`make bench\` ($rev) on $(date -u +%Y-%m-%d):"
	echo "Linux $(make -s -C "$KSRC" kernelversion) + patches/, the benchmark kernel (no KASAN/lockdep),"
	echo "QEMU $(qemu-system-x86_64 --version | head -n1 | awk '{print $4}') ($KLOG_QEMU_ACCEL), 4 vCPUs on a $(nproc)-core host. Under TCG absolute"
	echo "times mean little; the ratios compare cases measured in the same boot. With"
	echo "single-threaded TCG the 4 vCPUs share one host thread: the \"CPUs at once\" rows"
	echo "show time-slicing, not parallel scaling."
	echo
	echo "Host /proc/loadavg before the VM: \`$load0\`, after: \`$load1\`"
	echo "(the VM ran $((t1 - t0)) s)."
	echo
	sed -n 's/^KLOG-BENCH: //p' "$logf" | sed 's/\r$//'
	echo
	echo "## The per-call and null_blk rows counted in instructions"
	echo
	echo "The same per-call and null_blk rows and profiles in another boot of the same kernel"
	echo "with QEMU's -icount shift=0,sleep=off: the guest's clock counts"
	echo "instructions (1 ns each), so these figures repeat from run to run and"
	echo "do not move with the host's load; they show no cache or atomic costs."
	echo
	sed -n 's/^KLOG-BENCH: //p' "$logi" | sed 's/\r$//' | sed 's/^## /### icount: /'
	echo
	"$KLOG_REPO/scripts/record-bytes.sh"
	echo
	echo "### Before and after: the relay handler of two commits in one boot"
	echo
	echo "A change to the write path is judged by scripts/bench-ab.sh: both"
	echo "commits' klog-mod loaded in turn in one boot of this kernel, in"
	echo "interleaved rounds (b/a above 1: b is slower). klog_raw's row of each run:"
	echo
	for f in "$KLOG_REPO"/bench/ab-*.md; do
		[ -f "$f" ] || continue
		echo "- bench/${f##*/}: $(sed -n 's/^| klog_raw | \(.*\) |$/\1/p' "$f" |
			awk -F' [|] ' '{ printf "a %s ns, b %s ns, b/a %s [%s]", $1, $2, $3, $4 }')"
	done
	echo
	echo "Notes: absolute figures move between runs and with the host's load;"
	echo "the ratios, measured in interleaved rounds, are what holds: compare"
	echo "ranges, and read a range that includes 1.0 as no difference the"
	echo "method can show. The rows marked (paired) hold best: their two cases"
	echo "alternate batch by batch in one run, so the host's drift, which moves"
	echo "the unpaired rows' ranges by tens of percent, cancels out."
	echo "A 4096-byte trace_puts() does not fit an ftrace ring-buffer"
	echo "event and is refused, so that row times a failure. klog_printk()"
	echo "records its arguments in binary by their C types, with no format"
	echo "parsing at the call (the site's format was parsed once, into a plan),"
	echo "and formats when read; trace_printk() also stores binary arguments"
	echo "but parses the format at every call (vbin_printf). The args_pack row"
	echo "is the packing alone, vsnprintf the same call formatted. Both"
	echo "take a timestamp per record (native_sched_clock). In the profiles,"
	echo "samples that fall while interrupts are off are taken when they are"
	echo "turned back on, so klog_relay_write's share includes the copy into the"
	echo "relay buffer (klog_relay_put, memcpy) that runs with interrupts off."
	echo
	echo "What holds on a loaded host: the cost-per-call figures are medians of"
	echo "64-call batches and null_blk's are medians of 64-read chunks, which"
	echo "leave out the stretches in which QEMU waited for a host CPU (under"
	echo "TCG the guest's clock runs on meanwhile). They are whole nanoseconds"
	echo "per call: at 20 ns one nanosecond is 5%, so a ratio of the no-handler"
	echo "rows to the empty loop within 0.95-1.05 is one step either way, not"
	echo "a difference. The collector and dd are timed by the wall clock, so their"
	echo "ranges widen with the host's load even with a dd run next to each case."
	echo
	echo "The collector's CPU ms per MB is the CPU time of its whole life (the"
	echo "channel's creation, mmap's MAP_POPULATE and the teardown included)"
	echo "over the MB it saved, as the guest's kernel charges it: each tick to"
	echo "the task current on each vCPU. Single-threaded TCG runs the four vCPUs"
	echo "in turn on one host thread, so a collector whose four readers each"
	echo "hold a vCPU is charged about four times the wall time it takes, and dd"
	echo "(one thread) once: compare the MB/s ratios, not these columns. For the"
	echo "same reason no stream row can beat the emitters alone (mode none):"
	echo "the emitters and the collector take turns on that host thread."
} > "$KLOG_REPO/BENCHMARKS.md"
cat "$KLOG_REPO/BENCHMARKS.md"
# The cover letter's figures come from BENCHMARKS.md (scripts/cover.py).
"$KLOG_REPO/scripts/mkpatches.sh"
