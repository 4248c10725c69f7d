#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh NAME FRAGMENT... : configure $KLOG_CACHE/build-NAME from
# tinyconfig plus the fragments, check that every requested option took,
# and build bzImage and modules (ccache, O= out of tree).
. "$(dirname "$0")/common.sh"
name=$1; shift
b=$KLOG_CACHE/build-$name
frags=()
for f in "$@"; do frags+=("$(cd "$(dirname "$f")" && pwd)/$(basename "$f")"); done

# Configured again when a fragment or the patched tree changed (a new
# Kconfig symbol defaults off in olddefconfig).
want=$(cat "${frags[@]}" "$KSRC/.klog-applied" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -f "$b/.config" ] || [ "$(cat "$b/.klog-frags" 2>/dev/null)" != "$want" ]; then
	log "configuring build-$name: tinyconfig + ${*##*/}"
	kmake "$name" tinyconfig >/dev/null
	(cd "$b" && KCONFIG_CONFIG=.config "$KSRC/scripts/kconfig/merge_config.sh" -m -O "$b" .config "${frags[@]}" >/dev/null)
	kmake "$name" olddefconfig >/dev/null
	echo "$want" > "$b/.klog-frags"
fi
kmake "$name" olddefconfig >/dev/null
"$KLOG_REPO/scripts/kconfig-check.sh" "$b/.config" "${frags[@]}"

log "building build-$name (ccache: $CCACHE_DIR)"
start=$SECONDS
kmake "$name" bzImage modules
log "build-$name done in $((SECONDS - start)) s"
