#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kleak finds a planted leak under real load. The kleak collector
# (samples/klog/kleak) records every slab allocation and free through
# kleak-mod and the klog relay handler while a shell loop does file
# system calls on /proc and /tmp, and kleak-test-mod plants a known leak:
# LEAK objects of SIZE bytes from kleak_test_leak(), CACHED objects from
# kleak_test_cache_leak() (a kmem_cache), and BALANCED objects allocated
# and freed at once by kleak_test_balanced(). The report must show
# exactly those leaks, nothing outstanding from kleak_test_balanced(),
# and no lost record (a capture with loss fails: its leak list cannot be
# trusted). A filtered capture (module=, size=) must hold exactly the
# module's allocations of that size, and bad filter input must be refused
# with EINVAL without changing the filter. kmalloc()s above the largest
# kmalloc cache, which 6.12 traces twice, must count once.
#
# KLEAK names the collector (default: kleak in PATH), KLEAK_MODDIR the
# directory of kleak-mod.ko and kleak-test-mod.ko (default /lib/modules;
# modules already loaded are used as they are). klog-mod must be loaded.
# Output is TAP; exit 4 (skip) without the collector or the modules.

KLEAK=${KLEAK:-kleak}
MODDIR=${KLEAK_MODDIR:-/lib/modules}
D=/sys/kernel/debug/kleak
RUN=/sys/kernel/debug/kleak_test/run
T=/tmp/kleak-test
LEAK=37 SIZE=200 BALANCED=50 CACHED=5 CACHE_SIZE=96 BIG=3 BIG_SIZE=20000
. "$(dirname "$0")/klog_lib.sh"	# tap
loaded=

load() { # load MODULE-NAME FILE: insmod unless loaded; remember to unload
	grep -q "^$1 " /proc/modules && return 0
	insmod "$MODDIR/$2" || return 1
	loaded="$1 $loaded"
}

cleanup() {
	for m in $loaded; do rmmod "$m"; done
}

# The row of a report table whose caller is FUNC+...: "FIELD1 FIELD2 ..."
row() { # row REPORT TABLE-TITLE FUNC
	awk -v t="$2" -v f=" $3+" '
		/^$/ { intable = 0 }
		index($0, t) == 1 { intable = 1; next }
		intable && index($0, f) { print; exit }
	' "$1"
}

# A value of the report's "records" line: "lost" or "dropped"
records() { # records REPORT lost|dropped
	awk -v k="$2" '$1 == "records" {
		for (i = 3; i <= NF; i++) {
			w = $i; sub(/[;,]$/, "", w)
			if (k == "lost" && w == "lost") { print $(i - 1); exit }
			if (k == "dropped" && $(i - 1) == "dropped") { print w; exit }
		}
	}' "$1"
}

# capture NAME PLANT ARGS...: record while a shell loop of file system
# calls on /proc and /tmp runs (LOAD_BEFORE iterations, then LOAD_AFTER
# more in the background while PLANT is written to kleak_test/run); the
# loop and the plant are kleak's COMMAND, so they start once kleak
# records, and kleak stops when they are done. The collector's report
# (all rows) goes to $T/NAME.report, stderr to $T/NAME.err, its exit
# status to $T/NAME.rc.
LOAD_BEFORE=20 LOAD_AFTER=40
capture() {
	name=$1 plant=$2
	shift 2
	rm -rf "$T/$name"
	echo "free" > $RUN
	"$KLEAK" -o "$T/$name" -b 1M -n 16 -N 0 "$@" -- sh -c '
		T=$1 RUN=$2 plant=$3
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
		load $4
		load $5 &
		echo "$plant" > "$RUN"
		st=$?
		wait $!
		echo $(($4 + $5)) > "$T/load.iterations"
		exit $st' sh "$T" "$RUN" "$plant" $LOAD_BEFORE $LOAD_AFTER \
		> "$T/$name.report" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
}

if ! command -v "$KLEAK" > /dev/null || [ ! -e /sys/kernel/debug/klog/create ] ||
   { ! grep -q "^kleak_mod " /proc/modules && [ ! -f "$MODDIR/kleak-mod.ko" ]; } ||
   { ! grep -q "^kleak_test_mod " /proc/modules && [ ! -f "$MODDIR/kleak-test-mod.ko" ]; }; then
	echo "1..0 # SKIP needs $KLEAK, klog-mod, kleak-mod.ko and kleak-test-mod.ko"
	exit 4
fi
trap cleanup EXIT
rm -rf "$T"
mkdir -p "$T"
echo "1..15"

load kleak_mod kleak-mod.ko && load kleak_test_mod kleak-test-mod.ko
tap $? "modules load"

# ---- the filter's contract ---------------------------------------------
good="module=kleak_test_mod size=100-300"
echo "$good" > $D/filter
got=$(cat $D/filter)
[ "$got" = "$good" ]
tap $? "filter: a valid filter reads back as written" "read: $got"

bad_ok=0
diag=
for bad in "size=300-100" "module=" "size=" "size=abc" "size=-5" "size=1-2-3" \
	   "bogus=1" "module" "module=a/b" "module=a module=b" "size=1 size=2" \
	   "module=this_module_name_is_much_longer_than_MODULE_NAME_LEN_allows"; do
	err=$( (echo "$bad" > $D/filter) 2>&1 )
	now=$(cat $D/filter)
	case "$err" in
	*"Invalid argument"*) ;;
	*) bad_ok=1; diag="$diag '$bad': '$err';" ;;
	esac
	[ "$now" = "$good" ] || { bad_ok=1; diag="$diag '$bad' changed it to '$now';"; }
