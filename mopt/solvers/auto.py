"""``method="auto"``: the method and options chosen from the budget, the number of designs and the
number of objectives, by a rule measured on the peers suite (``figures/peers_suite.md``).

The rule (:func:`choose`; the measurements behind it are on the docs' methods page):

* one objective and at least two replications per design: ``ocba`` with ``n0 = 2`` (Chen & Lee's
  allocation selects the best of many designs with the fewest replications once every design can
  be seen twice);
* three or more objectives and at least one replication per design: a large share of the designs
  is non-dominated (38 % of the KOALA-C instance's after one look), so one look eliminates nothing
  and breadth stops paying: ``ocba`` with ``n0 = 2`` from two replications per design (its
  utility, when one is given, is what P(correct selection) is scored on), ``mocba`` with
  ``n0 = 2`` on a sample of ``budget // 4`` designs between one and two;
* otherwise — two objectives at any budget, or any number below one replication per design, or a
  space too large to enumerate — ``screen``: one replication on as many designs as the budget
  allows, then elimination on common replications (:mod:`mopt.solvers.screen`).

``Result.info["auto"]`` records the choice: ``method``, ``options`` and ``why``.
"""

from __future__ import annotations

from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, Solver, resolve_utility
from mopt.solvers.mocba import MOCBA
from mopt.solvers.ocba import OCBA
from mopt.solvers.screen import Screen

__all__ = ["Auto", "choose"]


def choose(n_designs: int, n_obj: int, budget: int | None, *, utility=None) -> tuple[str, dict, str]:
    """(method, options, why) for a problem of ``n_designs`` designs and ``n_obj`` objectives and
    ``budget`` replications (None: the method's default, exhaustive search's)."""
    per = None if budget is None else budget / n_designs
    said = "the default budget" if per is None else f"{per:.3g} replications per design"
    util = {} if utility is None else {"utility": utility}
    enumerable = n_designs <= ENUMERATION_LIMIT
    if enumerable and n_obj == 1 and (per is None or per >= 2):
        return "ocba", {"n0": 2, **util}, f"one objective, {said}: OCBA selects the best with n0 = 2"
    if enumerable and n_obj >= 3 and (per is None or per >= 1):
        if per is None or per >= 2:
            return "ocba", {"n0": 2, **util}, (
                f"{n_obj} objectives, {said}: many designs are non-dominated, so single looks cannot "
                "eliminate; OCBA with n0 = 2 on every design")
        return "mocba", {"n0": 2, "sample": max(2, int(budget) // 4)}, (
            f"{n_obj} objectives, {said}: MOCBA with n0 = 2 on a sample of budget // 4 designs")
    seen = ("every design once, the rest by elimination" if per is None or per >= 1 / 0.8 else
            "one replication on as many designs as the budget allows")
    return "screen", util, f"{n_obj} objective{'s' if n_obj > 1 else ''}, {said}: {seen}"


class Auto(Solver):
    """The method :func:`choose` picks for the problem and budget, run with its options; the option
    ``utility`` goes to OCBA when it is chosen."""

    name = "auto"
    defaults = {"utility": None}

    def _pick(self, problem, budget) -> Solver:
        if self.options["utility"] is not None:
            resolve_utility(problem, self.options["utility"])  # checked whichever method is chosen
        method, options, why = choose(problem.n_designs, problem.n_obj, budget, utility=self.options["utility"])
        self.choice = {"method": method, "options": {k: v for k, v in options.items() if k != "utility"},
                       "why": why}
        self.inner = {"ocba": OCBA, "mocba": MOCBA, "screen": Screen}[method](**options)
        return self.inner

    def _default_budget(self, problem) -> int:
        return self._pick(problem, None)._default_budget(problem)

    def min_budget(self, problem) -> int:
        """1: below what the other choices need, ``choose`` picks screen, which runs with any budget."""
        self._pick(problem, 1)
        return self.inner.min_budget(problem)

    def check_budget(self, problem, budget: int) -> None:
        self._pick(problem, budget).check_budget(problem, budget)

    def _ask(self, state: SearchState):
        return self.inner._ask(state)

    def _info(self, state: SearchState) -> dict:
        return {**self.inner._info(state), "auto": dict(self.choice)}
