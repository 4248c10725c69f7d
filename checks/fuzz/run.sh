#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fuzz smoke of the collectors' report paths: klog -r (text, --json,
# --ctf read back by babeltrace2, --stat, --plot) and kleak DIR on mutated
# collections, from a fixed seed, with the collectors built with
# AddressSanitizer and UndefinedBehaviorSanitizer (clang, with
# float-cast-overflow, when clang is installed; gcc otherwise). A hang, a
# crash, a sanitizer report, a control byte reaching the terminal, or an
# output that loses a record or a loss without saying so fails; see
# fuzz.py for what is judged and the mutations.
#
# Prints "ok NAME" / "not ok NAME": build, then one per mode (text, json,
# ctf, stat, plot, kleak), base (the unmutated collections) and summary; each
# failure as a "# MODE: iteration I (MUTATION): SYMPTOM" line on stderr.
# Exits 1 if any failed.
#
# Usage: checks/fuzz/run.sh [--iterations N] [--seed S] [--timeout SEC]
#                           [--only I] [--keep] [--full] [--verbose] [--show N]
#   --iterations N  iterations (default 500: about 1.5 minutes on 2
#                   cores, where fuzz.py runs them in one worker per CPU,
#                   for collectors that pass; each hang adds the timeout)
#   --seed S        the seed (default 1, as make check runs it)
#   --timeout SEC   per run; longer is a hang (default 20)
#   --only I        run iteration I alone (with the same seed: the same
#                   mutation), e.g. to see a failure again
#   --keep          keep the work directory (the mutated collections, in
#                   it*/, named in the last line)
#   --verbose       name each iteration's mutation on stderr
#   --show N        print at most N failures per mode (default 10)
#   --full          the longer run of make check-full: 3000 iterations,
#                   8 base collections, a 400,000-line DIR/sites (a
#                   quadratic parse of it takes longer than the timeout)
# Needs cc (clang preferred), make, python3, babeltrace2.

set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/checks/lib.sh"	# ok, not_ok, result
iters= seed=1 timeout=20 only= keep= full= verbose= show=10
while [ $# -gt 0 ]; do
	case $1 in
	--iterations) iters=$2; shift ;;
	--seed) seed=$2; shift ;;
	--timeout) timeout=$2; shift ;;
	--only) only=$2; shift ;;
	--keep) keep=1 ;;
	--full) full=1 ;;
	--verbose) verbose=1 ;;
	--show) show=$2; shift ;;
	*) echo "usage: $0 [--iterations N] [--seed S] [--timeout SEC] [--only I] [--keep] [--full] [--verbose] [--show N]" >&2
	   exit 2 ;;
	esac
	shift
done
T=$(mktemp -d /tmp/klog-fuzz.XXXXXX)
[ -n "$keep" ] || trap 'rm -rf "$T"' EXIT

# ---- build ----------------------------------------------------------------
# From a copy with the tree's layout, so nothing lands in the tree.
# SAN_CFLAGS' -fno-sanitize-recover=all: the first report ends the
# program (exit 86, fuzz.py's ASAN_OPTIONS), so none goes unnoticed.
CC=clang
if ! command -v clang > /dev/null; then
	CC=gcc
	echo "# no clang: the fuzz smoke builds with gcc" >&2
fi
san_make() {	# DIR: make in $T/src/DIR with the sanitizers
	make -s -j"$(nproc)" -C "$T/src/$1" CC=$CC KHDR_INCLUDES="-I$ROOT/include/uapi" \
		CFLAGS="-O1 -g -Werror $SAN_CFLAGS" LDFLAGS="$SAN_CFLAGS"
}
stream_cc() {	# ARGS...: cc ARGS with klog-stream
	cc -std=gnu11 -Wall -Wextra -Werror -O2 -I"$ROOT/include/uapi" -I"$ROOT/tools/lib/klog" \
		"$@" "$ROOT"/tools/lib/klog/klog-stream*.c
}
tree_copy "$T/src"
out=$( (san_make tools/klog && san_make samples/klog/kleak &&
	stream_cc -o "$T/gen" "$ROOT/checks/fuzz/gen.c" &&
	stream_cc -I"$ROOT/samples/klog/kleak" -o "$T/pack" "$ROOT/checks/kleak/pack.c") 2>&1)
result build $? "$CC $SAN_CFLAGS" "$out"
[ -x "$T/src/tools/klog/klog" ] && [ -x "$T/src/samples/klog/kleak/kleak" ] && [ -x "$T/gen" ] || exit 1
if ! command -v babeltrace2 > /dev/null; then
	not_ok babeltrace2 "babeltrace2 is not installed (scripts/deps.sh installs it)"
	exit 1
fi

set --
[ -n "$full" ] && set -- --bases 8 --big-sites 400000 && : "${iters:=3000}"
: "${iters:=500}"
[ -n "$only" ] && set -- "$@" --only "$only"
[ -n "$keep" ] && set -- "$@" --keep
[ -n "$verbose" ] && set -- "$@" --verbose
python3 "$ROOT/checks/fuzz/fuzz.py" --klog "$T/src/tools/klog/klog" --kleak "$T/src/samples/klog/kleak/kleak" \
	--gen "$T/gen" --kleak-gen "$ROOT/checks/kleak/gen.py" --kleak-pack "$T/pack" \
	--work "$T/work" --seed "$seed" --iterations "$iters" --timeout "$timeout" --show "$show" "$@"
st=$?
[ -n "$keep" ] && echo "# kept: $T" >&2
[ $st = 0 ] && exit $FAILED
exit 1
