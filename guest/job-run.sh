# SPDX-License-Identifier: GPL-2.0
# The main job (make run): load the relay handler and the traffic module,
# collect with the klog collector while every CPU writes klog records from
# task, softirq, hardirq and NMI context, then show the merged output and
# the summary. Then klog collects kleak-mod's records of every slab
# allocation and free, and kleak finds a leak planted by kleak-test-mod.
. /guest/lib.sh
say() { echo; echo "===== $*"; }

insmod /lib/modules/test_klog.ko && insmod /lib/modules/klog-mod.ko || exit 1

# The workload runs as klog's command, once klog is recording: 4 CPUs x
# 4 contexts x 300 text records, paced; NMI records are staged per CPU
# and written an instant later, and nothing is lost.
workload='echo "count=300 size=96 kind=text ctx=task,softirq,hardirq,nmi cpus=all gap_us=3000" > /sys/kernel/debug/test_klog/emit &&
	echo "count=20 size=40 kind=raw cpus=0" > /sys/kernel/debug/test_klog/emit'
say "klog -b 65536 -n 16 -o /out -- sh -c '<test_klog traffic>'"
klog -b 65536 -n 16 -o /out -- sh -c "$workload"
echo "(collector exit status $?)"

say "ls -l /out"
ls -l /out

say "klog -r /out | head -n 12    (merged, time-ordered across CPUs)"
klog -r /out | head -n 12
say "klog -r /out | grep raw | head -n 3"
klog -r /out 2>/dev/null | grep raw | head -n 3
say "klog -r /out | grep '\*\*\*' | head -n 4    (loss markers: none expected)"
klog -r /out 2>/dev/null | grep '\*\*\*' | head -n 4
say "records per CPU and context in the report"
klog -r /out 2>/dev/null | grep -v '\*\*\*' |
	awk '{ n[$2 " " $4]++ } END { for (k in n) print k, n[k] }' | sort

# kleak: klog collects while kleak-mod, loaded for the command, logs
# every slab allocation and free, the shell does some work, and
# kleak-test-mod plants a leak of 37 x 200 bytes that kleak must find.
say "klog -o /out/kleak -- sh -c 'insmod kleak-mod.ko; <some work; the leak>; rmmod kleak_mod'"
klog -q -o /out/kleak -- sh -c '
	insmod /lib/modules/kleak-mod.ko || exit 1
	for i in 1 2 3 4 5; do ls -l /proc/self/ > /dev/null; cat /proc/meminfo > /tmp/m.$i; done
	insmod /lib/modules/kleak-test-mod.ko leak=37 size=200 balanced=50
	rmmod kleak_mod'
echo "(collector exit status $?)"
say "kleak /out/kleak | head -n 12    (outstanding allocations by caller, most bytes first)"
kleak /out/kleak | head -n 12
say "kleak /out/kleak | grep kleak_test    (the planted leak)"
kleak /out/kleak | grep kleak_test
rmmod kleak_test_mod
