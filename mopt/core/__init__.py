"""The search machinery; knows nothing about scheduling."""

from __future__ import annotations

from mopt.core import utility
from mopt.core.errors import InputError, MoptError
from mopt.core.function_problem import FunctionProblem
from mopt.core.pareto import hypervolume, pareto_mask
from mopt.core.problem import StochasticProblem
from mopt.core.result import Result
from mopt.core.space import ENUMERATION_LIMIT

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
