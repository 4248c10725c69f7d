# SPDX-License-Identifier: GPL-2.0
# The benchmark job: klog_bench cases side by side in one boot, record
# size and CPU scaling, and the collector's throughput against dd. Prints
# a markdown table on lines starting "KLOG-BENCH: " (make bench saves it
# to BENCHMARKS.md). klog.bench=smoke on the kernel command line runs
# every row with few calls and checks only that every row is there;
# klog.bench=percall runs only the cost-per-call rows and the profiles
# (for trying a change to the write path).
. /guest/lib.sh
mode=full
for arg in $(cat /proc/cmdline); do
	case "$arg" in klog.bench=*) mode=${arg#klog.bench=} ;; esac
done
if [ "$mode" = smoke ]; then
	N=6400; EMIT=2000; NB_OPS=4000; NB_ROUNDS=1
else
	N=1000000; EMIT=200000; NB_OPS=200000; NB_ROUNDS=3
fi
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

# bench_null LABEL CASE CALLS SIZE CPUS: with klog_bench's do-nothing handler
bench_null() {
	if echo "case=$2 calls=$3 size=$4 cpus=$5 handler=null" > $B; then
		echo "$1 $(cat $B)" >> $R
	else
		echo "$1 case=$2 size=$4 cpus=$5 FAILED" >> $R
	fi
}

# profile NAME CASE SIZE: where one CPU's calls spend their time (the
# handlers as the caller left them), saved to /tmp/profile-NAME.
profile() {
	echo "case=$2 calls=$N size=$3 cpus=1 profile=1" > $B &&
		cat ${B%/run}/profile > /tmp/profile-$1 ||
		echo "profile of $2 FAILED" > /tmp/profile-$1
}

bench "no-handler" empty $N 32 1
bench "no-handler" klog_printk $N 32 1
bench "no-handler" klog_raw $N 32 1
# The core alone: a handler that keeps nothing, and the timestamp it takes.
bench_null "null-handler" klog_printk $N 32 1
bench_null "null-handler" klog_raw $N 32 1
bench "floor" local_clock $N 32 1

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
profile 1-klog_raw klog_raw 32
profile 2-klog_printk klog_printk 32
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

profile 3-trace_puts trace_puts 32
profile 4-trace_printk trace_printk 32
bench "peer" trace_printk $N 32 1
bench "peer" trace_puts $N 32 1
bench "peer" printk $((N / 10)) 32 1
bench "floor" relay_write $N 32 1
bench "floor" memcpy $N 32 1

if [ "$mode" != percall ]; then
# A real driver: null_blk with the series' klog example patch. 4 KiB
# O_DIRECT reads from every CPU, completed inline (irqmode=0), so each
# read is one pass through the request path. Variants, loaded in turn:
# the pristine driver, the patched one with no handler, with the relay
# handler (overwrite mode, nobody reading), and the same calls as
# trace_printk()/trace_puts() (ftrace's ring buffer, nobody reading).
# NB_ROUNDS rounds of all four; the table takes each variant's median.
nullblk() { # nullblk LABEL MODULE
	local out
	if insmod /lib/modules/$2.ko nr_devices=1 queue_mode=2 irqmode=0 \
			submit_queues=$ncpu && [ -b /dev/nullb0 ] &&
	   out=$(blkload /dev/nullb0 $NB_OPS); then
		echo "nullblk $1 $out" >> $R
	else
		echo "nullblk $1 FAILED" >> $R
	fi
	rmmod null_blk 2> /dev/null
}
for round in $(seq $NB_ROUNDS); do
	nullblk plain null_blk-plain
	nullblk klog-off null_blk-klog
	channel overwrite
	nullblk klog-on null_blk-klog
	echo 0 > $D/enabled; echo 0 > $D/create; echo no-overwrite > $D/mode
	nullblk trace_printk null_blk-trace
done

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
# The collector alone: records are emitted while it is stopped (SIGSTOP;
# 32 x 1 MiB per CPU holds them all), then it is continued and told to
# finish (SIGINT: flush, drain everything, exit). The time from SIGCONT
# to its exit is the collector's own rate, with nothing else running:
# the figure to hold against dd. CPU time is the collector's, taken by
# the shell that waited for it (cutime + cstime in /proc/PID/stat).
for m in read mmap; do
	rm -rf /tmp/col; mkdir /tmp/col
	sh -c "klog -m $m -b 1048576 -n 32 -o /tmp/col > /tmp/col.log 2>&1; cat /proc/\$\$/stat > /tmp/col.stat" &
	sleep 1
	col=$(pidof klog)
	kill -STOP $col
	echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
	t0=$(cut -d' ' -f1 /proc/uptime)
	kill -CONT $col; kill -INT $col; wait
	t1=$(cut -d' ' -f1 /proc/uptime)
	bytes=$(cat /tmp/col/cpu* | wc -c)
	recs=$(awk '$1 == "total" { print $2 }' /tmp/col.log)
	drops=$(awk '$1 == "total" { print $5 + $6 + $7 + $8 + $9 }' /tmp/col.log)
	ticks=$(awk '{ print $16 + $17 }' /tmp/col.stat)
	echo "drain mode=$m subbuf=1048576 n=32 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') records=$recs bytes=$bytes drops=$drops cpu_ticks=$ticks" >> $R
done

t0=$(cut -d' ' -f1 /proc/uptime)
dd if=/dev/zero of=/tmp/dd.out bs=65536 count=$((bytes / 65536 + 1)) 2>/dev/null
t1=$(cut -d' ' -f1 /proc/uptime)
echo "dd bytes=$bytes seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" >> $R
fi # percall

cat $R
sh /guest/bench-table.sh $R | sed 's/^/KLOG-BENCH: /'
{
	echo
	echo "### Where the time goes: kernel functions sampled during 1-CPU runs"
	echo
	echo "klog with the relay handler in overwrite mode, ftrace with its ring"
	echo "buffer; the interrupted function every 20 us (TCG takes interrupts"
	echo "only between translated blocks: coarse)."
	for f in /tmp/profile-*; do
		echo
		echo '```'
		cat $f
		echo '```'
	done
} | sed 's/^/KLOG-BENCH: /'
[ "$mode" != percall ] || exit 0
rows=$(grep -c 'median_ns=' $R)
want=$((3 + 3 + 4 + 15 + 2 * $(for c in 1 2 4; do [ $c -le $ncpu ] && echo; done | wc -l) + 5))
[ "$rows" = "$want" ] && ! grep -q FAILED $R
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:every-row-measured-$rows-of-$want"
[ "$(grep -c '^collector ' $R)" = 4 ] && [ "$(grep -c '^drain .* drops=0 ' $R)" = 2 ] &&
	grep -q '^dd ' $R
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:collector-rows"
[ "$(grep -c '^nullblk .* iops=' $R)" = $((4 * NB_ROUNDS)) ]
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:null_blk-rows"
[ "$(grep -l '^profile case=.* samples=[1-9]' /tmp/profile-* | wc -l)" = 4 ]
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:profiles"
