"""Blind pick: a uniformly random fraction ``alpha`` (or number ``sample``) of the designs, ``n_reps``
replications each."""

from __future__ import annotations

import math

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.problem import check_reps
from mopt.core.space import check_enumerable
from mopt.solvers.base import SearchState, Solver

__all__ = ["BlindPick"]


class BlindPick(Solver):
    """Simulate ``ceil(alpha · n_designs)`` designs (or ``sample`` designs) drawn uniformly without
    replacement (fewer if the budget allows fewer), ``n_reps`` replications each.

    On a space above :data:`~mopt.core.space.ENUMERATION_LIMIT` designs, give a ``budget`` (or a
    ``sample``) that keeps the designs simulated below the limit.
    """

    name = "blind_pick"
    defaults = {"alpha": 0.1, "n_reps": None, "sample": None}

    def _reps(self, problem) -> int:
        n = self.options["n_reps"]
        return check_reps("n_reps", problem.n_reps if n is None else n)

    def _count(self, problem) -> int:
        if self.options["sample"] is not None:
            if "alpha" in self.given:
                raise InputError("give 'alpha' (a fraction of the designs) or 'sample' (a number of them), "
                                 "not both.")
            return check_int("sample", self.options["sample"], low=1, high=problem.n_designs)
        alpha = check_number("alpha", self.options["alpha"], low=0, high=1, low_open=True)
        return max(1, math.ceil(alpha * problem.n_designs))

    def _default_budget(self, problem) -> int:
        count = self._count(problem)
        check_enumerable(self.name, count, "without a budget simulates ceil(alpha·n_designs) designs")
        return count * self._reps(problem)

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
        check_enumerable(self.name, min(self._count(problem), budget // n), "with this budget simulates")

    def _ask(self, state: SearchState):
        if state.spent:
            return []
        n = self._reps(state.problem)
        count = min(self._count(state.problem), state.budget // n)
        picked = state.problem.sample_designs(state.rng, count)
        return [(picked, n)]
