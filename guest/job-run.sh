# SPDX-License-Identifier: GPL-2.0
# The main job (make run): a real driver with klog calls. null_blk, as
# the series' example patch leaves it (a text record per request from
# null_queue_rq(), a binary one per command from null_handle_cmd(), and
# klog_trigger() when a command fails), serves /dev/nullb0, a configfs
# device with one bad block, under blkload's O_DIRECT reads from every
# CPU. klog records three rounds of reads while null_queue_rq's site is
# turned off through the control file for the second one; the
# collection is read as text, counted (--stat) and exported as CTF,
# which goes to the console for the host's babeltrace2 (scripts/run.sh).
# Then a flight recorder is frozen by null_blk's klog_trigger() on a
# read of the bad block, and kleak finds a planted leak. The job's
# checks are KLOG-RESULT lines (run:*), which the host counts and
# make check records; every step waits for its command, never a time.
. /guest/lib.sh
say() { echo; echo "===== $*"; }
check() { # check NAME COMMAND...: a result line for the host
	n=$1
	shift
	if "$@" > /dev/null 2>&1; then result ok "run:$n"; else result "not ok" "run:$n"; fi
}
N=1024					# reads per round: 256 per CPU
BAD=1000000				# the bad sector (blkload reads below 2048
					# and from 2^21 on, CPU 1's first)
D=/out/nullb
ctl=/sys/kernel/debug/klog
clk() { sed 's/^local_clock=\([0-9]*\) .*/\1/' $ctl/clock; }
sec() { printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000)); }

# The load klog records (klog runs this script with "load"): three
# rounds of reads, null_queue_rq's site off during the second, the
# control writes timed by klog-mod's clock, the records' own.
if [ "${1:-}" = load ]; then
	blkload /dev/nullb0 $N || exit 1
	echo 'func null_queue_rq -p' > $ctl/control || exit 1
	off=$(clk)
	echo "[$(sec $off)] wrote 'func null_queue_rq -p' to $ctl/control"
	klog --sites func null_queue_rq
	blkload /dev/nullb0 $N || exit 1
	on=$(clk)
	echo 'func null_queue_rq +p' > $ctl/control || exit 1
	echo "[$(sec $on)] writing 'func null_queue_rq +p'"
	klog --sites func null_queue_rq | tail -n 1
	blkload /dev/nullb0 $N || exit 1
	echo "$(sec $off) $(sec $on)" > /tmp/run.clock
	exit 0
fi

nb=/sys/kernel/config/nullb/nullb0
if ! insmod /lib/modules/klog-mod.ko || ! insmod /lib/modules/null_blk.ko nr_devices=0 irqmode=0 ||
   ! mount -t configfs configfs /sys/kernel/config || ! mkdir $nb ||
   ! echo "+$BAD-$((BAD + 7))" > $nb/badblocks || ! echo 1 > $nb/power || [ ! -b /dev/nullb0 ]; then
	result "not ok" run:setup
	exit 1
fi
say "null_blk (the example patch) serves /dev/nullb0, sectors $BAD-$((BAD + 7)) bad: its klog sites"
klog --sites module null_blk
check sites test "$(klog --sites module null_blk | grep -c ' on  *null_blk ')" = 3

# klog's stderr and the load's output through one pipe: in order, and no
# status line (not a terminal).
say "klog record -e 'module null_blk' -o $D -- <$N reads x 3, null_queue_rq off for the 2nd>"
{ klog record -e 'module null_blk' -o $D -- sh /guest/job-run.sh load; echo $? > /tmp/run.rc; } 2>&1 | cat
check record-exit-0 test "$(cat /tmp/run.rc)" = 0
check site-put-back sh -c "klog --sites func null_queue_rq | grep -q ' on '"

say "klog -r $D | head -n 6    (merged by time; a request, then its command: sector, length, op, status, tag)"
klog -r $D 2> /tmp/run.err > /tmp/run.txt
head -n 6 /tmp/run.txt | cut -c 1-150
cat /tmp/run.err
check report-no-loss grep -q ' 0 lost' /tmp/run.err

# The gap: null_queue_rq's records stop at the control write and come
# back after the next, while null_handle_cmd's go on.
read off on < /tmp/run.clock
say "the gap: null_queue_rq's records while its site was off (from [$off] to [$on])"
awk -v off="$off" -v on="$on" '
	{ t = substr($1, 2, length($1) - 2) + 0; f = $5; sub(/:.*/, "", f) }
	f == "null_handle_cmd" { h++; if (t > off + 0 && t < on + 0) hin++ }
	f == "null_queue_rq" {
		q++
		if (t < off + 0) last = $1
		else if (t > on + 0) { if (first == "") first = $1 }
		else qin++
	}
	END {
		printf "null_handle_cmd: %d records, %d of them while null_queue_rq was off\n", h, hin
		printf "null_queue_rq:   %d records, %d while it was off: the last before at %s, the first after at %s\n",
			q, qin, last, first
		printf "%d %d %d %d\n", q, qin, h, hin > "/tmp/run.gap"
	}' /tmp/run.txt
