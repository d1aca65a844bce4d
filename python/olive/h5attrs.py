"""Small, checked readers of HDF5 attributes and datasets.

olive writes strings as fixed-length bytes, integers as int64 and reals as
float64 (docs/FORMAT.md, conventions); other writers may use variable-length
strings or other integer widths. These helpers turn any of them into plain
Python values and raise FormatError naming the file and the object when an
attribute is missing or of the wrong kind, so the readers stay short.
"""

import numpy as np

from .errors import FormatError


def decode(value):
    """A string attribute as str, whether h5py gives bytes, numpy bytes or str."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value[()]
    if isinstance(value, (bytes, np.bytes_)):
        return bytes(value).split(b"\0", 1)[0].decode("utf-8", "replace")
    return str(value)


def plain(value):
    """An attribute as a plain Python value: str, int, float, or a numpy array."""
    if isinstance(value, (bytes, np.bytes_, str)):
        return decode(value)
    if isinstance(value, np.ndarray):
        if value.shape == ():
            return plain(value[()])
        return value
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def attrs_dict(obj):
    """Every attribute of an HDF5 object as {name: plain value}."""
    return {name: plain(obj.attrs[name]) for name in obj.attrs}


def _where(obj):
    return obj.name if obj.name else "/"


def get_str(path, obj, name, default=None):
    """A string attribute; default when absent and a default is given."""
    if name not in obj.attrs:
        if default is not None:
            return default
        raise FormatError(path, f"{_where(obj)} has no attribute '{name}'")
    value = obj.attrs[name]
    if isinstance(value, np.ndarray) and value.shape != ():
        raise FormatError(path, f"{_where(obj)} attribute '{name}' must be a string, not an array")
    if not isinstance(value, (bytes, np.bytes_, str)):
        raise FormatError(path, f"{_where(obj)} attribute '{name}' must be a string")
    return decode(value)


def get_int(path, obj, name, default=None):
    """An integer attribute (any integer type; a float is refused, as olive refuses it)."""
    if name not in obj.attrs:
        if default is not None:
            return default
        raise FormatError(path, f"{_where(obj)} has no attribute '{name}'")
    value = np.asarray(obj.attrs[name])
    if value.shape not in ((), (1,)) or value.dtype.kind not in "iu":
        raise FormatError(path, f"{_where(obj)} attribute '{name}' must be an integer scalar")
    return int(value.reshape(()))


def get_float(path, obj, name, default=None):
    """A real attribute (any integer or float type)."""
    if name not in obj.attrs:
        if default is not None:
            return default
        raise FormatError(path, f"{_where(obj)} has no attribute '{name}'")
    value = np.asarray(obj.attrs[name])
    if value.shape not in ((), (1,)) or value.dtype.kind not in "iuf":
        raise FormatError(path, f"{_where(obj)} attribute '{name}' must be a number")
    return float(value.reshape(()))


def dataset(path, group, name, kinds=None, length=None):
    """A 1-D dataset read whole, checked for element kind ('iuf' letters) and length."""
    if name not in group:
        raise FormatError(path, f"{group.name}/{name} is missing")
    d = group[name]
    where = f"{group.name.rstrip('/')}/{name}"
    if not hasattr(d, "dtype"):
        raise FormatError(path, f"{where} is not a dataset")
    if d.ndim != 1:
        raise FormatError(path, f"{where} must be one-dimensional, has shape {d.shape}")
    if kinds and d.dtype.kind not in kinds:
        raise FormatError(path, f"{where} has element type {d.dtype}, expected "
                                + {"iu": "an integer type", "u": "an unsigned integer type",
                                   "f": "a float type", "iuf": "a number type"}.get(kinds, kinds))
    if length is not None and d.shape[0] != length:
        raise FormatError(path, f"{where} has {d.shape[0]} entries, expected {length}")
    return d[()]
