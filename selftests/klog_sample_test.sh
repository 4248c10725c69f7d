#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The relay-apps klog pair (samples/klog/klog): klog-sample-mod writes
# each klog record as a line of text into relay, the klog-sample program
# reads the lines with read(2). While it records, klog-example is loaded
# and unloaded: it logs exactly 22 records (load, 10 ticks of a text and
# a raw record each, unload), so klog-sample must print exactly those 22
# lines and "0 dropped"; the same with -o DIR (DIR/cpuN). Then, with
# two 4 KiB sub-buffers per CPU and nobody reading, 2000 text records
# from test_klog on CPU 0 and 20 from NMI context: what does not fit,
# and every NMI record, is dropped, and the lines read afterwards plus
# the dropped count are exactly 2020.
#
# KLOG_SAMPLE names the program (default: klog-sample in PATH); the
# modules are taken from /lib/modules. Output is TAP; exit 4 (skip)
# without the program or the modules.

PROG=${KLOG_SAMPLE:-klog-sample}
MODS=/lib/modules
DIR=/sys/kernel/debug/klog-sample
EMIT=/sys/kernel/debug/test_klog/emit
. "$(dirname "$0")/klog_lib.sh"	# tap

if ! command -v "$PROG" >/dev/null || [ ! -f $MODS/klog-sample-mod.ko ] ||
   [ ! -f $MODS/klog-example.ko ] || [ ! -w $EMIT ]; then
	echo "1..0 # SKIP needs $PROG, klog-sample-mod.ko, klog-example.ko and test_klog"
	exit 4
fi
echo "1..8"

# collect OUT [ARGS...]: klog-sample ARGS, its output in OUT and OUT.err,
# while COMMAND (default: klog-example loaded and unloaded, which waits
# for its last tick) runs; then SIGINT.
cmd="insmod $MODS/klog-example.ko && rmmod klog_example"
collect() {
	o=$1
	shift
	"$PROG" "$@" > $o 2> $o.err &
	pid=$!
	i=0
	until grep -q '^klog-sample: recording' $o.err || [ $i = 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sh -c "$cmd"
	kill -INT $pid
	wait $pid
}

# check LINES: klog-example's 22 records, nothing else
rec='^\[[0-9]+\.[0-9]{9}\] cpu[0-9]+ [0-9]+ (task|softirq) '
check() {
	[ "$(grep -c . $1)" = 22 ] &&
	[ "$(grep -cE "${rec}example_init:[0-9]+: loaded: 10 ticks, 20 ms apart$" $1)" = 1 ] &&
	[ "$(grep -cE "${rec}example_tick:[0-9]+: tick ([1-9]|10) of 10, [0-9] left$" $1)" = 10 ] &&
	[ "$(grep -cE "${rec}example_tick:[0-9]+: raw 16 bytes:( [0-9a-f]{2}){16}$" $1)" = 10 ] &&
	[ "$(grep -cE "${rec}example_exit:[0-9]+: unloaded after 10 of 10 ticks$" $1)" = 1 ]
}

insmod $MODS/klog-sample-mod.ko
o=/tmp/klog-sample.out
collect $o
tap $? "klog-sample exits 0 on SIGINT" "$(cat $o.err)"
check $o
tap $? "prints klog-example's 22 records, nothing else" "$(cat $o)"
grep -q '^klog-sample: 0 dropped$' $o.err
tap $? "0 dropped"

rm -rf /tmp/klog-sample.d
mkdir /tmp/klog-sample.d
collect $o -o /tmp/klog-sample.d
cat /tmp/klog-sample.d/cpu* > $o.all
check $o.all && [ ! -s $o ] && grep -q '^klog-sample: 0 dropped$' $o.err
tap $? "-o DIR: DIR/cpuN hold the 22 records" "$(cat $o.err $o.all)"

rmmod klog_sample_mod
insmod $MODS/klog-sample-mod.ko subbuf_size=4096 n_subbufs=2
echo 1 > $DIR/enabled
echo "count=2000 size=64 kind=text ctx=task cpus=0" > $EMIT &&
	echo "count=20 size=64 kind=text ctx=nmi cpus=0" > $EMIT
tap $? "test_klog: 2000 task and 20 NMI records on CPU 0"
cmd=true
collect $o
tap $? "klog-sample exits 0" "$(cat $o.err)"
lines=$(grep -c 'TKLG' $o)
dropped=$(sed -n 's/^klog-sample: \([0-9]*\) dropped$/\1/p' $o.err)
[ "$dropped" -gt 20 ] && [ $((lines + dropped)) = 2020 ] && [ "$(grep -c . $o)" = "$lines" ]
tap $? "small buffers: lines + dropped == 2020" "lines $lines, dropped $dropped"

echo 1 > $DIR/enabled
rmmod klog_sample_mod && [ ! -e $DIR ]
tap $? "unloads while enabled"

[ $fail = 0 ]
