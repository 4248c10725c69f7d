# SPDX-License-Identifier: GPL-2.0
# The test job: KUnit suites, then every selftest binary in /tests with
# the traffic module loaded.
. /guest/lib.sh

run_kunit klog_kunit klog

insmod /lib/modules/test_klog.ko || result "not ok" "guest:insmod-test_klog"
for t in /tests/*; do
	case "$t" in *.txt) continue ;; esac
	[ -x "$t" ] || continue
	run_kselftest "$t"
done
rmmod test_klog || result "not ok" "guest:rmmod-test_klog"
