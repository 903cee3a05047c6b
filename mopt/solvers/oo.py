"""Ordinal optimisation, horse-race selection (Ho, Zhao & Jia 2007; Zhang et al. 2014, §II.B).

A rough model (``n_rough`` replications) orders ``u`` designs — all of them, or a uniform sample (a
fraction ``alpha``, or ``sample`` designs, the way to search a space too large to enumerate) — and the top ``s`` of that rough order are re-estimated with the accurate
model (``n_accurate`` replications in all, the rough ones reused).  With one objective, or with a
``utility``, the rough order is by score; with several objectives it is by non-dominated rank (the
rough front first, then the next layer, ...), the last layer that fits being cut by crowding
distance (most isolated first) and then by design index.

Goal softening: OO does not promise the best design, only that the selected set S holds some of
the truly good-enough set G.  Given the true means (``truth``), ``info["alignment"]`` reports
|S ∩ G| with G the true top-``g`` designs in the same order (for several objectives without a
utility, G is the union of the first true layers, taken whole, until it holds at least ``g`` designs).
"""

from __future__ import annotations

import math

import numpy as np

from mopt.core.errors import InputError, check_int
from mopt.core.problem import check_reps
from mopt.core.space import check_enumerable
from mopt.solvers.base import SearchState, Solver, resolve_utility, utility_scores

__all__ = ["OO", "rough_order"]


def _layers(F: np.ndarray) -> list[np.ndarray]:
    # pymoo on first use: its import is slow
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    return NonDominatedSorting().do(np.asarray(F, dtype=float), sort_by_objectives=False)


def rough_order(F, utility_scores_=None) -> np.ndarray:
    """Positions of the rows of ``F`` (n, n_obj) from best to worst: by ``utility_scores_`` if given
    (ties by position), else by non-dominated layer, then crowding distance (descending), then position."""
    F = np.asarray(F, dtype=float)
    if utility_scores_ is not None or F.shape[1] == 1:
        key = np.asarray(utility_scores_ if utility_scores_ is not None else F[:, 0], dtype=float)
        return np.lexsort((np.arange(len(key)), np.where(np.isnan(key), np.inf, key)))
    from pymoo.operators.survival.rank_and_crowding.metrics import calc_crowding_distance

    order = []
    for layer in _layers(F):
        layer = np.sort(layer)
        crowd = calc_crowding_distance(F[layer]) if len(layer) > 2 else np.full(len(layer), np.inf)
        order.extend(layer[np.lexsort((layer, -crowd))].tolist())
    return np.array(order, dtype=np.int64)


def good_enough_set(truth: np.ndarray, g: int, scores=None) -> np.ndarray:
    """The true top-``g`` designs (see the module's note on goal softening)."""
    if scores is not None or truth.shape[1] == 1:
        return rough_order(truth, scores)[:g]
    out: list[int] = []
    for layer in _layers(truth):
        if len(out) >= g:
            break
        out.extend(layer.tolist())
    return np.array(sorted(out), dtype=np.int64)


