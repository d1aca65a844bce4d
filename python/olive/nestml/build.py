"""`olive-model build FILE.nestml [-o DIR]`: NAME.olive.c from the NESTML
file (generator.py), compiled by the system cc into NAME.so, cached by
content hash (the .nestml text, NESTML's version, the generator's version)
in ${OLIVE_MODEL_CACHE:-~/.cache/olive/models} or DIR: NAME.so + NAME.hash.

Where nvcc is found ($OLIVE_NVCC, the PATH, $CUDA_HOME/bin or
/usr/local/cuda/bin; OLIVE_MODEL_CUDA=0 skips it) the same NAME.olive.c is
compiled by nvcc with olive's kernels (plugin_kernels.cuh) into a GPU image
(NAME.fatbin, for $OLIVE_CUDA_ARCH, default sm_90, with its PTX for later
GPUs) that the .so carries: olive-simulate --backend cuda loads it."""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

try:   # NESTML (pynestml) is no dependency of the olive package: build() names what to install
    from . import generator
    from .printer import Refused
except ImportError as e:
    generator = Refused = None
    _missing = e

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
    for part in (text, generator.nestml_version(), str(generator.GENERATOR_VERSION), numeric_solver):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def cache_dir(out):
    if out:
        return out
    return os.environ.get("OLIVE_MODEL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "olive", "models")


def _atomic_write(path, data, mode="w"):
    d = os.path.dirname(path) or "."
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, mode) as f:
        f.write(data)
    os.replace(tmp, path)


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
        text(".headers") == headers_digest()


def headers_digest():
    """olive's headers the .so and its GPU image are compiled against: a new
    olive (its kernels, exp/log, the plugin interface) builds the model again
    (the model's own hash, which network files record, stays)."""
    h = hashlib.sha256()
    for d in include_dirs():
        for f in sorted(os.listdir(d)):
            if f.endswith((".h", ".cuh")):
                with open(os.path.join(d, f), "rb") as fh:
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
    """NAME.olive.c -> NAME.fatbin.h: the GPU image as a C byte array."""
    base = csrc[:-len(".olive.c")]
    fatbin, header = base + ".fatbin", base + ".fatbin.h"
    num = arch[3:]
    cmd = [nvcc, "-x", "cu", "-fatbin", "-O3", "-std=c++17", "-fmad=false", "-Werror", "all-warnings",
           # 550 "set but never used": nvcc does not count C's (void)x as a use, as cc does
           "-diag-suppress=550", "-Xcompiler", "-Wall,-Wextra,-Werror,-ffp-contract=off", "-DOLIVE_PLUGIN_KERNELS",
           f"-gencode=arch=compute_{num},code=[sm_{num},compute_{num}]"] + \
        [f"-I{d}" for d in include_dirs()] + ["-o", fatbin + ".tmp", csrc]
    _run_compiler("nvcc", csrc, cmd, fatbin + ".tmp")
    os.replace(fatbin + ".tmp", fatbin)
    with open(fatbin, "rb") as f:
        data = f.read()
    rows = (", ".join(str(b) for b in data[i:i + 24]) for i in range(0, len(data), 24))
    _atomic_write(header, f"/* {os.path.basename(fatbin)}: nvcc's GPU image of {os.path.basename(csrc)} ({arch}) */\n"
                  "static const unsigned char olive_plugin_fatbin[] = {\n" + ",\n".join(rows) + "\n};\n")
    return header


def compile_c(csrc, so, cc=None, fatbin_header=None):
    cc = (cc or os.environ.get("CC") or "cc").split()
    tmp = so + ".tmp"
    gpu = [f'-DOLIVE_PLUGIN_FATBIN="{os.path.basename(fatbin_header)}"', f"-I{os.path.dirname(fatbin_header)}"] \
        if fatbin_header else []
    cmd = cc + CFLAGS + [f"-I{d}" for d in include_dirs()] + gpu + ["-o", tmp, csrc, "-lm"]
    _run_compiler("the C compiler", csrc, cmd, tmp)
    os.replace(tmp, so)


def need_nestml():
    if generator is None:
        raise SystemExit(f"olive-model: NESTML is not installed in this Python ({sys.executable}: {_missing}); "
                         f"install the version olive's generator is written for: pip install nestml=={NESTML_PIN} "
                         f"odetoolbox=={ODETOOLBOX_PIN} (or, in olive's checkout, pip install './python[nestml]')")


def build(path, out=None, force=False, numeric_solver="rk45"):
    """The path of the model's plugin, built unless the cache holds it."""
    need_nestml()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit(f"olive-model: {path}: cannot read it ({e.strerror})")
    digest = content_hash(path, text, numeric_solver)
    try:
        name, csrc, solver = generator.generate(path, digest, numeric_solver)
    except generator.NestmlError as e:
        raise SystemExit(str(e))
    except Refused as e:
        raise SystemExit(f"olive-model: {path}: not supported by olive yet: {e}")
    d = cache_dir(out)
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, name + ".so")
    print(f"olive-model: {name}: solver: {solver}", file=sys.stderr)
    nvcc = find_nvcc()
    gpu = cuda_arch() if nvcc else None
    if not force and cached(d, name, digest, gpu):
        return so
    c_path = os.path.join(d, name + ".olive.c")
    _atomic_write(c_path, csrc)
    header = compile_cuda(c_path, nvcc, gpu) if nvcc else None
    compile_c(c_path, so, fatbin_header=header)
    print(f"olive-model: {name}: GPU image: " + (f"{gpu} (nvcc)" if gpu else "none (no nvcc: CPU engine only)"),
          file=sys.stderr)
    gpu_file = os.path.join(d, name + ".gpu")   # the GPU image's arch, when the .so has one
    if gpu:
        _atomic_write(gpu_file, gpu + "\n")
    elif os.path.exists(gpu_file):
        os.unlink(gpu_file)
    _atomic_write(os.path.join(d, name + ".headers"), headers_digest() + "\n")
    _atomic_write(os.path.join(d, name + ".hash"), digest + "\n")
    return so


def main(argv=None):
    ap = argparse.ArgumentParser(prog="olive-model", description="NESTML models compiled for olive "
                                 f"(needs NESTML {NESTML_PIN} in this Python)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="FILE.nestml -> NAME.olive.c and NAME.so (cached by content hash)")
    b.add_argument("file")
    b.add_argument("-o", "--output", metavar="DIR", help="directory of NAME.so (default: the model cache)")
    b.add_argument("--force", action="store_true", help="build even when the cache holds it")
    b.add_argument("--numeric-solver", choices=generator.NUMERIC_SOLVERS if generator else None, default="rk45",
                   help="for the ODEs without exact propagators: rk45 (default; NEST's adaptive GSL RKF45) "
                        "or rk4 (fixed step dt)")
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10000)   # NESTML's visitors recurse deeply on ode-toolbox's expressions
    print(build(args.file, args.output, args.force, args.numeric_solver))
    return 0
