"""Exhaustive search: every design, ``n_reps`` replications each (brute-force Monte Carlo)."""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError
from mopt.core.space import check_enumerable
from mopt.solvers.base import SearchState, Solver

__all__ = ["Exhaustive"]


class Exhaustive(Solver):
    """Every design with ``n_reps`` replications each.

    The replications follow the budget: given a ``budget`` (and no ``n_reps``), every design gets
    ``budget // n_designs`` replications, so a comparison under budgets gives exhaustive search all
    of its budget; without one, the problem's ``n_reps``.  An ``n_reps`` option caps them:
    ``min(n_reps, budget // n_designs)``.  A space above :data:`~mopt.core.space.ENUMERATION_LIMIT`
    designs is refused (search it by sampling).

    Examples
    --------
    >>> import mopt
    >>> problem = mopt.NormalProblem([1.0, 2.0, 3.0, 4.0], n_reps=10)
    >>> [mopt.solve(problem, "exhaustive", seed=1, **kw).n_evals
    ...  for kw in ({}, {"budget": 90}, {"budget": 90, "n_reps": 5})]
    [40, 88, 20]
    """

    name = "exhaustive"
    defaults = {"n_reps": None}

    def _default_budget(self, problem) -> int:
        check_enumerable(self.name, problem.n_designs)
        return problem.n_designs * self._reps(problem)

    def min_budget(self, problem) -> int:
        check_enumerable(self.name, problem.n_designs)
        self._reps(problem)
        return problem.n_designs

    def check_budget(self, problem, budget):
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
        n = state.budget // n_designs
        if self.options["n_reps"] is not None or not state.budget_given:
            n = min(self._reps(state.problem), n)
        return [(np.arange(n_designs), n)]
