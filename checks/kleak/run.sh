#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side checks of the kleak collector (samples/klog/kleak) that need no
# kleak kernel: the report on synthesized captures (gen.py) with every
# case the replay handles - a planted leak, frees on another CPU, frees
# of unknown objects, large kmalloc()s traced twice, addresses allocated
# again without a free, other klog records, lost records in a gap and at
# the end - hidden symbol addresses, a record of another version, option
# errors, and a whole collection against a fake debugfs of regular files.
# Prints "ok NAME" / "not ok NAME" per check, details of failures on
# stderr as "# ..." lines; exits 1 if any check failed.
#
# Usage: checks/kleak/run.sh      (from anywhere; needs cc, make, python3)

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/kleak-host.XXXXXX)
trap 'rm -rf "$T"' EXIT
GEN="python3 $ROOT/checks/kleak/gen.py"
. "$ROOT/checks/lib.sh"	# ok, not_ok, result, has_line, bg_signal, san_*

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

# ---- the report -------------------------------------------------------------
$GEN capture "$T/cap"
"$KLEAK" -r "$T/cap" -N 0 > "$T/cap.out" 2> "$T/cap.err"
result report-exit-0 $? "$(cat "$T/cap.err")"
has_line report-lost-first "$T/cap.out" \
	"$(head -n 1 "$T/cap.out" | grep '^\*\*\* 3 kleak records LOST (of 149)')"
has_line report-records "$T/cap.out" \
	"records      146 kleak records, 3 lost; klog dropped 3 records in all; 1 other klog records skipped"
has_line report-allocations "$T/cap.out" \
	"allocations  92 (kmalloc 90, kmem_cache_alloc 2), 2 failed"
has_line report-frees "$T/cap.out" \
	"frees        52 (kfree 52, kmem_cache_free 0); 2 of them freed objects allocated before the capture or filtered out"
has_line report-outstanding "$T/cap.out" \
	"outstanding  39 objects, 27496 bytes requested, 42336 allocated"
has_line report-traced-twice "$T/cap.out" \
	"note         2 large kmalloc()s traced twice, counted once"
grep -q "^note         1 addresses were allocated again with no free seen" "$T/cap.out"
result report-reused $? "$(cat "$T/cap.out")"
has_line report-leak-row "$T/cap.out" \
	"        37          7400          9472           200  kleak_test_leak+0x10/0x100 [kleak_test_mod]"
has_line report-balanced-row "$T/cap.out" \
	"        50         50          0         10000         12800        2800  kleak_test_balanced+0x10/0x100 [kleak_test_mod]"
has_line report-merged-row "$T/cap.out" \
	"         4          0          2         20192         32960       12768  getname_flags+0x10/0x100"
has_line report-free-site "$T/cap.out" "         2  kfree+0x100/0x300"
grep -q "kleak records lost: the leak list may be wrong" "$T/cap.err"
result report-loss-on-stderr $? "$(cat "$T/cap.err")"
"$KLEAK" -r "$T/cap" -N 1 > "$T/top.out" 2>/dev/null
grep -q "^Outstanding allocations by caller, largest first (top 1 of 2)$" "$T/top.out" &&
	[ "$(sed -n '/^Outstanding/,$p' "$T/top.out" | grep -c '+0x')" = 1 ]
result report-top-n $? "$(cat "$T/top.out")"

$GEN hidden "$T/hidden"
"$KLEAK" -r "$T/hidden" -N 0 > "$T/hidden.out" 2>/dev/null
grep -q "has no symbol addresses: callers are raw addresses" "$T/hidden.out" &&
	grep -q "  0xffffffffc0001010$" "$T/hidden.out"
result report-hidden-addresses $? "$(cat "$T/hidden.out")"

$GEN version2 "$T/v2"
"$KLEAK" -r "$T/v2" > /dev/null 2> "$T/v2.err"
st=$?
[ $st = 1 ] && grep -q "kleak record version 2; this kleak reads version 1" "$T/v2.err"
result report-other-version-exit-1 $? "exit $st" "$(cat "$T/v2.err")"

