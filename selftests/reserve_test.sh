#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The relay-apps reserve pair (samples/klog/reserve): reserve-mod writes
# records in place with relay_reserve() and counts, in each sub-buffer's
# header, the bytes reserved and committed; the reserve program takes a
# sub-buffer only once the two are equal, and checks every record.
#
#  - emit N: N task and N hard-IRQ records on every CPU, with each CPU's
#    last task record committed 1 s after its sub-buffer was finished
#    (hold_ms): the program waits for such a sub-buffer, gets exactly
#    N records of each context per CPU, none lost, dropped or bad, and
#    its files hold every byte it took;
#  - with two 1 KiB sub-buffers records are dropped, and each one is
#    accounted for: records + dropped == emitted (the program itself
#    fails if the stream misses more records than the kernel dropped);
#  - read(2) of cpuN returns nothing (and consumes nothing) while a
#    record in the first sub-buffer is being written, then returns it
#    whole;
#  - bad control input fails with its error and changes nothing; the
#    module unloads with a channel;
#  - as a collector run as root: DIR and its files are 0700 and 0600, a
#    symlink planted in DIR is refused (and the channel closed), a
#    second reserve is refused and leaves the first's channel alone, and
#    a size that does not fit is refused.
#
# RESERVE names the program (default: reserve in PATH), RESERVE_MOD_KO
# the module, loaded if needed. Output is TAP; exit 4 (skip) without them.

RESERVE=${RESERVE:-reserve}
KO=${RESERVE_MOD_KO:-/lib/modules/reserve-mod.ko}
DIR=/sys/kernel/debug/reserve
N=3000
. "$(dirname "$0")/klog_lib.sh"	# tap

[ -e $DIR/create ] || insmod "$KO" 2>/dev/null
if ! command -v "$RESERVE" >/dev/null || [ ! -e $DIR/create ]; then
	echo "1..0 # SKIP needs $RESERVE and reserve-mod"
	exit 4
fi
ncpu=$(grep -c ^processor /proc/cpuinfo)
echo "1..15"

# total COLUMN of the program's summary in FILE: 2 records, 3 bytes,
# 4 lost, 5 bad, 6 waited, 7 task, 8 hardirq
total() { awk -v c="$2" '$1 == "total" { print $c }' "$1"; }
# err FILE VALUE: the error of writing VALUE to control FILE, or nothing
err() { (echo "$2" > $DIR/$1) 2>&1 | sed 's/.*: //'; }

out=/tmp/reserve-out sum=/tmp/reserve.sum
rm -rf $out		# reserve makes it, 0700
echo 1000 > $DIR/hold_ms
"$RESERVE" -b 16k -n 64 -o $out -- sh -c "echo $N > $DIR/emit" > $sum 2>&1
tap $? "collector exits 0 (every record intact)" "$(cat $sum)"
[ "$(total $sum 2)" = $((2 * N * ncpu)) ] && [ "$(total $sum 7)" = $((N * ncpu)) ] &&
	[ "$(total $sum 8)" = $((N * ncpu)) ]
tap $? "exactly $N task and $N hard-IRQ records per CPU"
[ "$(total $sum 4)" = 0 ] && [ "$(total $sum 5)" = 0 ] && grep -q '^reserve: 0 dropped$' $sum
tap $? "none lost, bad or dropped"
[ "$(total $sum 6)" -ge 1 ]
tap $? "waited for a sub-buffer finished before its records were committed" \
	"waited $(total $sum 6)"
[ "$(cat $out/cpu* | wc -c)" = "$(total $sum 3)" ]
tap $? "DIR/cpuN hold every byte taken"
[ "$(stat -c %a $out)" = 700 ] && [ "$(stat -c %a $out/cpu* | sort -u)" = 600 ]
tap $? "DIR is 0700, its files 0600" "$(stat -c '%a %n' $out $out/cpu*)"

echo 0 > $DIR/hold_ms
rm -rf $out
"$RESERVE" -b 1k -n 2 -o $out -- sh -c "echo $N > $DIR/emit" > $sum 2>&1
tap $? "small buffers: collector exits 0 (lost <= dropped)" "$(cat $sum)"
dropped=$(sed -n 's/^reserve: \([0-9]*\) dropped.*/\1/p' $sum)
[ -n "$dropped" ] && [ "$dropped" -gt 0 ] &&
	[ $(($(total $sum 2) + dropped)) = $((2 * N * ncpu)) ]
