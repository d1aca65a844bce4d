"""PNG pixels for the plot tests (tests/test_plot_*.sh): a plain decoder of
8-bit RGB(A) PNGs with any filter, so that the tests need no imaging library."""
import struct
import zlib

import numpy as np


def png_rgb(path):
    """A plain PNG decoder (8-bit RGB, any filter), so the test needs no imaging library."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), w * bpp
    img, prev = np.zeros((h, stride), np.int64), np.zeros(stride, np.int64)
    for y in range(h):
        f, line = raw[y * (stride + 1)], np.frombuffer(raw, np.uint8, stride, y * (stride + 1) + 1).astype(np.int64)
        out = np.zeros(stride, np.int64)
        for i in range(stride):
            a = out[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 0: p = 0
            elif f == 1: p = a
            elif f == 2: p = b
            elif f == 3: p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            out[i] = (line[i] + p) & 255
        img[y], prev = out, out
    return img.reshape(h, w, bpp)[:, :, :3]
