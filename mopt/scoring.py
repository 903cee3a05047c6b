"""Scores of one search result against a ground truth (the true means of every design).

:func:`score` gives, for one run's :class:`~mopt.core.result.Result`:

* **pcs** — probability of correct selection: 1 if the design a utility picks from the run's
  estimates is truly best (ties in the truth count as correct);
* **regret** — the true utility of that design minus the true best;
* **hv_ratio** — hypervolume of the run's observed Pareto set, at its *true* means, over that of
  the true Pareto front (:func:`hypervolume_ratio`);
* **type1 / type2** — the observed Pareto set holds a design that is not truly Pareto-optimal
  (Type I) / misses a truly Pareto-optimal one (Type II), as in multi-objective OCBA;
* **alignment** — for methods that select a set (``info["selected"]``, e.g. ordinal
  optimisation): how many of the selected designs are among the truly best as many.

A method that selects a set answers with it: the choice, the observed Pareto set and the
hypervolume are then taken over the selected designs only (OO's rough-only estimates, or the
designs NSGA-II discarded, are not part of its answer).  :mod:`mopt.compare` runs the searches
whose results are scored here.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd

from mopt.core.errors import InputError
from mopt.core.pareto import hypervolume, pareto_mask
from mopt.core.result import Result

__all__ = ["score", "hypervolume_ratio", "best_or_none", "SCORES", "REFERENCE"]

#: the score columns of :func:`score` (and of :func:`mopt.compare.compare`'s rows)
SCORES = ("pcs", "regret", "hv_ratio", "type1", "type2", "n_false", "n_missed", "alignment")
#: the reference point of :func:`hypervolume_ratio`, in normalised objectives
REFERENCE = 1.1

def hypervolume_ratio(selected_F, true_front_F) -> float:
    """Hypervolume of ``selected_F`` over that of the true Pareto front ``true_front_F``.

    Every objective is normalised by the true front's ideal and nadir points,
    ``(f - ideal) / (nadir - ideal)`` (a zero range counts as 1), and the reference point is 1.1 in
    every objective.  Dominated rows of either argument add nothing; selected points beyond the
    reference point contribute nothing.  1 means the selection covers the true front; a selection
    evaluated at its true means can never exceed 1.

    Parameters
    ----------
    selected_F : array_like, shape (n, n_obj)
        Objective values (true means) of the selected designs; may be empty.
    true_front_F : array_like, shape (m, n_obj)
        Objective values of the true Pareto front (m >= 1).

    Examples
    --------
    A true front (1, 3), (2, 2), (3, 1) normalises to (0, 1), (0.5, 0.5), (1, 0), whose
    hypervolume up to (1.1, 1.1) is 0.5·0.1 + 0.5·0.6 + 0.1·1.1 = 0.46.  The middle point alone
    covers 0.6·0.6 = 0.36:

    >>> front = [[1, 3], [2, 2], [3, 1]]
    >>> round(hypervolume_ratio([[2, 2]], front), 4)  # 0.36 / 0.46
    0.7826
    >>> round(hypervolume_ratio([[1, 3], [3, 1], [3, 3]], front), 4)  # (0.1 + 0.11) / 0.46
    0.4565
    >>> hypervolume_ratio(front, front), hypervolume_ratio([[4, 4]], front)
    (1.0, 0.0)
    """
    true_F = _objective_array("true_front_F", true_front_F)
    if len(true_F) == 0:
        raise InputError("'true_front_F' must hold at least one point; got none.")
    n_obj = true_F.shape[1]
    sel = _objective_array("selected_F", selected_F, n_obj=n_obj)
    true_F = true_F[pareto_mask(true_F)]
    ideal, nadir = true_F.min(axis=0), true_F.max(axis=0)
    span = np.where(nadir > ideal, nadir - ideal, 1.0)
    ref = np.full(n_obj, REFERENCE)
    true_hv = hypervolume((true_F - ideal) / span, ref)
    if len(sel) == 0:
        return 0.0
    sel = (sel[pareto_mask(sel)] - ideal) / span
    sel = sel[(sel < ref).all(axis=1)]
    return hypervolume(sel, ref) / true_hv if len(sel) else 0.0


def _objective_array(name: str, values, *, n_obj: int | None = None) -> np.ndarray:
    try:
        F = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be a 2-d array of objective values; got {values!r}.") from None
    if F.size == 0 and n_obj is not None:
        return F.reshape(0, n_obj)
    if F.ndim != 2 or (n_obj is not None and F.shape[1] != n_obj):
        what = f"shape (n, {n_obj})" if n_obj is not None else "a 2-d array of objective values"
        raise InputError(f"'{name}' must be {what}; got shape {F.shape}.")
    if not np.isfinite(F).all():
        raise InputError(f"'{name}' must hold finite numbers; got {F[~np.isfinite(F)][0]!r}.")
    return F


class _Objectives:
    """The part of a problem that :func:`~mopt.solvers.base.resolve_utility` reads."""

    def __init__(self, objectives):
        self.objectives = tuple(objectives)
        self.n_obj = len(self.objectives)


def _resolve_utility(objectives, utility):
    from mopt.solvers.base import resolve_utility

    return resolve_utility(_Objectives(objectives), utility)


def _truth_table(truth, objectives) -> pd.DataFrame:
    """``truth`` as a DataFrame with a ``design`` column (sorted, unique) and the objective columns."""
    objectives = list(objectives)
    if isinstance(truth, Result):
        missing = [o for o in objectives if o not in truth.objectives]
        if missing:
            raise InputError(f"'truth' must be a Result with the objectives {objectives}; it has "
                             f"{list(truth.objectives)}.")
        table = truth.evaluations
    elif isinstance(truth, pd.DataFrame):
        table = truth
    elif isinstance(truth, (np.ndarray, list, tuple)):
        try:
            F = np.asarray(truth, dtype=float)
        except (TypeError, ValueError):
            raise InputError("'truth' must be a DataFrame, a Result or an array of objective means "
                             "(n_designs, n_obj); got an array that is not numeric.") from None
        if F.ndim == 1 and len(objectives) == 1:  # one objective: a plain vector of means
            F = F[:, None]
        if F.ndim != 2 or F.shape[1] != len(objectives) or len(F) == 0:
            raise InputError(f"'truth' as an array must have shape (n_designs, {len(objectives)}) "
                             f"(objectives {objectives}); got shape {F.shape}.")
        table = pd.DataFrame(F, columns=objectives)
        table.insert(0, "design", np.arange(len(F)))
    else:
        raise InputError("'truth' must be a DataFrame (columns 'design' and the objectives), a Result or "
                         f"an array of objective means; got {type(truth).__name__}.")
    missing = [c for c in ("design", *objectives) if c not in table.columns]
    if missing:
        raise InputError(f"'truth' must have the columns 'design' and {objectives}; column "
                         f"{missing[0]!r} is missing.")
    if len(table) == 0:
        raise InputError("'truth' must hold at least one design; got none.")
    design = pd.to_numeric(table["design"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(design) | (design < 0) | (design != np.floor(design))
    if bad.any():
        raise InputError(f"'truth' column 'design' must hold non-negative integers; got "
                         f"{table['design'].iloc[int(np.flatnonzero(bad)[0])]!r}.")
    design = design.astype(np.int64)
    if len(np.unique(design)) != len(design):
        dup = pd.Series(design)[pd.Series(design).duplicated()].iloc[0]
        raise InputError(f"'truth' must have one row per design; design {dup} appears twice.")
    for name in objectives:
        values = pd.to_numeric(table[name], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all():
            k = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InputError(f"'truth' column {name!r} must hold finite numbers; got "
                             f"{table[name].iloc[k]!r} for design {design[k]}.")
    out = table.copy()
    out["design"] = design
    out[objectives] = out[objectives].astype(float)
    return out.sort_values("design").reset_index(drop=True)


def _true_utility(table: pd.DataFrame, utility) -> np.ndarray:
    scores = np.asarray(utility(table), dtype=float)
    if scores.shape != (len(table),):
        raise InputError(f"'utility' must return one score per row; got shape {scores.shape} for "
                         f"{len(table)} rows.")
    scores = np.where(np.isnan(scores), np.inf, scores)
    if not np.isfinite(scores).any():
        raise InputError(f"'utility' {utility!r}: no design of the truth satisfies it (every score is "
                         "inf or NaN).")
    return scores


def score(result: Result, truth, utility=None) -> dict:
    """Score one search ``result`` against the ``truth``.

    Parameters
    ----------
    result : Result
    truth : DataFrame, Result or array_like
        The true objective means of (at least) every design ``result`` evaluated: a DataFrame with
        a ``design`` column and the objective columns (e.g. :func:`ground_truth`), a Result, or an
        array of shape (n_designs, n_obj) whose row ``i`` is design ``i``.  The true Pareto set is
        :func:`mopt.pareto_mask` over all its rows (weakly tied duplicates are all kept).
    utility : callable, str or None
        Lower is better; None: the objective, or the product of all objectives.

    Returns
    -------
    dict
        ``pcs``, ``regret``, ``hv_ratio``, ``type1``, ``type2``, ``n_false``, ``n_missed``,
        ``n_evals``, ``alignment`` (NaN without ``info["selected"]``) and ``selected`` (the design
        the utility picks from the result's estimates; None if it picks none, and then pcs is 0 and
        regret NaN).

    Examples
    --------
    >>> import pandas as pd, mopt
    >>> ev = pd.DataFrame({"design": [0, 2], "time": [1.0, 3.1], "cost": [2.0, 0.9], "n_reps": 5})
    >>> res = mopt.Result("blind_pick", 1, 10, ("time", "cost"), ev)
    >>> s = score(res, [[1, 2], [2, 0.5], [3, 1]], utility="time")
    >>> s["pcs"], s["regret"], s["type1"], s["n_false"], s["n_missed"]
    (1.0, 0.0, 1.0, 1, 1)
    """
    if not isinstance(result, Result):
        raise InputError(f"'result' must be a mopt Result; got {type(result).__name__}.")
    objectives = list(result.objectives)
    table = _truth_table(truth, objectives)
    u = _resolve_utility(objectives, utility)
    true_u = _true_utility(table, u)
    designs = table["design"].to_numpy()
    position = pd.Series(np.arange(len(designs)), index=designs)
    evaluated = result.evaluations["design"].to_numpy(dtype=np.int64)
    unknown = np.setdiff1d(evaluated, designs)
    if len(unknown):
        raise InputError(f"'truth' has no row for design {unknown[0]}, which the result evaluated.")

    # a method that selects a set (OO's accurately re-estimated designs, NSGA-II's final front)
    # answers with that set: rough or discarded estimates are not its answer
    selected = result.info.get("selected")
    if selected is not None:
        keep = result.evaluations["design"].isin([int(i) for i in np.ravel(selected)])
        result = dataclasses.replace(result, evaluations=result.evaluations[keep].reset_index(drop=True))

    best = float(true_u.min())
    row = best_or_none(result, u)
    chosen = None if row is None else int(row["design"])
    if chosen is None:
        pcs, regret = 0.0, math.nan
    else:
        value = float(true_u[position[chosen]])
        pcs = 1.0 if value <= best + 1e-12 * max(1.0, abs(best)) else 0.0
        regret = value - best

    F = table[objectives].to_numpy(dtype=float)
    true_mask = pareto_mask(F)
    true_set = set(designs[true_mask].tolist())
    ev = result.evaluations  # every design of the front (the truth counts designs, not classes)
    front = ev["design"][pareto_mask(ev[objectives].to_numpy(dtype=float))].to_numpy(dtype=np.int64)
    observed_set = set(front.tolist())
    n_false = len(observed_set - true_set)
    n_missed = len(true_set - observed_set)
    hv = hypervolume_ratio(F[position[front].to_numpy()], F[true_mask])

    alignment = math.nan
    if selected is not None:
        chosen_set = {int(i) for i in np.ravel(selected)}
        order = np.lexsort((designs, true_u))
        top = set(designs[order[: len(chosen_set)]].tolist())
        alignment = float(len(chosen_set & top))
    return {
        "pcs": pcs, "regret": regret, "hv_ratio": hv,
        "type1": float(n_false > 0), "type2": float(n_missed > 0),
        "n_false": n_false, "n_missed": n_missed, "n_evals": int(result.n_evals),
        "alignment": alignment, "selected": chosen,
    }


def best_or_none(result: Result, utility):
    """``result.best(utility)``, or None when no evaluated design satisfies the utility (every
    score is inf or NaN, e.g. no strategy fits a budget).

    Examples
    --------
    >>> import pandas as pd, mopt
    >>> ev = pd.DataFrame({"design": [0, 1], "time": [1.0, 3.0], "cost": [2.0, 0.5], "n_reps": 5})
    >>> res = mopt.Result("exhaustive", 1, 10, ("time", "cost"), ev)
    >>> int(best_or_none(res, mopt.utility.minimize("cost"))["design"])
    1
    >>> best_or_none(res, mopt.utility.within_budget("cost", 0.1, then="time")) is None
    True
    """
    try:
        return result.best(utility)
    except InputError as exc:
        if "no evaluated design satisfies" not in str(exc):
            raise
        return None
