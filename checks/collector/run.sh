#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks of the klog collector (tools/klog) that need no
# klog kernel: the decoder and text output (klog -r on synthesized
# streams, in stream version 2 with DIR/sites and in version 1; task
# names from COMM records, unknown site ids), its refusal of corrupt
# streams and of bad DIR/sites lines, option errors, and a whole
# collection run in both modes against a fake debugfs directory of
# regular files (stream_test fake). Prints "ok NAME" / "not ok NAME" per
# check, details of failures on stderr as "# ..." lines; exits 1 if any
# check failed.
#
# Usage: checks/collector/run.sh      (from anywhere; needs cc, make,
#        babeltrace2 and python3-bt2 for the export checks, xmllint
#        (libxml2-utils) and chromium for --plot's)

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/klog-collector.XXXXXX)
trap 'rm -rf "$T"' EXIT
UAPI=-I$ROOT/include/uapi
. "$ROOT/checks/lib.sh"	# ok, not_ok, result, same, has, bg_signal, san_*

# values DIR FILE...: the contents of the files, space-separated
values() {
	local dir=$1 out= f
	shift
	for f; do out="$out${out:+ }$(cat "$dir/$f")"; done
	echo "$out"
}

# fake NAME [MODE]: a new fake channel $T/fake-NAME (stream_test fake in
# MODE, read unless given) and no $T/out-NAME
fake() { rm -rf "$T/fake-$1" "$T/out-$1"; "$ST" fake "${2:-read}" "$T/fake-$1"; }
# differ DIR [PREFIX]: " cpuN" for each of DIR/cpu0-2 that is not
# PREFIXN ($T/gen/cpuN unless given)
differ() {
	local c
	for c in 0 1 2; do cmp -s "${2:-$T/gen/cpu}$c" "$1/cpu$c" || printf ' cpu%s' $c; done
}
# all_in FLAGS FILE PATTERN...: grep -qFLAGS finds each PATTERN in FILE
all_in() {
	local flags=$1 f=$2 p
	shift 2
	for p; do grep -q"$flags" -- "$p" "$f" || return 1; done
}
# exports DIR COLL ARGS...: klog -r COLL ARGS as text (DIR/report.txt,
# DIR/report.err), JSON (DIR/report.json) and CTF (DIR/ctf, its stderr
# DIR/ctf.err); the CTF export's exit status
exports() {
	local d=$1 c=$2
	shift 2
	"$KLOG" -r "$c" "$@" > "$d/report.txt" 2> "$d/report.err"
	"$KLOG" -r "$c" "$@" --json > "$d/report.json" 2> /dev/null
	"$KLOG" -r "$c" "$@" --ctf "$d/ctf" 2> "$d/ctf.err"
}
# export_checks PREFIX SCRIPT ARGS...: checks/export/SCRIPT ARGS, its
# checks named PREFIX-...; a failure without a "not ok" line is one too
export_checks() {
	local prefix=$1 script=$2 st
	shift 2
	/usr/bin/python3 "$ROOT/checks/export/$script" "$@" > "$T/export.out"
	st=$?
	sed 's/^\(not ok\|ok\) /\1 '"$prefix"'-/' "$T/export.out"
	[ $st = 0 ] || grep -q '^not ok' "$T/export.out" ||
		not_ok "$prefix-checks-exit" "$script failed without a not ok line"
	[ $st = 0 ] || FAILED=1
}
# wait_until CONDITION...: until it holds or klog ($kpid) is gone (<= 600 s)
wait_until() {
	local i=0
	until "$@"; do
		kill -0 $kpid 2> /dev/null || return 1
		i=$((i + 1)); [ $i -gt 60000 ] && return 1
		sleep 0.01
	done
}

# ---- build ----------------------------------------------------------------
# Build from a copy with the tree's layout, so nothing lands in the tree.
# The checks run klog and stream_test built with AddressSanitizer and
# UndefinedBehaviorSanitizer (checks/lib.sh: SAN_CFLAGS); a report fails
# the check that ran it (exit status 86) and "sanitizers" at the end. The
# static build (-O2, no sanitizer: they do not link statically) is
# checked to build.
tree_copy "$T/src"
tree_copy "$T/static"
out=$(make -s -j"$(nproc)" -C "$T/src/tools/klog" KHDR_INCLUDES="$UAPI" \
	CFLAGS="-O1 -g -Werror $SAN_CFLAGS" LDFLAGS="$SAN_CFLAGS" 2>&1)
result build-sanitized $? "$out"
out=$(make -s -j"$(nproc)" -C "$T/static/tools/klog" KHDR_INCLUDES="$UAPI" CFLAGS="-O2 -Werror" \
	LDFLAGS=-static 2>&1)
result build-static $? "$out"
# make install, as kernel tools install: prefix and DESTDIR, the program
# 0755 in bin/, the manual page 0644 in share/man/man1/.
out=$(make -s -j"$(nproc)" -C "$T/static/tools/klog" KHDR_INCLUDES="$UAPI" CFLAGS="-O2 -Werror" \
	LDFLAGS=-static prefix=/usr DESTDIR="$T/inst" install 2>&1 &&
	[ "$(stat -c %a "$T/inst/usr/bin/klog")" = 755 ] &&
	[ "$(stat -c %a "$T/inst/usr/share/man/man1/klog.1")" = 644 ] &&
	cmp "$T/inst/usr/share/man/man1/klog.1" "$ROOT/tools/klog/klog.1" &&
	[ "$(find "$T/inst" -type f | wc -l)" = 2 ])
result install $? "$out" "$(find "$T/inst" -printf '%m %p\n' 2>&1)"
out=$(cc -Wall -Wextra -Werror -O1 -g $SAN_CFLAGS $UAPI -I"$ROOT/tools/lib/klog" \
	-o "$T/stream_test" "$ROOT"/checks/collector/stream_*.c \
	"$ROOT"/tools/lib/klog/klog-stream*.c 2>&1)
result build-stream_test $? "$out"
san_env "$T/san"
KLOG=$T/src/tools/klog/klog
# the checks of hostile files name the sanitized build explicitly
KLOG_SAN=$KLOG
if [ ! -x "$KLOG" ] || [ ! -x "$T/stream_test" ]; then
	echo "not ok remaining checks skipped: no binaries"
	exit 1
fi
# The fixtures stream_test makes are left to exit() to free: no leak
# check for them (the decoder's unit tests below keep it).
ST=$T/st
printf '#!/bin/sh\nASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" exec "%s" "$@"\n' \
	"$T/stream_test" > "$ST"
chmod +x "$ST"

# ---- decoder unit tests ---------------------------------------------------
out=$("$T/stream_test" unit 2>&1)
result unit $? "$out"

# ---- report on synthesized streams ----------------------------------------
cat > "$T/expected" <<'EOF'
[1.000000100] cpu0 1 task init_fn:10: hello world
[1.000000200] cpu1 100 task cpu1_fn:1: from cpu1
[1.000000300] cpu0 2 softirq net_rx:20: tab\there \\ bell\x07 nl\nend
[1.000000300] cpu1 101 task tie:2: utf8 \xc3\xa9\r
[1.000000400] cpu2 7 task third:5: third cpu
[1.000000400] cpu2 *** 3 records lost ***
[1.000000500] cpu0 *** 2 records lost ***
[1.000000500] cpu0 3 hardirq irq_fn:30: raw 5 bytes: 01 02 03 ab ff
[1.000000600] cpu1 102 softirq f:3: x\n
[1.000000600] cpu1 *** 1 sub-buffers lost ***
[1.000000700] cpu0 4 nmi nmi_fn:40: cut off [truncated]
[2.500000000] cpu0 0 task late:50: raw 70 bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34 35 36 37 38 39 3a 3b 3c 3d 3e 3f ...
[3.000000000] cpu1 *** 1 records lost ***
[3.000000000] cpu1 105 hardirq after:6: after gap
EOF
"$ST" gen "$T/gen"
"$KLOG" -r "$T/gen" > "$T/report.out" 2> "$T/report.err"
result report-exit $? "exit status $?" "$(cat "$T/report.err")"
same report-text "$T/expected" "$T/report.out"
n=$(wc -l < "$T/report.out")
result report-lines $(( n != 14 )) "14 lines expected, got $n"
has report-summary "$T/report.err" "klog: 10 records from 3 CPUs, 6 lost"
"$KLOG" -r "$T/gen" -q > /dev/null 2> "$T/quiet.err"
has report-quiet-still-shows-loss "$T/quiet.err" "6 lost"

# stream versions 1 (function names in the records, no DIR/sites) and 2
# (no argument records yet): the same collection reads the same
for v in 1 2; do
	"$ST" gen$v "$T/gen$v"
	"$KLOG" -r "$T/gen$v" > "$T/gen$v.out" 2> "$T/gen$v.err"
	result report-v$v-exit $? "$(cat "$T/gen$v.err")"
	same report-v$v-text "$T/expected" "$T/gen$v.out"
	has report-v$v-summary "$T/gen$v.err" "klog: 10 records from 3 CPUs, 6 lost"
	cmp -s "$T/gen/cpu0" "$T/gen$v/cpu0"
	result report-v$v-fixture-differs $(( ! $? )) "gen$v wrote the current version"
done
# a version above the reader's is refused, naming it
cp -r "$T/gen" "$T/genhi"
printf '\x04\x00' | dd of="$T/genhi/cpu0" bs=1 seek=4 conv=notrunc status=none
expect report-version-too-new 1 "sub-buffer header version 4, this klog reads versions 1 to 3" \
	"$KLOG" -r "$T/genhi"

# ---- argument records (klog_printk()'s binary arguments) ---------------
# formatted with DIR/sites' formats, %pS with DIR/kallsyms; a text cut to
# 1023 bytes as the call cuts it; an unknown site or a block that does not
# match its format shown as bytes
"$ST" args "$T/args"
{
	echo '[0.000000100] cpu0 9 task arg_fn:11: n=-5 s=abc'
	echo '[0.000000200] cpu0 9 task sym_fn:12: at mod_fn+0x10/0x40 [gen_mod]|mod_fn [gen_mod]'
	printf '[0.000000300] cpu0 9 task wide_fn:13: %1023s [truncated]\n' ''
	echo '[0.000000400] cpu0 9 task site#99: args 17 bytes: 01 02 08 00 01 fb ff ff ff 05 03 00 03 00 61 62 63'
	echo '[0.000000500] cpu0 9 task arg_fn:11: args 4 bytes: 01 00 08 00'
} > "$T/args.exp"
"$KLOG" -r "$T/args" > "$T/args.out" 2> "$T/args.err"
result args-exit $? "$(cat "$T/args.err")"
same args-text "$T/args.exp" "$T/args.out"
"$KLOG" -r "$T/args" --json > "$T/args.json" 2>&1
has args-json "$T/args.json" '"kind":"text","flags":[],"site":1,"func":"arg_fn","file":"gen.c","line":11,"text":"n=-5 s=abc\n","args":true}'
has args-json-cut "$T/args.json" '"flags":["truncated"],"site":3'
has args-json-bytes "$T/args.json" '"kind":"args","flags":[],"site":1,"func":"arg_fn","file":"gen.c","line":11,"len":4,"data":"01000800"}'
# no DIR/kallsyms: %pS prints the address, as the kernel does without a symbol
cp -r "$T/args" "$T/args-nosyms"
rm "$T/args-nosyms/kallsyms"
"$KLOG" -r "$T/args-nosyms" > "$T/args-nosyms.out" 2>&1
has args-no-kallsyms "$T/args-nosyms.out" 'sym_fn:12: at 0xffffffffc0001010|0xffffffffc0001010'
# a bad DIR/kallsyms: its file and line named, exit 1, the records printed
bad_ksyms() {
	rm -rf "$T/args-bad"
	cp -r "$T/args" "$T/args-bad"
	printf "$3" > "$T/args-bad/kallsyms"
	"$KLOG" -r "$T/args-bad" > "$T/args-bad.out" 2> "$T/args-bad.err"
	st=$?
	[ $st = 1 ] && grep -qxF "klog: $T/args-bad/kallsyms:$2; %pS, %ps and %pB print as addresses" "$T/args-bad.err" &&
		grep -qF 'sym_fn:12: at 0xffffffffc0001010' "$T/args-bad.out"
	result "$1" $? "exit $st (want 1), want: kallsyms:$2" "got: $(cat "$T/args-bad.err")"
}
K='ffffffff81000000 T _text\n'
bad_ksyms kallsyms-bad-address '2: no hexadecimal address of at most 16 digits, then a space' "$K"'xyz T f\n'
bad_ksyms kallsyms-long-address '1: no hexadecimal address of at most 16 digits, then a space' '00000000000000001 T f\n'
bad_ksyms kallsyms-bad-type '2: no symbol type (one printable character) after the address' "$K"'ffffffff81000010 \001 f\n'
bad_ksyms kallsyms-no-name '2: no symbol name' "$K"'ffffffff81000010 T \n'
bad_ksyms kallsyms-bad-module '2: text after the name is not a [MODULE]' "$K"'ffffffff81000010 T f\tmod\n'
bad_ksyms kallsyms-nul '2: a NUL byte' "$K"'ffffffff81000010 T f\000g\n'
bad_ksyms kallsyms-empty ' no symbols' ''
bad_ksyms kallsyms-zero ' every address is 0 (not read as root)' '0000000000000000 T f\n'
ln -sf /proc/kallsyms "$T/args-bad/kallsyms"
expect kallsyms-symlink-refused 1 "kallsyms: open: Too many levels of symbolic links" "$KLOG" -r "$T/args-bad"

# ---- hostile files (issue 27, items 8, 9, 13, 14) ---------------------------
# stream_test hostile: argument blocks that do not match their formats
# exactly show as bytes, never with bytes that were not in the file; a
# string cut at the 1023 bytes a text keeps is the kernel's and prints;
# widths of 8,388,607 (vsnprintf()'s bound) cost no time. Some checks run
# a sanitizer build (KLOG_SAN): without it an out-of-bounds read or an
# overflow may print the right thing by chance.
"$ST" hostile "$T/host"
a1022=$(printf 'a%.0s' $(seq 1022))
sp1023=$(printf '%1023s' '')
hex64=$(printf ' %02x' 1 1 8 0 5 0xdc 5 0xfd 3; printf ' 61%.0s' $(seq 55))
{
	echo '[0.000000100] cpu0 9 task cut_fn:1: args 12 bytes: 01 01 08 00 05 0a 00 03 00 61 61 61'
	echo '[0.000000200] cpu0 9 task int_fn:2: args 14 bytes: 01 02 08 00 01 05 00 00 00 01 06 00 00 00'
	echo '[0.000000300] cpu0 9 task int_fn:2: args 10 bytes: 01 01 08 00 01 05 00 00 00 00'
	echo '[0.000000400] cpu0 9 task raw_fn:3: args 4 bytes: 01 00 08 00'
	echo "[0.000000500] cpu0 9 task edge_fn:4: x$a1022 [truncated]"
	echo "[0.000000600] cpu0 9 task edge_fn:4: args 1030 bytes:$hex64 ..."
	echo '[0.000000700] cpu0 9 task int_fn:2: n=7'
	for i in $(seq 0 199); do
		printf '[0.%09d] cpu0 9 task wide_fn:5: %s [truncated]\n' $((1000 + i)) "$sp1023"
		printf '[0.%09d] cpu0 9 task star_fn:6: 0%s [truncated]\n' $((1000 + i)) "${sp1023:1}"
		# losses are not filtered: cpu1's shows with --cpu 0
		[ $i = 100 ] && echo '[0.000001100] cpu1 *** 2 records lost ***'
	done
} > "$T/host.exp"
timeout 20 "$KLOG_SAN" -r "$T/host" --cpu 0 > "$T/host.out" 2> "$T/host.err"
st=$?
same hostile-args-text "$T/host.exp" "$T/host.out"
result hostile-args-exit $st "exit $st" "$(cat "$T/host.err")"
# the same records in JSON and CTF: the same bytes, no others
timeout 20 "$KLOG_SAN" -r "$T/host" --cpu 0 --json > "$T/host.json" 2> "$T/host.err"
grep -c '"kind":"args"' "$T/host.json" > "$T/host.n"
grep -qF '"func":"cut_fn","file":"h.c","line":1,"len":12,"data":"01010800050a000300616161"}' "$T/host.json" &&
[ "$(cat "$T/host.n")" = 5 ]
result hostile-args-json $? "$(cut -c 1-200 "$T/host.json" | head -n 8)"
# widths: 400 records of 16 widths of 8,388,607 (byte by byte padding
# took minutes; counted, they take milliseconds: the timeout only ends a
# run that would hang)
timeout 120 "$KLOG" -r "$T/host" --cpu 0 > "$T/host.out" 2> /dev/null
st=$?
cmp -s "$T/host.exp" "$T/host.out"
result hostile-widths-fast $(( $? || st )) "exit $st"
# seq and time going back (DIR/cpu1): neither a duplicate seq nor a late
# record takes back a loss reported at its gap (2 lost: seqs 1 and 2, as
# the loss line says); --time rel and delta print an earlier record as a
# negative offset, also across 2^63 ns
"$KLOG_SAN" -r "$T/host" > /dev/null 2> "$T/host.err"
has hostile-dup-seq-not-late "$T/host.err" 'klog: 413 records from 3 CPUs, 2 lost'
"$KLOG_SAN" -r "$T/host" --cpu 1 --time rel > "$T/host.out" 2> "$T/host.err"
same_lines hostile-time-rel-negative "$T/host.out" \
	'[+0.000000000] cpu1 1 task t_fn:7: t' \
	'[+0.000000100] cpu1 *** 2 records lost ***' \
	'[+0.000000100] cpu1 1 task t_fn:7: t' \
	'[+0.000000100] cpu1 1 task t_fn:7: t' \
	'[-0.000000100] cpu1 1 nmi t_fn:7: t' \
	'[+9223372036.854774808] cpu1 1 task t_fn:7: t' \
	'[-0.000001000] cpu1 1 nmi t_fn:7: t'
