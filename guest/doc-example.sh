# SPDX-License-Identifier: GPL-2.0
# The walk-through of Documentation/trace/klog.rst ("Quick start"), as a
# new user follows it: the commands of its literal block between the
# ".. klog-walkthrough:" and ".. klog-walkthrough-end" comments run as
# they are (sh -e), in a directory laid out like samples/klog (klog/klog,
# klog/klog-mod.ko, example/klog-example.ko). Then the records they
# printed are counted against what klog-example logs (load, 10 ticks of
# a text and a raw record each, unload: 22), and every sample line the
# document shows must be in the real output, up to the timestamp, CPU,
# pid and the bytes of jiffies. Then the handler of "Writing a handler",
# klog-count, counts klog-example's records. Run by job-test.sh (one
# line).
. /guest/lib.sh
doc=/guest/klog.rst
w=/tmp/walkthrough
rm -rf "$w"
mkdir -p "$w/klog" "$w/example"
ln -s /bin/klog "$w/klog/klog"
ln -s /lib/modules/klog-mod.ko "$w/klog/klog-mod.ko"
ln -s /lib/modules/klog-example.ko "$w/example/klog-example.ko"

# The literal block: its lines are indented by two spaces (the comment's
# own lines by three).
awk '/^\.\. klog-walkthrough:/ { on = 1; next }
     /^\.\. klog-walkthrough-end/ { on = 0 }
     on && /^  [^ ]/ { print substr($0, 3) }' "$doc" > "$w.sh"
echo "# klog.rst walk-through:"
sed 's/^/#   /' "$w.sh"
if ! grep -q 'klog-example.ko' "$w.sh"; then
	result "not ok" "doc:walkthrough-found"
	return 0 2>/dev/null || exit 0
fi
result ok "doc:walkthrough-found"

lsmod | grep -q '^klog_mod ' && rmmod klog_mod
(cd "$w" && sh -e "$w.sh") > "$w.out" 2> "$w.err"
rc=$?
echo "# stdout:"; sed 's/^/#   /' "$w.out"
echo "# stderr:"; sed 's/^/#   /' "$w.err"
if [ $rc = 0 ]; then result ok "doc:walkthrough-runs"; else result "not ok" "doc:walkthrough-runs-exit-$rc"; fi

# count NAME WANT REGEX: the number of output lines matching REGEX
count() {
	n=$(grep -cE "$3" "$w.out")
	if [ "$n" = "$2" ]; then
		result ok "doc:walkthrough-$1"
	else
		echo "# $1: $n lines match '$3', want $2"
		result "not ok" "doc:walkthrough-$1"
	fi
}
rec='^\[[0-9]+\.[0-9]{9}\] cpu[0-9]+ [0-9]+ (task|softirq) '
count records 22 '^\['
count loaded 1 "${rec}example_init:[0-9]+: loaded: 10 ticks, 20 ms apart$"
count ticks 10 "${rec}example_tick:[0-9]+: tick ([1-9]|10) of 10, [0-9] left$"
count raw 10 "${rec}example_tick:[0-9]+: raw 16 bytes:( [0-9a-f]{2}){16}$"
count unloaded 1 "${rec}example_exit:[0-9]+: unloaded after 10 of 10 ticks$"
count lost 0 '\*\*\*'
if grep -q '^klog: 22 records from [0-9]* CPUs, 0 lost$' "$w.err"; then
	result ok "doc:walkthrough-report-count"
else
	result "not ok" "doc:walkthrough-report-count"
fi

# The sample output in the document: every record line shown must be in
# the real output from the function name on (raw: up to the 8 bytes
# that do not depend on jiffies).
awk '/^  \[[0-9]+\.[0-9]+\] cpu[0-9]+ [0-9]+ [a-z]+ example_/ {
	sub(/^  \[[0-9.]+\] cpu[0-9]+ [0-9]+ [a-z]+ /, "")
	if (match($0, /raw 16 bytes:( [0-9a-f][0-9a-f]){8}/))
		$0 = substr($0, 1, RSTART + RLENGTH - 1)
	print
}' "$doc" > "$w.shown"
bad=0
while IFS= read -r l; do
	grep -qF -- "$l" "$w.out" || { echo "# shown in klog.rst but not printed: $l"; bad=1; }
done < "$w.shown"
if [ -s "$w.shown" ] && [ $bad = 0 ]; then
	result ok "doc:walkthrough-sample-output"
else
	result "not ok" "doc:walkthrough-sample-output"
fi

lsmod | grep -q '^klog_example ' && rmmod klog_example
lsmod | grep -q '^klog_mod ' && rmmod klog_mod

# "Writing a handler": klog-count counts klog-example's records by
# context and prints the totals when it is unloaded.
dmesg -c > /dev/null
insmod /lib/modules/klog-count.ko &&
	insmod /lib/modules/klog-example.ko && sleep 1 &&
	rmmod klog_example && rmmod klog_count
dmesg | sed 's/^\[[^]]*\] //' > "$w.count"
sed 's/^/#   /' "$w.count"
if grep -q '^task: 2 records$' "$w.count" && grep -q '^softirq: 20 records$' "$w.count" &&
   grep -q '^hardirq: 0 records$' "$w.count" && grep -q '^nmi: 0 records$' "$w.count"; then
	result ok "doc:klog-count"
else
	result "not ok" "doc:klog-count"
fi
true