tap $? "small buffers: records + dropped == emitted" \
	"records $(total $sum 2), dropped $dropped, emitted $((2 * N * ncpu))"

rm -rf $out; mkdir $out
echo keep > /tmp/reserve.victim
ln -s /tmp/reserve.victim $out/cpu0
"$RESERVE" -o $out -- true > $sum 2>&1
st=$?
[ $st = 1 ] && [ "$(cat /tmp/reserve.victim)" = keep ] &&
	grep -qx "reserve: $out/cpu0: File exists" $sum && [ "$(cat $DIR/create)" = 0 ]
tap $? "a symlink planted in DIR is refused, not followed" "exit $st: $(cat $sum)"

# the second collector is the first's COMMAND
rm -rf $out $out.2
second="timeout 60 $RESERVE -o $out.2 -- true > $sum.2 2>&1; echo \$? > $sum.2.rc
	echo 10 > $DIR/emit"
"$RESERVE" -o $out -- sh -c "$second" > $sum 2>&1
st=$?
busy="a channel exists: another reserve collects, or one was killed"
busy="Device or resource busy ($busy; then: echo 0 > $DIR/enabled; echo 0 > $DIR/create)"
[ $st = 0 ] && [ "$(cat $sum.2.rc)" = 1 ] &&
	grep -qx "reserve: $DIR/subbuf_size: $busy" $sum.2 &&
	[ "$(total $sum 2)" = $((2 * 10 * ncpu)) ] && [ "$(total $sum 5)" = 0 ]
tap $? "a second collector is refused; the first gets every record" \
	"exit $st: $(cat $sum.2.rc $sum.2 $sum)"

timeout 60 "$RESERVE" -b 17592186044417M -o $out.3 -- true > $sum 2>&1
st=$?
[ $st = 2 ] && grep -qx "reserve: -b '17592186044417M': not a size (a number, with k or M)" $sum &&
	[ ! -e $out.3 ] && [ "$(cat $DIR/create)" = 0 ]
tap $? "a size that does not fit is refused" "exit $st: $(cat $sum)"

# read(2): one record per context and CPU, each task record held 3 s
# after a flush; cpu0's sub-buffer is then 8 + 24 + 32 bytes.
echo 4096 > $DIR/subbuf_size
echo 4 > $DIR/n_subbufs
echo 1 > $DIR/create
echo 1 > $DIR/enabled
echo 3000 > $DIR/hold_ms
echo 1 > $DIR/emit &
i=0
while [ "$(od -An -tu8 $DIR/cpu0.produced | tr -d ' ')" != 1 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
got=$(cat $DIR/cpu0 | wc -c)
[ $i -lt 100 ] && [ "$got" = 0 ] &&
	[ "$(od -An -tu8 $DIR/cpu0.consumed | tr -d ' ')" = 0 ]
tap $? "read(2) stops before a sub-buffer with a record still being written" \
	"read $got bytes, $i tries"
wait
[ "$(cat $DIR/cpu0 | wc -c)" = 64 ]
tap $? "read(2) returns it once committed, whole"
echo 0 > $DIR/hold_ms

[ "$(err subbuf_size 4100)" = "Invalid argument" ] &&
	[ "$(err subbuf_size 8192)" = "Device or resource busy" ] &&
	[ "$(err enabled 2)" = "Invalid argument" ] &&
	[ "$(err emit 0)" = "Invalid argument" ] &&
	[ "$(err create 0)" = "Device or resource busy" ] &&
	[ -z "$(err enabled 0)" ] && [ "$(err emit 1)" = "No such device" ] &&
	[ "$(err create 1)" = "Device or resource busy" ] &&
	[ "$(cat $DIR/subbuf_size)" = 4096 ] && [ "$(cat $DIR/create)" = 1 ]
tap $? "bad control input: its error, nothing changed"

rmmod reserve_mod && [ ! -e $DIR ] && insmod "$KO" && [ "$(cat $DIR/create)" = 0 ]
tap $? "unloads with a channel, and loads again"

[ $fail = 0 ]
