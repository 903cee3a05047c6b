"""The search machinery; knows nothing about scheduling."""

from __future__ import annotations

from mopt._lazy import lazy_loader
from mopt.core.errors import InputError, MoptError

#: imported on first use (PEP 562): ``import mopt.core.errors`` loads no pandas (ours)
_LAZY = {
    "utility": "mopt.core.utility",
    "FunctionProblem": "mopt.core.function_problem",
    "hypervolume": "mopt.core.pareto",
    "pareto_mask": "mopt.core.pareto",
    "StochasticProblem": "mopt.core.problem",
    "Result": "mopt.core.result",
    "ENUMERATION_LIMIT": "mopt.core.space",
}

__all__ = [
    "ENUMERATION_LIMIT",
    "FunctionProblem",
    "InputError",
    "MoptError",
    "Result",
    "StochasticProblem",
    "hypervolume",
    "pareto_mask",
    "utility",
]


__getattr__ = lazy_loader(globals(), "mopt.core", _LAZY, modules=("utility",))
