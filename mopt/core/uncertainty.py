"""How sure: confidence intervals, P(non-dominated) and the front's P(correct selection).

Every :class:`~mopt.core.result.Result` carries, from the replications it already has:

* per design and objective a confidence interval ``<objective>_lo`` / ``<objective>_hi`` at
  :data:`LEVEL` (Student's t with n_reps - 1 degrees of freedom; NaN with fewer than 2 replications);
* per design ``p_nondominated``: the probability that the design is truly Pareto-efficient among
  the evaluated designs;
* per front (``Result.info["uncertainty"]``): ``p_correct_selection``, the probability that the
  reported front is exactly the efficient set; ``expected_false_in`` and ``expected_false_out``,
  the expected numbers of designs wrongly on and wrongly off it; ``uncertain``, the designs with
  0.05 < P(non-dominated) < 0.95.

How (ours). The designs' true means are resampled :data:`RESAMPLES` times by a Gaussian multiplier
bootstrap of their replications: in resample b, design i's mean is
``mean_i + sqrt(n_i / (n_i - 1)) / n_i * sum_r g[b, r] * (x_ir - mean_i)`` with g ~ N(0, 1) drawn
once per *replication index* r and shared by every design. Each design's mean thus varies with its
own standard error and the covariance of its objectives, and two designs whose replication r
shares random numbers (common random numbers) vary together as their replications did; under
independent draws the shared multipliers estimate a covariance near 0. Each draw of a design is
scaled by sqrt((n - 1) / chi2(n - 1)): its mean then varies as Student's t, since its standard
error is an estimate too (the posterior under Jeffreys' prior); the chi-square draw is shared by
the designs of one resample (through its quantile), so that paired replications stay paired. The probabilities are the
frequencies over the resamples. Designs that are dominated beyond doubt (their interval at
:data:`SCREEN_Z` standard errors lies beyond another design's) get P = 0 without resampling: the
resampling then runs on the few that can matter, so 27,132 designs x 1,000 replications take about
a second. A design with one replication has no error estimate: it is resampled at its mean.

Calibration, measured (``benchmarks/calibration.py``, 200 macroreplications on problems whose truth
is known): these are posterior probabilities under a flat prior, and they are not exact frequencies
for a fixed truth. With 10 or more replications, designs reported with P >= 0.5 are truly efficient
at about the reported rate; designs reported below 0.1 are more often efficient than reported
(regression to the mean: a design that looks dominated by noise is pulled away from the front), and
P(correct selection) can be too low or too high by 0.02-0.2. Below :data:`MIN_REPS` replications the
probabilities are over-confident: :func:`annotate` then adds a warning that names the designs on or
near the front and the replications they need.

Where a Result has lost its replications (read from a CSV), :func:`normal_resamples` draws the
means independently from N(mean, se^2) instead (used by utility decisions, :func:`p_best`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["LEVEL", "RESAMPLES", "SCREEN_Z", "UNCERTAIN", "MIN_REPS", "intervals", "screen", "nondominated",
           "multiplier_resamples", "normal_resamples", "front_uncertainty", "annotate", "p_best",
           "reliability"]

#: confidence level of the intervals ``<objective>_lo`` / ``<objective>_hi``
LEVEL = 0.95
#: resamples of the designs' true means
RESAMPLES = 500
#: a design whose interval at this many standard errors is beyond another's is dominated for sure
SCREEN_Z = 5.0
#: P(non-dominated) strictly between these: membership uncertain
UNCERTAIN = (0.05, 0.95)
#: fewer replications than this on a design that may be on the front: the probabilities are
#: over-confident (benchmarks/calibration.py), and the result says so
MIN_REPS = 10


def intervals(means: np.ndarray, ses: np.ndarray, n_reps: np.ndarray, level: float = LEVEL):
    """``(lo, hi)``: Student-t confidence intervals of the means (NaN where n_reps < 2)."""
    from scipy.stats import t

    n = np.asarray(n_reps, dtype=float)
    with np.errstate(invalid="ignore"):
        q = np.where(n >= 2, t.ppf(0.5 + level / 2, np.maximum(n - 1, 1)), np.nan)
    half = ses * q[:, None]
    return means - half, means + half


def screen(means: np.ndarray, ses: np.ndarray, z: float = SCREEN_Z) -> np.ndarray:
    """Designs that may be non-dominated: not dominated, for sure, by another design (its mean
    plus ``z`` standard errors below this one's mean minus ``z`` standard errors, in every
    objective). A design without a standard error (one replication) counts as exact."""
    from mopt.core.pareto import pareto_mask

    spread = np.where(np.isfinite(ses), ses, 0.0) * z
    low, high = means - spread, means + spread
    # i is dominated for sure iff some high_j dominates low_i: test low_i against the front of highs
    front = high[pareto_mask(high)]
    if means.shape[1] == 2:  # the front sorted by f1 has f2 decreasing: one binary search each
        front = front[np.lexsort((front[:, 1], front[:, 0]))]
        k = np.searchsorted(front[:, 0], low[:, 0], side="right") - 1
        y = np.where(k >= 0, front[np.maximum(k, 0), 1], np.inf)
        x = np.where(k >= 0, front[np.maximum(k, 0), 0], np.inf)
        return ~((y < low[:, 1]) | ((y == low[:, 1]) & (x < low[:, 0])))
    keep = np.ones(len(means), dtype=bool)
    for lo in range(0, len(means), 4096):
        block = low[lo:lo + 4096]
        le = (front[None, :, :] <= block[:, None, :]).all(axis=2)
        lt = (front[None, :, :] < block[:, None, :]).any(axis=2)
        keep[lo:lo + len(block)] = ~(le & lt).any(axis=1)
    return keep


def nondominated(mu: np.ndarray) -> np.ndarray:
    """``mu`` (B, C, m) resampled means -> (B, C) bool: non-dominated within each resample."""
    B, C, m = mu.shape
    if m == 1:  # one objective: the designs at the resample's minimum (equal points do not dominate)
        return mu[:, :, 0] == mu[:, :, 0].min(axis=1, keepdims=True)
    if m == 2:
        return _nondominated_2d(mu)
    out = np.ones((B, C), dtype=bool)
    for i in range(C):
        le = (mu <= mu[:, i:i + 1, :]).all(axis=2)
        lt = (mu < mu[:, i:i + 1, :]).any(axis=2)
        out[:, i] = ~(le & lt).any(axis=1)
    return out


def _nondominated_2d(mu: np.ndarray) -> np.ndarray:
    """Two objectives: sort each resample by (f1, f2); a design is dominated iff an earlier one has
    a lower f2, or the same f2 and a lower f1 (equal points do not dominate each other)."""
    B, C, _ = mu.shape
    order = np.argsort(mu[:, :, 0], axis=1, kind="stable")
    x = np.take_along_axis(mu[:, :, 0], order, axis=1)
    if (x[:, 1:] == x[:, :-1]).any():  # ties in f1: (f1, f2) order
        order = np.lexsort((mu[:, :, 1], mu[:, :, 0]), axis=1)
        x = np.take_along_axis(mu[:, :, 0], order, axis=1)
    y = np.take_along_axis(mu[:, :, 1], order, axis=1)
    before = np.minimum.accumulate(np.concatenate([np.full((B, 1), np.inf), y[:, :-1]], axis=1), axis=1)
    dominated = before < y
    tied = before == y
    if tied.any():  # an earlier point of the same f2 dominates iff its f1 is lower: the first of
        # them set the running minimum (ties do not reset it), and it has the lowest f1
        record = np.where(y < before, np.arange(C)[None, :], 0)
        first = np.maximum.accumulate(record, axis=1)  # the latest new minimum at or before each
        setter = np.concatenate([np.zeros((B, 1), dtype=first.dtype), first[:, :-1]], axis=1)
        dominated |= tied & (np.take_along_axis(x, setter, axis=1) < x)
    out = np.empty((B, C), dtype=bool)
    np.put_along_axis(out, order, ~dominated, axis=1)
    return out


def multiplier_resamples(means: np.ndarray, samples: list, rng, resamples: int = RESAMPLES):
    """(B, C, m) resampled means of designs with replications ``samples[k]`` (n_k, m), by the
    shared Gaussian multiplier bootstrap (module docstring)."""
    C, m = means.shape
    reps = max((len(s) for s in samples), default=0)
    g = rng.standard_normal((resamples, max(reps, 1)))
    resid = np.zeros((C, max(reps, 1), m))
    for k, s in enumerate(samples):
        n = len(s)
        if n >= 2:
            resid[k, :n] = (np.asarray(s, dtype=float) - means[k]) * (math.sqrt(n / (n - 1)) / n)
    if reps <= 32:  # a few replications: multiply-adds (a small BLAS call costs more)
        shift = np.zeros((resamples, C, m))
        for r in range(reps):
            shift += g[:, r, None, None] * resid[None, :, r, :]
    else:  # in blocks of designs: each BLAS call short (a signal waits for the one running)
        shift = np.empty((resamples, C, m))
        for lo in range(0, C, 256):
            block = resid[lo:lo + 256]
            shift[:, lo:lo + len(block)] = (g @ block.transpose(1, 0, 2).reshape(block.shape[1], -1)
                                            ).reshape(resamples, len(block), m)
    # the error estimate is itself uncertain: scale each draw by sqrt((n - 1) / chi2(n - 1)), so
    # that a mean varies as Student's t (Jeffreys' prior), not as a normal of known variance
    k = np.array([max(len(s), 2) - 1 for s in samples], dtype=float)
    shift *= np.sqrt(k / _chi2(k, rng, resamples))[:, :, None]
    return means[None, :, :] + shift


def _chi2(k: np.ndarray, rng, resamples: int) -> np.ndarray:
    """(resamples, len(k)) chi-square draws of ``k`` degrees of freedom, comonotone: one normal z
    per resample, turned into each design's draw by its quantile (so designs of equal ``k`` share
    the draw, and paired replications stay paired). Wilson and Hilferty's cube of z where k >= 10
    (its 1 % quantile within 3 % from k = 10 on), the exact quantile below."""
    from scipy.stats import chi2, norm

    z = rng.standard_normal(resamples)
    out = np.empty((resamples, len(k)))
    for value in np.unique(k):
        cols = k == value
        if value >= 10:
            a = 2.0 / (9.0 * value)
            draw = value * np.maximum(1.0 - a + z * np.sqrt(a), 1e-3) ** 3
        else:
            draw = np.maximum(chi2.ppf(norm.cdf(z), value), 1e-12)
        out[:, cols] = draw[:, None]
    return out


def normal_resamples(means: np.ndarray, ses: np.ndarray, rng, resamples: int = RESAMPLES):
    """(B, C, m) means drawn independently from N(mean, se^2) (se NaN: the mean itself)."""
    sd = np.where(np.isfinite(ses), ses, 0.0)
    return means[None] + sd[None] * rng.standard_normal((resamples, *means.shape))


def front_uncertainty(means, ses, design_ids, *, samples=None, rng=None, resamples=RESAMPLES,
                      level=LEVEL):
    """``(p_nondominated, summary)`` for designs with ``means`` and ``ses`` (D, m): the
    probability of each, and the front's ``p_correct_selection``, ``expected_false_in``,
    ``expected_false_out``, ``uncertain`` (design ids), ``level`` and ``resamples``. With
    ``samples`` (each design's replications, or None) the multiplier bootstrap, else (and for a
    design whose samples are None) independent normals."""
    from mopt.core.pareto import pareto_mask

    means = np.asarray(means, dtype=float)
    ses = np.asarray(ses, dtype=float)
    rng = np.random.default_rng(0x5EED) if rng is None else rng
    D = len(means)
    p = np.zeros(D)
    summary = {"level": float(level), "resamples": int(resamples), "p_correct_selection": math.nan,
               "expected_false_in": math.nan, "expected_false_out": math.nan, "uncertain": []}
    if D == 0:
        return p, summary
    front = pareto_mask(means)
    cand = np.flatnonzero(screen(means, ses) | front)
    mu = normal_resamples(means[cand], ses[cand], rng, resamples)
    if samples is not None:  # designs whose replications are at hand (None: drawn as above)
        have = np.array([samples[k] is not None for k in cand], dtype=bool)
        if have.any():
            mu[:, have] = multiplier_resamples(means[cand[have]], [samples[k] for k in cand[have]], rng,
                                               resamples)
    nd = nondominated(mu)
    p[cand] = nd.mean(axis=0)
    on = front[cand]
    summary["p_correct_selection"] = float((nd == on[None, :]).all(axis=1).mean())
    summary["expected_false_in"] = float((~nd[:, on]).sum(axis=1).mean())
    summary["expected_false_out"] = float(nd[:, ~on].sum(axis=1).mean())
    lo, hi = UNCERTAIN
    ids = np.asarray(design_ids)
    summary["uncertain"] = [int(d) for d in ids[(p > lo) & (p < hi)]]
    return p, summary


def annotate(evaluations: pd.DataFrame, objectives, *, samples=None, rng=None,
             resamples: int = RESAMPLES, level: float = LEVEL):
    """``evaluations`` with ``p_nondominated`` and ``<objective>_lo`` / ``_hi`` appended, and the
    front's summary (for ``Result.info["uncertainty"]``)."""
    objectives = list(objectives)
    ev = evaluations.copy()
    means = ev[objectives].to_numpy(dtype=float)
    ses = ev[[f"{o}_se" for o in objectives]].to_numpy(dtype=float)
    p, summary = front_uncertainty(means, ses, ev["design"].to_numpy(), samples=samples, rng=rng,
                                   resamples=resamples, level=level)
    ev["p_nondominated"] = p
    n = ev["n_reps"].to_numpy()
    few = (p > UNCERTAIN[0]) & (n < MIN_REPS)
    if few.any():
        ids = ev["design"].to_numpy()[few]
        listed = ", ".join(str(int(d)) for d in ids[:10]) + (f", ... ({len(ids) - 10} more)" if len(ids) > 10 else "")
        summary["warning"] = (f"P(non-dominated) is over-confident below {MIN_REPS} replications: "
                              f"{len(ids)} design(s) that may be on the front have fewer ({listed}); "
                              f"give each at least {MIN_REPS} (mopt.refine, mopt frontier --refine B, or n_reps).")
    lo, hi = intervals(means, ses, n, level)
    for j, o in enumerate(objectives):
        ev[f"{o}_lo"] = lo[:, j]
        ev[f"{o}_hi"] = hi[:, j]
    return ev, summary


