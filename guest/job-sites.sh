# SPDX-License-Identifier: GPL-2.0
# The boot-parameter job: the kernel booted with
#   klog.sites_default=off
#   "klog.query=module test_klog format TKLG +p; module klog_example func example_init +p"
# (scripts/check.sh). Before any collector: every site is off except what
# the boot query enables, also in modules loaded later, and a module's
# <module>.klog= adds to it at load; a collection then holds records of
# exactly those sites. Then the collector's call-site selftest, whose
# "before" state is this mostly-off one.
. /guest/lib.sh
D=/sys/kernel/debug/klog
EMIT=/sys/kernel/debug/test_klog/emit
# "id flag" of the live sites of module $1 whose line matches $2.
flags() { grep " \[$1\]" $D/control | grep -c " =$2 "; }
check() { if [ "$1" = 0 ]; then result ok "sites-boot:$2"; else result "not ok" "sites-boot:$2"; echo "# $3"; fi; }

grep -q 'klog.sites_default=off' /proc/cmdline && grep -q 'klog.query=' /proc/cmdline
check $? cmdline "$(cat /proc/cmdline)"

[ "$(cat /sys/module/klog/parameters/sites_default)" = off ]
check $? default-off-param "$(cat /sys/module/klog/parameters/sites_default 2>&1)"

# Built-in sites (if the kernel has any): all off, the query names modules.
[ "$(sed 1d $D/control | grep -vc ' =_ ')" = 0 ]
check $? builtin-sites-off "$(sed 1d $D/control | grep -v ' =_ ' | head -n 3)"

insmod /lib/modules/test_klog.ko || result "not ok" "sites-boot:insmod-test_klog"
# klog.query= at the module's load: only the text site of emit_one on
# (of 5: emit_one's text and raw, tklg_stream_fn's and tklg_nmi_handler's
# triggers, raw_fault_write's raw).
n=$(grep -c ' \[test_klog\]' $D/control)
[ "$n" = 5 ] && [ "$(flags test_klog p)" = 1 ] &&
	grep ' \[test_klog\]emit_one =p ' $D/control | grep -q '"TKLG c='
check $? query-at-module-load "$(grep ' \[test_klog\]' $D/control)"

insmod /lib/modules/klog-mod.ko || result "not ok" "sites-boot:insmod-klog-mod"
# Nothing enabled klog-mod's own sites (if it has any).
[ "$(flags klog_mod p)" = 0 ]
check $? handler-sites-off "$(grep ' \[klog_mod\]' $D/control | head -n 3)"

# A collection: 6 text records from the enabled site, none of the 5 raw.
klog -q -o /tmp/boot1 -- sh -c "echo 'count=6 size=64 kind=text ctx=task cpus=0' > $EMIT &&
	echo 'count=5 size=64 kind=raw ctx=task cpus=0' > $EMIT" > /tmp/boot1.out 2>&1
st=$?
got=$(klog -r /tmp/boot1 | grep -vc '\*\*\*')
text=$(klog -r /tmp/boot1 | grep -c ' emit_one:[0-9]*: TKLG c=000 ')
[ $st = 0 ] && [ "$got" = 6 ] && [ "$text" = 6 ]
check $? records-only-enabled "exit $st, $got records, $text text: $(cat /tmp/boot1.out)"

# <module>.klog= at load adds to klog.query=: klog_example's init (boot
# query) and its tick's two sites (parameter) on, its exit site off, from
# its first record on: 1 loaded + 3 x (text + raw) = 7 records.
cat > /tmp/boot2.sh <<'EOF'
insmod /lib/modules/klog-example.ko ticks=3 'klog="func example_tick +p"' &&
	grep ' \[klog_example\]' /sys/kernel/debug/klog/control > /tmp/boot2.ctl &&
	rmmod klog_example
EOF
klog -q -o /tmp/boot2 -- sh /tmp/boot2.sh > /tmp/boot2.out 2>&1
st=$?
on=$(grep -c ' =p ' /tmp/boot2.ctl)
[ $st = 0 ] && [ "$on" = 3 ] && grep '\]example_exit =_ ' /tmp/boot2.ctl | grep -q unloaded
check $? module-param-and-query-at-load "exit $st, $on on: $(cat /tmp/boot2.ctl /tmp/boot2.out)"
got=$(klog -r /tmp/boot2 | grep -vc '\*\*\*')
ticks=$(klog -r /tmp/boot2 | grep -c ' example_tick:[0-9]*: tick [1-3] of 3')
[ "$got" = 7 ] && [ "$ticks" = 3 ] && klog -r /tmp/boot2 | grep -q ' example_init:[0-9]*: loaded: 3 ticks' &&
	! klog -r /tmp/boot2 | grep -q unloaded
check $? module-records-from-first "$got records, $ticks tick texts: $(klog -r /tmp/boot2 | head -n 9)"

# klog --sites and -e against this state (the test restores it at the end).
run_kselftest /tests/klog_sitectl_test.sh |
	sed 's/ selftest:klog_sitectl_test\.sh:/ selftest:sites-boot:klog_sitectl_test.sh:/'
rmmod klog_mod || result "not ok" "sites-boot:rmmod-klog_mod"
rmmod test_klog || result "not ok" "sites-boot:rmmod-test_klog"
