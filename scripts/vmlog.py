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

KCSAN reports ("BUG: KCSAN: ..." up to the closing "====" line) are
judged by the code that made the racing accesses: the functions in the
title and the top two frames of each access's stack (the accessing
function and its caller, which catches a klog caller of memcpy() or
list_add()). If any is klog code - the klog core, test_klog, the
relay handler and the other relay-apps modules, kernel/relay.c - the
report is a splat like any other and fails the run. Otherwise it is a
race in core kernel code, even when klog code is further down the
stack only as a caller (hrtimer_wakeup against
schedule_hrtimeout_range_clock under test_klog's usleep_range(); the
__percpu_counter_limited_add race of shmem): not ours to fix, it is
printed in full as a noted report and counted as one "skip
vm:kcsan-core:FUNCTIONS" result per distinct race, never dropped
silently.
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
KCSAN_RE = re.compile(r"BUG: KCSAN: (.*)")
KCSAN_END_RE = re.compile(r"^={20,}\s*$")
KCSAN_MAX_LINES = 120
# "read to 0x... of 8 bytes by task 81 on cpu 2:" starts an access's stack
ACCESS_RE = re.compile(r" of \d+ bytes by .*:\s*$")
# " func+0x1a/0x40 [module]" (a stack frame), or a title's "func+0x../0x.."
FRAME_RE = re.compile(r"([A-Za-z_.$][\w.$]*)\+0x[0-9a-f]+/0x[0-9a-f]+(?:\s+\[([\w-]+)\])?")
TITLE_FUNC_RE = re.compile(r"in ([\w.$]+)(?:\+\S+)?(?: / ([\w.$]+))?")
# klog's code: the core and its users in the tree, relay, and the
# modules of samples/klog and lib/ (by name when built in, by module).
KLOG_FUNC_RE = re.compile(r"klog|tklg|kleak|relay|wakeup_readers|^reserve_")
KLOG_MOD_RE = re.compile(r"klog|kleak|reserve")


def kcsan_report(lines, i):
    """The KCSAN report starting at lines[i]: (end index, klog?, key)."""
    title = KCSAN_RE.search(TS_RE.sub("", lines[i])).group(1)
    funcs, mods = [], []
    tm = TITLE_FUNC_RE.search(title)
    if tm:
        funcs += [f for f in tm.groups() if f]
    end = i
    depth = 0       # frames seen of the current access's stack
    for j in range(i + 1, min(len(lines), i + KCSAN_MAX_LINES)):
        line = TS_RE.sub("", lines[j])
        end = j
        if KCSAN_END_RE.match(line):
            break
        if ACCESS_RE.search(line):
            depth = 0
            continue
        fm = FRAME_RE.match(line.strip())
        if fm and depth < 2:
            depth += 1
            funcs.append(fm.group(1))
            if fm.group(2):
                mods.append(fm.group(2))
    ours = any(KLOG_FUNC_RE.search(f) for f in funcs) or \
        any(KLOG_MOD_RE.search(mod) for mod in mods)
    key = "/".join(sorted(set(f for f in (tm.groups() if tm else ()) if f))) or "unknown"
    return end, ours, key


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    results = []
    splats = []
    noted = {}      # core-kernel KCSAN race -> [console line indexes]
    done = None
    skip_to = -1
    for i, raw in enumerate(lines):
        if i <= skip_to:
            continue
        line = TS_RE.sub("", raw)
        m = RESULT_RE.search(line)
        if m:
            results.append((m.group(1), m.group(2)))
            continue
        if line.startswith("KLOG-GUEST-DONE"):
            done = line
        if KCSAN_RE.search(line):
            skip_to, ours, key = kcsan_report(lines, i)
            if ours:
                splats.append(i)
            else:
                noted.setdefault(key, []).append(i)
            continue
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
    for key, where in noted.items():
        i = where[0]
        end, _, _ = kcsan_report(lines, i)
        print(f"--- noted: KCSAN report in core kernel code, no klog frame ({len(where)}x, "
              f"first at console line {i + 1}); not a klog failure:", file=sys.stderr)
        for line in lines[max(0, i - 1):end + 1]:
            print("    " + line, file=sys.stderr)
    if done is None:
        print("--- the guest did not finish (timeout, hang or panic); last console lines:",
              file=sys.stderr)
        for line in lines[-40:]:
            print("    " + line, file=sys.stderr)

    clean = not splats and done is not None
    for key, where in noted.items():
        results.append(("skip", f"vm:kcsan-core:{key}"))
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
