#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""png_stats.py PNG [R,G,B]: "WIDTHxHEIGHT colors N match M" of an
8-bit RGB or RGBA PNG (what headless Chromium's --screenshot writes):
its size, how many distinct colours it has and how many pixels are the
colour R,G,B. Decoded with zlib alone (no PIL): chunks, inflate, the five
row filters. A file that is not such a PNG is an error (exit 1)."""
import struct
import sys
import zlib

data = open(sys.argv[1], 'rb').read()
want = tuple(int(v) for v in sys.argv[2].split(',')) if len(sys.argv) > 2 else None
if data[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('%s: not a PNG' % sys.argv[1])
pos, idat, width = 8, b'', 0
while pos + 8 <= len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        if depth != 8 or ctype not in (2, 6) or interlace:
            sys.exit('%s: not 8-bit RGB(A), not interlaced' % sys.argv[1])
    elif kind == b'IDAT':
        idat += body
if not width:
    sys.exit('%s: no IHDR' % sys.argv[1])
bpp = 3 if ctype == 2 else 4
stride = width * bpp
raw = zlib.decompress(idat)
prev = bytearray(stride)
colors, match = set(), 0
for y in range(height):
    start = y * (stride + 1)
    f, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, bpp):
        px = tuple(line[i:i + 3])
        colors.add(px)
        match += px == want
    prev = line
print('%dx%d colors %d match %d' % (width, height, len(colors), match))
