#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""compare.py DIR [TEXT RAW LOST]: check klog -r's exports of a collection.

DIR holds what guest/export-collection.sh made of one collection in the VM
(test_klog traffic from every CPU: text records in task, hardirq and
NMI context, raw records in task and softirq context), or what
checks/collector/run.sh made of a synthesized one:

  coll/cpuN      the collection (klog -o)
  report.txt     klog -r coll           report.err its standard error
  report.json    klog -r coll --json
  ctf/           klog -r coll --ctf ctf

or all three of klog -r coll with the same filters (the counts then are
those the summary says were shown, and every loss).

Checks, each printed as "ok NAME" or "not ok NAME" (details on stderr as
"# ..." lines):

  counts            (with TEXT RAW LOST) the report has exactly the
                    records and losses the traffic makes: TEXT + RAW
                    records and LOST lost per CPU
  json-parses       every line of report.json is UTF-8 and a JSON object
                    (Python's json module) of a known type, with "ts",
                    "seq" and "count" strings of decimal digits, no C1
                    control, U+2028 or U+2029 unescaped
  json-exact-text   each of "comm", "func", "file", "text" is exact: with
                    no NAME_hex, its UTF-8 encoding is the bytes (so they
                    are well-formed UTF-8); with one, the hex bytes are
                    not well-formed UTF-8 and the string is what
                    bytes.decode("utf-8", "replace") makes of them
  json-is-report    each JSON object, printed the way klog -r prints a
                    line (comm-pid when "comm" is known, site#N when
                    "func" is not), is the report's line at the same
                    position
  babeltrace2-cli   the babeltrace2 program reads the trace: exit 0, one
                    line per record, its "discarded N events" warnings
                    add up to the report's losses
  ctf-events        every CTF event (read with babeltrace2's Python
                    bindings) equals the JSON record of the same buffer and
                    seq in every field: timestamp, cpu, pid, comm, ctx,
                    flags, seq, site, line, func, text or data (comm,
                    func and text by their exact bytes: NAME_bytes when
                    it is not empty, else the string, which is then
                    what the bytes decode to with U+FFFD for what is not
                    UTF-8 and for NUL); none missing, none extra
  ctf-discarded     each stream's discarded-event counts equal the losses
                    the report shows for that buffer
  meta              (with TEXT RAW LOST) coll/meta: version 1, a per-CPU
                    collection of every CPU, the kernel's nmi drops (NMI
                    staging area full) LOST per CPU, and clock pairs from klog-mod's clock file
                    whose local_clock values bracket every record
"""
import json
import os
import re
import subprocess
import sys

import bt2

CTX = {"task", "softirq", "hardirq", "nmi"}
failed = 0


def result(name, errors):
    global failed
    if errors:
        failed += 1
        print("not ok " + name)
        for e in errors[:20]:
            print("# " + name + ": " + e, file=sys.stderr)
        if len(errors) > 20:
            print("# %s: ... %d more" % (name, len(errors) - 20), file=sys.stderr)
    else:
        print("ok " + name)


ESC = {0x5c: "\\\\", 0x0a: "\\n", 0x09: "\\t", 0x0d: "\\r"}


def escape(b):
    """klog -r's escaping of text bytes (ks_format)."""
    return "".join(ESC.get(c) or (chr(c) if 0x20 <= c < 0x7f else "\\x%02x" % c)
                   for c in b)


def exact(o, k):
    """The bytes of JSON string field @k (None for null): NAME_hex or UTF-8."""
    if o[k] is None:
        return None
    if k + "_hex" in o:
        return bytes.fromhex(o[k + "_hex"])
    return o[k].encode("utf-8")


def ctf_exact(f, k):
    """The bytes of CTF string field @k: NAME_bytes when not empty."""
    b = bytes(int(x) for x in f[k + "_bytes"])
    return b if b else str(f[k]).encode("utf-8")


def replaced(b):
    """What a CTF string holds for bytes @b: U+FFFD for invalid UTF-8 and NUL."""
    return b.decode("utf-8", "replace").replace("\0", "\ufffd")


U64_FIELDS = ("ts", "seq", "count")


