"""Cloud scheduling on workload traces (DESIGN §6; SC13, JSSPP).

Traces: :func:`read_swf` reads a Standard Workload Format trace and :func:`find_trace` finds one
through ``MOPT_DATA_DIR``; :func:`clean`, :func:`load_trace` (by archive name, fetched with a
sha256 check when missing) and :func:`synthetic` (JSSPP's arrival patterns). The simulator:
:class:`Policy` and :func:`simulate` (a compiled event loop over a copyable
:class:`~mopt.cloud.engine.CloudState`, see :mod:`mopt.cloud.engine`). The portfolio scheduler:
:func:`portfolio` (SC13's 60, JSSPP's 10 or a list of policies), :func:`simulate_portfolio` and
SC13's Algorithm 1, :class:`TimeConstrainedSelection`; portfolio mixes as a search problem,
:class:`PortfolioProblem`. The simulator and the portfolio are
imported on first use, so that ``import mopt.cloud`` stays cheap (no Numba).
"""

from __future__ import annotations

import importlib
import sys
import types

from mopt.cloud.swf import SWF_COLUMNS, find_trace, read_swf
from mopt.cloud.traces import PATTERNS, TRACES, FetchError, clean, fetch, load_trace, synthetic

_LAZY = {
    "Policy": "mopt.cloud.policies", "PROVISIONING": "mopt.cloud.policies",
    "JOB_SELECTION": "mopt.cloud.policies", "VM_SELECTION": "mopt.cloud.policies",
    "RUNTIMES": "mopt.cloud.policies", "sc13_policies": "mopt.cloud.policies",
    "CloudRun": "mopt.cloud.simulate", "simulate": "mopt.cloud.simulate",
    "utility": "mopt.cloud.simulate",
    "PortfolioRun": "mopt.cloud.portfolio_scheduler",
    "simulate_portfolio": "mopt.cloud.portfolio_scheduler",
    "jsspp_code": "mopt.cloud.portfolios", "portfolio": "mopt.cloud.portfolios",
    "portfolio_names": "mopt.cloud.portfolios",
    "TimeConstrainedSelection": "mopt.cloud.selection",
    "PortfolioProblem": "mopt.cloud.portfolio_problem",
}

__all__ = [
    "SWF_COLUMNS", "find_trace", "read_swf", "PATTERNS", "TRACES", "FetchError", "clean", "fetch",
    "load_trace", "synthetic", *_LAZY,
]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mopt.cloud' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)


class _Package(types.ModuleType):
    """``mopt.cloud`` itself. Importing the submodule ``mopt.cloud.simulate`` (as ``from
    mopt.cloud.simulate import ...`` does) binds it as the package's attribute ``simulate``,
    which would then shadow the function :func:`simulate` of the same name for every later
    ``from mopt.cloud import simulate``: the function is kept instead."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _LAZY.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
