# SPDX-License-Identifier: GPL-2.0
# Dump on panic: a global flight recorder frozen by a trigger, then an
# LKDTM panic on CPU 1 with dump_on_oops=cpu,20: the console must show
# the newest 20 records made on CPU 1, in order, the stats and the
# trigger (judged on the host, vmlog.py). Then 5 NMI records made on CPU
# 2 while the recorder is frozen stay staged there (CPU 2 keeps its
# interrupts off until it is stopped): not shown (another CPU's), the
# dump's staged line counts them as frozen drops. The guest never
# returns: the panic ends the run (panic=-1 and QEMU's -no-reboot).
. /guest/crash-setup.sh
job=panic
crash_setup cpu,20 1 1 100
stage_nmi 2 0
echo "KLOG-EXPECT-STAGED: cpu2 staged=0 frozen=5 big=0"
crash panic 1
result "not ok" dump:panic:survived
