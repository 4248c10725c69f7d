#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthesize kleak captures for the host checks (checks/kleak/run.sh).

Usage: KLEAK_PACK=PATH gen.py capture|hidden|version2|fake DIR

PATH is checks/kleak/pack.c built: the klog stream and the kleak records
in it are written by klog-stream's encoder and kleak.h's struct, not
packed here.

capture   DIR/cpu0, DIR/cpu1 (klog relay streams as read(2) returns them,
          <linux/klog_relay.h>) holding kleak records (kleak.h), with
          DIR/kallsyms and DIR/kleak.info: a planted leak, balanced
          allocations freed on the other CPU, a free of an unknown object,
          large kmalloc()s traced twice (one with a free between the two
          records, one failed), an address allocated twice with no free,
          another klog record, a sequence gap and records lost at the end
hidden    the same, with every kallsyms address 0 (kptr_restrict=2)
version2  the same, one kleak record of version 2
fake      DIR/klog and DIR/kleak: a fake debugfs of regular files whose
          klog/cpuN are the capture's streams
"""
import os
import subprocess
import sys

KM, CA, KF, CF = 1, 2, 3, 4
LEAK, BAL = 0xffffffffc0001010, 0xffffffffc0001110
KMALLOC, FREESITE, GETNAME = 0xffffffff81000050, 0xffffffff81000200, 0xffffffff81000410
SYMS = """ffffffff81000000 T _stext
ffffffff81000040 T __kmalloc_noprof
ffffffff81000100 T kfree
ffffffff81000400 t getname_flags
ffffffff81000500 T other
ffffffffc0001000 t kleak_test_leak\t[kleak_test_mod]
ffffffffc0001100 t kleak_test_balanced\t[kleak_test_mod]
ffffffffc0001200 t kleak_test_cache_leak\t[kleak_test_mod]
"""


class Stream:
    """One CPU's stream, written by the one encoder (pack, see pack.c)."""

    def __init__(self, cpu):
        self.cpu, self.seq = cpu, 0
        self.spec = ['hdr %d' % cpu]

    def record(self, payload, kind=1, ts=0, func='kleak_log'):
        self.spec.append('rec %d %d %d %d %s %s' % (self.cpu, self.seq, ts, kind, func,
                                                     payload.hex()))
        self.seq += 1

    def kleak(self, version, typ, kseq, site, ptr, req, alc):
        """A kleak record (kleak.h) as kleak-mod writes it."""
        self.spec.append('kleak %d %d %d %d %d %d %d %d %d %d' % (
            self.cpu, self.seq, 1000000 + kseq, version, typ, kseq, site, ptr, req, alc))
        self.seq += 1

    @property
    def b(self):
        out = subprocess.run([os.environ['KLEAK_PACK']], check=True, capture_output=True,
                             input='\n'.join(self.spec + ['']).encode())
        return out.stdout


class Capture:
    def __init__(self, version2=False):
        self.next, self.version2 = 0, version2
        self.c0, self.c1 = Stream(0), Stream(1)

    def ev(self, s, typ, site, ptr, req=0, alc=0, version=1):
        seq = self.next
        self.next += 1
        s.kleak(version, typ, seq, site, ptr, req, alc)

    def build(self):
        c0, c1 = self.c0, self.c1
        for i in range(37):
            self.ev(c0, KM, LEAK, 0xffff888000100000 + i * 256, 200, 256)
        for i in range(50):
            self.ev(c0, KM, BAL, 0xffff888000200000, 200, 256)
            self.ev(c1, KF, BAL + 0x20, 0xffff888000200000)
        self.ev(c1, KF, FREESITE, 0xffff888000900000)
        self.ev(c0, KM, KMALLOC, 0xffff888001000000, 20000, 32768)
        self.ev(c0, KF, FREESITE, 0xffff888000a00000)
        self.ev(c0, KM, GETNAME, 0xffff888001000000, 20000, 32768)
        self.ev(c0, KM, KMALLOC, 0, 50000, 65536)
        self.ev(c0, KM, GETNAME, 0, 50000, 65536)
        self.ev(c1, CA, GETNAME, 0xffff888002000000, 96, 96)
        self.ev(c1, CA, GETNAME, 0xffff888002000000, 96, 96,
                version=2 if self.version2 else 1)
        c1.record(b'some klog_printk() text', kind=0)
        self.next += 2                          # two records lost here
        self.ev(c1, KM, KMALLOC, 0, 100, 0)     # a failed allocation
        return self.next + 1                    # one more lost at the end


def write(d, name, data, mode='w'):
    with open(os.path.join(d, name), mode) as f:
        f.write(data)


def main():
    what, d = sys.argv[1], sys.argv[2]
    cap = Capture(version2=what == 'version2')
    seq = cap.build()
    os.makedirs(d, exist_ok=True)
    if what == 'fake':
        kd, ld = os.path.join(d, 'klog'), os.path.join(d, 'kleak')
        os.makedirs(kd, exist_ok=True)
        os.makedirs(ld, exist_ok=True)
        for n, v in (('enabled', '0'), ('create', '0'), ('subbuf_size', '262144'),
                     ('n_subbufs', '4'), ('mode', 'overwrite'), ('global', '1'),
                     ('flush', ''), ('dropped', '3\n')):
            write(kd, n, v)
        stats = ''
        for s in (cap.c0, cap.c1):
            write(kd, 'cpu%d' % s.cpu, s.b, 'wb')
            stats += 'cpu%d produced=1 consumed=1 records=%d full=3 big=0 nmi=0 nest=0 max_backlog=1\n' % (s.cpu, s.seq)
        write(kd, 'stats', stats)
        for n, v in (('enabled', '1'), ('filter', 'none\n'), ('seq', '%d\n' % seq)):
            write(ld, n, v)
        write(ld, 'stats', ''.join('cpu%d kmalloc=9 kmem_cache_alloc=1 kfree=5 kmem_cache_free=0 filtered=0 recursion=0\n' % c
                                   for c in (0, 1)))
        return
    for s in (cap.c0, cap.c1):
        write(d, 'cpu%d' % s.cpu, s.b, 'wb')
    syms = SYMS
    if what == 'hidden':
        syms = ''.join('0000000000000000' + l[16:] + '\n' for l in SYMS.splitlines())
    write(d, 'kallsyms', syms)
    write(d, 'kleak.info', 'kleak_version 1\ncpus 2\nduration_s 1.500\nfilter none\n'
          'seq %d\nrecursion 0\nklog_dropped 3\nsubbuf_size 262144\nn_subbufs 4\n' % seq)


main()
