"""Cell models compiled outside olive (plugins, docs/MODELS.md "Models from outside").

A plugin's descriptor is read from the plugin itself: the .so is loaded with
ctypes and its olive_model_plugin_v1() called, so the model name, hash,
parameters (with units and defaults), state variables and receptors are the
very ones olive-genconn and olive-simulate read (common/models/model_plugin.h),
not a copy that could drift; a plugin of another ABI is refused. The path
recorded is the .so's real path, as the C loader records it.

A NESTML file is built into a plugin first (olive.nestml's build, cached by
content hash; needs the nestml package).
"""

import ctypes
import os
from dataclasses import dataclass
from typing import Tuple

ABI = 2                               # OLIVE_PLUGIN_ABI
SYMBOL = "olive_model_plugin_v1"      # OLIVE_PLUGIN_SYMBOL


class _Param(ctypes.Structure):       # olive_param_desc
    _fields_ = [("name", ctypes.c_char_p), ("unit", ctypes.c_char_p), ("default", ctypes.c_double)]


class _Model(ctypes.Structure):       # olive_cell_model (common/models/cellmodel.h)
    _fields_ = [("name", ctypes.c_char_p), ("description", ctypes.c_char_p), ("nvars", ctypes.c_int),
                ("var_names", ctypes.POINTER(ctypes.c_char_p)), ("var_units", ctypes.POINTER(ctypes.c_char_p)),
                ("var_initial", ctypes.POINTER(ctypes.c_double)), ("nparams", ctypes.c_int),
                ("params", ctypes.POINTER(_Param)), ("spike_var", ctypes.c_int), ("gap_var", ctypes.c_int),
                ("nreceptors", ctypes.c_int), ("receptors", ctypes.POINTER(ctypes.c_int)),
                ("weight_unit", ctypes.c_char_p), ("weights_nonnegative", ctypes.c_int),
                ("dt_default", ctypes.c_double), ("dt_fixed", ctypes.c_int),
                ("receptor_names", ctypes.POINTER(ctypes.c_char_p))]


class _Plugin(ctypes.Structure):      # the leading fields of olive_model_plugin (all this module reads)
    _fields_ = [("abi", ctypes.c_int), ("hash", ctypes.c_char_p), ("origin", ctypes.c_char_p), ("model", _Model),
                ("receptor_scale", ctypes.POINTER(ctypes.c_double)), ("current_unit", ctypes.c_char_p)]


@dataclass(frozen=True)
class PluginModel:
    """A plugin's model: what a network file and write_network need of it."""

    name: str
    hash: str
    path: str                                   # the .so's real path (the file's model_path)
    origin: str
    params: Tuple[Tuple[str, str, float], ...]  # (name, unit, default), in the plugin's order
    variables: Tuple[Tuple[str, str, float], ...]  # (name, unit, initial value)
    receptors: Tuple[str, ...]                  # the spike ports' names
    weight_unit: str
    weights_nonnegative: bool
    dt_default: float
    current_unit: str                           # "" when the model takes no pulse current


def _s(b):
    return b.decode() if b is not None else ""


def _load(so):
    """The PluginModel of a .so file; ValueError naming the file and the fault."""
    path = os.path.realpath(so)
    if not os.path.isfile(path):
        raise ValueError(f"{so}: no such plugin file")
    try:
        lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
        fn = getattr(lib, SYMBOL)
    except (OSError, AttributeError) as e:
        raise ValueError(f"{path}: not an olive model plugin ({e})") from None
    fn.restype = ctypes.POINTER(_Plugin)
    p = fn()
    if not p:
        raise ValueError(f"{path}: {SYMBOL}() returned no plugin")
    p = p.contents
    if p.abi != ABI:
        raise ValueError(f"{path}: plugin ABI {p.abi}, but this package reads ABI {ABI} (rebuild the model)")
    m = p.model
    names = lambda arr, n: [_s(arr[i]) for i in range(n)]   # noqa: E731
    rnames = names(m.receptor_names, m.nreceptors) if m.receptor_names else \
        [_s(m.var_names[m.receptors[i]]) for i in range(m.nreceptors)]
    return PluginModel(
        name=_s(m.name), hash=_s(p.hash), path=path, origin=_s(p.origin),
        params=tuple((_s(m.params[k].name), _s(m.params[k].unit), float(m.params[k].default))
                     for k in range(m.nparams)),
        variables=tuple((_s(m.var_names[v]), _s(m.var_units[v]), float(m.var_initial[v])) for v in range(m.nvars)),
        receptors=tuple(rnames), weight_unit=_s(m.weight_unit), weights_nonnegative=bool(m.weights_nonnegative),
        dt_default=float(m.dt_default), current_unit=_s(p.current_unit))


_cache = {}


def is_plugin_spec(model):
    """True for a model given as a plugin file (a path, or a name ending in .so) or a NESTML file."""
    return isinstance(model, (str, os.PathLike)) and (
        os.sep in os.fspath(model) or os.fspath(model).endswith((".so", ".nestml")))


def load(model):
    """The PluginModel of PATH.so, or of a NESTML file X.nestml (built, or taken from the
    model cache, by olive.nestml's build). Loaded once per real path and file state."""
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
        _cache[key] = _load(spec)
    return _cache[key]
