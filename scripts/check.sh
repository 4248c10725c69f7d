#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh: everything `make check` runs, from nothing, with one result
# line per check and a final "N passed, N failed" line.
#
#   patches:fresh      patches/ matches what scripts/mkpatches.sh generates
#   patches:apply      git am of patches/ onto the pristine tree
#   build:test-kernel  the test kernel (lockdep, KASAN, atomic-sleep, KUnit)
#   checkpatch/kernel-doc/sparse-W1   scripts/lint.sh
#   docs:*             Sphinx builds klog.rst and relay.rst (check-docs.sh)
#   man:*              klog.1 formats cleanly and matches klog --help (check-man.sh)
#   stubs:*            CONFIG_KLOG=n stubs (scripts/check-stubs.sh)
#   build:i386-compile the core, tests and samples built for 32-bit x86
#   collector-host:*   the collector on the host (checks/collector/run.sh)
#   kleak-host:*       kleak's report on the host (checks/kleak/run.sh)
#   fuzz-host:*        fuzz smoke of klog -r and kleak on mutated
#                      collections, sanitized (checks/fuzz/run.sh)
#   vmlog:*            the console judge catches a planted WARN
#   kunit:*, selftest:*, vm:*   results from inside the VM
#   blktrace:*         relay's oldest client: blktrace and blkparse account
#                      for every event of a known null_blk read pattern
#   dump:*, vm:*-oops|panic|pstore   klog-mod's dump on oops and panic:
#                      an LKDTM oops, a panic in another boot, and a panic
#                      whose dump is read back from pstore after a warm
#                      reboot, each against a known recorder (vmlog.py)
#   export:*           the collection the VM exported as CTF and JSON, read
#                      with babeltrace2 on the host (checks/export/run.sh)
#   sites-boot:*       a boot with klog.sites_default=off and klog.query=:
#                      the sites' state before any collector, <module>.klog=
#   run:*              the main job (make run, scripts/run.sh): null_blk
#                      recorded, a site turned off and on, CTF read back
#                      by babeltrace2, the flight recorder frozen
#   bench:*            the benchmark job runs every row (smoke size)
#   build:bench-kernel, kunit:klog-*jump-label:*   the KUnit suites on the
#                      benchmark kernel, which has jump labels
. "$(dirname "$0")/common.sh"
res=$KLOG_CACHE/results.txt
mkdir -p "$KLOG_CACHE"
: > "$res"
t0=$SECONDS

# The host checks run in the background (host_checks below); host_wait
# waits for them, prints their output and fails if the group failed.
host_pid=
host_out=$KLOG_CACHE/host-checks.out
host_wait() {
	[ -n "$host_pid" ] || return 0
	wait "$host_pid" || rec "not ok" "check:host-checks-exit-$?"
	host_pid=
	cat "$host_out"
}
summary() {
	# An early exit still waits for the host checks: their results count.
	host_wait
	# A step that died without a result of its own must still fail.
	[ "$1" = 0 ] || rec "not ok" "check:aborted-exit-$1"
	pass=$(grep -c '^ok ' "$res" || true)
	fail=$(grep -c '^not ok ' "$res" || true)
	skip=$(grep -c '^skip ' "$res" || true)
	echo
	grep '^not ok ' "$res" | sed 's/^/FAILED: /' || true
	log "check took $((SECONDS - t0)) s"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ]
}
trap 'summary $?' EXIT

"$KLOG_REPO/scripts/deps.sh"

# The host checks need no kernel and mostly run one process at a time:
# they run in the background from here on, beside the patches, the
# kernel build, the lint, the docs, the stubs and 32-bit builds and the
# test VM (about 1.3 of the 2 cores busy), much of which also leaves a
# core free. Their result lines go to $res as they come; their output is
# printed once they are done, after the test VM.
host_checks() {
	local t=$SECONDS
	# The collector's host checks: decoder, report text, options, and
	# whole collections against a fake debugfs directory.
	checks collector-host "$KLOG_REPO/checks/collector/run.sh"
	# kleak's host checks: its report on synthesized collections, loss
	# stated, bad input refused with a message naming it, options.
	checks kleak-host "$KLOG_REPO/checks/kleak/run.sh"
	# The fuzz smoke of the report paths: mutated collections from a
	# fixed seed through klog -r's text, JSON, CTF and --stat and kleak,
	# built with the sanitizers; one result per mode and a summary.
	checks fuzz-host "$KLOG_REPO/checks/fuzz/run.sh"
	log "host checks took $((SECONDS - t)) s"
}
host_checks > "$host_out" 2>&1 &
host_pid=$!

