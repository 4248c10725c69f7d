# SPDX-License-Identifier: GPL-2.0
# Sourced by the crash jobs (job-oops.sh, job-panic.sh, job-pstore.sh):
# klog-mod with dump_on_oops set, a flight recorder holding a known
# sequence of test_klog records that a trigger froze, and what the dump
# must show, printed for the host's judge (scripts/vmlog.py):
#   KLOG-EXPECT: LINE          each record line, in order (klog -r's)
#   KLOG-EXPECT-STATS: LINE    each line of stats
#   KLOG-EXPECT-TRIGGER: LINE  the trigger file
#   KLOG-EXPECT-CRASH: KIND    just before the crash (oops or panic)
# crash_setup SETTING GLOBAL CPU COUNT: SETTING as for dump_on_oops
# ("all,50"), GLOBAL 1 for one buffer, CPU the CPU the crash will run
# on, COUNT records per CPU.
. /guest/lib.sh
ctl=/sys/kernel/debug/klog
emit=/sys/kernel/debug/test_klog/emit
lkdtm=/sys/kernel/debug/provoke-crash/DIRECT

crash_setup() {
	setting=$1 global=$2 cpu=$3 count=$4
	d=/tmp/crash
	rm -rf "$d"; mkdir -p "$d"
	insmod /lib/modules/klog-mod.ko dump_on_oops="$setting" ||
		result "not ok" "dump:$job:insmod"
	insmod /lib/modules/test_klog.ko
	if [ "$(cat $ctl/dump_on_oops)" = "$setting" ]; then
		result ok "dump:$job:param"
	else
		result "not ok" "dump:$job:param"
	fi
	# the control file: a bad value changes nothing, a good one takes
	if ! echo "all,x" > $ctl/dump_on_oops 2>/dev/null &&
	   ! echo "sometimes" > $ctl/dump_on_oops 2>/dev/null &&
	   echo "$setting" > $ctl/dump_on_oops &&
	   [ "$(cat $ctl/dump_on_oops)" = "$setting" ]; then
		result ok "dump:$job:control-file"
	else
		result "not ok" "dump:$job:control-file"
	fi
	g=
	[ "$global" = 1 ] && g=-g
	# 4 KiB sub-buffers, 8 of them: about 30 records each, so with
	# COUNT above 200 the ring holds only the newest records of each
	# buffer (older sub-buffers are overwritten)
	klog -R $g -b 4k -n 8 2> "$d/start.err" || { cat "$d/start.err"; result "not ok" "dump:$job:recorder"; }
	if echo "count=$count size=64 kind=text ctx=task cpus=all" > $emit &&
	   echo 'count=3 size=24 kind=raw ctx=task cpus=1' > $emit &&
	   echo 'count=2 size=80 kind=text ctx=task cpus=0 trigger=1' > $emit; then
		result ok "dump:$job:emit"
	else
		result "not ok" "dump:$job:emit"
	fi
	klog -s -o "$d/snap" 2> "$d/snap.err"
	klog -r "$d/snap" > "$d/report" 2> "$d/report.err"
	n=${setting#*,}
	[ "$n" = "$setting" ] && n=0
	case $setting in
	cpu*) awk -v c="cpu$cpu" '$2 == c' "$d/report" > "$d/mine" ;;
	*) cp "$d/report" "$d/mine" ;;
	esac
	if [ "$n" = 0 ]; then cp "$d/mine" "$d/expect"; else tail -n "$n" "$d/mine" > "$d/expect"; fi
	echo "# $(wc -l < "$d/report") records in the recorder, $(wc -l < "$d/expect") expected in the dump"
	if [ -s "$d/expect" ] && grep -q 'klog_trigger: test_klog \[trigger\]$' "$d/report"; then
		result ok "dump:$job:recorder"
	else
		result "not ok" "dump:$job:recorder"
	fi
	# stream version 2: the records name their task (COMM records) and
	# their site by function (DIR/sites), and so must the dump
	if grep -q '^\[[0-9]*\.[0-9]*\] cpu[0-9]* [^ ]*-[0-9]* task [^ ]*:[0-9]*: ' "$d/expect" &&
	   ! grep -q ' site#[0-9]*: ' "$d/expect"; then
		result ok "dump:$job:expect-comm-and-func"
	else
		result "not ok" "dump:$job:expect-comm-and-func"
	fi
	sed 's/^/KLOG-EXPECT: /' "$d/expect"
	sed 's/^/KLOG-EXPECT-STATS: /' $ctl/stats
	echo "KLOG-EXPECT-TRIGGER: $(cat $ctl/trigger)"
}

# crash KIND CPU: the LKDTM crash (BUG: an oops; PANIC) on CPU
crash() {
	echo "KLOG-EXPECT-CRASH: $1"
	case $1 in oops) what=BUG ;; *) what=PANIC ;; esac
	taskset -c "$2" sh -c "echo $what > $lkdtm"
}