def p_best(evaluations: pd.DataFrame, objectives, utility, chosen: int, *, rng=None,
           resamples: int = RESAMPLES, top: int = 64):
    """``(p, runner_up)``: the probability that row ``chosen`` (a position) is the utility's true
    best, over independent normal resamples of the ``top`` best-scoring designs' means (from
    their means and standard errors), and the design index most often best after it (None if
    none)."""
    rng = np.random.default_rng(0xBE57) if rng is None else rng
    objectives = list(objectives)
    scores = np.asarray(utility(evaluations), dtype=float)
    finite = np.flatnonzero(np.isfinite(scores))
    rows = finite[np.argsort(scores[finite], kind="stable")[:top]]
    if chosen not in rows:
        rows = np.append(rows, chosen)
    sub = evaluations.iloc[rows]
    means = sub[objectives].to_numpy(dtype=float)
    ses = sub[[f"{o}_se" for o in objectives]].to_numpy(dtype=float)
    mu = normal_resamples(means, ses, rng, resamples)  # (B, K, m)
    # the utility reads a frame: one frame of every resample's rows (vectorised utilities)
    frame = pd.concat([sub] * resamples, ignore_index=True)
    frame[objectives] = mu.reshape(-1, len(objectives))
    s = np.asarray(utility(frame), dtype=float).reshape(resamples, len(rows))
    s = np.where(np.isfinite(s), s, np.inf)
    wins = np.bincount(np.argmin(s, axis=1), minlength=len(rows))
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


