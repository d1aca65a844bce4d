"""Gap-junction conductances: decoding and encoding olive's bit-packed codes.

The network file stores junction conductances as codes of 0, 4, 8 or 16 bits
(w = offset + code * scale) or as float32 / float64 values (docs/FORMAT.md,
network file). Decoding follows that table exactly, including the nibble
order of 4-bit codes (low nibble for even junctions), so that Python sees the
conductances olive-simulate uses.
"""

import numpy as np

from .errors import FormatError

BITS = (0, 4, 8, 16, 32, 64)


def codes_from_packed(bits, packed, nnz):
    """The integer codes of nnz junctions from the stored array (bits 4, 8 or 16)."""
    packed = np.asarray(packed)
    if bits == 4:
        codes = np.empty(2 * len(packed), np.uint8)
        codes[0::2] = packed & 15
        codes[1::2] = packed >> 4
        return codes[:nnz]
    return packed[:nnz]


def decode(path, bits, offset, scale, stored, nnz):
    """float64[nnz] conductances from the stored dataset (None for bits 0).

    path names the file in the errors raised when the dataset does not have
    the length and element type that bits implies (the checks netfile.c makes).
    """
    where = "/gap_junctions/conductance"
    if bits not in BITS:
        raise FormatError(path, f"/gap_junctions attribute bits = {bits}, must be one of {BITS}")
    if bits == 0:
        return np.full(nnz, float(offset))
    if stored is None:
        raise FormatError(path, f"{where} is missing (bits = {bits})")
    expect_len = (nnz + 1) // 2 if bits == 4 else nnz
    kind, size = ("f", bits // 8) if bits >= 32 else ("u", max(bits, 8) // 8)
    if stored.dtype.kind != kind or stored.dtype.itemsize != size:
        need = f"float{bits}" if bits >= 32 else f"uint{size * 8}"
        signed = " (codes must be stored unsigned)" if stored.dtype.kind == "i" else ""
        raise FormatError(path, f"{where} has element type {stored.dtype}; bits = {bits} needs {need}{signed}")
    if len(stored) != expect_len:
        raise FormatError(path, f"{where} has {len(stored)} entries; {nnz} junctions at {bits} bits need {expect_len}")
    if bits in (32, 64):
        return stored.astype(np.float64)
    codes = codes_from_packed(bits, stored, nnz)
    return float(offset) + codes.astype(np.float64) * float(scale)


def encode_exact(w):
    """(bits, offset, scale, stored) storing conductances w without loss.

    All equal: bits 0 (no dataset); otherwise float64 values, what an imported
    network with its exact doubles uses. Quantised codes are olive-genconn's job.
    """
    w = np.asarray(w, dtype=np.float64)
    if len(w) == 0:
        return 0, 0.0, 0.0, None
    if np.all(w == w[0]):
        return 0, float(w[0]), 0.0, None
    return 64, 0.0, 0.0, w
