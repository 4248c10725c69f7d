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
# the dropped count are exactly 2020. As a collector run as root: -o
# makes new 0600 files (a planted symlink is refused), a second reader
# is refused (EBUSY) and leaves the first alone, and an output error
# leaves the module disabled.
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
echo "1..11"

# recording ERR: until the reader says so in ERR (bounded at 600 s)
recording() {
	i=0
	until grep -q '^klog-sample: recording' $1 || [ $i = 6000 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# collect OUT [ARGS...]: klog-sample ARGS, its output in OUT and OUT.err,
# while COMMAND (default: klog-example loaded and unloaded, which waits
# for its last tick) runs; then SIGINT.
cmd="insmod $MODS/klog-example.ko && rmmod klog_example"
collect() {
	o=$1
	shift
	rm -f $o.err	# no line of the last run is taken for this one's
	"$PROG" "$@" > $o 2> $o.err &
	pid=$!
	recording $o.err
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
check $o.all && [ ! -s $o ] && grep -q '^klog-sample: 0 dropped$' $o.err &&
	[ "$(stat -c %a /tmp/klog-sample.d/cpu* | sort -u)" = 600 ]
tap $? "-o DIR: DIR/cpuN hold the 22 records, 0600" "$(cat $o.err $o.all)"

rm -rf /tmp/klog-sample.d
mkdir /tmp/klog-sample.d
echo keep > /tmp/klog-sample.victim
ln -s /tmp/klog-sample.victim /tmp/klog-sample.d/cpu0
timeout 60 "$PROG" -o /tmp/klog-sample.d > $o 2> $o.err
st=$?
[ $st = 1 ] && [ "$(cat /tmp/klog-sample.victim)" = keep ] &&
	grep -qx 'klog-sample: /tmp/klog-sample.d/cpu0: File exists' $o.err &&
	[ "$(cat $DIR/enabled)" = 0 ]
tap $? "-o DIR: a planted symlink is refused, not followed" "exit $st: $(cat $o.err)"

# the second reader is the first's COMMAND
cmd="timeout 60 $PROG > $o.2 2> $o.2.err; echo \$? > $o.2.rc
	insmod $MODS/klog-example.ko && rmmod klog_example"
collect $o
busy="Device or resource busy (another reader has it enabled; if none runs: echo 0 > $DIR/enabled)"
[ "$(cat $o.2.rc)" = 1 ] && [ ! -s $o.2 ] &&
	grep -qx "klog-sample: $DIR/enabled: $busy" $o.2.err &&
	check $o && grep -q '^klog-sample: 0 dropped$' $o.err
tap $? "a second reader is refused; the first gets every record" "$(cat $o.2.rc $o.2.err $o.err)"
cmd="insmod $MODS/klog-example.ko && rmmod klog_example"

rmmod klog_sample_mod
insmod $MODS/klog-sample-mod.ko subbuf_size=4096 n_subbufs=2
echo 1 > $DIR/enabled
echo "count=2000 size=64 kind=text ctx=task cpus=0" > $EMIT &&
	echo "count=20 size=64 kind=text ctx=nmi cpus=0" > $EMIT &&
	echo 0 > $DIR/enabled
tap $? "test_klog: 2000 task and 20 NMI records on CPU 0"
cmd=true
collect $o
tap $? "klog-sample exits 0" "$(cat $o.err)"
lines=$(grep -c 'TKLG' $o)
dropped=$(sed -n 's/^klog-sample: \([0-9]*\) dropped$/\1/p' $o.err)
[ "$dropped" -gt 20 ] && [ $((lines + dropped)) = 2020 ] && [ "$(grep -c . $o)" = "$lines" ]
tap $? "small buffers: lines + dropped == 2020" "lines $lines, dropped $dropped"

# Standard output full: the first sub-buffer finished fails to be
# written, and the reader ends, the module disabled.
rm -f $o.err
"$PROG" > /dev/full 2> $o.err &
pid=$!
recording $o.err
echo "count=200 size=64 kind=text ctx=task cpus=0" > $EMIT
i=0
while kill -0 $pid 2> /dev/null && [ $i -lt 6000 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -INT $pid 2> /dev/null
wait $pid
st=$?
[ $st = 1 ] && grep -qx 'klog-sample: output of cpu[0-9]*: No space left on device' $o.err &&
	[ "$(cat $DIR/enabled)" = 0 ]
tap $? "an output error ends it, the module disabled" "exit $st: $(cat $o.err)"

echo 1 > $DIR/enabled
rmmod klog_sample_mod && [ ! -e $DIR ]
tap $? "unloads while enabled"

[ $fail = 0 ]
