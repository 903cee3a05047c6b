"""Deprecated: moved to :mod:`mopt.workloads.swf` (this module goes in the next release)."""

import warnings

warnings.warn("mopt.cloud.swf is deprecated; use mopt.workloads.swf", DeprecationWarning, stacklevel=2)

from mopt.workloads.swf import *  # noqa: E402, F403
from mopt.workloads.swf import __all__  # noqa: E402, F401