"$KLOG_SAN" -r "$T/host" --cpu 1 --time delta > "$T/host.out" 2> "$T/host.err"
same_lines hostile-time-delta-2p63 "$T/host.out" \
	'[+0.000000000] cpu1 1 task t_fn:7: t' \
	'[+0.000000100] cpu1 *** 2 records lost ***' \
	'[+0.000000000] cpu1 1 task t_fn:7: t' \
	'[+0.000000000] cpu1 1 task t_fn:7: t' \
	'[-0.000000200] cpu1 1 nmi t_fn:7: t' \
	'[+9223372036.854774908] cpu1 1 task t_fn:7: t' \
	'[-9223372036.854775808] cpu1 1 nmi t_fn:7: t'
# CTF: a timestamp a CTF clock cannot hold (2^63 ns) is refused, exit 1
expect_line hostile-ctf-ts-2p63 1 'klog: cpu1: record seq 4: timestamp 9223372036854775808 ns is past what a CTF clock holds (2^63 - 2 ns)' \
	"$KLOG_SAN" -r "$T/host" --ctf "$T/host-ctf"
# a buffer without records exports as an empty stream
mkdir "$T/host-empty"
cp "$T/host/cpu0" "$T/host/cpu2" "$T/host/sites" "$T/host-empty/"
"$KLOG_SAN" -r "$T/host-empty" --ctf "$T/host-empty/ctf" > /dev/null 2> "$T/host.err"
st=$?
n=$(babeltrace2 "$T/host-empty/ctf" 2>> "$T/host.err" | wc -l)
result hostile-ctf-empty-stream $(( st || n != 407 )) "exit $st, $n events: $(cat "$T/host.err")"
# ... and a clock_start offset past what babeltrace2 takes as an origin
cp -r "$T/args" "$T/host-meta"
printf 'klog-meta 1\nkind collection\nclock_start 0 9223372035.000000000\n' > "$T/host-meta/meta"
expect_line hostile-ctf-offset-past-origin 1 "klog: $T/host-ctf2: DIR/meta's clock_start offset 9223372035.000000000 s is past what a CTF clock's origin holds (9223372034 s)" \
	"$KLOG_SAN" -r "$T/host-meta" --ctf "$T/host-ctf2"
printf 'klog-meta 1\nkind collection\nclock_start 0 9223372034.999999000\n' > "$T/host-meta/meta"
"$KLOG_SAN" -r "$T/host-meta" --ctf "$T/host-ctf3" > /dev/null 2> "$T/host.err"
st=$?
n=$(babeltrace2 --clock-gmt --clock-date "$T/host-ctf3" 2>&1 | grep -c '^\[2262-04-11 23:47:14.999999[0-9]*\]')
result hostile-ctf-offset-max-read $(( st || n != 5 )) "exit $st, $n events read: $(cat "$T/host.err")"
# DIR/meta's numbers: a short clock time (read before its start once),
# times past 2^63 ns; each an error naming the line, exit 1
bad_meta() {	# NAME LINE
	printf 'klog-meta 1\nkind collection\n%s\n' "$2" > "$T/host-meta/meta"
	expect_line "$1" 1 "klog: $T/host-meta/meta:3: not a klog metadata line (version 1): bad value for '${2%% *}'" \
		"$KLOG_SAN" -r "$T/host-meta"
}
bad_meta meta-clock-short-time 'clock_start 5 1.5'
bad_meta meta-clock-real-past-2p63 'clock_start 0 9223372036.854775808'
bad_meta meta-clock-local-past-2p63 'clock_stop 9223372036854775808 1.000000000'
bad_meta meta-start-past-2p63 'start 9223372037.000000000'
bad_meta meta-time-no-fraction 'start 17.'
# DIR/sites of 1,000,000 lines with ids in descending order: read in
# seconds (inserting each line in order took 9 s for 200,000 lines at -O2,
# so this many take about 4 minutes: the timeout ends that, never a
# linear read on a loaded machine)
cp -r "$T/gen" "$T/host-sites"
awk 'BEGIN { for (i = 11000000; i > 10000000; i--)
	printf "%d\tlive\ttext\tm\tf.c\t1\tfn\tx\n", i }' >> "$T/host-sites/sites"
timeout 120 "$KLOG" -r "$T/host-sites" > "$T/host.out" 2> "$T/host.err"
st=$?
cmp -s "$T/expected" "$T/host.out"
result hostile-sites-descending-fast $(( $? || st )) "exit $st: $(cat "$T/host.err")"
# --time wall and the CTF clock agree: one offset, the start pair's, even
# when the stop pair shows local_clock drifting (1 ms in 10 s here: the
# first record, at 1 s, would be 0.1 ms apart)
cp -r "$T/gen" "$T/host-wall"
printf 'klog-meta 1\nkind collection\nclock_start 0 1764545000.000000000\nclock_stop 10000000000 1764545010.001000000\n' > "$T/host-wall/meta"
"$KLOG_SAN" -r "$T/host-wall" --time wall 2> "$T/host.err" | sed -n '1s/\].*/]/p' > "$T/host.out"
"$KLOG_SAN" -r "$T/host-wall" --ctf "$T/host-wall/ctf" 2>> "$T/host.err"
babeltrace2 --clock-gmt --clock-date "$T/host-wall/ctf" 2>> "$T/host.err" | sed -n '1s/\].*/]/p' >> "$T/host.out"
same_lines hostile-wall-equals-ctf "$T/host.out" '[2025-11-30 23:23:21.000000100]' '[2025-11-30 23:23:21.000000100]'

# ---- task names (COMM records) and site ids ----------------------------
"$ST" comm "$T/comm"
"$KLOG" -r "$T/comm" > "$T/comm.out" 2> "$T/comm.err"
result comm-exit $? "$(cat "$T/comm.err")"
same_lines comm-text "$T/comm.out" \
	'[0.000000100] cpu0 init-1 task init_fn:10: first' \
	'[0.000000150] cpu3 kworker/3:1-42 task work_fn:40: on cpu3' \
	'[0.000000200] cpu0 init-1 task init_fn:10: second' \
	'[0.000000300] cpu0 my\x20prog-2 softirq prog_fn:20: spaced' \
	'[0.000000400] cpu0 3 hardirq irq_fn:30: no name' \
	'[0.000000500] cpu0 3 task site#999: unknown' \
	'[0.000000600] cpu0 my\x20prog-2 task prog_fn:20: again' \
	'[0.000000700] cpu0 *** 1 records lost ***' \
	'[0.000000700] cpu0 1 task init_fn:10: unnamed'
# COMM records take no seq and are no records: 8 records, 1 lost
has comm-not-counted "$T/comm.err" "klog: 8 records from 2 CPUs, 1 lost"
"$KLOG" -r "$T/comm" --stat > "$T/comm.stat" 2> /dev/null
all_in xF "$T/comm.stat" '  my prog-2                                 2            11B' \
	'  3                                         2            14B' \
	'  site#999                                  1             7B'
result comm-stat $? "$(cat "$T/comm.stat")"
"$KLOG" -r "$T/comm" --func 'site#*' > "$T/comm.f" 2> /dev/null
grep -qxF '[0.000000500] cpu0 3 task site#999: unknown' "$T/comm.f" && [ "$(wc -l < "$T/comm.f")" = 2 ]
result comm-filter-unknown-site $? "$(cat "$T/comm.f")"
# --comm: task names by pattern; an unnamed task matches none
"$KLOG" -r "$T/comm" --comm 'my *' --comm 'kworker/3:?' > "$T/comm.f" 2> "$T/comm.ferr"
same_lines comm-filter-comm "$T/comm.f" \
	'[0.000000150] cpu3 kworker/3:1-42 task work_fn:40: on cpu3' \
	'[0.000000300] cpu0 my\x20prog-2 softirq prog_fn:20: spaced' \
	'[0.000000600] cpu0 my\x20prog-2 task prog_fn:20: again' \
	'[0.000000700] cpu0 *** 1 records lost ***'
has comm-filter-comm-count "$T/comm.ferr" "klog: 3 of 8 records from 2 CPUs shown, 1 lost"
expect comm-filter-empty-refused 2 "--comm: invalid value '' (expected a task name or fnmatch(3) pattern)" \
	"$KLOG" -r "$T/comm" --comm ''
"$KLOG" -r "$T/comm" --json 2> /dev/null | sed -n 4p > "$T/comm.json"
grep -qF '"pid":2,"comm":"my prog",' "$T/comm.json" &&
grep -qF '"site":102,"func":"prog_fn","file":"gen.c","line":20,' "$T/comm.json"
result comm-json $? "$(cat "$T/comm.json")"
mkdir "$T/cexp"
cp -r "$T/comm" "$T/cexp/coll"
exports "$T/cexp" "$T/cexp/coll"
export_checks comm-export compare.py "$T/cexp"

# ---- DIR/sites read without trust ----------------------------------------
# bad_sites NAME LINE-NUMBER MESSAGE CONTENT: DIR/sites is CONTENT (printf
# format); klog -r says "DIR/sites:LINE: MESSAGE", prints the records with
# site#N and exits 1
bad_sites() {
	rm -rf "$T/bs"
	cp -r "$T/gen" "$T/bs"
	printf "$4" > "$T/bs/sites"
	"$KLOG" -r "$T/bs" > "$T/bs.out" 2> "$T/bs.err"
	local st=$?
	[ $st = 1 ] && grep -qF "klog: $T/bs/sites:$2: $3; its records print as site#N" "$T/bs.err" &&
		grep -qxF '[1.000000100] cpu0 1 task site#101: hello world' "$T/bs.out" &&
		[ "$(wc -l < "$T/bs.out")" = 14 ]
	result "$1" $? "exit $st (want 1), want: sites:$2: $3" "got: $(cat "$T/bs.err")" \
		"$(head -n 2 "$T/bs.out")"
}
H='# klog sites 1 forgotten=0\n'
L='101\tlive\ttext\tgen\tgen.c\t10\tinit_fn\tfmt'
bad_sites sites-empty 0 'empty: no "# klog sites 1" header' ''
bad_sites sites-no-header 1 'not a klog sites file (expected "# klog sites 1 forgotten=N")' "$L\\n"
bad_sites sites-bad-header 1 'bad header (expected "# klog sites 1 forgotten=N")' '# klog sites 1 forgotten=x\n'
bad_sites sites-few-fields 2 'fewer than 8 fields (id state kind module file line func fmt)' "$H"'101\tlive\ttext\n'
bad_sites sites-many-fields 2 'more than 8 fields' "$H$L"'\tx\n'
bad_sites sites-bad-id 3 'the id is not a number from 1 to 4294967295' "$H$L"'\n4294967296\tlive\ttext\tm\tf.c\t1\tfn\t\n'
bad_sites sites-zero-id 2 'the id is not a number from 1 to 4294967295' "$H"'0\tlive\ttext\tm\tf.c\t1\tfn\t\n'
bad_sites sites-bad-state 2 'the state is neither "live" nor "gone"' "$H"'7\tdead\ttext\tm\tf.c\t1\tfn\t\n'
bad_sites sites-bad-kind 2 'the kind is not a lower-case word' "$H"'7\tlive\tTe-xt\tm\tf.c\t1\tfn\t\n'
bad_sites sites-bad-line 2 'the line is not a number' "$H"'7\tlive\ttext\tm\tf.c\t-1\tfn\t\n'
bad_sites sites-bad-escape 2 'an unknown escape (known: \\ \t \n \" \ooo)' "$H"'7\tlive\ttext\tm\tf.c\t1\tf\\q\t\n'
bad_sites sites-control-byte 2 'a control or non-ASCII byte (the kernel escapes them)' "$H"'7\tlive\ttext\tm\tf.c\t1\tf\001\t\n'
bad_sites sites-empty-func 2 'the file or function is empty' "$H"'7\tlive\ttext\tm\tf.c\t1\t\t\n'
bad_sites sites-twice 3 'site 101 listed twice, differently' "$H$L"'\n'"$L"'x\n'
bad_sites sites-cut 2 'the last line has no newline (a cut file?)' "$H$L"
# good_sites NAME CONTENT: with DIR/sites CONTENT (printf format), klog
# -r exits 0 and names the first record's function
good_sites() {
	printf "$2" > "$T/bs/sites"
	"$KLOG" -r "$T/bs" > "$T/bs.out" 2> "$T/bs.err"
	local st=$?
	grep -qxF '[1.000000100] cpu0 1 task init_fn:10: hello world' "$T/bs.out"
	result "$1" $(( $? || st )) "exit $st" "$(cat "$T/bs.err")"
}
# a line repeated exactly (a seq_file read across a table change) is
# taken once; the kernel's header, with the ids it refused (sitectl), is
# read too
good_sites sites-repeated-line "$H$L\n$L\n"
good_sites sites-kernel-header '# klog sites 1 forgotten=0 refused=2\n'"$L\n"
# a later kernel's words: skipped (klog.rst)
good_sites sites-header-later-words '# klog sites 1 forgotten=0 refused=2 later_key=v2\n'"$L\n"
bad_sites sites-bad-refused 1 'bad header (expected "# klog sites 1 forgotten=N")' '# klog sites 1 forgotten=0 refused=-1\n'
# escapes as the kernel writes them, and an unloaded module's site
printf '# klog sites 1 forgotten=3\n101\tgone\ttext\tm\\\\od\tdir/a\\tb.c\t10\tf\\"n\\101\tx\n' > "$T/bs/sites"
"$KLOG" -r "$T/bs" --json 2> "$T/bs.err" | head -n 1 > "$T/bs.out"
grep -qF '"site":101,"func":"f\"nA","file":"dir/a\tb.c","line":10,' "$T/bs.out"
result sites-escapes $? "$(cat "$T/bs.out" "$T/bs.err")"

# ---- report filters, times, --hex, --stat ---------------------------------
"$KLOG" -r "$T/gen" --cpu 0 > "$T/f.out" 2> "$T/f.err"
printf '%s\n' \
	'[1.000000100] cpu0 1 task init_fn:10: hello world' \
	'[1.000000300] cpu0 2 softirq net_rx:20: tab\there \\ bell\x07 nl\nend' \
	'[1.000000400] cpu2 *** 3 records lost ***' \
	'[1.000000500] cpu0 *** 2 records lost ***' \
	'[1.000000500] cpu0 3 hardirq irq_fn:30: raw 5 bytes: 01 02 03 ab ff' \
	'[1.000000600] cpu1 *** 1 sub-buffers lost ***' \
	'[1.000000700] cpu0 4 nmi nmi_fn:40: cut off [truncated]' > "$T/f.exp"
grep '^\[2.5' "$T/report.out" >> "$T/f.exp"
echo '[3.000000000] cpu1 *** 1 records lost ***' >> "$T/f.exp"
same report-filter-cpu "$T/f.exp" "$T/f.out"
has report-filter-count "$T/f.err" "klog: 5 of 10 records from 3 CPUs shown, 6 lost (losses are not filtered)"
"$KLOG" -r "$T/gen" --func 'c*' --func 'th?rd' --ctx task --time rel > "$T/f.out" 2> /dev/null
same_lines report-filter-func-ctx-rel "$T/f.out" \
	'[+0.000000000] cpu1 100 task cpu1_fn:1: from cpu1' \
	'[+0.000000200] cpu2 7 task third:5: third cpu' \
	'[+0.000000200] cpu2 *** 3 records lost ***' \
	'[+0.000000300] cpu0 *** 2 records lost ***' \
	'[+0.000000400] cpu1 *** 1 sub-buffers lost ***' \
	'[+1.999999800] cpu1 *** 1 records lost ***'
"$KLOG" -r "$T/gen" --pid 3-4,105 --since 1.0000005 --until 3 --time delta > "$T/f.out" 2> /dev/null
same_lines report-filter-pid-window-delta "$T/f.out" \
	'[+0.000000000] cpu2 *** 3 records lost ***' \
	'[+0.000000100] cpu0 *** 2 records lost ***' \
	'[+0.000000000] cpu0 3 hardirq irq_fn:30: raw 5 bytes: 01 02 03 ab ff' \
	'[+0.000000100] cpu1 *** 1 sub-buffers lost ***' \
	'[+0.000000100] cpu0 4 nmi nmi_fn:40: cut off [truncated]' \
	'[+1.999999300] cpu1 *** 1 records lost ***' \
	'[+0.000000000] cpu1 105 hardirq after:6: after gap'
"$KLOG" -r "$T/gen" --hex --func late > "$T/f.out" 2> /dev/null
want="[2.500000000] cpu0 0 task late:50: raw 70 bytes:$(for i in $(seq 0 69); do printf ' %02x' $i; done)"
grep -qxF -- "$want" "$T/f.out"
result report-hex-whole-payload $? "want: $want" "got: $(cat "$T/f.out")"
"$KLOG" -r "$T/gen" --stat > "$T/f.out" 2> /dev/null
all_in xF "$T/f.out" '  cpu0                                      5           118B              2' \
	'  cpu2                                      1             9B              3' \
	'  total                                    10           156B              6' \
	'  0                                         1            70B' \
	'  late:50                                   1            70B'
result report-stat $? "$(cat "$T/f.out")"
# sizes: 1.5K style (K = 2^10, one decimal unless exact), --bytes exact
"$KLOG" -r "$T/gen" --stat --bytes > "$T/f.out" 2> /dev/null
grep -qxF '  cpu0                                      5            118              2' "$T/f.out" &&
grep -qxF '  total                                    10            156              6' "$T/f.out"
result report-stat-bytes $? "$(cat "$T/f.out")"
"$KLOG" -r "$T/host" --stat > "$T/f.out" 2> /dev/null
"$KLOG" -r "$T/host" --stat --bytes > "$T/f.bytes" 2> /dev/null
grep -qxF '  total                                   413          34.9K              2' "$T/f.out" &&
grep -qxF '  wide_fn:5                               200          16.4K' "$T/f.out" &&
grep -qxF '  total                                   413          35716              2' "$T/f.bytes" &&
grep -qxF '  wide_fn:5                               200          16800' "$T/f.bytes"
result report-stat-human-sizes $? "$(head -n 5 "$T/f.out" "$T/f.bytes")"
bad=0
for a in '--cpu 4096' '--cpu 2-1' '--cpu 1,' '--pid x' '--ctx irq' '--ctx ,' \
	 '--since 1.5s' '--until -1' '--time noon' '--func ""'; do
	eval "\"\$KLOG\" -r \"\$T/gen\" $a" > /dev/null 2> "$T/f.err"
	st=$?
	if [ $st != 2 ] || ! grep -q "invalid value" "$T/f.err"; then
		echo "# klog -r $a: exit $st, $(cat "$T/f.err")"
		bad=1
	fi