if "$KLOG_REPO/scripts/tree.sh"; then rec ok patches:apply; else rec "not ok" patches:apply; exit 1; fi

# patches/ against what the sources generate now, beside the kernel
# build (after tree.sh: both use the tree's git objects)
fresh_out=$KLOG_CACHE/patches-fresh.out
(
	tmp=$(mktemp -d)
	"$KLOG_REPO/scripts/mkpatches.sh" "$tmp/patches" 2>/dev/null
	if diff -r -I '^index ' -I '^base-commit: ' -I '^From [0-9a-f]\{40\} ' \
			"$tmp/patches" "$KLOG_REPO/patches" > "$tmp/diff"; then
		rec ok patches:fresh
	else
		head -40 "$tmp/diff"
		echo "patches/ is stale against the sources: run 'make patches'" >&2
		rec "not ok" patches:fresh
	fi
	rm -rf "$tmp"
) > "$fresh_out" 2>&1 &
fresh_pid=$!

if "$KLOG_REPO/scripts/build-kernel.sh" test "$KLOG_REPO/config/base.config" "$KLOG_REPO/config/test.config"; then
	rec ok build:test-kernel
else
	rec "not ok" build:test-kernel; exit 1
fi
wait "$fresh_pid" || rec "not ok" "check:patches-fresh-exit-$?"
cat "$fresh_out"

"$KLOG_REPO/scripts/lint.sh" "$res"
"$KLOG_REPO/scripts/check-docs.sh" "$res"
"$KLOG_REPO/scripts/check-man.sh" "$res"
"$KLOG_REPO/scripts/check-stubs.sh" "$res"
"$KLOG_REPO/scripts/check-32bit.sh" "$res"

# The judge must fail a console with a WARN in it, and pass a clean one.
tmp=$(mktemp -d)
printf 'KLOG-RESULT: ok x\n[    1.0] WARNING: CPU: 1 PID: 1 at lib/x.c:1 f+0x1/0x2\nKLOG-GUEST-DONE: rc=0\n' > "$tmp/warn.log"
printf 'KLOG-RESULT: ok x\nKLOG-GUEST-DONE: rc=0\n' > "$tmp/clean.log"
if ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/warn.log" >/dev/null 2>&1 &&
   "$KLOG_REPO/scripts/vmlog.py" "$tmp/clean.log" >/dev/null 2>&1; then
	rec ok vmlog:judges-warn
else
	rec "not ok" vmlog:judges-warn
fi
# An announced oops is expected in a crash job only.
printf 'KLOG-GUEST: job=%s\nKLOG-EXPECT-CRASH: oops\n[    1.0] Oops: invalid opcode: 0000 [#1] SMP\n[    1.1] ---[ end trace 0000000000000000 ]---\nKLOG-GUEST-DONE: rc=0\n' test > "$tmp/test.log"
printf 'KLOG-GUEST: job=%s\nKLOG-EXPECT-CRASH: oops\n[    1.0] Oops: invalid opcode: 0000 [#1] SMP\n[    1.1] ---[ end trace 0000000000000000 ]---\nKLOG-GUEST-DONE: rc=0\n' oops > "$tmp/oops.log"
if ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/test.log" >/dev/null 2>&1 &&
   "$KLOG_REPO/scripts/vmlog.py" "$tmp/oops.log" >/dev/null 2>&1; then
	rec ok vmlog:expected-crash-only-in-crash-jobs
else
	rec "not ok" vmlog:expected-crash-only-in-crash-jobs
