#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The klog collector (tools/klog) against the real relay handler:
# in read and mmap mode, and stopped with SIGINT in the middle of the
# traffic, it keeps every record written before the stop: its files hold
# exactly the records the kernel counted as written, its report decodes
# them all, and it exits with the status of its COMMAND, which the
# SIGINT passed on ended (130). A module loaded and unloaded during a
# collection: its records print with their function names from the saved
# DIR/sites, and their task names. klog -r DIR -f beside a running
# collection prints its records. KLOG names the collector (default:
# klog in PATH). Output is TAP; exit 4 (skip) without the collector or
# modules.

KLOG=${KLOG:-klog}
EMIT=/sys/kernel/debug/test_klog/emit
. "$(dirname "$0")/klog_lib.sh"	# tap

if ! command -v "$KLOG" >/dev/null || [ ! -w "$EMIT" ] ||
   [ ! -e /sys/kernel/debug/klog/create ] || [ ! -f /lib/modules/klog-example.ko ]; then
	echo "1..0 # SKIP needs $KLOG, test_klog, klog-mod and klog-example.ko"
	exit 4
fi
echo "1..22"

for mode in read mmap; do
	out=/tmp/klog-$mode
	rm -rf "$out"; mkdir -p "$out"
	# The COMMAND runs once klog records: some records, then paced
	# traffic in the background (100 s), and a SIGINT to the collector
	# while that traffic runs. klog passes the SIGINT on to the COMMAND,
	# which it ends: klog's exit status is then 130.
	"$KLOG" -m $mode -b 16384 -n 64 -o "$out" -- sh -c '
		echo "count=1000 size=64 kind=raw ctx=task,hardirq cpus=all" > $1 || exit 10
		echo "count=100000 size=64 kind=raw ctx=task,hardirq cpus=all gap_us=1000" > $1 &
		echo $! > $2
		kill -INT $PPID
		wait' sh "$EMIT" /tmp/klog-$mode.epid > /tmp/klog-$mode.sum 2>&1
	st=$?
	epid=$(cat /tmp/klog-$mode.epid)
	kill -0 "$epid"
	tap $? "$mode: traffic still running when the collector stops"
	kill -TERM "$epid" 2>/dev/null
	[ $st = 130 ] && grep -q '^klog: stopped (SIGINT)' /tmp/klog-$mode.sum
	tap $? "$mode: collector stopped mid-stream by SIGINT exits with the COMMAND's 130" \
		"exit $st; $(tail -n 3 /tmp/klog-$mode.sum)"
	# The channel is gone after the collector; it has checked its files
	# against the kernel's counters (exit 1 on a mismatch). Check that the
	# report shows every record of its summary's total.
	got=$("$KLOG" -r "$out" | grep -vc '\*\*\*')
	want=$(awk '$1 == "total" { print $2 }' /tmp/klog-$mode.sum)
	[ -n "$want" ] && [ "$got" -gt 0 ] && [ "$got" = "$want" ]
	tap $? "$mode: files hold every record written before the stop" \
		"report $got records, summary $want"
	"$KLOG" -r "$out" > /dev/null
	tap $? "$mode: saved files decode cleanly"
done

# Sites by id (stream version 2): a module loaded and unloaded during the
# collection. The collector saves the kernel's site table as DIR/sites at
# the start and the stop, merged by id; klog -r names the module's
# records from it (and only from it: without it they are site#N), and
# the records name their tasks (COMM records) as comm-pid.
EX=/lib/modules/klog-example.ko
S=/tmp/klog-sites
rm -rf $S $S.copy
"$KLOG" -q -f -o $S -- sh -c "insmod $EX ticks=3 && rmmod klog_example" \
	> $S.follow 2> $S.log
st=$?
tap $st "sites: collection over insmod and rmmod of klog-example" "$(cat $S.log)"
gone=$(awk -F '\t' '$2 == "gone" && $4 == "klog_example"' $S/sites | wc -l)
mode=$(stat -c %a $S/sites)
[ "$gone" = 4 ] && [ "$mode" = 600 ] && head -n 1 $S/sites | grep -q '^# klog sites 1 forgotten='
tap $? "sites: DIR/sites (0600) describes the module's 4 sites, gone" \
	"mode $mode, $gone gone klog_example sites" "$(grep klog_example $S/sites)"
cp -r $S $S.copy
"$KLOG" -r $S.copy > $S.txt 2> $S.err
st=$?
ex() { grep -cE "^\[[0-9.]+\] cpu[0-9]+ $1" $S.txt; }
[ $st = 0 ] &&
	[ "$(ex 'insmod-[0-9]+ task example_init:[0-9]+: loaded: 3 ticks, 20 ms apart$')" = 1 ] &&
	[ "$(ex '[^ ]+ softirq example_tick:[0-9]+: tick [1-3] of 3, [0-2] left$')" = 3 ] &&
	[ "$(ex '[^ ]+ softirq example_tick:[0-9]+: raw 16 bytes:')" = 3 ] &&
	[ "$(ex 'rmmod-[0-9]+ task example_exit:[0-9]+: unloaded after 3 of 3 ticks$')" = 1 ] &&
	! grep -q 'site#' $S.txt
tap $? "sites: klog -r of a copy names the unloaded module's records" \
	"exit $st" "$(grep example_ $S.txt)" "$(cat $S.err)"
# every record a COMM record named: comm-pid, never a bare pid
bare=$(grep -cE '^\[[0-9.]+\] cpu[0-9]+ [0-9]+ ' $S.txt)
tap $(( bare != 0 )) "sites: every record prints as comm-pid" "$bare bare pids"
mv $S.copy/sites $S.copy/sites.away
"$KLOG" -r $S.copy > $S.txt 2> /dev/null
n=$(grep -cE ' site#[0-9]+: ' $S.txt)
[ "$n" = 8 ] && ! grep -q ' example_' $S.txt
tap $? "sites: without DIR/sites the module's 8 records print as site#N" \
	"$n site#N lines" "$(head -n 3 $S.txt)"
