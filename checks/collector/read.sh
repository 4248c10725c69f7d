# SPDX-License-Identifier: GPL-2.0
#
# checks/collector/read.sh - reading with klog (issue X.4): the pager of
# klog -r, --color, klog -r -f following a collection still being
# written, a slow reader of -f that must not hold up the collection, and
# --follow-output. Sourced by run.sh after its collection checks: uses
# its $T, $KLOG, $ST, $T/gen, $T/expected, fake(), differ(), values(),
# usage() and wait_until().

# on_tty OUT CMD...: CMD with a new terminal (a pty) as stdin, stdout and
# stderr; what it shows goes to OUT (\r\n as \n); its exit status.
on_tty() {
	python3 - "$@" <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
data = b''
while True:
    try:
        d = os.read(fd, 65536)
    except OSError:		# EIO: every end of the terminal is closed
        break
    if not d:
        break
    data += d
_, st = os.waitpid(pid, 0)
open(sys.argv[1], 'wb').write(data.replace(b'\r\n', b'\n'))
sys.exit(os.waitstatus_to_exitcode(st))
EOF
}

# unread OUT FILL CMD...: CMD's stdout is a pipe nobody reads while CMD
# runs, full before it starts if FILL is 1; after it exits, what the
# pipe holds from CMD goes to OUT. Its exit status.
unread() {
	python3 - "$@" <<'EOF'
import os, subprocess, sys
out, fill, cmd = sys.argv[1], sys.argv[2] == '1', sys.argv[3:]
r, w = os.pipe()
n = 0
if fill:
    os.set_blocking(w, False)
    try:
        while True:
            n += os.write(w, b'\0' * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(w, True)
st = subprocess.call(cmd, stdout=w)
os.close(w)
data = b''
while True:
    d = os.read(r, 65536)
    if not d:
        break
    data += d
open(out, 'wb').write(data[n:])
sys.exit(st)
EOF
}

lines_are() { [ -e "$1" ] && [ "$(wc -l < "$1")" = "$2" ]; }	# FILE N
nocolor() { sed 's/\x1b\[[0-9;]*m//g' "$@"; }
E=$(printf '\033')
unset NO_COLOR		# --color's auto is checked with and without it

# ---- the pager -----------------------------------------------------------
# On a terminal klog -r pipes its text, and its summary, through $PAGER,
# coloured (auto: the pager shows it on a terminal); nothing else shows.
"$KLOG" -r "$T/gen" --color=always > "$T/pg.exp" 2> /dev/null
echo "klog: 10 records from 3 CPUs, 6 lost" >> "$T/pg.exp"
rm -f "$T/pg.out"
PAGER="cat > '$T/pg.out'" on_tty "$T/pg.tty" "$KLOG" -r "$T/gen"
st=$?
[ $st = 0 ] && [ ! -s "$T/pg.tty" ] && cmp -s "$T/pg.exp" "$T/pg.out"
result pager-gets-text-and-summary $? "exit $st" "$(cat -v "$T/pg.tty")" \
	"$(diff "$T/pg.exp" "$T/pg.out" 2>&1)"
# PAGER unset: less -R, with LESS=FRX when LESS is unset (a stand-in less)
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "$* LESS=$LESS" > "%s/less.args"\ncat > "%s/less.out"\n' \
	"$T" "$T" > "$T/bin/less"
chmod +x "$T/bin/less"
rm -f "$T/less.args"
on_tty "$T/pg.tty" env -u PAGER -u LESS PATH="$T/bin:$PATH" "$KLOG" -r "$T/gen"
st=$?
[ $st = 0 ] && [ "$(cat "$T/less.args")" = "-R LESS=FRX" ] && cmp -s "$T/pg.exp" "$T/less.out"
result pager-default-less $? "exit $st" "$(cat "$T/less.args")"
# no pager: PAGER empty or cat, --no-pager, stdout not a terminal, PAGER
# unset and no less in PATH
mkdir -p "$T/noless"
for how in empty cat option pipe noless; do
	rm -f "$T/less.args"
	case $how in
	noless) on_tty "$T/pg.tty" env -u PAGER PATH="$T/noless" "$KLOG" -r "$T/gen" ;;
	empty) on_tty "$T/pg.tty" env PATH="$T/bin:$PATH" PAGER= "$KLOG" -r "$T/gen" ;;
	cat) on_tty "$T/pg.tty" env PATH="$T/bin:$PATH" PAGER=cat "$KLOG" -r "$T/gen" ;;
	option) on_tty "$T/pg.tty" env -u PAGER PATH="$T/bin:$PATH" "$KLOG" -r "$T/gen" --no-pager ;;
	pipe) env -u PAGER PATH="$T/bin:$PATH" "$KLOG" -r "$T/gen" > "$T/pg.tty" 2>&1 ;;
	esac
	st=$?
	[ $st = 0 ] && [ ! -e "$T/less.args" ] && [ "$(nocolor "$T/pg.tty" | wc -l)" = 15 ]
	result pager-none-$how $? "exit $st" "$(cat "$T/pg.tty")"
