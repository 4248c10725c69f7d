# SPDX-License-Identifier: GPL-2.0
# The jump-label job: the klog KUnit suite on the benchmark kernel, whose
# static keys are real (CONFIG_JUMP_LABEL=y: enabling klog patches every
# call site's branch), where the test kernel's are plain branches. KUnit
# is a module there: load it first.
. /guest/lib.sh
insmod /lib/modules/kunit.ko || result "not ok" "kunit:klog-jump-label:insmod-kunit"
run_kunit klog_kunit klog-jump-label
