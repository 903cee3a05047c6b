"""Utility functions: callables that score rows of objective means, lower is better.

A utility takes a DataFrame whose columns include the objectives (the ``evaluations`` or ``front``
of a :class:`~mopt.Result`) and returns a Series of scores; ``Result.best(utility)`` picks the row
with the lowest score.  Any callable ``DataFrame -> Series`` works; those here carry a readable
``name`` for tables and figures.

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"makespan": [10.0, 20.0, 40.0], "cost": [3.0, 1.0, 0.5]})
>>> product("makespan", "cost")(df).tolist()
[30.0, 20.0, 20.0]
>>> within_budget("cost", 1.0, then="makespan")(df).tolist()
[inf, 20.0, 40.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number

#: a result's columns a utility has no reason to read (not listed when one is missing)
_BOOKKEEPING = ("class", "p_nondominated", "n_reps", "certified", "design")

__all__ = ["generic_utilities", "Utility", "minimize", "product", "weighted", "within_budget", "by_deadline", "U",
           "quantile", "cvar"]


class Utility:
    """A named scoring function ``DataFrame -> Series`` (lower is better).

    ``arrays=True`` says that ``fn`` also scores a mapping of column name -> 1-D float array and
    scores each row on its own (true of every utility here): searches then call
    :meth:`score_arrays` without building a DataFrame (ours: same scores, less overhead per round).
    """

    def __init__(self, name: str, columns: tuple[str, ...], fn: Callable[[pd.DataFrame], pd.Series], *,
                 arrays: bool = False, risk: tuple = ()):
        self.name = name
        self.columns = columns
        self._fn = fn
        self.arrays = bool(arrays)
        #: the risk terms (:class:`mopt.core.risk.RiskTerm`) whose columns the utility reads:
        #: estimated from each design's replications (:func:`mopt.core.risk.with_risk`)
        self.risk = tuple(risk)

    def score_arrays(self, columns: dict) -> np.ndarray:
        """Scores of the rows given as ``columns`` (name -> 1-D float array); needs ``arrays=True``."""
        if not self.arrays:
            raise TypeError(f"utility {self.name} scores DataFrames only.")
        with np.errstate(all="ignore"):  # as pandas' arithmetic: inf / NaN without warnings
            return np.asarray(self._fn(columns), dtype=float)

    def __call__(self, df: pd.DataFrame) -> pd.Series:
        missing = [c for c in self.columns if c not in df.columns]
        risky = [c for c in missing if any(c in t.columns() for t in self.risk)]
        if risky:
            raise InputError(
                f"utility {self.name} reads {risky[0]!r}, estimated from each design's replications, which the "
                "results do not hold: add it with mopt.core.risk.with_risk(result, [utility], problem=... or "
                "journal=...) (mopt decide: --journal FILE, or the run's scenario simulated again)."
            )
        if missing:
            from mopt.core.names import suggest

            readable = [c for c in df.columns if isinstance(c, str) and not c.endswith(("_se", "_lo", "_hi"))
                        and c not in _BOOKKEEPING]  # what a utility reads: objectives and parameters
            raise InputError(f"utility {self.name} needs column(s) {missing}; the results have {readable}"
                             f"{suggest(missing[0], readable) or '.'}")
        return pd.Series(np.asarray(self._fn(df), dtype=float), index=df.index, name=self.name)

    def __repr__(self) -> str:
        return self.name


def _name(obj, param: str) -> str:
    if not isinstance(obj, str) or not obj:
        raise TypeError(f"objective names must be non-empty strings; got {obj!r} for '{param}'.")
    return obj


def minimize(obj: str) -> Utility:
    """Minimise one objective, e.g. ``minimize("makespan")``."""
    obj = _name(obj, "obj")
    return Utility(f"minimize({obj})", (obj,), lambda df: df[obj], arrays=True)


def product(a: str, b: str) -> Utility:
    """Minimise the product of two objectives: ExPERT's makespan × cost."""
    a, b = _name(a, "a"), _name(b, "b")
    return Utility(f"product({a}, {b})", (a, b), lambda df: df[a] * df[b], arrays=True)


def weighted(**weights: float) -> Utility:
    """Minimise a weighted sum, e.g. ``weighted(makespan=1, cost=3600)``."""
    if not weights:
        raise InputError("'weights' must name at least one objective; got none.")
    w = {_name(k, "weights"): check_number(f"weight of {k}", v) for k, v in weights.items()}
    label = ", ".join(f"{k}={v:g}" for k, v in w.items())
    return Utility(f"weighted({label})", tuple(w), lambda df: sum(v * df[k] for k, v in w.items()), arrays=True)


