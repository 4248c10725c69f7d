#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The reserve collector (samples/klog/reserve/reserve) against reserve-mod,
# in mmap and read mode: writers on every CPU, from task and hardirq
# context, and on some task records a sleep between reserve and commit,
# so that hardirq records are reserved and committed in the middle of
# them and sub-buffers are produced before all their records are written.
# One such sub-buffer is made certain: a 500 ms sleep on CPU 0 and a
# flush during it. The collector must wait for those sub-buffers (it
# counts them, at least one), find every record intact (no torn or stale
# record), and account for every record emitted: delivered + dropped ==
# offered on each CPU (it checks that itself, exit 1 otherwise) and
# offered == emitted here. RESERVE names the collector (default: reserve
# in PATH); RESERVE_MOD_KO the module, loaded if needed. Output is TAP;
# exit 4 (skip) without the collector or the module.

RESERVE=${RESERVE:-reserve}
KO=${RESERVE_MOD_KO:-/lib/modules/reserve-mod.ko}
DIR=/sys/kernel/debug/reserve
COUNT=3000
. "$(dirname "$0")/klog_lib.sh"	# tap

[ -e $DIR/create ] || insmod "$KO" 2>/dev/null
if ! command -v "$RESERVE" >/dev/null || [ ! -e $DIR/create ]; then
	echo "1..0 # SKIP needs $RESERVE and reserve-mod"
	exit 4
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)
echo "1..14"

# total COLUMN of the collector's summary table in FILE
total() { awk -v c="$2" '$1 == "total" { print $c }' "$1"; }

# The traffic runs as the collector's COMMAND: it starts once the
# collector records, and the collector stops when it is done. Exit 10:
# an emit failed, or the certain delayed record of CPU 0 never came.
workload='
	DIR=$1 COUNT=$2
	# records of CPU 0 whose writer sleeps (or slept) between reserve and commit
	delayed() { sed -n "s/^cpu0 .* delayed=\([0-9]*\) .*/\1/p" $DIR/stats; }
	echo "count=$COUNT size=64 ctx=task,hardirq cpus=all delay_us=2000 delay_every=40" \
		> $DIR/emit || exit 10
	# certain: a sub-buffer produced while its record sleeps uncommitted
	d0=$(delayed)
	echo "count=1 size=256 ctx=task cpus=0 delay_us=500000" > $DIR/emit &
	epid=$!
	i=0
	while [ "$(delayed)" -le "$d0" ] && [ $i -lt 6000 ]; do
		sleep 0.1	# polls "reserved, now asleep" (600 s at most)
		i=$((i + 1))
	done
	if [ "$(delayed)" -le "$d0" ]; then
		echo "no record of CPU 0 was reserved and asleep within 600 s" >&2
		exit 10
	fi
	echo 1 > $DIR/flush
	wait $epid || exit 10'

for mode in mmap read; do
	out=/tmp/reserve-$mode sum=/tmp/reserve-$mode.sum
	rm -rf "$out"
	"$RESERVE" -m $mode -b 16384 -n 64 -o "$out" -- sh -c "$workload" sh $DIR $COUNT \
		> "$sum" 2>&1
	st=$?
	[ $st != 10 ]
	tap $? "$mode: emit with delays between reserve and commit"
	tap $st "$mode: collector exits 0 (records intact, counts add up per CPU)" \
		"$(cat "$sum")"

	records=$(total "$sum" 2) full=$(total "$sum" 5) big=$(total "$sum" 6)
	want=$((2 * COUNT * ncpu + 1))
	[ -n "$records" ] && [ $((records + full + big)) = $want ]
	tap $? "$mode: delivered + dropped == emitted" \
		"delivered $records + full $full + big $big, emitted $want"

	waited=$(total "$sum" 8) bad=$(total "$sum" 12)
	[ -n "$waited" ] && [ "$waited" -ge 1 ] && [ "$bad" = 0 ]
	tap $? "$mode: waited for incomplete sub-buffers, no torn record" \
		"waited $waited, bad $bad"

	nested=$(total "$sum" 10)
	[ -n "$nested" ] && [ "$nested" -ge 1 ]
	tap $? "$mode: hardirq records reserved inside open task records" \
		"nested $nested"

	size=$(cat "$out"/cpu* | wc -c)
	bytes=$(total "$sum" 3)
	[ -n "$bytes" ] && [ "$size" = "$bytes" ]
	tap $? "$mode: DIR/cpuN hold every byte taken" "files $size, taken $bytes"
done

# A small buffer: records are dropped when the reader falls behind (and
# while it waits for a commit); every one must still be accounted for.
out=/tmp/reserve-small sum=/tmp/reserve-small.sum
rm -rf "$out"
req="count=$COUNT size=120 ctx=task,hardirq cpus=all delay_us=1000 delay_every=20"
"$RESERVE" -b 4096 -n 4 -o "$out" -- sh -c "echo '$req' > $DIR/emit" > "$sum" 2>&1
tap $? "small buffer: collector exits 0 (counts add up per CPU)" "$(cat "$sum")"
records=$(total "$sum" 2) full=$(total "$sum" 5) big=$(total "$sum" 6)
want=$((2 * COUNT * ncpu))
[ -n "$records" ] && [ $((records + full + big)) = $want ]
tap $? "small buffer: delivered + dropped == emitted" \
	"delivered $records + full $full + big $big, emitted $want"

[ $fail = 0 ]
