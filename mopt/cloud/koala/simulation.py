"""Deprecated: moved to :mod:`mopt.koala.simulation` (this module goes in the next release)."""

from mopt.core.moved import moved_module

moved_module(__name__, "mopt.koala.simulation")
