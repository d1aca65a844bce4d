import sys

from .build import NMODL, main

r = main()
if r == NMODL:
    sys.exit("python -m olive.nestml builds NESTML models; NEURON's .mod files: olive-model build "
             "(python -m olive.model_cli build)")
sys.exit(r)
