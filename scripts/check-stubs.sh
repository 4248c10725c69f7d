#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-stubs.sh RESULTS: build checks/stubs (a module full of klog calls)
# with -Werror W=1 against a CONFIG_KLOG=n tree and against the test
# (CONFIG_KLOG=y) tree; then check that a format mismatch fails the build
# in both, i.e. the =n stubs still type-check printf formats; and that
# an argument klog_printk() cannot record (a struct, a 17th argument)
# fails the CONFIG_KLOG=y build with klog's message naming the cause.
. "$(dirname "$0")/common.sh"
res=$1
stubs=$KLOG_REPO/checks/stubs
nb=$KLOG_CACHE/build-nokl
if [ ! -f "$nb/.config" ] || ! cmp -s "$KLOG_REPO/config/nokl.config" "$nb/.klog-frag"; then
	kmake nokl tinyconfig >/dev/null
	(cd "$nb" && "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$nb" .config "$KLOG_REPO/config/nokl.config" >/dev/null)
	kmake nokl olddefconfig >/dev/null
	cp "$KLOG_REPO/config/nokl.config" "$nb/.klog-frag"
fi
"$KLOG_REPO/scripts/kconfig-check.sh" "$nb/.config" "$KLOG_REPO/config/nokl.config"
kmake nokl modules_prepare >/dev/null

for b in nokl test; do
	w=$KLOG_CACHE/stubs-$b
	rm -rf "$w"; cp -r "$stubs" "$w"
	if out=$(kmake "$b" M="$w" W=1 KCFLAGS=-Werror KBUILD_MODPOST_WARN=1 modules 2>&1); then
		rec ok "stubs:builds-clean-$b"
	else
		echo "$out"; rec "not ok" "stubs:builds-clean-$b"
	fi
	rm -rf "$w"; cp -r "$stubs" "$w"
	if out=$(kmake "$b" M="$w" BAD_FORMAT=y KCFLAGS=-Werror KBUILD_MODPOST_WARN=1 modules 2>&1); then
		rec "not ok" "stubs:format-checked-$b"
	elif echo "$out" | grep -q "Werror=format"; then
		rec ok "stubs:format-checked-$b"
	else
		echo "$out"; rec "not ok" "stubs:format-checked-$b"
	fi
	rm -rf "$w"
done
# VAR|MESSAGE: the =y build with VAR=y fails, saying MESSAGE (GCC prints
# a static_assert()'s message as a C string: its quotes escaped)
while IFS='|' read -r var msg; do
	w=$KLOG_CACHE/stubs-bad
	rm -rf "$w"; cp -r "$stubs" "$w"
	if out=$(kmake test M="$w" "$var=y" KBUILD_MODPOST_WARN=1 modules 2>&1); then
		rec "not ok" "stubs:refused-${var,,}"
	elif echo "$out" | grep -qF "$msg"; then
		rec ok "stubs:refused-${var,,}"
	else
		echo "$out"; rec "not ok" "stubs:refused-${var,,}"
	fi
	rm -rf "$w"
done <<'EOF'
BAD_ARG_STRUCT|klog: argument \'d\' is neither an integer nor a pointer: cast it
BAD_ARG_MANY|klog: more than 16 (KLOG_ARGS_MAX) arguments
EOF
