# SPDX-License-Identifier: GPL-2.0
# Sourced by the crash jobs (job-oops.sh, job-panic.sh, job-pstore.sh):
# klog-mod with dump_on_oops set, a flight recorder holding a known
# sequence of test_klog records that a trigger froze, and what the dump
# must show, printed for the host's judge (scripts/vmlog.py):
#   KLOG-EXPECT: LINE          each record line, in order (klog -r's)
#   KLOG-EXPECT-STATS: LINE    each line of stats
#   KLOG-EXPECT-TRIGGER: LINE  the trigger file
#   KLOG-EXPECT-STAGED: LINE   each "cpuN staged=..." line (NMI staging)
#   KLOG-EXPECT-CRASH: KIND    just before the crash (oops or panic)
# crash_setup SETTING GLOBAL CPU COUNT [STAGE]: SETTING as for
# dump_on_oops ("all,50"), GLOBAL 1 for one buffer, CPU the CPU the
# crash will run on, COUNT records per CPU. STAGE (oops only) is a CPU
# where NMI records are made and stay staged at the crash (stage_nmi),
# the last one the trigger; their lines are known only once they are
# moved into the buffer, after the oops: crash_expect_staged prints the
# records the dump must show then.
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
	[ "$(cat $ctl/dump_on_oops)" = "$setting" ]
	verdict $? "dump:$job:param"
	# the control file: a bad value changes nothing, a good one takes
	! echo "all,x" > $ctl/dump_on_oops 2>/dev/null &&
		! echo "sometimes" > $ctl/dump_on_oops 2>/dev/null &&
		echo "$setting" > $ctl/dump_on_oops &&
		[ "$(cat $ctl/dump_on_oops)" = "$setting" ]
	verdict $? "dump:$job:control-file"
	g=
	[ "$global" = 1 ] && g=-g
	# 4 KiB sub-buffers, 8 of them: about 30 records each, so with
	# COUNT above 200 the ring holds only the newest records of each
	# buffer (older sub-buffers are overwritten)
	klog -R $g -b 4k -n 8 2> "$d/start.err" || { cat "$d/start.err"; result "not ok" "dump:$job:recorder"; }
	echo "count=$count size=64 kind=text ctx=task cpus=all" > $emit &&
		echo 'count=3 size=24 kind=raw ctx=task cpus=1' > $emit &&
		{ [ -n "$5" ] ||
		  echo 'count=2 size=80 kind=text ctx=task cpus=0 trigger=1' > $emit; }
	verdict $? "dump:$job:emit"
	if [ -n "$5" ]; then
		# staged NMI records, the trigger the last: no snapshot now
		# (its flush would wait for the CPU that keeps interrupts off)
		stage_nmi "$5" 1
		sed 's/^/KLOG-EXPECT-STATS: /' $ctl/stats
		echo "KLOG-EXPECT-TRIGGER: $(cat $ctl/trigger)"
		echo "KLOG-EXPECT-STAGED: cpu$5 staged=6 frozen=0 big=0"
		return
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
	[ -s "$d/expect" ] && grep -q 'klog_trigger: test_klog \[trigger\]$' "$d/report"
	verdict $? "dump:$job:recorder"
	# stream version 2: the records name their task (COMM records) and
	# their site by function (DIR/sites), and so must the dump
	grep -q '^\[[0-9]*\.[0-9]*\] cpu[0-9]* [^ ]*-[0-9]* task [^ ]*:[0-9]*: ' "$d/expect" &&
		! grep -q ' site#[0-9]*: ' "$d/expect"
	verdict $? "dump:$job:expect-comm-and-func"
	sed 's/^/KLOG-EXPECT: /' "$d/expect"
	sed 's/^/KLOG-EXPECT-STATS: /' $ctl/stats
	echo "KLOG-EXPECT-TRIGGER: $(cat $ctl/trigger)"
}

nmi_made() {
	awk -v c="cpu$1" '$1 == c { sub("nmi=", "", $5); print $5 }' \
		/sys/kernel/debug/test_klog/stats
}

