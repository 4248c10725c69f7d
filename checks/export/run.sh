#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh CONSOLE_LOG: the export check on the collection the test VM made
# (guest/export-collection.sh): take the base64 tar between the
# KLOG-FILE-BEGIN/END lines of the console log, unpack it, and run
# compare.py on it with the traffic the guest made (per CPU 60 text
# records, 20 of them from NMI context, and 20 raw records; none lost). Prints "ok NAME" / "not ok NAME"
# (details as "# ..." lines on stderr); exits 1 if any failed.
set -u
log=${1:?usage: run.sh CONSOLE_LOG}
here=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/klog-export.XXXXXX)
trap 'rm -rf "$T"' EXIT

if ! "$here/../../scripts/console-file.sh" "$log" export.tar.gz "$T/x" 2> "$T/err"; then
	echo "# no readable export tar: $(cat "$T/err")" >&2
	echo "not ok unpack"
	exit 1
fi
echo "ok unpack"
/usr/bin/python3 "$here/compare.py" "$T/x" 60 20 0
