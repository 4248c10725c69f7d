# SPDX-License-Identifier: GPL-2.0
# Dump on oops: a per-CPU flight recorder frozen by a trigger, then an
# LKDTM oops (BUG) on CPU 2; the console must show the newest 50 records
# in order, the stats and the trigger (judged on the host, vmlog.py).
# The newest are 5 NMI records and the trigger (made from the last NMI)
# still staged on CPU 1, which keeps its interrupts off until the oops is
# over: the dump shows them (marked staged), merged and counted; their
# lines are those the report shows once they are moved, after the oops.
# The machine goes on after the oops: the recorder is thawed again only
# if the dump froze it (here a trigger did: it stays frozen). A second
# oops dumps nothing and says so; once dump_on_oops is written again, a
# third dumps the newest 5 records and thaws the recorder it froze. Then
# a dump cut by its time limit, one during a reset, and the next; last,
# an oops inside the write path (per-CPU buffers, then one global buffer).
. /guest/crash-setup.sh
job=oops
crash_setup all,50 0 2 400 1
# At the oops the control lock is held (a kernel thread) and waited for
# (a reader of stats): the dump takes no lock, so it shows the same.
hold=/sys/module/klog_mod/parameters/test_hold_ctl_lock
echo 1 > $hold
cat $ctl/stats > /tmp/crash/waiter.out &
waiter=$!
if wait_state_d $waiter; then result ok dump:oops:lock-waited; else result "not ok" dump:oops:lock-waited; fi
crash oops 2
echo 0 > $hold
wait $waiter && [ "$(grep -c '^cpu[0-9]* produced=' /tmp/crash/waiter.out)" = "$(nproc --all)" ]
verdict $? dump:oops:lock-released
crash_expect_staged all,50
# after the oops: still frozen by the trigger, and the dump ran once
if [ "$(cat $ctl/frozen)" = 1 ]; then result ok dump:oops:still-frozen; else result "not ok" dump:oops:still-frozen; fi
dmesg > /tmp/crash/dmesg
n=$(grep -c 'klog-mod: dump on oops:' /tmp/crash/dmesg)
if [ "$n" = 1 ]; then result ok dump:oops:dmesg-one-dump; else result "not ok" dump:oops:dmesg-one-dump; fi
# A second oops: the dump ran once for this boot and says so.
crash oops 2
dmesg > /tmp/crash/dmesg2
[ "$(grep -c 'klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg2)" = 1 ] &&
	[ "$(grep -c 'klog-mod: dump on oops: the records were dumped once already' /tmp/crash/dmesg2)" = 1 ]
verdict $? dump:oops:second-oops-once
# Thawed and re-armed: the next oops dumps the newest 5 records, and
# thaws the recorder it froze itself.
echo 0 > $ctl/frozen
echo 'count=5 size=64 kind=text ctx=task cpus=3' > $emit
echo all,5 > $ctl/dump_on_oops
crash oops 3
dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > /tmp/crash/dmesg3
sed -n '/^klog-mod: dump on oops: 5 of /,/^klog-mod: end of dump$/p' /tmp/crash/dmesg3 > /tmp/crash/third
show() { sed 's/^/# /' "$1"; }
show /tmp/crash/third
[ "$(grep -c '^\[[0-9]*\.[0-9]*\] cpu3 [^ ]*[0-9] task .* TKLG ' /tmp/crash/third)" = 5 ] &&
	[ "$(grep -c '^\[' /tmp/crash/third)" = 5 ] &&
	[ "$(grep -c 'klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg3)" = 2 ]
verdict $? dump:oops:rearmed-dumps-newest
if [ "$(cat $ctl/frozen)" = 0 ]; then result ok dump:oops:thawed-after; else result "not ok" dump:oops:thawed-after; fi
# Without a number the dump prints the newest 100 records, not all of
# them: the oops report must stay readable (and in a ramoops record).
echo 'count=150 size=64 kind=text ctx=task cpus=3' > $emit
echo all > $ctl/dump_on_oops
crash oops 3
dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > /tmp/crash/dmesg4
sed -n '/^klog-mod: dump on oops: 100 of /,/^klog-mod: end of dump$/p' /tmp/crash/dmesg4 > /tmp/crash/fourth
if [ "$(grep '^\[[0-9]*\.[0-9]*\] cpu[0-9]* ' /tmp/crash/fourth | grep -vc ' \*\*\* ')" = 100 ] &&
   [ "$(grep -c 'klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg4)" = 3 ]; then
	result ok dump:oops:default-newest-100
else
	grep 'klog-mod: dump on oops' /tmp/crash/dmesg4 | sed 's/^/# /'
	result "not ok" dump:oops:default-newest-100
fi
# A dump stops when its time is up also while it is still counting the
# records (interrupts off all along), and says so: test_dump_late=1 has
# the next dump find its time up at its first look at the clock, after
# the first record counted. It is a one-shot hook.
late=/sys/module/klog_mod/parameters/test_dump_late
echo 1 > $late && echo all,5 > $ctl/dump_on_oops
verdict $? dump:oops:time-up-setup
crash oops 3
dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > /tmp/crash/dmesg5
grep '^klog-mod: dump' /tmp/crash/dmesg5 | tail -n 2 | sed 's/^/# /'
[ "$(grep -Ec '^klog-mod: dump on oops stopped after [0-9]+ ms, counting the records \(1 so far\): none printed$' /tmp/crash/dmesg5)" = 1 ] &&
	[ "$(grep -c '^klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg5)" = 3 ] &&
	[ "$(cat $late)" = N ]
