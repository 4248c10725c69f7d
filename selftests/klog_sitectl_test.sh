#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The collector drives the call-site table: klog --sites lists test_klog's
# sites as the core's sites file describes them, with their state; a bad
# query is a usage error (exit 2); klog -e records only the sites its
# queries select (exact record counts from test_klog's text and raw
# sites) and puts every site's state back after a normal stop, a SIGINT,
# and a SIGKILL (then the next collection puts it back, and says so); a
# second collector does not touch the first one's saved state. Needs
# klog-mod and test_klog loaded. KLOG names the collector (default: klog
# in PATH). Output is TAP; exit 4 (skip) without them.

KLOG=${KLOG:-klog}
D=/sys/kernel/debug/klog
EMIT=/sys/kernel/debug/test_klog/emit
SAVED=/run/klog/sites.saved
T=/tmp/klog-sitectl
. "$(dirname "$0")/klog_lib.sh"	# tap

if ! command -v "$KLOG" >/dev/null || [ ! -w "$EMIT" ] ||
   [ ! -w $D/control ] || [ ! -e $D/create ]; then
	echo "1..0 # SKIP needs $KLOG, test_klog, klog-mod and klog's control file"
	exit 4
fi
if [ -e $SAVED ]; then
	echo "1..0 # SKIP $SAVED exists: a collector's saved state is pending"
	exit 4
fi
echo "1..20"
rm -rf $T; mkdir -p $T

# Every live site as "id flag", in id order: the state -e must put back.
state() {
	sed 1d $D/control |
		sed 's/^[^ ]* \[[^]]*\][^ ]* =\([p_]\) .* id=\([0-9]*\) records=[0-9]*$/\2 \1/'
}
# wait_for FILE TEXT: until FILE has a line with TEXT (a condition, no
# fixed sleep; bounded at 600 s for a slow machine).
wait_for() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 6000 ] || return 1
		sleep 0.1
	done
}
# Records in a saved collection: all lines, and test_klog text records.
nrec() { "$KLOG" -r "$1" | grep -vc '\*\*\*'; }
ntext() { "$KLOG" -r "$1" | grep -c ' emit_one:[0-9]*: TKLG c=000 x=0 '; }

# ---- klog --sites ------------------------------------------------------

"$KLOG" --sites module test_klog > $T/list 2> $T/list.err
st=$?
# test_klog's sites from the core's table: id, module, file:line, func.
awk -F '\t' '$2 == "live" && $4 == "test_klog" {
	print $1, $4, $5 ":" $6, $7 }' $D/sites > $T/want
awk 'NR > 1 { print $1, $3, $4, $5 }' $T/list > $T/got
[ $st = 0 ] && [ -s $T/want ] && cmp -s $T/want $T/got
tap $? "--sites module test_klog lists its sites with the table's id, file:line, function" \
	"exit $st" "$(cat $T/list.err)" "want: $(cat $T/want)" "got: $(cat $T/got)"

# The known sites: emit_one's text and raw calls, the triggers of
# tklg_stream_fn and of the NMI handler (tklg_nmi_handler), the raw call
# of raw_fault_write (the oops test's), all in lib/test_klog.c; the text
# one shows its format.
known="emit_one emit_one raw_fault_write tklg_nmi_handler tklg_stream_fn "
[ "$(awk '{ print $4 }' $T/got | sort | tr '\n' ' ')" = "$known" ] &&
	[ "$(awk '$3 !~ /^lib\/test_klog\.c:[0-9]+$/' $T/got)" = "" ] &&
	grep -q ' emit_one  *"TKLG c=%03u x=%u s=%020llu' $T/list &&
	grep -q ' emit_one  *raw$' $T/list
tap $? "--sites shows test_klog's 5 sites, emit_one's text one with its format" \
	"$(cat $T/list)"

"$KLOG" --sites > $T/all
[ $(($(wc -l < $T/all) - 1)) = "$(sed 1d $D/sites | wc -l)" ] &&
	[ "$(awk 'NR > 1 && $2 != "gone"' $T/all | wc -l)" = "$(state | wc -l)" ]
