"""``python -m mopt.cli`` runs the ``mopt`` command (as ``python -m mopt`` does)."""

import sys

from mopt.cli import main

sys.exit(main())