done
# the pager quits (q) long before the end: klog stops quietly, exit 0
"$KLOG" -r "$T/out-live" 2> /dev/null | head -n 1 > "$T/pq.exp"
PAGER="head -n 1 > '$T/pq.out'" on_tty "$T/pg.tty" sh -c '"$0" -r "$1" 2> "$2"' \
	"$KLOG" "$T/out-live" "$T/pq.err"
st=$?
[ $st = 0 ] && [ ! -s "$T/pq.err" ] && [ -s "$T/pq.exp" ] && nocolor "$T/pq.out" | cmp -s - "$T/pq.exp"
result pager-quit-quiet $? "exit $st" "$(cat "$T/pq.err")"
# klog waits for the pager: what it leaves is there when klog returns
rm -f "$T/pw.out"
PAGER="cat > '$T/pw.tmp'; mv '$T/pw.tmp' '$T/pw.out'" on_tty "$T/pg.tty" "$KLOG" -r "$T/gen"
st=$?
[ $st = 0 ] && cmp -s "$T/pg.exp" "$T/pw.out"
result pager-waited-for $? "exit $st"
PAGER=/nonexistent/pager on_tty "$T/pg.tty" "$KLOG" -r "$T/gen"
st=$?
[ $st = 1 ] && grep -qF "klog: PAGER '/nonexistent/pager' could not run (exit status 127); --no-pager or PAGER= prints without one" "$T/pg.tty"
result pager-cannot-run $? "exit $st" "$(cat "$T/pg.tty")"

# ---- colours ----------------------------------------------------------------
"$KLOG" -r "$T/gen" --color always > "$T/co.out" 2> /dev/null
nocolor "$T/co.out" | cmp -s - "$T/expected"
result color-adds-only-colours $? "$(diff "$T/expected" <(nocolor "$T/co.out"))"
has_line color-cpu-ctx "$T/co.out" "[1.000000100] $E[36mcpu0$E[0m 1 $E[32mtask$E[0m init_fn:10: hello world"
has_line color-loss "$T/co.out" "[1.000000400] $E[36mcpu2$E[0m $E[1;31m*** 3 records lost ***$E[0m"
n=$(grep -cF "$E[33msoftirq$E[0m" "$T/co.out")/$(grep -cF "$E[35mhardirq$E[0m" "$T/co.out")
n=$n/$(grep -cF "$E[1;35mnmi$E[0m" "$T/co.out")/$(grep -cF "$E[1;31m***" "$T/co.out")
[ "$n" = 2/2/1/4 ]
result color-contexts $? "softirq/hardirq/nmi/loss lines: $n, want 2/2/1/4"
"$KLOG" -r "$T/gen" --color always --time rel > "$T/co.out" 2> /dev/null
has_line color-time-rel "$T/co.out" "[+0.000000300] $E[36mcpu2$E[0m $E[1;31m*** 3 records lost ***$E[0m"
# auto: on a terminal unless NO_COLOR is set (and not empty); never JSON
for how in auto NO_COLOR never json; do
	case $how in
	auto) on_tty "$T/co.tty" env PAGER= NO_COLOR= "$KLOG" -r "$T/gen" ;;
	NO_COLOR) on_tty "$T/co.tty" env PAGER= NO_COLOR=1 "$KLOG" -r "$T/gen" ;;
	never) on_tty "$T/co.tty" env PAGER= "$KLOG" -r "$T/gen" --color=never ;;
	json) on_tty "$T/co.tty" env PAGER= "$KLOG" -r "$T/gen" --json ;;
	esac
	n=$(grep -c "$E\[" "$T/co.tty")
	[ $how = auto ] && want=14 || want=0
	result color-tty-$how $(( n != want )) "$n coloured lines, want $want" "$(cat -v "$T/co.tty")"