done
tap $bad_ok "filter: bad input is refused with EINVAL and changes nothing" $diag

echo none > $D/filter
[ "$(cat $D/filter)" = none ]
tap $? "filter: none clears it"

# ---- an unfiltered capture under load -----------------------------------
capture all "leak=$LEAK size=$SIZE balanced=$BALANCED cached=$CACHED"
rc=$(cat "$T/all.rc")
[ "$rc" = 0 ]
tap $? "all: the collector exits 0" "$(cat "$T/all.err")"

R=$T/all.report
lost=$(records "$R" lost)
dropped=$(records "$R" dropped)
[ "$lost" = 0 ] && [ "$dropped" = 0 ] && ! grep -q LOST "$R"
tap $? "all: no record lost, klog dropped none" "$(grep '^records' "$R")"

allocs=$(awk '$1 == "allocations" { print $2 }' "$R")
iters=$(cat "$T/load.iterations" 2>/dev/null || echo 0)
[ "${allocs:-0}" -gt $((10 * (LEAK + BALANCED + CACHED))) ] && [ "$iters" -gt 0 ]
tap $? "all: recorded real load besides the planted leak" \
	"$allocs allocations, $iters load iterations"

title="Outstanding allocations by caller"
r=$(row "$R" "$title" kleak_test_leak)
set -- $r
[ "$1" = $LEAK ] && [ "$2" = $((LEAK * SIZE)) ] && [ "$4" = $SIZE ] &&
	echo "$r" | grep -q "kleak_test_leak+0x[0-9a-f]*/0x[0-9a-f]* \[kleak_test_mod\]"
tap $? "all: exactly $LEAK outstanding allocations of $SIZE bytes from kleak_test_leak" \
	"row: $r"

r=$(row "$R" "$title" kleak_test_cache_leak)
set -- $r
[ "$1" = $CACHED ] && [ "$2" = $((CACHED * CACHE_SIZE)) ] && [ "$4" = $CACHE_SIZE ]
tap $? "all: exactly $CACHED outstanding kmem_cache objects from kleak_test_cache_leak" \
	"row: $r"

r=$(row "$R" "$title" kleak_test_balanced)
b=$(row "$R" "Allocations by caller" kleak_test_balanced)
set -- $b
[ -z "$r" ] && [ "$1" = $BALANCED ] && [ "$2" = $BALANCED ] && [ "$3" = 0 ]
tap $? "all: kleak_test_balanced allocated and freed $BALANCED, none outstanding" \
	"outstanding row: '$r'" "allocations row: '$b'"

"$KLEAK" -r "$T/all" -N 0 > "$T/all.again" 2> "$T/all.again.err"
st=$?
[ $st = 0 ] && cmp -s "$T/all.report" "$T/all.again"
tap $? "all: kleak -r gives the same report later" \
	"exit $st" "$(diff "$T/all.report" "$T/all.again" | head -n 10)"

# ---- a filtered capture (mmap readers): the module's allocations of SIZE
capture filtered "leak=$LEAK size=$SIZE balanced=$BALANCED cached=$CACHED" \
	-m mmap -F "module=kleak-test-mod size=$SIZE-$SIZE"
rc=$(cat "$T/filtered.rc")
R=$T/filtered.report
[ "$rc" = 0 ] && grep -q "filter: module=kleak_test_mod size=$SIZE-$SIZE" "$R"
tap $? "filtered: the collector exits 0 with the filter set" \
	"$(cat "$T/filtered.err")" "$(head -n 2 "$R")"

lost=$(records "$R" lost)
allocs=$(awk '$1 == "allocations" { print $2 }' "$R")
r=$(row "$R" "Outstanding allocations by caller" kleak_test_leak)
set -- $r
[ "$lost" = 0 ] && [ "$allocs" = $((LEAK + BALANCED)) ] && [ "$1" = $LEAK ] &&
	[ -z "$(row "$R" "Outstanding allocations by caller" kleak_test_cache_leak)" ]
tap $? "filtered: exactly the $((LEAK + BALANCED)) allocations of $SIZE bytes from the module" \
	"lost $lost, allocations $allocs, leak row: $r"

[ "$(cat $D/enabled)" = 0 ] && [ "$(cat $D/filter)" = "module=kleak_test_mod size=$SIZE-$SIZE" ]
tap $? "filtered: the collector leaves kleak-mod disabled, the filter set"

# ---- kmalloc() above the largest kmalloc cache: traced twice in 6.12 ----
capture large "leak=$BIG size=$BIG_SIZE" -F "size=$BIG_SIZE"
R=$T/large.report
lost=$(records "$R" lost)
merged=$(awk '$1 == "note" && /traced twice/ { print $2 }' "$R")
r=$(row "$R" "Outstanding allocations by caller" kleak_test_leak)
a=$(row "$R" "Allocations by caller" kleak_test_leak)
set -- $a
[ "$(cat "$T/large.rc")" = 0 ] && [ "$lost" = 0 ] && [ "${merged:-0}" -ge $BIG ] &&
	[ "$1" = $BIG ] && [ "$3" = $BIG ] && [ "$4" = $((BIG * BIG_SIZE)) ]
tap $? "large: $BIG kmalloc()s of $BIG_SIZE bytes counted once each, from kleak_test_leak" \
	"lost $lost, merged $merged" "allocations row: $a" "outstanding row: $r" \
	"$(cat "$T/large.err")"
echo none > $D/filter

[ $fail = 0 ]
