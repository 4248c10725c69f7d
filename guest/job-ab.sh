# SPDX-License-Identifier: GPL-2.0
# The A/B job (scripts/bench-ab.sh): two builds of the relay handler,
# /lib/modules/klog-mod-a.ko and klog-mod-b.ko, measured in one boot.
# Each round loads each build in turn (a b, then b a: the order
# alternates) with a fresh overwrite-mode channel (1 MiB x 8 per CPU,
# nobody reading) and measures klog_raw and klog_printk through it, with
# trace_puts in between as a reference that runs no klog code. Prints
# one line per measurement, "KLOG-AB: r=R v=a|b c=CASE <klog_bench's
# result>"; the host makes the table. klog.ab_rounds=N: N rounds (9).
. /guest/lib.sh
ROUNDS=9
for arg in $(cat /proc/cmdline); do
	case "$arg" in klog.ab_rounds=*) ROUNDS=${arg#klog.ab_rounds=} ;; esac
done
CALLS=20000000 MS=100
D=/sys/kernel/debug/klog
B=/sys/kernel/debug/klog_bench/run

insmod /lib/modules/test_klog.ko && insmod /lib/modules/klog_bench.ko ||
	{ result "not ok" ab:insmod; exit 1; }

load() { # load a|b: that build, with a fresh enabled channel
	insmod /lib/modules/klog-mod-$1.ko &&
		echo overwrite > $D/mode && echo 1048576 > $D/subbuf_size &&
		echo 8 > $D/n_subbufs && echo 1 > $D/create && echo 1 > $D/enabled
}
unload() {
	echo 0 > $D/enabled && echo 0 > $D/create && rmmod klog_mod
}

r=0
while [ $r -lt "$ROUNDS" ]; do
	vs="a b"
	[ $((r % 2)) = 0 ] || vs="b a"
	for v in $vs; do
		load $v || { result "not ok" "ab:load $v"; exit 1; }
		for c in klog_raw trace_puts klog_printk; do
			if echo "case=$c calls=$CALLS size=32 cpus=1 ms=$MS" > $B; then
				echo "KLOG-AB: r=$r v=$v c=$c $(cat $B)"
			else
				result "not ok" "ab:$c"
			fi
		done
		unload || { result "not ok" "ab:unload $v"; exit 1; }
	done
	r=$((r + 1))
done
result ok ab:rounds
