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

# must_fail NAME BUILD MESSAGE MAKE-ARGS...: the stubs built against
# BUILD with MAKE-ARGS fail, and the output holds MESSAGE (fixed string).
must_fail() {
	local name=$1 b=$2 msg=$3 w=$KLOG_CACHE/stubs-bad out
	shift 3
	rm -rf "$w"; cp -r "$stubs" "$w"
	if out=$(kmake "$b" M="$w" KBUILD_MODPOST_WARN=1 "$@" modules 2>&1); then
		rec "not ok" "$name"
	elif echo "$out" | grep -qF -- "$msg"; then
		rec ok "$name"
	else
		echo "$out"; rec "not ok" "$name"
	fi
	rm -rf "$w"
}

for b in nokl test; do
	w=$KLOG_CACHE/stubs-$b
	rm -rf "$w"; cp -r "$stubs" "$w"
	if out=$(kmake "$b" M="$w" W=1 KCFLAGS=-Werror KBUILD_MODPOST_WARN=1 modules 2>&1); then
		rec ok "stubs:builds-clean-$b"
	else
		echo "$out"; rec "not ok" "stubs:builds-clean-$b"
	fi
	rm -rf "$w"
	must_fail "stubs:format-checked-$b" "$b" "Werror=format" BAD_FORMAT=y \
		KCFLAGS=-Werror
done
# klog's own messages; GCC prints a static_assert()'s message as a C
# string, its quotes escaped.
must_fail stubs:refused-bad_arg_struct test \
	"klog: argument \\'d\\' is neither an integer nor a pointer: cast it" \
	BAD_ARG_STRUCT=y
must_fail stubs:refused-bad_arg_many test \
	"klog: more than 16 (KLOG_ARGS_MAX) arguments" BAD_ARG_MANY=y
