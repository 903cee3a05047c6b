"""``python -m mopt``: the same as the ``mopt`` command."""

import sys

from mopt.cli import main

sys.exit(main())
