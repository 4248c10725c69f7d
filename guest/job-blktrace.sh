# SPDX-License-Identifier: GPL-2.0
# relay's oldest client, blktrace, against the relay patches: blktrace
# (relay_file_operations' read(2), one relay buffer per CPU, small
# sub-buffers so that every buffer switches several times) traces
# /dev/nullb0 while blkload reads from every CPU at once, a known pattern:
# CPU c reads 4 KiB at byte (c << 30) + i * 4096 for i < PER, O_DIRECT, so
# each read is one request. blkparse must then show, for each of those
# reads, exactly one Q (queued) and one C (completed) event with its
# sector and size, and no other Q or C event but those of the probe
# reads (below); blktrace must report no event dropped and blkparse
# no sequence skipped. Run by job-test.sh, or alone as the VM job
# "blktrace".
. /guest/lib.sh

BT_PER=1024			# reads per CPU (a multiple of blkload's 64)
BT_BS=4096
bt_dir=/tmp/blktrace
bt_log=/tmp/blktrace.log

# The blktrace process has read from one of its relay files, so tracing
# is on. blktrace reads a buffer when poll() says it is readable, which
# relay says once a sub-buffer is finished: bt_run makes probe reads
# (4 KiB at byte 8 GiB, outside the pattern) until one has been.
bt_reading() {
	for fd in /proc/$1/fd/*; do
		case $(readlink "$fd") in */block/nullb0/trace[0-9]*) ;; *) continue ;; esac
		pos=$(awk '$1 == "pos:" { print $2 }' "/proc/$1/fdinfo/${fd##*/}")
		[ "${pos:-0}" != 0 ] && return 0
	done
	return 1
}

bt_run() {
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	rm -rf $bt_dir; mkdir -p $bt_dir
	if ! insmod /lib/modules/null_blk-plain.ko nr_devices=1 queue_mode=2 \
			irqmode=0 submit_queues=$ncpu || [ ! -b /dev/nullb0 ]; then
		result "not ok" "blktrace:null_blk"
		return
	fi
	result ok "blktrace:null_blk"
	# 4 KiB sub-buffers, so that each buffer switches many times under
	# the load; 256 of them, so that none fills even if blktrace reads
	# nothing until the end.
	blktrace -d /dev/nullb0 -b 4 -n 256 -D $bt_dir -o nullb0 > $bt_log 2>&1 &
	bt=$!
	# Wait for tracing to be on (no fixed sleep): probe reads until
	# blktrace has read a sub-buffer, up to 2000 (a sub-buffer holds
	# about 15 reads' events).
	probes=0
	until bt_reading $bt; do
		if [ $probes -ge 2000 ] || ! kill -0 $bt 2> /dev/null; then
			cat $bt_log
			result "not ok" "blktrace:started"
			kill -INT $bt 2> /dev/null; wait $bt
			rmmod null_blk
			return
		fi
		dd if=/dev/nullb0 of=/dev/null bs=4096 count=1 skip=2097152 \
			iflag=direct 2> /dev/null || break
		probes=$((probes + 1))
	done
	echo "blktrace: on after $probes probe reads"
	result ok "blktrace:started"
	blkload /dev/nullb0 $((ncpu * BT_PER)) $BT_BS
	load=$?
	kill -INT $bt
	wait $bt
	rc=$?
	cat $bt_log
	rmmod null_blk
	[ $load = 0 ] && result ok "blktrace:load" || result "not ok" "blktrace:load"
	# blktrace's summary: "  Total:  N events (dropped D),  K KiB data".
	[ $rc = 0 ] && grep -q '^ *Total: .* events (dropped 0)' $bt_log
	verdict $? "blktrace:no-drops"
	blkparse -D $bt_dir -i nullb0 -f 'EV %a %d %S %N\n' > /tmp/blkparse.out 2>&1
	rc=$?
	grep -v '^EV ' /tmp/blkparse.out
	# Sequence numbers per CPU are contiguous: nothing read twice or lost
	# between blktrace's reads; and every event is whole (blkparse says
	# "Bad magic" for bytes that are not an event, and goes on).
	[ $rc = 0 ] && grep -q '^Skips: 0 forward' /tmp/blkparse.out &&
		! grep -q 'Bad magic' /tmp/blkparse.out
	verdict $? "blktrace:blkparse-no-skips"
	# Every read of the pattern: one Q and one C, with its sector and
	# size; no other Q or C event.
	awk -v ncpu=$ncpu -v per=$BT_PER -v bs=$BT_BS -v probes=$probes '
		BEGIN {
			spc = bs / 512
			for (c = 0; c < ncpu; c++)
				for (i = 0; i < per; i++)
					want[c * 2097152 + i * spc] = 1
			n = ncpu * per
			psec = 16777216
		}
		$1 == "EV" && ($2 == "Q" || $2 == "C") && $4 == psec && $5 == bs {
			probe[$2]++
			next
		}
		$1 == "EV" && ($2 == "Q" || $2 == "C") {
			a = $2; s = $4 + 0
			if (!(s in want) || $5 != bs || $3 !~ /R/) {
				if (bad[a]++ < 5) print "blktrace: unexpected " $0
				next
			}
			if (++seen[a, s] == 2 && dup[a]++ < 5)
				print "blktrace: twice " $0
			got[a]++
		}
		$1 == "EV" { ev[$2]++ }
		END {
			out = "blktrace: events by action:"
			for (a in ev) out = out " " a "=" ev[a]
			print out
			for (k = 1; k <= 2; k++) {
				a = (k == 1) ? "Q" : "C"
				miss = 0
				for (s in want)
					if (!((a, s) in seen)) {
						if (miss++ < 5) print "blktrace: no " a " for sector " s
					}
				printf "blktrace: %s: %d of %d reads, %d missing, %d twice, %d other; %d of %d probes\n",
					a, got[a], n, miss, dup[a], bad[a], probe[a], probes
				# Probes made before tracing was on are not in
				# the trace; the one that finished a sub-buffer is.
				st = (got[a] == n && !miss && !dup[a] && !bad[a] &&
				      probe[a] >= 1 && probe[a] <= probes) ? "ok" : "not ok"
				print "KLOG-RESULT: " st " blktrace:every-read-" a
			}
		}
	' /tmp/blkparse.out
}

bt_run
