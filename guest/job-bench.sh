# SPDX-License-Identifier: GPL-2.0
# The benchmark job: klog_bench cases side by side in one boot, record
# size and CPU scaling, null_blk, and the collector's throughput against
# dd. Prints markdown tables on lines starting "KLOG-BENCH: " (make bench
# saves them to BENCHMARKS.md).
#
# The method: every comparison is measured in rounds. A round measures
# each case once, alternating the cases it compares (A B A B ...), and
# the order changes from round to round (rotated by one, and reversed
# every other round), so noise on the host that drifts over minutes
# lands on both sides of every ratio. Each ratio is computed per round;
# the tables give its median over the rounds and its 10th-90th
# percentile range. Each cost-per-call measurement runs for $MS ms (tens
# of timer ticks), whatever a call costs. Drift within seconds (a host
# CPU's speed here moves by a third from one second to the next) still
# lands on one case of a round more than the other; the comparisons
# klog_printk is judged by, against klog_raw of its payload size and
# against trace_printk, are therefore measured paired: one run
# alternates 64-call batches of the two, and its ratio is the median of
# the batch pairs' ratios.
#
# klog.bench=smoke on the kernel command line runs two rounds of every
# row with few calls and checks only that every row is there;
# klog.bench=percall runs only the cost-per-call rows and the profiles
# (for trying a change to the write path); klog.bench=icount, make
# bench's boot with QEMU's -icount, runs those and null_blk.
# klog.bench_rounds=N sets the number of rounds.
. /guest/lib.sh
mode=full
rounds=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	klog.bench=*) mode=${arg#klog.bench=} ;;
	klog.bench_rounds=*) rounds=${arg#klog.bench_rounds=} ;;
	esac
done
if [ "$mode" = smoke ]; then
	# N: the profiles' calls, enough for samples in the fastest case
	# (args_pack took none in 6400 calls once klog_printk() packed fast)
	ROUNDS=${rounds:-2}; CALLS=6400; MS=0; N=100000; EMIT=2000; NB_OPS=4000
else
	# Each case runs for MS ms: CALLS only caps the fastest (8 ns) case.
	ROUNDS=${rounds:-21}; CALLS=20000000; MS=100; N=1000000
	EMIT=200000; NB_OPS=100000
fi
D=/sys/kernel/debug/klog
B=/sys/kernel/debug/klog_bench/run
R=/tmp/bench.raw
: > $R
ncpu=$(grep -c ^processor /proc/cpuinfo)

insmod /lib/modules/test_klog.ko && insmod /lib/modules/klog-mod.ko &&
	insmod /lib/modules/klog_bench.ko || { result "not ok" bench:insmod; exit 1; }

# order ROUND ITEM...: the items rotated by ROUND, reversed in odd rounds.
order() {
	local r=$1; shift
	printf '%s\n' "$@" | awk -v r="$r" '
		{ a[NR] = $0 }
		END {
			for (i = 0; i < NR; i++) {
				j = (r + (r % 2 ? NR - 1 - i : i)) % NR + 1
				print a[j]
			}
		}'
}

# wait_enabled PID: until the collector PID has set the channel up
# (it writes enabled=1 last); fails if it exits first.
wait_enabled() {
	while [ "$(cat $D/enabled 2> /dev/null)" != 1 ]; do
		kill -0 "$1" 2> /dev/null || return 1
		sleep 0.05
	done
}

channel() { # channel MODE: a fresh enabled channel, 1 MiB x 8 per CPU
	echo 0 > $D/enabled; echo 0 > $D/create
	echo "$1" > $D/mode; echo 1048576 > $D/subbuf_size; echo 8 > $D/n_subbufs
	echo 1 > $D/create; echo 1 > $D/enabled
}
nochannel() {
	echo 0 > $D/enabled; echo 0 > $D/create; echo no-overwrite > $D/mode
}

# measure ROUND PHASE ITEM: one klog_bench run; ITEM is
# LABEL:CASE:SIZE:CPUS[:null[:VS:VS_SIZE]] (null: klog_bench's
# do-nothing handler; VS: a paired run, CASE and VS in alternating
# batches, its ratio the median of the batch pairs' ratios).
measure() {
	local IFS=:
	set -- $1 $2 $3
	local req="case=$4 calls=$CALLS size=$5 cpus=$6"
	[ "$MS" = 0 ] || req="$req ms=$MS"
	[ "${7:-}" != null ] || req="$req handler=null"
	[ -z "${8:-}" ] || req="$req vs=$8 vs_size=$9"
	if echo "$req" > $B; then
		echo "pc r=$1 ph=$2 label=$3 $(cat $B)" >> $R
	else
		echo "pc r=$1 ph=$2 label=$3 case=$4 size=$5 cpus=$6 FAILED" >> $R
	fi
}

# profile NAME CASE SIZE: where one CPU's calls spend their time (the
# handlers as the caller left them), saved to /tmp/profile-NAME.
profile() {
	echo "case=$2 calls=$N size=$3 cpus=1 profile=1" > $B &&
		cat ${B%/run}/profile > /tmp/profile-$1 ||
		echo "profile of $2 FAILED" > /tmp/profile-$1
}

# The cost per call, in three phases per round, each with the peers its
# klog rows are compared with, measured between them:
# N: no handler registered (the static branch; klog_bench's null handler;
# klog_off: a site disabled by a query while that handler is registered,
# which must cost what klog_printk costs with no handler)
N_ITEMS="no-handler:empty:32:1 no-handler:klog_printk:32:1
no-handler:klog_raw:32:1 site-off,null-handler:klog_off:32:1:null
null-handler:klog_raw:32:1:null pair,null-handler:klog_printk:32:1:null:klog_raw:22
pair,null-handler:klog_printk:32:1:null:trace_printk:32
peer:trace_printk:32:1 peer:trace_puts:32:1
peer:printk:32:1 floor:local_clock:32:1 floor:relay_write:32:1
floor:memcpy:32:1 peer:args_pack:32:1 peer:vsnprintf:32:1"
# klog_raw:22 is klog_printk's payload: BENCH_FMT's argument block is 22
# bytes (header 4, two integers 5 each, "abc" 1 + 4 + 3), so the two
# compare records of one size; they are measured paired (the "pair,"
# items), batch by batch in one run.
# O: the relay handler in overwrite mode, nobody reading (a flight
# recorder); record sizes and writer CPUs
O_ITEMS="floor:local_clock:32:1 pair,handler,overwrite:klog_printk:32:1::klog_raw:22
pair,handler,overwrite:klog_printk:32:1::trace_printk:32"
for size in 16 32 64 256 1024 4096; do
	O_ITEMS="$O_ITEMS handler,overwrite:klog_raw:$size:1
peer:trace_puts:$size:1 floor:relay_write:$size:1"
done
for cpus in 2 4; do
	[ $cpus -le $ncpu ] || continue
	O_ITEMS="$O_ITEMS handler,overwrite:klog_raw:32:$cpus peer:trace_puts:32:$cpus"
done
# C: a draining collector (no-overwrite): what a streaming user pays
C_ITEMS="handler,no-overwrite:klog_raw:32:1
pair,handler,no-overwrite:klog_printk:32:1::klog_raw:22
pair,handler,no-overwrite:klog_printk:32:1::trace_printk:32 peer:trace_puts:32:1"

phase() { # phase ROUND N|O|C
	local items item col
	case $2 in
	N) items=$N_ITEMS ;;
	O) items=$O_ITEMS; channel overwrite ;;
	C) items=$C_ITEMS
		rm -rf /tmp/bench-out
		klog -q -b 1048576 -n 8 -o /tmp/bench-out > /tmp/bench-collector.log 2>&1 &
		col=$!
		wait_enabled $col || echo "pc r=$1 ph=C collector FAILED" >> $R ;;
	esac
	for item in $(order $1 $items); do
		measure $1 $2 $item
	done
	case $2 in
	O) nochannel ;;
	C) kill -INT $col; wait $col ||
		echo "pc r=$1 ph=C collector exit FAILED" >> $R
		echo "collector r=$1: $(grep -i drop /tmp/bench-collector.log | head -n 2 | tr '\n' ' ')" >> $R ;;
	esac
}

