"""mopt: multi-objective search over scheduling strategies estimated by stochastic simulation."""

from __future__ import annotations

import mopt._numba_cache  # noqa: F401 - numba's cache in step with the sources (after upgrades)

# first (it runs on import): a signal while the `mopt` program imports numpy, pandas and numba
# ends it in one line
import mopt._startup  # noqa: F401

# ``mopt.compare`` is the function (the module stays importable through ``from mopt.compare
# import ...`` and ``importlib.import_module``); cheap: numpy and pandas only, no numba
from mopt.compare import compare
from mopt.core import utility
from mopt.core.errors import InputError, MoptError, SimulationError
from mopt.core.function_problem import FunctionProblem
from mopt.core.interop import pymoo_operators
from mopt.core.pareto import hypervolume, pareto_mask
from mopt.core.problem import StochasticProblem
from mopt.core.result import Result
from mopt.core.synthetic import NormalProblem
from mopt.solvers import METHODS, refine, solve
from mopt.suite import suite  # the function; the module stays importable as for compare

__version__ = "0.2.0"

__all__ = [
    "METHODS",
    "FunctionProblem",
    "InputError",
    "MoptError",
    "NormalProblem",
    "Result",
    "SimulationError",
    "StochasticProblem",
    "compare",
    "hypervolume",
    "pareto_mask",
    "pymoo_operators",
    "refine",
    "solve",
    "suite",
    "utility",
]


def __getattr__(name: str):
    # problem families are imported on first use (they compile simulators with numba)
    if name in ("expert", "vmc"):
        import importlib

        return importlib.import_module(f"mopt.{name}")
    raise AttributeError(f"module 'mopt' has no attribute {name!r}")