def line_of(o):
    """The line klog -r prints for JSON object @o."""
    ts = "[%d.%09d]" % (o["ts"] // 10**9, o["ts"] % 10**9)
    if o["type"] in ("lost", "subbufs_lost"):
        return "%s cpu%d *** %d %s lost ***" % (ts, o["buffer"], o["count"],
                                                "records" if o["type"] == "lost" else "sub-buffers")
    task = "%d" % o["pid"]
    if o["comm"] is not None:
        task = "%s-%d" % (escape(exact(o, "comm")).replace(" ", "\\x20"),
                          o["pid"])
    if o["func"] is not None:
        site = "%s:%d" % (escape(exact(o, "func")), o["line"])
    elif o["site"]:
        site = "site#%d" % o["site"]
    else:
        site = "?:%d" % o["line"]
    s = "%s cpu%d %s %s %s: " % (ts, o["cpu"], task, o["ctx"], site)
    if o["kind"] == "text":
        t = exact(o, "text")
        s += escape(t[:-1] if t.endswith(b"\n") else t)
    else:
        data = bytes.fromhex(o["data"])
        s += "%s %d bytes:" % (o["kind"], o["len"])
        s += "".join(" %02x" % c for c in data[:64])
        if len(data) > 64:
            s += " ..."
    if "truncated" in o["flags"]:
        s += " [truncated]"
    if "trigger" in o["flags"]:
        s += " [trigger]"
    return s


def main(d, traffic):
    ncpu = len([f for f in os.listdir(os.path.join(d, "coll"))
                if re.fullmatch(r"cpu\d+", f)])
    report = open(os.path.join(d, "report.txt"), encoding="latin-1").read().splitlines()
    err = open(os.path.join(d, "report.err")).read()
    # a filtered report (klog -r FILTERS): "N of M records ... shown";
    # the exports then hold its N records, and every loss
    m = re.search(r"klog: (?:(\d+) of )?(\d+) records from (\d+) CPUs(?: shown)?, (\d+) lost", err)
    got = (int(m.group(1) or m.group(2)), int(m.group(3)), int(m.group(4))) if m else None
    if traffic:
        text, raw, nlost = traffic
        want = (ncpu * (text + raw), ncpu, ncpu * nlost)
        result("counts", [] if got == want and ncpu > 0 else
               ["report says %s, the traffic makes %d records from %d CPUs, %d lost"
                % (got, *want)])
    records, lost = (got[0], got[2]) if got else (-1, -1)

    # JSON
    objs, errs = [], []
    for i, l in enumerate(open(os.path.join(d, "report.json"), "rb")):
        try:
            l = l.decode("utf-8")
            o = json.loads(l)
        except ValueError as e:     # UnicodeDecodeError too
            errs.append("line %d: %s" % (i + 1, e))
            continue
        if not isinstance(o, dict) or o.get("type") not in ("record", "lost", "subbufs_lost"):
            errs.append("line %d: not a record or loss object" % (i + 1))
            continue
        if o["type"] == "record" and o["ctx"] not in CTX:
            errs.append("line %d: context %r" % (i + 1, o["ctx"]))
        m = re.search("[\x80-\x9f\u2028\u2029]", l)
        if m:
            errs.append("line %d: %r unescaped" % (i + 1, m.group()))
        for k in U64_FIELDS:
            if k in o:
                if not (isinstance(o[k], str) and re.fullmatch(r"0|[1-9]\d*", o[k])
                        and int(o[k]) < 2**64):
                    errs.append("line %d: %s %r is not a string of a u64's digits"
                                % (i + 1, k, o[k]))
                    break
                o[k] = int(o[k])
        else:
            objs.append(o)
    result("json-parses", errs)
    errs = []
    for o in objs:
        for k in ("comm", "func", "file", "text"):
            if o.get(k) is None:
                if k + "_hex" in o:
                    errs.append("%s null with a %s_hex: %r" % (k, k, o))
                continue
            b = exact(o, k)
            try:
                b.decode("utf-8")
                ok = k + "_hex" not in o
            except UnicodeDecodeError:
                ok = k + "_hex" in o and o[k] == b.decode("utf-8", "replace")
            if not ok:
                errs.append("%s %r, %s_hex %r" % (k, o[k], k, o.get(k + "_hex")))
    result("json-exact-text", errs)
    errs = []
    if len(objs) != len(report):
        errs.append("%d JSON objects, %d report lines" % (len(objs), len(report)))
    for i, (o, l) in enumerate(zip(objs, report)):
        if line_of(o) != l:
            errs.append("line %d: JSON %r is %r, the report has %r" % (i + 1, o, line_of(o), l))
    result("json-is-report", errs)
    recs = {(o["buffer"], o["seq"]): o for o in objs if o["type"] == "record"}
    lost_by_buf = {}
    for o in objs:
        if o["type"] == "lost":
            lost_by_buf[o["buffer"]] = lost_by_buf.get(o["buffer"], 0) + o["count"]

    # the babeltrace2 program
    ctf = os.path.join(d, "ctf")
    p = subprocess.run(["babeltrace2", ctf], capture_output=True, text=True,
                       errors="backslashreplace")
    disc = sum(int(n) for n in re.findall(r"discarded (\d+) events?", p.stderr))
    nlines = p.stdout.count("\n")     # not splitlines(): U+2028 is no line end
    result("babeltrace2-cli",
           [] if p.returncode == 0 and nlines == records and disc == lost else
           ["exit %d, %d lines (want %d), %d discarded (want %d): %s"
            % (p.returncode, nlines, records, disc, lost, p.stderr[-500:])])

    # the trace, field by field, with babeltrace2's Python bindings
    errs, seen, disc_by_cpu = [], set(), {}
    for msg in bt2.TraceCollectionMessageIterator(ctf):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            key = msg.stream.name
            disc_by_cpu[key] = disc_by_cpu.get(key, 0) + msg.count
            continue
        if type(msg) is not bt2._EventMessageConst:
            continue
        ev = msg.event
        f = ev.payload_field
        buf = int(ev.packet.context_field["cpu_id"])
        key = (buf, int(f["seq"]))
        o = recs.get(key)
        if o is None:
            errs.append("event %s buffer %d seq %d: no such JSON record" % (ev.name, *key))
            continue
        if key in seen:
            errs.append("buffer %d seq %d: twice in the trace" % key)
        seen.add(key)
        got = {
            "ts": msg.default_clock_snapshot.value,
            "cpu": int(f["cpu"]), "pid": int(f["pid"]),
            "ctx": str(f["ctx"].labels[0]) if len(f["ctx"].labels) == 1 else "?",
            "flags": int(f["flags"]), "line": int(f["line"]),
            "func": ctf_exact(f, "func"), "kind": ev.name.split(":")[1],
            "comm": ctf_exact(f, "comm"), "site": int(f["site"]),
        }
        exp = {
            "ts": o["ts"], "cpu": o["cpu"], "pid": o["pid"], "ctx": o["ctx"],
            "flags": ("truncated" in o["flags"]) | 2 * ("trigger" in o["flags"]),
            "line": o["line"], "func": exact(o, "func") or b"", "kind": o["kind"],
            "comm": exact(o, "comm") or b"", "site": o["site"],
        }
        strings = ["comm", "func"]
        if o["kind"] == "text":
            got["text"] = ctf_exact(f, "text")
            exp["text"] = exact(o, "text")
            strings.append("text")
        else:
            got["data"] = bytes(int(x) for x in f["data"]).hex()
            got["len"] = int(f["len"])
            exp["data"], exp["len"] = o["data"], o["len"]
        for k in strings:
            if str(f[k]) != replaced(got[k]):
                got[k + "-string"] = str(f[k])
                exp[k + "-string"] = replaced(got[k])
            if len(f[k + "_bytes"]) and str(f[k]).encode("utf-8") == got[k]:
                got[k + "-bytes"] = "not empty"
                exp[k + "-bytes"] = "empty: the string is exact"
        if got != exp:
            errs.append("buffer %d seq %d: CTF %r, JSON %r" % (*key, got, exp))
    for key in sorted(set(recs) - seen):
        errs.append("buffer %d seq %d: in the report, not in the trace" % key)
    result("ctf-events", errs)

    errs = []
    by_stream = {}
    for name, n in disc_by_cpu.items():
        m = re.search(r"stream_(\d+)$", name or "")
        if not m:
            errs.append("discarded events in stream %r" % name)
            continue
        by_stream[int(m.group(1))] = n
    if by_stream != {b: n for b, n in lost_by_buf.items() if n}:
        errs.append("discarded per stream %r, lost per buffer in the report %r"
                    % (by_stream, lost_by_buf))
    result("ctf-discarded", errs)

    if traffic:
        check_meta(d, ncpu, traffic[2], [o["ts"] for o in objs if o["type"] == "record"])


def check_meta(d, ncpu, nlost, stamps):
    errs, kv, dropped = [], {}, {}
    lines = open(os.path.join(d, "coll", "meta"), encoding="ascii").read().splitlines()
    if not lines or lines[0] != "klog-meta 1":
        errs.append("first line %r" % (lines[:1],))
    for l in lines[1:]:
        k, _, v = l.partition(" ")
        if k == "dropped":
            cpu, _, causes = v.partition(" ")
            dropped[cpu] = dict(c.split("=") for c in causes.split())
        else:
            kv[k] = v
    for k, want in (("kind", "collection"), ("buffers", "per-cpu"), ("cpus", str(ncpu)),
                    ("stop_reason", "command exited")):
        if kv.get(k) != want:
            errs.append("%s %r, want %r" % (k, kv.get(k), want))
    if sorted(dropped) != sorted("cpu%d" % i for i in range(ncpu)) or \
       any(c.get("nmi") != str(nlost) for c in dropped.values()):
        errs.append("dropped lines %r, want nmi=%d for each of %d CPUs" % (dropped, nlost, ncpu))
    try:
        t0, r0 = kv["clock_start"].split()
        t1, r1 = kv["clock_stop"].split()
        if not (int(t0) <= min(stamps) and max(stamps) <= int(t1)):
            errs.append("clock pairs %s .. %s do not bracket the records %d .. %d"
                        % (t0, t1, min(stamps), max(stamps)))
        if not (re.fullmatch(r"\d+\.\d{9}", r0) and re.fullmatch(r"\d+\.\d{9}", r1)
                and float(r0) <= float(r1)):
            errs.append("clock realtimes %s, %s" % (r0, r1))
    except (KeyError, ValueError) as e:
        errs.append("clock pairs: %r" % e)
    result("meta", errs)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 5):
        sys.exit("usage: compare.py DIR [TEXT RAW LOST]")
    main(sys.argv[1], [int(x) for x in sys.argv[2:]])
    sys.exit(1 if failed else 0)
