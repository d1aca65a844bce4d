"""`olive-model build FILE.mod ... | DIR [--name NAME]`: NEURON mechanisms
(NMODL) compiled for olive's cable engine, as nrnivmodl compiles a folder of
.mod files into one library.

translate.py writes NAME.olive.c (one source for the CPU and the GPU), the
system cc compiles it into NAME.so; both go with NAME.hash and a descriptor
NAME.mechs.json (the mechanisms, their parameters and variables) into the
model cache or DIR (-o), the places olive-simulate loads models from
(model_places.h: never a path written in a file). Cached by content hash:
the .mod texts and names, the NMODL parser's, sympy's and the translator's
versions.
Building .mod files needs the `nmodl` package (pip install nmodl==0.5), not
NESTML."""

import hashlib
import json
import os
import re
import sys
import tempfile
from importlib import metadata

from .. import plugin_files as plugin
from ..nestml import build as common

NMODL_PIN = "0.5"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,62}\Z")


def mod_files(paths):
    """The .mod files of paths (files, or folders as nrnivmodl takes them), in
    the order NEURON registers them: sorted by file name."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            found = [os.path.join(p, f) for f in os.listdir(p) if f.endswith(".mod")]
            if not found:
                raise SystemExit(f"olive-model: {p}: no .mod files in this folder")
            files += found
        elif os.path.isfile(p):
            if not p.endswith(".mod"):
                raise SystemExit(f"olive-model: {p}: not a .mod file")
            files.append(p)
        else:
            raise SystemExit(f"olive-model: {p}: no such file or folder")
    seen = {}
    for f in files:
        b = os.path.basename(f)
        if b in seen and os.path.realpath(seen[b]) != os.path.realpath(f):
            raise SystemExit(f"olive-model: {f} and {seen[b]}: two mechanisms files of one name")
        seen[b] = f
    return [seen[b] for b in sorted(seen)]


def nmodl_version():
    try:
        return metadata.version("NMODL")
    except metadata.PackageNotFoundError:
        raise SystemExit(f"olive-model: the NMODL framework's parser is not installed in this Python "
                         f"({sys.executable}): pip install nmodl=={NMODL_PIN} (or, in olive's checkout, "
                         f"pip install './python[nmodl]')") from None


def content_hash(files, texts):
    from . import translate
    h = hashlib.sha256()
    import sympy   # (it writes the cnexp updates' arithmetic)
    for part in [nmodl_version(), sympy.__version__, str(translate.TRANSLATOR_VERSION)] + \
            [os.path.basename(f) + "\0" + t for f, t in zip(files, texts)]:
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def build(paths, name=None, out=None, force=False, skip_unsupported=False):
    """The path of the library NAME.so, built unless the cache holds it.
    skip_unsupported: leave out the files olive cannot translate (each named
    with its reason on stderr) instead of refusing the build."""
    files = mod_files(paths)
    if name is None:
        dirs = [p for p in paths if os.path.isdir(p)]
        name = os.path.basename(os.path.normpath(dirs[0])) if len(paths) == 1 and dirs else None
        if name is None:
            raise SystemExit("olive-model: name the library of these .mod files: --name NAME")
    if not _NAME.match(name):
        raise SystemExit(f"olive-model: library name {name[:80]!r} is not a name olive takes "
                         "([A-Za-z_][A-Za-z0-9_.]*, at most 63 characters)")
    texts = []
    for f in files:
        try:
            with open(f, encoding="utf-8") as fh:
                texts.append(fh.read())
        except OSError as e:
            raise SystemExit(f"olive-model: {f}: cannot read it ({e.strerror})")
        except UnicodeDecodeError as e:
            raise SystemExit(f"olive-model: {f}: not UTF-8 text ({e.reason})")
    from . import translate
    if skip_unsupported:   # (the files kept are what the hash and the library hold)
        kept = []
        for f, t in zip(files, texts):
            try:
                translate.read(f)
                kept.append((f, t))
            except (translate.Refused, SyntaxError) as e:
                print(f"olive-model: left out: {e}", file=sys.stderr)
        if not kept:
            raise SystemExit("olive-model: no mechanism olive can translate among these files")
        files, texts = [f for f, _ in kept], [t for _, t in kept]
    digest = content_hash(files, texts)
    d = common.cache_dir(out)
    so = os.path.join(d, name + ".so")
    if not force and _cached(d, name, digest):
        return so
    mechs = []
    for f in files:
        try:
            mechs.append(translate.read(f))
        except translate.Refused as e:
            raise SystemExit(f"olive-model: {e}")
        except SyntaxError as e:
            raise SystemExit(f"olive-model: {e}")
    suffixes = {}
    for m in mechs:
        if m.suffix in suffixes:
            raise SystemExit(f"olive-model: {m.path}: SUFFIX {m.suffix} is also {suffixes[m.suffix]}'s")
        suffixes[m.suffix] = m.path
    origin = f"{', '.join(os.path.basename(f) for f in files)} (NMODL {nmodl_version()} parser, olive translator " \
             f"{translate.TRANSLATOR_VERSION})"
    try:
        csrc = translate.library_source(mechs, name, digest, origin)
    except translate.Refused as e:
        raise SystemExit(f"olive-model: {e}")
    common.ensure_dir(d)
    with common._lock(d):
        with tempfile.TemporaryDirectory(dir=d, prefix=".build-") as work:
            c_path = os.path.join(work, name + ".olive.c")
            with open(c_path, "w") as f:
                f.write(csrc)
            so_tmp = os.path.join(work, name + ".so")
            nvcc = common.find_nvcc()
            gpu = common.cuda_arch() if nvcc else None
            header = common.compile_cuda(c_path, nvcc, gpu) if nvcc else None
            common.compile_c(c_path, so_tmp, fatbin_header=header)
            desc = {"library": name, "hash": digest, "origin": origin, "abi": 1,
                    "mechanisms": [{"suffix": m.suffix, "file": os.path.basename(m.path)} for m in mechs]}
            with open(os.path.join(work, name + ".mechs.json"), "w") as f:
                json.dump(desc, f, indent=1)
                f.write("\n")
            for ext in (".olive.c", ".so", ".mechs.json"):
                os.replace(os.path.join(work, name + ext), os.path.join(d, name + ext))
            with open(os.path.join(d, name + ".gpu"), "w") as f:
                f.write((gpu or "none") + "\n")
            plugin.atomic_write(os.path.join(d, name + ".hash"), digest + "\n")   # last: until then no reader takes it
    print(f"olive-model: {name}: {len(mechs)} mechanisms ({', '.join(m.suffix for m in mechs)}); GPU image: "
          + (f"{gpu} (nvcc)" if gpu else "none (no nvcc: CPU engine only)"), file=sys.stderr)
    return so


def _cached(d, name, digest):
    """The cache holds this library, with a GPU image for OLIVE_CUDA_ARCH where
    nvcc is here (without nvcc, any: an image is not used by the CPU engine)."""
    def text(ext):
        try:
            with open(os.path.join(d, name + ext)) as f:
                return f.read().strip()
        except OSError:
            return None
    want = common.cuda_arch() if common.find_nvcc() else None
    return text(".hash") == digest and os.path.isfile(os.path.join(d, name + ".so")) and \
        text(".gpu") is not None and (want is None or text(".gpu") == want)