class OO(Solver):
    """Horse-race ordinal optimisation.

    Parameters
    ----------
    n_rough : int, default 2
        Replications of the rough model.
    n_accurate : int or None
        Replications of a selected design in all (None: the problem's ``n_reps``; ≥ ``n_rough``).
    s : int or None
        Size of the selected set (None: with a ``budget``, the rough model gets at most half of it
        and ``s`` is what the rest pays for; without one, 5 % of the designs, at least 1).  At most
        the number of designs the rough model orders.
    alpha : float in (0, 1], default 1
        Fraction of the designs the rough model orders (a uniform sample when < 1).  A budget too
        small for the rough model over all of them shrinks the sample.
    sample : int or None
        Instead of ``alpha``, the number of designs the rough model orders (a uniform sample; with
        no ``s`` and no budget, ``s`` is 5 % of it).  A space above
        :data:`~mopt.core.space.ENUMERATION_LIMIT` designs needs ``sample`` (or a tiny ``alpha``).
    utility : None, objective name or callable
        Rank by this score instead of by non-dominated rank.
    truth : array (n_designs, n_obj) or None, and g : int or None
        True means, to report goal softening (``info["alignment"]``, G = true top-``g``, default ``s``).
    """

    name = "oo"
    defaults = {"n_rough": 2, "n_accurate": None, "s": None, "alpha": 1.0, "utility": None,
                "truth": None, "g": None, "sample": None}

    # -- options ----------------------------------------------------------------------------------
    def _reps(self, problem):
        n_rough = check_reps("n_rough", self.options["n_rough"])
        acc = self.options["n_accurate"]
        # n_accurate defaults to the problem's n_reps (named as such when it is bad)
        if acc is None:
            n_acc = check_reps("n_reps", problem.n_reps)
            what = "the problem's 'n_reps' (the default 'n_accurate')"
        else:
            n_acc, what = check_reps("n_accurate", acc), "'n_accurate'"
        if n_acc < n_rough:
            raise InputError(f"{what} must be >= n_rough={n_rough} (the rough replications are "
                             f"reused); got {n_acc}.")
        return n_rough, n_acc

    def _u_max(self, problem):
        u = self._sample_size(problem)
        check_enumerable(self.name, u, "orders every design with its rough model" if u == problem.n_designs
                         else "orders ceil(alpha·n_designs) designs with its rough model")
        return u

    def _s(self, problem):
        s = self.options["s"]
        if s is None:
            return None
        s = check_int("s", s, low=1)
        u = self._u_max(problem)
        if s > u:
            where = (f"n_designs={problem.n_designs}" if u == problem.n_designs else
                     f"sample={u}" if self.options["sample"] is not None else f"alpha·n_designs={u}")
            raise InputError(f"'s' must be <= {where} (the designs the rough model orders); got {s}.")
        return s

    def _truth(self, problem):
        truth = self.options["truth"]
        if truth is None:
            return None
        try:
            arr = np.asarray(truth, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"'truth' must be an array of true means; got {type(truth).__name__}.") from None
        if arr.shape != (problem.n_designs, problem.n_obj) or not np.isfinite(arr).all():
            raise InputError(f"'truth' must be finite true means of shape ({problem.n_designs}, "
                             f"{problem.n_obj}); got shape {arr.shape}.")
        return arr

    def _plan(self, problem, budget):
        """(u, s) for ``budget`` (None: the default budget's plan)."""
        n_rough, n_acc = self._reps(problem)
        u_max, s = self._u_max(problem), self._s(problem)
        extra = n_acc - n_rough
        if budget is None:
            base = u_max if self.options["sample"] is not None else problem.n_designs
            s = s or max(1, math.ceil(0.05 * base))
            return u_max, min(s, u_max)
        s_need = s or 1
        if budget < s_need * n_acc:
            raise InputError(f"'budget' must be >= {s_need * n_acc} for method 'oo' (s={s_need} designs with "
                             f"n_accurate={n_acc}); got {budget}.")
        if s is not None:
            return min(u_max, (budget - s * extra) // n_rough), s
        # no s: the rough model gets at most half of the budget, the accurate one the rest
        u = max(1, min(u_max, (budget // 2) // n_rough, (budget - extra) // n_rough))
        s = min(u, (budget - u * n_rough) // extra) if extra else u
        return u, max(1, s)

    def min_budget(self, problem):
        self._u_max(problem)  # validates alpha
        self._truth(problem)
        self._g(problem)
        if self.options["utility"] is not None:
            resolve_utility(problem, self.options["utility"])
        _, n_acc = self._reps(problem)
        return (self._s(problem) or 1) * n_acc

    def _g(self, problem):
        g = self.options["g"]
        return None if g is None else check_int("g", g, low=1, high=problem.n_designs)

    def _default_budget(self, problem):
        n_rough, n_acc = self._reps(problem)
        u, s = self._plan(problem, None)
        return u * n_rough + s * (n_acc - n_rough)

    # -- search -----------------------------------------------------------------------------------
    def _scores(self, problem, F):
        if self.options["utility"] is None:
            return None
        return utility_scores(problem, resolve_utility(problem, self.options["utility"]), F)

    def _ask(self, state: SearchState):
        problem = state.problem
        n_rough, n_acc = self._reps(problem)
        if state.spent == 0:
            # without a budget from the user, the default plan; with one, a plan that fills it
            u, self._s_plan = self._plan(problem, state.budget if state.budget_given else None)
            if u == problem.n_designs:
                self._rough = np.arange(u)
            else:
                self._rough = np.sort(problem.sample_designs(state.rng, u))
            self._selected = None
            return [(self._rough, n_rough)]
        if self._selected is not None:
            return []
        F = state.means(self._rough)
        order = rough_order(F, self._scores(problem, F))
        self._selected = np.sort(self._rough[order[: self._s_plan]])
        if n_acc == n_rough:
            return []
        return [(self._selected, n_acc - n_rough)]

    def _info(self, state: SearchState):
        problem = state.problem
        n_rough, n_acc = self._reps(problem)
        info = {"u": int(len(self._rough)), "s": int(self._s_plan), "n_rough": n_rough,
                "n_accurate": n_acc, "selected": [int(i) for i in self._selected]}
        truth = self._truth(problem)
        if truth is not None:
            g = self._g(problem) or int(self._s_plan)
            good = good_enough_set(truth, g, self._scores(problem, truth))
            info["g"] = g
            info["alignment"] = int(len(np.intersect1d(good, self._selected)))
        return info
