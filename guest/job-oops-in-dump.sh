# SPDX-License-Identifier: GPL-2.0
# A crash inside the dump itself: klog-mod's test_dump_crash=1 makes the
# dump BUG() after printing its records, the dump of an oops in a hard
# interrupt (test_klog crash=1). The nested oops's notifier finds the dump
# running on its own CPU: it says "a crash inside the dump: it ends
# here" and puts back what the dump froze and held; the nested oops is in
# interrupt context too, so a panic follows and says the records were
# dumped once already. Judged on the host (scripts/check.sh greps those
# lines in the console, in order; vmlog.py judges the rest).
. /guest/crash-setup.sh
job=oops-in-dump
crash_setup all,20 0 1 50
echo 1 > /sys/module/klog_mod/parameters/test_dump_crash
echo "KLOG-EXPECT-CRASH: panic"
taskset -c 1 sh -c "echo 'count=0 ctx=hardirq cpus=1 crash=1' > $emit"
result "not ok" dump:$job:survived