mkdir -p "$T/empty"
"$KLEAK" -r "$T/empty" > /dev/null 2> "$T/empty.err"
st=$?
[ $st = 1 ] && grep -q "no cpuN files" "$T/empty.err"
result report-no-files-exit-1 $? "exit $st" "$(cat "$T/empty.err")"

# ---- options ------------------------------------------------------------------
"$KLEAK" --help > "$T/help" 2>&1
[ $? = 0 ] && grep -q "^Example" "$T/help"
result help-with-example $?
for args in "-z" "-r $T/cap -F size=1" "-t 0" "-t 2e10" "-b 0" "-N x" "-m bad" "-r $T/cap extra"; do
	"$KLEAK" $args > /dev/null 2> "$T/usage.err"
	st=$?
	[ $st = 2 ] && grep -q "Try 'kleak --help'" "$T/usage.err"
	result "usage-error-exit-2:${args%% *}" $? "args: $args, exit $st" "$(cat "$T/usage.err")"
done

# ---- a collection against a fake debugfs --------------------------------------
# The fake klog/cpuN are regular files: the reader gets the whole stream,
# then end of file. /proc/kallsyms is the host's.
$GEN fake "$T/fake"
"$KLEAK" -d "$T/fake/klog" -o "$T/out" -t 0.3 -F "size=1-100" -N 0 > "$T/col.out" 2> "$T/col.err"
st=$?
[ $st = 0 ]
result collect-exit-0 $? "exit $st" "$(cat "$T/col.err")"
cmp -s "$T/fake/klog/cpu0" "$T/out/cpu0" && cmp -s "$T/fake/klog/cpu1" "$T/out/cpu1"
result collect-saves-streams $?
has_line collect-info-seq "$T/out/kleak.info" "seq 149"
has_line collect-info-filter "$T/out/kleak.info" "filter size=1-100"
[ "$(cat "$T/fake/kleak/enabled")" = 0 ] && [ "$(cat "$T/fake/klog/create")" = 0 ] &&
	[ "$(cat "$T/fake/klog/mode")" = no-overwrite ] && [ "$(cat "$T/fake/klog/global")" = 0 ]
result collect-control-files $? \
	"kleak/enabled=$(cat "$T/fake/kleak/enabled") klog/create=$(cat "$T/fake/klog/create") mode=$(cat "$T/fake/klog/mode") global=$(cat "$T/fake/klog/global")"
grep -q "klog dropped 3 records (full 6" "$T/col.err" &&
	grep -q "^records      146 kleak records, 3 lost" "$T/col.out"
result collect-reports-drops $? "$(cat "$T/col.err")"
"$KLEAK" -r "$T/out" -N 0 > "$T/again.out" 2>/dev/null
cmp -s "$T/col.out" "$T/again.out"
result collect-report-again-same $? "$(diff "$T/col.out" "$T/again.out")"

# One collector at a time (item 11): while another holds the lock, kleak
# fails and touches nothing, not even kleak-mod's settings; a channel
# that exists is not destroyed without -x.
rm -rf "$T/fake"
$GEN fake "$T/fake"
printf 'size=1-2' > "$T/fake/kleak/filter"; printf 1 > "$T/fake/kleak/enabled"
mkfifo "$T/locked" "$T/unlock"
flock "$T/fake/klog/create" sh -c 'echo > "$0"; read x < "$1"' "$T/locked" "$T/unlock" &
lpid=$!
read x < "$T/locked"
"$KLEAK" -d "$T/fake/klog" -o "$T/out4" -t 0.1 > /dev/null 2> "$T/lock.err"
st=$?
echo > "$T/unlock"
wait $lpid
[ $st = 1 ] && grep -q "another collector is using the channel" "$T/lock.err" &&
	[ "$(cat "$T/fake/kleak/filter")" = size=1-2 ] && [ "$(cat "$T/fake/kleak/enabled")" = 1 ] &&
	[ "$(cat "$T/fake/klog/create")" = 0 ]
