"""``python -m mopt.cli`` runs the ``mopt`` command (as ``python -m mopt`` does)."""

from mopt.cli import program

program()
