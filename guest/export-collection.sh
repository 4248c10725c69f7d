# SPDX-License-Identifier: GPL-2.0
# A collection for the host's export check (checks/export/run.sh): with
# klog-mod and test_klog loaded, klog collects a known traffic from every
# CPU - per CPU 20 text records each in task, hardirq and NMI context
# (klog-mod stages the NMI records and writes them an instant later),
# 10 raw records in task and 10 in softirq context -
# then the collection is printed (klog -r), exported as JSON lines
# (--json) and as a CTF trace (--ctf), and all of it goes to the console
# as a base64 tar between KLOG-FILE lines, for the host to check with
# babeltrace2. Run by job-test.sh (one line).
. /guest/lib.sh
d=/tmp/export
emit=/sys/kernel/debug/test_klog/emit
rm -rf "$d"
mkdir -p "$d"
if klog -q -o "$d/coll" -- sh -c "
	echo 'count=20 size=64 kind=text ctx=task,hardirq,nmi cpus=all' > $emit &&
	echo 'count=10 size=40 kind=raw ctx=task,softirq cpus=all' > $emit" \
		2> "$d/collect.err" &&
   klog -r "$d/coll" > "$d/report.txt" 2> "$d/report.err" &&
   klog -r "$d/coll" --json > "$d/report.json" 2> "$d/json.err" &&
   klog -r "$d/coll" --ctf "$d/ctf" 2> "$d/ctf.err"; then
	result ok guest:export-collection
else
	cat "$d"/*.err
	result "not ok" guest:export-collection
fi
# The kernel's symbols (DIR/kallsyms, for %pS) are not needed by the
# host's check and are most of the collection: not sent.
rm -f "$d/coll/kallsyms"
# Nothing else on the console while the tar goes out: a kernel message in
# the middle of a base64 line would corrupt it.
old=$(cut -f1 /proc/sys/kernel/printk)
echo 1 > /proc/sys/kernel/printk
echo "KLOG-FILE-BEGIN export.tar.gz"
tar -C "$d" -cz . | base64 | sed 's/^/KLOG-B64: /'
echo "KLOG-FILE-END"
echo "$old" > /proc/sys/kernel/printk
