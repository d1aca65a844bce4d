import sys

from ..model_cli import main

sys.exit(main())
