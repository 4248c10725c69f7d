# SPDX-License-Identifier: GPL-2.0
# The walk-throughs of Documentation/trace/klog.rst, as a new user
# follows them: the commands of each literal block between a
# ".. klog-walkthrough NAME:" and a ".. klog-walkthrough-end" comment run
# as they are (sh -e), in a directory laid out like the top of a built
# kernel tree (kernel/klog-mod.ko, tools/klog/klog,
# samples/klog/example/klog-example.ko, samples/klog/kleak/...,
# samples/klog/reserve/...).
#
#   quick-start  the records are counted against what klog-example logs
#                (load, 10 ticks of a text and a raw record each,
#                unload: 22), and every sample line the document shows
#                must be in the real output, up to the timestamp, CPU,
#                pid and the bytes of jiffies
#   report       the quick start's collection filtered (the 20 timer
#                records), counted by --stat, as JSON lines (22), as
#                a CTF trace (metadata and a stream per cpuN) and drawn
#                (--plot: its 22 records and 4 sites)
#   kleak        klog collects while kleak-mod is loaded, nothing is
#                lost, and kleak's report finds the 37 x 200 bytes that
#                kleak-test-mod keeps, nothing of its balanced calls
#   reserve      every record of the request arrives (20000 from task and
#                20000 from hard-IRQ context), none lost or dropped
#   control      klog-example's sites off at load by klog=, on by a
#                query, gone after the unload
#
# Then the handler of "Writing a handler", klog-count, counts
# klog-example's records. Run by job-test.sh (one line).
. /guest/lib.sh
doc=/guest/klog.rst
w=/tmp/walkthrough
rm -rf "$w"
mkdir -p "$w/kernel" "$w/tools/klog" "$w/samples/klog/example" "$w/samples/klog/kleak" \
	"$w/samples/klog/reserve"
for f in tools/klog/klog samples/klog/kleak/kleak samples/klog/reserve/reserve; do
	ln -s "/bin/${f##*/}" "$w/$f"
done
for f in kernel/klog-mod samples/klog/example/klog-example samples/klog/kleak/kleak-mod \
	 samples/klog/kleak/kleak-test-mod samples/klog/reserve/reserve-mod; do
	ln -s "/lib/modules/${f##*/}.ko" "$w/$f.ko"
done
unload() { for m; do lsmod | grep -q "^$m " && rmmod "$m"; done; }

# walk NAME: run the block NAME; its output in $w.out, $w.err. Its
# lines are indented by two spaces (the comment's own lines by three); a
# line that ends in a backslash goes on, however indented, on the next.
walk() {
	awk -v n="$1" '$0 ~ "^\\.\\. klog-walkthrough " n ":" { on = 1; next }
	     /^\.\. klog-walkthrough-end/ { on = 0 }
	     on && cont { print; cont = /\\$/; next }
	     on && /^  [^ ]/ { print substr($0, 3); cont = /\\$/ }' "$doc" > "$w.sh"
	echo "# klog.rst walk-through $1:"
	sed 's/^/#   /' "$w.sh"
	if [ ! -s "$w.sh" ]; then
		result "not ok" "doc:walkthrough-$1-found"
		: > "$w.out"; : > "$w.err"
		return
	fi
	(cd "$w" && sh -e "$w.sh") > "$w.out" 2> "$w.err"
	rc=$?
	echo "# stdout:"; sed 's/^/#   /' "$w.out"
	echo "# stderr:"; sed 's/^/#   /' "$w.err"
	if [ $rc = 0 ]; then result ok "doc:walkthrough-$1-runs"; else result "not ok" "doc:walkthrough-$1-runs-exit-$rc"; fi
}

# count NAME WANT REGEX [FILE]: the number of lines of FILE (default the
# walk-through's standard output) matching REGEX
count() {
	n=$(grep -cE "$3" "${4:-$w.out}")
	if [ "$n" = "$2" ]; then
		result ok "doc:walkthrough-$1"
	else
		echo "# $1: $n lines match '$3', want $2"
		result "not ok" "doc:walkthrough-$1"
	fi
}
unload klog_mod
walk quick-start
rec='^\[[0-9]+\.[0-9]{9}\] cpu[0-9]+ [^ ]+-[0-9]+ (task|softirq) '
count records 22 '^\['
count loaded 1 "${rec}example_init:[0-9]+: loaded: 10 ticks, 20 ms apart$"
count ticks 10 "${rec}example_tick:[0-9]+: tick ([1-9]|10) of 10, [0-9] left$"
count raw 10 "${rec}example_tick:[0-9]+: raw 16 bytes:( [0-9a-f]{2}){16}$"
count unloaded 1 "${rec}example_exit:[0-9]+: unloaded after 10 of 10 ticks$"
count lost 0 '\*\*\*'
grep -q '^klog: 22 records from [0-9]* CPUs, 0 lost$' "$w.err"
verdict $? "doc:walkthrough-report-count"

