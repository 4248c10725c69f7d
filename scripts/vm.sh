#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm.sh BUILD JOB LOG [TIMEOUT]: boot $KLOG_CACHE/build-BUILD's bzImage with
# the initramfs of that build under QEMU TCG on 4 vCPUs, run guest job JOB
# (guest/job-JOB.sh), and write the serial console to LOG (also shown on
# stdout when VERBOSE=1). The guest ends itself with reboot -f; QEMU runs
# with -no-reboot so that exits at once. With KLOG_VM_REBOOT=1 a reboot
# (a panic's too: panic=-1) boots the same kernel again in the same RAM,
# which QEMU keeps across the warm reset, as a machine keeps its ramoops
# region (guest/job-pstore.sh); such a guest ends with poweroff -f, which
# the test kernel (no PM) turns into a halt: once the console says
# "System halted", QEMU is ended. A guest still running after TIMEOUT
# seconds (default 900) is killed.
#
# The CPU model is QEMU's "max" without LA57 (5-level paging). With LA57,
# Linux 6.12 with KASAN can report a false "wild-memory-access" at boot:
# identify_cpu() clears boot_cpu_data.x86_capability and detects the
# features again; until alternatives are patched, pgtable_l5_enabled()
# reads that array, so in the window KASAN's addr_has_metadata() uses the
# 4-level address-space layout and an interrupt whose handler checks a
# direct-map address (0xff11..., below the 4-level kernel half) is
# reported (seen under TCG: do_raw_spin_lock() from handle_edge_irq() in
# identify_cpu(), swapper/0). Nothing is retried: a boot that dies or
# splats fails the run.
#
# The lockup detectors wait longer than on hardware (soft lockup after
# 120 s, RCU stall after 300 s, hung task after 600 s): on a loaded
# 2-core host a vCPU thread of the 4 can go unscheduled for tens of
# seconds while the guest clock runs on (seen: "soft lockup - CPU#0 stuck
# for 40s" in migration/0, with two CPU hogs and another build running).
# A real lockup still shows, later; the run's timeout bounds it.
#
# KLOG_QEMU_ICOUNT=1 makes the guest's clock count instructions (QEMU's
# -icount shift=0,sleep=off: one nanosecond per instruction, no waiting
# for the host's time; single-threaded TCG only): a figure timed in the
# guest then depends on the code run, not on the host's load.
. "$(dirname "$0")/common.sh"
build=$1 job=$2 logf=$3 tmo=${4:-900}
b=$KLOG_CACHE/build-$build
[ -f "$b/arch/x86/boot/bzImage" ] || die "no kernel in $b: run make kernel"
[ -f "$b/klog-initramfs.cpio.gz" ] || die "no initramfs in $b: run make initramfs"

slow="watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=300 sysctl.kernel.hung_task_timeout_secs=600"
noreboot=-no-reboot pidf= icount=
[ "${KLOG_QEMU_ICOUNT:-0}" != 1 ] || icount="-icount shift=0,sleep=off"
if [ "${KLOG_VM_REBOOT:-0}" = 1 ]; then
	noreboot=
	pidf=$(mktemp)
	trap 'rm -f "$pidf"' EXIT
fi
# The console as it comes; with reboots allowed, end QEMU once the guest
# halted (no power-off handler: the halted guest would wait forever).
console() {
	if [ -z "$pidf" ]; then
		cat
		return
	fi
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		*"reboot: "*"System halted"*) kill "$(cat "$pidf")" 2>/dev/null ;;
		esac
	done
}
log "booting build-$build (job=$job, 4 vCPUs, ${KLOG_QEMU_ACCEL:-tcg,thread=multi}${icount:+, $icount}, timeout ${tmo}s${noreboot:+, -no-reboot})"
start=$SECONDS
set +e
timeout --foreground -k 10 "$tmo" qemu-system-x86_64 \
	-accel "${KLOG_QEMU_ACCEL:-tcg,thread=multi}" -cpu max,la57=off -smp 4 -m 2G \
	-kernel "$b/arch/x86/boot/bzImage" -initrd "$b/klog-initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 loglevel=6 $slow klog.job=$job ${KLOG_CMDLINE:-}" \
	-display none -monitor none -serial stdio $noreboot ${pidf:+-pidfile "$pidf"} $icount < /dev/null |
	console | if [ "${VERBOSE:-0}" = 1 ]; then tee "$logf"; else cat > "$logf"; fi
rc=${PIPESTATUS[0]}
set -e
log "guest ended after $((SECONDS - start)) s (qemu exit $rc)"
[ "$rc" != 124 ] || echo "KLOG-HOST: timeout after ${tmo}s" >> "$logf"
exit 0
