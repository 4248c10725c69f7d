# SPDX-License-Identifier: GPL-2.0
#
# checks/lib.sh - what the host checks (checks/*/run.sh) share; sourced:
#	. "$ROOT/checks/lib.sh"
#
# Each check prints "ok NAME" or "not ok NAME", details of a failure on
# stderr as "# ..." lines, and sets FAILED=1 if it failed; run.sh exits
# 1 if any did.

FAILED=0

# tree_copy DIR: the tool (tools/klog), its library (tools/lib/klog), the
# kernel headers it compiles (kernel/klog_{format,query}.h) and the
# samples, copied to DIR in the kernel tree's layout, so that a build
# there leaves nothing in the repo. Sets nothing; needs $ROOT.
tree_copy() {
	mkdir -p "$1/tools/lib" "$1/kernel" "$1/samples"
	cp -r "$ROOT/tools/klog" "$1/tools/"
	cp -r "$ROOT/tools/lib/klog" "$1/tools/lib/"
	cp "$ROOT"/kernel/klog*.h "$1/kernel/"
	cp -r "$ROOT/samples/klog" "$1/samples/"
	rm -f "$1/tools/klog/klog" "$1/samples/klog/kleak/kleak" "$1/samples/klog/reserve/reserve" \
		"$1/samples/klog/klog/klog-sample"
}

ok() { echo "ok $1"; }

# not_ok NAME [DETAIL...]
not_ok() {
	echo "not ok $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /' >&2
	FAILED=1
}

# result NAME STATUS [DETAIL...]: ok if STATUS is 0
result() {
	local name=$1 st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# same NAME FILE-EXPECTED FILE-GOT
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3")"; fi
}

# same_lines NAME FILE LINE...: FILE holds exactly the lines LINE...
same_lines() {
	local name=$1 got=$2
	shift 2
	printf '%s\n' "$@" > "$T/same_lines.exp"
	same "$name" "$T/same_lines.exp" "$got"
}

# has NAME FILE TEXT: FILE contains TEXT (fixed string)
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1" "expected: $3" "got:" "$(cat "$2")"; fi
}

# has_line NAME FILE TEXT: FILE contains the line TEXT (fixed, whole line)
has_line() {
	if grep -qxF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1" "expected: $3" "got:" "$(cat "$2")"; fi
}

# expect NAME STATUS TEXT CMD...: CMD, its stdout thrown away, exits
# STATUS and its stderr (kept in $T/expect.err) holds TEXT (fixed
# string); expect_line: TEXT is a whole line of it; expect_all: TEXT is
# all of it
expect() { _expect "" "$@"; }
expect_line() { _expect x "$@"; }
expect_all() { _expect = "$@"; }
_expect() {
	local x=$1 name=$2 want=$3 text=$4 st got
	shift 4
	"$@" > /dev/null 2> "$T/expect.err"
	st=$?
	got=$(cat "$T/expect.err")
	if [ $st = "$want" ] && if [ "$x" = = ]; then [ "$got" = "$text" ]; else
		grep -q${x}F -- "$text" "$T/expect.err"; fi; then ok "$name"; else
		not_ok "$name" "exit $st (want $want), want: $text" "got: $got"; fi
}

# bg_signal SIG ERR ARGS...: run ARGS as a background job of a
# non-interactive shell (which starts it with SIGINT ignored, as a script
# or a walk-through does) and send it SIG as soon as it prints its
# "recording" line; its stderr goes to ERR, its exit status is the
# function's. No sleep: the line itself is the condition.
bg_signal() {
	local sig=$1 err=$2
	shift 2
	: > "$err"
	sh -c '
	sig=$1 err=$2
	shift 2
	{ "$@" 2>&1 >/dev/null & echo "pid $!"; wait $!; echo "exit $?"; } | {
		pid= ready= st=1
		while IFS= read -r l; do
			case $l in
			"pid "*) pid=${l#pid } ;;
			"exit "*) st=${l#exit } ;;
			*) printf "%s\n" "$l" >> "$err"
			   case $l in *": recording "*) ready=1 ;; esac ;;
			esac
			if [ -n "$ready" ] && [ -n "$pid" ]; then
				kill -"$sig" "$pid"
				ready=
			fi
		done
		exit "$st"
	}' sh "$sig" "$err" "$@"
}

# ---- sanitizers -------------------------------------------------------------
# The host checks run the collectors built with SAN_CFLAGS (also as
# LDFLAGS). -fno-sanitize-recover=all: the first report ends the program.
SAN_CFLAGS="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"

# san_env DIR: every sanitizer report of a program run from now on goes
# to DIR/report.PID, whatever the check does with its stderr, and the
# program exits with status 86 (no check expects that status).
san_env() {
	mkdir -p "$1"
	export ASAN_OPTIONS="log_path=$1/report:exitcode=86:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$1/report:exitcode=86:print_stacktrace=1:halt_on_error=1"
}

# san_result NAME DIR: ok if no program wrote a sanitizer report into DIR
# (san_env); each report's first lines are the failure's details.
san_result() {
	local f details=
	for f in "$2"/report.*; do
		[ -e "$f" ] || continue
		details="$details$f:
$(grep -m 1 -E 'ERROR|runtime error|Sanitizer' "$f")
$(grep -E '^ +#[0-9]+ ' "$f" | head -n 6)
"
	done
	if [ -z "$details" ]; then ok "$1"; else not_ok "$1" "$details"; fi
}
