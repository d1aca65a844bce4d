"""Cell models compiled outside olive (plugins, docs/MODELS.md "Models from outside"):
a plugin given by the user (PATH.so, or a NESTML file built on the fly) read from its
descriptor and registered with olive.models. The descriptors and the places a model may come
from are olive.plugin_files'; this module never loads a library either.
"""

import os

from . import models
from .plugin_files import (ABI, SYMBOL, PluginModel, atomic_write, cache_dir, describe,  # noqa: F401
                           descriptor_path, dir_fault, find, hash_path, places, read_descriptor, write_descriptor)

_cache = {}


def is_plugin_spec(model):
    """True for a model given as a plugin file (a path, or a name ending in .so) or a NESTML file."""
    return isinstance(model, (str, os.PathLike)) and (
        os.sep in os.fspath(model) or os.fspath(model).endswith((".so", ".nestml")))


def load(model):
    """The PluginModel of PATH.so (its descriptor, beside it), or of a NESTML file X.nestml
    (built, or taken from the model cache, by olive.nestml's build). Read once per real path
    and file state."""
    spec = os.fspath(model)
    if spec.endswith(".nestml"):
        if not os.path.isfile(spec):
            raise ValueError(f"{spec}: no such NESTML file")
        try:
            from .nestml.build import build
        except ImportError as e:
            raise ValueError(f"{spec}: building a NESTML model needs the nestml package ({e})") from None
        try:
            spec = build(spec)
        except SystemExit as e:   # the build's message: NESTML's (FILE:LINE:COL), or what olive refuses
            raise ValueError(str(e)) from None
    path = os.path.realpath(spec)
    st = os.stat(path) if os.path.isfile(path) else None
    key = (path, st and (st.st_mtime_ns, st.st_size))
    if key not in _cache:
        _cache[key] = read_descriptor(spec)
    return _cache[key]


def use(spec):
    """The model name of a plugin (PATH.so, or a NESTML file built on the fly), read and
    registered so that olive.models knows it. ValueError for a faulty plugin, one named like a
    built-in model, or a second plugin of a name already registered from elsewhere."""
    return models.register(load(spec))