done
usage usage-color-value "--color: invalid value 'sometimes' (expected auto, always or never)" \
	-r "$T/gen" --color sometimes
usage usage-color-json "--color colours the text lines of -r and -f, not --json" \
	-r "$T/gen" --json --color always
usage usage-color-collect "--color colours the text lines of -r and -f" --color never -t 1
usage usage-no-pager "--no-pager is an option of -r/--report" --no-pager -t 1
usage usage-follow-output-report "--follow-output FILE is for a collection's -f, not -r" \
	-r "$T/gen" --follow-output "$T/x"
usage usage-report-follow-stat "-r -f follows a collection as text or --json lines, not --stat" \
	-r "$T/gen" -f --stat
usage usage-report-collect-opt "cannot be combined with -t/--duration" -r "$T/gen" -t 1
# -f's lines coloured as klog -r colours them
fake fc
"$KLOG" -d "$T/fake-fc" -o "$T/out-fc" -b 4096 -n 4 -t 0.3 -q -f --color=always \
	> "$T/fc.out" 2> /dev/null
"$KLOG" -r "$T/out-fc" --color always 2> /dev/null | cmp -s - "$T/fc.out"
result color-follow $? "$(cat -v "$T/fc.out")"

# ---- klog -r DIR -f: a collection still being written -----------------------
# A copy of a collection as a running one shows it: DIR/meta without its
# stop lines, cpu0 cut inside its fourth record. The follower prints the
# rest, waits at the cut (no error), and ends once the record is whole
# and DIR/meta has its stop lines; or at SIGINT, with what it saw.
"$KLOG" -r "$T/out-fc" > "$T/tail.all" 2> /dev/null
grep -vxF -e '[1.000000400] cpu2 *** 3 records lost ***' \
	-e "$(grep -F '[2.500000000]' "$T/tail.all")" "$T/tail.all" > "$T/tail.12"
