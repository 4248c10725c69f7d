# SPDX-License-Identifier: GPL-2.0
#
# checks/lib.sh - what the host checks (checks/*/run.sh) share; sourced:
#	. "$ROOT/checks/lib.sh"
#
# Each check prints "ok NAME" or "not ok NAME", details of a failure on
# stderr as "# ..." lines, and sets FAILED=1 if it failed; run.sh exits
# 1 if any did.

FAILED=0

ok() { echo "ok $1"; }

# not_ok NAME [DETAIL...]
not_ok() {
	echo "not ok $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/# /' >&2
	FAILED=1
}

# result NAME STATUS [DETAIL...]: ok if STATUS is 0
result() {
	local name=$1 st=$2
	shift 2
	if [ "$st" -eq 0 ]; then ok "$name"; else not_ok "$name" "$@"; fi
}

# same NAME FILE-EXPECTED FILE-GOT
same() {
	if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1" "$(diff "$2" "$3")"; fi
}

# has NAME FILE TEXT: FILE contains TEXT (fixed string)
has() {
	if grep -qF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1" "expected: $3" "got:" "$(cat "$2")"; fi
}

# has_line NAME FILE TEXT: FILE contains the line TEXT (fixed, whole line)
has_line() {
	if grep -qxF -- "$3" "$2"; then ok "$1"; else
		not_ok "$1" "expected: $3" "got:" "$(cat "$2")"; fi
}
