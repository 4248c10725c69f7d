#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record-bytes.sh: the "Record bytes" section of BENCHMARKS.md, computed
# from the stream format (include/uapi/linux/klog_relay.h), not measured:
# the bytes a record of the benchmark rows' payloads takes in stream
# version 1 (40-byte header + the function name + payload, aligned to 8)
# and version 2 (40-byte header + payload, aligned to 8; the site is an
# id), and what the COMM record (56 bytes, when the task changes and at
# every sub-buffer's start) adds per record for one writing task.
set -eu
align8() { echo $(( ($1 + 7) / 8 * 8 )); }
echo "### Record bytes in the stream, version 1 and 2 (computed from the format)"
echo
echo "| row | payload | function | v1 bytes | v2 bytes | v2 / v1 | + COMM per record, one task, 256 KiB sub-buffers |"
echo "|---|---:|---|---:|---:|---:|---:|"
row() {	# ROW PAYLOAD FUNCTION
	local v1 v2 per
	v1=$(align8 $((40 + ${#3} + $2)))
	v2=$(align8 $((40 + $2)))
	per=$(( (262144 - 40 - 56) / v2 ))	# records of one task per sub-buffer
	printf '| %s | %d | %s | %d | %d | %s | %s |\n' "$1" "$2" "$3" "$v1" "$v2" \
		"$(awk -v a="$v2" -v b="$v1" 'BEGIN { printf "%.2f", a / b }')" \
		"$(awk -v p="$per" 'BEGIN { printf "%.3f", 56 / p }')"
}
for n in 16 32 64 256 1024 4096; do
	row "cost per call, record size: klog_raw" $n bench_call
done
row "collector: test_klog raw" 64 emit_one
echo
echo "A version 2 record drops the function name (and its padding); a COMM"
echo "record (the task's name) costs 56 bytes once per sub-buffer while one"
echo "task writes, and 56 bytes per record where tasks alternate record by"
echo "record. The timed rows above were measured with the stream version"
echo "of the revision named at the top."
