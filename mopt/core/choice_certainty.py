"""How sure a utility's choice is: P(best), the probability that the chosen design is the utility's
true best, with its runner-up (:func:`p_best`), and the replications expected to make it sure
(:func:`replications_needed`). Both resample the designs' means independently from N(mean, se^2)
(:func:`mopt.core.uncertainty.normal_resamples`): they read a Result's table, which need not hold
the replications. The front's own uncertainty is :mod:`mopt.core.uncertainty`'s."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.core.uncertainty import RESAMPLES, normal_resamples

__all__ = ["p_best", "replications_needed"]


def _winners(s: np.ndarray, mu: np.ndarray, designs: np.ndarray) -> np.ndarray:
    """Each resample's best row: the least score ``s[b]``, ties broken as :meth:`Result.best
    <mopt.core.result.Result.best>` breaks them at the means — by each objective in turn (the
    resampled ``mu[b, :, j]``), then by the least design index. Two designs whose scores tie exactly
    in every resample (a cost of 0 with no spread) share the wins as the tie-break shares them,
    rather than the one listed first taking all (P(best) 0.00 for a chosen design that ties)."""
    cand = s == s.min(axis=1, keepdims=True)
    for j in range(mu.shape[2]):
        if not (cand.sum(axis=1) > 1).any():
            break
        v = np.where(cand, mu[:, :, j], np.inf)
        v = np.where(np.isnan(v), np.inf, v)
        cand &= v == v.min(axis=1, keepdims=True)
    return np.argmin(np.where(cand, designs[None, :], np.iinfo(np.int64).max), axis=1)


def p_best(evaluations: pd.DataFrame, objectives, utility, chosen: int, *, rng=None,
           resamples: int = RESAMPLES, top: int = 64):
    """``(p, runner_up)``: the probability that row ``chosen`` (a position) is the utility's true
    best, over independent normal resamples of the ``top`` best-scoring designs' means (from
    their means and standard errors), and the design index most often best after it (None if
    none). With a ``class`` column each class of equivalent designs competes once (by its
    best-scoring row; the chosen row for its own class), so that designs tied exactly do not
    split the probability."""
    rng = np.random.default_rng(0xBE57) if rng is None else rng
    objectives = list(objectives)
    scores = np.asarray(utility(evaluations), dtype=float)
    finite = np.flatnonzero(np.isfinite(scores))
    ranked = finite[np.argsort(scores[finite], kind="stable")]
    if "class" in evaluations.columns:  # a class competes once (equivalent designs tie exactly)
        cls = evaluations["class"].to_numpy()
        mine = cls[chosen]
        ranked = ranked[cls[ranked] != mine]
        _, first = np.unique(cls[ranked], return_index=True)
        ranked = ranked[np.sort(first)]
    rows = ranked[:top]
    if chosen not in rows:
        rows = np.append(rows, chosen)
    sub = evaluations.iloc[rows]
    means = sub[objectives].to_numpy(dtype=float)
    ses = sub[[f"{o}_se" for o in objectives]].to_numpy(dtype=float)
    mu = normal_resamples(means, ses, rng, resamples)  # (B, K, m)
    # the utility reads a frame: one frame of every resample's rows (vectorised utilities)
    frame = sub.iloc[np.tile(np.arange(len(sub)), resamples)].reset_index(drop=True)  # one take, not B concats
    frame[objectives] = mu.reshape(-1, len(objectives))
    s = np.asarray(utility(frame), dtype=float).reshape(resamples, len(rows))
    s = np.where(np.isfinite(s), s, np.inf)
    designs = (sub["design"].to_numpy(dtype=np.int64) if "design" in sub.columns
               else np.asarray(rows, dtype=np.int64))
    wins = np.bincount(_winners(s, mu, designs), minlength=len(rows))
    k = int(np.flatnonzero(rows == chosen)[0])
    p = float(wins[k] / resamples)
    others = [(int(w), j) for j, w in enumerate(wins) if j != k]
    runner = max(others, default=(0, None))
    if runner[1] is None:
        return p, None
    if runner[0] == 0:  # never best: the second-best score at the means
        order = [j for j in np.argsort(scores[rows], kind="stable") if j != k]
        runner = (0, order[0] if order else None)
    return p, (None if runner[1] is None else int(sub["design"].iloc[runner[1]]))


def replications_needed(evaluations: pd.DataFrame, objectives, utility, chosen: int, runner_up: int, *,
                        target: float = 0.9, rng=None, resamples: int = 2000) -> float:
    """More replications of each of the two designs (rows ``chosen`` and ``runner_up``, positions)
    expected to make the chosen one the utility's best with probability ``target`` against the
    runner-up: with d the runner-up's score minus the chosen one's at the means and s its standard
    deviation over normal resamples of the two designs' means, n replications each become n'
    with z_target * s * sqrt(n / n') = d (standard errors shrink as 1/sqrt(n)). 0 when the
    pair is already that sure; inf when the chosen design does not lead (d <= 0) or has no
    standard error; NaN when a resample makes the chosen design infeasible (a constraint in doubt:
    the normal approximation says nothing then; a resample that makes the runner-up infeasible
    counts as a win and leaves the spread).

    Examples
    --------
    >>> ev = pd.DataFrame({"design": [0, 1], "f": [1.0, 1.1], "f_se": [0.1, 0.1], "n_reps": [10, 10]})
    >>> from mopt.core.utility import minimize
    >>> k = replications_needed(ev, ["f"], minimize("f"), 0, 1)  # d = 0.1, s = 0.141: n 10 -> 33
    >>> 21 <= k <= 25  # 23 by hand; s is estimated from resamples
    True
    """
    from mopt.core.quantiles import norm_ppf

    rng = np.random.default_rng(0x2EF1) if rng is None else rng
    objectives = list(objectives)
    sub = evaluations.iloc[[chosen, runner_up]]
    means = sub[objectives].to_numpy(dtype=float)
    ses = sub[[f"{o}_se" for o in objectives]].to_numpy(dtype=float)
    n = float(sub["n_reps"].max()) if "n_reps" in sub.columns else math.nan
    if not np.isfinite(ses).all() or not np.isfinite(n):
        return math.inf
    d = float(np.diff(np.asarray(utility(sub), dtype=float))[0])
    frame = sub.iloc[np.tile(np.arange(2), resamples)].reset_index(drop=True)  # one take, not B concats
    frame[objectives] = normal_resamples(means, ses, rng, resamples).reshape(-1, len(objectives))
    s = np.asarray(utility(frame), dtype=float).reshape(resamples, 2)
    if not d > 0:
        return math.inf
    if not np.isfinite(s[:, 0]).all():  # a resample made the chosen design infeasible (a constraint in doubt)
        return math.nan
    finite = np.isfinite(s[:, 1])  # a resample that makes the runner-up infeasible is a win: not in the spread
    sd = float(np.std(s[finite, 1] - s[finite, 0])) if finite.any() else 0.0
    if sd == 0 or not math.isfinite(d):
        return 0.0
    factor = (float(norm_ppf(target)) * sd / d) ** 2
    return float(max(0.0, math.ceil(n * factor - n)))
