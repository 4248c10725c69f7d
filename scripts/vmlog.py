#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a klog VM console log.

Usage: vmlog.py CONSOLE_LOG [RESULTS_FILE]

A run fails when the guest did not finish (no KLOG-GUEST-DONE line: a
hang, a timeout or a panic), or when the kernel printed a splat: WARN,
BUG, oops, panic, KASAN, lockdep, RCU or hung-task reports. For each
splat the console lines around it are printed. Every "KLOG-RESULT: ok|not
ok|skip NAME" line is a test result; they are appended to RESULTS_FILE
(one "ok NAME" / "not ok NAME" / "skip NAME" per line) with one more
result for the run itself ("vm:clean-console").
"""
import re
import sys

SPLATS = [
    r"WARNING: ", r"BUG: ", r"Oops", r"Kernel panic", r"KASAN: ",
    r"UBSAN: ", r"general protection fault", r"kernel BUG at",
    r"possible recursive locking", r"possible circular locking",
    r"inconsistent lock state", r"suspicious RCU usage",
    r"INFO: task .* blocked for more than", r"rcu: INFO: ",
    r"watchdog: BUG: soft lockup", r"Unable to handle kernel",
    r"stack-protector", r"list_add corruption", r"list_del corruption",
    r"sleeping function called from invalid context",
    r"DEBUG_LOCKS_WARN_ON", r"refcount_t: ",
]
SPLAT_RE = re.compile("|".join(SPLATS))
RESULT_RE = re.compile(r"KLOG-RESULT: (ok|not ok|skip) (\S+)")
TS_RE = re.compile(r"^\[\s*\d+\.\d+\]\s?")


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    results = []
    splats = []
    done = None
    for i, raw in enumerate(lines):
        line = TS_RE.sub("", raw)
        m = RESULT_RE.search(line)
        if m:
            results.append((m.group(1), m.group(2)))
            continue
        if line.startswith("KLOG-GUEST-DONE"):
            done = line
        if SPLAT_RE.search(line):
            splats.append(i)

    shown = -1
    for i in splats:
        if i <= shown:
            continue
        lo, hi = max(0, i - 10), min(len(lines), i + 40)
        print(f"--- kernel splat at console line {i + 1}:", file=sys.stderr)
        for line in lines[lo:hi]:
            print("    " + line, file=sys.stderr)
        shown = hi
    if done is None:
        print("--- the guest did not finish (timeout, hang or panic); last console lines:",
              file=sys.stderr)
        for line in lines[-40:]:
            print("    " + line, file=sys.stderr)

    clean = not splats and done is not None
    results.append(("ok" if clean else "not ok", "vm:clean-console"))
    for st, name in results:
        print(f"{st} {name}")
    if len(sys.argv) > 2:
        with open(sys.argv[2], "a") as f:
            for st, name in results:
                f.write(f"{st} {name}\n")
    return 0 if clean and all(st != "not ok" for st, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
