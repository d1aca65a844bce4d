"""The run-time environment of olive's programs and libolive where they came in a wheel (`make wheel`).

Such a wheel carries Open MPI's run-time files in olive/mpi/ (components, help texts, parameters; the
libraries themselves in olive.libs/, vendored by auditwheel) and may find CUDA's device linker in pip's
nvidia-nvjitlink package. Open MPI is told where its files lie, and to run a one-process job without its
orted daemon (the wheel is for one node: one rank, threads and one GPU). A package built from source
(no olive/mpi/) changes nothing: the system's Open MPI finds its own files.
"""

import ctypes
import os
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def mpi_dir():
    """The wheel's Open MPI run-time folder, or None for a source build."""
    d = _HERE / "mpi"
    return d if (d / "lib" / "openmpi").is_dir() else None


def nvjitlink_dir():
    """The folder of pip's libnvJitLink (nvidia-nvjitlink: nvidia/cu13/lib for CUDA 13, nvidia/nvjitlink/lib
    for 12), through which the CUDA engine links each model into its kernels; None where it is not installed."""
    try:
        import nvidia   # noqa: PLC0415 (a namespace package of NVIDIA's wheels: `pip install olive[cuda]`)
    except ImportError:
        return None
    for root in list(getattr(nvidia, "__path__", [])):
        for lib in sorted(Path(root).glob("*/lib/libnvJitLink.so.*")):
            return lib.parent
    return None


def _ours(binary):
    """Whether binary (a program or libolive) is this package's own copy, linked to the wheel's Open MPI."""
    try:
        return Path(binary).resolve().is_relative_to(_HERE)
    except (OSError, ValueError):
        return False


def environment(binary, env=None):
    """env (default os.environ) with what binary, one of the wheel's programs, needs added; a copy, the
    caller's left as it was. A program from elsewhere (OLIVE_BIN, a checkout) gets the Open MPI it was
    built with, the system's: nothing of the wheel's is pointed at."""
    env = dict(os.environ if env is None else env)
    mpi = mpi_dir()
    if mpi is not None and _ours(binary):
        env.setdefault("OPAL_PREFIX", str(mpi))
        env.setdefault("OPAL_PKGLIBDIR", str(mpi / "lib" / "openmpi"))
        env.setdefault("OPAL_PKGDATADIR", str(mpi / "share" / "openmpi"))
        env.setdefault("OPAL_SYSCONFDIR", str(mpi / "etc"))
        env.setdefault("OMPI_MCA_ess_singleton_isolated", "1")
    nj = nvjitlink_dir()
    if nj is not None:
        paths = [p for p in env.get("LD_LIBRARY_PATH", "").split(":") if p]
        if str(nj) not in paths:
            env["LD_LIBRARY_PATH"] = ":".join([str(nj)] + paths)
    return env


def prepare_process(library):
    """For libolive (the file library) in this process (olive.Simulation): Open MPI's variables set here
    before MPI_Init reads them, and nvJitLink loaded by its path (LD_LIBRARY_PATH is read once, at a
    process's start)."""
    for k, v in environment(library).items():
        if os.environ.get(k) != v and k != "LD_LIBRARY_PATH":
            os.environ[k] = v
    nj = nvjitlink_dir()
    if nj is not None:
        for lib in sorted(nj.glob("libnvJitLink.so.*")):
            ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
            break