result one-collector-at-a-time $? "exit $st" "$(cat "$T/lock.err")"
printf 1 > "$T/fake/klog/create"; printf overwrite > "$T/fake/klog/mode"
"$KLEAK" -d "$T/fake/klog" -o "$T/out4" -t 0.1 > /dev/null 2> "$T/exist.err"
st=$?
[ $st = 1 ] && grep -q "a channel exists (mode=overwrite) .*give -x/--replace to destroy it" "$T/exist.err" &&
	[ "$(cat "$T/fake/klog/create")" = 1 ] && [ "$(cat "$T/fake/klog/mode")" = overwrite ] &&
	[ "$(cat "$T/fake/kleak/filter")" = size=1-2 ]
result existing-channel-not-destroyed $? "exit $st" "$(cat "$T/exist.err")"
"$KLEAK" -d "$T/fake/klog" -o "$T/out4" -t 0.1 -x -q -N 0 > /dev/null 2> "$T/exist.err"
st=$?
[ $st = 0 ] && [ "$(cat "$T/fake/klog/create")" = 0 ] && [ "$(cat "$T/fake/klog/mode")" = no-overwrite ]
result existing-channel-replaced-with-x $? "exit $st" "$(cat "$T/exist.err")"
[ "$(stat -c %a "$T/out4")" = 700 ] && [ "$(stat -c %a "$T/out4/kallsyms")" = 600 ] &&
	[ "$(stat -c %a "$T/out4/cpu0")" = 600 ] && [ "$(stat -c %a "$T/out4/kleak.info")" = 600 ]
result output-private $? "$(ls -l "$T/out4")"
rm -f "$T/out4/kallsyms"; ln -s "$T/victim" "$T/out4/kallsyms"; echo precious > "$T/victim"
"$KLEAK" -d "$T/fake/klog" -o "$T/out4" -t 0.1 -q > /dev/null 2> "$T/link.err"
st=$?
[ $st = 1 ] && [ "$(cat "$T/victim")" = precious ] &&
	grep -q "kallsyms: open: is a symbolic link (not followed)" "$T/link.err"
result output-planted-symlink-refused $? "exit $st" "$(cat "$T/link.err")"

# A COMMAND runs once kleak-mod is enabled; its exit status is kleak's.
rm -rf "$T/fake" "$T/out3"
$GEN fake "$T/fake"
"$KLEAK" -d "$T/fake/klog" -o "$T/out3" -q -N 0 -- sh -c 'cat "$0/kleak/enabled" > "$1"; exit 4' \
	"$T/fake" "$T/seen" > /dev/null 2> "$T/cmd.err"
st=$?
[ $st = 4 ] && [ "$(cat "$T/seen")" = 1 ] &&
	grep -q "^kleak: recording allocations on 2 CPUs into $T/out3/cpu\* until sh exits (filter: none)$" "$T/cmd.err"
result command-runs-once-recording $? "exit $st (want 4), enabled $(cat "$T/seen") (want 1)" "$(cat "$T/cmd.err")"

# Item 16b: started as a background job of a non-interactive shell
# (SIGINT ignored on entry), kleak still stops at SIGINT. The SIGINT is
# sent when its "recording" line comes: no sleep.
rm -rf "$T/fake" "$T/out5"
$GEN fake "$T/fake"
bg_signal INT "$T/bg.err" "$KLEAK" -d "$T/fake/klog" -o "$T/out5" -N 0
st=$?
[ $st = 0 ] && grep -q "^kleak: stopped (SIGINT)" "$T/bg.err"
result background-job-stops-at-sigint $? "exit $st" "$(cat "$T/bg.err")"

rm -rf "$T/nokleak"
mkdir -p "$T/nokleak/klog"
"$KLEAK" -d "$T/nokleak/klog" -o "$T/out2" -t 0.1 > /dev/null 2> "$T/nokleak.err"
st=$?
[ $st = 1 ] && grep -q "nokleak/kleak: No such file or directory (is kleak-mod loaded? -d names klog's control directory" "$T/nokleak.err"
result collect-no-kleak-mod-exit-1 $? "exit $st" "$(cat "$T/nokleak.err")"