read q qin h hin < /tmp/run.gap
check null_blk-records test "$q $h" = "$((2 * N)) $((3 * N))"
check gap test "$qin $hin" = "0 $N"
say "klog -r $D --since $off | head -n 3    (after the first write: commands only)"
klog -r $D --since "$off" 2> /dev/null | head -n 3 | cut -c 1-150

say "klog -r $D --stat"
klog -r $D --stat 2>&1 | head -n 40
check stat-sites sh -c "klog -r $D --stat 2>/dev/null | grep -q '^ *null_handle_cmd:[0-9]*  *$((3 * N)) '"

say "klog -r $D --ctf /out/ctf    (for babeltrace2, on the host)"
klog -r $D --ctf /out/ctf 2>&1
check ctf-export test -f /out/ctf/metadata
echo "KLOG-HOST-STEP: babeltrace2 $(wc -l < /tmp/run.txt)"

# The flight recorder: null_blk's requests in an overwrite-mode channel
# nobody reads, then a read of the bad block fails and null_blk's
# klog_trigger() freezes it; the reads after that are not kept.
say "klog -R -b 64k -n 8; blkload; dd iflag=direct <the bad block>; blkload"
klog -R -b 64k -n 8 && blkload /dev/nullb0 $N
dd if=/dev/nullb0 of=/dev/null bs=4096 count=1 skip=$((BAD / 8)) iflag=direct 2>&1 | head -n 1
blkload /dev/nullb0 $N
say "klog --status"
klog --status > /tmp/run.status 2>&1
cat /tmp/run.status
check recorder-frozen grep -qx 'frozen:    1' /tmp/run.status
check recorder-trigger grep -q '^trigger:   cpu=[0-9]* ts=[0-9]* reason=klog_trigger: null_blk: command failed$' /tmp/run.status
say "klog -s -o /out/snap; klog -r /out/snap | tail -n 3    (the failed read, status 0a, and the trigger)"
klog -s -o /out/snap 2>&1 | tail -n 2
klog -r /out/snap 2> /dev/null | tail -n 3 | cut -c 1-150
klog -r /out/snap 2> /dev/null | tail -n 3 > /tmp/run.snap
check snapshot-bad-read grep -q "null_queue_rq:[0-9]*: q[0-9]* tag [0-9]* READ sector $BAD+8\$" /tmp/run.snap
check snapshot-trigger-last sh -c "tail -n 1 /tmp/run.snap | grep -q 'null_handle_cmd:[0-9]*: klog_trigger: null_blk: command failed \[trigger\]\$'"
klog --stop

# kleak: klog collects while kleak-mod, loaded for the command, logs
# every slab allocation and free, the shell does some work, and
# kleak-test-mod plants a leak of 37 x 200 bytes that kleak must find.
say "klog -q -o /out/kleak -- sh -c 'insmod kleak-mod.ko; <some work; the leak>; rmmod kleak_mod'"
klog -q -o /out/kleak -- sh -c '
	insmod /lib/modules/kleak-mod.ko || exit 1
	for i in 1 2 3 4 5; do ls -l /proc/self/ > /dev/null; cat /proc/meminfo > /tmp/m.$i; done
	insmod /lib/modules/kleak-test-mod.ko leak=37 size=200 balanced=50
	rmmod kleak_mod' 2>&1
say "kleak /out/kleak | head -n 7    (outstanding allocations by caller, most bytes first)"
kleak /out/kleak > /tmp/run.kleak
head -n 7 /tmp/run.kleak
check kleak-leak grep -q '^ *37  *7400 .* kleak_test_leak' /tmp/run.kleak
rmmod kleak_test_mod

# The CTF trace for the host, as a base64 tar between KLOG-FILE lines,
# with nothing else on the console meanwhile.
old=$(cut -f1 /proc/sys/kernel/printk)
echo 1 > /proc/sys/kernel/printk
echo "KLOG-FILE-BEGIN run-ctf.tar.gz"
tar -C /out -cz ctf | base64 | sed 's/^/KLOG-B64: /'
echo "KLOG-FILE-END"
echo "$old" > /proc/sys/kernel/printk
