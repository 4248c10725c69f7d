#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh [--no-build]: the main job. Build (or reuse) the test kernel
# from patches/ and its initramfs (not with --no-build: make check has
# built them), boot it under QEMU with 4 vCPUs and run guest/job-run.sh:
# null_blk with the series' example patch under a block load, recorded
# with klog record while one of its sites is turned off and on, read as
# text and --stat, exported as CTF, a flight recorder frozen by null_blk's
# klog_trigger(), kleak. Shows the guest's output with, in its place,
# the host's step: the CTF trace read back by babeltrace2, which must
# count as many events as klog's report has records. The job's checks
# and the host's (run:*) go to $KLOG_CACHE/results-run.txt with the
# console judge's vm:clean-console-run; the last line counts them, and
# the exit status is 1 if any failed.
. "$(dirname "$0")/common.sh"
t0=$SECONDS
if [ "${1:-}" != --no-build ]; then
	"$KLOG_REPO/scripts/deps.sh"
	"$KLOG_REPO/scripts/tree.sh"
	"$KLOG_REPO/scripts/build-kernel.sh" test "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/test.config"
	"$KLOG_REPO/scripts/initramfs.sh" test
fi
logf=$KLOG_CACHE/console-run.log
res=$KLOG_CACHE/results-run.txt
T=$(mktemp -d /tmp/klog-run.XXXXXX)
trap 'rm -rf "$T"' EXIT
: > "$res"
KLOG_CMDLINE="loglevel=4" "$KLOG_REPO/scripts/vm.sh" test run "$logf" 600
"$KLOG_REPO/scripts/vmlog.py" "$logf" | sed 's/ vm:clean-console$/ vm:clean-console-run/' |
	grep -E '^(ok|not ok|skip) ' > "$res" || true

# The guest's own output, without the boot messages, its result lines,
# the tar it sent and the kernel log's lines the quiet console hid (for
# vmlog.py's judgement above).
sed -n '/^KLOG-GUEST:/,$p' "$logf" | sed 's/\r$//' |
	grep -v '^KLOG-\(GUEST-DONE\|RESULT\|B64\|FILE-\|HIDDEN\)\|reboot: ' > "$T/out" || true
sed '/^KLOG-HOST-STEP: /,$d' "$T/out"
n=$(sed -n 's/^KLOG-HOST-STEP: babeltrace2 \([0-9]*\)$/\1/p' "$T/out")
echo
echo "===== (on the host) babeltrace2 ctf | head -n 1; babeltrace2 ctf | wc -l"
if "$KLOG_REPO/scripts/console-file.sh" "$logf" run-ctf.tar.gz "$T" &&
   babeltrace2 "$T/ctf" > "$T/bt" 2> "$T/bt.err"; then
	head -n 1 "$T/bt"
	echo "$(wc -l < "$T/bt") events; klog -r: ${n:-?} records"
	[ "$(wc -l < "$T/bt")" = "${n:-x}" ] && [ ! -s "$T/bt.err" ]
else
	false
fi && echo "ok run:babeltrace2-count" >> "$res" || {
	head -n 5 "$T/bt.err" 2> /dev/null
	echo "not ok run:babeltrace2-count" >> "$res"
}
sed '1,/^KLOG-HOST-STEP: /d' "$T/out"

echo
grep '^not ok ' "$res" | sed 's/^/FAILED: /' || true
log "console log: $logf; make run took $((SECONDS - t0)) s"
echo "checks: $(grep -c '^ok ' "$res") passed, $(grep -c '^not ok ' "$res") failed" \
	"(run:*, vm:clean-console-run; in $res)"
! grep -q '^not ok ' "$res" && grep -q '^ok run:' "$res"
