#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-man.sh RESULTS: the klog collector's manual page,
# tools/klog/klog.1.
#
#   man:klog-format   groff formats it without a warning (-ww)
#   man:klog-options  its OPTIONS section lists exactly the options of
#                     `klog --help`, short and long names paired the same
#                     way; the collector is built on the host for this
#
# Both sides are read as a person reads them: the help text as printed,
# the page as formatted (groff -Tascii), every "-x, --long" at the start
# of a line.
. "$(dirname "$0")/common.sh"
res=${1:?usage: check-man.sh RESULTS_FILE}
page=$KLOG_REPO/tools/klog/klog.1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v groff >/dev/null; then
	echo "groff not found: apt-get install groff-base (scripts/deps.sh)" >&2
	rec "not ok" man:klog-format
	rec "not ok" man:klog-options
	exit 0
fi
if groff -man -Tascii -ww -z "$page" > "$tmp/groff" 2>&1 && [ ! -s "$tmp/groff" ]; then
	rec ok man:klog-format
else
	cat "$tmp/groff" >&2
	rec "not ok" man:klog-format
fi

# The tool, built from a copy with the tree's layout (checks/lib.sh).
ROOT=$KLOG_REPO
. "$KLOG_REPO/checks/lib.sh"
tree_copy "$tmp"
if ! make -s -j"$(nproc)" -C "$tmp/tools/klog" KHDR_INCLUDES="-I$KLOG_REPO/include/uapi" > "$tmp/build" 2>&1; then
	cat "$tmp/build" >&2
	rec "not ok" man:klog-options
	exit 0
fi

opts() { sed -n 's/^ *\(-[A-Za-z0-9]\), \(--[a-z0-9-]*\).*/\1 \2/p' | sort -u; }
"$tmp/tools/klog/klog" --help | opts > "$tmp/help"
groff -man -Tascii -P-cbou "$page" 2>/dev/null |
	sed -n '/^OPTIONS/,/^[A-Z]/p' | opts > "$tmp/man"
if [ -s "$tmp/help" ] && diff -u "$tmp/help" "$tmp/man" > "$tmp/diff"; then
	rec ok man:klog-options
else
	echo "klog --help (-) and klog.1 (+) differ in their options:" >&2
	cat "$tmp/diff" >&2
	rec "not ok" man:klog-options
fi
