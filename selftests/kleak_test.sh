#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kleak finds a planted leak under real load. klog (tools/klog) collects
# while a shell loop does file system calls on /proc and /tmp, and
# kleak-mod (loaded and unloaded inside the collection) records every
# slab allocation and free through klog; kleak-test-mod plants a known
# leak when loaded: LEAK objects of SIZE bytes from kleak_test_leak(),
# CACHED objects from kleak_test_cache_leak() (a kmem_cache), BALANCED
# objects allocated and freed at once by kleak_test_balanced(). kleak's
# report of the collection must show exactly those leaks, nothing from
# kleak_test_balanced(), and no lost record (a collection with loss
# fails: its leak list cannot be trusted). kmalloc()s above the largest
# kmalloc cache, which 6.12 traces twice, must count once, for their
# caller. A collection with too small buffers must have its loss
# reported, exactly as many records as klog-mod dropped, and one that
# ends with kleak-mod loaded must say that its end is missing.
#
# KLOG and KLEAK name the programs (default: klog and kleak in PATH),
# KLEAK_MODDIR the directory of kleak-mod.ko and kleak-test-mod.ko
# (default /lib/modules). klog-mod must be loaded, kleak-mod and
# kleak-test-mod not. Output is TAP; exit 4 (skip) without the programs,
# klog-mod or the modules.

KLOG=${KLOG:-klog}
KLEAK=${KLEAK:-kleak}
MODDIR=${KLEAK_MODDIR:-/lib/modules}
T=/tmp/kleak-test
LEAK=37 SIZE=200 BALANCED=50 CACHED=5 CACHE_SIZE=96 BIG=3 BIG_SIZE=20000
. "$(dirname "$0")/klog_lib.sh"	# tap

cleanup() {
	for m in kleak_mod kleak_test_mod; do
		grep -q "^$m " /proc/modules && rmmod $m
	done
}

# The outstanding row of the report whose caller is FUNC+...
row() { # row REPORT FUNC
	grep " $2+0x" "$1"
}

# The "records" line's count of lost records
lost() { # lost REPORT
	sed -n 's/^records *[0-9]* kleak records, \([0-9]*\) lost;.*/\1/p' "$1"
}

# collect NAME KLOG-OPTIONS PLANT [END]: klog collects into $T/NAME while
# its command loads kleak-mod, runs LOAD_BEFORE iterations of a file
# system loop, then LOAD_AFTER more in the background while
# kleak-test-mod is loaded with the parameters PLANT, and unloads
# kleak-mod (not if END is "keep"). kleak's report goes to
# $T/NAME.report, its stderr to $T/NAME.err, both exit statuses to
# $T/NAME.rc ("KLOG KLEAK"); kleak-test-mod is unloaded after.
LOAD_BEFORE=5 LOAD_AFTER=10
collect() {
	name=$1 opts=$2 plant=$3 end=${4:-unload}
	rm -rf "$T/$name"
	"$KLOG" -q -o "$T/$name" $opts -- sh -c '
		T=$1 MODDIR=$2 plant=$3 end=$4
		load() { # load N
			i=0
			while [ $i -lt $1 ]; do
				cat /proc/meminfo /proc/self/status /proc/interrupts > /dev/null
				ls -l /proc/self/ /sys/kernel > /dev/null
				stat /proc/cpuinfo /tmp > /dev/null
				echo "$i" > "$T/f.$i"
				mv "$T/f.$i" "$T/g.$i"
				rm -f "$T/g.$i"
				i=$((i + 1))
			done
		}
		insmod "$MODDIR/kleak-mod.ko" || exit 1
		load $5
		load $6 &
		insmod "$MODDIR/kleak-test-mod.ko" $plant
		st=$?
		wait $!
		[ "$end" = keep ] || rmmod kleak_mod
		exit $st' sh "$T" "$MODDIR" "$plant" "$end" $LOAD_BEFORE $LOAD_AFTER \
		2> "$T/$name.klog.err"
	klog_rc=$?
	cleanup
	"$KLEAK" "$T/$name" > "$T/$name.report" 2> "$T/$name.err"
	echo "$klog_rc $?" > "$T/$name.rc"
}

if ! command -v "$KLOG" > /dev/null || ! command -v "$KLEAK" > /dev/null ||
   [ ! -e /sys/kernel/debug/klog/create ] ||
   [ ! -f "$MODDIR/kleak-mod.ko" ] || [ ! -f "$MODDIR/kleak-test-mod.ko" ]; then
	echo "1..0 # SKIP needs $KLOG, $KLEAK, klog-mod, kleak-mod.ko and kleak-test-mod.ko"
	exit 4
fi
trap cleanup EXIT
cleanup
rm -rf "$T"
mkdir -p "$T"
echo "1..11"

# ---- a collection under load ----------------------------------------------
collect all "-b 1M -n 16" "leak=$LEAK size=$SIZE balanced=$BALANCED cached=$CACHED"
R=$T/all.report
[ "$(cat "$T/all.rc")" = "0 0" ]
tap $? "all: klog and kleak exit 0" "exit statuses $(cat "$T/all.rc")" \
	"$(cat "$T/all.klog.err" "$T/all.err")"