tap $? "--sites without a query lists every site of the table" \
	"$(($(wc -l < $T/all) - 1)) listed, $(sed 1d $D/sites | wc -l) in sites"

# Its state column is the control file's flag.
"$KLOG" --sites | awk 'NR > 1 && $2 != "gone" { print $1, ($2 == "on" ? "p" : "_") }' > $T/st1
state > $T/st2
cmp -s $T/st1 $T/st2
tap $? "--sites shows each live site's state as control has it"

errs=
for q in "modules test_klog" "line 9-3" "func \"x" "func x +p" "module a; func b"; do
	"$KLOG" --sites "$q" > /dev/null 2> $T/bad.err
	st=$?
	[ $st = 2 ] && grep -q "^klog: --sites '" $T/bad.err ||
		errs="$errs [$q: exit $st: $(cat $T/bad.err)]"
done
[ -z "$errs" ]
tap $? "--sites with a bad query: a message and exit 2" "$errs"

# ---- klog -e: exact records, state put back -----------------------------

# A state that is not all on: tklg_stream_fn's trigger site off.
echo "module test_klog func tklg_stream_fn =_" > $D/control
before=$(state)

"$KLOG" -q -o $T/e1 -e 'module test_klog format "TKLG c="' -- sh -c "
	sed 1d $D/control > $T/during
	echo 'count=7 size=64 kind=text ctx=task cpus=0' > $EMIT &&
	echo 'count=5 size=64 kind=raw ctx=task cpus=0' > $EMIT" > $T/e1.out 2>&1
st=$?
[ $st = 0 ]
tap $? "klog -e ... -- COMMAND collects" "exit $st" "$(cat $T/e1.out)"

on=$(grep -c ' =p ' $T/during)
grep ' =p ' $T/during | grep -q ' \[test_klog\]emit_one =p "TKLG c='
[ $? = 0 ] && [ "$on" = 1 ]
tap $? "during -e only the selected site is on" "$on on: $(grep ' =p ' $T/during | head -n 3)"

got=$(nrec $T/e1)
text=$(ntext $T/e1)
[ "$got" = 7 ] && [ "$text" = 7 ]
tap $? "-e: exactly the 7 records of the selected text site, none of the 5 raw" \
	"$got records, $text from the text site"

[ "$(state)" = "$before" ] && [ ! -e $SAVED ]
tap $? "-e: every site's state put back at the end, state file removed"

# Two queries (repeatable -e): both sites recorded.
"$KLOG" -q -o $T/e2 -e 'module test_klog format TKLG' -e 'module test_klog func emit_one line 1-' \
	-- sh -c "echo 'count=3 size=64 kind=text ctx=task cpus=0' > $EMIT &&
		  echo 'count=4 size=64 kind=raw ctx=task cpus=0' > $EMIT" > $T/e2.out 2>&1
st=$?
[ $st = 0 ] && [ "$(nrec $T/e2)" = 7 ] && [ "$(ntext $T/e2)" = 3 ] && [ "$(state)" = "$before" ]
tap $? "-e twice: the sites of either query (3 text + 4 raw records), state put back" \
	"exit $st, $(nrec $T/e2) records, $(ntext $T/e2) text" "$(cat $T/e2.out)"

"$KLOG" -q -o $T/bad -e 'func x +p' > /dev/null 2> $T/bad.err
st=$?
[ $st = 2 ] && grep -q "give no flags" $T/bad.err && [ "$(state)" = "$before" ] &&
	[ ! -e $T/bad/cpu0 ]
tap $? "-e with flags: exit 2 before anything changes" "exit $st: $(cat $T/bad.err)"

# ---- SIGINT ----------------------------------------------------------------