# follow mode met ids newer than the table it read at the start
[ "$(grep -cE ' example_(init|tick|exit):[0-9]+: ' $S.follow)" = 8 ] &&
	! grep -q 'site#' $S.follow
tap $? "sites: follow mode re-reads the kernel's table for a new id" \
	"$(grep -E 'example_|site#' $S.follow)"

# klog -r DIR -f follows a collection while it is written: started at
# the collector's recording line, it ends when the collection stops
# (DIR/meta's stop line), having printed every line of the report
F=/tmp/klog-follow
rm -rf $F $F.log
"$KLOG" -q -o $F -- sh -c \
	"echo 'count=500 size=64 kind=raw ctx=task,hardirq cpus=all gap_us=1000' > $EMIT" \
	2> $F.log &
kp=$!
until grep -q ': recording ' $F.log 2>/dev/null || ! kill -0 $kp 2>/dev/null; do
	sleep 0.01
done
timeout 120 "$KLOG" -r $F -f > $F.follow 2> $F.ferr
st=$?
wait $kp
cst=$?
"$KLOG" -r $F > $F.txt 2> $F.err
[ $st = 0 ] && [ $cst = 0 ] && [ "$(wc -l < $F.txt)" -ge 500 ] &&
	[ "$(sort $F.follow | md5sum)" = "$(sort $F.txt | md5sum)" ] && cmp -s $F.ferr $F.err
tap $? "follow: klog -r DIR -f during the collection prints the report's lines" \
	"exit $st, collector $cst; $(wc -l < $F.follow) of $(wc -l < $F.txt) lines" \
	"$(cat $F.log $F.ferr $F.err)"

# The flight recorder: start it, let a trigger freeze it, snapshot it.
"$KLOG" -R -b 16384 -n 32 > /tmp/klog-rec.log 2>&1
tap $? "recorder: klog -R starts an overwrite-mode recorder" "$(cat /tmp/klog-rec.log)"
# 6000 records of ~120 bytes per CPU: more than 32 x 16 KiB, it wraps
echo "count=6000 size=64 kind=raw ctx=task,hardirq cpus=all" > $EMIT
echo "count=10 size=64 kind=raw cpus=0 trigger=1" > $EMIT
[ "$(cat /sys/kernel/debug/klog/frozen)" = 1 ]
tap $? "recorder: klog_trigger() froze it"

# Nothing tears the recorder down without -x, and -x not before the
# kernel accepted the new settings (item 11).
D=/sys/kernel/debug/klog
state() {
	echo "$(cat $D/create) $(cat $D/enabled) $(cat $D/mode)" \
		"$(cat $D/subbuf_size) $(cat $D/frozen)"
}
before=$(state)
"$KLOG" -R -b 64k -n 8 > /tmp/klog-rr.log 2>&1
st1=$?
"$KLOG" -R -x -b 100 -n 8 >> /tmp/klog-rr.log 2>&1
st2=$?
"$KLOG" -o /tmp/klog-rr -t 1 >> /tmp/klog-rr.log 2>&1
st3=$?
[ $st1 = 1 ] && [ $st2 = 1 ] && [ $st3 = 1 ] && [ "$(state)" = "$before" ] &&
	grep -q 'subbuf_size: write "100": Invalid argument' /tmp/klog-rr.log
tap $? "recorder: klog -R, klog -R -x with a bad size and klog leave it as it was" \
	"exit $st1 $st2 $st3; before: $before; after: $(state)" "$(cat /tmp/klog-rr.log)"

rm -rf /tmp/klog-snap
"$KLOG" -s -o /tmp/klog-snap > /tmp/klog-snap.log 2>&1
tap $? "recorder: klog -s takes a snapshot" "$(tail -n 2 /tmp/klog-snap.log)"
last=$("$KLOG" -r /tmp/klog-snap 2>/dev/null | grep ' cpu0 ' | tail -n 1)
case "$last" in *"klog_trigger: test_klog"*"[trigger]"*) st=0 ;; *) st=1 ;; esac
tap $st "recorder: the snapshot ends, on cpu0, with the trigger" "$last"
# a frozen recorder: nothing was overwritten while it was copied, and
# what was overwritten before the snapshot is not loss (item 15)
"$KLOG" -r /tmp/klog-snap > /tmp/klog-snap.txt 2> /tmp/klog-snap.err
st=$?
[ $st = 0 ] && ! grep -q '\*\*\*' /tmp/klog-snap.txt && grep -q ', 0 lost$' /tmp/klog-snap.err &&
	grep -q 'sub-buffers kept, 0 skipped' /tmp/klog-snap.log &&
	[ -f /tmp/klog-snap/sites ] && ! grep -q 'site#' /tmp/klog-snap.txt
tap $? "recorder: the snapshot report shows no loss that is not there, every site named" \
	"exit $st; $(grep -m 3 '\*\*\*' /tmp/klog-snap.txt)" "$(cat /tmp/klog-snap.err)"
echo 0 > /sys/kernel/debug/klog/enabled
echo 0 > /sys/kernel/debug/klog/create
echo no-overwrite > /sys/kernel/debug/klog/mode
"$KLOG" -s -o /tmp/klog-snap > /tmp/klog-snap.log 2>&1
st=$?
[ $st = 1 ] && grep -q 'no flight recorder is running; start one with klog -R' /tmp/klog-snap.log
tap $? "recorder: klog -s without a recorder is an error" "$(cat /tmp/klog-snap.log)"

[ $fail = 0 ]
