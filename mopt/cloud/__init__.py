"""Cloud scheduling on workload traces (DESIGN §6; SC13, JSSPP).

Traces are read by :mod:`mopt.workloads` (``read_swf``, ``clean``, ``load_trace``, ``fetch``,
``synthetic``); their old names here (``mopt.cloud.read_swf``, ...) still work for this release
with a ``DeprecationWarning``, as does ``mopt.cloud.koala`` (now :mod:`mopt.koala`). The simulator:
:class:`Policy` and :func:`simulate` (a compiled event loop over a copyable
:class:`~mopt.cloud.engine.CloudState`, see :mod:`mopt.cloud.engine`). The portfolio scheduler:
:func:`portfolio` (SC13's 60, JSSPP's 10 or a list of policies), :func:`simulate_portfolio` and
SC13's Algorithm 1, :class:`TimeConstrainedSelection`; mopt's own selection rule,
:class:`MoptRule` (``simulate_portfolio(..., selection="mopt")``); the walk-forward baseline,
:func:`walk_forward`; portfolio mixes as a search problem,
:class:`PortfolioProblem`. The simulator and the portfolio are
imported on first use, so that ``import mopt.cloud`` stays cheap (no Numba).
"""

from __future__ import annotations

import importlib
import sys
import types
import warnings

_LAZY = {
    "Policy": "mopt.cloud.policies", "PROVISIONING": "mopt.cloud.policies",
    "JOB_SELECTION": "mopt.cloud.policies", "VM_SELECTION": "mopt.cloud.policies",
    "VM_KEYS": "mopt.cloud.policies",
    "RUNTIMES": "mopt.cloud.policies", "sc13_policies": "mopt.cloud.policies",
    "CloudRun": "mopt.cloud.simulate", "simulate": "mopt.cloud.simulate",
    "utility": "mopt.cloud.simulate",
    "PortfolioRun": "mopt.cloud.portfolio_scheduler",
    "simulate_portfolio": "mopt.cloud.portfolio_scheduler",
    "jsspp_code": "mopt.cloud.portfolios", "portfolio": "mopt.cloud.portfolios",
    "portfolio_names": "mopt.cloud.portfolios",
    "TimeConstrainedSelection": "mopt.cloud.selection",
    "MoptRule": "mopt.cloud.selection_rules",
    "walk_forward": "mopt.cloud.walk_forward", "WalkForwardRun": "mopt.cloud.walk_forward",
    "PortfolioProblem": "mopt.cloud.portfolio_problem",
}

#: names that moved out of this package in 0.2: old name -> new module (deprecated here)
MOVED = {name: "mopt.workloads" for name in (
    "SWF_COLUMNS", "find_trace", "read_swf", "PATTERNS", "TRACES", "FetchError", "clean", "fetch",
    "load_trace", "synthetic")}
MOVED["koala"] = "mopt.koala"

__all__ = [*_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    if name in MOVED:
        new = MOVED[name]
        warnings.warn(f"mopt.cloud.{name} is deprecated; use {new if name == 'koala' else f'{new}.{name}'} "
                      "(the old name goes in the next release)", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        return module if name == "koala" else getattr(module, name)
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
