"""Blind pick: a uniformly random fraction ``alpha`` of the designs, ``n_reps`` replications each."""

from __future__ import annotations

import math

from mopt.core.errors import InputError, check_number
from mopt.core.problem import check_reps
from mopt.solvers.base import SearchState, Solver

__all__ = ["BlindPick"]


class BlindPick(Solver):
    """Simulate ``ceil(alpha · n_designs)`` designs drawn without replacement (fewer if the budget
    allows fewer), ``n_reps`` replications each."""

    name = "blind_pick"
    defaults = {"alpha": 0.1, "n_reps": None}

    def _reps(self, problem) -> int:
        n = self.options["n_reps"]
        return check_reps("n_reps", problem.n_reps if n is None else n)

    def _count(self, problem) -> int:
        alpha = check_number("alpha", self.options["alpha"], low=0, high=1, low_open=True)
        return max(1, math.ceil(alpha * problem.n_designs))

    def _default_budget(self, problem) -> int:
        return self._count(problem) * self._reps(problem)

    def _min_budget(self, problem) -> int:
        self._count(problem)
        return self._reps(problem)

    def _check(self, problem, budget):
        n = self._reps(problem)
        self._count(problem)
        if budget < n:
            raise InputError(
                f"'budget' must be >= n_reps={n} for method 'blind_pick' (one design); got {budget}."
            )

    def _ask(self, state: SearchState):
        if state.spent:
            return []
        n = self._reps(state.problem)
        count = min(self._count(state.problem), state.budget // n)
        picked = state.rng.choice(state.problem.n_designs, size=count, replace=False)
        return [(picked, n)]
