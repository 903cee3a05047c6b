"""Deprecated: moved to :mod:`mopt.workloads.traces` (this module goes in the next release)."""

import warnings

warnings.warn("mopt.cloud.traces is deprecated; use mopt.workloads.traces", DeprecationWarning, stacklevel=2)

from mopt.core.moved import moved_names  # noqa: E402
from mopt.workloads.traces import *  # noqa: E402, F403
from mopt.workloads.traces import __all__  # noqa: E402, F401

__getattr__ = moved_names(__name__, {"PATTERNS": "mopt.workloads.PATTERNS", "synthetic": "mopt.workloads.synthetic"})
