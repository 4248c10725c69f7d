# SPDX-License-Identifier: GPL-2.0
# The flight recorder from the command line (klog --status, --thaw,
# --stop; the trigger saved with a snapshot), with klog-mod and test_klog
# loaded and nothing else making klog records: a recorder, 5 records and
# test_klog's trigger on CPU 0, then every state the commands show, with
# exact expectations. Run by job-test.sh (one line).
. /guest/lib.sh
d=/tmp/recorder-cli
emit=/sys/kernel/debug/test_klog/emit
ctl=/sys/kernel/debug/klog
rm -rf "$d"
mkdir -p "$d"
# check NAME COMMAND...: one result line
check() {
	n=$1
	shift
	"$@"
	verdict $? "guest:recorder-cli-$n"
}
show() { echo "# $1:"; sed 's/^/#   /' "$1"; }

klog -R -b 64k -n 8 2> "$d/start.err"
check start test $? = 0
echo 'count=5 size=64 kind=text ctx=task cpus=0 trigger=1' > "$emit"
klog --status > "$d/status1" 2>&1
show "$d/status1"
check status-frozen grep -qx 'frozen:    1' "$d/status1"
check status-trigger grep -qx 'trigger:   cpu=0 ts=[0-9]* reason=klog_trigger: test_klog' "$d/status1"
check status-mode grep -qx 'mode:      overwrite (flight recorder)' "$d/status1"
check status-records grep -qx 'records:   6 written since the channel was created' "$d/status1"
klog -s -o "$d/snap" 2> "$d/snap.err"
show "$d/snap.err"
check snapshot-says-trigger grep -q '^klog: the recorder was frozen by a trigger: cpu=0 ts=[0-9]* reason=klog_trigger: test_klog$' "$d/snap.err"
check snapshot-trigger-file grep -qx 'cpu=0 ts=[0-9]* reason=klog_trigger: test_klog' "$d/snap/trigger"
klog -r "$d/snap" > "$d/report" 2> "$d/report.err"
show "$d/report.err"
check report-trigger grep -q "^klog: $d/snap: the recorder was frozen by a trigger: cpu=0 ts=[0-9]* reason=klog_trigger: test_klog$" "$d/report.err"
check report-records test "$(grep -c ' TKLG ' "$d/report")" = 5
check report-trigger-last sh -c "tail -n 1 '$d/report' | grep -q 'klog_trigger: test_klog \[trigger\]$'"
klog --thaw 2> "$d/thaw.err"
check thaw test $? = 0
klog --status > "$d/status2" 2>&1
show "$d/status2"
check thawed grep -qx 'frozen:    0' "$d/status2"
check thawed-armed grep -qx 'trigger:   armed (none yet)' "$d/status2"
klog --stop 2> "$d/stop.err"
check stop test $? = 0
klog --status > "$d/status3" 2>&1
check stopped grep -qx 'channel:   none' "$d/status3"
klog --stop 2> "$d/stop2.err"
rc=$?
check stop-nothing sh -c "test $rc = 1 && grep -q 'no channel: nothing to stop' '$d/stop2.err'"
# a collection's channel (no-overwrite) is not thrown away
echo no-overwrite > "$ctl/mode" && echo 1 > "$ctl/create"
klog --stop 2> "$d/stop3.err"
rc=$?
show "$d/stop3.err"
check stop-refuses-collection sh -c "test $rc = 1 && test \"\$(cat $ctl/create)\" = 1 && grep -q 'not a flight recorder (mode=no-overwrite)' '$d/stop3.err'"
echo 0 > "$ctl/create"
