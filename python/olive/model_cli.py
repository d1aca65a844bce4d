"""`olive-model`: cell models and mechanisms compiled for olive. NESTML
models (olive.nestml: FILE.nestml) and NEURON's mechanisms (olive.nmodl:
FILE.mod ... or a folder of them, as nrnivmodl takes them) share one command
line, olive.nestml.build's; .mod files go to olive.nmodl."""

import sys

from .nestml import build as nestml_build


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    r = nestml_build.main(argv)
    if r != nestml_build.NMODL:
        return r
    import argparse
    ap = argparse.ArgumentParser(prog="olive-model")
    ap.add_argument("cmd")
    ap.add_argument("file", nargs="+")
    ap.add_argument("--name")
    ap.add_argument("-o", "--output")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--numeric-solver")
    ap.add_argument("--skip-unsupported", action="store_true")
    a = ap.parse_args(argv)
    if a.numeric_solver:
        ap.error("--numeric-solver is for NESTML models")
    from .nmodl import build as nmodl_build
    print(nmodl_build.build(a.file, a.name, a.output, a.force, a.skip_unsupported))
    return 0


if __name__ == "__main__":
    sys.exit(main())
