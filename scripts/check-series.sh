#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-series.sh: every patch of patches/ builds on its own (bisectable).
#
# In a scratch git worktree of $KLOG_CACHE/linux at tag "pristine"
# ($KLOG_CACHE/series/linux), apply patches/ one at a time with git am and
# after each one:
#
#   - configure the test kernel as scripts/build-kernel.sh does (tinyconfig
#     + config/base.config + config/test.config; options that a later patch
#     adds are simply not there yet) and build bzImage and modules, with
#     ccache, in $KLOG_CACHE/series/build: the samples/klog modules are
#     built by this too once a patch adds them;
#   - rebuild the kernel objects (.o) of the C files the patch touches with
#     W=1: any warning fails the patch;
#   - if the patch touches the tool (tools/klog, tools/lib/klog), a
#     sample's user program (samples/klog/*/ with a Makefile) or the
#     selftests, build them against the build's uapi
#     headers: any warning fails the patch;
#   - if the patch touches Documentation/, build klog.rst and relay.rst
#     with Sphinx (scripts/check-docs.sh on the scratch tree).
#
# One line per patch, "ok N NAME" or "not ok N NAME: what failed", and a
# final "N passed, N failed" line; the end of the log of each failing step
# is printed. With RESULTS, also "ok series:NAME" / "not ok series:NAME"
# lines appended to that file (as check.sh keeps them). Exit status 0
# only when every patch passed. Slow (a kernel build per patch,
# incremental after the first): not part of make check; run by
# make check-series and scripts/check-full.sh.
#
# Usage: scripts/check-series.sh [RESULTS]
. "$(dirname "$0")/common.sh"
res=${1:-/dev/null}

[ -f "$KLOG_REPO/patches/series" ] || die "no patches/series: run 'make patches'"
"$KLOG_REPO/scripts/tree.sh"	# $KSRC with tag pristine

top=$KLOG_CACHE/series
wt=$top/linux
b=$top/build
logs=$top/logs
mkdir -p "$top" "$b"
rm -rf "$logs"
mkdir -p "$logs"

git_k() { git -C "$wt" -c user.name=klog -c user.email=klog@localhost "$@"; }

# The scratch worktree: reused between runs (a checkout of the whole tree
# takes a while), reset to pristine each time.
git -C "$KSRC" worktree prune
if ! git -C "$wt" rev-parse --git-dir >/dev/null 2>&1; then
	log "creating scratch worktree $wt"
	rm -rf "$wt"
	git -C "$KSRC" worktree add -q --detach "$wt" pristine
fi
git_k am --abort >/dev/null 2>&1 || true
git_k checkout -q -f --detach pristine
git_k clean -q -fdx

