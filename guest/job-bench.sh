# SPDX-License-Identifier: GPL-2.0
# The benchmark job: klog_bench cases side by side in one boot, record
# size and CPU scaling, and the collector's throughput against dd. Prints
# a markdown table on lines starting "KLOG-BENCH: " (make bench saves it
# to BENCHMARKS.md). klog.bench=smoke on the kernel command line runs
# every row with few calls and checks only that every row is there.
. /guest/lib.sh
mode=full
for arg in $(cat /proc/cmdline); do
	case "$arg" in klog.bench=*) mode=${arg#klog.bench=} ;; esac
done
if [ "$mode" = smoke ]; then N=6400; EMIT=2000; else N=1000000; EMIT=200000; fi
D=/sys/kernel/debug/klog
B=/sys/kernel/debug/klog_bench/run
R=/tmp/bench.raw
: > $R
ncpu=$(grep -c ^processor /proc/cpuinfo)

insmod /lib/modules/test_klog.ko && insmod /lib/modules/klog-mod.ko &&
	insmod /lib/modules/klog_bench.ko || { result "not ok" bench:insmod; exit 1; }

# bench LABEL CASE CALLS SIZE CPUS
bench() {
	if echo "case=$2 calls=$3 size=$4 cpus=$5" > $B; then
		echo "$1 $(cat $B)" >> $R
	else
		echo "$1 case=$2 size=$4 cpus=$5 FAILED" >> $R
	fi
}

channel() { # channel MODE: a fresh enabled channel, 1 MiB x 8 per CPU
	echo 0 > $D/enabled; echo 0 > $D/create
	echo "$1" > $D/mode; echo 1048576 > $D/subbuf_size; echo 8 > $D/n_subbufs
	echo 1 > $D/create; echo 1 > $D/enabled
}

bench "no-handler" empty $N 32 1
bench "no-handler" klog_printk $N 32 1
bench "no-handler" klog_raw $N 32 1

# A draining collector (no-overwrite): what a streaming user pays.
klog -q -b 1048576 -n 8 -o /tmp/bench-out > /tmp/bench-collector.log 2>&1 &
col=$!
sleep 1
bench "handler,no-overwrite" klog_printk $N 32 1
bench "handler,no-overwrite" klog_raw $N 32 1
kill -INT $col; wait $col
echo "collector: $(grep -i drop /tmp/bench-collector.log | head -n 2 | tr '\n' ' ')" >> $R

# A flight recorder (overwrite), nobody reading.
channel overwrite
bench "handler,overwrite" klog_printk $N 32 1
bench "handler,overwrite" klog_raw $N 32 1
for size in 16 64 256 1024 4096; do
	bench "size" klog_raw $N $size 1
	bench "size" trace_puts $N $size 1
	bench "size" relay_write $N $size 1
done
for cpus in 1 2 4; do
	[ $cpus -le $ncpu ] || continue
	bench "cpus" klog_raw $N 32 $cpus
	bench "cpus" trace_puts $N 32 $cpus
done
echo 0 > $D/enabled; echo 0 > $D/create; echo no-overwrite > $D/mode

bench "peer" trace_printk $N 32 1
bench "peer" trace_puts $N 32 1
bench "peer" printk $((N / 10)) 32 1
bench "floor" relay_write $N 32 1
bench "floor" memcpy $N 32 1

# The collector: records/s and MB/s, read vs mmap, default vs tuned
# sizes, against dd writing as many bytes to the same file system.
for m in read mmap; do
	for sz in "262144 4" "1048576 16"; do
		set -- $sz
		rm -rf /tmp/col; mkdir /tmp/col
		klog -m $m -b $1 -n $2 -o /tmp/col > /tmp/col.log 2>&1 &
		col=$!
		sleep 1
		t0=$(cut -d' ' -f1 /proc/uptime)
		echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
		t1=$(cut -d' ' -f1 /proc/uptime)
		ticks=$(awk '{ print $14 + $15 }' /proc/$col/stat)
		kill -INT $col; wait $col
		bytes=$(cat /tmp/col/cpu* | wc -c)
		recs=$(awk '$1 == "total" { print $2 }' /tmp/col.log)
		drops=$(awk '$1 == "total" { print $5 + $6 + $7 + $8 + $9 }' /tmp/col.log)
		echo "collector mode=$m subbuf=$1 n=$2 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') records=$recs bytes=$bytes drops=$drops cpu_ticks=$ticks" >> $R
	done
done
t0=$(cut -d' ' -f1 /proc/uptime)
dd if=/dev/zero of=/tmp/dd.out bs=65536 count=$((bytes / 65536 + 1)) 2>/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
echo "dd bytes=$bytes seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" >> $R

cat $R
sh /guest/bench-table.sh $R | sed 's/^/KLOG-BENCH: /'
rows=$(grep -c 'median_ns=' $R)
want=$((3 + 4 + 15 + 2 * $(for c in 1 2 4; do [ $c -le $ncpu ] && echo; done | wc -l) + 5))
[ "$rows" = "$want" ] && ! grep -q FAILED $R
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:every-row-measured-$rows-of-$want"
[ "$(grep -c '^collector ' $R)" = 4 ] && grep -q '^dd ' $R
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:collector-rows"
