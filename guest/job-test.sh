# SPDX-License-Identifier: GPL-2.0
# The test job: KUnit suites, then every selftest binary in /tests with
# the traffic module and the relay handler loaded, then blktrace.
. /guest/lib.sh
for arg in $(cat /proc/cmdline); do
	case "$arg" in klog.gauntlet=*) export KLOG_GAUNTLET=${arg#klog.gauntlet=} ;; esac
done

run_kunit klog_kunit klog
run_kunit klog_sites_kunit klog-sites
run_kunit klog_format_kunit klog-format

insmod /lib/modules/test_klog.ko || result "not ok" "guest:insmod-test_klog"
insmod /lib/modules/klog-mod.ko || result "not ok" "guest:insmod-klog-mod"
insmod /lib/modules/test_klog_format.ko || result "not ok" "guest:insmod-test_klog_format"
for t in /tests/*; do
	case "$t" in *.txt) continue ;; esac
	[ -x "$t" ] || continue
	run_kselftest "$t"
done
sh /guest/export-collection.sh	# for the host's CTF/JSON export check
sh /guest/recorder-cli.sh	# klog --status, --thaw, --stop
rmmod klog_mod || result "not ok" "guest:rmmod-klog_mod"
rmmod test_klog || result "not ok" "guest:rmmod-test_klog"
rmmod test_klog_format || result "not ok" "guest:rmmod-test_klog_format"
sh /guest/job-blktrace.sh	# relay's oldest client, blktrace, on null_blk
sh /guest/doc-example.sh	# the klog.rst walk-through, as documented
