"""Deprecated: moved to :mod:`mopt.koala.problem` (this module goes in the next release)."""

from mopt.core.moved import moved_module

moved_module(__name__, "mopt.koala.problem")
