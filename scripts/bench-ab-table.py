#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench-ab-table.py CONSOLE_LOG: the table of an A/B run (guest/job-ab.sh).

Reads the "KLOG-AB: r=R v=a|b c=CASE ... median_ns=N ..." lines, takes
b/a of each case within each round, and prints per case the medians of
both builds' per-call medians and b/a's median with its 10th-90th
percentile range over the rounds (linear interpolation, as
guest/bench-table.sh; a range that includes 1.0 is "not
distinguishable"). Fails, naming what is wrong, on a run with no
rounds, a malformed line, or a round that lacks a case of a or b.
"""
import re
import sys

LINE = re.compile(r'KLOG-AB: r=(\d+) v=([ab]) c=(\w+) .*\bmedian_ns=(\d+)\b')
CASES = ("klog_raw", "klog_printk", "trace_puts")


def quantile(xs, q):
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench-ab-table.py CONSOLE_LOG")
    ns = {}
    with open(sys.argv[1], errors="replace") as f:
        for n, line in enumerate(f, 1):
            i = line.find("KLOG-AB: ")
            if i < 0:
                continue
            m = LINE.match(line[i:].rstrip("\r\n"))
            if not m:
                sys.exit(f"{sys.argv[1]}:{n}: not an A/B result: {line[i:].strip()}")
            r, v, c, t = int(m[1]), m[2], m[3], int(m[4])
            if t <= 0:
                sys.exit(f"{sys.argv[1]}:{n}: median_ns={t}")
            ns.setdefault((r, c), {})[v] = t
    rounds = sorted({r for r, _ in ns})
    if not rounds:
        sys.exit(f"{sys.argv[1]}: no KLOG-AB lines")
    print("| case | a median ns | b median ns | b/a | 10th-90th pct | rounds |")
    print("|---|---|---|---|---|---|")
    for c in CASES:
        a, b, ratio = [], [], []
        for r in rounds:
            got = ns.get((r, c), {})
            if "a" not in got or "b" not in got:
                sys.exit(f"{sys.argv[1]}: round {r} has no {c} of "
                         + ("a" if "a" not in got else "b"))
            a.append(got["a"])
            b.append(got["b"])
            ratio.append(got["b"] / got["a"])
        note = " (no klog code: the drift the method leaves)" if c == "trace_puts" else ""
        lo, hi = quantile(ratio, .1), quantile(ratio, .9)
        same = ", not distinguishable" if lo <= 1.0 <= hi else ""
        print(f"| {c}{note} | {quantile(a, .5):.0f} | {quantile(b, .5):.0f} | "
              f"{quantile(ratio, .5):.2f} | {lo:.2f}-{hi:.2f}{same} | {len(rounds)} |")


if __name__ == "__main__":
    main()