# The site table's memory: one struct klog_site per call site.
echo "sitebytes bytes=$(cat /sys/kernel/debug/klog_bench/site_bytes 2>/dev/null) plan=$(cat /sys/kernel/debug/klog_bench/plan_bytes 2>/dev/null)" >> $R

t0=$(cut -d' ' -f1 /proc/uptime)
for r in $(seq $ROUNDS); do
	for ph in $(order $r N O C); do
		phase $r $ph
	done
done
t1=$(cut -d' ' -f1 /proc/uptime)
echo "time percall rounds=$ROUNDS seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" >> $R

# The profiles: one long run each, not in rounds.
channel overwrite
profile 1-klog_raw klog_raw 32
profile 2-klog_printk klog_printk 32
nochannel
profile 3-trace_puts trace_puts 32
profile 4-trace_printk trace_printk 32
profile 5-args_pack args_pack 32

if [ "$mode" != percall ]; then
# A real driver: null_blk with the series' klog example patch. 4 KiB
# O_DIRECT reads from every CPU, completed inline (irqmode=0), so each
# read is one pass through the request path. Variants: the pristine
# driver, the patched one with no handler, with the relay handler
# (overwrite mode, nobody reading), and the same calls as
# trace_printk()/trace_puts() (ftrace's ring buffer, nobody reading).
# Each round loads all four in turn, in the round's order.
nullblk() { # nullblk ROUND LABEL MODULE
	local out
	[ $2 != klog-on ] || channel overwrite
	if insmod /lib/modules/$3.ko nr_devices=1 queue_mode=2 irqmode=0 \
			submit_queues=$ncpu && [ -b /dev/nullb0 ] &&
	   out=$(blkload /dev/nullb0 $NB_OPS); then
		echo "nullblk r=$1 v=$2 $out" >> $R
	else
		echo "nullblk r=$1 v=$2 FAILED" >> $R
	fi
	rmmod null_blk 2> /dev/null
	[ $2 != klog-on ] || nochannel
}
t0=$(cut -d' ' -f1 /proc/uptime)
for r in $(seq $ROUNDS); do
	for v in $(order $r plain:null_blk-plain klog-off:null_blk-klog \
			klog-on:null_blk-klog trace_printk:null_blk-trace); do
		nullblk $r ${v%%:*} ${v#*:}
	done
done
t1=$(cut -d' ' -f1 /proc/uptime)
echo "time nullblk rounds=$ROUNDS seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" >> $R
fi # percall

# Not in the icount boot: there the guest's clock counts instructions,
# and a copy's cost is in its cache misses more than in them.
if [ "$mode" != percall ] && [ "$mode" != icount ]; then

# The collector: records/s and MB/s, read vs mmap, default vs tuned
# sizes, streaming while every CPU emits ("stream") and alone ("drain"),
# against dd writing as many bytes to the same file system. In each
# round the collector cases run in the round's order with a dd before
# and after each (dd A dd B dd ...); a case's ratio is to the mean of
# the two dd runs around it. s= numbers the measurements in order.
outbytes() { # the bytes of /tmp/col/cpu*
	stat -c %s /tmp/col/cpu* | awk '{ s += $1 } END { print s + 0 }'
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
# stream ROUND MODE SUBBUF N: seconds are the emitters' run
stream() {
	local col t0 t1 ticks
	rm -rf /tmp/col; mkdir /tmp/col
	klog -m $2 -b $3 -n $4 -o /tmp/col > /tmp/col.log 2>&1 &
	col=$!
	wait_enabled $col || { echo "stream r=$1 mode=$2 FAILED" >> $R; return; }
	t0=$(uptime_s)
	echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
	t1=$(uptime_s)
	ticks=$(awk '{ print $14 + $15 }' /proc/$col/stat)
	kill -INT $col; wait $col
	echo "stream r=$1 s=$SEQ mode=$2 subbuf=$3 n=$4 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') records=$(awk '$1 == "total" { print $2 }' /tmp/col.log) bytes=$(outbytes) drops=$(awk '$1 == "total" { print $5 + $6 + $7 + $8 + $9 }' /tmp/col.log) cpu_ticks=$ticks" >> $R
	rm -rf /tmp/col
}
# drain ROUND MODE: the collector alone. Records are emitted while it is
# stopped (SIGSTOP; 32 x 1 MiB per CPU holds them all), then it is
# continued and told to finish (SIGINT: flush, drain everything, exit).
# The time from SIGCONT to its exit is the collector's own rate, with
# nothing else running: the figure to hold against dd. CPU time is the
# collector's, taken by the shell that waited for it (cutime + cstime in
# /proc/PID/stat).
drain() {
	local col sh t0 t1
	rm -rf /tmp/col; mkdir /tmp/col
	sh -c "klog -m $2 -b 1048576 -n 32 -o /tmp/col > /tmp/col.log 2>&1; cat /proc/\$\$/stat > /tmp/col.stat" &
	sh=$!
	while ! col=$(pidof klog); do
		kill -0 $sh 2> /dev/null || break
		sleep 0.05
	done
	wait_enabled "$col" || { echo "drain r=$1 mode=$2 FAILED" >> $R; wait $sh; return; }
	kill -STOP $col
	echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
	t0=$(uptime_s)
	kill -CONT $col; kill -INT $col; wait $sh
	t1=$(uptime_s)
	echo "drain r=$1 s=$SEQ mode=$2 subbuf=1048576 n=32 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') records=$(awk '$1 == "total" { print $2 }' /tmp/col.log) bytes=$(outbytes) drops=$(awk '$1 == "total" { print $5 + $6 + $7 + $8 + $9 }' /tmp/col.log) cpu_ticks=$(awk '{ print $16 + $17 }' /tmp/col.stat)" >> $R
	DDBYTES=${DDBYTES:-$(outbytes)}
	rm -rf /tmp/col
}
# emitonly ROUND: the same emission as a stream case's into 32 x 1 MiB
# per CPU with nothing reading it. With single-threaded TCG the emitters
# and the collector share QEMU's one host thread, so a stream case takes
# at least this long: the bound on the stream rows. Its bytes are a
# drain's (the same records in sub-buffers of the same size).
emitonly() {
	local t0 t1
	nochannel
	if ! { echo 1048576 > $D/subbuf_size && echo 32 > $D/n_subbufs &&
	       echo 1 > $D/create && echo 1 > $D/enabled; }; then
		echo "emit r=$1 FAILED" >> $R; nochannel; return
	fi
	t0=$(uptime_s)
	echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
	t1=$(uptime_s)
	echo "emit r=$1 s=$SEQ mode=none subbuf=1048576 n=32 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') $(tr ' ' '\n' < $D/stats | awk -F= '$1 == "records" { r += $2 } $1 ~ /^(full|big|nmi|nest|reentered)$/ { d += $2 } END { print "records=" r + 0 " drops=" d + 0 }') bytes=$DDBYTES" >> $R
	nochannel
}
# ddrelay ROUND: the floor under a drain in read mode, the same records
# as a drain's read from the channel's files by one dd per CPU: read(2)
# and write(2) of whole sub-buffers, nothing decoded, no channel made or
# torn down in the time. A drain row, mode=dd; close_seconds= is the
# channel's teardown after it (echo 0 > create), which a collector's
# drain counts.
ddrelay() {
	local c t0 t1 t2 stats pids=
	nochannel
	rm -rf /tmp/col; mkdir /tmp/col
	if ! { echo 1048576 > $D/subbuf_size && echo 32 > $D/n_subbufs &&
	       echo 1 > $D/create && echo 1 > $D/enabled; }; then
		echo "drain r=$1 mode=dd FAILED" >> $R; nochannel; return
	fi
	echo "count=$EMIT size=64 kind=raw ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit
	echo 0 > $D/enabled	# which flushes: every sub-buffer is produced
	t0=$(uptime_s)
	for c in $(seq 0 $((ncpu - 1))); do
		dd if=$D/cpu$c of=/tmp/col/cpu$c bs=4M 2> /dev/null & pids="$pids $!"
	done
	wait $pids
	t1=$(uptime_s)
	stats=$(tr ' ' '\n' < $D/stats | awk -F= '$1 == "records" { r += $2 } $1 ~ /^(full|big|nmi|nest|reentered)$/ { d += $2 } END { print "records=" r + 0 " drops=" d + 0 }')
	echo 0 > $D/create
	t2=$(uptime_s)
	echo "drain r=$1 s=$SEQ mode=dd subbuf=1048576 n=32 seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') $stats bytes=$(outbytes) close_seconds=$(echo "$t2 $t1" | awk '{ print $1 - $2 }')" >> $R
	rm -rf /tmp/col
	nochannel
}
# dd ROUND: as many bytes as a drain wrote, to the same tmpfs. Its CPU
# time is taken as the collector's is (the waiting shell's cutime +
# cstime), and its time around dd alone, inside that shell, so that the
# shell's own start is not counted as dd's, as it is not the collector's.
ddrun() {
	sh -c 't0=$(cut -d" " -f1 /proc/uptime)
		dd if=/dev/zero of=/tmp/dd.out bs=65536 count=$0 2> /dev/null
		t1=$(cut -d" " -f1 /proc/uptime)
		echo "$t0 $t1 $(cut -d" " -f16,17 /proc/$$/stat)" > /tmp/dd.t' \
		$((DDBYTES / 65536 + 1))
	echo "dd r=$1 s=$SEQ bytes=$(stat -c %s /tmp/dd.out) $(awk '{ print "seconds=" $2 - $1 " cpu_ticks=" $3 + $4 }' /tmp/dd.t)" >> $R
	rm -f /tmp/dd.out /tmp/dd.t
}
# One drain before the rounds, not counted: the byte count for dd.
DDBYTES=
drain 0 read
sed -i '/^drain r=0 /d' $R
t0=$(uptime_s)
SEQ=0
for r in $(seq $ROUNDS); do
	SEQ=$((SEQ + 1)); ddrun $r
	for c in $(order $r stream:read:262144:4 stream:read:1048576:16 \
			stream:mmap:262144:4 stream:mmap:1048576:16 \
			drain:read drain:mmap drain:dd emit); do
		set -- $(echo $c | tr : ' ')
		SEQ=$((SEQ + 1))
		case $1 in
		stream) stream $r $2 $3 $4 ;;
		drain) if [ $2 = dd ]; then ddrelay $r; else drain $r $2; fi ;;
		emit) emitonly $r ;;
		esac
		SEQ=$((SEQ + 1)); ddrun $r
	done
