# SPDX-License-Identifier: GPL-2.0
# The main job (make run): load the relay handler and the traffic module,
# collect with the klog collector while every CPU writes klog records from
# task, softirq, hardirq and NMI context, then show the merged output and
# the summary.
. /guest/lib.sh
say() { echo; echo "===== $*"; }

insmod /lib/modules/test_klog.ko && insmod /lib/modules/klog-mod.ko || exit 1

say "klog -b 65536 -n 16 -o /out -t 5    (collecting for 5 s)"
klog -b 65536 -n 16 -o /out -t 5 &
collector=$!
sleep 1
# 4 CPUs x 4 contexts x 300 text records, paced; NMI records are counted
# as dropped (relay is not NMI-safe), and the summary says so.
echo "count=300 size=96 kind=text ctx=task,softirq,hardirq,nmi cpus=all gap_us=3000" \
	> /sys/kernel/debug/test_klog/emit
echo "count=20 size=40 kind=raw cpus=0" > /sys/kernel/debug/test_klog/emit
wait $collector
echo "(collector exit status $?)"

say "ls -l /out"
ls -l /out

say "klog -r /out | head -n 12    (merged, time-ordered across CPUs)"
klog -r /out | head -n 12
say "klog -r /out | grep raw | head -n 3"
klog -r /out 2>/dev/null | grep raw | head -n 3
say "klog -r /out | grep '\*\*\*' | head -n 4    (loss markers: the NMI records)"
klog -r /out 2>/dev/null | grep '\*\*\*' | head -n 4
say "records per CPU and context in the report"
klog -r /out 2>/dev/null | grep -v '\*\*\*' |
	awk '{ n[$2 " " $4]++ } END { for (k in n) print k, n[k] }' | sort
