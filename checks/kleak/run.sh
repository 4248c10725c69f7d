#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks of kleak (samples/klog/kleak), the reader of kleak-mod's
# records in a klog collection, on collections synthesized by gen.py: the
# whole report of one with every case the report handles (a planted leak,
# frees on another CPU, frees of unknown objects, large kmalloc()s traced
# twice, an address allocated again without a free, another klog record,
# records lost in a gap and before the end), loss stated (a gap, no end
# record, records before the collection), a global buffer's order, symbol
# addresses hidden or missing, and each bad input an error that names it:
# a record of another version or type, a number twice or after the end, a
# damaged stream, FIFOs and links in place of files, a bad kallsyms line,
# escape bytes in names; options.
# Prints "ok NAME" / "not ok NAME" per check, details of failures on
# stderr as "# ..." lines; exits 1 if any check failed.
#
# Usage: checks/kleak/run.sh      (from anywhere; needs cc, make, python3)

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/kleak-host.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$ROOT/checks/lib.sh"	# ok, not_ok, result, has_line, san_*

# ---- build ----------------------------------------------------------------
# From a copy with the tree's layout, so nothing lands in the tree. The
# checks run kleak and pack built with AddressSanitizer and
# UndefinedBehaviorSanitizer (checks/lib.sh: SAN_CFLAGS); a report fails
# the check that ran it (exit status 86) and "sanitizers" at the end.
tree_copy "$T/src"
out=$(make -s -C "$T/src/samples/klog/kleak" KHDR_INCLUDES="-I$ROOT/include/uapi" \
	CFLAGS="-O1 -g -Werror $SAN_CFLAGS" LDFLAGS="$SAN_CFLAGS" 2>&1)
result build-sanitized $? "$out"
cp -r "$T/src" "$T/o2"
out=$(make -s -B -C "$T/o2/samples/klog/kleak" KHDR_INCLUDES="-I$ROOT/include/uapi" CFLAGS="-O2 -Werror" 2>&1)
result build $? "$out"
# gen.py writes the klog streams with klog-stream's encoder, through pack
out=$(cc -std=gnu11 -Wall -Wextra -Werror -O1 -g $SAN_CFLAGS -I"$ROOT/include/uapi" -I"$ROOT/tools/lib/klog" \
	-I"$ROOT/samples/klog/kleak" \
	-o "$T/pack" "$ROOT/checks/kleak/pack.c" "$ROOT"/tools/lib/klog/klog-stream*.c 2>&1)
result build-pack $? "$out"
export KLEAK_PACK=$T/pack
KLEAK=$T/src/samples/klog/kleak/kleak
[ -x "$KLEAK" ] && [ -x "$KLEAK_PACK" ] || exit 1
san_env "$T/san"
gen() { python3 "$ROOT/checks/kleak/gen.py" "$1" "$T/$1"; }
for k in capture complete noend late global hidden version dup afterend badtype bigsize bigseq bigfail; do
	gen $k
done

# ---- reports ---------------------------------------------------------------
# The whole report of a collection with every case and a loss: the loss
# first, the large kmalloc() (traced twice) counted once, for its real
# caller, the address allocated twice once, nothing of the balanced
# calls, the failed allocations nowhere.
"$KLEAK" "$T/capture" > "$T/capture.out" 2> "$T/capture.err"
st=$?
cat > "$T/capture.want" <<'EOF'
*** 3 of 150 kleak records LOST: a lost free looks like a leak, a lost allocation hides one. Load kleak-mod once klog records, or give klog larger buffers (-b, -n). ***
records      147 kleak records, 3 lost; 1 other klog records skipped
outstanding  39 objects, 27496 bytes requested, 42336 allocated

   objects    bytes_req  bytes_alloc          size  caller
         2        20096        32864      96-20000  getname_flags+0x10/0x100
        37         7400         9472           200  kleak_test_leak+0x10/0x100 [kleak_test_mod]
EOF
[ $st = 0 ] && cmp -s "$T/capture.want" "$T/capture.out"
result report-whole $? "exit $st" "$(diff "$T/capture.want" "$T/capture.out")" "$(cat "$T/capture.err")"
has_line report-loss-on-stderr "$T/capture.err" \
	"kleak: $T/capture: 3 kleak records lost: the leak list may be wrong"