done
t1=$(uptime_s)
echo "time collector rounds=$ROUNDS seconds=$(echo "$t1 $t0" | awk '{ print $1 - $2 }')" >> $R
fi # percall, icount

# Registering the first handler (klog_bench's do-nothing one; no other is
# registered while no channel exists): with the sites there are, then
# with klog_bench_sites' 10,000 more, all enabled. 20 register and
# unregister pairs a round; unregistering waits for a grace period.
# Last: the 10,000 sites stay described in the sites file once their
# module is gone, which every collector reads at its start and stop.
register_rounds() { # register_rounds LABEL
	local r
	for r in $(seq $((ROUNDS < 5 ? ROUNDS : 5))); do
		echo pairs=20 > /sys/kernel/debug/klog_bench/register &&
		echo "register r=$r v=$1 enabled_sites=$(grep -c ' =p ' $D/control) $(cat /sys/kernel/debug/klog_bench/register)" >> $R ||
		echo "register r=$r v=$1 FAILED" >> $R
	done
}
register_rounds few
# Then what a module load waits for meanwhile: klog_bench_sites' wait
# file, 3 registrations a round while a thread flips a key of its own;
# and the floor: its floor file, a key of its own at 10,000 sites
# enabled and disabled 5 times a round.
if insmod /lib/modules/klog_bench_sites.ko; then
	register_rounds many
	S=/sys/kernel/debug/klog_bench_sites
	for r in $(seq $((ROUNDS < 5 ? ROUNDS : 5))); do
		echo 3 > $S/wait && echo "regwait r=$r $(cat $S/wait)" >> $R ||
		echo "regwait r=$r FAILED" >> $R
		echo 5 > $S/floor && echo "regfloor r=$r $(cat $S/floor)" >> $R ||
		echo "regfloor r=$r FAILED" >> $R
	done
	rmmod klog_bench_sites
