#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare $KLOG_CACHE/linux: a git repo of the pristine Debian
# linux-source-6.12 tree (tag "pristine") with patches/ applied on branch
# "klog" by git am, so that a patch which does not apply fails loudly.
# Re-applies only when patches/ changed since the last run.
. "$(dirname "$0")/common.sh"

tarball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || die "no /usr/src/linux-source-6.12.tar.*: run 'make deps' (apt-get install linux-source-6.12)"
tarid=$(stat -c '%s-%Y' "$tarball")

git_k() { git -C "$KSRC" -c user.name=klog -c user.email=klog@localhost "$@"; }

if [ "$(cat "$KSRC/.klog-pristine" 2>/dev/null)" != "$tarid" ]; then
	log "unpacking pristine tree from $tarball"
	rm -rf "$KSRC" "$KLOG_CACHE"/build-*
	mkdir -p "$KLOG_CACHE/unpack.$$"
	tar -C "$KLOG_CACHE/unpack.$$" -xf "$tarball"
	mv "$KLOG_CACHE/unpack.$$"/linux-source-6.12 "$KSRC"
	rmdir "$KLOG_CACHE/unpack.$$"
	git -C "$KSRC" init -q -b pristine-base
	git_k config core.autocrlf false
	git_k add -A -f .
	GIT_AUTHOR_DATE="2026-11-28T00:00:00Z" GIT_COMMITTER_DATE="2026-11-28T00:00:00Z" \
		git_k commit -q -m "Linux $(make -s -C "$KSRC" kernelversion) (Debian linux-source-6.12)"
	git_k tag -f pristine >/dev/null
	echo "$tarid" > "$KSRC/.klog-pristine"
	echo ".klog-*" >> "$KSRC/.git/info/exclude"
fi

want=$(cat "$KLOG_REPO"/patches/*.patch 2>/dev/null | sha256sum | cut -d" " -f1 || true)
if [ "$(cat "$KSRC/.klog-applied" 2>/dev/null)" != "$want" ]; then
	log "applying patches/ to the pristine tree with git am"
	git_k am --abort >/dev/null 2>&1 || true
	git_k checkout -q -f -B klog pristine
	git_k clean -q -fdx -e '.klog-*'
	rm -f "$KSRC/.klog-applied"
	if [ -f "$KLOG_REPO/patches/series" ]; then
		git_k am -q --whitespace=error-all $(sed -n "s|^\([^#].*\)|$KLOG_REPO/patches/\1|p" "$KLOG_REPO/patches/series") ||
			die "patches/ does not apply to the pristine tree (see git am output above)"
	fi
	echo "$want" > "$KSRC/.klog-applied"
fi
