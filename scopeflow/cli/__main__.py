"""``python -m scopeflow.cli ...`` is the ``scopeflow`` command."""

import sys

from scopeflow.cli import main

sys.exit(main())
