#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cover.py PATCH COVER BENCHMARKS: fill in git format-patch's cover letter.

PATCH is the 0000-cover-letter.patch that format-patch wrote; COVER is
series/cover (subject, blank line, body); BENCHMARKS is BENCHMARKS.md.
The body's figures are placeholders read from BENCHMARKS.md, so that the
cover letter always says what the last `make bench` measured:

  {{measured}}               the "make bench (COMMIT) on DATE" line's
                             commit and date
  {{T|HEADING|KEY...|COL}}   a table cell: the first table under a
                             "### HEADING..." heading (the wall-clock
                             section comes first; "icount: HEADING" looks
                             in "## The per-call rows counted in
                             instructions"), the first row with every KEY
                             as one of its cells, the column COL; COL
                             "ratio" gives "R (LO-HI)" from the ratio
                             and "10th-90th pct" columns

A placeholder that finds nothing is an error: a renamed row must not
leave a stale or empty figure.
"""
import re
import sys
import textwrap


def tables(md):
    """{(section, heading): [header cells, rows...]} in document order."""
    out, section, heading, cur = [], "", "", None
    for line in md.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        elif line.startswith("### "):
            heading, cur = line[4:].strip(), None
        elif line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if cur is None:
                cur = [section, heading, cells, []]
                out.append(cur)
            elif not all(re.fullmatch(r":?-+:?", c) for c in cells):
                cur[3].append(cells)
        else:
            cur = None
    return out


def cell(tabs, spec):
    parts = spec.split("|")
    head, keys, col = parts[0], parts[1:-1], parts[-1]
    icount = head.startswith("icount: ")
    head = head[len("icount: "):] if icount else head
    for section, heading, hdr, rows in tabs:
        if not heading.startswith(head) or ("instructions" in section) != icount:
            continue
        for r in rows:
            if all(k in r for k in keys):
                if col == "ratio":
                    ri = max(i for i, h in enumerate(hdr) if h == "ratio" or "/" in h)
                    return "%sx (%s)" % (r[ri], r[hdr.index("10th-90th pct")].split(",")[0]
                                         .replace("-", "x-") + "x")
                if col in hdr:
                    return r[hdr.index(col)]
    raise KeyError(spec)


def rewrap(para):
    """A paragraph, or its " - " bullets, filled to 72 columns."""
    items, out = re.split(r"\n(?= - )", para), []
    for item in items:
        words = " ".join(item.split())
        bullet = item.startswith(" - ")
        out.append(textwrap.fill(words[2:] if bullet else words, 72,
                                 initial_indent=" - " if bullet else "",
                                 subsequent_indent="   " if bullet else "",
                                 break_on_hyphens=False))
    return "\n".join(out)


def main():
    patch, cover, bench = sys.argv[1:4]
    md = open(bench).read()
    tabs = tables(md)
    m = re.search(r"make bench` \((\w+)\) on (\S+?):", md)
    subject, _, body = open(cover).read().partition("\n\n")

    def fill(mo):
        key = mo.group(1)
        if key == "measured":
            if not m:
                raise KeyError(key)
            return "%s on %s" % (m.group(1), m.group(2))
        return cell(tabs, key)
    paras = body.split("\n\n")
    try:
        for i, para in enumerate(paras):
            if "{{" in para:
                paras[i] = rewrap(re.sub(r"\{\{(.*?)\}\}", fill, para, flags=re.S))
    except KeyError as e:
        sys.exit("cover.py: no figure in %s for {{%s}}" % (bench, e.args[0]))
    body = "\n\n".join(paras)
    text = open(patch).read()
    text = text.replace("*** SUBJECT HERE ***", subject.strip())
    # format-patch dates the cover letter "now"; keep the output reproducible.
    text = re.sub(r"^Date: .*$", "Date: Sat, 28 Nov 2026 00:00:00 +0000", text, count=1, flags=re.M)
    text = text.replace("*** BLURB HERE ***", body.rstrip() +
                        "\n\nSigned-off-by: klog developers <klog@localhost>")
    open(patch, "w").write(text)


if __name__ == "__main__":
    main()