bmake() { make -s -C "$wt" O="$b" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"; }

frags=("$KLOG_REPO/config/base.config" "$KLOG_REPO/config/test.config")
configure() {
	bmake tinyconfig >/dev/null
	(cd "$b" && KCONFIG_CONFIG=.config "$wt/scripts/kconfig/merge_config.sh" \
		-m -O "$b" .config "${frags[@]}" >/dev/null)
	bmake olddefconfig >/dev/null
}

# Warnings of a W=1 or user-space build: compiler diagnostics only.
warnings() { grep -E '(warning|error):' "$1" || true; }

# new_warnings LOG: the diagnostics of LOG at lines the current patch adds
# (W=1 also warns about upstream code the patch merely touches).
new_warnings() {
	git_k diff -U0 HEAD~1 HEAD | /usr/bin/python3 -c '
import re, sys
added, f = {}, None
for l in sys.stdin:
    if l.startswith("+++ "):
        f = l[6:].strip() if l.startswith("+++ b/") else None
    m = re.match(r"@@ -\S+ \+(\d+)(?:,(\d+))? @@", l)
    if m and f:
        a, n = int(m.group(1)), int(m.group(2) or 1)
        added.setdefault(f, set()).update(range(a, a + n))
for l in open(sys.argv[1], errors="replace"):
    m = re.match(r"(?:\.\./linux/|\S*/linux/)?(\S+?):(\d+):(?:\d+:)? (warning|error):", l)
    if m and int(m.group(2)) in added.get(m.group(1), ()):
        print(l, end="")
' "$1"
}

pass=0 fail=0 n=0
t0=$SECONDS
while read -r p; do
	[ -n "$p" ] || continue
	n=$((n + 1))
	name=${p%.patch}
	why=()
	l=$logs/$name
	t1=$SECONDS
	if ! git_k am -q --whitespace=error-all "$KLOG_REPO/patches/$p" > "$l.am" 2>&1; then
		cat "$l.am"
		echo "not ok $n $name: git am"
		echo "not ok series:$name" >> "$res"
		fail=$((fail + 1))
		break		# nothing after it can be applied
	fi
	files=$(git_k diff --name-only HEAD~1 HEAD)

	show=()
	configure > "$l.config" 2>&1 || { why+=("configure"); show+=("$l.config"); }
	bmake bzImage modules > "$l.build" 2>&1 || { why+=("build"); show+=("$l.build"); }

	# W=1 on the kernel objects of the C files this patch touches.
	objs=
	for f in $files; do
		case $f in *.c) [ -f "$b/${f%.c}.o" ] && objs="$objs ${f%.c}.o" ;; esac
	done
	if [ -n "$objs" ]; then
		bmake W=1 $objs > "$l.w1" 2>&1 || true
		if [ -n "$(new_warnings "$l.w1")" ]; then
			why+=("W=1:$(echo $objs | tr ' ' ',')")
			new_warnings "$l.w1" > "$l.w1-new"
			show+=("$l.w1-new")
		fi
	fi

	# The tool, the samples' user programs and the selftests, if touched
	# (the tool also when the kernel headers it compiles change), built in
	# a copy with the tree's layout.
	user=$(for f in $files; do
		case $f in
		tools/klog/*|tools/lib/klog/*) echo tools/klog ;;
		kernel/klog_format.h|kernel/klog_query.h) [ ! -f "$wt/tools/klog/Makefile" ] || echo tools/klog ;;
		samples/klog/*/*) d=${f#samples/klog/}; echo "samples/klog/${d%%/*}" ;;
		esac
	done | sort -u)
	st=$(echo "$files" | grep -c '^tools/testing/selftests/klog/' || true)
	if [ -n "$user" ] || [ "$st" != 0 ]; then
		bmake headers > "$l.user" 2>&1 || why+=("headers")
		rm -rf "$top/user"
		mkdir -p "$top/user/tools/lib" "$top/user/kernel" "$top/user/samples"
		for d in tools/klog tools/lib/klog samples/klog; do
			[ ! -d "$wt/$d" ] || cp -r "$wt/$d" "$top/user/$(dirname $d)/"
		done
		cp "$wt"/kernel/klog*.h "$top/user/kernel/"
		for u in $user; do
			[ -f "$top/user/$u/Makefile" ] || continue
			make -C "$top/user/$u" KHDR_INCLUDES="-I$b/usr/include" \
				CC="ccache gcc" >> "$l.user" 2>&1 || why+=("make -C $u")
		done
		if [ "$st" != 0 ]; then
			rm -rf "$top/selftests"
			mkdir -p "$top/selftests"
			make -C "$wt/tools/testing/selftests/klog" OUTPUT="$top/selftests" \
				KHDR_INCLUDES="-isystem $b/usr/include" CC="ccache gcc" \
				>> "$l.user" 2>&1 || why+=("selftests")
		fi
		[ -z "$(warnings "$l.user")" ] || why+=("user-space warnings")
		[ ${#why[@]} = 0 ] || show+=("$l.user")
	fi

	# The documentation, if touched.
	if echo "$files" | grep -q '^Documentation/'; then
		KLOG_DOCS_TREE=$wt "$KLOG_REPO/scripts/check-docs.sh" "$l.docs-res" > "$l.docs" 2>&1 || true
		! grep -q '^not ok' "$l.docs-res" || { why+=("docs"); show+=("$l.docs"); }
	fi

	if [ ${#why[@]} = 0 ]; then
		echo "ok $n $name ($((SECONDS - t1)) s${objs:+; W=1:$objs})"
		echo "ok series:$name" >> "$res"
		pass=$((pass + 1))
	else
		for f in "${show[@]}"; do
			[ -s "$f" ] && { echo "# ---- $f"; tail -40 "$f" | sed 's/^/# /'; }
		done
		echo "not ok $n $name: ${why[*]}"
		echo "not ok series:$name" >> "$res"
		fail=$((fail + 1))
	fi
done < "$KLOG_REPO/patches/series"

total=$(grep -c . "$KLOG_REPO/patches/series")
if [ "$n" != "$total" ]; then
	echo "not ok series:not-applied-$((total - n))" >> "$res"
	fail=$((fail + total - n))
fi
log "series check took $((SECONDS - t0)) s (logs: $logs)"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
