#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# klog start, status and stop (tools/klog) against the real relay
# handler: a session started in the background records test_klog's
# traffic while klog status shows it, a second start is refused, and
# klog stop ends it with its summary; the collection then holds exactly
# the records test_klog made. A session killed with SIGKILL: klog status
# and klog stop say so, the channel is left, and the next collection
# into its DIR resumes it with every record (mmap mode loses none). KLOG
# names the collector (default: klog in PATH). Output is TAP; exit 4
# (skip) without the collector or modules.

KLOG=${KLOG:-klog}
D=/sys/kernel/debug/klog
TK=/sys/kernel/debug/test_klog
. "$(dirname "$0")/klog_lib.sh"	# tap

if ! command -v "$KLOG" >/dev/null || [ ! -w $TK/emit ] || [ ! -e $D/create ]; then
	echo "1..0 # SKIP needs $KLOG, test_klog and klog-mod"
	exit 4
fi
echo "1..11"
S=/tmp/klog-session
rm -rf $S $S.2 $S.k; mkdir -p $S.t

# test_klog's task-context records so far, all CPUs
made() { sed 's/.* task=\([0-9]*\) .*/\1/' $TK/stats | awk '{ n += $1 } END { print n }'; }
# its raw 64-byte records in collection DIR
nrec() { "$KLOG" -r "$1" 2>/dev/null | grep -c ': raw 64 bytes: 54 4b 4c 47 '; }
# poll CONDITION...: until it holds (bounded at 600 s): no fixed sleep
poll() {
	i=0
	until "$@"; do
		i=$((i + 1))
		[ $i -lt 6000 ] || return 1
		sleep 0.1
	done
}

"$KLOG" start -b 16384 -n 64 -o $S > $S.t/start 2>&1
st=$?
pid=$(sed -n 's/^klog: session started: pid \([0-9]*\);.*/\1/p' $S.t/start)
[ $st = 0 ] && [ -n "$pid" ] && kill -0 "$pid" &&
	grep -q "^klog: recording [0-9]* CPUs into $S/cpu\* until klog stop$" $S.t/start
tap $? "start: returns once the detached collector records" "exit $st" "$(cat $S.t/start)"

before=$(made)
echo "count=500 size=64 kind=raw ctx=task cpus=all" > $TK/emit
want=$(( $(made) - before ))
# status: whole sub-buffers are read as they fill
seen() {
	"$KLOG" status > $S.t/status 2> $S.t/status.err &&
		sed -n 2p $S.t/status | grep -q ': [1-9][0-9]* records ('
}
poll seen
st=$?
recs=$(sed -n '2s/^.*: \([0-9]*\) records .*/\1/p' $S.t/status)
[ $st = 0 ] &&
	[ "$(sed -n 1p $S.t/status)" = "pid $pid, recording into $S (control directory $D)" ] &&
	[ "$(awk '$1 == "total" { print $2 }' $S.t/status)" = "$recs" ] &&
	[ "$(grep -c '^cpu[0-9]' $S.t/status)" = "$(ls $D | grep -c '^cpu[0-9]*$')" ]
tap $? "status: pid, DIR, records read, a row per buffer" \
	"$(cat $S.t/status $S.t/status.err)"

"$KLOG" start -o $S.2 > $S.t/start2 2>&1
st=$?
[ $st = 1 ] && [ ! -e $S.2 ] &&
	grep -qF "klog: a session is running: pid $pid, recording into $S;" $S.t/start2
tap $? "start: a second one says who runs and exits 1" "exit $st" "$(cat $S.t/start2)"
"$KLOG" -o $S.2 -t 1 > $S.t/fg 2>&1
st=$?
[ $st = 1 ] && grep -q 'another collector is using the channel' $S.t/fg
tap $? "a foreground collection is refused while the session runs" "exit $st" "$(cat $S.t/fg)"

"$KLOG" stop > $S.t/stop 2>&1
st=$?
total=$(awk '$1 == "total" { print $2 }' $S.t/stop)
[ $st = 0 ] && grep -q '^klog: stopped (SIGTERM) after ' $S.t/stop &&
	grep -qxF "klog: session stopped: klog -r $S prints its records" $S.t/stop &&
	! grep -q 'dropped' $S.t/stop && [ "$(cat $D/create)" = 0 ] &&
	grep -qx 'stop_reason SIGTERM' $S/meta
tap $? "stop: ends it and prints its summary; the channel is gone" "exit $st" "$(cat $S.t/stop)"
got=$(nrec $S)
[ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$total" = "$want" ]
tap $? "stop: the collection holds every record test_klog made" \
	"made $want, files $got, summary $total"
"$KLOG" status > $S.t/none 2>&1
st=$?
"$KLOG" stop >> $S.t/none 2>&1
st2=$?
[ $st = 3 ] && [ $st2 = 3 ] && [ "$(grep -c '^klog: no session is running' $S.t/none)" = 2 ]
tap $? "status and stop with no session: exit 3" "$(cat $S.t/none)"

# Killed: the channel stays, with what the collector had not read.
"$KLOG" start -m mmap -b 16384 -n 64 -o $S.k > $S.t/start 2>&1
st=$?
pid=$(sed -n 's/^klog: session started: pid \([0-9]*\);.*/\1/p' $S.t/start)
tap $st "killed: a session in mmap mode" "$(cat $S.t/start)"
before=$(made)
echo "count=300 size=64 kind=raw ctx=task cpus=all" > $TK/emit
want=$(( $(made) - before ))
kill -KILL "$pid"
gone() {
	"$KLOG" status > $S.t/status 2>&1
	[ $? = 3 ] && grep -q 'is gone without stopping (killed?)' $S.t/status
}
poll gone
tap $? "killed: status says the collector is gone" "$(cat $S.t/status)"
"$KLOG" stop > $S.t/stop 2>&1
st=$?
killed="klog: the session's collector (pid $pid) was killed before it stopped: $S.k holds"
[ $st = 1 ] && grep -qF "$killed" $S.t/stop && [ "$(cat $D/create) $(cat $D/enabled)" = "1 1" ]
tap $? "killed: stop says so and leaves the channel" "exit $st" "$(cat $S.t/stop)"
"$KLOG" -m mmap -o $S.k -t 0.5 > $S.t/resume 2>&1
st=$?
got=$(nrec $S.k)
[ $st = 0 ] && grep -q "^klog: cpu[0-9]*: resumed $S.k/cpu" $S.t/resume &&
	[ "$want" -gt 0 ] && [ "$got" = "$want" ] && [ "$(cat $D/create)" = 0 ]
tap $? "killed: the next collection resumes DIR with every record" \
	"exit $st, made $want, files $got" "$(cat $S.t/resume)"

[ $fail = 0 ]
