"""Raw h5py reads: the reference every package reader is checked against."""

import h5py


def h5(path, name):
    """A dataset read directly with h5py: the reference the package is checked against."""
    with h5py.File(path, "r") as f:
        return f[name][()]


def h5attr(path, obj, name):
    with h5py.File(path, "r") as f:
        v = f[obj].attrs[name]
        return v.decode() if isinstance(v, bytes) else v
