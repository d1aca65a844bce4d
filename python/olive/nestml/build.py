"""`olive-model build FILE.nestml [-o DIR]`: NAME.olive.c from the NESTML
file (generator.py), compiled by the system cc into NAME.so, cached by
content hash (the .nestml text, NESTML's version, the generator's version)
in ${OLIVE_MODEL_CACHE:-~/.cache/olive/models} or DIR: NAME.so + NAME.hash."""

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


def content_hash(path, text):
    h = hashlib.sha256()
    for part in (text, generator.nestml_version(), str(generator.GENERATOR_VERSION)):
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


def cached(dirname, name, digest):
    so, hf = os.path.join(dirname, name + ".so"), os.path.join(dirname, name + ".hash")
    try:
        with open(hf) as f:
            return os.path.isfile(so) and f.read().strip() == digest
    except OSError:
        return False


def compile_c(csrc, so, cc=None):
    cc = (cc or os.environ.get("CC") or "cc").split()
    tmp = so + ".tmp"
    cmd = cc + CFLAGS + [f"-I{d}" for d in include_dirs()] + ["-o", tmp, csrc, "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise SystemExit(f"olive-model: {csrc}: the C compiler failed (a generator fault: please report it):\n"
                         + " ".join(cmd) + "\n" + r.stderr)
    os.replace(tmp, so)


def need_nestml():
    if generator is None:
        raise SystemExit(f"olive-model: NESTML is not installed in this Python ({sys.executable}: {_missing}); "
                         f"install the version olive's generator is written for: pip install nestml=={NESTML_PIN} "
                         f"odetoolbox=={ODETOOLBOX_PIN} (or, in olive's checkout, pip install './python[nestml]')")


def build(path, out=None, force=False):
    """The path of the model's plugin, built unless the cache holds it."""
    need_nestml()
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise SystemExit(f"olive-model: {path}: cannot read it ({e.strerror})")
    digest = content_hash(path, text)
    try:
        name, csrc, solver = generator.generate(path, digest)
    except generator.NestmlError as e:
        raise SystemExit(str(e))
    except Refused as e:
        raise SystemExit(f"olive-model: {path}: not supported by olive yet: {e}")
    d = cache_dir(out)
    os.makedirs(d, exist_ok=True)
    so = os.path.join(d, name + ".so")
    print(f"olive-model: {name}: solver: {solver}", file=sys.stderr)
    if not force and cached(d, name, digest):
        return so
    c_path = os.path.join(d, name + ".olive.c")
    _atomic_write(c_path, csrc)
    compile_c(c_path, so)
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
    args = ap.parse_args(argv)
    sys.setrecursionlimit(10000)   # NESTML's visitors recurse deeply on ode-toolbox's expressions
    print(build(args.file, args.output, args.force))
    return 0
