#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mkpatches.sh [OUTDIR]: generate the git format-patch series (default
# patches/) from the repo's files and series/.
#
# series/NNNN-name/ describes one patch: "msg" (commit message), "files"
# (repo files the patch adds or replaces in full) and *.diff (edits to
# upstream files, applied in name order). Repo paths map to tree paths:
# selftests/X -> tools/testing/selftests/klog/X, everything else as is.
# Commits are built with git plumbing on a scratch index (no checkout),
# with fixed author and dates, so the output depends only on the inputs.
# The cover letter is series/cover with its figures filled in from
# BENCHMARKS.md (scripts/cover.py), so that they are never stale.
. "$(dirname "$0")/common.sh"
out=${1:-$KLOG_REPO/patches}
[ -d "$KSRC/.git" ] || "$KLOG_REPO/scripts/tree.sh"

export GIT_DIR=$KSRC/.git
export GIT_INDEX_FILE=$KLOG_CACHE/mkpatches.index
export GIT_AUTHOR_NAME="klog developers" GIT_AUTHOR_EMAIL="klog@localhost"
export GIT_COMMITTER_NAME="klog developers" GIT_COMMITTER_EMAIL="klog@localhost"
trap 'rm -f "$GIT_INDEX_FILE"' EXIT
git read-tree pristine
parent=$(git rev-parse pristine)
n=0
for dir in "$KLOG_REPO"/series/[0-9][0-9][0-9][0-9]-*/; do
	[ ! -e "$dir/.wip" ] || continue	# being written: not in the series yet
	n=$((n + 1))
	[ -f "$dir/msg" ] || die "$dir: no msg"
	if [ -f "$dir/files" ]; then
		while read -r f; do
			[ -n "$f" ] || continue
			[ -f "$KLOG_REPO/$f" ] || die "$dir/files: no such file $f"
			mode=100644
			[ -x "$KLOG_REPO/$f" ] && mode=100755
			blob=$(git hash-object -w "$KLOG_REPO/$f")
			git update-index --add --cacheinfo "$mode,$blob,$(tree_path "$f")"
		done < "$dir/files"
	fi
	for d in "$dir"/*.diff; do
		[ -f "$d" ] || continue
		git apply --cached --whitespace=error-all "$d" || die "$d does not apply"
	done
	tree=$(git write-tree)
	date="2026-11-28T00:$(printf %02d $n):00Z"
	parent=$(GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git commit-tree "$tree" -p "$parent" -F "$dir/msg")
done

rm -rf "$out"
mkdir -p "$out"
git format-patch -q --no-signature --cover-letter --base=pristine \
	--subject-prefix="PATCH" -o "$out" pristine.."$parent"
python3 "$KLOG_REPO/scripts/cover.py" "$out/0000-cover-letter.patch" "$KLOG_REPO/series/cover" \
	"$KLOG_REPO/BENCHMARKS.md" || die "series/cover: a figure is not in BENCHMARKS.md"
(cd "$out" && ls 0*.patch | grep -v '^0000-cover-letter' > series)
log "wrote $(wc -l < "$out/series") patches to $out"
