"""The files of cell models compiled outside olive (plugins, docs/MODELS.md "Models from
outside"): their descriptors and the places they may be loaded from. The lowest layer of the
plugin modules (olive.plugin loads and registers; olive.nestml.build writes these files).

Reading never runs a plugin's code. A plugin NAME.so comes with its
descriptor NAME.olive.json (model name, hash, parameters with units and
defaults, state variables, receptors) and NAME.hash beside it; this module
reads those. The descriptor is written once, when the user builds the model
(`olive-model build`) or names a library compiled by hand (`olive-model
describe PATH.so`): only then is the library loaded (ctypes, describe()), so
the descriptor holds the very values olive-genconn and olive-simulate read
(common/models/model_plugin.h), not a copy that could drift.

A network file names a plugin's model by name and hash; find() looks for it
only in places the user chose, as olive-simulate does (model_places.h): the
paths given (model_path), OLIVE_MODEL_PATH, the model cache. Never at a path
written in a file.

A NESTML file is built into a plugin first (olive.nestml's build, cached by
content hash; needs the nestml package).
"""

import ctypes
import json
import os
import stat
from dataclasses import asdict, dataclass
from typing import Tuple

from . import initial_values
from .atomic import atomic_output

ABI = 4                               # OLIVE_PLUGIN_ABI
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
    # each variable's initial value as an expression of the parameters (olive.initial_values), as
    # the plugin's init() computes it; "" where the descriptor does not say (the default then)
    initial: Tuple[str, ...] = ()


def _s(b):
    return b.decode() if b is not None else ""


def describe(so):
    """The PluginModel of a .so file, read by loading it (its constructors run):
    only for a library the user names to olive-model. ValueError naming the file and the fault."""
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


def descriptor_path(so):
    """NAME.olive.json beside NAME.so."""
    so = os.fspath(so)
    return (so[:-3] if so.endswith(".so") else so) + ".olive.json"


def hash_path(so):
    so = os.fspath(so)
    return (so[:-3] if so.endswith(".so") else so) + ".hash"


def atomic_write(path, text):
    """path's content, never half-written (olive.atomic's atomic_output: a unique temporary,
    fsync'ed and renamed)."""
    with atomic_output(path, force=True) as tmp:
        with open(tmp, "w") as f:
            f.write(text)


def write_descriptor(so, pm=None):
    """NAME.olive.json and NAME.hash beside so (pm: its PluginModel, else describe(so))."""
    pm = pm or describe(so)
    d = asdict(pm)
    d.pop("path")
    d["abi"] = ABI
    atomic_write(descriptor_path(so), json.dumps(d, indent=1) + "\n")
    atomic_write(hash_path(so), pm.hash + "\n")
    return pm


def read_descriptor(so):
    """The PluginModel of so from NAME.olive.json beside it, without loading so."""
    path = os.path.realpath(so)
    if not os.path.isfile(path):
        raise ValueError(f"{so}: no such plugin file")
    dp = descriptor_path(path)
    try:
        with open(dp, encoding="utf-8") as f:
            d = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"{so}: no descriptor {os.path.basename(dp)} beside it (olive reads a plugin's descriptor, "
                         f"never its code): build the model with olive-model build, or describe a library you "
                         f"compiled yourself with olive-model describe {so}") from None
    except (OSError, ValueError) as e:
        raise ValueError(f"{dp}: not a plugin descriptor ({e})") from None
    try:
        if d.pop("abi") != ABI:
            raise ValueError(f"plugin ABI {d.get('abi')}, but this package reads ABI {ABI} (rebuild the model)")
        d["params"] = tuple((str(n), str(u), float(v)) for n, u, v in d["params"])
        d["variables"] = tuple((str(n), str(u), float(v)) for n, u, v in d["variables"])
        d["receptors"] = tuple(str(r) for r in d["receptors"])
        d["initial"] = tuple(str(e) for e in d.get("initial", ()))
        if d["initial"] and len(d["initial"]) != len(d["variables"]):
            raise ValueError(f"{len(d['initial'])} initial values for {len(d['variables'])} variables")
        names = {n for n, _, _ in d["params"]}
        for e in d["initial"]:
            if e:
                initial_values.parse(e, names)
        pm = PluginModel(path=path, **d)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{dp}: not a plugin descriptor ({e})") from None
    return pm


def dir_fault(d):
    """None when directory d may hold code olive loads, else why not (model_places.h's rule)."""
    try:
        st = os.stat(d)
    except OSError:
        return "no such directory"
    if not stat.S_ISDIR(st.st_mode):
        return "not a directory"
    if st.st_mode & 0o022:
        return "others than its owner can write it (chmod go-w)"
    if st.st_uid not in (os.getuid(), 0):
        return "another user owns it"
    return None


def cache_dir():
    """The model cache: $OLIVE_MODEL_CACHE, else $XDG_CACHE_HOME/olive/models, else ~/.cache/olive/models."""
    if os.environ.get("OLIVE_MODEL_CACHE"):
        return os.environ["OLIVE_MODEL_CACHE"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "olive", "models")
    return os.path.join(os.path.expanduser("~"), ".cache", "olive", "models")


def places(model_path=()):
    """[(path, where from)] in search order: model_path (dirs or .so files), OLIVE_MODEL_PATH, the cache."""
    if isinstance(model_path, (str, os.PathLike)):
        model_path = [model_path]
    out = [(os.fspath(p), "model_path") for p in model_path or ()]
    out += [(p, "OLIVE_MODEL_PATH") for p in os.environ.get("OLIVE_MODEL_PATH", "").split(":") if p]
    return out + [(cache_dir(), "the model cache")]


def find(name, digest, model_path=()):
    """The PluginModel of model name of hash digest, from the places the user chose
    (never a path written in a file); ValueError saying where it looked and what to do."""
    notes = []
    for p, origin in places(model_path):
        if os.path.isfile(p):
            pm = read_descriptor(p)
            if pm.name == name and pm.hash == digest:
                return pm
            continue
        bad = dir_fault(p)
        if bad:
            if bad != "no such directory":
                notes.append(f"{p} ({origin}) is passed over: {bad}")
            continue
        so = os.path.join(p, name + ".so")
        if not os.path.isfile(so):
            continue
        try:
            pm = read_descriptor(so)
        except ValueError as e:
            notes.append(str(e))
            continue
        if pm.name == name and pm.hash == digest:
            return pm
        notes.append(f"{so} ({origin}) is of hash {pm.hash}")
    raise ValueError(f"model {name!r} of hash {digest} is in none of the places olive loads plugins from "
                     f"(model_path, OLIVE_MODEL_PATH, the model cache)" + "".join("; " + n for n in notes) +
                     ". Build it with olive-model build MODEL.nestml (into the model cache), or give the directory "
                     "of its NAME.so with model_path=DIR or OLIVE_MODEL_PATH=DIR; olive never loads a path written "
                     "in a file")


