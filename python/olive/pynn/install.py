"""python -m olive.pynn.install: make `import pyNN.olive` work in this Python."""

import sys

from .shim import install_shim

if __name__ == "__main__":
    print(install_shim(sys.argv[1] if len(sys.argv) > 1 else None))