[ "$(lost "$R")" = 0 ] && ! grep -q '\*\*\*' "$R" && [ ! -s "$T/all.err" ]
tap $? "all: no record lost, the end record there" "$(head -n 3 "$R")" "$(cat "$T/all.err")"

records=$(sed -n 's/^records *\([0-9]*\) kleak records.*/\1/p' "$R")
[ "${records:-0}" -gt $((20 * (LEAK + BALANCED + CACHED))) ]
tap $? "all: recorded real load besides the planted leak" "$records kleak records"

r=$(row "$R" kleak_test_leak)
set -- $r
[ "$1" = $LEAK ] && [ "$2" = $((LEAK * SIZE)) ] && [ "$4" = $SIZE ] &&
	echo "$r" | grep -q " kleak_test_leak+0x[0-9a-f]*/0x[0-9a-f]* \[kleak_test_mod\]$"
tap $? "all: exactly $LEAK outstanding allocations of $SIZE bytes from kleak_test_leak" \
	"row: $r"

r=$(row "$R" kleak_test_cache_leak)
set -- $r
[ "$1" = $CACHED ] && [ "$2" = $((CACHED * CACHE_SIZE)) ] && [ "$4" = $CACHE_SIZE ]
tap $? "all: exactly $CACHED outstanding kmem_cache objects from kleak_test_cache_leak" \
	"row: $r"

r=$(row "$R" kleak_test_balanced)
[ -z "$r" ] && [ "$(grep -c '\[kleak_test_mod\]$' "$R")" = 2 ]
tap $? "all: nothing outstanding from kleak_test_balanced, no other row of the module" \
	"$(grep '\[kleak_test_mod\]$' "$R")"

"$KLEAK" -r "$T/all" > "$T/all.again" 2>&1
st=$?
[ $st = 0 ] && cmp -s "$R" "$T/all.again"
tap $? "all: kleak -r gives the same report" \
	"exit $st" "$(diff "$R" "$T/all.again" | head -n 10)"

# ---- kmalloc() above the largest kmalloc cache: traced twice in 6.12 ------
collect large "-b 1M -n 16" "leak=$BIG size=$BIG_SIZE"
R=$T/large.report
r=$(row "$R" kleak_test_leak)
set -- $r
[ "$(cat "$T/large.rc")" = "0 0" ] && [ "$(lost "$R")" = 0 ] &&
	[ "$1" = $BIG ] && [ "$2" = $((BIG * BIG_SIZE)) ] &&
	[ "$(grep -c " $BIG_SIZE  " "$R")" = 1 ]
tap $? "large: $BIG kmalloc()s of $BIG_SIZE bytes outstanding once each, for kleak_test_leak" \
	"exit statuses $(cat "$T/large.rc")" "row: $r" "$(grep " $BIG_SIZE  " "$R")" \
	"$(cat "$T/large.err")"

# ---- loss is reported ----------------------------------------------------------
# 8 KiB per CPU cannot hold the 5000 allocations kleak-test-mod makes in
# one go at its load: klog drops records, and kleak says how many.
collect small "-b 4k -n 2" "balanced=5000 size=16"
R=$T/small.report
nlost=$(lost "$R")
[ "$(cat "$T/small.rc")" = "0 0" ] && [ "${nlost:-0}" -gt 0 ] &&
	head -n 1 "$R" | grep -q "^\*\*\* $nlost of [0-9]* kleak records LOST" &&
	grep -qx "kleak: $T/small: $nlost kleak records lost: the leak list may be wrong" \
		"$T/small.err"
tap $? "small buffers: the records lost are reported first, and on stderr" \
	"exit statuses $(cat "$T/small.rc")" "$(head -n 3 "$R")" "$(cat "$T/small.err")"
# kleak's are the only records: its count of records lost is klog-mod's
# count of records dropped
d=$(sed -n 's/^klog: \*\*\* \([0-9]*\) records dropped by the kernel;.*/\1/p' "$T/small.klog.err")
[ -n "$nlost" ] && [ "$nlost" = "$d" ]
tap $? "small buffers: kleak's count of records lost is klog's count of drops" \
	"kleak: $nlost lost, klog: ${d:-no} drops" "$(cat "$T/small.klog.err")"

# ---- kleak-mod still loaded when the collection stops ------------------------
collect keep "-b 1M -n 16" "leak=1" keep
R=$T/keep.report
[ "$(cat "$T/keep.rc")" = "0 0" ] &&
	head -n 1 "$R" | grep -q "^\*\*\* no end record: kleak-mod was still loaded" &&
	grep -q "^kleak: $T/keep: no end record" "$T/keep.err"
tap $? "no end record: kleak says that loss after the last record cannot be seen" \
	"exit statuses $(cat "$T/keep.rc")" "$(head -n 3 "$R")" "$(cat "$T/keep.err")"

[ $fail = 0 ]