else
	echo "register v=many FAILED: insmod klog_bench_sites" >> $R
fi


cat $R
sh /guest/bench-table.sh $R > /tmp/bench.md
sed 's/^/KLOG-BENCH: /' /tmp/bench.md
{
	echo
	echo "### Where the time goes: kernel functions sampled during 1-CPU runs"
	echo
	echo "klog with the relay handler in overwrite mode, ftrace with its ring"
	echo "buffer; the interrupted function every 20 us (TCG takes interrupts"
	echo "only between translated blocks: coarse). One run each, not in rounds."
	for f in /tmp/profile-*; do
		echo
		echo '```'
		cat $f
		echo '```'
	done
} | sed 's/^/KLOG-BENCH: /'
grep -q '^sitebytes bytes=[1-9][0-9]* plan=[1-9]' $R && grep -q '^| klog_printk, site disabled | null-handler | [0-9]' /tmp/bench.md
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:site-rows"
# Both registration rows, the 10,000 sites enabled in the second.
few=$(awk '$1 == "register" && / v=few / { split($4, a, "="); print a[2]; exit }' $R)
many=$(awk '$1 == "register" && / v=many / { split($4, a, "="); print a[2]; exit }' $R)
! grep -q '^register .*FAILED' $R && [ -n "$few" ] && [ "$many" = $((few + 10000)) ] &&
	grep -q "^| $many | [0-9]* | [0-9]* | [0-9.]* | " /tmp/bench.md &&
	! grep -q '^regwait .*FAILED' $R &&
	[ "$(grep -c '^regwait r=[0-9]* wait n=3 register_median_ns=[1-9][0-9]* longest_flip_median_ns=[0-9]* flips=[1-9]' $R)" = $((ROUNDS < 5 ? ROUNDS : 5)) ] &&
	[ "$(grep -c '^regfloor r=[0-9]* floor n=5 enable_median_ns=[1-9][0-9]* pair_median_ns=[1-9][0-9]*$' $R)" = $((ROUNDS < 5 ? ROUNDS : 5)) ] &&
	grep -A5 '^### The floor under that registration' /tmp/bench.md |
	grep -q '^| on and off: register + unregister | [1-9][0-9]* | -\?[0-9]* | -\?[0-9.]* | -\?[0-9.]*--\?[0-9.]*' &&
	grep -A4 '^### What a module load waits for' /tmp/bench.md |
	grep -q '^| [1-9][0-9]* | [0-9][0-9]* | [0-9.]* | [0-9.]*-[0-9.]*'
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:register-rows"
[ "$mode" != percall ] || exit 0
if [ "$mode" = icount ]; then
	[ "$(grep -c '^nullblk .* chunk_ns=[1-9]' $R)" = $((4 * ROUNDS)) ]
	result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:null_blk-rows"
	exit 0