"$KLEAK" -r "$T/capture" > "$T/r.out" 2>/dev/null
same report-r-option "$T/capture.out" "$T/r.out"
# A failed allocation may ask for any size: it is not outstanding.
"$KLEAK" "$T/bigfail" > "$T/bigfail.out" 2>/dev/null
same report-failed-allocation-any-size "$T/capture.out" "$T/bigfail.out"

# Nothing lost: no loss line anywhere, nothing on stderr.
"$KLEAK" "$T/complete" > "$T/complete.out" 2> "$T/complete.err"
st=$?
[ $st = 0 ] && [ ! -s "$T/complete.err" ] && ! grep -q '\*\*\*' "$T/complete.out" &&
	grep -qxF "records      147 kleak records, 0 lost; 1 other klog records skipped" "$T/complete.out"
result report-nothing-lost $? "exit $st" "$(cat "$T/complete.out" "$T/complete.err")"

# A global buffer: one file, records out of number order; the same report.
"$KLEAK" "$T/global" > "$T/global.out" 2>&1
same report-global-buffer "$T/complete.out" "$T/global.out"

# No end record: said first and on stderr, the report still made.
"$KLEAK" "$T/noend" > "$T/noend.out" 2> "$T/noend.err"
st=$?
[ $st = 0 ] && [ "$(head -n 1 "$T/noend.out")" = "*** no end record: kleak-mod was still loaded when the collection stopped, or its last records were lost; records lost after number 145 cannot be counted ***" ] &&
	grep -qxF "kleak: $T/noend: no end record: loss after the last record cannot be seen" "$T/noend.err" &&
	grep -q '^        37         7400 ' "$T/noend.out"
result report-no-end-record $? "exit $st" "$(cat "$T/noend.out" "$T/noend.err")"

# kleak-mod loaded before the collection: its first records are lost.
"$KLEAK" "$T/late" > "$T/late.out" 2>/dev/null
st=$?
[ $st = 0 ] && grep -q '^\*\*\* 5 of 147 kleak records LOST' "$T/late.out" &&
	grep -q '^records      142 kleak records, 5 lost;' "$T/late.out"
result report-records-before-the-collection-lost $? "exit $st" "$(cat "$T/late.out")"

# Symbols hidden (kallsyms read without root) or not saved: addresses.
"$KLEAK" "$T/hidden" > "$T/hidden.out" 2>/dev/null
st=$?
[ $st = 0 ] &&
	grep -qxF "note         DIR/kallsyms has no addresses (not read as root): callers are shown as addresses" "$T/hidden.out" &&
	grep -q '^        37         7400         9472           200  0xffffffffc0001010$' "$T/hidden.out"
result report-hidden-addresses $? "exit $st" "$(cat "$T/hidden.out")"
cp -r "$T/complete" "$T/nosyms"; rm "$T/nosyms/kallsyms"
"$KLEAK" "$T/nosyms" > "$T/nosyms.out" 2>/dev/null
st=$?
[ $st = 0 ] && grep -qxF "note         no DIR/kallsyms: callers are shown as addresses" "$T/nosyms.out" &&
	grep -q '  0xffffffffc0001010$' "$T/nosyms.out"
result report-no-kallsyms $? "exit $st" "$(cat "$T/nosyms.out")"

# Names from DIR/kallsyms reach the terminal escaped.
cp -r "$T/complete" "$T/esc"
sed -i 's/ kleak_test_leak\t\[kleak_test_mod\]/ evil\x1b[2Jname\t[mod\x07]/' "$T/esc/kallsyms"
"$KLEAK" "$T/esc" > "$T/esc.out" 2>&1
st=$?
[ $st = 0 ] && ! grep -q $'[\x1b\x07]' "$T/esc.out" &&
	grep -qF '  evil\x1b[2Jname+0x10/0x0 [mod\x07]' "$T/esc.out"
result report-names-escaped $? "exit $st" "$(cat -v "$T/esc.out")"

