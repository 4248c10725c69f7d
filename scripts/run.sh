#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run.sh: the main job. Build (or reuse) the test kernel from patches/,
# boot it under QEMU with 4 vCPUs, load klog-mod and test_klog, collect
# real klog traffic with the klog collector, and show the output.
. "$(dirname "$0")/common.sh"
"$KLOG_REPO/scripts/deps.sh"
"$KLOG_REPO/scripts/tree.sh"
"$KLOG_REPO/scripts/build-kernel.sh" test "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/test.config"
"$KLOG_REPO/scripts/initramfs.sh" test
logf=$KLOG_CACHE/console-run.log
KLOG_CMDLINE="loglevel=4" "$KLOG_REPO/scripts/vm.sh" test run "$logf" 600
# The guest's own output, without the boot messages.
sed -n '/^KLOG-GUEST:/,$p' "$logf" | grep -v '^KLOG-GUEST-DONE\|reboot: ' | sed 's/\r$//'
"$KLOG_REPO/scripts/vmlog.py" "$logf" > /dev/null ||
	die "the VM run was not clean: see $logf"
log "console log: $logf"
