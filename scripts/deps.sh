#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# deps.sh: install what the pipeline needs from Debian's archive (as root).
set -euo pipefail
pkgs="linux-source-6.12 qemu-system-x86 busybox-static ccache sparse build-essential
	flex bison bc libelf-dev libssl-dev cpio kmod xz-utils file python3 perl git
	gzip procps python3-ply python3-git python3-sphinx python3-docutils groff-base
	babeltrace2 python3-bt2 blktrace clang libxml2-utils chromium"
missing=
for p in $pkgs; do
	dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -n "$missing" ] || exit 0
echo "==> installing:$missing" >&2
[ "$(id -u)" = 0 ] || { echo "error: need root to apt-get install:$missing" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends $missing >/dev/null
