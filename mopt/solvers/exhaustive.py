"""Exhaustive search: every design, ``n_reps`` replications each (brute-force Monte Carlo)."""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError
from mopt.core.problem import check_reps
from mopt.core.space import check_enumerable
from mopt.solvers.base import SearchState, Solver

__all__ = ["Exhaustive"]


class Exhaustive(Solver):
    """Every design with ``n_reps`` replications (default: the problem's ``n_reps``).

    With a ``budget`` smaller than ``n_designs × n_reps``, every design gets
    ``budget // n_designs`` replications.  A space above
    :data:`~mopt.core.space.ENUMERATION_LIMIT` designs is refused (search it by sampling).
    """

    name = "exhaustive"
    defaults = {"n_reps": None}

    def _reps(self, problem) -> int:
        n = self.options["n_reps"]
        return check_reps("n_reps", problem.n_reps if n is None else n)

    def _default_budget(self, problem) -> int:
        check_enumerable(self.name, problem.n_designs)
        return problem.n_designs * self._reps(problem)

    def _min_budget(self, problem) -> int:
        check_enumerable(self.name, problem.n_designs)
        self._reps(problem)
        return problem.n_designs

    def _check(self, problem, budget):
        check_enumerable(self.name, problem.n_designs)
        self._reps(problem)
        if budget < problem.n_designs:
            raise InputError(
                f"'budget' must be >= n_designs={problem.n_designs} for method 'exhaustive'; got {budget}."
            )

    def _ask(self, state: SearchState):
        if state.spent:
            return []
        n_designs = state.problem.n_designs
        n = min(self._reps(state.problem), state.budget // n_designs)
        return [(np.arange(n_designs), n)]
