"""``python -m mopt``: the same as the ``mopt`` command."""

from mopt.cli import program

program()
