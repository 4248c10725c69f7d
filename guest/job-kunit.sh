# SPDX-License-Identifier: GPL-2.0
# The jump-label job: the klog KUnit suites on the benchmark kernel, whose
# static keys are real (CONFIG_JUMP_LABEL=y: enabling klog patches every
# call site's branch), where the test kernel's are plain branches. KUnit
# is a module there: load it first. Then the control selftest.
. /guest/lib.sh
insmod /lib/modules/kunit.ko || result "not ok" "kunit:klog-jump-label:insmod-kunit"
run_kunit klog_kunit klog-jump-label
run_kunit klog_sites_kunit klog-sites-jump-label
# The packing of klog_printk()'s arguments, built without KASAN here:
# its word-at-a-time string copy inlined as it runs in production.
run_kunit klog_format_kunit klog-format-jump-label
# The control selftest too, with a handler registered, so that enabling
# and disabling sites patches their branches for real.
if insmod /lib/modules/klog-mod.ko; then
	run_kselftest /tests/klog_control_test.sh |
		sed 's/ selftest:klog_control_test\.sh:/ selftest:klog-jump-label:klog_control_test.sh:/'
	rmmod klog_mod || result "not ok" "kunit:klog-jump-label:rmmod-klog_mod"
else
	result "not ok" "kunit:klog-jump-label:insmod-klog-mod"
fi
