# SPDX-License-Identifier: GPL-2.0
# Helpers for guest jobs (sourced). Results go to the console as lines
#   KLOG-RESULT: ok|not ok|skip NAME
# which the host counts (scripts/vmlog.py).
result() { echo "KLOG-RESULT: $1 $2"; }
# verdict STATUS NAME: result ok NAME if STATUS is 0, else not ok
verdict() { if [ "$1" = 0 ]; then result ok "$2"; else result "not ok" "$2"; fi; }

# run_kselftest BINARY: run a kselftest_harness program, echo its TAP,
# and turn each test line into a KLOG-RESULT. Exit code 4 = skip.
run_kselftest() {
	name=$(basename "$1")
	out=/tmp/$name.tap
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	awk -v n="$name" '
		/^(not )?ok [0-9]+ / {
			line = $0; st = "ok"
			if (line ~ /^not ok/) { st = "not ok"; sub(/^not ok [0-9]+ /, "", line) }
			else sub(/^ok [0-9]+ /, "", line)
			if (line ~ /# *SKIP/) st = "skip"
			sub(/ *#.*/, "", line)
			gsub(/ /, "_", line)
			print "KLOG-RESULT: " st " selftest:" n ":" line
			seen++
		}
		END { if (!seen) print "KLOG-RESULT: not ok selftest:" n ":no-tap-output" }
	' "$out"
	case $rc in
	0|4) ;;
	*) result "not ok" "selftest:$name:exit-status-$rc" ;;
	esac
}

# run_kunit MODULE SUITE: load a KUnit module and report every case.
run_kunit() {
	mod=$1 suite=$2
	dmesg -c > /dev/null
	if ! insmod "/lib/modules/$mod.ko"; then
		result "not ok" "kunit:$suite:insmod"
		return
	fi
	dmesg | sed 's/^\[[^]]*\] //' > /tmp/kunit.log
	awk -v s="$suite" '
		/^    (not )?ok [0-9]+ / {
			st = ($1 == "not") ? "not ok" : "ok"
			name = (st == "ok") ? $3 : $4
			if ($0 ~ /# SKIP/) st = "skip"
			print "KLOG-RESULT: " st " kunit:" s ":" name; n++
		}
		/^    1\.\.[0-9]+/ { plan = substr($1, 4) }
		END {
			if (!n) print "KLOG-RESULT: not ok kunit:" s ":no-results"
			else if (plan != n) print "KLOG-RESULT: not ok kunit:" s ":plan-" plan "-ran-" n
		}
	' /tmp/kunit.log
	rmmod "$mod" || result "not ok" "kunit:$suite:rmmod"
}
