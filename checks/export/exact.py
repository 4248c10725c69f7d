#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""exact.py DIR HOSTNAME TRACE_NAME: exact text and numbers in the exports.

DIR holds report.json and ctf/ as for compare.py, exported from what
"stream_test text" made (checks/collector/stream_fixtures.c: cmd_text), with
a DIR/meta giving HOSTNAME (or none if HOSTNAME is ""); TRACE_NAME
is the trace_name the CTF env should have (the collection directory's
name, with U+FFFD for what is not UTF-8 and for control characters).
The bytes below are the generator's, written out again: the check reads
the exports back with Python's json module and babeltrace2 and compares
with them, not with klog's idea of them.

Checks, each printed as "ok NAME" or "not ok NAME" (details on stderr as
"# ..." lines):

  exact-json-text     each record's comm, func, file and text give back
                      the generator's bytes ("NAME_hex" when they are
                      not UTF-8, the string otherwise), the strings are
                      what a UTF-8 reader shows (U+FFFD per maximal
                      subpart), and control, C1 and line-separator
                      characters are \\u escapes in the line
  exact-json-u64      ts, seq and count past 2^53 read back exactly
  exact-ctf-text      each CTF event (babeltrace2's Python bindings) has
                      the same bytes in comm, func and text (NAME_bytes
                      when not empty), strings of valid UTF-8 only
  exact-ctf-u64       timestamps, seq and the discarded count exact
  exact-ctf-names     the trace's env trace_name and hostname, and the
                      name babeltrace2 gives the trace (its hostname),
                      in the program's output too
"""
import json
import os
import subprocess
import sys

import bt2

sys.dont_write_bytecode = True     # nothing lands in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402
from compare import result  # noqa: E402 (the same "ok NAME" lines)

TS0 = (1 << 53) + 1
COMM = {10: b"na\xc3\xafve", 11: b"\xffcomm\x80"}
SITES = {1: (b"utf_fn", b"f\xc3\xa9.c", 10), 2: (b"bad\xe9", b"gen.c", 20),
         3: (b"arg_fn", b"gen.c", 30), 4: (b"raw_fn", b"gen.c", 40)}
# seq: (ts, pid, site, text or None for the raw record, what a UTF-8 reader shows)
RECORDS = {
    0: (TS0, 10, 1, b"h\xc3\xa9llo \xe2\x82\xac\n", "h\u00e9llo \u20ac\n"),
    1: (TS0 + 1, 11, 1, b"bad \xff end", "bad \ufffd end"),
    2: (TS0 + 2, 11, 2, b"trunc \xe2\x82 mid, at the end \xe2\x82",
        "trunc \ufffd mid, at the end \ufffd"),
    3: (TS0 + 3, 11, 1,
        b"overlong \xc0\xaf surrogate \xed\xa0\x80 big \xf4\x90\x80\x80 4 \xf0\x9f\x98\x80",
        "overlong \ufffd\ufffd surrogate \ufffd\ufffd\ufffd big \ufffd\ufffd\ufffd\ufffd "
        "4 \U0001f600"),
    4: (TS0 + 4, 11, 1,
        b"nul \x00 c1 \xc2\x9b ls \xe2\x80\xa8 q\" bs\\ del\x7f fffd \xef\xbf\xbd",
        "nul \x00 c1 \x9b ls \u2028 q\" bs\\ del\x7f fffd \ufffd"),
    5: (TS0 + 5, 11, 3, b"s=\xff\xff", "s=\ufffd\ufffd"),
    (1 << 53) + 7: (1 << 62, 11, 4, None, None),
}
LOST = (1 << 53) + 1
# escapes a JSON line must have (the characters are not printed as they are)
ESCAPES = ("\\u0000", "\\u009b", "\\u2028", "\\u007f", '\\"', "\\\\")


def utf8_view(b):
    """What a UTF-8 reader shows of bytes @b."""
    return b.decode("utf-8", "replace")


def check_json(d):
    text_errs, u64_errs = [], []
    lines = open(os.path.join(d, "report.json"), "rb").read().decode("utf-8").splitlines()
    objs = [json.loads(l) for l in lines]
    seen = set()
    for l, o in zip(lines, objs):
        if o["type"] == "lost":
            if o["count"] != str(LOST):
                u64_errs.append("lost count %r, want %d" % (o["count"], LOST))
            continue
        seq = int(o["seq"])
        if o["seq"] != str(seq) or seq not in RECORDS:
            u64_errs.append("seq %r: not one of the generator's" % o["seq"])
            continue
        seen.add(seq)
        ts, pid, site, text, shown = RECORDS[seq]
        if o["ts"] != str(ts):
            u64_errs.append("seq %d: ts %r, want %d" % (seq, o["ts"], ts))
        func, file, _ = SITES[site]
        want = {"comm": COMM[pid], "func": func, "file": file}
        if text is not None:
            want["text"] = text
        for k, b in want.items():
            try:
                b.decode("utf-8")
                exp = {k: b.decode("utf-8")}
            except UnicodeDecodeError:
                exp = {k: utf8_view(b), k + "_hex": b.hex()}
            got = {x: o.get(x) for x in (k, k + "_hex") if x in o}
            if got != exp:
                text_errs.append("seq %d: %r, want %r" % (seq, got, exp))
        if text is not None and o["text"] != shown:
            text_errs.append("seq %d: text %r, want %r" % (seq, o["text"], shown))
        if seq == 4:
            text_errs += ["seq 4: no %s in %r" % (e, l) for e in ESCAPES if e not in l]
    if seen != set(RECORDS):
        text_errs.append("records %s, want %s" % (sorted(seen), sorted(RECORDS)))
    if not any(o["type"] == "lost" for o in objs):
        u64_errs.append("no loss")
    result("exact-json-text", text_errs)
    result("exact-json-u64", u64_errs)


def check_ctf(d, hostname, trace_name):
    ctf = os.path.join(d, "ctf")
    text_errs, u64_errs, name_errs, seen, disc = [], [], [], set(), 0
    for msg in bt2.TraceCollectionMessageIterator(ctf):
        if type(msg) is bt2._StreamBeginningMessageConst:
            tr = msg.stream.trace
            env = {k: str(v) for k, v in tr.environment.items()}
            want = {"trace_name": trace_name}
            if hostname:
                want["hostname"] = hostname
            got = {k: env.get(k) for k in ("trace_name", "hostname") if k in env}
            if got != want:
                name_errs.append("env %r, want %r" % (got, want))
            if tr.name != hostname:
                name_errs.append("babeltrace2 names the trace %r, want %r" % (tr.name, hostname))
        if type(msg) is bt2._DiscardedEventsMessageConst:
            disc += msg.count
        if type(msg) is not bt2._EventMessageConst:
            continue
        f = msg.event.payload_field
        seq = int(f["seq"])
        if seq not in RECORDS:
            u64_errs.append("seq %d: not one of the generator's" % seq)
            continue
        seen.add(seq)
        ts, pid, site, text, _ = RECORDS[seq]
        if msg.default_clock_snapshot.value != ts:
            u64_errs.append("seq %d: ts %d, want %d" % (seq, msg.default_clock_snapshot.value, ts))
        want = {"comm": COMM[pid], "func": SITES[site][0]}
        if text is not None:
            want["text"] = text
        for k, b in want.items():
            s = str(f[k])
            raw = bytes(int(x) for x in f[k + "_bytes"])
            exact = b"\x00" not in b and utf8_view(b).encode("utf-8") == b
            exp = (utf8_view(b).replace("\x00", "\ufffd"), b"" if exact else b)
            if (s, raw) != exp:
                text_errs.append("seq %d: %s %r, %s_bytes %r, want %r" % (seq, k, s, k, raw, exp))
    if seen != set(RECORDS):
        text_errs.append("events of seq %s, want %s" % (sorted(seen), sorted(RECORDS)))
    if disc != LOST:
        u64_errs.append("%d events discarded, want %d" % (disc, LOST))
    p = subprocess.run(["babeltrace2", ctf], capture_output=True)
    out, err = p.stdout.decode("utf-8"), p.stderr.decode("utf-8")
    if hostname and out.count(" %s klog:" % hostname) != len(RECORDS):
        name_errs.append("babeltrace2 does not print the hostname before each event: %r"
                         % out[:300])
    if 'in trace "%s"' % hostname not in err:
        name_errs.append("babeltrace2's warning does not name the trace %r: %r" % (hostname, err))
    result("exact-ctf-text", text_errs)
    result("exact-ctf-u64", u64_errs)
    result("exact-ctf-names", name_errs)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: exact.py DIR HOSTNAME TRACE_NAME")
    check_json(sys.argv[1])
    check_ctf(*sys.argv[1:])
    sys.exit(1 if compare.failed else 0)
