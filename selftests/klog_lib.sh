# SPDX-License-Identifier: GPL-2.0
#
# klog_lib.sh - what the klog shell selftests share; sourced, not run:
#	. "$(dirname "$0")/klog_lib.sh"
#
# tap STATUS NAME [DIAG...]: the next TAP result line, "ok N NAME" if
# STATUS is 0, else "not ok N NAME" (and fail=1). Each non-empty DIAG is
# printed before it, every line as a "# " comment.

n=0
fail=0

tap() {
	_tap_st=$1 _tap_name=$2
	shift 2
	n=$((n + 1))
	for _tap_d in "$@"; do
		[ -n "$_tap_d" ] && echo "$_tap_d" | sed 's/^/# /'
	done
	if [ "$_tap_st" = 0 ]; then
		echo "ok $n $_tap_name"
	else
		echo "not ok $n $_tap_name"
		fail=1
	fi
}
