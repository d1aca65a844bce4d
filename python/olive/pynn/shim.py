"""pyNN.olive as a module of the pyNN package (PyNN imports backends as pyNN.<name>)."""

import os

SHIM = ('"""pyNN.olive: written by olive.pynn.install_shim(); the backend is the olive.pynn package."""\n'
        "from olive.pynn import *  # noqa: F401,F403\n"
        "from olive.pynn import list_standard_models  # noqa: F401\n")


def install_shim(pynn_dir=None):
    """Write <site-packages>/pyNN/olive/__init__.py (importing olive.pynn); return its path."""
    if pynn_dir is None:
        import pyNN
        pynn_dir = os.path.dirname(os.path.abspath(pyNN.__file__))
    d = os.path.join(pynn_dir, "olive")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "__init__.py")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(SHIM)
    os.replace(tmp, path)
    return path