done
result report-filter-bad-values $bad
expect report-options-need-report 2 "--stat is an option of -r/--report: give -r DIR" "$KLOG" --stat

# ---- exports of the synthesized collection (--json, --ctf) ----------------
# compare.py reads the CTF trace with babeltrace2 (program and Python
# bindings) and compares it and the JSON lines with the text report.
mkdir "$T/exp"
cp -r "$T/gen" "$T/exp/coll"
exports "$T/exp" "$T/exp/coll"
result export-ctf-exit $? "$(cat "$T/exp/ctf.err")"
export_checks export compare.py "$T/exp"
mode=$(stat -c %a "$T/exp/ctf" "$T/exp/ctf/metadata" "$T/exp/ctf/stream_0" | tr '\n' ' ')
result export-ctf-private $([ "$mode" = "700 600 600 " ]; echo $?) "modes $mode"
expect export-ctf-refuses-nonempty 1 "klog: $T/exp/ctf: not empty (holds " \
	"$KLOG" -r "$T/exp/coll" --ctf "$T/exp/ctf"
ln -s "$T/exp/elsewhere" "$T/exp/link"
mkdir "$T/exp/elsewhere"
"$KLOG" -r "$T/exp/coll" --ctf "$T/exp/link" 2> "$T/exp/link.err"
st=$?
grep -qF "is a symbolic link" "$T/exp/link.err" && [ -z "$(ls "$T/exp/elsewhere")" ]
result export-ctf-refuses-symlink $(( $? || st != 1 )) "exit $st: $(cat "$T/exp/link.err")"
expect export-needs-report 2 "--json is an option of -r/--report: give -r DIR" "$KLOG" --json

# ---- exact text and numbers in the exports ---------------------------------
# stream_test text: task names, a function and texts in UTF-8 and not (0xff,
# truncated sequences, an overlong, a surrogate, a NUL), C1 and U+2028
# characters, ts, seq and a loss past 2^53, and a DIR/meta naming the host;
# read back with Python's json and babeltrace2: compare.py (the exports
# agree with the report, byte for byte), exact.py (with the generator's
# bytes and numbers; the trace named by its hostname, trace_name the
# directory's). Then from a directory whose name is not UTF-8 and holds a
# control byte, with a hostname that TSDL must escape, and without DIR/meta.
# export_exact PREFIX DIR COLL HOSTNAME TRACE_NAME: DIR/report.* and DIR/ctf
# from the collection COLL, then exact.py and, if COLL is DIR/coll,
# compare.py, their checks named PREFIX-...
export_exact() {
	local st
	exports "$2" "$3"
	st=$?
	grep -qxF 'klog: 7 records from 1 CPUs, 9007199254740993 lost' "$2/ctf.err"
	result "$1-ctf-exit" $(( $? || st )) "exit $st: $(cat "$2/ctf.err")"
	[ "$3" = "$2/coll" ] && export_checks "$1" compare.py "$2"
	export_checks "$1" exact.py "$2" "$4" "$5"
}
mkdir -p "$T/utf/coll" "$T/utf-names"
"$ST" text "$T/utf/coll"
printf 'klog-meta 1\nkind collection\nhostname kbox\n' > "$T/utf/coll/meta"
export_exact utf-export "$T/utf" "$T/utf/coll" kbox coll
cp -r "$T/utf/coll" "$T/utf-names/"$'col\xff\x01x'
printf 'klog-meta 1\nkind collection\nhostname a"b\\c\n' > "$T/utf-names/"$'col\xff\x01x/meta'
export_exact utf-names "$T/utf-names" "$T/utf-names/"$'col\xff\x01x' 'a"b\c' \
	$'col\xef\xbf\xbd\xef\xbf\xbdx'
# no DIR/meta: no hostname in the env, and babeltrace2 names the trace ""
mkdir "$T/utf-nometa"
cp -r "$T/utf/coll" "$T/utf-nometa/coll"
rm "$T/utf-nometa/coll/meta"
export_exact utf-nometa "$T/utf-nometa" "$T/utf-nometa/coll" '' coll

# ---- corrupt streams --------------------------------------------------------
corrupt() {	# NAME KIND EXPECTED-STDOUT-LINES MESSAGE
	"$ST" corrupt "$2" "$T/$2"
	"$KLOG" -r "$T/$2" > "$T/$2.out" 2> "$T/$2.err"
	local st=$? lines
	lines=$(wc -l < "$T/$2.out")
	[ $st -eq 1 ] && [ "$lines" -eq "$3" ] && grep -qF -- "$4" "$T/$2.err"
	result "$1" $? "exit $st (want 1), $lines lines (want $3), want: $4" "got: $(cat "$T/$2.err")"
}
corrupt corrupt-size-odd size13 1 "$T/size13/cpu0: offset 88: bad record size 13 (a record is a multiple of 8 bytes and at least 40)"
corrupt corrupt-size-small size16 1 "$T/size16/cpu0: offset 88: bad record size 16"
corrupt corrupt-size-fit fit 1 "$T/fit/cpu0: offset 88: record of 1024 bytes does not fit in the 40 bytes left"
corrupt corrupt-no-header noheader 0 "$T/noheader/cpu0: offset 0: no sub-buffer header at the start of the stream"
corrupt corrupt-record-size-exact swallow 0 "$T/swallow/cpu0: offset 40: record of 136 bytes for a 40-byte header and 4-byte payload (48 bytes aligned)"
corrupt corrupt-contents hold 1 "$T/hold/cpu0: offset 88: record of 48 bytes for a 40-byte header and 100-byte payload (144 bytes aligned)"
corrupt corrupt-comm-length commlen 1 "$T/commlen/cpu0: offset 88: COMM record with a 15-byte payload (expected 16)"
# item 15: a snapshot starts at the first sub-buffer it covers, not at 0;
# only what was skipped after that is lost
"$ST" snapshot "$T/snap"
"$KLOG" -r "$T/snap" > "$T/snap.out" 2> "$T/snap.err"
st=$?
same_lines snapshot-report-text "$T/snap.out" \
	'[0.000000000] cpu1 *** 1 sub-buffers lost ***' \
	'[1.000000700] cpu0 4 nmi nmi_fn:40: cut off [truncated]' \
	'[2.500000000] cpu0 0 task late:50: raw 70 bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f 10 11 12 13 14 15 16 17 18 19 1a 1b 1c 1d 1e 1f 20 21 22 23 24 25 26 27 28 29 2a 2b 2c 2d 2e 2f 30 31 32 33 34 35 36 37 38 39 3a 3b 3c 3d 3e 3f ...' \
	'[3.000000000] cpu1 105 hardirq after:6: after gap' \
	'[3.000000000] cpu1 *** 1 records lost ***'
has snapshot-report-loss "$T/snap.err" "klog: 3 records from 2 CPUs, 1 lost"
result snapshot-report-exit $st "$(cat "$T/snap.err")"
echo "cpu0 first=x" >> "$T/snap/snapshot"
expect snapshot-marker-checked 1 "klog: $T/snap/snapshot:4: not a klog snapshot marker" \
	"$KLOG" -r "$T/snap"
# numbers that do not fit are refused, not wrapped onto another CPU's line
for bad in 'cpu4294967296 first=0' 'cpu1 first=18446744073709551616' 'cpu4096 first=0'; do
	"$ST" snapshot "$T/snap"
	echo "$bad" >> "$T/snap/snapshot"
	expect "snapshot-marker-overflow-${bad%% *}" 1 "klog: $T/snap/snapshot:4: not a klog snapshot marker" \
		"$KLOG" -r "$T/snap"
done

# a text record longer than klog-mod writes (1023 bytes): its first 1023
# bytes, [truncated], also to --grep (a 256 KiB one took minutes there
# with a pattern that backtracks)
mkdir -m 700 "$T/longtext"
python3 - "$T/gen/cpu0" "$T/longtext/cpu0" <<'PY'
import struct, sys
src = open(sys.argv[1], "rb").read()
n = 256 * 1024
rec = struct.pack("<IIQQIIBBBBHH", 40 + n, n, 1000000000, 0, 1, 0, 0, 0, 0, 0, 0, 0)
open(sys.argv[2], "wb").write(src[:struct.unpack_from("<H", src, 6)[0]] + rec + b"a" * n)
PY
timeout 120 "$KLOG" -r "$T/longtext" --grep 'x|(a|b)*c' > "$T/longtext.out" 2> "$T/longtext.err"
st=$?
timeout 120 "$KLOG" -r "$T/longtext" --grep 'a$' > "$T/longtext.out" 2>> "$T/longtext.err"
[ $st = 0 ] && [ "$(cat "$T/longtext.out")" = "[1.000000000] cpu0 1 task site#0: $(printf '%01023d' 0 | tr 0 a) [truncated]" ]
result report-text-record-cut $? "exit $st" "$(cut -c 1-200 "$T/longtext.out")" "$(cat "$T/longtext.err")"

# header loss counts that add up past what a kernel numbers (they would
# wrap): refused as a damaged file, never reported as small
"$ST" corrupt lostwrap "$T/lostwrap"
expect report-lost-refused 1 "lostwrap/cpu0: offset 88: sub-buffer seq 1: 18446744073709551614 records lost in all, more than a kernel numbers" \
	"$KLOG" -r "$T/lostwrap"

# cpuN entries the report cannot trust: a FIFO (must not hang), a
# directory, an alias with a leading zero
rm -rf "$T/odd"; mkdir "$T/odd"; cp "$T/gen/cpu0" "$T/odd/cpu0"; cp "$T/gen/cpu1" "$T/odd/cpu1"
mkfifo "$T/odd/cpu2"
expect report-fifo-refused 1 "klog: $T/odd/cpu2: not a regular file (a FIFO)" \
	timeout 20 "$KLOG" -r "$T/odd"
rm "$T/odd/cpu2"; mkdir "$T/odd/cpu2"
expect report-directory-refused 1 "klog: $T/odd/cpu2: not a regular file (a directory)" \
	"$KLOG" -r "$T/odd"
rmdir "$T/odd/cpu2"; cp "$T/gen/cpu1" "$T/odd/cpu01"
"$KLOG" -r "$T/odd" > "$T/odd.out" 2> "$T/odd.err"
st=$?
grep -qF "klog: $T/odd/cpu01: not a cpuN name klog writes (N without leading zeros): remove or rename it" "$T/odd.err" &&
	[ ! -s "$T/odd.out" ]
result report-alias-refused $(( st != 1 || $? != 0 )) "exit $st" "$(cat "$T/odd.err")"

# a global buffer: one stream in buffer order, each record names its CPU
"$ST" global "$T/global"
"$KLOG" -r "$T/global" > "$T/global.out" 2> /dev/null
same_lines report-global "$T/global.out" \
	'[0.000000005] cpu2 10 task a:1: from cpu2' \
	'[0.000000004] cpu0 11 task b:2: from cpu0' \
	'[0.000000006] cpu3 12 hardirq check_fn:3: klog_trigger: oops [trigger]'

mkdir "$T/empty"
"$KLOG" -r "$T/empty" > /dev/null 2> "$T/empty.err"
result report-no-files $(( $? != 1 )) "$(cat "$T/empty.err")"

# Files beside the cpuN files, damaged: each an error naming it, exit 1,
# never taken as something they are not.
hostile() {	# NAME: $T/h-NAME, a copy of $T/gen with a DIR/meta of 3 buffers
	rm -rf "$T/h-$1"; cp -r "$T/gen" "$T/h-$1"
	printf 'klog-meta 1\nkind collection\ncpus 3\n' > "$T/h-$1/meta"
}
hostile nocpu; rm "$T/h-nocpu/cpu2"
expect_line report-cpu-file-missing 1 "klog: $T/h-nocpu: DIR/meta says 3 buffers were read, but 2 cpuN files are here: the report lacks the others" \
	"$KLOG" -r "$T/h-nocpu"
hostile meta; : > "$T/h-meta/meta"
expect_line report-meta-empty 1 "klog: $T/h-meta/meta: empty: not a klog metadata file (its first line is \"klog-meta 1\")" \
	"$KLOG" -r "$T/h-meta"
hostile snap; : > "$T/h-snap/snapshot"
expect_line snapshot-marker-empty 1 "klog: $T/h-snap/snapshot: empty: not a klog snapshot marker" \
	"$KLOG" -r "$T/h-snap"
printf 'klog snapshot: 2 x 4096-byte sub-buffers\ncpu0 first=0\0\ncpuX\n' > "$T/h-snap/snapshot"
expect_line snapshot-marker-nul 1 "klog: $T/h-snap/snapshot: a NUL byte: not a klog snapshot marker" \
	"$KLOG" -r "$T/h-snap"
# DIR/meta's "bytes" lines: a cpuN file emptied since the stop (which
# reads as a buffer with no records), cut, or removed is an error naming
# it; the records there still print
hostile_bytes() {	# NAME: as hostile, with $T/gen's files' "bytes" lines
	hostile "$1"
	for c in 0 1 2; do
		echo "bytes cpu$c $(stat -c %s "$T/gen/cpu$c")" >> "$T/h-$1/meta"
	done
}
hostile_bytes whole
"$KLOG" -r "$T/h-whole" > "$T/h-whole.out" 2> "$T/h-whole.err"
st=$?
"$KLOG" -r "$T/gen" > "$T/gen.out" 2> /dev/null
cmp -s "$T/gen.out" "$T/h-whole.out"
result report-bytes-match $(( $? || st )) "exit $st: $(cat "$T/h-whole.err")"
hostile_bytes emptied; : > "$T/h-emptied/cpu1"
expect_line report-file-emptied 1 "klog: $T/h-emptied/cpu1: 0 bytes, but DIR/meta says its collector left $(stat -c %s "$T/gen/cpu1"): the file was cut or changed since" \
	"$KLOG" -r "$T/h-emptied"
hostile_bytes cut; truncate -s 100 "$T/h-cut/cpu0"
expect_line report-file-cut 1 "klog: $T/h-cut/cpu0: 100 bytes, but DIR/meta says its collector left $(stat -c %s "$T/gen/cpu0"): the file was cut or changed since" \
	"$KLOG" -r "$T/h-cut"
hostile_bytes gone; rm "$T/h-gone/cpu2"
expect_line report-file-gone 1 "klog: $T/h-gone/cpu2: missing, but DIR/meta says its collector left $(stat -c %s "$T/gen/cpu2") bytes" \
	"$KLOG" -r "$T/h-gone"
hostile_bytes twice; echo "bytes cpu1 0" >> "$T/h-twice/meta"
expect_line report-bytes-line-twice 1 "klog: $T/h-twice/meta:7: not a klog metadata line (version 1): bad value for 'bytes'" \
	"$KLOG" -r "$T/h-twice"
hostile_bytes zero; echo "bytes cpu01 0" >> "$T/h-zero/meta"
expect_line report-bytes-line-alias 1 "klog: $T/h-zero/meta:7: not a klog metadata line (version 1): bad value for 'bytes'" \
	"$KLOG" -r "$T/h-zero"
# DIR/trigger that cannot be read fails the report, -q or not
hostile trig; mkdir "$T/h-trig/trigger"
expect report-trigger-unreadable 1 "klog: $T/h-trig/trigger: not a regular file (a directory)" \
	"$KLOG" -r "$T/h-trig"
expect report-trigger-unreadable-quiet 1 "klog: $T/h-trig/trigger: not a regular file (a directory)" \
	"$KLOG" -r "$T/h-trig" -q
# DIR/kallsyms naming 200,000 modules loads in time linear in its lines
# (a list searched per line took 20 s for 100,000 here: the timeout ends
# that, never a linear load on a loaded machine)
cp -r "$T/args" "$T/h-mods"
awk 'BEGIN { for (i = 0; i < 200000; i++)
	printf "ffffffffa%07x t f%d\t[m%d]\n", i * 16, i, i }' >> "$T/h-mods/kallsyms"
timeout 60 "$KLOG" -r "$T/h-mods" > "$T/h-mods.out" 2> "$T/h-mods.err"
st=$?
cmp -s "$T/args.exp" "$T/h-mods.out"
result kallsyms-many-modules-fast $(( $? || st )) "exit $st: $(cat "$T/h-mods.err")"

# ---- options ----------------------------------------------------------------
usage() {	# NAME MESSAGE ARGS...: klog ARGS exits 2 saying MESSAGE
	local name=$1 msg=$2
	shift 2
	expect "$name" 2 "$msg" "$KLOG" "$@"
}

usage usage-mode "-m/--mode: invalid value 'foo'" -m foo
usage usage-size-zero "-b/--subbuf-size: invalid value '0'" -b 0
usage usage-size-text "-b/--subbuf-size: invalid value 'abc'" -b abc
usage usage-size-long "--subbuf-size: invalid value '12q'" --subbuf-size=12q
usage usage-n "-n/--n-subbufs: invalid value '-1'" -n -1
usage usage-duration "-t/--duration: invalid value '0'" -t 0
usage usage-duration-huge "-t/--duration: invalid value '2e10' (expected 1e-09 to 1e+09 seconds)" -t 2e10
usage usage-duration-tiny "-t/--duration: invalid value '1e-12' (expected 1e-09 to 1e+09 seconds)" -t 1e-12
usage usage-unknown "unknown option '--bogus'" --bogus
usage usage-missing "option '-b' needs a value" -b
usage usage-extra "unexpected argument 'extra' (only a collection runs a COMMAND)" -r "$T/gen" extra
usage usage-bytes-text-report "--bytes: exact sizes in a collection's summary and -r's --stat: give --stat" \
	-r "$T/gen" --bytes
usage usage-bytes-recorder "--bytes: exact sizes in a collection's summary and -r's --stat, not with -R or -s" \
	-R --bytes
"$KLOG" --help > "$T/help" 2>&1
st=$?
grep -q "klog -b 1048576 -n 8 -o /tmp/out -t 10" "$T/help" &&
	grep -q "klog -r /tmp/out" "$T/help" && grep -q "Exit status" "$T/help"
