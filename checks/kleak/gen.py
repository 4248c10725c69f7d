#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Synthesize klog collections holding kleak records, for checks/kleak/run.sh
and the fuzz smoke's kleak mode.

Usage: KLEAK_PACK=PATH gen.py KIND DIR

PATH is checks/kleak/pack.c built: the klog stream and the kleak records
in it are written by klog-stream's encoder and kleak.h's struct, not
packed here. DIR gets cpu0 and cpu1 (klog relay streams as klog -o saves
them) and kallsyms. KIND:

capture   a planted leak (37 x 200 bytes from kleak_test_leak), balanced
          allocations freed on the other CPU, frees of unknown objects,
          large kmalloc()s traced twice (one with a free between the two
          records, one failed), an address allocated twice with no free,
          another klog record, two records lost in a gap and one just
          before the end record
complete  the same without the loss
noend     complete, without the end record (kleak-mod still loaded)
late      complete, without the first 5 records (kleak-mod loaded first)
global    complete, all in cpu0 and out of number order (a global buffer)
hidden    capture, every kallsyms address 0 (read without root)
version   capture, one record of another version
dup       capture, one number twice
afterend  capture, a record numbered after the end record
badtype   capture, one record of an unknown type
bigsize   capture, one allocation of 2^64 - 1 bytes (number 43)
bigfail   capture, its failed allocations of 50000 bytes asking for 8 GiB
bigseq    noend, one more record numbered 2^64 - 1
"""
import os
import random
import subprocess
import sys

KM, CA, KF, CF, END = 1, 2, 3, 4, 5
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


def pack(spec):
    """The stream of one buffer, by the one encoder (pack.c)."""
    return subprocess.run([os.environ['KLEAK_PACK']], check=True, capture_output=True,
                          input='\n'.join(spec + ['']).encode()).stdout


def events(kind):
    """(cpu, type, site, ptr, req, alloc) in number order; None: a number lost."""
    ev = []
    for i in range(37):
        ev.append((0, KM, LEAK, 0xffff888000100000 + i * 256, 200, 256))
    for i in range(50):
        ev.append((0, KM, BAL, 0xffff888000200000, 200, 256))
        ev.append((1, KF, BAL + 0x20, 0xffff888000200000, 0, 0))
    ev.append((1, KF, FREESITE, 0xffff888000900000, 0, 0))
    ev.append((0, KM, KMALLOC, 0xffff888001000000, 20000, 32768))   # traced twice,
    ev.append((0, KF, FREESITE, 0xffff888000a00000, 0, 0))          # a free between
    ev.append((0, KM, GETNAME, 0xffff888001000000, 20000, 32768))   # the real caller
    ev.append((0, KM, KMALLOC, 0, 50000, 65536))                    # failed, twice
    ev.append((0, KM, GETNAME, 0, 50000, 65536))
    ev.append((1, CA, GETNAME, 0xffff888002000000, 96, 96))
    ev.append((1, CA, GETNAME, 0xffff888002000000, 96, 96))         # no free seen
    if kind not in ('complete', 'noend', 'late', 'global', 'bigseq'):
        ev += [None, None]                      # two records lost here
    ev.append((1, KM, KMALLOC, 0, 100, 0))      # a failed allocation
    if kind not in ('complete', 'noend', 'late', 'global', 'bigseq'):
        ev.append(None)                         # one lost before the end
    if kind not in ('noend', 'bigseq'):
        ev.append((1, END, 0, 0, 0, 0))
    return ev


def main():
    kind, d = sys.argv[1], sys.argv[2]
    os.makedirs(d, exist_ok=True)
    recs = []                                   # (cpu, kleak record fields)
    for seq, e in enumerate(events(kind)):
        if e is None or (kind == 'late' and seq < 5):
            continue
        cpu, typ, site, ptr, req, alc = e
        ver = 1 if kind == 'version' and seq == 40 else 2
        if kind == 'badtype' and seq == 41:
            typ = 9
        if kind == 'bigsize' and seq == 43:
            req = 2**64 - 1
        if kind == 'bigfail' and ptr == 0 and req == 50000:
            req, alc = 2**33, 0
        recs.append([cpu, ver, typ, seq, site, ptr, req, alc])
    if kind == 'dup':
        recs.insert(60, list(recs[59]))
        recs[60][0] = 1 - recs[60][0]
    if kind == 'bigseq':
        recs.append([0, 2, KF, 2**64 - 1, FREESITE, 0xffff888000b00000, 0, 0])
    if kind == 'afterend':
        recs.append([0, 2, KF, recs[-1][3] + 1, FREESITE, 0xffff888000b00000, 0, 0])
    if kind == 'global':
        random.Random(1).shuffle(recs)
        for r in recs:
            r[0] = 0
    # another klog record first in the last buffer; then the buffers'
    # own record numbers go on from 1
    last = 0 if kind == 'global' else 1
    spec = {0: ['hdr 0'], 1: ['hdr 1']}
    spec[last].append('rec %d 0 0 0 f %s' % (last, b'some klog_printk() text'.hex()))
    kseq = {0: 0, 1: 0}
    kseq[last] = 1
    for cpu, ver, typ, seq, site, ptr, req, alc in recs:
        spec[cpu].append('kleak %d %d %d %d %d %d %d %d %d %d' % (
            cpu, kseq[cpu], 1000000 + min(seq, 2**40), ver, typ, seq, site, ptr, req, alc))
        kseq[cpu] += 1
    for cpu in (0, 1):
        if cpu == 0 or kind != 'global':
            with open(os.path.join(d, 'cpu%d' % cpu), 'wb') as f:
                f.write(pack(spec[cpu]))
    syms = SYMS
    if kind == 'hidden':
        syms = ''.join('0000000000000000' + l[16:] + '\n' for l in SYMS.splitlines())
    with open(os.path.join(d, 'kallsyms'), 'w') as f:
        f.write(syms)


main()