# ---- bad input: exit 1, a message naming what is wrong ----------------------
# bad NAME DIR MESSAGE: kleak DIR exits 1 with the stderr line MESSAGE
# (the timeout only ends a kleak that would hang)
bad() { expect_line "$1" 1 "$3" kleak_out "$2"; }
kleak_out() { timeout 60 "$KLEAK" "$1" > "$T/bad.out"; }
bad bad-version "$T/version" "kleak: $T/version/cpu1: a kleak record of version 1; this kleak reads version 2"
bad bad-number-twice "$T/dup" "kleak: $T/dup: two kleak records numbered 59 (kleak-mod loaded twice in one collection?)"
bad bad-record-after-end "$T/afterend" "kleak: $T/afterend: kleak records numbered after the end record 149"
bad bad-type "$T/badtype" "kleak: $T/badtype: kleak record 41 has an unknown type 9"
bad bad-size "$T/bigsize" "kleak: $T/bigsize: kleak record 43: a number above 2^62 or a size above 4 GiB (18446744073709551615, 256 bytes)"
bad bad-number "$T/bigseq" "kleak: $T/bigseq: kleak record 18446744073709551615: a number above 2^62 or a size above 4 GiB (0, 0 bytes)"
mkdir "$T/empty"
bad bad-no-cpu-files "$T/empty" "kleak: $T/empty: no cpuN files (klog -o DIR writes them)"
mkdir "$T/other"
printf 'hdr 0\nrec 0 0 0 0 f 414243\n' | "$KLEAK_PACK" > "$T/other/cpu0"
bad bad-no-kleak-records "$T/other" \
	"kleak: $T/other: no kleak records (1 other klog records): was kleak-mod loaded during the collection?"
cp -r "$T/complete" "$T/cut"; truncate -s 2000 "$T/cut/cpu0"
bad bad-stream-cut "$T/cut" \
	"kleak: $T/cut/cpu0: offset 1976: record of 88 bytes does not fit in the 24 bytes left"
cp -r "$T/complete" "$T/fifo"; rm "$T/fifo/cpu0"; mkfifo "$T/fifo/cpu0"
bad bad-cpu-fifo "$T/fifo" "kleak: $T/fifo/cpu0: not a regular file (a FIFO)"
cp -r "$T/complete" "$T/link"; rm "$T/link/cpu1"; ln -s "$T/complete/cpu1" "$T/link/cpu1"
bad bad-cpu-link "$T/link" "kleak: $T/link/cpu1: open: is a symbolic link (not followed)"
# A bad DIR/kallsyms: said, and the report made with addresses
for kind in fifo link line; do
	rm -rf "$T/ks"; cp -r "$T/complete" "$T/ks"; rm "$T/ks/kallsyms"
	case $kind in
	fifo) mkfifo "$T/ks/kallsyms"; msg=": not a regular file" ;;
	link) ln -s /dev/zero "$T/ks/kallsyms"; msg=": open: Too many levels of symbolic links" ;;
	line) printf 'ffffffff81000000 T _stext\nnonsense\n' > "$T/ks/kallsyms"
	      msg=":2: no hexadecimal address of at most 16 digits, then a space" ;;
	esac
	bad "bad-kallsyms-$kind" "$T/ks" "kleak: $T/ks/kallsyms$msg; callers are shown as addresses"
	grep -q '^        37         7400         9472           200  0xffffffffc0001010$' "$T/bad.out"
	result "bad-kallsyms-$kind-report-made" $? "$(cat "$T/bad.out")"
done

# ---- options -------------------------------------------------------------------
"$KLEAK" --help > "$T/help" 2>&1
st=$?
[ $st = 0 ] && grep -q "^Example" "$T/help" && grep -q "^  kleak /tmp/kl$" "$T/help"
result help-with-example $? "exit $st"
for u in none:"" bad-option:"-z" extra:"$T/capture extra" two-dirs:"-r $T/capture -r $T/capture" \
	 r-no-dir:"-r"; do
	expect "usage-error-exit-2:${u%%:*}" 2 "Try 'kleak --help'" "$KLEAK" ${u#*:}
done

# ---- no sanitizer report from any check above -----------------------------
san_result sanitizers "$T/san"

exit $FAILED