"$KLOG" -q -o $T/int -e 'module test_klog format TKLG' > $T/int.out 2>&1 &
pid=$!
wait_for $T/int.out "^klog: recording"
echo 'count=9 size=64 kind=text ctx=task cpus=0' > $EMIT
echo 'count=2 size=64 kind=raw ctx=task cpus=0' > $EMIT
during=$(state | grep -c ' p$')
kill -INT $pid
wait $pid
st=$?
[ $st = 0 ] && [ "$during" = 1 ] && [ "$(state)" = "$before" ] && [ ! -e $SAVED ] &&
	[ "$(nrec $T/int)" = 9 ]
tap $? "-e stopped by SIGINT: 9 records, state put back" \
	"exit $st, $during on during, $(nrec $T/int) records" "$(cat $T/int.out)"

# ---- SIGKILL, a second collector, the next run ----------------------------

"$KLOG" -q -o $T/kill -e 'module test_klog format TKLG' > $T/kill.out 2>&1 &
pid=$!
wait_for $T/kill.out "^klog: recording"
saved=$(cat $SAVED 2>/dev/null)
perm=$(stat -c '%a %u' $SAVED /run/klog 2>&1 | tr '\n' ' ')
[ "$perm" = "600 0 700 0 " ] && [ "$(echo "$saved" | sed 1d | tr '\t' ' ')" = "$before" ]
tap $? "-e saves the state before it, 0600 in a 0700 /run/klog" "$perm" \
	"$(echo "$saved" | head -n 3)"

# A second collector fails on the lock and leaves the saved state alone.
"$KLOG" -q -o $T/second -e 'module test_klog func tklg_stream_fn' -t 1 > $T/second.out 2>&1
st=$?
[ $st = 1 ] && [ "$(cat $SAVED)" = "$saved" ] && [ "$(state | grep -c ' p$')" = 1 ]
tap $? "a second klog -e fails and does not touch the first one's state" \
	"exit $st" "$(cat $T/second.out)"

echo 'count=4 size=64 kind=text ctx=task cpus=0' > $EMIT
kill -KILL $pid
wait $pid 2>/dev/null
[ -e $SAVED ] && [ "$(state | grep -c ' p$')" = 1 ]
tap $? "after SIGKILL the -e state and its saved file stay"

# The next collection (the same DIR: it resumes the files) restores first.
"$KLOG" -q -o $T/kill -- sh -c "sed 1d $D/control > $T/next-during" > $T/next.out 2>&1
st=$?
[ $st = 0 ] && grep -q "a killed collector's saved call-site state: put back" $T/next.out &&
	[ "$(state)" = "$before" ] && [ ! -e $SAVED ] &&
	[ "$(grep -c ' =p ' $T/next-during)" = "$(echo "$before" | grep -c ' p$')" ]
tap $? "the next klog run puts the killed one's state back first, and says so" \
	"exit $st" "$(cat $T/next.out)"

[ "$(ntext $T/kill)" = 4 ]
tap $? "the killed -e collection's records are resumed: 4" "$(ntext $T/kill) text records"

# A state file that is not a regular file is refused, never followed.
mkdir -p /run/klog
ln -s /etc/passwd $SAVED
"$KLOG" -q -o $T/link -t 0.1 > $T/link.out 2>&1
st=$?
rm -f $SAVED
[ $st = 1 ] && grep -q "symbolic link" $T/link.out
tap $? "a symbolic link as the state file is refused" "exit $st: $(cat $T/link.out)"

# A corrupt state file: a message naming file and line, nothing changed.
printf '# klog site state 1 boot=%s pid=1\n5\tp\nx\t_\n' \
	"$(cat /proc/sys/kernel/random/boot_id)" > $SAVED
chmod 600 $SAVED
"$KLOG" -q -o $T/corrupt -t 0.1 > $T/corrupt.out 2>&1
st=$?
rm -f $SAVED
[ $st = 1 ] && grep -q "$SAVED:3: " $T/corrupt.out && [ "$(state)" = "$before" ]
tap $? "a corrupt state file: its line named, nothing changed" "exit $st: $(cat $T/corrupt.out)"

echo "module test_klog =p" > $D/control
tap $? "test_klog's sites on again"
exit $fail