running() {
	rm -rf "$T/run"
	mkdir -m 700 "$T/run"
	cp "$T/out-fc/sites" "$T/out-fc/cpu1" "$T/out-fc/cpu2" "$T/run/"
	grep -v -e '^stop' -e '^clock_stop' -e '^dropped' -e '^bytes' "$T/out-fc/meta" > "$T/run/meta"
	head -c 300 "$T/out-fc/cpu0" > "$T/run/cpu0"
	chmod 600 "$T/run"/*
	rm -f "$T/tail.out"	# not the last run's while this one starts
	"$KLOG" -r "$T/run" -f > "$T/tail.out" 2> "$T/tail.err" &
	kpid=$!
	wait_until lines_are "$T/tail.out" 12
}
running
pre=$?
kill -INT $kpid
wait $kpid
st=$?
[ $pre = 0 ] && [ $st = 0 ] && cmp -s "$T/tail.12" "$T/tail.out" &&
	[ "$(cat "$T/tail.err")" = "klog: 9 records from 3 CPUs, 3 lost so far (the collection had not stopped)" ]
result follow-read-sigint $? "exit $st, pre $pre" "$(cat "$T/tail.err")" \
	"$(diff "$T/tail.12" "$T/tail.out")"
running
pre=$?
tail -c +301 "$T/out-fc/cpu0" >> "$T/run/cpu0"
cp "$T/out-fc/meta" "$T/run/.meta" && mv "$T/run/.meta" "$T/run/meta"
wait $kpid
st=$?
{ cat "$T/tail.12"; grep -F -e '[1.000000400] cpu2 *** 3 records lost ***' -e '[2.500000000]' \
	"$T/tail.all"; } > "$T/tail.exp"
[ $pre = 0 ] && [ $st = 0 ] && cmp -s "$T/tail.exp" "$T/tail.out" &&
	[ "$(cat "$T/tail.err")" = "klog: 10 records from 3 CPUs, 6 lost" ]
result follow-read-partial-tail $? "exit $st, pre $pre" "$(cat "$T/tail.err")" \
	"$(diff "$T/tail.exp" "$T/tail.out")"
# cpu0 cut back to nothing under the follower, whose next read is of the
# record it waits for (a page no longer in the file): an error naming it,
# exit 1, never a SIGBUS
running
pre=$?
truncate -s 0 "$T/run/cpu0"
cp "$T/out-fc/meta" "$T/run/.meta" && mv "$T/run/.meta" "$T/run/meta"
wait $kpid
st=$?
[ $pre = 0 ] && [ $st = 1 ] &&
	grep -qxF "klog: $T/run/cpu0: cut back while it was read (the collection was resumed?)" "$T/tail.err"
result follow-read-file-cut $? "exit $st, pre $pre" "$(cat "$T/tail.err")"
# plain -r of it, cut: the error, and what DIR/meta says
running
kill -INT $kpid
wait $kpid
expect_line report-running-hint 1 "klog: $T/run: DIR/meta has no stop line: its collection is still being written (klog -r -f follows it), or its collector was killed" \
	"$KLOG" -r "$T/run"
# a collection that has stopped: -r -f is -r
"$KLOG" -r "$T/out-fc" -f > "$T/tail.out" 2> /dev/null
st=$?
[ $st = 0 ] && cmp -s "$T/tail.all" "$T/tail.out"
result follow-read-stopped $? "exit $st"
# live: the follower starts with the collector (at its recording line)
# and ends with it; it prints every line of the report, each CPU's in
# order (between CPUs a line waits for the others up to a second: on a
# loaded machine one may come before an older one of another CPU)
rm -f "$T/fl.err"
fake fl live
"$KLOG" -d "$T/fake-fl" -o "$T/out-fl" -b 4096 -q -- "$ST" live "$T/fake-fl" 1.0 \
	2> "$T/fl.err" &
kpid=$!
wait_until grep -qs ': recording ' "$T/fl.err"
"$KLOG" -r "$T/out-fl" -f > "$T/fl.out" 2> "$T/fl.sum"
st=$?
wait $kpid
"$KLOG" -r "$T/out-fl" > "$T/fl.exp" 2> "$T/fl.expsum"
bycpu() { awk '{ print > (FILENAME "." $2) }' "$1"; }
rm -f "$T"/fl.out.cpu* "$T"/fl.exp.cpu*
bycpu "$T/fl.out"
bycpu "$T/fl.exp"
bad=
for c in 0 1 2; do cmp -s "$T/fl.exp.cpu$c" "$T/fl.out.cpu$c" || bad="$bad cpu$c"; done
[ $st = 0 ] && [ -z "$bad" ] && [ "$(wc -l < "$T/fl.out")" = "$(wc -l < "$T/fl.exp")" ] &&
	[ "$(sort "$T/fl.out" | md5sum)" = "$(sort "$T/fl.exp" | md5sum)" ] &&
	cmp -s "$T/fl.sum" "$T/fl.expsum" && [ "$(wc -l < "$T/fl.exp")" -gt 1000 ]
result follow-read-live $? "exit $st, differ:$bad, $(wc -l < "$T/fl.out") lines of $(wc -l < "$T/fl.exp")" \
	"$(cat "$T/fl.sum" "$T/fl.expsum")"

# ---- a slow reader of -f never holds up the collection ---------------------
# stdout a full pipe nobody reads: -t ends the collection on time, the
# files have every record, and each line is counted as not shown
fake slow
unread "$T/slow.out" 1 timeout 60 "$KLOG" -d "$T/fake-slow" \
	-o "$T/out-slow" -b 4096 -n 4 -f -t 0.5 -q 2> "$T/slow.err"
st=$?
bad=$(differ "$T/out-slow")
secs=$(awk '$1 == "start" { a = $2 } $1 == "stop" { b = $2 } END { print b - a }' "$T/out-slow/meta")
[ $st = 0 ] && [ -z "$bad" ] && [ ! -s "$T/slow.out" ] &&
	grep -qxF "klog: 14 lines not shown: output too slow" "$T/slow.err" &&
	grep -qx 'stop_reason duration reached' "$T/out-slow/meta" &&
	awk -v s="$secs" 'BEGIN { exit !(s >= 0.5 && s < 10) }'
result follow-slow-reader-full-pipe $? "exit $st, differ:$bad, $secs s" "$(cat "$T/slow.err")"
# a pipe that takes some: the lines it holds are the report's first
# ones, and the rest is the count said, exactly
fake slow live
unread "$T/slow.out" 0 timeout 60 "$KLOG" -d "$T/fake-slow" \
	-o "$T/out-slow" -b 4096 -f -q -- "$ST" live "$T/fake-slow" 1.0 2> "$T/slow.err"
st=$?
bad=$(differ "$T/out-slow" "$T/fake-slow/expect-cpu")
"$KLOG" -r "$T/out-slow" > "$T/slow.exp" 2> /dev/null
all=$(wc -l < "$T/slow.exp")
got=$(wc -l < "$T/slow.out")
[ $st = 0 ] && [ -z "$bad" ] && [ "$got" -gt 0 ] && [ "$got" -lt "$all" ] &&
	head -n "$got" "$T/slow.exp" | cmp -s - "$T/slow.out" &&
	grep -qxF "klog: $((all - got)) lines not shown: output too slow" "$T/slow.err"
result follow-slow-reader-counted $? "exit $st, differ:$bad, $got of $all lines shown" \
	"$(cat "$T/slow.err")"

# ---- --follow-output FILE: -f's lines apart from the COMMAND's -----------
fake fo
"$KLOG" -d "$T/fake-fo" -o "$T/out-fo" -b 4096 -n 4 -q --follow-output "$T/fo.lines" \
	-- echo command-output > "$T/fo.out" 2> "$T/fo.err"
st=$?
[ $st = 0 ] && [ "$(cat "$T/fo.out")" = command-output ] &&
	[ "$(stat -c %a "$T/fo.lines")" = 600 ]
result follow-output-apart $? "exit $st" "$(cat "$T/fo.out" "$T/fo.err")"
"$KLOG" -r "$T/out-fo" 2> /dev/null | cmp -s - "$T/fo.lines"
result follow-output-lines $? "$(diff <("$KLOG" -r "$T/out-fo" 2> /dev/null) "$T/fo.lines")"
# refused before the channel is touched: a FIFO nobody reads, a link;
# another user's file (as root) or one with other hard links, unwritten
mkfifo "$T/fo.fifo"
ln -sf "$T/fo.lines" "$T/fo.link"
echo theirs > "$T/fo.theirs"
ln -f "$T/fo.lines" "$T/fo.hard"
refused="fifo link hard"
if [ "$(id -u)" = 0 ]; then
	chown "$(id -u nobody):$(id -g nobody)" "$T/fo.theirs" && refused="$refused theirs"
fi
for f in $refused; do
	case $f in
	fifo) msg="a FIFO nobody reads (start its reader first)" ;;
	link) msg="is a symbolic link (not followed)" ;;
	hard) msg="has other hard links: not written; remove it" ;;
	theirs) msg="owned by uid $(id -u nobody), not by this user: not written; remove it or write elsewhere" ;;
	esac
	[ $f = fifo ] || cp "$T/fo.$f" "$T/fo.before"
	"$KLOG" -d "$T/fake-fo" -o "$T/out-fo" --force -q --follow-output "$T/fo.$f" -t 1 \
		2> "$T/fo.err"
	st=$?
	[ $st = 1 ] && [ "$(cat "$T/fo.err")" = "klog: --follow-output $T/fo.$f: $msg" ] &&
		{ [ $f = fifo ] || cmp -s "$T/fo.$f" "$T/fo.before"; } &&
		[ "$(values "$T/fake-fo" create subbuf_size)" = "0 4096" ]
	result follow-output-refused-$f $? "exit $st" "$(cat "$T/fo.err")"
done
