"""Blind pick: a uniformly random fraction ``alpha`` (or number ``sample``) of the designs, ``n_reps``
replications each."""

from __future__ import annotations

from mopt.core.errors import InputError
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

    def _default_budget(self, problem) -> int:
        count = self._sample_size(problem)
        check_enumerable(self.name, count, "without a budget simulates ceil(alpha·n_designs) designs")
        return count * self._reps(problem)

    def min_budget(self, problem) -> int:
        self._sample_size(problem)
        return self._reps(problem)

    def check_budget(self, problem, budget):
        n = self._reps(problem)
        self._sample_size(problem)
        if budget < n:
            raise InputError(
                f"'budget' must be >= n_reps={n} for method 'blind_pick' (one design); got {budget}."
            )
        check_enumerable(self.name, min(self._sample_size(problem), budget // n), "with this budget simulates")

    def _ask(self, state: SearchState):
        if state.spent:
            return []
        n = self._reps(state.problem)
        count = min(self._sample_size(state.problem), state.budget // n)
        picked = state.problem.sample_designs(state.rng, count)
        return [(picked, n)]
