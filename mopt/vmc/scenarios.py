"""Deprecated: renamed :mod:`mopt.vmc.paper_scenarios` (this module goes in the next release)."""

from mopt.core.moved import moved_module

moved_module(__name__, "mopt.vmc.paper_scenarios")
