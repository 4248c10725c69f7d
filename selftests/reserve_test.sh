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
n=0
fail=0

tap() { # tap STATUS NAME [DIAG]
	n=$((n + 1))
	[ -n "$3" ] && echo "$3" | sed 's/^/# /'
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}

[ -e $DIR/create ] || insmod "$KO" 2>/dev/null
if ! command -v "$RESERVE" >/dev/null || [ ! -e $DIR/create ]; then
	echo "1..0 # SKIP needs $RESERVE and reserve-mod"
	exit 4
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)
echo "1..14"

# total COLUMN of the collector's summary table in FILE
total() { awk -v c="$2" '$1 == "total" { print $c }' "$1"; }
# records of CPU 0 whose writer sleeps (or slept) between reserve and commit
delayed() { sed -n 's/^cpu0 .* delayed=\([0-9]*\) .*/\1/p' $DIR/stats; }

for mode in mmap read; do
	out=/tmp/reserve-$mode sum=/tmp/reserve-$mode.sum
	rm -rf "$out"
	"$RESERVE" -m $mode -b 16384 -n 64 -o "$out" > "$sum" 2>&1 &
	pid=$!
	for i in 1 2 3 4 5 6 7 8 9 10; do
		[ "$(cat $DIR/enabled 2>/dev/null)" = 1 ] && break
		sleep 0.2
	done
	req="count=$COUNT size=64 ctx=task,hardirq cpus=all"
	echo "$req delay_us=2000 delay_every=40" > $DIR/emit
	st1=$?
	# certain: a sub-buffer produced while its record sleeps uncommitted
	d0=$(delayed)
	echo "count=1 size=256 ctx=task cpus=0 delay_us=500000" > $DIR/emit &
	epid=$!
	for i in $(seq 50); do
		[ "$(delayed)" -gt "$d0" ] && break	# reserved, now asleep
		sleep 0.1
	done
	echo 1 > $DIR/flush
	wait $epid
	st2=$?
	tap $((st1 | st2)) "$mode: emit with delays between reserve and commit"

	kill -INT $pid
	wait $pid
	tap $? "$mode: collector exits 0 (records intact, counts add up per CPU)" \
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
"$RESERVE" -b 4096 -n 4 -o "$out" > "$sum" 2>&1 &
pid=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(cat $DIR/enabled 2>/dev/null)" = 1 ] && break
	sleep 0.2
done
echo "count=$COUNT size=120 ctx=task,hardirq cpus=all delay_us=1000 delay_every=20" > $DIR/emit
kill -INT $pid
wait $pid
tap $? "small buffer: collector exits 0 (counts add up per CPU)" "$(cat "$sum")"
records=$(total "$sum" 2) full=$(total "$sum" 5) big=$(total "$sum" 6)
want=$((2 * COUNT * ncpu))
[ -n "$records" ] && [ $((records + full + big)) = $want ]
tap $? "small buffer: delivered + dropped == emitted" \
	"delivered $records + full $full + big $big, emitted $want"

[ $fail = 0 ]
