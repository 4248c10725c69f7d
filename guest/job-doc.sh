# SPDX-License-Identifier: GPL-2.0
# The doc job (scripts/vm.sh test doc LOG): what a user copies from the
# documentation must work. The klog.rst walk-through (doc-example.sh,
# also run by the test job), then the example of each collector's
# --help, taken from the help text (the indented lines after "Example",
# up to a blank line; "| less" becomes "| head"), with the modules it needs
# loaded, and klog's flight-recorder example from its -s help. Not part
# of make check: the examples collect for 10 s each.
. /guest/lib.sh
say() { echo; echo "===== $*"; }

sh /guest/doc-example.sh

# help_example PROGRAM: the example block of PROGRAM --help, runnable
help_example() {
	"$1" --help | awk '/^Example/ { on = 1; next } on && /^$/ { exit }
		on && /^  / { sub(/^  /, ""); print }' | sed 's/| less/| head -n 20/'
}

# run_example NAME PROGRAM [ACTION]: run it with sh -e; ok if it exits 0.
# ACTION (a command line) runs once the collector prints its
# "PROG: recording" line, in the background.
run_example() {
	help_example "$2" > "/tmp/$1.sh"
	say "$2 --help example"
	cat "/tmp/$1.sh"
	echo "-----"
	: > "/tmp/$1.out"
	[ -s "/tmp/$1.sh" ] &&
	{ sh -e "/tmp/$1.sh" 2>&1; echo "exit $?"; } | {
		st=1
		while IFS= read -r l; do
			case $l in
			"exit "*) st=${l#exit } ;;
			*) printf '%s\n' "$l" >> "/tmp/$1.out"
			   case $l in "$2: recording "*) [ -n "$3" ] && sh -c "$3" & ;; esac ;;
			esac
		done
		wait
		exit "$st"
	}
	if [ $? = 0 ]; then
		cat "/tmp/$1.out"
		result ok "doc:help-example-$1"
	else
		cat "/tmp/$1.out"
		result "not ok" "doc:help-example-$1"
	fi
}

insmod /lib/modules/klog-mod.ko
insmod /lib/modules/test_klog.ko
# klog's example collects whatever is logged: give it something once
# it is recording.
run_example klog klog \
	'echo "count=200 size=64 kind=text ctx=task,softirq cpus=all gap_us=1000" > /sys/kernel/debug/test_klog/emit'

say "klog -s help: klog -R -b 64k -n 64; ...; klog -s -o /tmp/snap && klog -r /tmp/snap"
if klog -R -b 64k -n 64 &&
   echo "count=3000 size=200 kind=text ctx=task cpus=all" > /sys/kernel/debug/test_klog/emit &&
   klog -s -o /tmp/snap && klog -r /tmp/snap > /tmp/snap.txt; then
	head -n 3 /tmp/snap.txt; echo ...; tail -n 3 /tmp/snap.txt
	result ok "doc:help-example-klog-recorder"
else
	result "not ok" "doc:help-example-klog-recorder"
fi
echo 0 > /sys/kernel/debug/klog/enabled
echo 0 > /sys/kernel/debug/klog/create

# kleak's example collects with klog and loads the modules by their
# paths in a kernel tree: run it where doc-example.sh laid one out.
(cd /tmp/walkthrough && run_example kleak kleak)
grep -qE '^ +37 +7400 +[0-9]+ +200  kleak_test_leak\+' /tmp/kleak.out
verdict $? "doc:help-example-kleak-finds-the-leak"
rmmod kleak_test_mod

insmod /lib/modules/reserve-mod.ko
rm -rf /tmp/res		# the walkthrough's: reserve writes new files only
run_example reserve reserve
rmmod reserve_mod

rmmod test_klog; rmmod klog_mod
true
