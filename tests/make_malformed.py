#!/usr/bin/python3
"""Write malformed olive network files for tests/test_malformed_network.sh.

    make_malformed.py DIR      writes DIR/<case>.h5 and prints one line per case:
                               <case> TAB <regex the error message must match>

Each case is a valid base network (6 cells, dims 3x2x1, 10 junctions, per-cell
g_CaL) with exactly one fault. The regex names the fault (case-insensitive,
extended regex), so a message that only says "error" does not pass.
"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_network as mk  # noqa: E402

COUNT = 6
JUNCTIONS = [(0, 1, 0.02), (0, 3, 0.03), (1, 0, 0.02), (1, 2, 0.05), (2, 5, 0.01),
             (3, 0, 0.04), (3, 4, 0.02), (4, 3, 0.06), (5, 1, 0.03), (5, 2, 0.02)]
GCAL = [0.6, 0.65, 0.7, 0.72, 0.75, 0.8]


def base(path, bits=32):
    mk.write_network(path, COUNT, JUNCTIONS, bits=bits, gcal=GCAL, dims=(3, 2, 1))


def replace(f, name, data):
    del f[name]
    f.create_dataset(name, data=data)


CASES = []  # (name, regex, function(f) applied to the open base file, bits)


def case(name, regex, bits=32):
    def deco(fn):
        CASES.append((name, regex, fn, bits))
        return fn
    return deco


# --- header ---
@case("no_format", r"format")
def _(f): del f.attrs["format"]
@case("wrong_format", r"format.*(olive-stimulus|olive-network)|not an olive network")
def _(f): f.attrs["format"] = "olive-stimulus"
@case("format_not_string", r"format")
def _(f): f.attrs["format"] = np.int64(1)
@case("version_2", r"format_version|version")
def _(f): f.attrs["format_version"] = np.int64(2)
@case("version_missing", r"format_version")
def _(f): del f.attrs["format_version"]
@case("no_cells_group", r"cells")
def _(f): del f["cells"]
@case("no_gap_junctions_group", r"gap_junctions")
def _(f): del f["gap_junctions"]
@case("count_missing", r"count")
def _(f): del f["cells"].attrs["count"]
@case("count_dims_mismatch", r"dims|count")
def _(f): f["cells"].attrs["dims"] = np.array([4, 2, 1], dtype=np.int64)
@case("count_not_dims_7", r"dims|count")
def _(f): f["cells"].attrs["count"] = np.int64(7)
@case("count_zero", r"count")
def _(f):
    f["cells"].attrs["count"] = np.int64(0)
@case("dims_negative", r"dims")
def _(f): f["cells"].attrs["dims"] = np.array([-3, -2, 1], dtype=np.int64)
@case("dims_two_values", r"dims")
def _(f): f["cells"].attrs["dims"] = np.array([3, 2], dtype=np.int64)
@case("dims_missing", r"dims")
def _(f): del f["cells"].attrs["dims"]
# --- row_ptr ---
@case("row_ptr_missing", r"row_ptr")
def _(f): del f["gap_junctions/row_ptr"]
@case("row_ptr_short", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", f["gap_junctions/row_ptr"][:-1])
@case("row_ptr_long", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", np.append(f["gap_junctions/row_ptr"][:], 10))
@case("row_ptr_decreasing", r"row_ptr.*(decreas|monoton)|(decreas|monoton).*row")
def _(f): replace(f, "gap_junctions/row_ptr", np.array([0, 2, 5, 4, 7, 8, 10], np.int64))
@case("row_ptr_not_from_0", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", np.array([1, 2, 4, 5, 7, 8, 10], np.int64))
@case("row_ptr_end_below_nnz", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", np.array([0, 2, 4, 5, 7, 8, 9], np.int64))
@case("row_ptr_end_above_nnz", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", np.array([0, 2, 4, 5, 7, 8, 11], np.int64))
@case("row_ptr_float", r"row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", f["gap_junctions/row_ptr"][:].astype(np.float64))
# --- col ---
@case("col_missing", r"col")
def _(f): del f["gap_junctions/col"]
@case("col_out_of_range", r"range")  # id == count, the boundary
def _(f):
    c = f["gap_junctions/col"][:]; c[9] = 6; f["gap_junctions/col"][...] = c  # row 5: (1, 2) -> (1, 6)
# these messages must name the offending id itself
@case("col_huge", r"1099511627776.*range|range.*1099511627776")
def _(f):
    replace(f, "gap_junctions/col", np.append(f["gap_junctions/col"][:9], 2**40).astype(np.int64))
@case("col_negative", r"-5.*(range|negative)|(range|negative).*-5")
def _(f):
    c = f["gap_junctions/col"][:]; c[0] = -5; f["gap_junctions/col"][...] = c  # row 0: (1, 3) -> (-5, 3)
@case("self_junction", r"self")
def _(f):
    c = f["gap_junctions/col"][:]; c[3] = 1; f["gap_junctions/col"][...] = c  # row 1: (0, 2) -> (0, 1)
@case("self_junction_last_row", r"self")
def _(f):
    c = f["gap_junctions/col"][:]; c[9] = 5; f["gap_junctions/col"][...] = c  # row 5: (1, 2) -> (1, 5)
@case("duplicate_junction", r"duplicate")
def _(f):
    c = f["gap_junctions/col"][:]; c[6] = 0; f["gap_junctions/col"][...] = c  # row 3: (0, 4) -> (0, 0)
@case("unsorted_row", r"sorted|ascending|order")
def _(f):
    c = f["gap_junctions/col"][:]; c[5], c[6] = c[6], c[5]; f["gap_junctions/col"][...] = c  # row 3: (4, 0)
@case("col_float", r"col")
def _(f): replace(f, "gap_junctions/col", f["gap_junctions/col"][:].astype(np.float32))
# --- conductances ---
@case("bits_7", r"bits")
def _(f): f["gap_junctions"].attrs["bits"] = np.int64(7)
@case("bits_missing", r"bits")
def _(f): del f["gap_junctions"].attrs["bits"]
@case("offset_missing", r"offset")
def _(f): del f["gap_junctions"].attrs["offset"]
@case("conductance_missing", r"conductance")
def _(f): del f["gap_junctions/conductance"]
@case("conductance_short", r"conductance")
def _(f): replace(f, "gap_junctions/conductance", f["gap_junctions/conductance"][:-1])
@case("conductance_long", r"conductance")
def _(f): replace(f, "gap_junctions/conductance", np.append(f["gap_junctions/conductance"][:], np.float32(0.01)))
@case("conductance_uint8_for_bits32", r"conductance")
def _(f): replace(f, "gap_junctions/conductance", np.arange(10, dtype=np.uint8))
@case("conductance_int32_for_bits32", r"conductance")
def _(f): replace(f, "gap_junctions/conductance", np.arange(10, dtype=np.int32))
@case("conductance_float_for_bits8", r"conductance", bits=8)
def _(f): replace(f, "gap_junctions/conductance", f["gap_junctions/conductance"][:].astype(np.float32))
@case("conductance_uint8_for_bits16", r"conductance", bits=16)
def _(f): replace(f, "gap_junctions/conductance", f["gap_junctions/conductance"][:].astype(np.uint8))
@case("conductance_bits4_unpacked", r"conductance", bits=4)
def _(f): replace(f, "gap_junctions/conductance", np.zeros(10, np.uint8))  # needs (10+1)/2 = 5 bytes
@case("conductance_bits8_wrong_length", r"conductance", bits=8)
def _(f): replace(f, "gap_junctions/conductance", np.zeros(5, np.uint8))
@case("conductance_nan", r"conductance")
def _(f):
    w = f["gap_junctions/conductance"][:]; w[4] = np.nan; f["gap_junctions/conductance"][...] = w
@case("conductance_inf", r"conductance")
def _(f):
    w = f["gap_junctions/conductance"][:]; w[0] = np.inf; f["gap_junctions/conductance"][...] = w
@case("conductance_negative", r"conductance")
def _(f):
    w = f["gap_junctions/conductance"][:]; w[9] = -0.02; f["gap_junctions/conductance"][...] = w
@case("offset_negative_bits8", r"offset|conductance", bits=8)
def _(f): f["gap_junctions"].attrs["offset"] = -0.5
@case("scale_negative_bits8", r"scale|conductance", bits=8)
def _(f):
    f["gap_junctions"].attrs["offset"] = 0.01; f["gap_junctions"].attrs["scale"] = -0.001
    f["gap_junctions/conductance"][...] = np.full(10, 255, np.uint8)  # every w = -0.245
@case("offset_nan_bits8", r"offset|conductance", bits=8)
def _(f): f["gap_junctions"].attrs["offset"] = np.nan
@case("offset_negative_bits0", r"offset|conductance", bits=0)
def _(f): f["gap_junctions"].attrs["offset"] = -0.04
@case("offset_inf_bits0", r"offset|conductance", bits=0)
def _(f): f["gap_junctions"].attrs["offset"] = np.inf
# --- a dataset is either read or refused ---
@case("cells_unknown_dataset", r"/cells/gcal is not read by olive")
def _(f): f["cells"].create_dataset("gcal", data=np.full(COUNT, 0.9))
@case("gj_unknown_dataset", r"/gap_junctions/weights is not read by olive")
def _(f): f["gap_junctions"].create_dataset("weights", data=np.full(10, 0.05))
@case("conductance_with_bits0", r"/gap_junctions/conductance is there but bits = 0", bits=0)
def _(f): f["gap_junctions"].create_dataset("conductance", data=np.full(10, 0.05))
# --- g_CaL ---
@case("gcal_nan", r"g_CaL")
def _(f):
    g = f["cells/g_CaL"][:]; g[2] = np.nan; f["cells/g_CaL"][...] = g
@case("gcal_negative", r"g_CaL")
def _(f):
    g = f["cells/g_CaL"][:]; g[5] = -0.7; f["cells/g_CaL"][...] = g
@case("gcal_short", r"g_CaL")
def _(f): replace(f, "cells/g_CaL", np.full(5, 0.7))
@case("gcal_long", r"g_CaL")
def _(f): replace(f, "cells/g_CaL", np.full(7, 0.7))
@case("gcal_2d", r"g_CaL")
def _(f): replace(f, "cells/g_CaL", np.full((6, 1), 0.7))

# --- faults that used to slip through or read out of bounds ---
@case("row_ptr_rises_past_nnz", r"row_ptr\[[0-9]+\] = 40 is outside|row_ptr")
def _(f): replace(f, "gap_junctions/row_ptr", np.array([0, 2, 40, 5, 7, 8, 10], np.int64))
@case("signed_codes8", r"conductance holds signed integers", bits=8)
def _(f): replace(f, "gap_junctions/conductance", f["gap_junctions/conductance"][:].astype(np.int8))
@case("signed_codes16", r"conductance holds signed integers", bits=16)
def _(f): replace(f, "gap_junctions/conductance", f["gap_junctions/conductance"][:].astype(np.int16))
@case("bits_float", r"'bits' is stored as a floating-point number", bits=8)
def _(f): f["gap_junctions"].attrs["bits"] = np.float64(8.9)
@case("count_float", r"'count' is stored as a floating-point number")
def _(f): f["cells"].attrs["count"] = np.float64(6.0)
@case("format_truncated", r"format is 'olive-networ'")
def _(f): f.attrs.create("format", np.bytes_("olive-networ"), dtype=h5py.string_dtype("ascii", 12))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, regex, fn, bits in CASES:
        path = os.path.join(out, name + ".h5")
        base(path, bits)
        with h5py.File(path, "r+") as f:
            fn(f)
        print(f"{name}\t{regex}")
    # files that are not HDF5 at all
    with open(os.path.join(out, "not_hdf5.h5"), "w") as f:
        f.write("this is a text file, not an olive network\n" * 20)
    print("not_hdf5\tHDF5|not an? (olive|HDF5|valid)|open|format")
    open(os.path.join(out, "empty_file.h5"), "w").close()
    print("empty_file\tHDF5|empty|open|format")
    print("missing_file\tno such file|not found|does not exist|cannot open|missing")
    # the valid base, for the positive control
    base(os.path.join(out, "valid.h5"))
    for b in (0, 4, 8, 16):
        base(os.path.join(out, f"valid{b}.h5"), b)
    # fixed-length strings stored without a terminator (13 bytes for
    # 'olive-network'): read whole, not as 'olive-networ'
    base(os.path.join(out, "validfixedstr.h5"))
    with h5py.File(os.path.join(out, "validfixedstr.h5"), "r+") as f:
        f.attrs.create("format", np.bytes_("olive-network"), dtype=h5py.string_dtype("ascii", 13))


if __name__ == "__main__":
    main()
