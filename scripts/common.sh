# SPDX-License-Identifier: GPL-2.0
# Shared settings for the klog pipeline scripts; sourced, not run.
#
# Everything heavy lives outside the clone, in $KLOG_CACHE:
#   linux/        git repo: pristine linux-source-6.12 (tag "pristine"),
#                 branch "klog" = pristine + patches/ applied with git am
#   build-<name>/ O= output directories (test, nokl, ...)
#   ccache/       compiler cache shared by every build and every clone
set -euo pipefail

KLOG_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KLOG_CACHE=${KLOG_CACHE:-/var/cache/klog}
KSRC=$KLOG_CACHE/linux
JOBS=${JOBS:-$(nproc)}

export CCACHE_DIR=${CCACHE_DIR:-$KLOG_CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_BASEDIR=$KLOG_CACHE
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
# Fixed build identity: the same objects hash the same in every session.
export KBUILD_BUILD_TIMESTAMP="Thu Nov 28 00:00:00 UTC 2026"
export KBUILD_BUILD_USER=klog KBUILD_BUILD_HOST=klog-vm

# Debian tools first: a pyenv python3 lacks the modules the kernel scripts use.
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

die() { echo "error: $*" >&2; exit 1; }
# rec STATUS NAME: one result line ("ok NAME", "not ok NAME", "skip NAME"),
# on stdout and appended to $res, the results file the check script set.
rec() { echo "$1 $2" >> "$res"; echo "$1 $2"; }
log() { echo "==> $*" >&2; }
# checks PREFIX CMD...: CMD's "ok NAME" / "not ok NAME" lines as results
# PREFIX:NAME in $res, its "# ..." details shown; none at all fails
# PREFIX:ran-nothing
checks() {
	local prefix=$1 out
	shift
	if out=$("$@" 2>&1); then :; fi
	echo "$out" | grep -E '^(not )?ok ' | sed 's/^\(not ok\|ok\) /\1 '"$prefix"':/' | tee -a "$res"
	echo "$out" | grep '^#' || true
	# no -q: grep reads all, so that echo gets no SIGPIPE (pipefail)
	echo "$out" | grep -E '^(not )?ok ' > /dev/null || rec "not ok" "$prefix:ran-nothing"
}

# Where a repo file lives in the kernel tree.
tree_path() {
	case "$1" in
	selftests/*) echo "tools/testing/selftests/klog/${1#selftests/}" ;;
	*) echo "$1" ;;
	esac
}

kmake() { # kmake <build-name> <make args...>
	local b=$KLOG_CACHE/build-$1; shift
	mkdir -p "$b"
	make -s -C "$KSRC" O="$b" CC="ccache gcc" HOSTCC="ccache gcc" -j"$JOBS" "$@"
}