def within_budget(cost: str, limit: float, then: str, probability: float | None = None,
                  confidence: float | None = None) -> Utility:
    """"Work within a budget": the best ``then`` among rows with ``cost <= limit`` (others score inf).

    With ``probability`` a chance constraint instead (decisions under risk, :mod:`mopt.core.risk`):
    the rows whose replications keep ``cost <= limit`` with at least that probability, estimated
    (``P(cost <= limit)``, the fraction of replications within the limit); with ``confidence``
    too, the rows whose Clopper–Pearson lower bound of it at that confidence is at least
    ``probability``. Such a utility reads columns estimated from the replications
    (:func:`mopt.core.risk.with_risk`).

    Examples
    --------
    >>> within_budget("cost", 1.0, then="makespan", probability=0.9).name
    'within_budget(P(cost <= 1) >= 0.9, then=makespan)'
    """
    return _best_within("within_budget", "cost", cost, limit, then, probability, confidence)


def by_deadline(time: str, limit: float, then: str, probability: float | None = None,
                confidence: float | None = None) -> Utility:
    """"Finish in time": the best ``then`` among rows with ``time <= limit`` (others score inf);
    ``probability`` and ``confidence`` as for :func:`within_budget` (a chance constraint:
    ``P(time <= limit) >= probability``)."""
    return _best_within("by_deadline", "time", time, limit, then, probability, confidence)


def _best_within(label: str, parameter: str, column: str, limit: float, then: str,
                 probability: float | None = None, confidence: float | None = None) -> Utility:
    """The best ``then`` among rows with ``column <= limit`` (others score inf), or with
    ``P(column <= limit) >= probability`` (at ``confidence``); ``parameter`` names ``column`` in errors."""
    column, then = _name(column, parameter), _name(then, "then")
    limit = check_number("limit", limit)
    if probability is None:
        if confidence is not None:
            raise InputError("'confidence' goes with 'probability' (a chance constraint); got no 'probability'.")
        return Utility(
            f"{label}({column} <= {limit:g}, then={then})",
            (column, then),
            lambda df: np.where(df[column] <= limit, df[then], math.inf),
            arrays=True,
        )
    from mopt.core.risk import RiskTerm

    term = RiskTerm("probability", column, limit, probability=probability, confidence=confidence)
    read = term.column if confidence is None else term.lower_column
    p = float(probability)
    at = "" if confidence is None else f" at {confidence:g}"
    return Utility(
        f"{label}({term.column} >= {p:g}{at}, then={then})",
        (read, then),
        lambda df: np.where(np.asarray(df[read], dtype=float) >= p, df[then], math.inf),
        arrays=True, risk=(term,),
    )


def quantile(obj: str, q: float) -> Utility:
    """Minimise the ``q``-quantile of an objective's distribution over the replications, e.g.
    ``quantile("makespan", 0.95)``: a bad case, not the average (:mod:`mopt.core.risk`)."""
    return _risk_measure("quantile", obj, q)


def cvar(obj: str, q: float) -> Utility:
    """Minimise the CVaR at ``q`` of an objective: the mean of its worst ``1 - q`` outcomes over
    the replications, e.g. ``cvar("makespan", 0.9)`` (:mod:`mopt.core.risk`)."""
    return _risk_measure("cvar", obj, q)


def _risk_measure(kind: str, obj: str, q: float) -> Utility:
    from mopt.core.risk import RiskTerm

    term = RiskTerm(kind, _name(obj, "obj"), check_number("q", q, low=0, high=1, low_open=True, high_open=True))
    column = term.column
    return Utility(column, (column,), lambda df: df[column], arrays=True, risk=(term,))


def U(alpha: float = 1.0, beta: float = 1.0, kappa: float = 100.0, *,
      utilisation: str = "utilisation", slowdown: str = "bsd") -> Utility:
    """Deng et al.'s utility U = κ·(R_J/R_V)^α·(1/BSD)^β, negated so that lower is better."""
    utilisation, slowdown = _name(utilisation, "utilisation"), _name(slowdown, "slowdown")
    alpha = check_number("alpha", alpha, low=0)
    beta = check_number("beta", beta, low=0)
    kappa = check_number("kappa", kappa, low=0, low_open=True)
    return Utility(
        f"U(alpha={alpha:g}, beta={beta:g}, kappa={kappa:g})",
        (utilisation, slowdown),
        lambda df: -kappa * df[utilisation] ** alpha * (1.0 / df[slowdown]) ** beta,
        arrays=True,
    )


def generic_utilities(objectives) -> dict:
    """``min <objective>`` for each objective, and for two, ``min <a> x <b>`` (their product).

    Examples
    --------
    >>> list(generic_utilities(("time", "cost")))
    ['min time', 'min cost', 'min time x cost']
    """
    objectives = tuple(objectives)
    out = {f"min {o}": minimize(o) for o in objectives}
    if len(objectives) == 2:
        out[f"min {objectives[0]} x {objectives[1]}"] = product(*objectives)
    return out
