#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# console-file.sh CONSOLE_LOG NAME DIR: unpack into DIR the gzipped tar
# a guest job sent to the console as base64 lines ("KLOG-B64: ...")
# between "KLOG-FILE-BEGIN NAME" and "KLOG-FILE-END" (guest/job-run.sh,
# guest/export-collection.sh). Exits 1, saying why, when there is none
# or it does not unpack.
set -u
log=$1 name=$2 dir=$3
b64=$(sed -n "/^KLOG-FILE-BEGIN $name/,/^KLOG-FILE-END/s/^KLOG-B64: //p" "$log" | tr -d '\r')
if [ -z "$b64" ]; then
	echo "no $name in $log" >&2
	exit 1
fi
mkdir -p "$dir" && printf '%s\n' "$b64" | base64 -d | tar -C "$dir" -xz ||
	{ echo "$name in $log does not unpack" >&2; exit 1; }
