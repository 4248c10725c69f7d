#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# bench-ab.sh REV_A REV_B: the relay handler (klog-mod) of two revisions
# measured against each other in one boot of the benchmark kernel, so
# that a change to the write path is judged by the same kernel, the
# same boot and interleaved rounds (guest/job-ab.sh), not by two boots
# whose TCG costs differ (trace_puts, which runs no klog code, moved 25%
# between two kernels). Each revision's handler (kernel/klog_relay*, or
# examples/klog/klog-mod* before it moved) and
# <uapi/linux/klog_relay.h> are built as an external module against the
# benchmark kernel of this tree: the klog core is this tree's, so only
# revisions whose klog-mod builds against it can be compared.
# KLOG_AB_ROUNDS=N: N rounds (default 9). Writes bench/ab-A-B.md.
. "$(dirname "$0")/common.sh"
[ $# = 2 ] || die "usage: bench-ab.sh REV_A REV_B"
"$KLOG_REPO/scripts/deps.sh"
"$KLOG_REPO/scripts/tree.sh"
"$KLOG_REPO/scripts/build-kernel.sh" bench "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/bench.config"

work=$KLOG_CACHE/ab
rm -rf "$work"
mkdir -p "$work"
mods=
for v in a b; do
	if [ $v = a ]; then rev=$1; else rev=$2; fi
	sha=$(git -C "$KLOG_REPO" rev-parse --short "$rev^{commit}") ||
		die "$rev: not a revision of $KLOG_REPO"
	d=$work/$v
	mkdir -p "$d"
	# The handler's sources where the revision has them: kernel/klog_relay*
	# (CONFIG_KLOG_RELAY), or examples/klog/klog-mod* before they moved.
	if git -C "$KLOG_REPO" cat-file -e "$sha:kernel/klog_relay.c" 2>/dev/null; then
		m=kernel hdr=klog_relay_internal.h
		git -C "$KLOG_REPO" archive "$sha" 'kernel/klog_relay*' \
			include/uapi/linux/klog_relay.h | tar -x -C "$d"
		printf 'obj-m += klog-mod.o\nklog-mod-y := %s\n' \
			"$(cd "$d/kernel" && ls klog_relay*.c | sed 's/\.c$/.o/' | tr '\n' ' ')" > "$d/kernel/Kbuild"
		inc=../include/uapi/linux/klog_relay.h
	else
		m=examples/klog hdr=klog-mod.h
		git -C "$KLOG_REPO" archive "$sha" examples/klog examples/lib \
			include/uapi/linux/klog_relay.h | tar -x -C "$d"
		sed -i "s/^obj-\$(CONFIG_SAMPLE_KLOG)/obj-m/" "$d/$m/Kbuild"
		inc=../../include/uapi/linux/klog_relay.h
	fi
	# The revision's stream header, not the one in the kernel tree.
	sed -i "s|#include <uapi/linux/klog_relay.h>|#include \"$inc\"|" "$d/$m/$hdr"
	grep -q "\"$inc\"" "$d/$m/$hdr" ||
		die "$rev: $m/$hdr does not include <uapi/linux/klog_relay.h>"
	kmake bench M="$d/$m" modules ||
		die "$rev ($sha): its klog-mod does not build against this tree's kernel"
	cp "$d/$m/klog-mod.ko" "$work/klog-mod-$v.ko"
	mods="$mods $work/klog-mod-$v.ko"
	if [ $v = a ]; then sha_a=$sha; else sha_b=$sha; fi
done
KLOG_EXTRA_MODULES=$mods "$KLOG_REPO/scripts/initramfs.sh" bench
# Leave the benchmark initramfs as make bench builds it.
trap '"$KLOG_REPO/scripts/initramfs.sh" bench > /dev/null' EXIT

logf=$KLOG_CACHE/console-bench-ab.log
export KLOG_QEMU_ACCEL=${KLOG_QEMU_ACCEL:-tcg,thread=single}
# The guest's clock counts instructions (vm.sh): a write-path change is
# judged by the code it runs, not by the host's load meanwhile.
export KLOG_QEMU_ICOUNT=${KLOG_QEMU_ICOUNT:-1}
load0=$(cat /proc/loadavg)
KLOG_CMDLINE="klog.ab_rounds=${KLOG_AB_ROUNDS:-9} loglevel=4" "$KLOG_REPO/scripts/vm.sh" bench ab "$logf" 3000
load1=$(cat /proc/loadavg)
"$KLOG_REPO/scripts/vmlog.py" "$logf" > /dev/null || die "the A/B run was not clean: see $logf"

out=$KLOG_REPO/bench/ab-$sha_a-$sha_b.md
{
	echo "# A/B: the relay handler of $sha_a (a) against $sha_b (b)"
	echo
	echo "Measured by \`scripts/bench-ab.sh $1 $2\` on $(date -u +%Y-%m-%d),"
	echo "in one boot of the benchmark kernel of $(git -C "$KLOG_REPO" describe --always --dirty)"
	echo "(QEMU $KLOG_QEMU_ACCEL$([ "$KLOG_QEMU_ICOUNT" = 1 ] && echo ', -icount shift=0,sleep=off: times are instructions'), 4 vCPUs, one writer CPU); host /proc/loadavg"
	echo "before: \`$load0\`, after: \`$load1\`. Each round loads a and b in turn"
	echo "(the order alternating) and measures each case through it; ratios are"
	echo "taken within a round, then the median and 10th-90th percentile over the"
	echo "rounds. b/a above 1 means b is slower."
	echo
	"$KLOG_REPO/scripts/bench-ab-table.py" "$logf"
} > "$out"
cat "$out"
log "saved $out"
