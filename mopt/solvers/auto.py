"""``method="auto"``: the method and options chosen from the budget, the number of designs and the
number of objectives, by a rule measured on the peers suite (``figures/peers_suite.md``).

The rule (:func:`choose`; the measurements behind it are on the docs' methods page):

* several objectives, any budget: ``screen`` — one replication on as many designs as the budget
  allows, then elimination on common replications (:mod:`mopt.solvers.screen`); on every instance
  of the suite and every budget from 2 % to 50 % of exhaustive search's, its hypervolume ratio was
  the best of mopt's methods and of the peers;
* one objective and at least two replications per design: ``ocba`` with ``n0 = 2`` (Chen & Lee's
  allocation selects the best of many designs with the fewest replications once every design can
  be seen twice);
* one objective below that: ``screen``.

``Result.info["auto"]`` records the choice: ``method``, ``options`` and ``why``.
"""

from __future__ import annotations

from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, Solver, resolve_utility
from mopt.solvers.ocba import OCBA
from mopt.solvers.screen import Screen

__all__ = ["Auto", "choose"]


def choose(n_designs: int, n_obj: int, budget: int | None, *, utility=None) -> tuple[str, dict, str]:
    """(method, options, why) for a problem of ``n_designs`` designs and ``n_obj`` objectives and
    ``budget`` replications (None: the method's default)."""
    per = None if budget is None else budget / n_designs
    if n_obj == 1 and n_designs <= ENUMERATION_LIMIT and (per is None or per >= 2):
        options = {"n0": 2} if utility is None else {"n0": 2, "utility": utility}
        return "ocba", options, ("one objective and at least two replications per design "
                                 f"({'the default budget' if per is None else f'{per:.3g} per design'}): "
                                 "OCBA selects the best with n0 = 2")
    options = {} if utility is None else {"utility": utility}
    seen = ("every design once, the rest by elimination" if per is None or per >= 1 / 0.8 else
            f"{per:.3g} replications per design: one on as many designs as the budget allows")
    return "screen", options, f"{n_obj} objective{'s' if n_obj > 1 else ''}, {seen} (screen)"


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
        self.inner = {"ocba": OCBA, "screen": Screen}[method](**options)
        return self.inner

    def _default_budget(self, problem) -> int:
        return self._pick(problem, None)._default_budget(problem)

    def min_budget(self, problem) -> int:
        return self._pick(problem, None).min_budget(problem)

    def check_budget(self, problem, budget: int) -> None:
        self._pick(problem, budget).check_budget(problem, budget)

    def _ask(self, state: SearchState):
        return self.inner._ask(state)

    def _info(self, state: SearchState) -> dict:
        return {**self.inner._info(state), "auto": dict(self.choice)}