# -d is klog's control directory, as for klog and reserve: the debugfs
# mount point is refused with a message naming -d, and nothing is touched.
$GEN fake "$T/fake"
"$KLEAK" -d "$T/fake" -o "$T/out6" -t 0.1 > /dev/null 2> "$T/d.err"
st=$?
[ $st = 1 ] && grep -q -- "-d names klog's control directory" "$T/d.err" && [ ! -e "$T/out6" ]
result debugfs-option-is-klog-dir $? "exit $st" "$(cat "$T/d.err")"


# ==== issue 27, collector items 10-17 (branch u-procsafe) ===================

# Item 10: the COMMAND cannot start after the readers began: they stop
# before the files are closed (no "write: Bad file descriptor"). cpu0 is
# a FIFO whose writer never pauses long, so its reader always has data.
rm -rf "$T/fake" "$T/out-nx"
$GEN fake "$T/fake"
rm "$T/fake/klog/cpu0"; mkfifo "$T/fake/klog/cpu0"
( while printf '%4096s' ''; do :; done ) > "$T/fake/klog/cpu0" 2> /dev/null &
wpid=$!
"$KLEAK" -d "$T/fake/klog" -o "$T/out-nx" -q -N 0 -- /nonexistent/cmd > /dev/null 2> "$T/nx.err"
st=$?
: <> "$T/fake/klog/cpu0"	# a writer still waiting in open() goes on, then ends
wait $wpid
[ $st = 127 ] && grep -qxF "kleak: /nonexistent/cmd: cannot run it: No such file or directory" "$T/nx.err" &&
	! grep -q "write:" "$T/nx.err" && [ "$(cat "$T/fake/kleak/enabled")" = 0 ] &&
	[ "$(cat "$T/fake/klog/create")" = 0 ]
result command-not-found-readers-stopped-first $? "exit $st (want 127)" "$(cat "$T/nx.err")"


# Item 11: names from DIR/kallsyms and DIR/kleak.info reach the terminal
# escaped as klog -r escapes a record's text (no raw ESC byte)
rm -rf "$T/esc"; cp -r "$T/cap" "$T/esc"
sed -i 's/ kleak_test_leak\t\[kleak_test_mod\]/ evil\x1b[2Jname\t[mod\x07]/' "$T/esc/kallsyms"
sed -i 's/^filter none$/filter size=1\x1b]0;x\x07/' "$T/esc/kleak.info"
"$KLEAK" -r "$T/esc" -N 0 > "$T/esc.out" 2> "$T/esc.err"
st=$?
[ $st = 0 ] && ! grep -q $'\x1b' "$T/esc.out" && ! grep -q $'\x07' "$T/esc.out" &&
	grep -qF '  evil\x1b[2Jname+0x10/0x100 [mod\x07]' "$T/esc.out" &&
	grep -qF ', filter: size=1\x1b]0;x\x07' "$T/esc.out"
result report-names-escaped $? "exit $st" "$(cat -v "$T/esc.out" "$T/esc.err")"

# Item 12: kleak -r reads DIR/kallsyms and DIR/kleak.info as klog reads
# its files: a FIFO is refused at once (no hang), a link is not followed
# (a link to /dev/zero was read until memory ran out; here the link is
# to a regular file, the message the same), a file larger than kleak
# writes is refused; each an error naming the file, exit 1. The timeout
# only ends a kleak that would hang.
bad_input() {	# NAME FILE MESSAGE: DIR/FILE made bad before the call
	local st
	timeout 120 "$KLEAK" -r "$T/bad" -N 0 > /dev/null 2> "$T/bad.err"
	st=$?
	[ $st = 1 ] && grep -qxF "kleak: $T/bad/$2: $3" "$T/bad.err"
	result "$1" $? "exit $st (want 1), want: $T/bad/$2: $3" "$(cat "$T/bad.err")"
}
for f in kallsyms kleak.info; do
	rm -rf "$T/bad"; cp -r "$T/cap" "$T/bad"
	rm "$T/bad/$f"; mkfifo "$T/bad/$f"
	bad_input report-$f-fifo-refused $f "not a regular file (a FIFO)"
	rm "$T/bad/$f"; ln -s "$T/cap/$f" "$T/bad/$f"
	bad_input report-$f-link-not-followed $f "open: is a symbolic link (not followed)"
