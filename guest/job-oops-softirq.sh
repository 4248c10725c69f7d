# SPDX-License-Identifier: GPL-2.0
# The dump on an oops in softirq context: see guest/crash-ctx.sh.
ctx=softirq
. /guest/crash-ctx.sh