# The records stage_nmi asked for are made (and with the trigger, the
# recorder is frozen).
staged_made() {
	[ "$(nmi_made "$scpu")" = $((before + 5)) ] &&
		{ [ "$strig" = 0 ] || [ "$(cat $ctl/frozen)" = 1 ]; }
}

# stage_nmi CPU TRIGGER: 5 NMI records made on CPU with its interrupts
# off (test_klog nmi_irqs_off), TRIGGER=1: the last NMI then triggers
# (a 6th record, and the freeze). The CPU keeps interrupts off until an
# oops is over (nmi_hold), so they stay staged; the request runs in the
# background (holdpid), this shell and its children on the other CPUs.
# Returns once the records are made (and, with the trigger, frozen).
stage_nmi() {
	scpu=$1 strig=$2
	before=$(nmi_made "$scpu")
	others=$(awk -v c="$scpu" '/^processor/ && $3 != c { printf "%s%s", s, $3; s = "," }' /proc/cpuinfo)
	taskset -p -c "$others" $$ > /dev/null
	echo "count=5 size=64 kind=text ctx=nmi nmi_irqs_off=1 nmi_hold=1 trigger=$strig cpus=$scpu" \
		> $emit 2> "$d/hold.err" &
	holdpid=$!
	# Until the 5 NMI records are made (and the trigger froze the
	# recorder): a condition, bounded at 600 s for a slow machine, and
	# failed at once if the emitting writer exited first.
	i=0
	until staged_made; do
		i=$((i + 1))
		if [ $i -gt 12000 ] ||
		   { ! kill -0 $holdpid 2> /dev/null && ! staged_made; }; then
			result "not ok" "dump:$job:staged-made"
			return 1
		fi
		sleep 0.05
	done
	result ok "dump:$job:staged-made"
}

# crash_expect_staged SETTING: after the oops, the staged records were
# moved into the buffer (in order, the recorder frozen or not: made before
# the freeze); the records the dump had to show, its staged ones marked.
crash_expect_staged() {
	n=${1#*,}
	[ "$n" = "$1" ] && n=0
	if wait $holdpid && [ ! -s "$d/hold.err" ]; then
		result ok "dump:$job:staged-held"
	else
		result "not ok" "dump:$job:staged-held"
		cat "$d/hold.err"
	fi
	taskset -p -c 0-$(($(nproc --all) - 1)) $$ > /dev/null
	klog -s -o "$d/snap" 2> "$d/snap.err"
	klog -r "$d/snap" > "$d/report" 2> "$d/report.err"
	awk '$4 == "nmi" { print $0 " [staged]"; next } { print }' "$d/report" > "$d/mine"
	if [ "$n" = 0 ]; then cp "$d/mine" "$d/expect"; else tail -n "$n" "$d/mine" > "$d/expect"; fi
	echo "# $(wc -l < "$d/report") records in the recorder after the oops, $(wc -l < "$d/expect") expected in the dump"
	# the 6 staged records are the newest: the last lines, the trigger last
	[ "$(tail -n 6 "$d/expect" | grep -c ' nmi emit_one:[0-9]*: TKLG .* \[staged\]$')" = 5 ] &&
		tail -n 1 "$d/expect" | grep -q ' nmi .*klog_trigger: test_klog \[trigger\] \[staged\]$' &&
		[ "$(grep -c ' \[staged\]$' "$d/expect")" = 6 ]
	verdict $? "dump:$job:recorder"
	sed 's/^/KLOG-EXPECT: /' "$d/expect"
}

# wait_state_d PID: until the process sleeps uninterruptibly (a mutex);
# a condition, bounded at 600 s for a slow machine.
wait_state_d() {
	i=0
	until [ "$(awk '{ print $3 }' /proc/$1/stat 2> /dev/null)" = D ]; do
		i=$((i + 1))
		[ $i -le 12000 ] && kill -0 $1 2> /dev/null || return 1
		sleep 0.05
	done
}

# crash KIND CPU: the LKDTM crash (BUG: an oops; PANIC) on CPU
crash() {
	echo "KLOG-EXPECT-CRASH: $1"
	case $1 in oops) what=BUG ;; *) what=PANIC ;; esac
	taskset -c "$2" sh -c "echo $what > $lkdtm"
}