result help $(( st != 0 || $? != 0 )) "$(cat "$T/help")"

# ---- --plot: records per second as an SVG image -------------------------------
# stream_test plot: 4 CPUs, 10 s (153 bins of 65.536 ms), 7 sites, losses
# of 56 (cpu3) and 1234 (cpu1) records. The SVG is well-formed (xmllint;
# the DIR in its title needs XML escapes), its legend's counts are
# --stat's, each line has a point per bin, the losses are marked with
# their counts; headless Chromium renders it (not blank, the losses' red).
P=$T/plot
mkdir "$P"
"$ST" plot "$P/coll<&>"
"$KLOG_SAN" --plot "$P/a.svg" "$P/coll<&>" 2> "$P/a.err"
st=$?
grep -qxF 'klog: 57589 records from 4 CPUs, 1290 lost' "$P/a.err"
result plot-exit $(( $? || st )) "exit $st: $(cat "$P/a.err")"
xmllint --noout "$P/a.svg" 2> "$P/xml.err"
result plot-xmllint $? "$(cat "$P/xml.err")"
result plot-private $([ "$(stat -c %a "$P/a.svg")" = 600 ]; echo $?) "mode $(stat -c %a "$P/a.svg")"
! grep -qiE '<script|href|url\(' "$P/a.svg"
result plot-self-contained $? "$(grep -iE '<script|href|url\(' "$P/a.svg")"
# legend: name and count per line, as --stat counts them
legend() { sed -n "s/.*<text [^>]*>\([^<]*\)<\/text><text [^>]*text-anchor='end'>\([0-9]*\)<\/text>\$/\1 \2/p" "$1"; }
"$KLOG" -r "$P/coll<&>" --stat 2> /dev/null |
	awk '/^per site/ { s = 1; next } /^  cpu/ { print $1, $2 }
	     s && n++ < 5 { print $2 }' > "$P/stat"
legend "$P/a.svg" | awk '/^cpu/ || /^lost/ { print; next } { print $NF }' > "$P/legend"
printf '%s\n' 'lost (records) 1290' >> "$P/stat"
sort "$P/stat" > "$P/stat.sorted"
sort "$P/legend" > "$P/legend.sorted"
same plot-legend-counts "$P/stat.sorted" "$P/legend.sorted"
legend "$P/a.svg" | sed -n '5,9s/ [0-9]*$//p' > "$P/sites"
same_lines plot-top-sites "$P/sites" blk_mq_start_request:1290 nvme_queue_rq:880 nvme_complete_rq:640 \
	tcp_sendmsg_locked:1410 ext4_writepages_with...:2710
sed -n "s/.*<polyline [^>]*points='\([^']*\)'.*/\1/p" "$P/a.svg" | awk '{ print NF }' |
	sort | uniq -c | sed 's/^ *//' > "$P/points"
echo "9 153" | cmp -s - "$P/points"
result plot-points $? "want 9 lines of 153 points, got (lines points): $(cat "$P/points")"
grep -F '<title>' "$P/a.svg" | grep -F 'lost' > "$P/loss"
same_lines plot-loss-marks "$P/loss" "<g class='loss'><title>56 records lost (buffer cpu3) at 2.504463 s</title>" \
	"<g class='loss'><title>1234 records lost (buffer cpu1) at 6.200028 s</title>"
[ "$(grep -c "<text [^>]*fill='#d62728'>\(56\|1234\)</text></g>\$" "$P/a.svg")" = 2 ]
result plot-loss-labels $? "$(grep -F '#d62728' "$P/a.svg")"
has plot-title-escaped "$P/a.svg" "<title>klog: records per second, $P/coll&#60;&#38;&#62;</title>"
# report filters apply: cpu1 alone; losses are not filtered (both kept);
# 3 records within 2 ns (a global buffer's, of 3 CPUs and 3 sites): one bin
"$KLOG" -r "$P/coll<&>" --plot "$P/cpu1.svg" --cpu 1 2> /dev/null
legend "$P/cpu1.svg" | grep -E '^(cpu|lost)' > "$P/cpu1"
printf '%s\n' 'cpu1 15521' 'lost (records) 1290' | cmp -s - "$P/cpu1" &&
	grep -qF '15521 records (filtered), 1290 lost; 1 CPUs' "$P/cpu1.svg" &&
	[ "$(grep -c "class='loss'" "$P/cpu1.svg")" = 2 ] && xmllint --noout "$P/cpu1.svg"
result plot-filtered $? "$(cat "$P/cpu1")"
"$ST" global "$P/glob"
"$KLOG" --plot "$P/one.svg" "$P/glob" 2> /dev/null && xmllint --noout "$P/one.svg" &&
	sed -n "s/.*<polyline [^>]*points='\([^']*\)'.*/\1/p" "$P/one.svg" | awk '{ print NF }' |
	tr '\n' ' ' | grep -qx '1 1 1 1 1 1 '
result plot-one-bin $? "$(grep -F '<polyline' "$P/one.svg")"
# stream version 1 (names in the records, sites told apart by a hash of
# the name): the same legend as version 2's
"$KLOG" --plot "$P/gen.svg" "$T/gen" 2> /dev/null
"$ST" gen1 "$P/gen1"
"$KLOG" --plot "$P/gen1.svg" "$P/gen1" 2> /dev/null && xmllint --noout "$P/gen1.svg" &&
	[ "$(legend "$P/gen1.svg")" = "$(legend "$P/gen.svg")" ] && [ "$(legend "$P/gen.svg" | wc -l)" = 9 ]
result plot-v1 $? "$(legend "$P/gen1.svg")" "$(legend "$P/gen.svg")"
# names from DIR/sites need XML escapes too
cp -r "$P/coll<&>" "$P/odd"
sed -i 's/\tnvme_queue_rq\t/\tq<\&>"x\t/' "$P/odd/sites"
"$KLOG" --plot "$P/odd.svg" "$P/odd" 2> /dev/null && xmllint --noout "$P/odd.svg" &&
	legend "$P/odd.svg" | grep -qxF 'q&#60;&#38;&#62;&#34;x:880 11398'
result plot-names-escaped $? "$(legend "$P/odd.svg")"
# an existing FILE: refused (and left alone) unless --force; never a link
cp "$P/a.svg" "$P/a.before"
"$KLOG" --plot "$P/a.svg" "$P/coll<&>" 2> "$P/again.err"
st=$?
grep -qxF "klog: $P/a.svg: exists; not replaced without --force" "$P/again.err" &&
	cmp -s "$P/a.svg" "$P/a.before"
result plot-refuses-existing $(( $? || st != 1 )) "exit $st: $(cat "$P/again.err")"
"$KLOG" --plot "$P/a.svg" "$P/coll<&>" --force --cpu 0 2> /dev/null && ! cmp -s "$P/a.svg" "$P/a.before"
result plot-force-replaces $?
ln -s "$P/target" "$P/link.svg"
"$KLOG" --plot "$P/link.svg" "$P/coll<&>" --force 2> "$P/link.err"
st=$?
grep -qF "$P/link.svg: open: is a symbolic link (not followed)" "$P/link.err" && [ ! -e "$P/target" ]
result plot-refuses-symlink $(( $? || st != 1 )) "exit $st: $(cat "$P/link.err")"
# --force replaces a file of this user's only: not one with another hard
# link, nor (run as root) another user's, which would stay theirs to read
cp "$P/a.before" "$P/mine.svg"; ln "$P/mine.svg" "$P/mine2.svg"
expect_line plot-refuses-hard-link 1 "klog: $P/mine.svg: has other hard links: not written; remove it" \
	"$KLOG" --plot "$P/mine.svg" "$P/coll<&>" --force --cpu 0
cmp -s "$P/mine2.svg" "$P/a.before"
result plot-hard-link-untouched $?
if [ "$(id -u)" = 0 ]; then
	cp "$P/a.before" "$P/theirs.svg"; chown nobody "$P/theirs.svg"
	expect_line plot-refuses-other-owner 1 "klog: $P/theirs.svg: owned by uid $(id -u nobody), not by this user: not written; remove it or write elsewhere" \
		"$KLOG" --plot "$P/theirs.svg" "$P/coll<&>" --force --cpu 0
	cmp -s "$P/theirs.svg" "$P/a.before"
	result plot-other-owner-untouched $?
fi
usage plot-one-output "--json, --ctf, --stat, --plot: different outputs, one at a time" \
	--plot "$P/x.svg" "$P/coll<&>" --stat
usage plot-no-time "--hex and --time are for the text report, not --plot" \
	-r "$P/coll<&>" --plot "$P/x.svg" --time rel
usage plot-dir-after-file "unexpected argument '$P/coll' (DIR goes after FILE: --plot $P/x.svg $P/coll)" \
	--plot "$P/x.svg" -q "$P/coll"
cp "$P/a.before" "$P/render.svg"
timeout 120 chromium --headless --no-sandbox --disable-gpu --screenshot="$P/render.png" \
	--window-size=1000,700 "file://$P/render.svg" > "$P/chromium.out" 2>&1
st=$?
png=$(/usr/bin/python3 "$ROOT/checks/collector/png_stats.py" "$P/render.png" 214,39,40 2>&1)
echo "$png" | awk '$1 != "1000x700" || $3 < 50 || $5 < 20 { exit 1 }'
result plot-chromium-renders $(( $? || st )) "exit $st, $png" "$(tail -n 3 "$P/chromium.out")"

