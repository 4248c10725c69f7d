# SPDX-License-Identifier: GPL-2.0
# The dump on an oops in hardirq context: see guest/crash-ctx.sh.
ctx=hardirq
. /guest/crash-ctx.sh
