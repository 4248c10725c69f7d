#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# klog's call-site control from user space: /sys/kernel/debug/klog/control
# read and written with queries, and /sys/kernel/debug/klog/sites, the
# table collectors read. A module (klog-example, or MOD) is loaded and
# unloaded: its sites appear in both files, are set by <module>.klog= at
# load, and stay in sites as "gone" after the unload. Bad queries fail
# the write(2) with EINVAL and change nothing. Output is TAP; exit 4
# (skip) without the control file or the module.

D=/sys/kernel/debug/klog
MOD=${MOD:-/lib/modules/klog-example.ko}
NAME=klog_example
. "$(dirname "$0")/klog_lib.sh"	# tap

if [ ! -w $D/control ] || [ ! -r $D/sites ] || [ ! -f "$MOD" ]; then
	echo "1..0 # SKIP needs klog's control and sites files and $MOD"
	exit 4
fi
if [ -d /sys/module/$NAME ]; then
	echo "1..0 # SKIP $NAME is loaded already"
	exit 4
fi
echo "1..18"

# query TEXT: write TEXT and a newline to control in one write(2);
# prints the error text of a failed write, returns its status.
query() {
	(echo "$1" > $D/control) 2>&1
}

# Lines of control for module $1, and how many of them show flags $2.
mod_lines() { grep -c " \[$1\]" $D/control; }
mod_flags() { grep " \[$1\]" $D/control | grep -c " =$2 "; }

modes="$(stat -c '%a %u' $D/control) $(stat -c '%a %u' $D/sites)"
[ "$modes" = "644 0 400 0" ]
tap $? "control is 0644 and sites 0400, both root's" "$modes"

head -n 1 $D/control | grep -qx '# file:line \[module\]function =flags "format" id=N records=N'
tap $? "control starts with its header line" "$(head -n 1 $D/control)"

re='^[^ ]+:[0-9]+ \[[A-Za-z0-9_]+\][A-Za-z0-9_.]+ '
re="$re"'=[p_] (".*"|raw) id=[0-9]+ records=[0-9]+$'
bad=$(sed 1d $D/control | grep -Evc "$re")
tap $bad "every control line reads file:line [module]function =flags format id records" \
	"$(sed 1d $D/control | grep -Ev "$re" | head -n 3)"

head -n 1 $D/sites | grep -qx '# klog sites 1 forgotten=[0-9]* refused=0'
tap $? "sites starts with its version line" "$(head -n 1 $D/sites)"

# Eight TAB-separated fields, ids strictly increasing.
sed 1d $D/sites | awk -F '\t' '
	NF != 8 || $2 !~ /^(live|gone)$/ || $3 !~ /^(text|raw)$/ ||
	$6 !~ /^[0-9]+$/ || ($3 == "raw" && $8 != "") { print "bad: " $0; bad = 1 }
	$1 + 0 <= last { print "order: " $0; bad = 1 }
	{ last = $1 + 0 }
	END { exit bad }' > /tmp/klog-sites.chk
tap $? "sites lines have 8 fields, ids in increasing order" "$(head -n 3 /tmp/klog-sites.chk)"

live=$(grep -c '	live	' $D/sites)
ctl=$(($(wc -l < $D/control) - 1))
[ "$live" = "$ctl" ] && [ "$live" -gt 0 ]
tap $? "control lists every live site of sites" "control $ctl, sites $live live"

# <module>.klog= applies before the module's init runs: all sites off.
insmod "$MOD" 'klog="func example_* -p; line 1- =_"'
st=$?
total=$(mod_lines $NAME)
[ $st = 0 ] && [ "$total" -gt 0 ] && [ "$(mod_flags $NAME _)" = "$total" ]
tap $? "$NAME.klog= at insmod sets its sites" \
	"insmod $st, $total sites, $(mod_flags $NAME _) off"

ids=$(awk -F '\t' -v m=$NAME '$4 == m && $2 == "live" { print $1 }' $D/sites | tr '\n' ' ')
[ "$(echo $ids | wc -w)" = "$total" ]
tap $? "its sites are live in sites" "ids $ids"

grep " \[$NAME\]example_tick " $D/control | grep -q '"tick %u of %u, %u left\\n"'
tap $? "a site shows its function and escaped format" \
	"$(grep " \[$NAME\]" $D/control | head -n 3)"

query "module $NAME +p" && [ "$(mod_flags $NAME p)" = "$total" ]
tap $? "module $NAME +p enables them all"

query "module $NAME file klog-example.c func example_* line 1- format \"tick %u of\" -p" &&
	[ "$(mod_flags $NAME _)" = 1 ]
tap $? "selectors combined pick the one tick site" \
	"$(grep " \[$NAME\]" $D/control)"

# Bad queries: EINVAL from write(2), nothing applied (batch included).
before=$(grep " \[$NAME\]" $D/control | cut -d' ' -f1-3)
errs=
for q in "modules $NAME +p" "module $NAME line 9-3 +p" \
	 "module $NAME format \"tick +p" "module \"\" +p" "module $NAME" \
	 "module $NAME =p; module $NAME -p; module $NAME +q"; do
	out=$(query "$q") && errs="$errs [accepted: $q]"
	case "$out" in *"Invalid argument"*) ;; *) errs="$errs [$q: $out]" ;; esac
done
after=$(grep " \[$NAME\]" $D/control | cut -d' ' -f1-3)
[ -z "$errs" ] && [ "$before" = "$after" ]
tap $? "bad queries fail with EINVAL and change nothing" "$errs"

head -c 20000 /dev/zero | tr '\0' '#' > /tmp/klog-big
out=$(dd if=/tmp/klog-big of=$D/control bs=20000 count=1 2>&1)
case "$out" in *"too long"*) true ;; *) false ;; esac
tap $? "a write over the limit fails with E2BIG" "$out"

query "# nothing here
module no_such_module +p"
tap $? "a query that selects nothing is no error"

rmmod $NAME
tap $? "rmmod $NAME"

[ "$(mod_lines $NAME)" = 0 ]
tap $? "its sites leave control"

# (an earlier load of the module, by another test, left gone sites too)
gone=
for id in $ids; do
	awk -F '\t' -v m=$NAME -v id=$id '$1 == id && $4 == m && $2 == "gone"' $D/sites |
		grep -q . && gone="$gone$id "
done
[ -n "$ids" ] && [ "$gone" = "$ids" ]
tap $? "sites keeps them as gone, same ids" "live $ids, gone $gone"

insmod "$MOD" klog=bogus
st=$?
[ $st != 0 ] && [ ! -d /sys/module/$NAME ]
tap $? "a bad $NAME.klog= fails the load" "insmod $st"
[ -d /sys/module/$NAME ] && rmmod $NAME

exit $fail
