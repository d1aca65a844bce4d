"""`olive-model build FILE.nestml [-o DIR]`: NAME.olive.c from the NESTML
file (generator.py), compiled by the system cc into NAME.so, cached by
content hash (the .nestml text, NESTML's version, the generator's version)
in the model cache ($OLIVE_MODEL_CACHE, else $XDG_CACHE_HOME/olive/models,
else ~/.cache/olive/models; created 0700) or DIR: NAME.so, its descriptor
NAME.olive.json and NAME.hash (what olive reads to know the model without
loading it), NAME.olive.c.

Builds of one model may run side by side: each works in a private temporary
directory, under a lock (DIR/.lock), and moves its files in by rename;
a failed build leaves nothing behind. A cache hit needs no NESTML: the key is
the file's text, the NESTML and generator versions and the solver, looked up
in DIR/.index (content hash -> model name).

Where nvcc is found ($OLIVE_NVCC, the PATH, $CUDA_HOME/bin or
/usr/local/cuda/bin; OLIVE_MODEL_CUDA=0 skips it) the same NAME.olive.c is
compiled by nvcc into a GPU image (NAME.fatbin: the LTO-IR of the model's
cell functions, common/models/plugin_cell.h, for $OLIVE_CUDA_ARCH,
default sm_90, and later GPUs) that the .so carries: olive-simulate
--backend cuda links it into its own kernels when it loads the model, so no
code of olive's delivery is compiled into a model."""

import argparse
import contextlib
import dataclasses
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

from .. import plugin_files as plugin

from . import versions

# NESTML (pynestml) is no dependency of the olive package, and importing it
# takes seconds: the generator is imported on a cache miss only (_generator()).
generator = Refused = None
_missing = None


def _generator():
    global generator, Refused, _missing
    if generator is None and _missing is None:
        try:
            from . import generator as g
            from .printer import Refused as r
            generator, Refused = g, r
        except ImportError as e:
            _missing = e
    need_nestml()
    return generator

# The NESTML release the generator is written for (tests/python_pins.sh pins the same).
NESTML_PIN, ODETOOLBOX_PIN = "9.0.0", "3.0.0"

