"""Is this screenshot a drawn window, not a blank or black rectangle? (packaging/smoke.sh)

Standard library only, so any ``python3`` on the build machine can run it:
``python3 packaging/check_png.py shot.png`` prints the size and colour count,
and exits 1 when the picture is too small, of one colour, or nearly so.
"""

from __future__ import annotations

import struct
import sys
import zlib
from collections import Counter
from pathlib import Path

_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # PNG colour type -> samples per pixel


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of an 8-bit, non-interlaced PNG."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, bytearray(), b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in _CHANNELS or interlace:
        raise ValueError(f"unsupported PNG (depth {depth}, colour type {colour})")
    bpp = _CHANNELS[colour]
    stride = width * bpp
    raw = zlib.decompress(bytes(idat))
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind = raw[start]
        row = bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up = previous[i]
            if kind == 1:
                row[i] = (row[i] + left) & 0xFF
            elif kind == 2:
                row[i] = (row[i] + up) & 0xFF
            elif kind == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                corner = previous[i - bpp] if i >= bpp else 0
                row[i] = (row[i] + _paeth(left, up, corner)) & 0xFF
        rows.append(bytes(row))
        previous = row
    return width, height, rows


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: check_png.py SHOT.png", file=sys.stderr)
        return 2
    path = Path(argv[1])
    try:
        width, height, rows = read_png(path.read_bytes())
    except (OSError, ValueError, zlib.error, struct.error) as exc:
        print(f"{path}: not a readable screenshot ({exc})", file=sys.stderr)
        return 1
    bpp = len(rows[0]) // width if rows else 1
    colours = Counter(row[i : i + bpp] for row in rows for i in range(0, len(row), bpp))
    commonest = colours.most_common(1)[0][1] / (width * height)
    print(f"{path}: {width}x{height}, {len(colours)} colours, commonest {commonest:.0%}")
    if width < 400 or height < 300:
        print("too small for the main window", file=sys.stderr)
        return 1
    if len(colours) < 16 or commonest > 0.98:
        print("blank: the window drew nothing", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
