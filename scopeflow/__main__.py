"""``python -m scopeflow ...`` is the ``scopeflow`` command (``python -m scopeflow run
prog.py``)."""

import sys

from scopeflow.cli import main

sys.exit(main())
