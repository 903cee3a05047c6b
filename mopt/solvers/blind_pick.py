"""Blind pick: a uniformly random fraction ``alpha`` (or number ``sample``) of the designs, or as
many as a budget pays for, ``n_reps`` replications each."""

from __future__ import annotations

from mopt.core.errors import InputError
from mopt.core.space import check_enumerable
from mopt.solvers.base import SearchState, Solver

__all__ = ["BlindPick"]


class BlindPick(Solver):
    """Simulate designs drawn uniformly without replacement, ``n_reps`` replications each: with a
    ``budget``, as many as it pays for (``budget // n_reps``, at most every design), so that blind
    pick spends what the methods it is compared with spend; without one, ``ceil(alpha · n_designs)``.
    ``sample`` fixes the number of designs either way (a budget then caps it).

    Examples
    --------
    >>> import mopt
    >>> problem = mopt.NormalProblem([[float(i)] for i in range(100)], sd=1.0, n_reps=10)
    >>> mopt.solve(problem, "blind_pick", budget=600, seed=1).n_evals  # 60 designs, not alpha's 10
    600
    >>> mopt.solve(problem, "blind_pick", seed=1).n_evals  # alpha = 0.1: 10 designs
    100

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
        check_enumerable(self.name, self._count(problem, budget, budget_given=True), "with this budget simulates")

    def _count(self, problem, budget: int, budget_given: bool) -> int:
        """Designs to draw: ``sample``, else as many as a given budget pays for, else alpha's."""
        n = self._reps(problem)
        if budget_given and self.options["sample"] is None:
            return min(problem.n_designs, budget // n)
        return min(self._sample_size(problem), budget // n)

    def _ask(self, state: SearchState):
        if state.spent:
            return []
        n = self._reps(state.problem)
        count = self._count(state.problem, state.budget, state.budget_given)
        picked = state.problem.sample_designs(state.rng, count)
        return [(picked, n)]