CFLAGS = ["-std=c11", "-O3", "-ffp-contract=off", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror"]


def include_dirs():
    """olive's headers: the installed package's olive/include, else the
    checkout's common/models and common/math around python/."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    installed = os.path.join(pkg, "include")
    if os.path.isfile(os.path.join(installed, "model_plugin.h")):
        return [installed]
    top = os.path.dirname(os.path.dirname(pkg))
    dirs = [os.path.join(top, "common", "models"), os.path.join(top, "common", "math")]
    if all(os.path.isdir(d) for d in dirs) and os.path.isfile(os.path.join(dirs[0], "model_plugin.h")):
        return dirs
    raise SystemExit(f"olive-model: olive's headers (model_plugin.h) are neither in {installed} nor in a checkout at {top}")


def content_hash(path, text, numeric_solver="rk45"):
    h = hashlib.sha256()
    for part in (text, versions.nestml_version(), str(versions.GENERATOR_VERSION), numeric_solver):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def cache_dir(out):
    return out or plugin.cache_dir()


# A model name olive-genconn and olive-simulate take (model_plugin.c's name_ok,
# synfile.c's 63 characters), and none of a built-in model.
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]{0,62}\Z")


def name_fault(name):
    from .. import models
    if not _NAME.match(name):
        return "is not a model name olive takes ([A-Za-z_][A-Za-z0-9_.]*, at most 63 characters)"
    if name in models.SPIKING_MODELS or name == models.INFOLI:
        return "is a built-in model's (rename the model)"
    return None


def ensure_dir(d):
    """d made (0700 when new) and refused when others can write it: whoever can
    write there could choose the code olive runs."""
    try:
        os.makedirs(d, mode=0o700, exist_ok=True)
    except OSError as e:
        raise SystemExit(f"olive-model: {d}: cannot create the model directory ({e.strerror})")
    bad = plugin.dir_fault(d)
    if bad:
        raise SystemExit(f"olive-model: {d}: {bad}, so olive would not load models from it")


@contextlib.contextmanager
def _lock(d):
    """An exclusive lock on DIR/.lock (the directory's, kept) for a build's check-and-write."""
    fd = os.open(os.path.join(d, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def find_nvcc():
    """nvcc's path, or None (no GPU image: the model runs on the CPU engine)."""
    if os.environ.get("OLIVE_MODEL_CUDA", "1") == "0":
        return None
    for cand in (os.environ.get("OLIVE_NVCC"), shutil.which("nvcc"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def cuda_arch():
    arch = os.environ.get("OLIVE_CUDA_ARCH", "sm_90")
    if not arch.startswith("sm_") or not arch[3:].isdigit():
        raise SystemExit(f"olive-model: OLIVE_CUDA_ARCH={arch!r}: expected sm_NN (e.g. sm_90)")
    return arch


def cached(dirname, name, digest, gpu):
    """The cache holds this model (and its GPU image where one is wanted)."""
    so = os.path.join(dirname, name + ".so")

    def text(ext):
        try:
            with open(os.path.join(dirname, name + ext)) as f:
                return f.read().strip()
        except OSError:
            return None
    return os.path.isfile(so) and text(".hash") == digest and (not gpu or text(".gpu") == gpu) and \
        text(".headers") == headers_digest() and os.path.isfile(os.path.join(dirname, name + ".olive.json"))


# The headers a model's source includes (the Makefile's PLUGIN_HEADERS, less
# lif.h, which only models written by hand use): the plugin interface and
# olive's exp/log. Nothing of the engine's: its kernels are linked at load.
MODEL_HEADERS = ("model_plugin.h", "cellmodel.h", "plugin_cell.h", "plugin_rkf45.h", "hostdev.h", "fastexp.h",
                 "fastlog.h")


def headers_digest():
    """The headers the .so and its GPU image are compiled against: a new
    plugin interface or exp/log builds the model again (the model's own
    hash, which network files record, stays); a change of olive's engine
    does not."""
    h = hashlib.sha256()
    for f in MODEL_HEADERS:
        path = next((os.path.join(d, f) for d in include_dirs() if os.path.isfile(os.path.join(d, f))), None)
        if path is None:
            raise SystemExit(f"olive-model: olive's header {f} is not in {' or '.join(include_dirs())}")
        with open(path, "rb") as fh:
            h.update(f.encode() + b"\0" + fh.read())
    return h.hexdigest()


def _run_compiler(what, csrc, cmd, tmp):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SystemExit(f"olive-model: {csrc}: {what} failed (a generator fault: please report it):\n"
                         + " ".join(cmd) + "\n" + r.stderr)


def compile_cuda(csrc, nvcc, arch):
    """NAME.olive.c -> NAME.fatbin.h: the GPU image as a C byte array: the LTO-IR
    (-dlto) of the model's cell functions (plugin_cell.h), which olive-simulate
    links into its own kernels when it loads the model."""
    base = csrc[:-len(".olive.c")]
    fatbin, header = base + ".fatbin", base + ".fatbin.h"
    num = arch[3:]
    cmd = [nvcc, "-x", "cu", "-fatbin", "-O3", "-std=c++17", "-fmad=false", "-Werror", "all-warnings",
           # 550 "set but never used": nvcc does not count C's (void)x as a use, as cc does
           "-diag-suppress=550", "-Xcompiler", "-Wall,-Wextra,-Werror,-ffp-contract=off", "-DOLIVE_PLUGIN_DEVICE",
           "-rdc=true", f"-gencode=arch=compute_{num},code=lto_{num}"] + \
        [f"-I{d}" for d in include_dirs()] + ["-o", fatbin, csrc]
    _run_compiler("nvcc", csrc, cmd, fatbin)
    with open(fatbin, "rb") as f:
        data = f.read()
    rows = (", ".join(str(b) for b in data[i:i + 24]) for i in range(0, len(data), 24))
    plugin.atomic_write(header, f"/* {os.path.basename(fatbin)}: nvcc's GPU image of {os.path.basename(csrc)} ({arch}) */\n"
                  "static const unsigned char olive_plugin_fatbin[] = {\n" + ",\n".join(rows) + "\n};\n")
    return header


def fma_flags():
    """-mfma where this CPU has FMA, as olive's Makefile builds olive itself
    (OLIVE_FMA=0: not): olive's exp and log call fma(), which is exact either
    way, so the bits are the same; one instruction instead of a call into libm."""
    if os.environ.get("OLIVE_FMA", "1") == "0":
        return []
    try:
        with open("/proc/cpuinfo") as f:
            return ["-mfma"] if re.search(r"^flags\s*:.*\bfma\b", f.read(), re.M) else []
    except OSError:
        return []


def compile_c(csrc, so, cc=None, fatbin_header=None):
    cc = (cc or os.environ.get("CC") or "cc").split()
    tmp = so   # (in the build's private directory: moved into place by build())
    gpu = [f'-DOLIVE_PLUGIN_FATBIN="{os.path.basename(fatbin_header)}"', f"-I{os.path.dirname(fatbin_header)}"] \
        if fatbin_header else []
    cmd = cc + CFLAGS + fma_flags() + [f"-I{d}" for d in include_dirs()] + gpu + ["-o", tmp, csrc, "-lm"]
    _run_compiler("the C compiler", csrc, cmd, tmp)


def need_nestml():
    if generator is None:
        raise SystemExit(f"olive-model: NESTML is not installed in this Python ({sys.executable}: {_missing}); "
                         f"install the version olive's generator is written for: pip install nestml=={NESTML_PIN} "
                         f"odetoolbox=={ODETOOLBOX_PIN} (or, in olive's checkout, pip install './python[nestml]')")


def _index_get(d, key):
    try:
        with open(os.path.join(d, ".index", key)) as f:
            return f.read().strip()
    except OSError:
        return None


def build(path, out=None, force=False, numeric_solver="rk45"):
    """The path of the model's plugin, built unless the cache holds it."""
    global _missing
    try:
        versions.nestml_version()
    except ImportError as e:
        _missing = e
        need_nestml()   # (names what to install)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit(f"olive-model: {path}: cannot read it ({e.strerror})")
    except UnicodeDecodeError as e:
        raise SystemExit(f"olive-model: {path}: not UTF-8 text ({e.reason})")
    digest = content_hash(path, text, numeric_solver)
    d = cache_dir(out)
    nvcc = find_nvcc()
    gpu = cuda_arch() if nvcc else None
    # a hit costs no NESTML parse: the index maps the content hash to the name
    known = _index_get(d, digest)
    if not force and known and not name_fault(known) and cached(d, known, digest, gpu):
        return os.path.join(d, known + ".so")
    generator = _generator()
    try:
        name, csrc, solver, initial = generator.generate(path, digest, numeric_solver)
    except generator.NestmlError as e:
        raise SystemExit(str(e))
    except Refused as e:
        raise SystemExit(f"olive-model: {path}: not supported by olive yet: {e}")
    bad = name_fault(name)
    if bad:
        raise SystemExit(f"olive-model: {path}: model name {name[:80]!r}{'...' if len(name) > 80 else ''} {bad}")
    headers_digest()   # (olive's headers are there: else the message, before anything is written)
    ensure_dir(d)
    so = os.path.join(d, name + ".so")
    print(f"olive-model: {name}: solver: {solver}", file=sys.stderr)
    with _lock(d):
        if not force and cached(d, name, digest, gpu):
            _index_put(d, digest, name)
            return so
        with tempfile.TemporaryDirectory(dir=d, prefix=".build-") as work:
            c_path = os.path.join(work, name + ".olive.c")
            with open(c_path, "w") as f:
                f.write(csrc)
            header = compile_cuda(c_path, nvcc, gpu) if nvcc else None
            so_tmp = os.path.join(work, name + ".so")
            compile_c(c_path, so_tmp, fatbin_header=header)
            pm = dataclasses.replace(plugin.describe(so_tmp), initial=initial)
            if pm.name != name or pm.hash != digest:
                raise SystemExit(f"olive-model: {path}: the built plugin holds model {pm.name} of hash {pm.hash}, "
                                 f"not {name} of {digest} (a generator fault: please report it)")
            with open(os.path.join(work, name + ".headers"), "w") as f:
                f.write(headers_digest() + "\n")
            if gpu:
                with open(os.path.join(work, name + ".gpu"), "w") as f:
                    f.write(gpu + "\n")
            elif os.path.exists(os.path.join(d, name + ".gpu")):
                os.unlink(os.path.join(d, name + ".gpu"))
            # the hash file last: until it is there, no reader takes NAME.so for this model
            for ext in (".olive.c", ".fatbin", ".fatbin.h", ".so", ".headers", ".gpu"):
                if os.path.exists(os.path.join(work, name + ext)):
                    os.replace(os.path.join(work, name + ext), os.path.join(d, name + ext))
            plugin.write_descriptor(so, pm)
        _index_put(d, digest, name)
    print(f"olive-model: {name}: GPU image: " + (f"{gpu} (nvcc)" if gpu else "none (no nvcc: CPU engine only)"),
          file=sys.stderr)
    return so


def _index_put(d, digest, name):
    os.makedirs(os.path.join(d, ".index"), mode=0o700, exist_ok=True)
    plugin.atomic_write(os.path.join(d, ".index", digest), name + "\n")


def describe(so, out=None):
    """olive-model describe PATH.so: writes NAME.olive.json and NAME.hash beside a
    plugin compiled by hand (loading it: the user names it here), or copies it
    with them into DIR."""
    if not os.path.isfile(so):
        raise SystemExit(f"olive-model: {so}: no such file")
    try:
        pm = plugin.describe(so)
    except ValueError as e:
        raise SystemExit(f"olive-model: {e}")
    bad = name_fault(pm.name)
    if bad:
        raise SystemExit(f"olive-model: {so}: model name {pm.name!r} {bad}")
    target = so
    if out:
        ensure_dir(out)
        target = os.path.join(out, pm.name + ".so")
        with _lock(out):
            fd, tmp = tempfile.mkstemp(dir=out, prefix=".tmp-")
            os.close(fd)
            shutil.copyfile(so, tmp)
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
            plugin.write_descriptor(target, pm)
    else:
        plugin.write_descriptor(target, pm)
    return target


NMODL = "nmodl"   # main()'s answer for .mod files


def main(argv=None):
    ap = argparse.ArgumentParser(prog="olive-model", description="NESTML models compiled for olive "
                                 f"(needs NESTML {NESTML_PIN} in this Python)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="FILE.nestml -> NAME.olive.c and NAME.so (cached by content hash); or NEURON "
                       "mechanisms: FILE.mod ... or a folder of them -> one library NAME.so (olive.nmodl)")
    b.add_argument("file", nargs="+")
    b.add_argument("--name", help=".mod files: the library's name (default: the folder's name)")
    b.add_argument("--skip-unsupported", action="store_true",
                   help=".mod files: leave out (and name) those olive cannot translate, instead of refusing the build")
    b.add_argument("-o", "--output", metavar="DIR", help="directory of NAME.so (default: the model cache)")
    b.add_argument("--force", action="store_true", help="build even when the cache holds it")
    b.add_argument("--numeric-solver", choices=versions.NUMERIC_SOLVERS, default="rk45",
                   help="for the ODEs without exact propagators: rk45 (default; NEST's adaptive GSL RKF45) "
                        "or rk4 (fixed step dt)")
    dsc = sub.add_parser("describe", help="PATH.so (a plugin compiled by hand) -> NAME.olive.json and NAME.hash "
                         "beside it (or, with -o DIR, a copy with them in DIR)")
    dsc.add_argument("file")
    dsc.add_argument("-o", "--output", metavar="DIR", help="copy the plugin into DIR (e.g. the model cache)")
    args = ap.parse_args(argv)
    if args.cmd == "build" and any(f.endswith(".mod") or os.path.isdir(f) for f in args.file):
        return NMODL   # (olive.model_cli builds NEURON's mechanisms: olive.nmodl)
    if args.cmd == "build" and (len(args.file) != 1 or args.name or args.skip_unsupported):
        ap.error("build: one FILE.nestml (--name and --skip-unsupported are for .mod files)")
    if args.cmd == "build":
        args.file = args.file[0]
    if args.cmd == "describe":
        print(describe(args.file, args.output))
        return 0
    sys.setrecursionlimit(10000)   # NESTML's visitors recurse deeply on ode-toolbox's expressions
    print(build(args.file, args.output, args.force, args.numeric_solver))
    return 0
