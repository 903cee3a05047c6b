"""Deprecated: moved to :mod:`mopt.koala` (this module goes in the next release)."""

import warnings

warnings.warn("mopt.cloud.koala is deprecated; use mopt.koala", DeprecationWarning, stacklevel=2)

from mopt.koala import *  # noqa: E402, F403
from mopt.koala import __all__  # noqa: E402, F401