# The sample output in the document: every record line shown must be in
# the real output from the function name on (raw: up to the 8 bytes
# that do not depend on jiffies).
awk '/^  \[[0-9]+\.[0-9]+\] cpu[0-9]+ [^ ]+ [a-z]+ example_/ {
	sub(/^  \[[0-9.]+\] cpu[0-9]+ [^ ]+ [a-z]+ /, "")
	if (match($0, /raw 16 bytes:( [0-9a-f][0-9a-f]){8}/))
		$0 = substr($0, 1, RSTART + RLENGTH - 1)
	print
}' "$doc" > "$w.shown"
bad=0
while IFS= read -r l; do
	grep -qF -- "$l" "$w.out" || { echo "# shown in klog.rst but not printed: $l"; bad=1; }
done < "$w.shown"
[ -s "$w.shown" ] && [ $bad = 0 ]
verdict $? "doc:walkthrough-sample-output"

# The report walk-through on the quick start's collection: the filter
# keeps the 20 timer records (relative times from +0), --stat counts
# them by site, 22 JSON lines (a record each), a CTF trace with a stream
# per cpuN file. The host's export check reads another collection with
# babeltrace2.
walk report
count report-filtered 20 '^\[\+[0-9]+\.[0-9]{9}\] cpu[0-9]+ [^ ]+-[0-9]+ softirq example_tick:[0-9]+: '
count report-filtered-first 1 '^\[\+0\.000000000\] '
count report-filtered-all 20 '^\['
grep -q '^klog: 20 of 22 records from [0-9]* CPUs shown, 0 lost$' "$w.err"
verdict $? "doc:walkthrough-report-filtered-count"
count report-stat-sites 2 '^  example_tick:[0-9]+ +10 +([0-9]+B|[0-9.]+K)$'
count report-stat-raw 1 '^  example_tick:[0-9]+ +10 +160B$'
count report-stat-total 1 '^  total +22 +([0-9]+B|[0-9.]+K) +0$'
count report-json-lines 22 '^\{"type":"record",' /tmp/klog.json
n=$(ls /tmp/klog/ | grep -c '^cpu[0-9]*$')
if [ -f /tmp/klog-ctf/metadata ] &&
   [ "$(ls /tmp/klog-ctf | grep -c '^stream_[0-9]*$')" = "$n" ]; then
	result ok "doc:walkthrough-report-ctf-files"
else
	echo "# /tmp/klog-ctf: $(ls /tmp/klog-ctf 2>&1 | tr '\n' ' '), want metadata and $n streams"
	result "not ok" "doc:walkthrough-report-ctf-files"
fi
count report-plot 1 '>22 records, 0 lost; [0-9]+ CPUs; the top 4 of 4 sites; ' /tmp/klog.svg

# klog-mod stays loaded from the quick start, as for a reader
unload klog_example kleak_test_mod kleak_mod

walk kleak
# kleak's rows: objects, bytes requested, bytes allocated, size, caller
count kleak-leak-found 1 '^ +37 +7400 +[0-9]+ +200  kleak_test_leak\+0x[0-9a-f]+/0x[0-9a-f]+ \[kleak_test_mod\]$'
count kleak-balanced-freed 0 'kleak_test_balanced'
count kleak-nothing-lost 1 '^records +[0-9]+ kleak records, 0 lost; '
count kleak-no-warning 0 '\*\*\*'
# klog's summary table: records, bytes, then every loss column 0
count kleak-klog-nothing-lost 1 '^total +[1-9][0-9]* +[0-9.]+[BKMG]?( +0){7}$' "$w.err"
unload kleak_test_mod kleak_mod klog_mod

unload reserve_mod
walk reserve
# total: records, bytes, lost, bad, waited, task, hardirq
count reserve-all-records 1 '^total +40000 +[0-9]+ +0 +0 +[0-9]+ +20000 +20000$' "$w.err"
count reserve-none-dropped 1 '^reserve: 0 dropped$' "$w.err"
unload reserve_mod

# "Controlling call sites": klog-example loaded with its two tick sites
# off, then all four on, then gone (and still described in sites).
unload klog_example
walk control
count control-ticks-off 2 '\[klog_example\]example_tick =_ '
count control-others-on 4 '\[klog_example\]example_(init|exit) =p '
count control-all-on 6 '\[klog_example\]example_[a-z]+ =p '
count control-gone 4 "^[0-9]+	gone	(text|raw)	klog_example	[^	]*klog-example\.c	[0-9]+	example_"
unload klog_example

# "Writing a handler": klog-count counts klog-example's records by
# context and prints the totals when it is unloaded.
dmesg -c > /dev/null
# (rmmod klog_example waits for the ticks still to come)
insmod /lib/modules/klog-count.ko &&
	insmod /lib/modules/klog-example.ko &&
	rmmod klog_example && rmmod klog_count
dmesg | sed 's/^\[[^]]*\] //' > "$w.count"
sed 's/^/#   /' "$w.count"
grep -q '^task: 2 records$' "$w.count" && grep -q '^softirq: 20 records$' "$w.count" &&
	grep -q '^hardirq: 0 records$' "$w.count" && grep -q '^nmi: 0 records$' "$w.count"
verdict $? "doc:klog-count"
true