# ---- collection against a fake debugfs ------------------------------------
# Regular files stand in for the control files and cpuN; the run must end
# with logging off and the channel destroyed, and save the exact bytes.
# The output directory holds a cpu7 of an earlier run on more CPUs:
# written into with --force, which removes it.
collect() {	# MODE EXTRA-ARGS...
	local mode=$1
	shift
	fake $mode "$mode"
	mkdir "$T/out-$mode"
	echo stale > "$T/out-$mode/cpu7"
	"$KLOG" -d "$T/fake-$mode" -o "$T/out-$mode" --force -b 4096 -n 4 -m "$mode" \
		"$@" > "$T/$mode.out" 2> "$T/$mode.err"
}
for mode in read mmap; do
	collect $mode -t 0.5
	result collect-$mode-exit $? "$(cat "$T/$mode.err")"
	bad=$(differ "$T/out-$mode")
	[ -e "$T/out-$mode/cpu7" ] && bad="$bad cpu7-not-removed"
	result collect-$mode-files $(( ${#bad} != 0 )) "differ:$bad"
	f=$T/fake-$mode
	state=$(values "$f" enabled create subbuf_size n_subbufs flush mode global)
	[ "$state" = "0 0 4096 4 1 no-overwrite 0" ]
	result collect-$mode-control-state $? \
		"enabled create subbuf_size n_subbufs flush mode global = $state," \
		"want 0 0 4096 4 1 no-overwrite 0"
	has collect-$mode-advice "$T/$mode.err" \
		"klog: buffer full: 2 records dropped. Consider using a larger buffer size (-b/-n)."
	has collect-$mode-drops "$T/$mode.err" \
		"*** 6 records dropped by the kernel; 6 of them are marked in the stream ***"
	"$KLOG" -r "$T/out-$mode" > "$T/$mode.report" 2> /dev/null
	same collect-$mode-report "$T/expected" "$T/$mode.report"
done
# "klog record [OPTIONS] -- COMMAND" is klog with a COMMAND: the same
# files, and the COMMAND's exit status
fake rec
"$KLOG" record -d "$T/fake-rec" -o "$T/out-rec" -b 4096 -n 4 -- sh -c 'exit 3' \
	> /dev/null 2> "$T/rec.err"
st=$?
bad=$(differ "$T/out-rec")
result record-subcommand $(( st != 3 || ${#bad} != 0 )) "exit $st (want 3), differ:$bad" \
	"$(cat "$T/rec.err")"
# --max-size: a limit below the first read saves nothing, stops the
# collection and says, per CPU, what was read and not saved; a limit
# above the total changes nothing
fake max
timeout 60 "$KLOG" -d "$T/fake-max" -o "$T/out-max" -b 4096 -n 4 --max-size 100 \
	> /dev/null 2> "$T/max.err"
st=$?
sizes=$(stat -c %s "$T"/out-max/cpu0 "$T"/out-max/cpu1 "$T"/out-max/cpu2 | tr '\n' ' ')
all_in F "$T/max.err" "klog: stopped (--max-size reached) after" \
	"klog: cpu0: 5 records (408 bytes) read after the collection reached --max-size 100 were not saved" \
	"klog: cpu1: 4 records (328 bytes) read after the collection reached --max-size 100 were not saved" \
	"klog: cpu2: 1 records (136 bytes) read after the collection reached --max-size 100 were not saved"
result max-size-stops-and-counts $(( $? || st != 0 )) "exit $st, sizes $sizes" "$(cat "$T/max.err")"
[ "$sizes" = "0 0 0 " ]
result max-size-saves-nothing-beyond $? "sizes $sizes"
fake max
timeout 60 "$KLOG" -d "$T/fake-max" -o "$T/out-max" -b 4096 -n 4 --max-size 1k -t 0.5 -q \
	> /dev/null 2> "$T/max.err"
st=$?
[ -z "$(differ "$T/out-max")" ] && ! grep -q "not saved" "$T/max.err"
result max-size-above-total $(( $? || st != 0 )) "exit $st" "$(cat "$T/max.err")"
expect max-size-bad-value 2 "klog: --max-size: invalid value '0' (expected bytes, 1 to 2^50, with an optional k, M or G suffix)" \
	"$KLOG" --max-size 0
# DIR/meta: written at the start and rewritten at the stop; with the
# module's clock pair, klog -r --time wall maps timestamps to UTC (the
# fake's clock: local 1 s = 2025-11-30 23:23:20 UTC), without one it
# refuses; a corrupt meta is an error naming the line
fake meta
echo "local_clock=1000000000 realtime=1764545000000000000" > "$T/fake-meta/clock"
timeout 60 "$KLOG" -d "$T/fake-meta" -o "$T/out-meta" -b 4096 -n 4 -t 0.3 -q 2> /dev/null
m=$T/out-meta/meta
all_in x "$m" 'klog-meta 1' 'kind collection' 'buffers per-cpu' 'cpus 3' 'subbuf_size 4096' \
	'n_subbufs 4' 'read_mode read' 'stop_reason duration reached' \
	'clock_start 1000000000 1764545000.000000000' 'clock_stop 1000000000 1764545000.000000000' \
	'dropped cpu2 full=0 big=0 nmi=3 nest=0 frozen=0 reentered=0' &&
	all_in E "$m" '^start [0-9]+\.[0-9]{9}$' '^stop [0-9]+\.[0-9]{9}$'
result meta-file $? "$(cat "$m")"
# the stop's "bytes" lines: each cpuN file's size as klog left it
for c in 0 1 2; do echo "bytes cpu$c $(stat -c %s "$T/out-meta/cpu$c")"; done > "$T/meta-bytes.exp"
grep '^bytes ' "$m" | cmp -s - "$T/meta-bytes.exp"
result meta-file-bytes $? "$(grep '^bytes ' "$m")" "want: $(cat "$T/meta-bytes.exp")"
"$KLOG" -r "$T/out-meta" --time wall --cpu 1 > "$T/wall.out" 2> /dev/null
same_lines report-time-wall "$T/wall.out" \
	'[2025-11-30 23:23:20.000000200] cpu1 100 task cpu1_fn:1: from cpu1' \
	'[2025-11-30 23:23:20.000000300] cpu1 101 task tie:2: utf8 \xc3\xa9\r' \
	'[2025-11-30 23:23:20.000000400] cpu2 *** 3 records lost ***' \
	'[2025-11-30 23:23:20.000000500] cpu0 *** 2 records lost ***' \
	'[2025-11-30 23:23:20.000000600] cpu1 102 softirq f:3: x\n' \
	'[2025-11-30 23:23:20.000000600] cpu1 *** 1 sub-buffers lost ***' \
	'[2025-11-30 23:23:22.000000000] cpu1 *** 1 records lost ***' \
	'[2025-11-30 23:23:22.000000000] cpu1 105 hardirq after:6: after gap'
expect report-time-wall-needs-clock 1 "klog: $T/gen: no clock reference for --time wall (no DIR/meta: collected by an older klog)" \
	"$KLOG" -r "$T/gen" --time wall
printf 'klog-meta 1\nkind collection\ncpus many\n' > "$m"
expect meta-corrupt 1 "klog: $m:3: not a klog metadata line (version 1): bad value for 'cpus'" "$KLOG" -r "$T/out-meta"
# each other cause named: a NUL, no value, a line too long, the first line
printf 'klog-meta 1\nkind \0x\n' > "$m"
expect_line meta-why-nul 1 "klog: $m:2: not a klog metadata line (version 1): a NUL byte" "$KLOG" -r "$T/out-meta"
printf 'klog-meta 1\ncpus\n' > "$m"
expect_line meta-why-no-value 1 "klog: $m:2: not a klog metadata line (version 1): no space after its key" "$KLOG" -r "$T/out-meta"
{ echo 'klog-meta 1'; printf 'kind %01030d\n' 0; } > "$m"
expect_line meta-why-long 1 "klog: $m:2: not a klog metadata line (version 1): longer than 1024 bytes" "$KLOG" -r "$T/out-meta"
printf 'klog-meta 2\n' > "$m"
expect_line meta-why-version 1 "klog: $m:1: not a klog metadata line (version 1): the first line is not \"klog-meta 1\"" "$KLOG" -r "$T/out-meta"
# item 12: produced behind consumed (the channel recreated underneath)
# is an error, not a 2^64 backlog; after an overrun only the n_subbufs - 1
# newest sub-buffers are intact
size_t_le() { printf "$(printf '\\%03o' $(( $1 & 255 )) 0 0 0 0 0 0 0)"; }
# back NAME FILE N SECONDS MESSAGE: with N in cpu1.FILE of a fake mmap
# channel, klog -t SECONDS exits 1 saying "cpu1: MESSAGE"
back() {
	fake back mmap
	size_t_le "$3" > "$T/fake-back/cpu1.$2"
	expect "$1" 1 "klog: $T/fake-back/cpu1: $5" timeout 20 "$KLOG" -d "$T/fake-back" \
		-o "$T/out-back" -b 4096 -n 4 -m mmap -t "$4" -q
}

back mmap-produced-behind-consumed consumed 7 5 \
	"3 sub-buffers produced but 7 consumed: the channel was destroyed and created again underneath this collector"
back mmap-overrun-keeps-n-1 produced 6 0.3 \
	"3 sub-buffers overwritten before they were read (produced 6, consumed 0)"

consumed=$(od -An -tu8 "$T/fake-mmap/cpu1.consumed" | tr -d ' ')
result collect-mmap-consumed $(( consumed != 3 )) \
	"cpu1.consumed holds $consumed, want the 3 sub-buffers processed"

collect read -t 0.5 -f
result collect-follow-exit $? "$(cat "$T/read.err")"
same collect-follow-text "$T/expected" "$T/read.out"

for sig in INT TERM HUP; do
	fake sig
	bg_signal $sig "$T/sig.err" "$KLOG" -d "$T/fake-sig" -o "$T/out-sig"
	st=$?
	grep -qF "stopped (SIG$sig)" "$T/sig.err" &&
		cmp -s "$T/gen/cpu1" "$T/out-sig/cpu1"
	result collect-background-sig$sig $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/sig.err")"
done

# ---- the ready line and COMMAND ---------------------------------------------
# The recording line comes after enabled=1, also with -q.
fake rdy
"$KLOG" -d "$T/fake-rdy" -o "$T/out-rdy" -q -- sh -c \
	'cat "$0/enabled" > "$1"; exit 3' "$T/fake-rdy" "$T/rdy.seen" 2> "$T/rdy.err"
st=$?
result command-exit-status $(( st != 3 )) "exit $st, want the command's 3" "$(cat "$T/rdy.err")"
result command-runs-once-enabled $(( $(cat "$T/rdy.seen") != 1 )) \
	"enabled was '$(cat "$T/rdy.seen")' when the command ran"
has command-recording-line-quiet "$T/rdy.err" \
	"klog: recording 3 CPUs into $T/out-rdy/cpu* until sh exits"
bad=$(differ "$T/out-rdy")
result command-files $(( ${#bad} != 0 )) "differ:$bad"
result command-control-state $(( $(values "$T/fake-rdy" enabled create | tr -d ' ') != 00 ))

fake cmd
expect command-stop-reason 0 "klog: stopped (command exited)" \
	"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -- true
"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -- /nonexistent/cmd 2> "$T/cmd.err"
st=$?
grep -qF "klog: /nonexistent/cmd: cannot run it: No such file or directory" "$T/cmd.err" &&
	[ "$(values "$T/fake-cmd" enabled create)" = "0 0" ]
result command-not-found-127 $(( st != 127 || $? != 0 )) "exit $st" "$(cat "$T/cmd.err")"
"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -q sh -c 'kill -KILL $$' 2> "$T/cmd.err"
st=$?
result command-killed-128+9 $(( st != 137 )) "exit $st, want 137" "$(cat "$T/cmd.err")"
# -t ends a COMMAND still running (SIGTERM): as asked, so klog exits 0,
# and says so unless -q; the child has the default SIGINT and SIGPIPE
# even when klog was started with them ignored
"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -t 0.3 -q -- tail -f /dev/null 2> "$T/cmd.err"
st=$?
result command-duration-terminates $(( st != 0 )) "exit $st, want 0" "$(cat "$T/cmd.err")"
expect_line command-duration-exit-0 0 "klog: sleep was still running at the stop and was ended (its exit status 143); klog's is 0: -t ended the collection" \
	"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -t 0.3 -- sleep 100
# --max-size ends it the same way: 0
fake cmax
expect_line command-max-size-exit-0 0 "klog: sleep was still running at the stop and was ended (its exit status 143); klog's is 0: --max-size ended the collection" \
	timeout 60 "$KLOG" -d "$T/fake-cmax" -o "$T/out-cmax" -b 4096 -n 4 --max-size 100 -- sleep 100
# killed by a signal from outside (not from klog), even with a -t still
# to come: 128 + N, as a shell reports it
rm -f "$T/victim.pid"
"$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -q -t 600 -- \
	sh -c 'echo $$ > "$0.tmp" && mv "$0.tmp" "$0" && exec sleep 100' "$T/victim.pid" \
	2> "$T/cmd.err" &
kpid=$!
wait_until [ -s "$T/victim.pid" ]
kill -KILL "$(cat "$T/victim.pid")"
wait $kpid
st=$?
result command-killed-from-outside-137 $(( st != 137 )) "exit $st, want 137" "$(cat "$T/cmd.err")"
bg_signal INT "$T/cmd.err" "$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -- tail -f /dev/null
st=$?
grep -qF "stopped (SIGINT)" "$T/cmd.err"
result command-sigint-passed-on $(( st != 130 || $? != 0 )) "exit $st, want 130" "$(cat "$T/cmd.err")"

(trap '' PIPE INT; "$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -q -- \
	sh -c 'grep -E "^Sig(Ign|Blk)" /proc/self/status' > "$T/cmd.out" 2> "$T/cmd.err")
# SIGHUP SIGINT SIGPIPE SIGTERM SIGCHLD: neither ignored nor blocked
ign=$(awk '$1 == "SigIgn:" { print $2 }' "$T/cmd.out")
blk=$(awk '$1 == "SigBlk:" { print $2 }' "$T/cmd.out")
[ -n "$ign" ] && [ -n "$blk" ] && (( ((0x$ign | 0x$blk) & 0x15003) == 0 ))
result command-clean-signals $? "$(cat "$T/cmd.out" "$T/cmd.err")"
# klog's own SIGINT, SIGTERM, SIGHUP: default again, so that one arriving
# before it blocks them is not lost (after the stop they stay blocked: item 16)
(trap '' INT TERM HUP; "$KLOG" -d "$T/fake-cmd" -o "$T/out-cmd" --force -q -- \
	sh -c 'grep "^SigIgn" /proc/$PPID/status' > "$T/cmd.out" 2> "$T/cmd.err")
ign=$(awk '$1 == "SigIgn:" { print $2 }' "$T/cmd.out")
[ -n "$ign" ] && (( (0x$ign & 0x4003) == 0 ))
result collector-signal-defaults $? "$(cat "$T/cmd.out" "$T/cmd.err")"
usage command-not-with-report "unexpected argument 'ls'" -r "$T/gen" -- ls

# live: FIFOs fed by writer processes in randomly cut chunks for 1 s; the
# saved files must be byte-exact and the follow output in time order
fake live live
# the writers run as klog's COMMAND: klog stops once they are done (and
# have written the stats file its summary reads)
"$KLOG" -d "$T/fake-live" -o "$T/out-live" -b 4096 -f -q -- "$ST" live "$T/fake-live" 1.0 \
	> "$T/live.out" 2> "$T/live.err"
result collect-live-exit $? "$(cat "$T/live.err")"
bad=$(differ "$T/out-live" "$T/fake-live/expect-cpu")
result collect-live-files $(( ${#bad} != 0 )) "differ:$bad"
unordered=$(awk '{ t = substr($1, 2, length($1) - 2); split(t, a, ".")
	v = a[1] * 1e9 + a[2]; if (v < prev) n++; prev = v } END { print n + 0 }' \
	"$T/live.out")
result collect-live-follow-order $(( unordered != 0 )) \
	"$unordered lines out of time order"
"$KLOG" -r "$T/out-live" 2> /dev/null | cmp -s - "$T/live.out"
result collect-live-follow-equals-report $? "follow output differs from klog -r"
# -f before any record: the merge at the stop (and at each tick) writes
# nothing; the output buffer, never used, is nothing to move (it was
# memmove(NULL, NULL, 0), which the sanitizer stopped, above only when a
# tick came before the first record)
fake idle
for c in 0 1 2; do
	: > "$T/fake-idle/cpu$c"
	head -c 8 /dev/zero > "$T/fake-idle/cpu$c.produced"
	head -c 8 /dev/zero > "$T/fake-idle/cpu$c.consumed"
done
sed -i 's/=[0-9]*/=0/g' "$T/fake-idle/stats"; printf 0 > "$T/fake-idle/dropped"
expect follow-before-any-record 0 "klog: stopped (duration reached)" \
	"$KLOG" -d "$T/fake-idle" -o "$T/out-idle" -f -t 0.1

# klog -f | head: a closed stdout ends the collection quietly (item 16).
# The reader of the pipe is gone before klog starts: it closes its end,
# then lets klog run through a FIFO.
fake pipe
mkfifo "$T/pipe-closed"
{ read x < "$T/pipe-closed"
  "$KLOG" -d "$T/fake-pipe" -o "$T/out-pipe" -f -t 20 2> "$T/pipe.err"
  echo $? > "$T/pipe.st"; } | { exec 0<&-; echo > "$T/pipe-closed"; }
st=$(cat "$T/pipe.st")
grep -qF "klog: stopped (standard output closed)" "$T/pipe.err" &&
	! grep -qi "broken pipe" "$T/pipe.err" && cmp -s "$T/gen/cpu1" "$T/out-pipe/cpu1"
result follow-closed-stdout-quiet $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/pipe.err")"

# -g asks the module for one global buffer
fake g
"$KLOG" -d "$T/fake-g" -o "$T/out-g" -t 0.2 -g -q 2> "$T/g.err"
st=$?
state=$(values "$T/fake-g" mode global)
result collect-global-setting $(( st != 0 )) "exit $st" "$(cat "$T/g.err")"
[ "$state" = "no-overwrite 1" ]
result collect-global-state $? "mode global = $state, want no-overwrite 1"

# the stats key reentered= (records that re-entered the write path) is
# a drop cause with a hint and a column; a module without it reads 0
fake re
sed -i 's/^cpu0 \(.*\)$/cpu0 \1 frozen=0 reentered=2/' "$T/fake-re/stats"
"$KLOG" -d "$T/fake-re" -o "$T/out-re" -t 0.2 2> "$T/re.err"
st=$?
grep -qF "klog: re-entered: 2 records dropped (klog calls made from inside klog's own write path" "$T/re.err" &&
	[ "$(awk '$1 == "total" { print $10 }' "$T/re.err")" = 2 ] &&
	[ "$(awk '$1 == "cpu1" { print $10 }' "$T/re.err")" = 0 ]
result collect-reentered-counted $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/re.err")"
grep -q "reenter" "$T/read.err" && ! grep -q "re-entered" "$T/read.err"
result collect-reentered-absent-is-0 $? "$(cat "$T/read.err")"

# kernel counters that disagree with the stream are an error
fake bad
sed -i 's/^cpu0 produced=2 consumed=2 records=5/cpu0 produced=2 consumed=2 records=6/' \
	"$T/fake-bad/stats"
expect collect-count-mismatch 1 "klog: cpu0: the kernel wrote 6 records but $T/out-bad/cpu0 holds 5" \
	"$KLOG" -d "$T/fake-bad" -o "$T/out-bad" -t 0.3 -q

# control file errors name the file, the value and the errno text
fake busy
rm "$T/fake-busy/create" && mkdir "$T/fake-busy/create"
expect collect-control-error 1 "klog: $T/fake-busy/create: write \"0\": Is a directory" \
	"$KLOG" -d "$T/fake-busy" -o "$T/out-busy" -t 0.3
expect collect-no-debugfs 1 "klog: $T/none: No such file or directory" \
	"$KLOG" -d "$T/none" -o "$T/out-none" -t 0.3

# ---- output files: private, never through a planted link -----------------
# (item 10: a user who pre-creates the output directory must not get
# root to truncate or fill a file of their choice, nor read the records)
perm() { stat -c %a "$1"; }
rm -rf "$T/new"
fake perm
expect output-missing-parent 1 "klog: $T/new/sub: mkdir: No such file or directory" \
	"$KLOG" -d "$T/fake-perm" -o "$T/new/sub" -t 0.2 -q

"$KLOG" -d "$T/fake-perm" -o "$T/new" -t 0.2 -q 2> "$T/perm.err"
st=$?
[ $st = 0 ] && [ "$(perm "$T/new")" = 700 ] && [ "$(perm "$T/new/cpu0")" = 600 ] &&
	[ "$(perm "$T/new/cpu2")" = 600 ]
result output-private $? "exit $st; dir $(perm "$T/new"), cpu0 $(perm "$T/new/cpu0")" \
	"$(cat "$T/perm.err")"
chmod 644 "$T/new/cpu1"
"$KLOG" -d "$T/fake-perm" -o "$T/new" --force -t 0.2 -q 2> "$T/perm.err"
result output-existing-made-private $(( $? != 0 )) "cpu1 $(perm "$T/new/cpu1")" \
	"$(cat "$T/perm.err")"
[ "$(perm "$T/new/cpu1")" = 600 ]
result output-existing-mode-600 $? "cpu1 $(perm "$T/new/cpu1")"

# a fake recorder for klog -s
"$ST" fake read "$T/fake-snap"
printf 1 > "$T/fake-snap/create"; printf 1 > "$T/fake-snap/enabled"
printf overwrite > "$T/fake-snap/mode"; printf 4096 > "$T/fake-snap/subbuf_size"
printf 4 > "$T/fake-snap/n_subbufs"

# A trigger's reason is the kernel's text. klog -s saves the trigger
# file's line as DIR/trigger, byte for byte, and gives it escaped to
# DIR/meta (the newline before a forged clock_start here adds no line)
# and to the terminal (no escape sequence reaches it), as klog --status
# does; a line longer than klog reads (255 bytes) overflows nothing. The
# fake's snapshot file is a FIFO answered once klog has written to it.
trig_snap() {	# REASON: klog -s of a fake recorder frozen by REASON
	local d=$T/fake-trig bg
	rm -rf "$d" "$T/trig" "$T/state-trig"; mkdir -m 700 "$d" "$T/state-trig"
	printf 1 > "$d/create"; printf 1 > "$d/enabled"; printf overwrite > "$d/mode"
	printf 0 > "$d/global"; printf 1 > "$d/frozen"
	printf 1024 > "$d/subbuf_size"; printf 2 > "$d/n_subbufs"
	printf 'cpu0 records=0 full=0 big=0 nmi=0 nest=0 frozen=0 reentered=0\n' > "$d/stats"
	printf '# klog sites 1 forgotten=0\n' > "$d/sites"
	head -c 2048 /dev/zero > "$d/cpu0"
	printf 'cpu=0 ts=5 reason=%s\n' "$1" > "$d/trigger"
	mkfifo "$d/snapshot"
	( cat "$d/snapshot" > /dev/null; echo "cpu0 1 5" > "$d/snapshot" ) &
	bg=$!
	KLOG_STATE_DIR=$T/state-trig "$KLOG" -s -d "$d" -o "$T/trig" 2> "$T/trig.err"
	trig_st=$?
	kill $bg 2> /dev/null
	wait $bg 2> /dev/null
}
esc='cpu=0 ts=5 reason=boom\nclock_start 0 1.000000000 \x1b]0;x\x07'
trig_snap "$(printf 'boom\nclock_start 0 1.000000000 \033]0;x\007')"
[ $trig_st = 0 ] && cmp -s "$T/fake-trig/trigger" "$T/trig/trigger" &&
	[ "$(grep -c '^clock_start' "$T/trig/meta")" = 0 ] &&
	grep -qxF "trigger $esc" "$T/trig/meta" &&
	grep -qxF "klog: the recorder was frozen by a trigger: $esc" "$T/trig.err"
result snapshot-trigger-escaped $? "exit $trig_st" "$(cat "$T/trig.err")" "$(cat "$T/trig/meta")"
# a snapshot's DIR/meta has the "bytes" lines of its cpuN files too
for f in "$T/trig"/cpu*; do echo "bytes ${f##*/} $(stat -c %s "$f")"; done | sort > "$T/trig-bytes.exp"
grep '^bytes ' "$T/trig/meta" | sort | cmp -s - "$T/trig-bytes.exp" && [ -s "$T/trig-bytes.exp" ]
result snapshot-meta-bytes $? "$(grep '^bytes ' "$T/trig/meta")" "want: $(cat "$T/trig-bytes.exp")"
"$KLOG" --status -d "$T/fake-trig" > "$T/trig.status" 2>&1
has_line status-trigger-escaped "$T/trig.status" "trigger:   $esc"
trig_snap "$(printf '%0300d' 0)"
[ $trig_st = 0 ] && [ "$(cat "$T/trig/trigger")" = "cpu=0 ts=5 reason=$(printf '%0237d' 0)" ]
result snapshot-trigger-long $? "exit $trig_st" "$(cat "$T/trig.err")"

# refuse_out NAME MESSAGE [ARGS...]: klog -o $T/evil refuses, exit 1,
# $T/victim untouched, the fake channel never created
refuse_out() {
	local name=$1 msg=$2 st
	shift 2
	fake evil
	echo precious > "$T/victim"
	[ $# = 0 ] && set -- -t 0.2
	timeout 20 "$KLOG" -d "$T/fake-evil" -o "$T/evil" -q "$@" 2> "$T/evil.err"
	st=$?
	[ $st = 1 ] && grep -qF -- "$msg" "$T/evil.err" &&
		[ "$(cat "$T/victim")" = precious ] && [ "$(cat "$T/fake-evil/enabled")" != 1 ]
	result "$name" $? "exit $st (want 1), victim '$(cat "$T/victim")', want: $msg" \
		"got: $(cat "$T/evil.err")"
}
rm -rf "$T/evil"; mkdir "$T/evil"; chmod 1777 "$T/evil"
refuse_out output-refuses-world-writable \
	"klog: $T/evil: writable by others (mode 1777): use a directory only you can write to (chmod go-w)"
chmod 775 "$T/evil"
refuse_out output-refuses-group-writable "klog: $T/evil: writable by its group (mode 0775)"
chmod 755 "$T/evil"
if [ "$(id -u)" = 0 ]; then
	chown nobody "$T/evil"
	refuse_out output-refuses-other-owner "klog: $T/evil: owned by uid $(id -u nobody), not by this user"
	chown root "$T/evil"
fi
ln -s "$T/victim" "$T/evil/cpu0"
# a directory that is not empty is refused before anything is opened in
# it; with --force, a planted link or FIFO is still never written through
refuse_out output-refuses-nonempty \
	"klog: $T/evil: not empty (holds cpu0): give -o a new or empty directory, or --force to write into this one, replacing files of the same names"
refuse_out output-refuses-planted-symlink "klog: $T/evil/cpu0: open: is a symbolic link (not followed)" \
	-t 0.2 --force
rm "$T/evil/cpu0"; mkfifo "$T/evil/cpu0"
refuse_out output-refuses-fifo "klog: $T/evil/cpu0: not a regular file; remove it" -t 0.2 --force
rm -rf "$T/evil"; mkdir "$T/evil.real"; ln -s "$T/evil.real" "$T/evil"
refuse_out output-refuses-symlinked-dir "klog: $T/evil: is a symbolic link; give the output directory itself"
rm -rf "$T/evil" "$T/evil.real"; mkdir "$T/evil"; ln -s "$T/victim" "$T/evil/cpu0"
# klog -s removes the cpuN files of an earlier run, a planted link too
# (unlinked, not followed); the fake's snapshot file cannot say where
refuse_out snapshot-removes-planted-symlink "klog: $T/fake-snap/snapshot: write \"1\": No such file or directory" \
	-s --force -d "$T/fake-snap"
[ -f "$T/evil/cpu0" ] && [ ! -L "$T/evil/cpu0" ]
result snapshot-planted-symlink-gone $?
rm -rf "$T/evil"

# ---- a channel left by a killed collector -----------------------------------
# create=1 (and enabled=1): the collector attaches instead of recreating,
# so the records still in the buffers are not discarded.
attach_fake() {	# NAME MODE: fake NAME MODE as a killed collector left it
	local d=$T/fake-$1
	fake "$1" "$2"
	printf 1 > "$d/create"; printf 1 > "$d/enabled"
	printf 4096 > "$d/subbuf_size"; printf 4 > "$d/n_subbufs"
	printf no-overwrite > "$d/mode"; printf 0 > "$d/global"
}
attach_fake att mmap
"$KLOG" -d "$T/fake-att" -o "$T/out-att" -m mmap -t 0.3 -q 2> "$T/att.err"
st=$?
bad=$(differ "$T/out-att")
grep -qF "attaching to the existing channel (4 x 4096-byte sub-buffers per CPU" "$T/att.err"
result collect-attach $(( st != 0 || $? != 0 || ${#bad} != 0 )) "exit $st, differ:$bad" \
	"$(cat "$T/att.err")"
state=$(values "$T/fake-att" enabled create)
[ "$state" = "0 0" ]
result collect-attach-control-state $? "enabled create = $state, want 0 0"

# Resumed: the killed collector's cpu1 was cut mid-write; sub-buffers it
# had saved but not marked consumed come again (mmap) and are skipped.
# Its DIR/meta has no stop lines: the directory is resumed, not refused.
attach_fake res mmap
mkdir "$T/out-res"
head -c $(( $(stat -c %s "$T/gen/cpu1") * 2 / 3 )) "$T/gen/cpu1" > "$T/out-res/cpu1"
printf 'klog-meta 1\nkind collection\ncpus 3\nstart 1764545000.000000000\n' > "$T/out-res/meta"
"$KLOG" -d "$T/fake-res" -o "$T/out-res" -m mmap -t 0.3 -q 2> "$T/res.err"
st=$?
cmp -s "$T/gen/cpu1" "$T/out-res/cpu1"
result collect-resume $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/res.err")"
has collect-resume-report "$T/res.err" "klog: cpu1: resumed $T/out-res/cpu1: "
has collect-resume-none-lost "$T/res.err" "records lost with the killed collector (read, never saved)"
grep -q "cpu1: resumed .* 0 records lost with the killed" "$T/res.err"
result collect-resume-zero-lost $? "$(cat "$T/res.err")"

# A flight recorder is not attached to (nor destroyed).
attach_fake rec read
printf overwrite > "$T/fake-rec/mode"
"$KLOG" -d "$T/fake-rec" -o "$T/out-rec" -t 0.3 2> "$T/rec.err"
st=$?
grep -qF "a flight recorder is running (mode=overwrite)" "$T/rec.err" &&
	[ "$(values "$T/fake-rec" enabled create)" = "1 1" ]
result collect-attach-not-recorder $(( st != 1 || $? != 0 )) "exit $st" "$(cat "$T/rec.err")"

# One collector at a time: the second one - klog, klog -R, klog -s -
# fails, and the first is untouched. A holder of the lock says it has it
# through a FIFO and keeps it until told to let go through another.
fake lock
mkfifo "$T/locked" "$T/unlock"
flock "$T/fake-lock/create" sh -c 'echo > "$0"; read x < "$1"' "$T/locked" "$T/unlock" &
lpid=$!
read x < "$T/locked"
locked() {	# NAME ARGS...: klog ARGS exits 1, the channel's mode untouched
	local name=$1 st
	shift
	"$KLOG" -d "$T/fake-lock" "$@" 2> "$T/lock.err"
	st=$?
	grep -qF "another collector is using the channel" "$T/lock.err" &&
		[ "$(values "$T/fake-lock" mode)" = overwrite ]
	result "$name" $(( st != 1 || $? != 0 )) "exit $st" "$(cat "$T/lock.err")"
}
locked collect-one-at-a-time -o "$T/out-lock" -t 0.3
locked recorder-one-at-a-time -R -b 64k -n 8
locked snapshot-one-at-a-time -s -o "$T/out-lock"
echo > "$T/unlock"
wait $lpid

# A running recorder is not destroyed by klog -R (nor by a collection,
# see collect-attach-not-recorder) unless -x is given.
attach_fake rr read
printf overwrite > "$T/fake-rr/mode"; printf 0 > "$T/fake-rr/frozen"
"$KLOG" -d "$T/fake-rr" -R -b 8192 -n 8 2> "$T/rr.err"
st=$?
grep -qF "a channel exists (mode=overwrite) (a flight recorder, set up by hand, or left by a killed collector); it is left as it is" "$T/rr.err" &&
	[ "$(values "$T/fake-rr" enabled create mode subbuf_size)" = "1 1 overwrite 4096" ]
result recorder-not-replaced $(( st != 1 || $? != 0 )) "exit $st" "$(cat "$T/rr.err")"
"$KLOG" -d "$T/fake-rr" -R -x -b 8192 -n 8 2> "$T/rr.err"
st=$?
[ "$(values "$T/fake-rr" enabled create mode subbuf_size n_subbufs)" = "1 1 overwrite 8192 8" ]
result recorder-replaced-with-x $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/rr.err")"
"$KLOG" -d "$T/fake-rr" -o "$T/out-rr" -x -t 0.2 -q 2> "$T/rr.err"
st=$?
[ "$(values "$T/fake-rr" enabled create mode)" = "0 0 no-overwrite" ]
result collect-replaces-recorder-with-x $(( st != 0 || $? != 0 )) "exit $st" "$(cat "$T/rr.err")"
expect snapshot-needs-a-recorder 1 "klog: $T/fake-rr: no flight recorder is running; start one with klog -R" \
	"$KLOG" -d "$T/fake-rr" -s -o "$T/out-rr"
usage usage-snapshot-replace "-s/--snapshot reads the recorder; it takes no -x/--replace" -s -x

# ---- --sites: QUERY read by the kernel's parser (kernel/klog_query.h) ------
# Where the collector's former copy of the parser disagreed with the
# kernel's: the ids each QUERY lists from a fake sites and control file.
mkdir -p "$T/fake-q"
printf '# klog sites 1 forgotten=0 refused=0\n1\tlive\ttext\tt\tlib/t.c\t259\tstream_fn\ttrigger: %%s\n2\tlive\ttext\tt\tlib/t.c\t162\temit_one\tTKLG %%u\\n\n3\tlive\traw\tt\tlib/t.c\t151\temit_one\t\n4\tgone\ttext\tex\tex/ex.c\t44\ttick\ta!2b\n' > "$T/fake-q/sites"
printf '# file:line [module]function =flags "format" id=N records=N\nlib/t.c:259 [t]stream_fn =p "trigger: %%s" id=1 records=0\nlib/t.c:162 [t]emit_one =_ "TKLG %%u\\n" id=2 records=0\nlib/t.c:151 [t]emit_one =p raw id=3 records=0\n' > "$T/fake-q/control"
sites_q() {	# NAME WANT-IDS QUERY
	local got
	got=$("$KLOG" -d "$T/fake-q" --sites "$3" 2> "$T/q.err" | awk 'NR > 1 { print $1 }' | tr '\n' ' ')
	[ "$got" = "$2" ] && [ ! -s "$T/q.err" ]
	result "$1" $? "--sites '$3': want ids '$2', got '$got'" "$(cat "$T/q.err")"
}
sites_q sites-query-line-upto '3 4 ' 'line -160'
sites_q sites-query-id-upto '1 2 ' 'id -2'
sites_q sites-query-plus '2 ' 'line +162'
sites_q sites-query-star '2 3 ' 'func emit_one*'
sites_q sites-query-star-star '' 'func emit_one**'
sites_q sites-query-nbsp '2 3 ' "$(printf 'func\240emit_one')"
sites_q sites-query-octal '4 ' 'format "\412"'
sites_q sites-query-format '2 ' 'format "TKLG %u\n"'
sites_q sites-query-all '1 2 3 4 ' ''
usage usage-sites-flags '"+p": a QUERY only selects sites (module, file, func, line, format, id); give no flags' \
	-d "$T/fake-q" --sites 'func +p'
usage usage-sites-empty-value 'empty value for "func"' -d "$T/fake-q" --sites 'func ""'
usage usage-sites-two-queries "';' would end the query or start a comment: give one query (-e is repeatable)" \
	-d "$T/fake-q" --sites 'func a; func b'
usage usage-sites-escaped "unknown keyword \"\\001x\" (module, file, func, line, format, id)" \
	-d "$T/fake-q" --sites "$(printf '\001x y')"
# the sites file's names reach the terminal escaped, as klog -r shows them
mkdir -p "$T/fake-qe"
printf '# klog sites 1 forgotten=0 refused=0\n1\tlive\ttext\tm\\033[31m\tf\\007.c\t10\tfn\\033]0;T\tfmt\n' > "$T/fake-qe/sites"
printf '# file:line [module]function =flags "format" id=N records=N\nf.c:10 [m]fn =p "fmt" id=1 records=0\n' > "$T/fake-qe/control"
"$KLOG" -d "$T/fake-qe" --sites '' > "$T/qe.out" 2> "$T/qe.err"
st=$?
[ $st = 0 ] && ! tr -d '\n' < "$T/qe.out" | grep -q '[[:cntrl:]]' &&
	all_in F "$T/qe.out" 'm\x1b[31m' 'f\x07.c:10' 'fn\x1b]0;T'
result sites-list-escaped $? "exit $st" "$(cat -v "$T/qe.out" "$T/qe.err")"
# and whole, however long (a field of the sites file has up to 4096 bytes)
mkdir -p "$T/fake-ql"
long=$(printf '%01100d' 0 | tr 0 f)
printf '# klog sites 1 forgotten=0 refused=0\n1\tlive\ttext\tm%s\td/%s.c\t10\tfn%s\tfmt\n' "$long" "$long" "$long" > "$T/fake-ql/sites"
printf '# file:line [module]function =flags "format" id=N records=N\nd/%s.c:10 [m%s]fn%s =p "fmt" id=1 records=0\n' "$long" "$long" "$long" > "$T/fake-ql/control"
"$KLOG" -d "$T/fake-ql" --sites '' > "$T/ql.out" 2> "$T/ql.err"
st=$?
[ $st = 0 ] && [ "$(awk 'NR == 2 { print $3, $4, $5 }' "$T/ql.out")" = "m$long d/$long.c:10 fn$long" ]
result sites-list-long-names $? "exit $st" "$(cut -c1-200 "$T/ql.out" "$T/ql.err")"


# ---- the default output directory, --force, -r without DIR (issue X.3) ----
# Without -o a collection writes klog.data, created 0700 in the current
# directory, and klog -r without DIR reads it; a second collection
# refuses it (not empty: nothing is opened in it, the channel is not
# created) unless --force. An explicit -o DIR that is not empty is
# refused the same way, and so is a killed collector's directory when
# there is no channel left to resume it into.
in_cwd() { (cd "$T/cwd" && "$@"); }
rm -rf "$T/cwd"; mkdir "$T/cwd"
fake def
(cd "$T/cwd" && "$KLOG" -d "$T/fake-def" -t 0.2 -q 2> "$T/def.err")
st=$?
bad=$(differ "$T/cwd/klog.data")
[ $st = 0 ] && [ -z "$bad" ] && [ "$(ls -A "$T/cwd")" = klog.data ] &&
	[ "$(perm "$T/cwd/klog.data")" = 700 ] && [ "$(perm "$T/cwd/klog.data/meta")" = 600 ] &&
	grep -qxF "klog: recording 3 CPUs into klog.data/cpu* for 0.2 s" "$T/def.err"
result default-dir-created $? "exit $st, differ:$bad; $(ls -A "$T/cwd")" "$(cat "$T/def.err")"
(cd "$T/cwd" && "$KLOG" -r > "$T/def.out" 2> "$T/def.err")
same default-dir-report "$T/expected" "$T/def.out"
(cd "$T/cwd" && "$KLOG" -r --cpu 1 --stat > "$T/def.out" 2> "$T/def.err")
st=$?
# cpu0's row: no record shown, its loss (losses are not filtered)
grep -q '^  cpu1  *4 ' "$T/def.out" && grep -qE '^  cpu0 +0 +0B +2$' "$T/def.out"
result default-dir-report-options-after-r $(( $? || st )) "exit $st" "$(cat "$T/def.out" "$T/def.err")"
rm -rf "$T/fake-def.before"; fake def
cp -r "$T/cwd/klog.data" "$T/def.before"
cp -r "$T/fake-def" "$T/fake-def.before"
(cd "$T/cwd" && "$KLOG" -d "$T/fake-def" -b 4096 -t 0.2 -q 2> "$T/def.err")
st=$?
[ $st = 1 ] &&
	[ "$(cat "$T/def.err")" = "klog: klog.data: not empty (holds cpu0, cpu1, cpu2 and 3 more): give -o a new or empty directory, or --force to write into this one, replacing files of the same names" ] &&
	diff -r "$T/def.before" "$T/cwd/klog.data" > /dev/null &&
	diff -r "$T/fake-def.before" "$T/fake-def" > /dev/null
result default-dir-refused-when-not-empty $? "exit $st (want 1)" "$(cat "$T/def.err")" \
	"control files changed: $(diff -r "$T/fake-def.before" "$T/fake-def" | head -n 5)"
(cd "$T/cwd" && "$KLOG" -d "$T/fake-def" -b 4096 -n 4 -t 0.2 -q --force 2> "$T/def.err")
st=$?
bad=$(differ "$T/cwd/klog.data")
[ $st = 0 ] && [ -z "$bad" ] && grep -qx 'subbuf_size 4096' "$T/cwd/klog.data/meta"
result default-dir-force $? "exit $st, differ:$bad" "$(cat "$T/def.err")"
rm -rf "$T/cwd/klog.data"
expect_all default-dir-report-missing 1 "klog: klog.data: no such directory: -r without DIR reads klog.data, which a collection without -o writes; give -r DIR" \
	in_cwd "$KLOG" -r
# an explicit -o DIR with a file of the user's: refused, the file kept
rm -rf "$T/own"; mkdir -m 700 "$T/own"; echo mine > "$T/own/notes"
fake own
"$KLOG" -d "$T/fake-own" -o "$T/own" -t 0.2 -q 2> "$T/own.err"
st=$?
[ $st = 1 ] && [ "$(cat "$T/own/notes")" = mine ] && [ "$(ls -A "$T/own")" = notes ] &&
	grep -qxF "klog: $T/own: not empty (holds notes): give -o a new or empty directory, or --force to write into this one, replacing files of the same names" "$T/own.err"
result output-dir-not-empty-refused $? "exit $st (want 1)" "$(cat "$T/own.err")"
# a killed collector's directory (DIR/meta without its stop lines) with
# no channel to resume into: refused, saying so
fake own
printf 'klog-meta 1\nkind collection\ncpus 3\nstart 1764545000.000000000\n' > "$T/own/meta"
"$KLOG" -d "$T/fake-own" -o "$T/own" -t 0.2 -q 2> "$T/own.err"
st=$?
[ $st = 1 ] && [ "$(cat "$T/own/notes")" = mine ] &&
	grep -qxF "klog: $T/own: holds a collection that never stopped (its collector was killed?) and no channel is left to resume it into: klog -r $T/own reads it; give -o a new or empty directory, or --force to write into this one" "$T/own.err"
result output-dir-unfinished-no-channel $? "exit $st (want 1)" "$(cat "$T/own.err")"
# klog -s writes klog.data by default too, and refuses it when not empty
mkdir -m 700 "$T/cwd/klog.data" && : > "$T/cwd/klog.data/cpu0"
expect_all snapshot-default-dir-refused 1 "klog: klog.data: not empty (holds cpu0): give -o a new or empty directory, or --force to write into this one, replacing files of the same names" \
	in_cwd "$KLOG" -s -d "$T/fake-snap"

usage usage-report-dir-after-options "unexpected argument '$T/gen' (-r's DIR goes right after it: -r $T/gen)" \
	-r --stat "$T/gen"
usage usage-force-report "-r/--report prints a saved collection; it cannot be combined with --force" \
	-r "$T/gen" --force
usage usage-force-recorder "--force is for a collection's or a snapshot's DIR: -R writes none" \
	-R --force

# ---- sizes in the summary (issue X.2) ---------------------------------------
# 1.5K style (K, M, G = 2^10, 2^20, 2^30; one decimal unless exact, and
# 1048568 bytes is 1.0M, not 1024.0K); --bytes prints bytes; the lines
# of what was lost or not saved stay exact
sum_sizes() {	# NAME SUBBUF-SIZE HEADER-SIZE CPU0-BYTES [--bytes]
	local name=$1 b=$2 hs=$3 cb=$4 st
	shift 4
	fake sz
	"$KLOG" -d "$T/fake-sz" -o "$T/out-sz" -b "$b" -n 4 -t 0.2 "$@" 2> "$T/sz.err"
	st=$?
	[ $st = 0 ] && grep -qF "; read mode, 4 x $hs sub-buffers per CPU" "$T/sz.err" &&
		[ "$(awk '$1 == "cpu0" { print $3 }' "$T/sz.err")" = "$cb" ]
	result "$name" $? "exit $st, want 4 x $hs sub-buffers, cpu0 bytes $cb" "$(cat "$T/sz.err")"
}
sum_sizes summary-sizes-exact-unit 1048576 1M 408B
sum_sizes summary-sizes-round-up 1048568 1.0M 408B
sum_sizes summary-sizes-decimal 1572864 1.5M 408B
sum_sizes summary-sizes-bytes 1048568 1048568-byte 408 --bytes
fake sz
timeout 60 "$KLOG" -d "$T/fake-sz" -o "$T/out-sz" -b 4096 -n 4 --max-size 100 2> "$T/sz.err"
grep -qF "klog: cpu0: 5 records (408 bytes) read after the collection reached --max-size 100 were not saved" "$T/sz.err" &&
	grep -qF "*** 6 records dropped by the kernel; 6 of them are marked in the stream ***" "$T/sz.err"
result summary-loss-lines-exact $? "$(cat "$T/sz.err")"

# ---- progress while collecting (issue X.2) --------------------------------
# --progress=SECONDS prints the status as a line on stderr, here a file:
# the COMMAND waits for the line that counts the fake's 10 records (no
# fixed wait), then the line is checked; without --progress no line.
# --max-size's share in it; --bytes prints bytes; also with -q.
progress() {	# NAME WANT-REGEX KLOG-ARGS...
	local name=$1 want=$2 st
	shift 2
	fake pg
	: > "$T/pg.err"
	timeout 60 "$KLOG" -d "$T/fake-pg" -o "$T/out-pg" -b 4096 -n 4 "$@" -- \
		sh -c 'until grep -q "^klog: .* s: 10 records" "$0"; do sleep 0.05; done' \
		"$T/pg.err" 2> "$T/pg.err"
	st=$?
	[ $st = 0 ] && grep -qE "$want" "$T/pg.err"
	result "$name" $? "exit $st, want a line matching: $want" "$(cat "$T/pg.err")"
}
progress progress-line \
	'^klog: [0-9]+\.[0-9] s: 10 records \([0-9]+/s\), 872B saved \(([0-9]+B|[0-9.]+[KM])/s, 0% of --max-size 1M\), 6 dropped$' \
	--progress=0.2 --max-size 1M
grep -q '^total ' "$T/pg.err"
result progress-line-then-summary $? "$(cat "$T/pg.err")"
progress progress-line-bytes-quiet \
	'^klog: [0-9]+\.[0-9] s: 10 records \([0-9]+/s\), 872 bytes saved \([0-9]+ bytes/s\), 6 dropped$' \
	--progress=0.2 --bytes -q
! grep -q '^total ' "$T/pg.err"
result progress-quiet-no-summary $? "$(cat "$T/pg.err")"
fake pg
"$KLOG" -d "$T/fake-pg" -o "$T/out-pg" -b 4096 -n 4 -t 0.5 2> "$T/pg.err"
st=$?
[ $st = 0 ] && ! grep -q ' s: [0-9]* records' "$T/pg.err"
result progress-none-without-option $? "exit $st" "$(cat "$T/pg.err")"
usage usage-progress-space "--progress=5, not --progress 5 (or: -- COMMAND)" \
	--progress 5
usage usage-progress-value "--progress: invalid value '0' (expected seconds > 0, e.g. 10 or 0.5)" \
	--progress=0
usage usage-progress-snapshot "--progress shows a collection's progress: not with -R or -s" -s --progress
usage usage-progress-report "-r/--report prints a saved collection; it cannot be combined with --progress" \
	-r "$T/gen" --progress
# On a terminal (a pty of script(1)) the status is redrawn in place once
# a second: the COMMAND waits for a redraw in the typescript (whose
# first line quotes the command: a pattern that does not match itself)
fake tty
: > "$T/tty.log"
timeout 60 script -qfec "'$KLOG' -d '$T/fake-tty' -o '$T/out-tty' -b 4096 -n 4 --max-size 1M -- sh -c 'until grep -aq \" s: 1[0] records (\" \"\$0\"; do sleep 0.05; done' '$T/tty.log'" \
	"$T/tty.log" > /dev/null 2>&1
st=$?
[ $st = 0 ] &&
	grep -aqE $'\r\e\\[K[0-9]+\\.[0-9] s: 10 records \\([0-9]+/s\\), 872B saved \\([^)]*/s, 0% of --max-size 1M\\), 6 dropped' "$T/tty.log"
result progress-terminal-redrawn $? "exit $st" "$(cat -v "$T/tty.log" | head -n 20)"

# ==== issue 27, collector items 10-17 (branch u-procsafe) ===================
# (a section of its own: other sections are appended above this one)

# Item 10: the COMMAND cannot start after the readers began. The readers
# stop (a last drain into the files) before the files are closed: no
# "write: Bad file descriptor", no byte into a reused descriptor. cpu0
# is a FIFO whose writer never pauses long, so a reader always has data.
fake nx live
( while printf '%4096s' ''; do :; done ) > "$T/fake-nx/cpu0" 2> /dev/null &
wpid=$!
"$KLOG" -d "$T/fake-nx" -o "$T/out-nx" -q -- /nonexistent/cmd 2> "$T/nx.err"
st=$?
: <> "$T/fake-nx/cpu0"	# a writer still waiting in open() goes on, then ends
wait $wpid
[ $st = 127 ] && grep -qxF "klog: /nonexistent/cmd: cannot run it: No such file or directory" "$T/nx.err" &&
	! grep -q "write:" "$T/nx.err" && [ "$(values "$T/fake-nx" enabled create)" = "0 0" ]
result command-not-found-readers-stopped-first $? "exit $st (want 127)" "$(cat "$T/nx.err")"


# Item 11: --stat shows names from DIR/sites escaped as the text report
# does (a function named with an ESC byte through the sites file's \ooo)
rm -rf "$T/esc"; cp -r "$T/gen" "$T/esc"
sed -i 's/\tinit_fn\t/\tinit\\033[2Jfn\t/' "$T/esc/sites"
"$KLOG" -r "$T/esc" --stat > "$T/esc.out" 2> "$T/esc.err"
st=$?
[ $st = 0 ] && ! grep -q $'\x1b' "$T/esc.out" &&
	grep -qxF '  init\x1b[2Jfn:10                          1            12B' "$T/esc.out"
result stat-names-escaped $? "exit $st" "$(cat -v "$T/esc.out" "$T/esc.err")"

# Item 13: --ctx takes no empty value, nor an empty word in a list
usage usage-ctx-empty-after-another \
	"--ctx: invalid value '' (expected a list of task, softirq, hardirq, nmi)" \
	-r "$T/gen" --ctx task --ctx ''
usage usage-ctx-empty-word \
	"--ctx: invalid value 'task,,nmi' (expected a list of task, softirq, hardirq, nmi)" \
	-r "$T/gen" --ctx 'task,,nmi'
"$KLOG" -r "$T/gen" --ctx task,nmi > "$T/ctx.out" 2> /dev/null
grep -E ' (task|nmi) |\*\*\*' "$T/expected" > "$T/ctx.exp"
same report-ctx-list "$T/ctx.exp" "$T/ctx.out"

# ---- filters of site, kind and text, --not, --stat --top and --sort ------
# gm: gen's records with sites in three modules and files. Each function
# has one record; filt NAME "FUNC..." ARGS...: klog -r gm ARGS prints
# exactly the full report's lines of those functions' records and every
# loss, and says how many records it showed
cp -r "$T/gen" "$T/gm"
printf '%s\n' '# klog sites 1 forgotten=0' \
	$'101\tlive\ttext\tcore\tcore/init.c\t10\tinit_fn\tf' \
	$'102\tlive\ttext\tnet\tnet/rx.c\t20\tnet_rx\tf' \
	$'103\tlive\traw\tnet\tnet/rx.c\t30\tirq_fn\t' \
	$'104\tlive\ttext\tgen\tgen.c\t40\tnmi_fn\tf' \
	$'105\tlive\traw\tgen\tgen.c\t50\tlate\t' \
	$'106\tlive\ttext\tcore\tcore/init.c\t1\tcpu1_fn\tf' \
	$'107\tlive\ttext\tgen\tgen.c\t2\ttie\tf' \
	$'108\tlive\ttext\tnet\tnet/rx.c\t3\tf\tf' \
	$'109\tlive\ttext\tgen\tgen.c\t6\tafter\tf' \
	$'110\tlive\ttext\tcore\tcore/init.c\t5\tthird\tf' > "$T/gm/sites"
filt() {
	local name=$1 funcs=$2 n st
	shift 2
	n=$(echo $funcs | wc -w)
	grep -E "^\[[0-9.]+\] cpu[0-9]+ \*\*\* | (${funcs// /|}):[0-9]+: " "$T/report.out" > "$T/filt.exp"
	"$KLOG" -r "$T/gm" "$@" > "$T/filt.out" 2> "$T/filt.err"
	st=$?
	[ $st = 0 ] && cmp -s "$T/filt.exp" "$T/filt.out" &&
		grep -qxF "klog: $n of 10 records from 3 CPUs shown, 6 lost (losses are not filtered)" "$T/filt.err"
	result "$name" $? "klog -r gm $*: exit $st, want $n records" \
		"$(diff "$T/filt.exp" "$T/filt.out")" "$(cat "$T/filt.err")"
}
filt filter-module 'net_rx irq_fn f' --module 'n*'
filt filter-not-module 'nmi_fn late tie after' --not --module net --not --module core
filt filter-file 'init_fn cpu1_fn third' --file 'core/*'
filt filter-not-file 'net_rx irq_fn nmi_fn late tie f after' --not --file 'core/*'
filt filter-id 'init_fn late cpu1_fn' --id 101,105-106
filt filter-not-id 'after third' --not --id 101-108
filt filter-kind 'irq_fn late' --kind raw
filt filter-not-kind 'init_fn net_rx nmi_fn cpu1_fn tie f after third' --not --kind raw,args
# the text before escaping, its final newline dropped; raw records have none
filt filter-grep 'net_rx third' --grep '^t' --grep 'end$'
filt filter-not-grep 'init_fn net_rx irq_fn nmi_fn late tie f after' --not --grep cpu
filt filter-not-cpu 'cpu1_fn tie f after third' --not --cpu 0
filt filter-not-pid 'late cpu1_fn tie f after' --not --pid 1-7
filt filter-not-ctx 'net_rx irq_fn f after' --not --ctx task,nmi
filt filter-not-func 'net_rx late tie f after third' --not --func '*_fn'
# a task no COMM record named matches no --comm, so --not keeps it
filt filter-not-comm 'init_fn net_rx irq_fn nmi_fn late cpu1_fn tie f after third' --not --comm '*'
filt filter-given-and-not 'tie' --file gen.c --not --kind raw --not --ctx nmi,hardirq
# --grep matches an argument record's text as formatted
"$KLOG" -r "$T/args" --grep 's=abc$' > "$T/filt.out" 2> "$T/filt.err"
grep -qxF '[0.000000100] cpu0 9 task arg_fn:11: n=-5 s=abc' "$T/filt.out" &&
	[ "$(wc -l < "$T/filt.out")" = 1 ] &&
	grep -qxF 'klog: 1 of 5 records from 1 CPUs shown, 0 lost' "$T/filt.err"
result filter-grep-args $? "$(cat "$T/filt.out" "$T/filt.err")"
"$KLOG" -r "$T/args" --kind args > /dev/null 2> "$T/filt.err"
has_line filter-kind-args "$T/filt.err" 'klog: 5 of 5 records from 1 CPUs shown, 0 lost'
usage usage-grep-bad-regex \
	"--grep: invalid value 'a(' (expected a POSIX extended regular expression: Unmatched ( or \\()" \
	-r "$T/gm" --grep x --grep 'a('
usage usage-id-bad-list \
	"--id: invalid value '101,x' (expected a list of site ids such as 101,200-300)" \
	-r "$T/gm" --id '101,x'
usage usage-kind-bad \
	"--kind: invalid value 'text,printk' (expected a list of text, args, raw)" \
	-r "$T/gm" --kind 'text,printk'
usage usage-not-before-since \
	"--not goes right before a filter of values (--cpu, --pid, --comm, --func, --module, --file, --id, --ctx, --kind, --grep), not --since" \
	-r "$T/gm" --not --since 1
usage usage-not-at-end "--not at the end: it goes right before a filter (--not --cpu 0)" \
	-r "$T/gm" --cpu 1 --not
usage usage-not-twice "--not --not: give --not once, right before a filter" \
	-r "$T/gm" --not --not --cpu 1
usage usage-top-needs-stat "--top is an option of --stat: give -r DIR --stat" -r "$T/gm" --top 3
usage usage-top-zero "--top: invalid value '0' (expected rows per table, 1 to 1000000000)" \
	-r "$T/gm" --stat --top 0
usage usage-sort-key "--sort: invalid value 'size' (expected records, bytes or name)" \
	-r "$T/gm" --stat --sort size

# the same filters on every output: JSON lines and the CTF trace hold
# the text report's records (babeltrace2 reads it back: 3 events) and
# every loss (6 discarded events); --stat counts the same records
F=(--file gen.c --not --kind raw)
mkdir "$T/fexp"
cp -r "$T/gm" "$T/fexp/coll"
exports "$T/fexp" "$T/fexp/coll" "${F[@]}"
same_lines filter-export-text "$T/fexp/report.txt" \
	'[1.000000300] cpu1 101 task tie:2: utf8 \xc3\xa9\r' \
	'[1.000000400] cpu2 *** 3 records lost ***' \
	'[1.000000500] cpu0 *** 2 records lost ***' \
	'[1.000000600] cpu1 *** 1 sub-buffers lost ***' \
	'[1.000000700] cpu0 4 nmi nmi_fn:40: cut off [truncated]' \
	'[3.000000000] cpu1 *** 1 records lost ***' \
	'[3.000000000] cpu1 105 hardirq after:6: after gap'
n=$(grep -c '"type":"record"' "$T/fexp/report.json")
result filter-export-json-records $(( n != 3 )) "3 JSON records expected, got $n"
export_checks filter-export compare.py "$T/fexp"
"$KLOG" -r "$T/gm" "${F[@]}" --stat > "$T/filt.out" 2> /dev/null
grep -qxF '  total                                     3            24B              6' "$T/filt.out" &&
grep -qxF '  nmi_fn:40                                 1             7B' "$T/filt.out" &&
[ "$(grep -c '^  [a-z_]*:[0-9]* ' "$T/filt.out")" = 3 ]
result filter-stat $? "$(cat "$T/filt.out")"

# --stat --sort bytes|name --top N: rows in that order, then how many more
"$KLOG" -r "$T/gen" --stat --sort bytes --top 2 > "$T/filt.out" 2> /dev/null
cat > "$T/filt.exp" <<'EOF'
per CPU                               records          bytes           lost
  cpu0                                      5           118B              2
  cpu1                                      4            29B              1
  ... 1 more (--top 2)
  total                                    10           156B              6

per pid                               records          bytes
  0                                         1            70B
  2                                         1            24B
  ... 8 more (--top 2)

per site (function:line)              records          bytes
  late:50                                   1            70B
  net_rx:20                                 1            24B
  ... 8 more (--top 2)
EOF
same stat-sort-bytes-top "$T/filt.exp" "$T/filt.out"
"$KLOG" -r "$T/gen" --stat --sort name --top 3 > "$T/filt.out" 2> /dev/null
grep '^  ' "$T/filt.out" | awk '{ printf "%s ", $1 } END { print "" }' > "$T/filt.keys"
same_lines stat-sort-name-top "$T/filt.keys" 'cpu0 cpu1 cpu2 total 0 1 2 ... after:6 cpu1_fn:1 f:3 ... '

# Item 13 under the sanitizers ($KLOG is the sanitized build: a report
# makes it exit 86 and fails "sanitizers" below): --stat of a collection
# without a record (qsort() of no rows), the filter arrays freed
# (LeakSanitizer), usage errors with nothing lost
san() {	# NAME WANT-EXIT ARGS...: klog ARGS exits WANT-EXIT
	local name=$1 want=$2 st
	shift 2
	"$KLOG" "$@" > /dev/null 2> "$T/san.err"
	st=$?
	[ $st = "$want" ]
	result "$name" $? "klog $* -> exit $st (want $want)" "$(head -n 30 "$T/san.err")"
}
rm -rf "$T/none-rec"; mkdir "$T/none-rec"; : > "$T/none-rec/cpu0"
san sanitizers-stat-no-records 0 -r "$T/none-rec" --stat
san sanitizers-filters-freed 0 -r "$T/gen" --pid 1,2 --func 'i*' --comm x --cpu 0 --ctx task
san sanitizers-stat-filtered 0 -r "$T/gen" --stat --func 'nomatch'
san sanitizers-grep-not-freed 0 -r "$T/gm" --grep x --not --grep 'y|z' --not --module m --id 1
san sanitizers-grep-bad-usage 2 -r "$T/gm" --grep x --grep 'a('
san sanitizers-func-empty-usage 2 -r "$T/gen" --func x --func ''
san sanitizers-comm-empty-usage 2 -r "$T/gen" --comm x --comm ''
san sanitizers-sites-usage 2 -d "$T/fake-q" --sites 'func +p'
san sanitizers-sites-list 0 -d "$T/fake-q" --sites 'func emit_one*'


# Item 16: a killed klog -e's saved call-site state is put back by
# whoever takes the collectors' lock next - here klog -R - once, for its
# own control directory only; a second Ctrl-C while a collection stops
# still ends it whole: the state put back, the summary, meta's stop line.
# control: the fake's sites as the core lists them, all on ("=p")
fake_control() {	# DIR
	awk -F '\t' 'NR == 1 { print "# file:line [module]function =flags \"format\" id=N records=N"; next }
		{ printf "%s:%s [%s]%s =p \"%s\" id=%s records=0\n", $5, $6, $4, $7, $8, $1 }' \
		"$1/sites" > "$1/control"
}
boot=$(cat /proc/sys/kernel/random/boot_id)
export KLOG_STATE_DIR=$T/state
rm -rf "$T/fake-st" "$T/state"; mkdir -m 700 "$T/state"
"$ST" fake read "$T/fake-st"
fake_control "$T/fake-st"
printf '# klog site state 1 boot=%s pid=1 dir=%s\n101\t_\n102\tp\n103\tp\n' "$boot" \
	"$T/fake-st" > "$T/state/sites.saved"
printf 0 > "$T/fake-st/frozen"
"$KLOG" -d "$T/fake-st" -R -b 64k -n 8 2> "$T/st.err"
st=$?
[ $st = 0 ] && [ ! -e "$T/state/sites.saved" ] &&
	[ "$(head -n 2 "$T/fake-st/control")" = "$(printf 'id 101-101 =_\nid 102-103 =p')" ] &&
	grep -qxF "klog: $T/state/sites.saved: a killed collector's saved call-site state: put back (3 sites)" "$T/st.err"
result sites-saved-put-back-by-recorder $? "exit $st" "$(cat "$T/st.err")" "$(head -n 3 "$T/fake-st/control")"
# a state file of another control directory is left alone
rm -rf "$T/fake-st"; "$ST" fake read "$T/fake-st"; fake_control "$T/fake-st"
printf '# klog site state 1 boot=%s pid=1 dir=/elsewhere\n101\t_\n' "$boot" > "$T/state/sites.saved"
cp "$T/fake-st/control" "$T/control.before"
"$KLOG" -d "$T/fake-st" -o "$T/out-st" -t 0.1 -q 2> "$T/st.err"
st=$?
[ $st = 0 ] && [ -e "$T/state/sites.saved" ] && cmp -s "$T/control.before" "$T/fake-st/control"
result sites-saved-other-dir-left $? "exit $st" "$(cat "$T/st.err")"
rm -f "$T/state/sites.saved"

# The second Ctrl-C: the fake's flush is a FIFO, so the stop waits in
# the flush (after enabled=0) until the check lets it go; the second
# SIGINT comes while it waits. Conditions only: the recording line,
# enabled reading 0.
fake 2c
fake_control "$T/fake-2c"
rm "$T/fake-2c/flush"; mkfifo "$T/fake-2c/flush"
"$KLOG" -d "$T/fake-2c" -o "$T/out-2c" -e 'func init_fn' > /dev/null 2> "$T/2c.err" &
kpid=$!
wait_until grep -q ': recording ' "$T/2c.err" &&
	[ "$(head -n 1 "$T/fake-2c/control")" = "=_" ] && [ -e "$T/state/sites.saved" ]
pre=$?
kill -INT $kpid
wait_until grep -qx 0 "$T/fake-2c/enabled"
kill -INT $kpid
exec 7<> "$T/fake-2c/flush"	# a reader: the flush goes on
wait $kpid
st=$?
exec 7<&-
[ $pre = 0 ] && [ $st = 0 ] && [ ! -e "$T/state/sites.saved" ] &&
	[ "$(head -n 1 "$T/fake-2c/control")" = "id 101-130 =p" ] &&
	grep -qF "klog: stopped (SIGINT)" "$T/2c.err" &&
	grep -qE '^stop [0-9]+\.[0-9]{9}$' "$T/out-2c/meta" &&
	grep -qx 'stop_reason SIGINT' "$T/out-2c/meta"
result second-sigint-ends-cleanly $? "exit $st (want 0), pre $pre" "$(cat "$T/2c.err")" \
	"$(head -n 1 "$T/fake-2c/control")" "$(ls "$T/state")"
unset KLOG_STATE_DIR


# Item 17: DIR is held open once checked. The COMMAND moves DIR away and
# puts a link to another directory in its place: meta's stop line, and
# DIR/sites by way of DIR/.sites.tmp, are written into the directory that
# was checked, nothing through the link, and klog exits 0.
rm -rf "$T/fake-sw" "$T/sw" "$T/sw.real" "$T/victim-dir"
"$ST" fake read "$T/fake-sw"
mkdir "$T/victim-dir"
"$KLOG" -d "$T/fake-sw" -o "$T/sw" -q -- sh -c 'mv "$0" "$0.real" && ln -s "$1" "$0"' \
	"$T/sw" "$T/victim-dir" 2> "$T/sw.err"
st=$?
[ $st = 0 ] && [ -z "$(ls -A "$T/victim-dir")" ] &&
	grep -qx 'stop_reason command exited' "$T/sw.real/meta" &&
	cmp -s "$T/gen/cpu0" "$T/sw.real/cpu0" && cmp -s "$T/gen/cpu2" "$T/sw.real/cpu2"
result output-dir-held-open $? "exit $st" "$(cat "$T/sw.err")" "victim-dir: $(ls -A "$T/victim-dir")"
# klog -r DIR reads DIR's files relative to DIR as opened: the same report
"$KLOG" -r "$T/sw.real" > "$T/sw.report" 2> /dev/null
same output-dir-held-report "$T/expected" "$T/sw.report"

# ---- sessions: klog start, status, stop (issue 30, item 1) -----------------
# A session of its own state directory; klog start returns once the
# collector records, its status comes from the session file it rewrites
# at every tick, klog stop prints its summary from DIR/log.
export KLOG_STATE_DIR=$T/state-ses
rm -rf "$T/fake-ses" "$T/ses" "$T/ses2" "$KLOG_STATE_DIR"
"$ST" fake read "$T/fake-ses"
sfile=$KLOG_STATE_DIR/session
# exited PID: no such process, or a zombie its new parent did not reap yet
exited() { ! kill -0 "$1" 2> /dev/null || grep -q '^State:.*Z' "/proc/$1/status" 2> /dev/null; }
# poll CONDITION...: until it holds (<= 60 s): no fixed sleep
poll() {
	local i=0
	until "$@"; do
		i=$((i + 1)); [ $i -gt 6000 ] && return 1
		sleep 0.01
	done
}
"$KLOG" status > "$T/ses.out" 2> "$T/ses.err"
st=$?
[ $st = 3 ] && [ ! -s "$T/ses.out" ] &&
	grep -qxF "klog: no session is running (klog start starts one)" "$T/ses.err"
result session-status-none-3 $? "exit $st" "$(cat "$T/ses.err")"
expect_line session-stop-none-3 3 "klog: no session is running (klog start starts one)" "$KLOG" stop
"$KLOG" start -d "$T/fake-ses" -o "$T/ses" -b 4096 -n 4 > "$T/ses.out" 2> "$T/ses.err"
st=$?
spid=$(awk '$1 == "pid" { print $2 }' "$sfile" 2> /dev/null)
[ $st = 0 ] && [ -n "$spid" ] && kill -0 "$spid" &&
	grep -qxF "klog: recording 3 CPUs into $T/ses/cpu* until klog stop" "$T/ses.err" &&
	grep -qxF "klog: session started: pid $spid; klog status shows it, klog stop stops it" "$T/ses.err" &&
	[ "$(stat -c %a "$sfile")" = 600 ] && [ "$(stat -c %a "$T/ses/log")" = 600 ]
result session-start $? "exit $st, pid '$spid'" "$(cat "$T/ses.err")"
# status: the fake's 10 records (5, 4, 1) read, its drops by CPU and cause
ses_status() { "$KLOG" status "$@" > "$T/ses.out" 2> "$T/ses.err" && grep -q ': 10 records' "$T/ses.out"; }
poll ses_status
st=$?
norm() { tr -s ' ' < "$T/ses.out"; }
[ $st = 0 ] &&
	[ "$(sed -n 1p "$T/ses.out")" = "pid $spid, recording into $T/ses (control directory $T/fake-ses)" ] &&
	sed -n 2p "$T/ses.out" | grep -qE '^[0-9.]+ s: 10 records \([0-9]+/s\), 872B saved \([0-9.]+[BKM]/s\), 6 dropped$' &&
	[ "$(norm | sed -n 3p)" = " records bytes full big nmi nest frozen reenter" ] &&
	[ "$(norm | sed -n 4,7p)" = "$(printf '%s\n' 'cpu0 5 408B 2 0 0 0 0 0' 'cpu1 4 328B 0 1 0 0 0 0' \
		'cpu2 1 136B 0 0 3 0 0 0' 'total 10 872B 2 1 3 0 0 0')" ] &&
	grep -qF "klog: NMI staging full: 3 records dropped" "$T/ses.err"
result session-status $? "exit $st" "$(cat "$T/ses.out" "$T/ses.err")"
"$KLOG" status --bytes > "$T/ses.out" 2> /dev/null
st=$?
[ $st = 0 ] && grep -qE ' 872 bytes saved \([0-9]+ bytes/s\)' "$T/ses.out" &&
	[ "$(norm | sed -n 7p)" = "total 10 872 2 1 3 0 0 0" ]
result session-status-bytes $? "exit $st" "$(cat "$T/ses.out")"
# a second start says who runs, and touches nothing
"$KLOG" start -d "$T/fake-ses" -o "$T/ses2" 2> "$T/ses.err"
st=$?
[ $st = 1 ] && [ ! -e "$T/ses2" ] &&
	grep -qxF "klog: a session is running: pid $spid, recording into $T/ses; klog status shows it, klog stop stops it" "$T/ses.err"
result session-second-start-refused $? "exit $st" "$(cat "$T/ses.err")"
# stop: SIGTERM, waited for; the summary from DIR/log; the channel gone
"$KLOG" stop 2> "$T/ses.err"
st=$?
[ $st = 0 ] && exited "$spid" && [ ! -e "$sfile" ] &&
	grep -q '^klog: stopped (SIGTERM) after ' "$T/ses.err" &&
	grep -qE '^total +10 +872B +6 ' "$T/ses.err" &&
	grep -qxF "klog: *** 6 records dropped by the kernel; 6 of them are marked in the stream ***" "$T/ses.err" &&
	grep -qxF "klog: session stopped: klog -r $T/ses prints its records" "$T/ses.err" &&
	[ "$(values "$T/fake-ses" enabled create)" = "0 0" ] &&
	grep -qx 'stop_reason SIGTERM' "$T/ses/meta"
result session-stop $? "exit $st" "$(cat "$T/ses.err")"
"$KLOG" -r "$T/ses" > "$T/ses.report" 2> /dev/null
same session-stop-report "$T/expected" "$T/ses.report"
"$KLOG" status 2> "$T/ses.err"
result session-status-after-stop-3 $(( $? != 3 )) "$(cat "$T/ses.err")"
# errors before recording are start's own: DIR not empty (the one just
# written), the channel locked by another collector; no session file
"$KLOG" start -d "$T/fake-ses" -o "$T/ses" 2> "$T/ses.err"
st=$?
[ $st = 1 ] && [ ! -e "$sfile" ] && grep -qF "klog: $T/ses: not empty (holds " "$T/ses.err"
result session-start-dir-not-empty $? "exit $st" "$(cat "$T/ses.err")"
if command -v flock > /dev/null; then
	flock "$T/fake-ses/create" "$KLOG" start -d "$T/fake-ses" -o "$T/ses2" 2> "$T/ses.err"
	st=$?
	[ $st = 1 ] && [ ! -e "$sfile" ] &&
		grep -qF "klog: $T/fake-ses: another collector is using the channel" "$T/ses.err"
	result session-start-channel-busy $? "exit $st" "$(cat "$T/ses.err")"
fi
# a directory whose name klog status could not print: refused, the
# channel gone again
"$KLOG" start -d "$T/fake-ses" -o "$T/ses	tab" 2> "$T/ses.err"
st=$?
[ $st = 1 ] && [ ! -e "$sfile" ] && [ "$(cat "$T/fake-ses/create")" = 0 ] &&
	grep -qxF "klog: the collection directory's name has a control character: it cannot go into $sfile" "$T/ses.err"
result session-start-dir-control $? "exit $st" "$(cat "$T/ses.err")"
usage session-start-no-follow "'start' collects in the background: it takes no -f" start -f
usage session-start-no-command "'start' collects in the background: it takes no COMMAND" \
	start -- true
usage session-status-options "'status' takes only --bytes, not '-q'" status -q
usage session-stop-options "'stop' takes only --wait SECONDS, not '--bytes'" stop --bytes
usage session-stop-wait-value "--wait: invalid value '0'" stop --wait 0
# a session that ended by itself (-t): status says so, stop prints its summary
rm -rf "$T/ses"
"$KLOG" start -d "$T/fake-ses" -o "$T/ses" -t 0.2 2> "$T/ses.err"
st=$?
ses_ended() { "$KLOG" status > /dev/null 2> "$T/ses.err"; [ $? = 3 ] && grep -q 'has ended (exit status 0)' "$T/ses.err"; }
[ $st = 0 ] && poll ses_ended && "$KLOG" stop 2> "$T/ses.err" &&
	grep -q '^klog: stopped (duration reached) after ' "$T/ses.err" && [ ! -e "$sfile" ]
result session-ended-by-itself $? "exit $st" "$(cat "$T/ses.err")"
# Killed: stop says so, puts back the site state of its -e, leaves the
# channel enabled; the next collection into DIR resumes it (mmap mode)
rm -rf "$T/fake-ses" "$T/ses"
"$ST" fake mmap "$T/fake-ses"
fake_control "$T/fake-ses"
"$KLOG" start -d "$T/fake-ses" -o "$T/ses" -b 4096 -n 4 -m mmap -e 'func init_fn' 2> "$T/ses.err"
st=$?
spid=$(awk '$1 == "pid" { print $2 }' "$sfile" 2> /dev/null)
[ $st = 0 ] && [ -e "$KLOG_STATE_DIR/sites.saved" ] && [ "$(head -n 1 "$T/fake-ses/control")" = "=_" ]
pre=$?
poll ses_status	# all saved: the resumed files are whole
kill -KILL "$spid"
ses_gone() { "$KLOG" status > /dev/null 2> "$T/ses.err"; [ $? = 3 ] && grep -q 'is gone without stopping (killed?)' "$T/ses.err"; }
poll ses_gone
gone=$?
"$KLOG" stop 2> "$T/ses.err"
st=$?
[ $pre = 0 ] && [ $gone = 0 ] && [ $st = 1 ] && [ ! -e "$sfile" ] &&
	grep -qF "klog: the session's collector (pid $spid) was killed before it stopped: $T/ses holds what it saved" "$T/ses.err" &&
	grep -qxF "klog: $KLOG_STATE_DIR/sites.saved: a killed collector's saved call-site state: put back (30 sites)" "$T/ses.err" &&
	[ ! -e "$KLOG_STATE_DIR/sites.saved" ] &&
	[ "$(head -n 1 "$T/fake-ses/control")" = "id 101-130 =p" ] &&
	[ "$(values "$T/fake-ses" enabled create)" = "1 1" ]
result session-stop-after-sigkill $? "exit $st, pre $pre, gone $gone" "$(cat "$T/ses.err")"
"$KLOG" -d "$T/fake-ses" -o "$T/ses" -m mmap -t 0.3 -q 2> "$T/ses.err"
st=$?
bad=$(differ "$T/ses")
[ $st = 0 ] && [ -z "$bad" ] && grep -qF "klog: cpu0: resumed $T/ses/cpu0: 5 records kept" "$T/ses.err"
result session-killed-resumed $? "exit $st, differ:$bad" "$(cat "$T/ses.err")"
# stop never signals another process that got the pid (its start time
# differs), nor waits for it to exit (it would outlive --wait 700: the
# sleep below ends first, and kill -0 fails), and gives up after --wait
# on a collector that does not end
sh -c 'trap "" TERM; exec sleep 600' &
vpid=$!
poll grep -qx sleep "/proc/$vpid/comm"
vstart=$(cut -d ' ' -f 22 "/proc/$vpid/stat")
fake_session() {	# START
	printf 'klog-session 1\nboot %s\npid %s %s\ndebugfs %s\ndir %s\n' \
		"$(cat /proc/sys/kernel/random/boot_id)" "$vpid" "$1" "$T/fake-ses" "$T/ses" > "$sfile"
}
fake_session $((vstart + 1))
"$KLOG" stop --wait 700 2> "$T/ses.err"
st=$?
[ $st = 1 ] && kill -0 $vpid && grep -qF "(pid $vpid) was killed before it stopped" "$T/ses.err"
result session-stop-not-another-process $? "exit $st" "$(cat "$T/ses.err")"
fake_session "$vstart"
"$KLOG" stop --wait 0.2 2> "$T/ses.err"
st=$?
[ $st = 1 ] && kill -0 $vpid && [ -e "$sfile" ] &&
	grep -qxF "klog: the collector (pid $vpid) has not exited 0.2 s after SIGTERM; it still runs: klog stop waits again (--wait SECONDS), kill -KILL $vpid ends it without a summary" "$T/ses.err"
result session-stop-wait-bounded $? "exit $st" "$(cat "$T/ses.err")"
# a line that klog status would convert or print wrongly is refused
for c in "rate-huge:rate 1e300 1" "rate-nan:rate nan 0" "exit-negative:exit -5" \
	 "dir-control:$(printf 'dir /tmp/a\033]0;x')"; do
	fake_session "$vstart"
	printf '%s\n' "${c#*:}" >> "$sfile"
	"$KLOG" status > "$T/ses.out" 2> "$T/ses.err"
	st=$?
	[ $st = 1 ] && [ ! -s "$T/ses.out" ] &&
		grep -qxF "klog: $sfile:6: not a line of a klog session file (klog-session 1); remove it" "$T/ses.err"
	result "session-file-refused-${c%%:*}" $? "exit $st" "$(cat -v "$T/ses.out" "$T/ses.err")"
done
kill -KILL $vpid
wait $vpid 2> /dev/null
unset KLOG_STATE_DIR
# ---- reading: the pager, colours, -r -f, a slow -f reader (issue X.4) ----
. "$ROOT/checks/collector/read.sh"

# ---- no sanitizer report from any check above -----------------------------
san_result sanitizers "$T/san"

exit $FAILED
