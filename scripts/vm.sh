#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh BUILD JOB LOG [TIMEOUT]: boot $KLOG_CACHE/build-BUILD's bzImage with
# the initramfs of that build under QEMU TCG on 4 vCPUs, run guest job JOB
# (guest/job-JOB.sh), and write the serial console to LOG (also shown on
# stdout when VERBOSE=1). The guest ends itself with reboot -f; QEMU runs
# with -no-reboot so that exits at once. A guest still running after
# TIMEOUT seconds (default 900) is killed.
. "$(dirname "$0")/common.sh"
build=$1 job=$2 logf=$3 tmo=${4:-900}
b=$KLOG_CACHE/build-$build
[ -f "$b/arch/x86/boot/bzImage" ] || die "no kernel in $b: run make kernel"
[ -f "$b/klog-initramfs.cpio.gz" ] || die "no initramfs in $b: run make initramfs"

log "booting build-$build (job=$job, 4 vCPUs, ${KLOG_QEMU_ACCEL:-tcg,thread=multi}, timeout ${tmo}s)"
for attempt in 1 2; do
start=$SECONDS
set +e
timeout --foreground -k 10 "$tmo" qemu-system-x86_64 \
	-accel "${KLOG_QEMU_ACCEL:-tcg,thread=multi}" -cpu max -smp 4 -m 2G \
	-kernel "$b/arch/x86/boot/bzImage" -initrd "$b/klog-initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=6 klog.job=$job ${KLOG_CMDLINE:-}" \
	-display none -monitor none -serial stdio -no-reboot < /dev/null |
	if [ "${VERBOSE:-0}" = 1 ]; then tee "$logf"; else cat > "$logf"; fi
rc=${PIPESTATUS[0]}
set -e
log "guest ended after $((SECONDS - start)) s (qemu exit $rc)"
[ "$rc" != 124 ] || echo "KLOG-HOST: timeout after ${tmo}s" >> "$logf"
# A kernel that died before it reached /init ran none of our code (TCG's
# cross-modifying code has been seen to kill a boot this way): boot once
# more, keeping the first log. Anything after /init started counts.
grep -q '^KLOG-GUEST:' "$logf" && break
[ $attempt = 1 ] || break
cp "$logf" "$logf.boot-failure"
log "the kernel died before /init; booting again (first log: $logf.boot-failure)"
done
exit 0