done
rm -rf "$T/bad"; cp -r "$T/cap" "$T/bad"
truncate -s 1M "$T/bad/kleak.info"
bad_input report-kleak.info-too-large kleak.info "larger than 65536 bytes: not a file this program wrote"
# no DIR/kallsyms: the running kernel's, as before
rm -rf "$T/bad"; cp -r "$T/cap" "$T/bad"; rm "$T/bad/kallsyms"
"$KLEAK" -r "$T/bad" -N 0 > /dev/null 2> "$T/bad.err"
result report-no-kallsyms-uses-proc $? "$(cat "$T/bad.err")"
# kleak.info is read strictly: a line kleak does not write, or a seq
# behind the records' (the tail loss would come out too small), is an
# error naming it, never a silently wrong report
rm -rf "$T/bad"; cp -r "$T/cap" "$T/bad"
sed -i '1s/^/sqe 5\n/' "$T/bad/kleak.info"
bad_input report-info-unknown-key-refused kleak.info:1 "unknown key"
rm -rf "$T/bad"; cp -r "$T/cap" "$T/bad"
sed -i 's/^seq \([0-9]*\)$/seq 1/' "$T/bad/kleak.info"
timeout 120 "$KLEAK" -r "$T/bad" -N 0 > /dev/null 2> "$T/bad.err"
st=$?
[ $st = 1 ] && grep -q "^kleak: $T/bad/kleak.info: seq 1, but the records go to seq [0-9]*: not this capture's file$" "$T/bad.err"
result report-info-seq-behind-refused $? "exit $st" "$(cat "$T/bad.err")"


# Item 16: a killed klog -e's saved call-site state (kleak-mod's own site
# may be off in it) is put back by kleak, which takes the same lock
rm -rf "$T/fake" "$T/state"; mkdir -m 700 "$T/state"
$GEN fake "$T/fake"
printf '# file:line [module]function =flags "format" id=N records=N\n' > "$T/fake/klog/control"
printf '# klog site state 1 boot=%s pid=1 dir=%s\n5\tp\n6\tp\n' \
	"$(cat /proc/sys/kernel/random/boot_id)" "$T/fake/klog" > "$T/state/sites.saved"
KLOG_STATE_DIR=$T/state "$KLEAK" -d "$T/fake/klog" -o "$T/out-st" -t 0.1 -q -N 0 > /dev/null 2> "$T/st.err"
st=$?
[ $st = 0 ] && [ ! -e "$T/state/sites.saved" ] &&
	[ "$(head -n 1 "$T/fake/klog/control")" = "id 5-6 =p" ] &&
	grep -qxF "kleak: $T/state/sites.saved: a killed collector's saved call-site state: put back (2 sites)" "$T/st.err"
result sites-saved-put-back-by-kleak $? "exit $st" "$(cat "$T/st.err")" "$(head -n 1 "$T/fake/klog/control")"


# Item 17: DIR is held open once checked. The COMMAND moves DIR away and
# puts a link to another directory in its place: the files written at
# the stop (kallsyms again, kleak.info) and the report's reads still go
# to the directory that was checked, nothing to the link's target.
rm -rf "$T/fake" "$T/sw" "$T/sw.real" "$T/victim-dir"
$GEN fake "$T/fake"
mkdir "$T/victim-dir"
"$KLEAK" -d "$T/fake/klog" -o "$T/sw" -q -N 0 -- sh -c 'mv "$0" "$0.real" && ln -s "$1" "$0"' \
	"$T/sw" "$T/victim-dir" > "$T/sw.out" 2> "$T/sw.err"
st=$?
[ $st = 0 ] && [ -z "$(ls -A "$T/victim-dir")" ] && grep -qx "seq 149" "$T/sw.real/kleak.info" &&
	cmp -s "$T/fake/klog/cpu0" "$T/sw.real/cpu0" &&
	grep -q "^records      146 kleak records, 3 lost" "$T/sw.out"
result output-dir-held-open $? "exit $st" "$(cat "$T/sw.err")" "victim-dir: $(ls -A "$T/victim-dir")"

# ---- no sanitizer report from any check above -----------------------------
san_result sanitizers "$T/san"

exit $FAILED
