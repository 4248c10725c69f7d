#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge a klog VM console log.

Usage: vmlog.py CONSOLE_LOG [RESULTS_FILE]

A run fails when the guest did not finish (no KLOG-GUEST-DONE line: a
hang, a timeout or a panic), or when the kernel printed a splat: WARN,
BUG, oops, panic, KASAN, lockdep, RCU or hung-task reports, on the
console or in the "KLOG-HIDDEN: " lines that guest/init prints after a
job whose quiet console (loglevel=4) hid the kernel log's warnings. For
each splat the console lines around it are printed. Every "KLOG-RESULT: ok|not
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

Expected crashes: in the crash jobs only (oops, panic, pstore: the
"KLOG-GUEST: job=NAME" line names the job), a "KLOG-EXPECT-CRASH: KIND"
line announces the crash the job provokes next. From there the splats of
that crash are expected, not failures: an oops's up to its "---[ end
trace" line, a panic's up to the next boot ("Linux version") or the end
of the log (panic=-1 reboots at once, with no end line); in the panic
job the panic ends the run as KLOG-GUEST-DONE would. One splat after
that, an announcement in any other job, or an announced crash that does
not happen (result vm:expected-KIND) fails the run.

Dumps (klog-mod's dump_on_oops): the job prints what the dump must show
as "KLOG-EXPECT: LINE" (records, NMI records still staged included,
ending in " [staged]"), "KLOG-EXPECT-STATS: LINE",
"KLOG-EXPECT-TRIGGER: LINE" and "KLOG-EXPECT-STAGED: LINE" (the dump's
"cpuN staged=..." lines: none unless listed); the dump that the first
announced crash printed (from "klog-mod: dump on oops|panic:" to
"klog-mod: end of dump") must hold exactly those records in that order,
those stats and staged lines and that trigger, and be its only one:
results dump:JOB:console-*. A dump read back from pstore in a second boot,
printed as "KLOG-PSTORE: LINE", is checked the same way:
dump:JOB:pstore-*.
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
JOB_RE = re.compile(r"^KLOG-GUEST: job=(\S+)")
# The crash-matrix jobs: an oops in an interrupt or NMI is fatal, so
# they announce a panic, which ends the run as in the panic job.
PANIC_JOBS = {"panic", "oops-softirq", "oops-hardirq", "oops-nmi",
              "oops-in-dump"}
# A crash inside the dump (after its records): the dump is cut there,
# only its records are compared, and the notes must say what happened.
PARTIAL_DUMP_JOBS = {"oops-in-dump": [
    "klog-mod: dump on oops: a crash inside the dump: it ends here",
    "klog-mod: dump on panic: the records were dumped once already, at an earlier oops"]}
CRASH_JOBS = {"oops", "pstore"} | PANIC_JOBS
CRASH_RE = re.compile(r"^KLOG-EXPECT-CRASH: (oops|panic)$")
# What makes an announced crash happen as expected, and where its splats
# end: an oops ends with its end marker; a panic with panic=-1 reboots
# without one, so its splats end where the machine boots again (or the
# log ends).
CRASH_SEEN_RE = {"oops": re.compile(r"---\[ end trace "),
                 "panic": re.compile(r"Kernel panic - not syncing")}
BOOT_RE = re.compile(r"^Linux version ")
# A dump's first line; not the line of a crash that finds the dump done
# or running.
DUMP_START_RE = re.compile(r"^klog-mod: dump on (oops|panic): "
                           r"(?!the records were dumped once already|"
                           r"a crash inside the dump)")
# A record line of a dump (a record, a loss line); other lines printed
# meanwhile (another CPU's messages, a crash's report) are not the dump's.
DUMP_LINE_RE = re.compile(r"^\[\d+\.\d{9}\] cpu\d+ ")
DUMP_END = "klog-mod: end of dump"
DUMP_STATS_RE = re.compile(r"^klog-mod: (cpu\d+ produced=.*)$")
DUMP_TRIGGER_RE = re.compile(r"^klog-mod: trigger: (.*)$")
DUMP_STAGED_RE = re.compile(r"^klog-mod: (cpu\d+ staged=.*)$")
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


def dumps(lines):
    """The dumps in these (console) lines: a list of (records, stats, trigger,
    notes, staged) with the record lines in order, the stats lines, the
    trigger's text (or ""), the other klog-mod lines and the staged lines."""
    found = []
    cur = None
    for line in lines:
        if DUMP_START_RE.match(line):
            if cur is not None:
                found.append(cur)      # cut short: compared as it is
            cur = ([], [], "", [], [])
            continue
        if cur is None:
            continue
        if line == DUMP_END:
            found.append(cur)
            cur = None
            continue
        m = DUMP_STATS_RE.match(line)
        t = DUMP_TRIGGER_RE.match(line)
        st = DUMP_STAGED_RE.match(line)
        if m:
            cur[1].append(m.group(1))
        elif st:
            cur[4].append(st.group(1))
        elif t:
            cur = (cur[0], cur[1], t.group(1), cur[3], cur[4])
        elif line.startswith("klog-mod: "):
            cur[3].append(line)
        elif DUMP_LINE_RE.match(line):
            cur[0].append(line)
    if cur is not None:
        found.append(cur)      # cut short: compared as it is
    return found


def check_dump(job, where, want, got, results):
    """Compare a dump with the KLOG-EXPECT lines: dump:JOB:WHERE-* results."""
    name = f"dump:{job}:{where}"
    if len(got) != 1:
        print(f"--- {name}: {len(got)} dumps, expected exactly 1", file=sys.stderr)
        results.append(("not ok", f"{name}-once"))
        if not got:
            return
    else:
        results.append(("ok", f"{name}-once"))
    records, stats, trigger, notes, staged = got[0]
    for line in notes:
        print(f"--- {name}: {line}", file=sys.stderr)
    if job in PARTIAL_DUMP_JOBS:
        ok = records == want[0]
        results.append(("ok" if ok else "not ok", f"{name}-records"))
        ok = notes == PARTIAL_DUMP_JOBS[job]
        results.append(("ok" if ok else "not ok", f"{name}-crash-inside"))
        return
    for what, w, g in (("records", want[0], records), ("stats", want[1], stats),
                       ("trigger", want[2], trigger), ("staged", want[3], staged)):
        if w == g:
            results.append(("ok", f"{name}-{what}"))
            continue
        results.append(("not ok", f"{name}-{what}"))
        if isinstance(w, str):
            print(f"--- {name}-{what}: expected {w!r}, got {g!r}", file=sys.stderr)
            continue
        print(f"--- {name}-{what}: expected {len(w)} lines, got {len(g)}:", file=sys.stderr)
        for i in range(max(len(w), len(g))):
            a = w[i] if i < len(w) else "(none)"
            b = g[i] if i < len(g) else "(none)"
            if a != b:
                print(f"    line {i + 1}: expected {a}\n    line {i + 1}: got      {b}",
                      file=sys.stderr)
                break


def main():
    lines = open(sys.argv[1], errors="replace").read().splitlines()
    results = []
    splats = []
    noted = {}      # core-kernel KCSAN race -> [console line indexes]
    done = None
    skip_to = -1
    job = None
    crash = None        # the announced crash running: "oops" or "panic"
    crashes = []        # (kind, ended) of each announced crash
    console = []        # the first announced crash's console lines
    pstore = []         # "KLOG-PSTORE: " lines of a second boot
    want = ([], [], "", [])
    lists = {"KLOG-EXPECT": want[0], "KLOG-EXPECT-STATS": want[1], "KLOG-EXPECT-STAGED": want[3],
             "KLOG-PSTORE": pstore}
    for i, raw in enumerate(lines):
        if i <= skip_to:
            continue
        line = TS_RE.sub("", raw)
        if crash and len(crashes) == 1:
            console.append(line)
        m = RESULT_RE.search(line)
        if m:
            results.append((m.group(1), m.group(2)))
            continue
        if line.startswith("KLOG-GUEST-DONE"):
            done = line
        m = JOB_RE.match(line)
        if m:
            job = m.group(1)
        tag, colon, rest = line.partition(": ")
        if colon and tag in lists:
            lists[tag].append(rest)
            continue
        if tag == "KLOG-EXPECT-TRIGGER" and colon:
            want = (want[0], want[1], rest, want[3])
            continue
        m = CRASH_RE.match(line)
        if m and job in CRASH_JOBS and crash is None:
            crash = m.group(1)
            crashes.append([crash, False])
            continue
        if crash == "panic" and BOOT_RE.match(line):
            crash = None
        if crash:
            # the announced crash: its splats are expected, up to its end
            if CRASH_SEEN_RE[crash].search(line) and not crashes[-1][1]:
                crashes[-1][1] = True
                if crash == "panic" and job in PANIC_JOBS:
                    done = line
                if crash == "oops":
                    crash = None
            continue
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

    for kind, ended in crashes:
        results.append(("ok" if ended else "not ok", f"vm:expected-{kind}"))
        if not ended:
            print(f"--- the announced {kind} did not end as one", file=sys.stderr)
    if want[0] or want[1]:
        check_dump(job, "console", want, dumps(console), results)
    if pstore:
        check_dump(job, "pstore", want, dumps(pstore), results)

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
