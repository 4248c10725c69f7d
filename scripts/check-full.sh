#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-full.sh: everything make check runs, then the test kernel again
# with KCSAN instead of KASAN (config/kcsan.config) running the test job
# with the gauntlet at full size (KLOG_GAUNTLET=full: over 10 million
# records, a longer fuzzer, more hotplug rounds). Not run by CI: it
# doubles the build and takes far longer in the VM.
. "$(dirname "$0")/common.sh"
"$KLOG_REPO/scripts/check.sh" || true
res=$KLOG_CACHE/results-full.txt
cp "$KLOG_CACHE/results.txt" "$res"
rec() { echo "$1 $2" >> "$res"; echo "$1 $2"; }
"$KLOG_REPO/scripts/check-series.sh" "$res" || true	# each patch builds on its own
if "$KLOG_REPO/scripts/build-kernel.sh" kcsan "$KLOG_REPO/config/base.config" \
		"$KLOG_REPO/config/test.config" "$KLOG_REPO/config/kcsan.config" &&
   "$KLOG_REPO/scripts/initramfs.sh" kcsan; then
	rec ok build:kcsan-kernel
	KLOG_CMDLINE="klog.gauntlet=full" "$KLOG_REPO/scripts/vm.sh" kcsan test \
		"$KLOG_CACHE/console-kcsan.log" 5000
	"$KLOG_REPO/scripts/vmlog.py" "$KLOG_CACHE/console-kcsan.log" /dev/stdout |
		sed 's/^\(ok\|not ok\|skip\) /\1 kcsan:/' | grep -E '^(ok|not ok|skip) ' >> "$res" || true
else
	rec "not ok" build:kcsan-kernel
fi
grep '^not ok' "$res" | sed 's/^/FAILED: /' || true
echo "$(grep -c '^ok ' "$res") passed, $(grep -c '^not ok ' "$res") failed, $(grep -c '^skip ' "$res") skipped"
! grep -q '^not ok' "$res"