def reliability(p, truth, *, bins: int = 10) -> pd.DataFrame:
    """A reliability table: predicted probabilities ``p`` (of designs or fronts) against the
    outcomes ``truth`` (bool), in ``bins`` equal bins of [0, 1]: per bin the count, the mean
    prediction, the observed frequency and its binomial standard error. Calibrated predictions have
    ``observed`` within about 2 ``se`` of ``predicted`` in every bin.

    Examples
    --------
    >>> reliability([0.05, 0.1, 0.9, 0.95], [False, False, True, True], bins=2)
            bin  n  predicted  observed   se
    0  [0, 0.5)  2      0.075       0.0  0.0
    1  [0.5, 1]  2      0.925       1.0  0.0
    """
    p = np.asarray(p, dtype=float).ravel()
    truth = np.asarray(truth, dtype=bool).ravel()
    k = np.minimum((p * bins).astype(int), bins - 1)
    rows = []
    for b in range(bins):
        sel = k == b
        n = int(sel.sum())
        obs = float(truth[sel].mean()) if n else math.nan
        rows.append({"bin": f"[{b / bins:g}, {(b + 1) / bins:g}" + ("]" if b == bins - 1 else ")"), "n": n,
                     "predicted": float(p[sel].mean()) if n else math.nan, "observed": obs,
                     "se": math.sqrt(obs * (1 - obs) / n) if n else math.nan})
    return pd.DataFrame(rows)

