# SPDX-License-Identifier: GPL-2.0
# The dump on an oops in nmi context: see guest/crash-ctx.sh.
ctx=nmi
. /guest/crash-ctx.sh