fi
# Every row measured in every round, every table cell filled.
per_round=$(for it in $N_ITEMS $O_ITEMS $C_ITEMS; do echo; done | wc -l)
rows=$(grep -c '^pc .*median_ns=' $R)
want=$((ROUNDS * per_round))
[ "$rows" = "$want" ] && ! grep -q FAILED $R && ! grep -v 'trace_puts() cannot take' /tmp/bench.md | grep -q 'n/a'
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:every-row-measured-$rows-of-$want"
[ "$(grep -c '^stream .* records=[1-9]' $R)" = $((4 * ROUNDS)) ] &&
	[ "$(grep -c '^drain .* mode=\(read\|mmap\) .* drops=0 ' $R)" = $((2 * ROUNDS)) ] &&
	[ "$(grep -c '^drain .* mode=dd .* records=\([1-9][0-9]*\) drops=0 bytes=[1-9]' $R)" = $ROUNDS ] &&
	[ "$(grep -c '^emit .* records=[1-9].* drops=0 ' $R)" = $ROUNDS ] &&
	[ "$(grep -c '^dd .* seconds=' $R)" = $((9 * ROUNDS)) ]
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:collector-rows"
[ "$(grep -c '^nullblk .* chunk_ns=[1-9]' $R)" = $((4 * ROUNDS)) ]
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:null_blk-rows"
[ "$(grep -l '^profile case=.* samples=[1-9]' /tmp/profile-* | wc -l)" = 5 ]
result "$([ $? = 0 ] && echo ok || echo 'not ok')" "bench:profiles"
