"""What a built model's content hash is made of besides the .nestml text,
readable without importing NESTML (so that a cache hit costs no NESTML import)."""

from importlib import metadata

# The generator's version: a change that changes the generated code's results
# increments it (model hashes, which network files record, change with it).
GENERATOR_VERSION = 8

NUMERIC_SOLVERS = ("rk45", "rk4")


def nestml_version():
    """The installed NESTML's version (its distribution's, which pynestml.__version__ repeats)."""
    try:
        return metadata.version("nestml")
    except metadata.PackageNotFoundError:
        import pynestml   # (an install without distribution metadata)
        return pynestml.__version__
