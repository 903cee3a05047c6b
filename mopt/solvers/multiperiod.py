"""Deprecated: renamed :mod:`mopt.solvers.evolutionary_oo` (this module goes in the next release)."""

from mopt.core.moved import moved_module

moved_module(__name__, "mopt.solvers.evolutionary_oo")
