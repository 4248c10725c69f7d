#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check-docs.sh RESULTS: build klog's documentation with Sphinx, the way
# `make htmldocs` would, but only our files: a full htmldocs run takes
# far too long for every check.
#
#   docs:toctree  Documentation/trace/index.rst lists klog
#   docs:sphinx   Documentation/trace/klog.rst and filesystems/relay.rst
#                 build with the tree's own Documentation/conf.py (all its
#                 extensions: kernel-doc, automarkup, autosectionlabel, the
#                 C domain settings) with -W: any Sphinx warning, and any
#                 warning kernel-doc prints for the sources the .rst pulls
#                 in, fails the check.
#
# kernel-doc -Wall on the sources themselves is lint.sh's job; this checks
# the reStructuredText around them and what kernel-doc makes of them.
#
# The tree is $KLOG_DOCS_TREE, default $KSRC (pristine + patches/ after
# scripts/tree.sh). Any directory with the same layout works, e.g. a
# scratch copy holding Documentation/{conf.py,sphinx,sphinx-static},
# Makefile, scripts/kernel-doc, the two .rst files and the sources they
# include. Nothing is written to the tree. KLOG_DOCS_OUT=DIR keeps the
# HTML in DIR.
#
# Needs python3-sphinx from Debian (scripts/deps.sh) and runs it with
# /usr/bin/python3: the machine's default python3 may lack Debian modules.
. "$(dirname "$0")/common.sh"
res=${1:?usage: check-docs.sh RESULTS_FILE}

tree=$(cd "${KLOG_DOCS_TREE:-$KSRC}" && pwd)
py=/usr/bin/python3
docs="trace/klog filesystems/relay"

if grep -qE '^[[:space:]]+klog$' "$tree/Documentation/trace/index.rst" 2>/dev/null; then
	rec ok docs:toctree
else
	echo "$tree/Documentation/trace/index.rst: no 'klog' entry in a toctree" >&2
	rec "not ok" docs:toctree
fi

missing=
for d in $docs; do
	[ -f "$tree/Documentation/$d.rst" ] || missing="$missing Documentation/$d.rst"
done
for f in Documentation/conf.py Documentation/sphinx/kerneldoc.py scripts/kernel-doc; do
	[ -e "$tree/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then
	echo "$tree: missing$missing (patches/ not regenerated, or not applied?)" >&2
	rec "not ok" docs:sphinx
	exit 0
fi
if ! "$py" -c 'import sphinx' 2>/dev/null; then
	echo "$py: no sphinx module: apt-get install python3-sphinx (scripts/deps.sh)" >&2
	rec "not ok" docs:sphinx
	exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# A source directory of our documents only, at their tree paths so that
# links between them resolve; the index makes them part of one toctree.
mkdir -p "$tmp/src"
{
	echo "klog documentation check"
	echo "========================"
	echo
	echo ".. toctree::"
	echo
	for d in $docs; do echo "   $d"; done
} > "$tmp/src/index.rst"
for d in $docs; do
	mkdir -p "$tmp/src/$(dirname "$d")"
	cp "$tree/Documentation/$d.rst" "$tmp/src/$d.rst"
done
# What the documents pull in with literalinclude (klog.rst: the example
# module), at the same path relative to them as in the tree.
[ ! -d "$tree/samples/klog" ] || { mkdir -p "$tmp/samples"; cp -r "$tree/samples/klog" "$tmp/samples/"; }

# The configuration is the kernel's own conf.py, run in its directory as
# htmldocs runs it, followed by what differs for a build of a few files
# outside the tree: paths made absolute, kernel-doc given as
# Documentation/Makefile gives it, and no kfigure (it warns when
# graphviz is missing; our documents have no figures). kerneldoc.py
# copies kernel-doc's stderr to ours (verbosity 1), where its warnings
# are caught below. No .pyc files land in the tree.
mkdir -p "$tmp/conf"
cat > "$tmp/conf/conf.py" <<PY
import os
_docs = '$tree/Documentation'
_cwd = os.getcwd()
os.chdir(_docs)
try:
    exec(compile(open('conf.py').read(), _docs + '/conf.py', 'exec'))
finally:
    os.chdir(_cwd)
extensions = [e for e in extensions if e != 'kfigure']
templates_path = [os.path.join(_docs, p) for p in templates_path]
html_static_path = [os.path.join(_docs, p) for p in html_static_path]
if html_logo and os.path.exists(os.path.join(_docs, html_logo)):
    html_logo = os.path.join(_docs, html_logo)
else:
    html_logo = None
kerneldoc_bin = '$tree/scripts/kernel-doc'
kerneldoc_srctree = '$tree'
kerneldoc_verbosity = 1
PY
rc=0
PYTHONDONTWRITEBYTECODE=1 "$py" -m sphinx -b html -q -W --keep-going -j 1 \
	-c "$tmp/conf" -d "$tmp/doctrees" "$tmp/src" "${KLOG_DOCS_OUT:-$tmp/html}" \
	> "$tmp/out" 2> "$tmp/err" || rc=$?

# Report with tree paths, not the scratch copy's.
sed -i "s|$tmp/src/|Documentation/|g" "$tmp/out" "$tmp/err"
problems=$(grep -iE 'warning|error' "$tmp/err" || true)
if [ "$rc" = 0 ] && [ -z "$problems" ]; then
	rec ok docs:sphinx
else
	cat "$tmp/out" "$tmp/err" >&2
	[ "$rc" = 0 ] || echo "sphinx-build exited with status $rc" >&2
	rec "not ok" docs:sphinx
fi