fi
# The judge compares a dump with what the job expected: one record line
# missing from the console's dump fails it, a staged NMI record's line or
# the staged line too.
cat > "$tmp/dump.log" <<'EOF2'
KLOG-GUEST: job=oops
KLOG-EXPECT: [1.000000001] cpu0 5 task f:1: a
KLOG-EXPECT: [1.000000002] cpu1 6 task f:1: b
KLOG-EXPECT: [1.000000003] cpu1 6 nmi f:1: c [staged]
KLOG-EXPECT-STAGED: cpu1 staged=1 frozen=0 big=0
KLOG-EXPECT-STATS: cpu0 produced=1 consumed=0 records=1 full=0 big=0 nmi=0 nest=0 max_backlog=0 frozen=0 reentered=0
KLOG-EXPECT-TRIGGER: cpu=0 ts=1 reason=x
KLOG-EXPECT-CRASH: oops
[    2.000000] Oops: invalid opcode: 0000 [#1] SMP
[    2.000001] klog-mod: dump on oops: 2 of 2 records, oldest first
[    2.000002] [1.000000001] cpu0 5 task f:1: a
[    2.000003] [1.000000002] cpu1 6 task f:1: b
[    2.000031] [1.000000003] cpu1 6 nmi f:1: c [staged]
[    2.000004] klog-mod: cpu0 produced=1 consumed=0 records=1 full=0 big=0 nmi=0 nest=0 max_backlog=0 frozen=0 reentered=0
[    2.000041] klog-mod: cpu1 staged=1 frozen=0 big=0
[    2.000005] klog-mod: trigger: cpu=0 ts=1 reason=x
[    2.000006] klog-mod: end of dump
[    2.000007] ---[ end trace 0000000000000000 ]---
KLOG-GUEST-DONE: rc=0
EOF2
grep -v ' 2\.000003\] ' "$tmp/dump.log" > "$tmp/dump-short.log"
grep -v ' 2\.000031\] ' "$tmp/dump.log" > "$tmp/dump-nostaged.log"
grep -v ' 2\.000041\] ' "$tmp/dump.log" > "$tmp/dump-nostagedline.log"
if "$KLOG_REPO/scripts/vmlog.py" "$tmp/dump.log" >/dev/null 2>&1 &&
   ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/dump-short.log" >/dev/null 2>&1 &&
   ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/dump-nostaged.log" >/dev/null 2>&1 &&
   ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/dump-nostagedline.log" >/dev/null 2>&1; then
	rec ok vmlog:judges-dump
else
	rec "not ok" vmlog:judges-dump
fi
# A crash inside the dump: the records before it compared, the nested
# crash's line required; the crash's own report inside is not the dump's.
cat > "$tmp/in-dump.log" <<'EOF2'
KLOG-GUEST: job=oops-in-dump
KLOG-EXPECT: [1.000000001] cpu0 5 task f:1: a
KLOG-EXPECT-CRASH: panic
[    2.000000] Oops: invalid opcode: 0000 [#1] SMP
[    2.000001] klog-mod: dump on oops: 1 of 1 records, oldest first
[    2.000002] [1.000000001] cpu0 5 task f:1: a
[    2.000003] kernel BUG at kernel/klog_relay_dump.c:999!
[    2.000004] klog-mod: dump on oops: a crash inside the dump: it ends here
[    2.000005] Kernel panic - not syncing: Fatal exception in interrupt
[    2.000006] klog-mod: dump on panic: the records were dumped once already, at an earlier oops
EOF2
grep -v ' 2\.000004\] ' "$tmp/in-dump.log" > "$tmp/in-dump-noline.log"
if "$KLOG_REPO/scripts/vmlog.py" "$tmp/in-dump.log" >/dev/null 2>&1 &&
   ! "$KLOG_REPO/scripts/vmlog.py" "$tmp/in-dump-noline.log" >/dev/null 2>&1; then
	rec ok vmlog:judges-crash-inside-dump
else
	rec "not ok" vmlog:judges-crash-inside-dump
fi
rm -rf "$tmp"

if "$KLOG_REPO/scripts/initramfs.sh" test; then
	rec ok build:initramfs-and-selftests
else
	rec "not ok" build:initramfs-and-selftests; exit 1
fi
# The benchmark kernel and its initramfs, which only the last job needs,
# build in the background from here on (niced: the VM jobs keep about
# 1.3 of the 2 cores busy, the build takes what they leave); their
# output is printed when that job waits for them.
bench_out=$KLOG_CACHE/build-bench.out
nice -n 10 sh -c '"$1/scripts/build-kernel.sh" bench "$1/config/base.config" "$1/config/bench.config" &&
	"$1/scripts/initramfs.sh" bench' sh "$KLOG_REPO" > "$bench_out" 2>&1 &
bench_pid=$!
"$KLOG_REPO/scripts/vm.sh" test test "$KLOG_CACHE/console-test.log" "${KLOG_VM_TIMEOUT:-1500}"
"$KLOG_REPO/scripts/vmlog.py" "$KLOG_CACHE/console-test.log" "$res" > /dev/null || true
host_wait
# The collection the test VM exported (guest/export-collection.sh), read
# back on the host with babeltrace2 and compared with its report.
checks export "$KLOG_REPO/checks/export/run.sh" "$KLOG_CACHE/console-test.log"

# Boot parameters (guest/job-sites.sh): call sites off by default, a boot
# query that names modules loaded later, <module>.klog=; then klog
# --sites and -e against that state.
# vm_job KERNEL JOB NAME: boot KERNEL (test, bench) to run guest/job-JOB.sh,
# console-NAME.log judged by vmlog.py, its clean console vm:clean-console-NAME
vm_job() {
	"$KLOG_REPO/scripts/vm.sh" "$1" "$2" "$KLOG_CACHE/console-$3.log" 900
	"$KLOG_REPO/scripts/vmlog.py" "$KLOG_CACHE/console-$3.log" |
		sed "s/ vm:clean-console\$/ vm:clean-console-$3/" | grep -E '^(ok|not ok|skip) ' >> "$res" || true
}
KLOG_CMDLINE='klog.sites_default=off klog.query="module test_klog format TKLG +p; module klog_example func example_init +p"' \
	vm_job test sites sites

# The main job, as make run shows it (guest/job-run.sh): null_blk's
# records counted exactly, the gap of a site turned off, babeltrace2's
# count of the CTF export, the flight recorder frozen by null_blk.
rm -f "$KLOG_CACHE/results-run.txt"
"$KLOG_REPO/scripts/run.sh" --no-build > "$KLOG_CACHE/run.out" 2>&1 || true
grep -E '^(ok|not ok|skip) ' "$KLOG_CACHE/results-run.txt" >> "$res" || true
grep -q '^ok run:' "$KLOG_CACHE/results-run.txt" || rec "not ok" run:ran-nothing

# Dump on oops and panic: each crash in a boot of its own; the pstore job
# boots twice (the panic reboots, QEMU keeps the RAM, so the ramoops
# region below keeps the first boot's dump). The crash matrix: an oops in
# a softirq, a hard interrupt and an NMI, each fatal there (a panic), with
# the control lock held and waited for (guest/crash-ctx.sh); a crash
# inside the dump itself (guest/job-oops-in-dump.sh).
for j in oops panic oops-softirq oops-hardirq oops-nmi oops-in-dump; do
	vm_job test $j $j
done
KLOG_VM_REBOOT=1 KLOG_CMDLINE='memmap=1M$0x40000000 ramoops.mem_address=0x40000000 ramoops.mem_size=0x100000 ramoops.record_size=0x40000' \
	vm_job test pstore pstore

# The benchmark, as a smoke test: every row is measured; nothing timed.
KLOG_CMDLINE="klog.bench=smoke loglevel=4" vm_job test bench bench
# Jump labels: the test kernel has none (multi-threaded TCG has run stale
# translations of code being patched), so the benchmark kernel, which has
# them, boots on single-threaded TCG and runs the KUnit suite: klog's
# static keys are really patched there.
st=0
wait "$bench_pid" || st=$?
cat "$bench_out"
if [ $st = 0 ]; then
	rec ok build:bench-kernel
	KLOG_QEMU_ACCEL=tcg,thread=single vm_job bench kunit jump-label
else
	rec "not ok" build:bench-kernel
fi
grep -E '^(ok|not ok|skip) (kunit|selftest|doc|vm|bench|blktrace|sites-boot|dump|run):' "$res" || true
