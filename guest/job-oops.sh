# SPDX-License-Identifier: GPL-2.0
# Dump on oops: a per-CPU flight recorder frozen by a trigger, then an
# LKDTM oops (BUG) on CPU 2; the console must show the newest 50 records
# in order, the stats and the trigger (judged on the host, vmlog.py).
# The machine goes on after the oops: the recorder is thawed again only
# if the dump froze it (here a trigger did: it stays frozen), and a
# second oops dumps nothing.
. /guest/crash-setup.sh
job=oops
crash_setup all,50 0 2 400
crash oops 2
# after the oops: still frozen by the trigger, and the dump ran once
if [ "$(cat $ctl/frozen)" = 1 ]; then result ok dump:oops:still-frozen; else result "not ok" dump:oops:still-frozen; fi
dmesg > /tmp/crash/dmesg
n=$(grep -c 'klog-mod: dump on oops:' /tmp/crash/dmesg)
if [ "$n" = 1 ]; then result ok dump:oops:dmesg-one-dump; else result "not ok" dump:oops:dmesg-one-dump; fi
