# SPDX-License-Identifier: GPL-2.0
# Sourced by the crash-matrix jobs (job-oops-softirq.sh, job-oops-hardirq.sh,
# job-oops-nmi.sh) with $ctx set: a per-CPU flight recorder frozen by a
# trigger, the control lock held by a kernel thread and waited for by a
# reader of stats, then an oops on CPU 1 in context $ctx (test_klog
# crash=1: BUG() in a soft or hard interrupt or an NMI). An oops there is
# fatal ("Fatal exception in interrupt"): the dump runs from the die
# notifier in that context, with no lock, and must show the newest 50
# records, the stats and the trigger (judged on the host, vmlog.py); the
# panic that follows says it dumped once already. The panic ends the run.
. /guest/crash-setup.sh
job=oops-$ctx
crash_setup all,50 0 1 100
hold=/sys/module/klog_mod/parameters/test_hold_ctl_lock
echo 1 > $hold
cat $ctl/stats > /dev/null &
if wait_state_d $!; then result ok dump:$job:lock-waited; else result "not ok" dump:$job:lock-waited; fi
echo "KLOG-EXPECT-CRASH: panic"
taskset -c 1 sh -c "echo 'count=0 ctx=$ctx cpus=1 crash=1' > $emit"
result "not ok" dump:$job:survived
