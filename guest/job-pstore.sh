# SPDX-License-Identifier: GPL-2.0
# The dump survives the reboot: two boots of one QEMU run without
# -no-reboot (scripts/vm.sh with KLOG_VM_REBOOT=1), ramoops in RAM that
# QEMU keeps across the guest's warm reboot (KLOG_CMDLINE: memmap= and
# ramoops.*, see scripts/check.sh). First boot (pstore empty): every
# record of a per-CPU recorder, dumped at an LKDTM panic (panic=-1
# reboots at once). Second boot: the dump read back from
# /sys/fs/pstore, printed as "KLOG-PSTORE: LINE" for the host's judge,
# which compares it with the first boot's KLOG-EXPECT lines; then
# poweroff -f ends QEMU.
. /guest/lib.sh
job=pstore
mkdir -p /sys/fs/pstore
mount -t pstore pstore /sys/fs/pstore || result "not ok" dump:pstore:mount
set -- /sys/fs/pstore/dmesg-ramoops-*
if [ ! -e "$1" ]; then
	if grep -q ramoops /proc/iomem || dmesg | grep -q 'ramoops: using'; then
		result ok dump:pstore:ramoops-first-boot
	else
		result "not ok" dump:pstore:ramoops-first-boot
		dmesg | grep -i -e pstore -e ramoops
	fi
	. /guest/crash-setup.sh
	crash_setup all 0 3 20
	crash panic 3
	result "not ok" dump:pstore:survived
	exit 1
fi
echo "# second boot: $*"
result ok dump:pstore:second-boot
# The kmsg dump of the panic: "<L>[ TIME] TEXT" lines; the dump's part.
cat "$@" | sed 's/^<[0-9]*>\[ *[0-9]*\.[0-9]*\] //' |
	sed -n '/^klog-mod: dump on panic:/,/^klog-mod: end of dump$/p' > /tmp/pstore-dump
if [ -s /tmp/pstore-dump ]; then result ok dump:pstore:found; else result "not ok" dump:pstore:found; fi
sed 's/^/KLOG-PSTORE: /' /tmp/pstore-dump
echo "KLOG-GUEST-DONE: rc=0"
sync
poweroff -f