verdict $? dump:oops:time-up-before-printing
# A dump that starts while a reset clears the buffers reads none and says
# so; the reset goes on when the dump ends. The reset is held at its
# start, its flag set (test_nmi_hold=1 holds as a dump does: the
# dump's end releases it).
nhold=/sys/module/klog_mod/parameters/test_nmi_hold
echo 0 > $ctl/enabled && echo all,5 > $ctl/dump_on_oops && echo 1 > $nhold
verdict $? dump:oops:reset-setup
echo 1 > $ctl/reset 2> /tmp/crash/reset.err &
resetter=$!
if wait_state_d $resetter; then result ok dump:oops:reset-waits; else result "not ok" dump:oops:reset-waits; fi
crash oops 3
wait $resetter && [ ! -s /tmp/crash/reset.err ] && [ "$(cat $nhold)" = 0 ]
verdict $? dump:oops:reset-after-dump
dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > /tmp/crash/dmesg6
grep '^klog-mod: dump on oops' /tmp/crash/dmesg6 | tail -n 1 | sed 's/^/# /'
[ "$(grep -c '^klog-mod: dump on oops: the channel is being reset, not read$' /tmp/crash/dmesg6)" = 1 ] &&
	[ "$(grep -c '^klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg6)" = \
	  "$(grep -c '^klog-mod: dump on oops: [0-9]* of ' /tmp/crash/dmesg5)" ]
verdict $? dump:oops:reset-not-read
# That dump read nothing, so it stayed armed: the next oops dumps (the
# channel it finds is empty, reset).
crash oops 3
dmesg | sed 's/^\[ *[0-9]*\.[0-9]*\] //' > /tmp/crash/dmesg7
[ "$(grep -c '^klog-mod: dump on oops: 0 of 0 records, oldest first$' /tmp/crash/dmesg7)" = 1 ]
verdict $? dump:oops:reset-dump-stays-armed
# An oops inside the write path: test_klog's raw_fault makes a klog_raw()
# of a bad pointer in a task on CPU 2, which faults in the payload copy
# with interrupts off. The oops kills the task; klog-mod gives its write
# path up: that record counts as reentered (1 record lost, between the
# record before it and the next one), and the CPU's next records are
# written, not reentered.
# Then with one global buffer, whose lock the task held: another CPU's
# records are written after the oops, not spun on the lock forever.
stat_of() { awk -v c="cpu$1" -v k="$2=" '$1 == c { for (i = 2; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' $ctl/stats; }
raw_fault() {
	echo "KLOG-EXPECT-CRASH: oops"
	taskset -c "$1" sh -c 'echo 1 > /sys/kernel/debug/test_klog/raw_fault'
}
echo 1 > $ctl/enabled && echo 'count=1 size=64 kind=text ctx=task cpus=2' > $emit
verdict $? dump:oops:fault-enabled
r0=$(stat_of 2 records) e0=$(stat_of 2 reentered)
raw_fault 2
echo 'count=5 size=64 kind=text ctx=task cpus=2' > $emit &&
	[ "$(stat_of 2 records)" = $((r0 + 5)) ] &&
	[ "$(stat_of 2 reentered)" = $((e0 + 1)) ]
verdict $? dump:oops:fault-cpu-writes-again
klog -s -o /tmp/crash/fault 2> /tmp/crash/fault.err &&
	klog -r /tmp/crash/fault 2> /tmp/crash/fault-report.err |
	awk '$2 == "cpu2"' > /tmp/crash/fault-tail
show /tmp/crash/fault-tail
# the record before the oops, the lost one, the 5 after it
[ "$(wc -l < /tmp/crash/fault-tail)" = 7 ] &&
	sed -n 2p /tmp/crash/fault-tail | grep -q ' \*\*\* 1 records lost \*\*\*$' &&
	[ "$(sed 2d /tmp/crash/fault-tail | grep -c ' task emit_one:[0-9]*: TKLG c=002 ')" = 6 ]
verdict $? dump:oops:fault-one-lost
echo 0 > $ctl/enabled && echo 0 > $ctl/create && echo 1 > $ctl/global &&
	echo 1 > $ctl/create && echo 1 > $ctl/enabled
verdict $? dump:oops:fault-global-setup
e0=$(stat_of 0 reentered)
raw_fault 2
echo 'count=5 size=64 kind=text ctx=task cpus=1' > $emit &&
	[ "$(stat_of 0 records)" = 5 ] && [ "$(stat_of 0 reentered)" = $((e0 + 1)) ]
verdict $? dump:oops:fault-global-lock-released
# The klog core gives back the nesting levels the dead tasks took: CPU 2
# has had 2 such oopses; 3 more make 5, all of its KLOG_NEST_MAX levels
# had they been kept, and its next records are written all the same.
r0=$(stat_of 0 records)
raw_fault 2
raw_fault 2
raw_fault 2
echo 'count=5 size=64 kind=text ctx=task cpus=2' > $emit &&
	[ "$(stat_of 0 records)" = $((r0 + 5)) ]
verdict $? dump:oops:fault-levels-given-back
