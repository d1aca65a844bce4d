"""olive's programs built into the wheel by the repository's Makefile.

build_py runs `make install` of the C sources (the repository around this
folder, or csrc/ in an sdist) with BUILD and DESTDIR in a temporary folder,
against the system's MPI and HDF5, and copies the four programs into
olive/bin/; the Makefile stays the one build recipe. Without CUDA unless
asked (CUDA=1: the CUDA engine, where nvcc is found: many minutes more on a
small machine). Its variables come from the environment as with `make` (CC=mpicc,
HDF5_DIR=..., MAKEFLAGS=-j2); a missing system package stops the build with
the Makefile's message naming it. OLIVE_BUILD_PROGRAMS=0 makes a pure-Python
wheel without programs (they are then found on PATH or in a checkout's build/bin).
The sdist carries the C sources in csrc/.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import setuptools

# pyproject.toml's build requirement, said plainly where pip did not install
# it (--no-build-isolation with an older setuptools, e.g. Debian 12's 66)
_NEED = (77,)
_have = tuple(int(x) for x in setuptools.__version__.split(".")[:1] if x.isdigit())
if _have < _NEED:
    sys.exit(f"olive's Python package needs setuptools >= {'.'.join(map(str, _NEED))} to build; this Python "
             f"({sys.executable}) has setuptools {setuptools.__version__}. Install it first "
             f"(pip install 'setuptools>=77'), or build without --no-build-isolation (pip then fetches it).")

from setuptools import Distribution as _Distribution, setup  # noqa: E402
from setuptools.command.bdist_wheel import bdist_wheel as _bdist_wheel  # noqa: E402
from setuptools.command.build_py import build_py as _build_py  # noqa: E402
from setuptools.command.sdist import sdist as _sdist  # noqa: E402
from setuptools.errors import ExecError  # noqa: E402

HERE = Path(__file__).resolve().parent
PROGRAMS = ("genconn", "disperse", "simulate", "analyze")
# What `make install` reads besides the sources: the docs and examples it installs.
C_TREE = ("Makefile", "LICENSE", "README.md", "CITATION.cff", "common", "tools", "docs", "examples", "scripts")


def with_programs():
    return os.environ.get("OLIVE_BUILD_PROGRAMS", "1") != "0"


def c_tree():
    """The folder holding olive's Makefile and C sources: an sdist's csrc/, or the checkout around python/."""
    for d in (HERE / "csrc", HERE.parent):
        if (d / "Makefile").is_file() and (d / "common").is_dir() and (d / "tools").is_dir():
            return d
    raise ExecError(f"olive: no C sources next to {HERE} (neither ../Makefile nor csrc/): build from the "
                    "repository or its sdist, or set OLIVE_BUILD_PROGRAMS=0 for the Python part alone")


def need(tool, package, why):
    if not shutil.which(tool):
        raise ExecError(f"olive: {tool} not found ({why}): apt-get install {package}")


def preflight():
    """The tools make needs before it can say what else is missing."""
    need("make", "make", "it builds olive's programs")
    cc = (os.environ.get("CC") or "cc").split()[0]
    need(cc, "build-essential", "the C compiler, CC")
    if not os.environ.get("HDF5_DIR"):
        need(os.environ.get("PKG_CONFIG") or "pkg-config", "pkg-config", "it finds MPI and HDF5; or set HDF5_DIR and CC=mpicc")


def run_make(cmd):
    """Run make, its output passed on; its 'olive: ...' messages (a missing package) raised as the error."""
    print("olive: building the programs:", " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, errors="replace")
    said = []
    for line in proc.stderr:
        sys.stderr.write(line)
        if line.startswith("olive: "):
            said.append(line.strip())
    if proc.wait() != 0:
        raise ExecError("\n".join(said) if said else
                        f"olive: make failed (exit status {proc.returncode}) building the programs: see its output above")


def build_programs(dest):
    """The four programs, built by the Makefile in a temporary folder, copied into dest (and the plugin headers
    `make install` puts in include/olive into dest's sibling include/)."""
    src = c_tree()
    preflight()
    with tempfile.TemporaryDirectory(prefix="olive-build-") as tmp:
        # OLIVE_BUILD_DIR: an existing build folder to build in (`make wheel` passes its own, so that the
        # objects `make` built, the CUDA engine's among them, are not built again)
        build = os.environ.get("OLIVE_BUILD_DIR") or f"{tmp}/build"
        cmd = ["make", "-C", str(src), f"BUILD={build}", "PREFIX=/olive", f"DESTDIR={tmp}/stage", "MAN=0", "install"]
        if "CUDA" not in os.environ and not os.environ.get("OLIVE_BUILD_DIR"):
            cmd.append("CUDA=0")   # (the CUDA engine when asked: CUDA=1 pip install ...)
        if "-j" not in os.environ.get("MAKEFLAGS", ""):
            cmd.append(f"-j{len(os.sched_getaffinity(0))}")
        run_make(cmd)
        dest.mkdir(parents=True)
        for p in PROGRAMS:
            shutil.copy2(Path(tmp, "stage", "olive", "bin", f"olive-{p}"), dest / f"olive-{p}")
        # libolive, for olive.Simulation: olive/lib
        lib = dest.parent / "lib"
        shutil.rmtree(lib, ignore_errors=True)
        lib.mkdir()
        shutil.copy2(Path(tmp, "stage", "olive", "lib", "libolive.so"), lib / "libolive.so")
        # the headers cell-model plugins are compiled against (olive-model build): olive/include
        inc = dest.parent / "include"
        shutil.rmtree(inc, ignore_errors=True)
        shutil.copytree(Path(tmp, "stage", "olive", "include", "olive"), inc)


# Open MPI's components that a one-node wheel can do without and that would bring libraries of their own
# (UCX, libfabric, verbs, PSM, PMIx, OpenSHMEM, netlink): left out, so that Open MPI does not try them.
MPI_COMPONENTS_LEFT_OUT = ("ucx", "ofi", "openib", "verbs", "psm", "pmix_ext", "pmix_flux", "oshmem", "spml",
                           "sshmem", "memheap", "scoll", "atomic", "netlink")


def ompi_path(name):
    out = subprocess.run(["ompi_info", "--parsable", "--path", name], capture_output=True, text=True, check=True)
    return Path(out.stdout.strip().split(":", 2)[2])


def vendor_mpi_runtime(dest):
    """OLIVE_VENDOR_MPI=1 (`make wheel`): the files Open MPI opens at run time (its components, help texts and
    parameters file) into dest, so that the wheel's programs run where no Open MPI is installed; auditwheel
    then vendors the libraries they need. olive/runtime.py points Open MPI at them."""
    need("ompi_info", "openmpi-bin", "it says where Open MPI's run-time files lie")
    comp = dest / "lib" / "openmpi"
    comp.mkdir(parents=True)
    for f in sorted(ompi_path("pkglibdir").glob("mca_*.so")):
        if not any(word in f.name for word in MPI_COMPONENTS_LEFT_OUT):
            shutil.copy2(f, comp / f.name)
    shutil.copytree(ompi_path("pkgdatadir"), dest / "share" / "openmpi",
                    ignore=shutil.ignore_patterns("*.pc", "*-wrapper-data.txt", "amca-param-sets"))
    (dest / "etc").mkdir()
    (dest / "etc" / "openmpi-mca-params.conf").write_text(
        "# olive's wheel: one node; the transports left out are not tried\nbtl_base_warn_component_unused = 0\n")


class build_py(_build_py):
    def run(self):
        super().run()
        dest = Path(self.build_lib, "olive", "bin")
        shutil.rmtree(dest, ignore_errors=True)   # never a program left from an earlier build
        shutil.rmtree(dest.parent / "lib", ignore_errors=True)
        shutil.rmtree(dest.parent / "mpi", ignore_errors=True)
        if with_programs() and not self.editable_mode:
            build_programs(dest)
            if os.environ.get("OLIVE_VENDOR_MPI") == "1":
                vendor_mpi_runtime(dest.parent / "mpi")


class Distribution(_Distribution):
    """With programs, native code: the wheel is not pure and its root is platlib."""

    def has_ext_modules(self):
        return with_programs()


class bdist_wheel(_bdist_wheel):
    """With programs the wheel is for this platform, any Python 3 (they are no Python extension)."""

    def get_tag(self):
        tag = super().get_tag()
        return ("py3", "none", tag[2]) if with_programs() else tag


class sdist(_sdist):
    """The sdist with the C sources in csrc/, so that a wheel can be built from it alone."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        src = c_tree()
        skip = shutil.ignore_patterns("__pycache__", "*.o", "*.pyc")
        for name in C_TREE:
            s, d = src / name, Path(base_dir, "csrc", name)
            if s.is_dir():
                shutil.copytree(s, d, ignore=skip)
            else:
                d.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(s, d)


setup(distclass=Distribution, cmdclass={"build_py": build_py, "bdist_wheel": bdist_wheel, "sdist": sdist})
