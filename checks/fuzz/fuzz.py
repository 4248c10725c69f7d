#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""fuzz.py: a bounded fuzz smoke of klog's and kleak's report paths.

Driven by checks/fuzz/run.sh, which builds the sanitized collectors and
the generator. From a fixed seed, everything is deterministic: the base
collections (gen, see gen.c; kleak's from checks/kleak/gen.py), which
mutation each iteration makes and where, whatever the number of workers
(--jobs, one per CPU by default) that run them. Each iteration copies a base,
mutates it (one mutation, see MUTATIONS) and runs the report paths on it,
each under a timeout (a hang is a failure):

  text    klog -r DIR [--time abs|rel|delta|wall]
  json    klog -r DIR --json
  ctf     klog -r DIR --ctf OUT, then babeltrace2 OUT
  stat    klog -r DIR --stat
  plot    klog -r DIR --plot OUT.svg (XML that ElementTree parses, only
          printable ASCII in it)
  kleak   kleak DIR            (on kleak's collections)

Every run fails on a sanitizer report (ASAN_OPTIONS/UBSAN_OPTIONS log to
files that are checked), a crash (a signal), a timeout, an exit status
other than 0 and 1, or a control byte on stdout or stderr (a file's bytes
reaching the terminal). Its output is then judged against the input:

- the unmutated collection and the "intact" mutations (they leave every
  record readable: DIR/sites, DIR/meta, DIR/kallsyms, a record's payload
  or header fields other than its size, length, seq and kind): if klog
  exits 0, every record the generator wrote is printed exactly once (by
  buffer and seq in JSON; by count in text, --stat, CTF) and the losses
  are exactly the generator's. An exit 1 needs a message on stderr.
- "structural" mutations (bits flipped anywhere in a cpuN file,
  truncation, sizes and lengths set to extremes, records duplicated or
  reordered, ...): if klog exits 0 without a message, every record whose
  bytes the mutation did not touch is printed, and no buffer shows fewer
  losses than it has (unless a sub-buffer header was touched).
- whatever the mutation: text, JSON, --stat, --plot and CTF (as babeltrace2
  reads it) agree with each other and with the "N records, L lost"
  summary when klog exits 0; --time rel and delta print the differences
  of the timestamps the JSON output shows, signed.
- some mutations name what a correct reader must do with them (an
  argument block with bytes left over is not formatted; a string whose
  copy was cut prints no byte that was not in the input; a lost count
  near 2^64 does not wrap).

Prints "ok MODE" / "not ok MODE" per mode, "ok base" for the unmutated
collections and "ok summary"; each failure as a "# MODE: iteration I
(MUTATION): SYMPTOM" line on stderr, at most --show per mode, then a line
saying how to rerun one iteration. Exit 1 if anything failed.
"""
import argparse
import glob
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

U64 = (1 << 64) - 1
REC_HDR = 40
MAGIC = 0x474f4c4b
SUMMARY = re.compile(rb"^klog: (\d+) records from (\d+) CPUs, (\d+) lost$")
FSUMMARY = re.compile(rb"^klog: (\d+) (records|of)")
LOSS = re.compile(rb"^\[[^]]*\] cpu(\d+) \*\*\* (\d+) (records|sub-buffers) lost \*\*\*$")
KLEAK_EXPECT = (147, 3)     # checks/kleak/gen.py capture: records, lost
MODES = ("text", "json", "ctf", "stat", "plot", "kleak")


def counts(objs):
    """(records, lost) of the JSON objects @objs."""
    return (sum(1 for o in objs if o["type"] == "record"),
            sum(o.get("count", 0) for o in objs if o["type"] == "lost"))


def make_special(p, kind):
    """Put at @p, in place of a file, a FIFO ("fifo"), a link to /dev/zero
    ("zero"), a directory ("dir") or a link to nothing ("dangling")."""
    if os.path.lexists(p):
        os.unlink(p)
    if kind == "fifo":
        os.mkfifo(p)
    elif kind == "zero":
        os.symlink("/dev/zero", p)
    elif kind == "dir":
        os.mkdir(p)
    elif kind == "dangling":
        os.symlink(os.path.join(os.path.dirname(p), "nowhere"), p)


class Run:
    """One collector run: status, output, what went wrong with it."""

    def __init__(self, rc, out, err, timed_out, san):
        self.rc, self.out, self.err, self.timed_out, self.san = rc, out, err, timed_out, san

    def messages(self, summary=SUMMARY):
        """stderr lines other than the summary."""
        return [l for l in self.err.splitlines() if l and not summary.match(l)]


class Fuzz:
    def __init__(self, a):
        self.a = a
        self.fail = {m: [] for m in MODES + ("base",)}
        self.runs = {m: 0 for m in MODES}
        self.hung = None        # a run of this iteration timed out
        self.work = a.work
        self.san_dir = os.path.join(self.work, "san")
        os.makedirs(self.san_dir, exist_ok=True)

    # ---- running ----------------------------------------------------------
    def run(self, mode, it, argv):
        if self.hung:
            return None
        self.runs[mode] += 1
        tag = "%d-%s" % (it, mode)
        prefix = os.path.join(self.san_dir, tag)
        for f in glob.glob(prefix + ".*"):
            os.unlink(f)
        opts = ("log_path=%s:exitcode=86:abort_on_error=0:detect_leaks=1:"
                "hard_rss_limit_mb=2048:malloc_limit_mb=2048:allocator_may_return_null=0:"
                "print_stacktrace=1:halt_on_error=1" % prefix)
        env = dict(os.environ, ASAN_OPTIONS=opts, UBSAN_OPTIONS=opts, LC_ALL="C")
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, env=env, start_new_session=True)
        timed_out = False
        try:
            out, err = p.communicate(timeout=self.a.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
        san = []
        for f in sorted(glob.glob(prefix + ".*")):
            with open(f, errors="replace") as fh:
                san.append(fh.read())
            os.unlink(f)
        if timed_out:
            self.hung = tag
        return Run(p.returncode, out, err, timed_out, san)

    # ---- judging ------------------------------------------------------------
    def failed(self, mode, it, mut, why):
        self.fail[mode].append("iteration %d (%s): %s" % (it, mut, why))

    def common(self, mode, it, mut, r):
        """Failures any run can have; True if its output can be judged."""
        if r is None:
            return False        # not run: the input hung in another mode
        if r.timed_out:
            self.failed(mode, it, mut, "timeout: still running after %d s (the iteration's "
                        "other runs skipped)" % self.a.timeout)
            return False
        if r.san:
            first = [l for l in r.san[0].splitlines() if re.search(r"ERROR|runtime error|Sanitizer|SUMMARY", l)]
            frames = [l.strip() for l in r.san[0].splitlines() if re.match(r"\s+#\d+ ", l)][:3]
            self.failed(mode, it, mut, "sanitizer: %s%s" % (
                (first or ["?"])[0].strip(), " at " + " | ".join(frames) if frames else ""))
            return False
        if r.rc < 0 or r.rc > 1:
            self.failed(mode, it, mut, "exit status %d%s; stderr: %s" % (
                r.rc, " (signal %s)" % signal.Signals(-r.rc).name if r.rc < 0 else "",
                r.err[-300:].decode("latin-1").strip()))
            return False
        for name, data in (("stdout", r.out), ("stderr", r.err)):
            bad = re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", data)
            if bad:
                ctx = data[max(0, bad.start() - 30):bad.start() + 10]
                self.failed(mode, it, mut, "raw control byte 0x%02x on %s: %r" % (
                    data[bad.start()], name, ctx))
                return False
        if r.rc == 1 and not r.err.strip():
            self.failed(mode, it, mut, "exit 1 without a message")
        return True

    # ---- the mutations ----------------------------------------------------
    @staticmethod
    def flip(data, rng, lo, hi, nbits):
        data = bytearray(data)
        for _ in range(nbits):
            i = rng.randrange(lo, hi)
            data[i] ^= 1 << rng.randrange(8)
        return bytes(data)

    def mutate(self, d, base, rng, it):
        """Apply one mutation to collection @d (a copy of @base). Returns
        (name, klass, info): klass "intact" or "structural"; info has
        "touched" {buf: [(lo, hi)]}, "hdr_touched" {buf}, "removed"
        {buf}: every record from there on may be gone, and checks."""
        info = {"touched": {}, "hdr_touched": set(), "cut": set(), "expect": {}}
        items = base["items"]
        bufs = sorted(base["bufs"])
        b = rng.choice(bufs)
        path = os.path.join(d, base["bufs"][b])
        data = open(path, "rb").read()
        recs = [x for x in items if x["type"] == "rec" and x["buf"] == b]
        hdrs = [x for x in items if x["type"] == "subbuf" and x["buf"] == b]
        args = [x for x in recs if x["kind"] == 2]

        def touch(lo, hi):
            info["touched"].setdefault(b, []).append((lo, hi))
            for h in hdrs:
                if lo < h["off"] + h["size"] and h["off"] < hi:
                    info["hdr_touched"].add(b)

        def put(newdata):
            with open(path, "wb") as f:
                f.write(newdata)

        def setfield(item, off, fmt, value):
            nonlocal data
            o = item["off"] + off
            data = data[:o] + struct.pack("<" + fmt, value) + data[o + struct.calcsize(fmt):]
            touch(o, o + struct.calcsize(fmt))
            put(data)

        def replace_rec(rec, payload, **hdr):
            """rec rewritten with @payload (its header fields kept or @hdr)."""
            nonlocal data
            o, size = rec["off"], rec["size"]
            h = list(struct.unpack_from("<IIQQIIBBBBHH", data, o))
            for k, v in hdr.items():
                h[["size", "len", "ts", "seq", "pid", "site", "kind", "ctx", "flags", "r0", "cpu",
                   "r1"].index(k)] = v
            h[1] = len(payload)
            h[0] = (REC_HDR + len(payload) + 7) & ~7
            new = struct.pack("<IIQQIIBBBBHH", *h) + payload + bytes(h[0] - REC_HDR - len(payload))
            data = data[:o] + new + data[o + size:]
            info["shift"] = (b, o + size, len(new) - size)
            put(data)
            return h

        def special(name, kind):
            make_special(os.path.join(d, name), kind)

        choices = [
            # (weight, name, klass)
            (3, "sites-bitflip", "intact"), (2, "sites-truncate", "intact"),
            (1, "sites-huge-width", "intact"), (2, "sites-escape", "intact"),
            (1, "width-storm", "intact"),
            (1, "sites-descending", "intact"), (2, "sites-special", "intact"),
            (6, "meta-values", "intact"), (2, "meta-bitflip", "intact"),
            (1, "meta-special", "intact"), (2, "kallsyms-junk", "intact"),
            (1, "kallsyms-special", "intact"), (1, "marker-special", "intact"),
            (3, "text-payload-flip", "intact"), (3, "args-payload-flip", "intact"),
            (3, "args-str-cut", "intact"), (2, "args-star-extreme", "intact"),
            (2, "args-trailing", "intact"), (1, "args-raw-site", "intact"),
            (4, "rec-field", "intact"), (2, "hdr-lost-extreme", "intact"),
            (8, "cpu-bitflip", "structural"), (3, "cpu-truncate", "structural"),
            (3, "size-extreme", "structural"), (2, "len-extreme", "structural"),
            (2, "seq-extreme", "structural"), (2, "dup-record", "structural"),
            (2, "swap-records", "structural"), (3, "hdr-field", "structural"),
            (1, "junk-append", "structural"), (1, "cpu-special", "structural"),
            (1, "comm-len", "structural"), (1, "kind-extreme", "structural"),
            (1, "all-empty", "structural"),
        ]
        total = sum(w for w, _, _ in choices)
        x = rng.randrange(total)
        for w, name, klass in choices:
            if x < w:
                break
            x -= w
        if (name.startswith("args") and not args) or not recs:
            name, klass = "cpu-bitflip", "structural"
        detail = ""
        sites_p = os.path.join(d, "sites")
        meta_p = os.path.join(d, "meta")
        ks_p = os.path.join(d, "kallsyms")

        if name == "sites-bitflip":
            s = open(sites_p, "rb").read()
            open(sites_p, "wb").write(self.flip(s, rng, 0, len(s), rng.randint(1, 4)))
        elif name == "sites-truncate":
            s = open(sites_p, "rb").read()
            n = rng.randrange(len(s))
            open(sites_p, "wb").write(s[:n])
            detail = "at %d" % n
        elif name == "sites-huge-width":
            # every conversion of the args sites gets a huge width: the
            # kernel's vsnprintf() takes widths up to 8388607
            w = rng.choice(["8388607", "2147483647", "99999999999"])
            lines = open(sites_p).read().split("\n")
            out = []
            for l in lines:
                f = l.split("\t")
                if len(f) == 8 and "%" in f[7] and rng.random() < 0.7:
                    f[7] = re.sub(r"%([-+ #0]*)(\d+)?(?=[.a-zA-Z*])",
                                  lambda m: "%" + m.group(1) + w, f[7])
                out.append("\t".join(f))
            open(sites_p, "w").write("\n".join(out))
            detail = "width " + w
        elif name == "width-storm":
            # 600 more records of one argument site whose conversions all
            # get the largest width vsnprintf() takes: a reader that pads
            # byte by byte past its 1024-byte buffer takes minutes, one
            # that stops at the buffer's end milliseconds
            x = rng.choice(args)
            lines = open(sites_p).read().split("\n")
            for i, l in enumerate(lines):
                f = l.split("\t")
                if len(f) == 8 and f[0] == str(x["site"]):
                    f[7] = re.sub(r"%([-+ #0]*)(\d+)?(?=[.a-zA-Z])",
                                  lambda m: "%" + m.group(1) + "8388607", f[7])
                    lines[i] = "\t".join(f)
            open(sites_p, "w").write("\n".join(lines))
            last = max(r["seq"] for r in recs)
            rec = bytearray(data[x["off"]:x["off"] + x["size"]])
            more = []
            for i in range(600):
                struct.pack_into("<Q", rec, 16, last + 1 + i)
                more.append(bytes(rec))
                info.setdefault("extra", []).append((b, last + 1 + i))
            put(data + b"".join(more))
            detail = "%s: 600 records of site %d" % (base["bufs"][b], x["site"])
        elif name == "sites-escape":
            lines = open(sites_p).read().split("\n")
            i = rng.randrange(1, len(lines) - 1)
            f = lines[i].split("\t")
            esc = rng.choice(["\\033[2J\\033]0;owned\\007", "\\033[31m", "a\\rb", "\\177\\010"])
            f[rng.choice([3, 4, 6, 7])] += esc
            lines[i] = "\t".join(f)
            open(sites_p, "w").write("\n".join(lines))
            detail = "line %d" % (i + 1)
        elif name == "sites-descending":
            n = self.a.big_sites
            with open(sites_p, "a") as f:
                for i in range(n, 0, -1):
                    f.write("%d\tgone\ttext\tm\tf.c\t%d\tfn%d\tx\n" % (100000 + i, i, i))
            detail = "%d lines" % n
        elif name in ("sites-special", "meta-special", "kallsyms-special", "marker-special"):
            target = {"sites-special": "sites", "meta-special": "meta",
                      "kallsyms-special": "kallsyms",
                      "marker-special": rng.choice(["snapshot", "trigger"])}[name]
            kind = rng.choice(["fifo", "zero", "dir", "dangling"])
            special(target, kind)
            detail = "%s is a %s" % (target, kind)
        elif name == "meta-values":
            m = open(meta_p).read().split("\n")
            vals = ["5 1.5", "7 0.5", "0 0.000000000",
                    "18446744073709551615 17999999999.999999999",
                    "9223372036854775807 1.000000000", "1 18000000000.999999999",
                    "18446744073709551615 0.000000000", "1000000000 1764545000.5",
                    "", "x y", "1000000000 .123456789"]
            key = rng.choice(["clock_start", "clock_stop", "clock_start", "clock_stop",
                              "start", "stop", "cpus", "buffers", "subbuf_size", "klog-meta"])
            v = rng.choice(vals if key.startswith("clock") else
                           vals + ["999999999999", "-1", "global", "1", "4294967296"])
            for i, l in enumerate(m):
                if l.split(" ")[0] == key:
                    m[i] = key + " " + v
            open(meta_p, "w").write("\n".join(m))
            detail = "%s %s" % (key, v)
        elif name == "meta-bitflip":
            s = open(meta_p, "rb").read()
            open(meta_p, "wb").write(self.flip(s, rng, 0, len(s), rng.randint(1, 3)))
        elif name == "kallsyms-junk":
            s = open(ks_p, "rb").read()
            how = rng.choice(["flip", "escape", "long", "truncate", "huge"])
            if how == "flip":
                s = self.flip(s, rng, 0, len(s), rng.randint(1, 3))
            elif how == "escape":
                s = s.replace(b"mod_fn", b"mod\x1b[2Jfn")
            elif how == "long":
                s += b"ffffffffc0002000 t " + b"x" * 70000 + b"\t[m]\n"
            elif how == "truncate":
                s = s[:rng.randrange(len(s))]
            else:
                s = b"ffffffffffffffff T top\n" + s
            open(ks_p, "wb").write(s)
            detail = how
        elif name in ("text-payload-flip", "args-payload-flip"):
            text = name[0] == "t"
            t = [x for x in recs if x["kind"] == 0 and x["len"]] if text else args
            if t:
                x = rng.choice(t)
                lo = x["off"] + REC_HDR
                data = self.flip(data, rng, lo, lo + x["len"], rng.randint(1, 4 if text else 3))
                put(data)
                detail = "%s seq %d" % (base["bufs"][b], x["seq"])
        elif name == "args-str-cut":
            strs = [s for s in base["argstr"] if s[0] == b]
            if strs:
                off = rng.choice(strs)[1]
                x = [r for r in recs if r["off"] <= off < r["off"] + r["size"]][0]
                ln, cp = struct.unpack_from("<HH", data, off)
                if cp:
                    newcp = rng.randrange(cp)
                    p = bytearray(data[x["off"] + REC_HDR:x["off"] + REC_HDR + x["len"]])
                    po = off - x["off"] - REC_HDR
                    del p[po + 4 + newcp:po + 4 + cp]
                    struct.pack_into("<H", p, po + 2, newcp)
                    replace_rec(x, bytes(p))
                    info["expect"]["input_bytes_only"] = (b, x["seq"])
                    detail = "%s seq %d: len %d, copied %d of it" % (
                        base["bufs"][b], x["seq"], ln, newcp)
        elif name == "args-star-extreme":
            stars = [s for s in base["argstar"] if s[0] == b]
            if stars:
                off = rng.choice(stars)[1]
                v = rng.choice([0x7fffffff, 0x80000000, 0xffffffff, 8388607, 8388608, 0xff800001])
                data = data[:off] + struct.pack("<I", v) + data[off + 4:]
                put(data)
                detail = "star value 0x%x at %d" % (v, off)
        elif name == "args-trailing":
            x = rng.choice(args)
            p = data[x["off"] + REC_HDR:x["off"] + REC_HDR + x["len"]]
            how = rng.choice(["bytes", "arg"])
            if how == "bytes":
                p += bytes(rng.randrange(256) for _ in range(rng.randint(1, 9)))
            else:
                p = p[:1] + bytes([p[1] + 1]) + p[2:] + b"\x01\x07\x00\x00\x00"
            replace_rec(x, p)
            info["expect"]["not_formatted"] = (b, x["seq"])
            detail = "%s seq %d: %s left over" % (base["bufs"][b], x["seq"], how)
        elif name == "args-raw-site":
            x = rng.choice(args)
            setfield(x, 28, "I", 101)
            info["touched"] = {}
            info["expect"]["not_formatted"] = (b, x["seq"])
            detail = "%s seq %d names the raw site" % (base["bufs"][b], x["seq"])
        elif name == "rec-field":
            x = rng.choice(recs)
            f, off, fmt, vals = rng.choice([
                ("ts", 8, "Q", [0, 1 << 63, (1 << 63) - 1, U64, (1 << 63) + 1]),
                ("pid", 24, "I", [0, 0xffffffff, 0x7fffffff]),
                ("site", 28, "I", [0, 0xffffffff, 7, 99999]),
                ("ctx", 33, "B", [4, 0x7f, 0xff]),
                ("flags", 34, "B", [0xff, 0x80, 0x04]),
                ("reserved0", 35, "B", [1, 0xff]),
                ("cpu", 36, "H", [0xffff, 4095, 7]),
                ("reserved", 38, "H", [1, 0xffff])])
            v = rng.choice(vals)
            setfield(x, off, fmt, v)
            info["touched"] = {}
            detail = "%s seq %d: %s = %d" % (base["bufs"][b], x["seq"], f, v)
        elif name == "hdr-lost-extreme":
            h = rng.choice(hdrs)
            v = rng.choice([U64, 1 << 63, U64 - 1, (1 << 62)])
            old = struct.unpack_from("<Q", data, h["off"] + 24)[0]
            setfield(h, 24, "Q", v)
            info["touched"] = {}
            info["hdr_touched"] = set()
            # what the headers now say, saturated: never less
            exp = dict(base["lost"])
            exp[b] = min(U64, max(base["hdr_lost"][b] - old + v, base["seq_lost"][b]))
            info["expect"]["lost_at_least"] = exp
            detail = "%s sub-buffer %d: lost = %d" % (base["bufs"][b], h["seq"], v)
        elif name == "cpu-bitflip":
            n = rng.randint(1, 4)
            data2 = bytearray(data)
            for _ in range(n):
                i = rng.randrange(len(data))
                data2[i] ^= 1 << rng.randrange(8)
                touch(i, i + 1)
            put(bytes(data2))
            detail = "%s: %d bits" % (base["bufs"][b], n)
        elif name == "cpu-truncate":
            n = rng.randrange(len(data))
            if rng.random() < 0.3:      # at an item's start
                n = rng.choice([x["off"] for x in items if x["buf"] == b])
            put(data[:n])
            touch(n, len(data))
            info["cut"].add(b)
            detail = "%s at %d of %d" % (base["bufs"][b], n, len(data))
        elif name == "size-extreme":
            x = rng.choice(recs)
            v = rng.choice([0, 8, 40, 41, x["size"] - 8, x["size"] + 8, x["size"] + 4,
                            0xfffffff8, 0xffffffff, MAGIC, 0x80000000, len(data)])
            setfield(x, 0, "I", v)
            detail = "%s seq %d: size %d -> %d" % (base["bufs"][b], x["seq"], x["size"], v)
        elif name == "len-extreme":
            x = rng.choice(recs)
            v = rng.choice([0, x["size"] - REC_HDR + 1, x["size"], 0xffffffff, 0x80000000,
                            max(0, x["len"] - 1), x["len"] + 1])
            setfield(x, 4, "I", v)
            detail = "%s seq %d: len %d -> %d" % (base["bufs"][b], x["seq"], x["len"], v)
        elif name == "seq-extreme":
            x = rng.choice(recs)
            v = rng.choice([0, U64, x["seq"] + 1000000, max(0, x["seq"] - 1), 1 << 63])
            setfield(x, 16, "Q", v)
            detail = "%s seq %d -> %d" % (base["bufs"][b], x["seq"], v)
        elif name == "dup-record":
            x = rng.choice(recs)
            o = x["off"] + x["size"]
            put(data[:o] + data[x["off"]:o] + data[o:])
            touch(o, o)
            info["dup"] = True
            detail = "%s seq %d twice" % (base["bufs"][b], x["seq"])
        elif name == "swap-records":
            pairs = [(p, q) for p, q in zip(recs, recs[1:]) if p["off"] + p["size"] == q["off"]]
            if pairs:
                p, q = rng.choice(pairs)
                put(data[:p["off"]] + data[q["off"]:q["off"] + q["size"]] +
                    data[p["off"]:q["off"]] + data[q["off"] + q["size"]:])
                touch(p["off"], q["off"] + q["size"])
                detail = "%s seq %d and %d" % (base["bufs"][b], p["seq"], q["seq"])
        elif name == "hdr-field":
            h = rng.choice(hdrs)
            f, off, fmt, vals = rng.choice([
                ("magic", 0, "I", [0, MAGIC ^ 1, 40]),
                ("version", 4, "H", [0, 1, 2, 4, 0xffff]),
                ("hdr_size", 6, "H", [0, 8, 39, 41, 48, 0xffff]),
                ("cpu", 8, "I", [1, 0xffffffff, 3]),
                ("padding", 12, "I", [1, 4096, 0xffffffff]),
                ("seq", 16, "Q", [U64, 1 << 63, 0, h["seq"] + 1]),
                ("first_ts", 32, "Q", [U64, 1 << 63])])
            v = rng.choice(vals)
            setfield(h, off, fmt, v)
            detail = "%s sub-buffer %d: %s = %d" % (base["bufs"][b], h["seq"], f, v)
        elif name == "junk-append":
            junk = rng.choice([bytes(rng.randint(1, 64)),
                               bytes(rng.randrange(256) for _ in range(rng.randint(1, 200)))])
            put(data + junk)
            touch(len(data), len(data) + len(junk))
            detail = "%d bytes" % len(junk)
        elif name == "cpu-special":
            kind = rng.choice(["fifo", "zero", "dir", "empty", "zeros", "dangling"])
            if kind == "empty":
                put(b"")
            elif kind == "zeros":
                put(bytes(4096))
            else:
                special(base["bufs"][b], kind)
            touch(0, len(data))
            info["cut"].add(b)
            detail = "%s is %s" % (base["bufs"][b], kind)
        elif name == "all-empty":
            # no records at all: every cpuN empty or its first header only
            hdr_only = rng.random() < 0.5
            for bb, f in base["bufs"].items():
                p = os.path.join(d, f)
                with open(p, "rb") as fh:
                    s0 = fh.read()
                with open(p, "wb") as fh:
                    fh.write(s0[:40] if hdr_only else b"")
                info["touched"].setdefault(bb, []).append((0, len(s0)))
                info["cut"].add(bb)
            detail = "headers only" if hdr_only else "empty files"
        elif name == "comm-len":
            cs = [x for x in items if x["type"] == "comm" and x["buf"] == b]
            x = rng.choice(cs)
            v = rng.choice([0, 15, 17, 8, 0xffffffff])
            setfield(x, 4, "I", v)
            detail = "%s COMM before seq %d: len %d" % (base["bufs"][b], x["seq"], v)
        elif name == "kind-extreme":
            x = rng.choice(recs)
            v = rng.choice([3, 0x7f, 0x80, 0x81, 0xff, 0, 1, 2])
            setfield(x, 32, "B", v)
            detail = "%s seq %d: kind %d -> %d" % (base["bufs"][b], x["seq"], x["kind"], v)
        return "%s%s" % (name, " " + detail if detail else ""), klass, info

    # ---- klog ---------------------------------------------------------------
    def untouched(self, base, info, klass):
        """(buffer, seq) of the records whose bytes a mutation left alone."""
        out = set()
        for x in base["items"]:
            if x["type"] != "rec":
                continue
            lo, hi = x["off"], x["off"] + x["size"]
            if klass == "intact" or not any(a < hi and lo < c
                                            for a, c in info["touched"].get(x["buf"], [])):
                out.add((x["buf"], x["seq"]))
        return out

    def klog_iter(self, it, base, d, mut, klass, info, rng):
        a, klog = self.a, self.a.klog
        expected = {(x["buf"], x["seq"]) for x in base["items"] if x["type"] == "rec"}
        expected |= set(info.get("extra", []))
        keep = self.untouched(base, info, klass) | set(info.get("extra", []))
        res = {}

        # json first: the identity of every record
        r = self.run("json", it, [klog, "-r", d, "--json"])
        objs = None
        if self.common("json", it, mut, r):
            objs, bad = [], None
            for i, l in enumerate(r.out.splitlines()):
                try:
                    o = json.loads(l)
                    if not isinstance(o, dict) or o.get("type") not in ("record", "lost", "subbufs_lost"):
                        raise ValueError("not a record or loss object")
                    for k in ("ts", "seq", "count"):    # 64-bit: strings of digits
                        if k in o:
                            if not isinstance(o[k], str) or not re.fullmatch(r"[0-9]+", o[k]):
                                raise ValueError("%s is %r, not a string of digits" % (k, o[k]))
                            o[k] = int(o[k])
                    objs.append(o)
                except (ValueError, UnicodeDecodeError) as e:
                    bad = "line %d is not JSON (%s): %r" % (i + 1, e, l[:120])
                    break
            if bad:
                self.failed("json", it, mut, bad)
                objs = None
            else:
                self.judge_json(it, mut, klass, info, r, objs, base, expected, keep)
        res["json"] = (r, objs)

        # text, with a --time of the iteration's choice
        tm = "wall" if mut.startswith("meta") else ["abs", "rel", "delta", "wall"][it % 4]
        argv = [klog, "-r", d] + ([] if tm == "abs" else ["--time", tm])
        r = self.run("text", it, argv)
        if self.common("text", it, mut, r):
            self.judge_counts("text", it, mut, klass, info, r, base, keep, objs, res, tm)
        # stat
        r = self.run("stat", it, [klog, "-r", d, "--stat"])
        if self.common("stat", it, mut, r):
            self.judge_counts("stat", it, mut, klass, info, r, base, keep, objs, res, None)
        # plot
        svg = os.path.join(self.work, "plot-%d.svg" % it)
        r = self.run("plot", it, [klog, "-r", d, "--plot", svg])
        if self.common("plot", it, mut, r) and r.rc == 0:
            self.judge_plot(it, mut, klass, info, r, base, keep, objs, res, svg)
        if os.path.exists(svg):
            os.unlink(svg)
        # ctf, read back by babeltrace2
        out = os.path.join(self.work, "ctf-%d" % it)
        shutil.rmtree(out, ignore_errors=True)
        r = self.run("ctf", it, [klog, "-r", d, "--ctf", out])
        if self.common("ctf", it, mut, r):
            self.judge_ctf(it, mut, klass, info, r, base, keep, objs, res, out)
        shutil.rmtree(out, ignore_errors=True)

    def judge_json(self, it, mut, klass, info, r, objs, base, expected, keep):
        recs = {}
        dup = []
        lost = {}
        for o in objs:
            if o["type"] == "record":
                k = (o.get("buffer"), o.get("seq"))
                if k in recs:
                    dup.append(k)
                recs[k] = o
            elif o["type"] == "lost":
                lost[o.get("buffer")] = lost.get(o.get("buffer"), 0) + o.get("count", 0)
        silent = r.rc == 0 and not r.messages()
        nrec = sum(1 for o in objs if o["type"] == "record")
        m = [x for x in map(SUMMARY.match, r.err.splitlines()) if x]
        if r.rc == 0 and m:
            n, _, l = (int(v) for v in m[-1].groups())
            if n != nrec or l != sum(lost.values()):
                self.failed("json", it, mut, "summary says %d records, %d lost; printed %d, %d lost"
                            % (n, l, nrec, sum(lost.values())))
        exp = info["expect"]
        if "not_formatted" in exp:
            o = recs.get(exp["not_formatted"])
            if o is not None and o.get("kind") == "text" and r.rc == 0 and silent:
                self.failed("json", it, mut, "an argument block that does not match its site "
                            "was formatted, exit 0, no message: %r" % o.get("text", "")[:80])
        if "input_bytes_only" in exp:
            o = recs.get(exp["input_bytes_only"])
            if o is not None and o.get("kind") == "text":
                t = o.get("text", "")
                if re.search(r"[^\x20-\x7e\n]", t):
                    self.failed("json", it, mut, "a cut %%s printed bytes that are not in the "
                                "input (exit %d): %r" % (r.rc, t[:120]))
        if not silent:
            return
        if klass == "intact":
            missing = sorted(expected - set(recs))
            extra = sorted(set(recs) - expected)
            if missing or extra or dup:
                self.failed("json", it, mut, "exit 0, no message, but records %s%s%s" % (
                    "missing %s " % missing[:5] if missing else "",
                    "not in the input %s " % extra[:5] if extra else "",
                    "printed twice %s" % dup[:5] if dup else ""))
            want = info["expect"].get("lost_at_least")
            if want:
                for bb, w in want.items():
                    if lost.get(bb, 0) < w:
                        self.failed("json", it, mut, "buffer %d: %d lost shown, the headers say "
                                    "at least %d (a sum that wrapped?)" % (bb, lost.get(bb, 0), w))
            elif {k: v for k, v in lost.items() if v} != {k: v for k, v in base["lost"].items() if v}:
                self.failed("json", it, mut, "exit 0, no message, losses %r, the input has %r"
                            % (lost, base["lost"]))
        else:
            missing = sorted(keep - set(recs))
            if missing:
                self.failed("json", it, mut, "exit 0, no message, but %d records the mutation "
                            "did not touch are not printed: %s" % (len(missing), missing[:5]))
            # every header still read and none touched: the losses they
            # count are shown (the generator's lost is the headers' sum)
            for bb, w in base["lost"].items():
                if bb not in info["hdr_touched"] and bb not in info["cut"] and \
                   lost.get(bb, 0) < w:
                    self.failed("json", it, mut, "exit 0, no message, buffer %d shows %d lost, "
                                "the input lost %d" % (bb, lost.get(bb, 0), w))

    def judge_plot(self, it, mut, klass, info, r, base, keep, objs, res, svg):
        """--plot: XML of printable ASCII (names escaped), then its counts."""
        with open(svg, "rb") as f:
            data = f.read()
        bad = re.search(rb"[^\x20-\x7e\n]", data)
        if bad:
            self.failed("plot", it, mut, "byte 0x%02x in the SVG: %r" % (
                data[bad.start()], data[max(0, bad.start() - 30):bad.start() + 10]))
            return
        try:
            ET.fromstring(data)
        except ET.ParseError as e:
            self.failed("plot", it, mut, "the SVG is not XML: %s" % e)
            return
        r.out = data
        self.judge_counts("plot", it, mut, klass, info, r, base, keep, objs, res, None)

    def judge_counts(self, mode, it, mut, klass, info, r, base, keep, objs, res, tm):
        """text, --stat and --plot: the counts, against the summary, the input and JSON."""
        silent = r.rc == 0 and not r.messages()
        if mode == "text":
            lines = r.out.splitlines()
            nrec = nlost = 0
            for l in lines:
                m = LOSS.match(l)
                if m and m.group(3) == b"records":
                    nlost += int(m.group(2))
                elif not m:
                    nrec += 1
        else:
            if mode == "plot":  # the subtitle
                m = re.search(rb">(\d+) records, (\d+) lost; ", r.out)
            else:               # bytes as --stat prints them: 118B, 4K, 1.5M
                m = re.search(rb"^  total +(\d+) +(\d+B|\d+(?:\.\d)?[KMGTPE]) +(\d+)$",
                              r.out, re.M)
            if not m:
                if r.rc == 0:
                    self.failed(mode, it, mut, "exit 0 and no total line: %r" % r.out[:200])
                return
            nrec, nlost = int(m.group(1)), int(m.group(m.lastindex))
        sm = [x for x in map(SUMMARY.match, r.err.splitlines()) if x]
        if r.rc == 0 and sm:
            n, _, l = (int(v) for v in sm[-1].groups())
            if (n, l) != (nrec, nlost):
                self.failed(mode, it, mut, "summary says %d records, %d lost; printed %d, %d lost"
                            % (n, l, nrec, nlost))
        jr, jobjs = res.get("json", (None, None))
        if r.rc == 0 and jr is not None and jr.rc == 0 and jobjs is not None:
            jn, jl = counts(jobjs)
            if (jn, jl) != (nrec, nlost):
                self.failed(mode, it, mut, "%d records, %d lost; --json has %d, %d" % (
                    nrec, nlost, jn, jl))
            if mode == "text" and tm in ("rel", "delta") and len(lines) == len(jobjs):
                self.judge_time(it, mut, tm, lines, jobjs)
        if not silent:
            return
        exp_n = sum(1 for x in base["items"] if x["type"] == "rec") + len(info.get("extra", []))
        exp_l = sum(base["lost"].values())
        if klass == "intact" and "lost_at_least" not in info["expect"]:
            if (nrec, nlost) != (exp_n, exp_l):
                self.failed(mode, it, mut, "exit 0, no message, %d records and %d lost printed; "
                            "the input has %d and %d" % (nrec, nlost, exp_n, exp_l))
        elif klass == "structural" and nrec < len(keep):
            self.failed(mode, it, mut, "exit 0, no message, %d records printed; %d were not "
                        "touched by the mutation" % (nrec, len(keep)))

    def judge_time(self, it, mut, tm, lines, objs):
        first = prev = None
        for l, o in zip(lines, objs):
            m = re.match(rb"^\[([-+])(\d+)\.(\d{9})\]", l)
            if not m:
                self.failed("text", it, mut, "--time %s: line %r" % (tm, l[:60]))
                return
            v = (int(m.group(2)) * 10**9 + int(m.group(3))) * (-1 if m.group(1) == b"-" else 1)
            ts = o["ts"]
            if first is None:
                first = prev = ts
            want = ts - first if tm == "rel" else ts - prev
            prev = ts
            if v != want:
                self.failed("text", it, mut, "--time %s printed %s for a record %d ns from the %s"
                            % (tm, l[:m.end()].decode(), want,
                               "first line" if tm == "rel" else "line before"))
                return

    def judge_ctf(self, it, mut, klass, info, r, base, keep, objs, res, out):
        if r.rc != 0:
            return
        try:
            b = subprocess.run(["babeltrace2", out], stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=self.a.timeout)
        except subprocess.TimeoutExpired:
            self.failed("ctf", it, mut, "babeltrace2 still reading the trace after %d s"
                        % self.a.timeout)
            return
        if b.returncode != 0:
            self.failed("ctf", it, mut, "klog --ctf exit 0, babeltrace2 exit %d: %s" % (
                b.returncode, b.stderr[-300:].decode("latin-1").strip()))
            return
        n = len(b.stdout.splitlines())
        disc = sum(int(x) for x in re.findall(rb"discarded (\d+) events?", b.stderr))
        jr, jobjs = res.get("json", (None, None))
        if jr is not None and jr.rc == 0 and jobjs is not None:
            jn, jl = counts(jobjs)
            if n != jn or disc != jl:
                self.failed("ctf", it, mut, "babeltrace2 reads %d events, %d discarded; --json "
                            "has %d records, %d lost" % (n, disc, jn, jl))
        silent = not r.messages()
        if silent and klass == "intact" and "lost_at_least" not in info["expect"]:
            exp_n = sum(1 for x in base["items"] if x["type"] == "rec") + \
                len(info.get("extra", []))
            if n != exp_n:
                self.failed("ctf", it, mut, "exit 0, no message, %d events; the input has %d"
                            % (n, exp_n))
        elif silent and klass == "structural" and n < len(keep):
            self.failed("ctf", it, mut, "exit 0, no message, %d events; %d records were not "
                        "touched by the mutation" % (n, len(keep)))

    # ---- kleak --------------------------------------------------------------
    def kleak_iter(self, it, d, rng, unmutated):
        cpus = sorted(f for f in os.listdir(d) if re.fullmatch(r"cpu\d+", f))
        klass, detail = "intact", ""
        if unmutated:
            name = "none"
        else:
            name = rng.choice(["kallsyms-special", "kallsyms-escape", "kallsyms-flip",
                               "cpu-bitflip", "cpu-bitflip", "cpu-truncate", "record-field"])
        p = os.path.join(d, "kallsyms")
        if name == "kallsyms-special":
            kind = rng.choice(["fifo", "zero", "dir", "dangling"])
            make_special(p, kind)
            detail = "kallsyms is a %s" % kind
        elif name == "kallsyms-escape":
            s = open(p, "rb").read().replace(b"kleak_test_leak", b"kleak\x1b[2J\x1b]0;x\x07leak")
            open(p, "wb").write(s)
        elif name == "kallsyms-flip":
            s = open(p, "rb").read()
            open(p, "wb").write(self.flip(s, rng, 0, len(s), rng.randint(1, 3)))
        elif name != "none":
            klass = "structural"
            c = rng.choice(cpus)
            p = os.path.join(d, c)
            s = open(p, "rb").read()
            if name == "cpu-bitflip":
                s = self.flip(s, rng, 0, len(s), rng.randint(1, 4))
            elif name == "cpu-truncate":
                s = s[:rng.randrange(len(s))]
            else:
                # a field of a kleak record (88 bytes: the 40-byte klog
                # header, struct kleak_record), found by the records' sizes
                recs, o = [], 40
                while o + 4 <= len(s):
                    size = struct.unpack_from("<I", s, o)[0]
                    if size == REC_HDR + 48:
                        recs.append(o)
                    o += max(size, 8)
                o = rng.choice(recs) + REC_HDR
                off, fmt, v = rng.choice([(4, "B", rng.choice([0, 1, 3, 0xff])),
                                          (5, "B", rng.choice([0, 6, 0xff])),
                                          (8, "Q", rng.choice([0, U64, 1 << 63])),
                                          (24, "Q", rng.choice([U64, 0])),
                                          (32, "Q", rng.choice([U64, 1 << 63])),
                                          (40, "Q", rng.choice([U64, 0]))])
                s = s[:o + off] + struct.pack("<" + fmt, v) + s[o + off + struct.calcsize(fmt):]
                detail = "record at %d +%d = %d" % (o - REC_HDR, off, v)
            open(p, "wb").write(s)
            detail = "%s %s" % (c, detail)
        mut = "kleak %s%s" % (name, " " + detail if detail else "")
        if self.a.verbose:
            print("# iteration %d at %.0f s: %s (%s)" % (it, time.monotonic() - self.t0, mut,
                                                      klass), file=sys.stderr)
        r = self.run("kleak", it, [self.a.kleak, d])
        if not self.common("kleak", it, mut, r):
            return
        m = re.search(rb"^records +(\d+) kleak records, (\d+) lost", r.out, re.M)
        if r.rc == 0 and not m:
            self.failed("kleak", it, mut, "exit 0 without a records line")
            return
        if klass == "intact" and m and \
           (int(m.group(1)), int(m.group(2))) != KLEAK_EXPECT:
            self.failed("kleak", it, mut, "exit %d: %d kleak records, %d lost; the collection "
                        "has %d, %d" % (r.rc, int(m.group(1)), int(m.group(2)), *KLEAK_EXPECT))
        if klass == "intact" and not r.out.startswith(b"*** 3 of 150 kleak records LOST"):
            self.failed("kleak", it, mut, "exit %d: the loss is not the first line: %r"
                        % (r.rc, r.out[:100]))

    # ---- the run ----------------------------------------------------------------
    def bases(self):
        out = []
        for j in range(self.a.bases):
            d = os.path.join(self.work, "base%d" % j)
            shutil.rmtree(d, ignore_errors=True)
            p = subprocess.run([self.a.gen, d, str(self.a.seed * 1000 + j)],
                               capture_output=True, check=True, text=True)
            base = {"dir": d, "items": [], "bufs": {}, "lost": {}, "subbufs_lost": {},
                    "argstr": [], "argstar": [], "hdr_lost": {}, "seq_lost": {}}
            for l in p.stdout.splitlines():
                f = l.split()
                if f[0] == "buf":
                    base["bufs"][int(f[1])] = f[2]
                elif f[0] in ("subbuf", "comm"):
                    base["items"].append({"type": f[0], "buf": int(f[1]), "off": int(f[2]),
                                          "size": int(f[3]), "seq": int(f[4])})
                elif f[0] == "rec":
                    base["items"].append({"type": "rec", "buf": int(f[1]), "off": int(f[2]),
                                          "size": int(f[3]), "seq": int(f[4]),
                                          "kind": int(f[5]), "site": int(f[6]),
                                          "len": int(f[7]), "ts": int(f[8])})
                elif f[0] == "lost":
                    base["lost"][int(f[1])] = int(f[2])
                elif f[0] == "subbufs_lost":
                    base["subbufs_lost"][int(f[1])] = int(f[2])
                elif f[0] in ("argstr", "argstar"):
                    base[f[0]].append((int(f[1]), int(f[2])))
            # the headers' lost and the seq gaps, for the saturation check
            for b, name in base["bufs"].items():
                data = open(os.path.join(d, name), "rb").read()
                base["hdr_lost"][b] = sum(struct.unpack_from("<Q", data, x["off"] + 24)[0]
                                          for x in base["items"]
                                          if x["type"] == "subbuf" and x["buf"] == b)
                seqs = [x["seq"] for x in base["items"] if x["type"] == "rec" and x["buf"] == b]
                base["seq_lost"][b] = (seqs[-1] + 1 - len(seqs)) if seqs else 0
            out.append(base)
        kd = os.path.join(self.work, "kleak-base")
        shutil.rmtree(kd, ignore_errors=True)
        subprocess.run([sys.executable, self.a.kleak_gen, "capture", kd], check=True,
                       env=dict(os.environ, KLEAK_PACK=self.a.kleak_pack))
        return out, kd

    def iteration(self, it):
        """Run iteration @it (in a worker of main()'s pool): its failures
        and its runs, per mode."""
        a, bases, kbase = self.a, self.base_list, self.kleak_base
        self.fail = {m: [] for m in self.fail}
        self.runs = {m: 0 for m in MODES}
        rng = random.Random("%d:%d" % (a.seed, it))
        self.hung = None
        d = os.path.join(self.work, "it%d" % it)
        shutil.rmtree(d, ignore_errors=True)
        # iterations 0 .. bases: each base unmutated, then kleak's
        if it <= len(bases):
            base = bases[it] if it < len(bases) else None
        else:
            base = None if rng.random() < a.kleak_share else rng.choice(bases)
        if base is None:
            shutil.copytree(kbase, d, symlinks=True)
            self.kleak_iter(it, d, rng, it == len(bases))
        else:
            shutil.copytree(base["dir"], d, symlinks=True)
            if it < len(bases):
                mut, klass, info = "none", "intact", {"touched": {}, "hdr_touched": set(),
                                                     "cut": set(), "expect": {}}
            else:
                mut, klass, info = self.mutate(d, base, rng, it)
            if a.verbose:
                print("# iteration %d at %.0f s: %s (%s)" % (it, time.monotonic() - self.t0,
                                                          mut, klass), file=sys.stderr)
            self.klog_iter(it, base, d, mut, klass, info, rng)
            if it < len(bases) and any(self.fail.values()):
                self.fail["base"].append("iteration %d: the unmutated collection %s fails "
                                         "(see the modes)" % (it, base["dir"]))
        if not a.keep:
            shutil.rmtree(d, ignore_errors=True)
        return self.fail, self.runs

    def main(self):
        a = self.a
        self.base_list, self.kleak_base = self.bases()
        t0 = self.t0 = time.monotonic()
        its = range(a.iterations) if a.only is None else [a.only]
        # Iterations are independent (each its own rng, directory and
        # sanitizer logs): --jobs workers, forked with this state, run
        # them; their failures are merged in iteration order.
        fail = {m: [] for m in self.fail}
        runs = {m: 0 for m in MODES}
        global _FUZZ
        _FUZZ = self
        with multiprocessing.get_context("fork").Pool(max(1, a.jobs)) as pool:
            for f, r in pool.imap(_iteration, its):
                for m in fail:
                    fail[m] += f[m]
                for m in runs:
                    runs[m] += r[m]
        self.fail, self.runs = fail, runs
        elapsed = time.monotonic() - t0
        failed = 0
        for m in ("base",) + MODES:
            f = self.fail[m]
            if f:
                failed += 1
                print("not ok %s" % m)
                for x in f[:a.show]:
                    print("# %s: %s" % (m, x), file=sys.stderr)
                if len(f) > a.show:
                    print("# %s: ... %d more" % (m, len(f) - a.show), file=sys.stderr)
            else:
                print("ok %s" % m)
        nfail = sum(len(v) for v in self.fail.values())
        print("# %d iterations from seed %d, %s runs, %d failures, %.0f s" % (
            len(its), a.seed, "+".join("%d %s" % (self.runs[m], m) for m in MODES), nfail,
            elapsed), file=sys.stderr)
        if nfail:
            print("# rerun one: checks/fuzz/run.sh --seed %d --only ITERATION --keep" % a.seed,
                  file=sys.stderr)
        print("%s summary" % ("not ok" if failed else "ok"))
        return 1 if failed else 0


_FUZZ = None


def _iteration(it):
    """Fuzz.iteration() of the Fuzz that main() forked its workers with."""
    return _FUZZ.iteration(it)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("--klog", "--kleak", "--gen", "--kleak-gen", "--kleak-pack", "--work"):
        p.add_argument(name, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--iterations", type=int, default=500)
    p.add_argument("--bases", type=int, default=4)
    p.add_argument("--timeout", type=float, default=20)
    p.add_argument("--kleak-share", type=float, default=0.15)
    p.add_argument("--big-sites", type=int, default=2000)
    p.add_argument("--only", type=int)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--show", type=int, default=10)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--jobs", type=int, default=os.cpu_count())
    sys.exit(Fuzz(p.parse_args()).main())


if __name__ == "__main__":
    main()
