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
the designs of one resample (through its quantile), so that paired replications stay paired. The
probabilities are the frequencies over the resamples. Designs that are dominated beyond doubt
(their interval at :data:`SCREEN_Z` standard errors lies beyond another design's) get P = 0
without resampling: the resampling then runs on the few that can matter, so 27,132 designs x 1,000
replications take about 0.2 s (``benchmarks/uncertainty.py``). A design with one replication has no
error estimate: it is resampled at its mean. Designs with identical replications (equivalent
strategies) are resampled and tested once. With two objectives and at most 32 replications each
(one count for all) the resampling and the dominance test run fused in one compiled pass
(:mod:`mopt.core.uncertainty_kernels`: each resample's designs, in the order of their means, build
the staircase of the non-dominated ones without a sort), under 2 ms for the demo's 289 designs.

Calibration, measured (``benchmarks/calibration.py``, 200 macroreplications on problems whose truth
is known): these are posterior probabilities under a flat prior, and they are not exact frequencies
for a fixed truth. With 10 or more replications, designs reported with P >= 0.5 are truly efficient
at about the reported rate; designs reported below 0.1 are more often efficient than reported
(regression to the mean: a design that looks dominated by noise is pulled away from the front), and
P(correct selection) can be too low or too high by 0.02-0.2. Below :data:`MIN_REPS` replications the
probabilities are over-confident: :func:`annotate` then adds a warning that names the designs on or
near the front and the replications they need.

Where a Result has lost its replications (read from a CSV), :func:`normal_resamples` draws the
means independently from N(mean, se^2) instead (used by utility decisions:
:func:`mopt.core.choice_certainty.p_best`).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from mopt.core.classes import class_ids
from mopt.core.moved import moved_names

__all__ = ["LEVEL", "RESAMPLES", "SCREEN_Z", "UNCERTAIN", "MIN_REPS", "intervals", "screen", "nondominated",
           "multiplier_resamples", "normal_resamples", "front_uncertainty", "annotate", "uncertainty_columns",
           "reliability"]


# p_best and replications_needed moved to mopt.core.choice_certainty (how sure a utility's choice is);
# the old names warn and give the new ones for one release, by name (no import of that module here)
__getattr__ = moved_names(__name__, {"p_best": "mopt.core.choice_certainty.p_best",
                                     "replications_needed": "mopt.core.choice_certainty.replications_needed"})

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
    n = np.asarray(n_reps, dtype=float)
    counts, index = np.unique(n, return_inverse=True)
    q = np.array([_t_quantile(float(c), float(level)) for c in counts])[index.ravel()]
    half = ses * q[:, None]
    return means - half, means + half


@functools.lru_cache(maxsize=4096)
def _t_quantile(n: float, level: float) -> float:
    """The two-sided ``level`` quantile of Student's t with n - 1 degrees of freedom (NaN below 2)."""
    from mopt.core.quantiles import t_ppf

    return float(t_ppf(0.5 + level / 2, n - 1)) if n >= 2 else math.nan


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
    """Two objectives, compiled (:mod:`mopt.core.uncertainty_kernels`): each resample sorted by
    (f1, f2) starting from the designs' order by their average over the resamples, then one sweep.
    In blocks of resamples, so that a signal waits for one short call."""
    from mopt.core.uncertainty_kernels import nondominated_2d_kernel

    B, C, _ = mu.shape
    x, y = mu[:, :, 0], mu[:, :, 1]
    start = np.lexsort((y.mean(axis=0), x.mean(axis=0))).astype(np.int64)
    out = np.empty((B, C), dtype=bool)
    step = max(1, 2_000_000 // max(C, 1))
    for lo in range(0, B, step):
        out[lo:lo + step] = nondominated_2d_kernel(x[lo:lo + step], y[lo:lo + step], start)
    return out


def multiplier_resamples(means: np.ndarray, samples: list, rng, resamples: int = RESAMPLES):
    """(B, C, m) resampled means of designs with replications ``samples[k]`` (n_k, m), or one
    (C, n, m) array of them, by the shared Gaussian multiplier bootstrap (module docstring)."""
    resid, g, t = _multiplier_draws(means, samples, rng, resamples)
    C, m = means.shape
    reps = resid.shape[1]
    if reps <= 32:  # a few replications: compiled (a small threaded BLAS call can take 100x longer
        # when the other core is busy), in blocks of designs so that a signal waits for one short call
        from mopt.core.uncertainty_kernels import multiplier_kernel

        step = max(1, 4_000_000 // max(resamples * reps * m, 1))
        by_rep = np.ascontiguousarray(resid.transpose(1, 0, 2))  # (R, C, m)
        return np.concatenate([multiplier_kernel(np.ascontiguousarray(means[lo:lo + step], dtype=float), g,
                                                 np.ascontiguousarray(by_rep[:, lo:lo + step]),
                                                 np.ascontiguousarray(t[:, lo:lo + step]))
                               for lo in range(0, max(C, 1), step)], axis=1)
    shift = np.empty((resamples, C, m))  # many: BLAS, in blocks of designs (short calls)
    for lo in range(0, C, 256):
        block = resid[lo:lo + 256]
        shift[:, lo:lo + len(block)] = (g @ block.transpose(1, 0, 2).reshape(block.shape[1], -1)
                                        ).reshape(resamples, len(block), m)
    shift *= t[:, :, None]
    return means[None, :, :] + shift


def _multiplier_draws(means, samples, rng, resamples):
    """``(resid, g, t)``: the designs' scaled residuals (C, R, m) (zero rows past a design's count),
    the shared weights (B, R) and the Student-t scales (B, C) of :func:`multiplier_resamples`."""
    C, m = means.shape
    if isinstance(samples, np.ndarray):  # (C, n, m): equal counts
        lengths = np.full(len(samples), samples.shape[1] if samples.ndim == 3 else 0)
    else:
        lengths = np.array([len(s) for s in samples], dtype=np.int64)
    reps = max(int(lengths.max(initial=0)), 1)
    g = rng.standard_normal((resamples, reps))
    scale = np.where(lengths >= 2, np.sqrt(lengths / np.maximum(lengths - 1, 1)) / np.maximum(lengths, 1), 0.0)
    if len(samples) and (lengths == reps).all() and C * reps * m <= 1_000_000:  # one array
        resid = (np.asarray(samples, dtype=float) - means[:, None, :]) * scale[:, None, None]
    else:
        resid = np.zeros((C, reps, m))
        for k, s in enumerate(samples):
            resid[k, :len(s)] = (np.asarray(s, dtype=float) - means[k]) * scale[k]
    # the error estimate is itself uncertain: scale each draw by sqrt((n - 1) / chi2(n - 1)), so
    # that a mean varies as Student's t (Jeffreys' prior), not as a normal of known variance
    k = np.maximum(lengths, 2) - 1.0
    chi2 = _chi2(k, rng, resamples)
    if len(k) and chi2.strides[1] == 0:  # one count: one scale per resample, shared by all
        return resid, g, np.broadcast_to(np.sqrt(k[0] / chi2[:, 0])[:, None], chi2.shape)
    return resid, g, np.sqrt(k / chi2)


def _bootstrap_nondominated_2d(means, samples, rng, resamples):
    """(B, C) bool: :func:`nondominated` of :func:`multiplier_resamples` for two objectives and
    designs of one replication count (at most 32), fused in one compiled pass (the same draws,
    without storing them)."""
    from mopt.core.uncertainty_kernels import bootstrap_nondominated_2d

    resid, g, t = _multiplier_draws(means, samples, rng, resamples)
    C, R = resid.shape[:2]
    start = np.lexsort((means[:, 1], means[:, 0]))  # designs in the order of their means
    rx, ry = (np.ascontiguousarray(resid[start, :, j].T) for j in (0, 1))
    mx, my = (np.ascontiguousarray(means[start, j], dtype=float) for j in (0, 1))
    scale = np.ascontiguousarray(t[:, 0])  # one count: every design's Student-t scale is the same
    out = np.empty((resamples, C), dtype=bool)
    step = max(1, 4_000_000 // max(C * R, 1))  # blocks of resamples: a signal waits for one short call
    for lo in range(0, resamples, step):
        out[lo:lo + step] = bootstrap_nondominated_2d(mx, my, g[lo:lo + step], rx, ry, scale[lo:lo + step], start)
    return out


def warm_kernels() -> None:
    """Compile the fused two-objective kernel into numba's cache, if it has none, by the path a
    result's uncertainty takes (:func:`_bootstrap_nondominated_2d` on two designs of three
    replications): what a first run does while it waits for a background compilation
    (:func:`mopt._numba_cache.compile_ahead`)."""
    from mopt._numba_cache import needs_compilation
    from mopt.core.uncertainty_kernels import bootstrap_nondominated_2d

    if needs_compilation(bootstrap_nondominated_2d):
        rng = np.random.default_rng(0)
        _bootstrap_nondominated_2d(np.array([[1.0, 2.0], [2.0, 1.0]]), rng.random((2, 3, 2)), rng, 4)


def _chi2(k: np.ndarray, rng, resamples: int) -> np.ndarray:
    """(resamples, len(k)) chi-square draws of ``k`` degrees of freedom, comonotone: one normal z
    per resample, turned into each design's draw by its quantile (so designs of equal ``k`` share
    the draw, and paired replications stay paired). Wilson and Hilferty's cube of z where k >= 10
    (its 1 % quantile within 3 % from k = 10 on), the exact quantile below."""
    from mopt.core.quantiles import chi2_ppf, norm_cdf

    values = np.unique(k)
    if len(values) == 1:  # one count: one draw per resample, shared by all (no quantiles needed)
        return np.broadcast_to(np.maximum(rng.chisquare(values[0], resamples), 1e-12)[:, None],
                               (resamples, len(k)))
    z = rng.standard_normal(resamples)
    out = np.empty((resamples, len(k)))
    for value in values:
        cols = k == value
        if value >= 10:
            a = 2.0 / (9.0 * value)
            draw = value * np.maximum(1.0 - a + z * np.sqrt(a), 1e-3) ** 3
        else:
            draw = np.maximum(chi2_ppf(norm_cdf(z), value), 1e-12)
        out[:, cols] = draw[:, None]
    return out


def normal_resamples(means: np.ndarray, ses: np.ndarray, rng, resamples: int = RESAMPLES):
    """(B, C, m) means drawn independently from N(mean, se^2) (se NaN: the mean itself)."""
    sd = np.where(np.isfinite(ses), ses, 0.0)
    return means[None] + sd[None] * rng.standard_normal((resamples, *means.shape))


def _resampled_nondominated(means, ses, cand, samples, rng, resamples):
    """(B, len(cand)) bool: which candidates are non-dominated in each resample. Designs with the
    same replications (equivalent strategies: equal in every resample) are resampled and tested
    once; designs without replications (``samples`` None, or its entry None) are drawn from
    independent normals."""
    have = (np.zeros(len(cand), dtype=bool) if samples is None
            else np.array([samples[k] is not None for k in cand], dtype=bool))
    with_reps, others = np.flatnonzero(have), np.flatnonzero(~have)
    rep, column, stacked = _distinct([samples[cand[j]] for j in with_reps])
    columns = np.empty(len(cand), dtype=np.int64)
    columns[with_reps] = column
    columns[others] = len(rep) + np.arange(len(others))
    firsts = cand[with_reps[rep]]
    if len(rep) and not len(others) and means.shape[1] == 2 and stacked is not None and stacked.shape[1] <= 32:
        return _bootstrap_nondominated_2d(means[firsts], stacked[rep], rng, resamples)[:, columns]
    parts = []
    if len(rep):
        parts.append(multiplier_resamples(
            means[firsts], [samples[k] for k in firsts] if stacked is None else stacked[rep], rng, resamples))
    if len(others):
        parts.append(normal_resamples(means[cand[others]], ses[cand[others]], rng, resamples))
    mu = parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)
    return nondominated(mu)[:, columns]


def _distinct(arrays: list) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(first, column, stacked)``: the index of the first of each distinct array (equal shape
    and values), in order of first appearance, each array's column (its class of equivalent
    designs, :func:`mopt.core.classes.class_ids`: numbered in order of first appearance), and the
    arrays as one (None unless they have one shape)."""
    if not arrays:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64), None
    shapes = {a.shape if isinstance(a, np.ndarray) else np.shape(a) for a in arrays}
    stacked = np.ascontiguousarray(arrays, dtype=float) if len(shapes) == 1 else None
    column = class_ids(arrays if stacked is None else stacked)
    _, first = np.unique(column, return_index=True)  # classes 0, 1, ...: their first arrays, in order
    return first, column, stacked


def front_uncertainty(means, ses, design_ids, *, samples=None, rng=None, resamples=RESAMPLES,
                      level=LEVEL, classes=None):
    """``(p_nondominated, summary)`` for designs with ``means`` and ``ses`` (D, m): the
    probability of each, and the front's ``p_correct_selection``, ``expected_false_in``,
    ``expected_false_out``, ``uncertain`` (design ids), ``level`` and ``resamples``. With
    ``samples`` (each design's replications, or None) the multiplier bootstrap, else (and for a
    design whose samples are None) independent normals. ``classes`` (D,) are the designs' classes
    of equivalent designs (:mod:`mopt.core.classes`; None: a class each): the expected numbers and
    ``uncertain`` count classes (``uncertain`` lists each class's smallest design id)."""
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
    nd = _resampled_nondominated(means, ses, cand, samples, rng, resamples)
    B = len(nd)  # frequencies from counts (the same numbers as means of the bools, quicker)
    p[cand] = nd.sum(axis=0, dtype=np.int64) / B
    ids = np.asarray(design_ids)
    lead = _class_leads(ids, classes)  # one design per class (its smallest id): classes count once
    keep = lead[cand]
    on = front[cand][keep]
    nd = nd[:, keep]
    summary["p_correct_selection"] = float(np.count_nonzero(~(nd != on).any(axis=1)) / B)
    summary["expected_false_in"] = float((np.count_nonzero(on) * B - np.count_nonzero(nd[:, on])) / B)
    summary["expected_false_out"] = float(np.count_nonzero(nd[:, ~on]) / B)
    lo, hi = UNCERTAIN
    summary["uncertain"] = [int(d) for d in ids[(p > lo) & (p < hi) & lead]]
    return p, summary


def _class_leads(ids: np.ndarray, classes) -> np.ndarray:
    """(D,) bool: the design of smallest id in each class (every design without ``classes``)."""
    if classes is None:
        return np.ones(len(ids), dtype=bool)
    classes = np.asarray(classes, dtype=np.int64)
    order = np.lexsort((ids, classes))
    lead = np.zeros(len(ids), dtype=bool)
    first = np.ones(len(order), dtype=bool)
    first[1:] = classes[order][1:] != classes[order][:-1]
    lead[order[first]] = True
    return lead


def annotate(evaluations: pd.DataFrame, objectives, *, samples=None, rng=None,
             resamples: int = RESAMPLES, level: float = LEVEL):
    """``evaluations`` with ``p_nondominated`` and ``<objective>_lo`` / ``_hi`` appended, and the
    front's summary (for ``Result.info["uncertainty"]``)."""
    objectives = list(objectives)
    column = lambda name: evaluations[name].to_numpy(dtype=float)  # noqa: E731 - one column at a time is quicker
    means = np.column_stack([column(o) for o in objectives])
    ses = np.column_stack([column(f"{o}_se") for o in objectives])
    added, summary = uncertainty_columns(means, ses, evaluations["n_reps"].to_numpy(),
                                         evaluations["design"].to_numpy(), objectives, samples=samples,
                                         rng=rng, resamples=resamples, level=level,
                                         classes=evaluations["class"].to_numpy() if "class" in evaluations else None)
    return pd.concat([evaluations, added.set_axis(evaluations.index, axis=0)], axis=1), summary


def uncertainty_columns(means, ses, n_reps, design_ids, objectives, *, samples=None, rng=None,
                        resamples: int = RESAMPLES, level: float = LEVEL, classes=None):
    """``(columns, summary)``: what :func:`annotate` appends, as a DataFrame (``p_nondominated``,
    then ``<objective>_lo`` and ``_hi`` per objective, a RangeIndex), for designs ``design_ids``
    with ``means`` and ``ses`` (D, m) and ``n_reps`` (D,), and the front's summary (``classes``:
    as in :func:`front_uncertainty`)."""
    objectives = list(objectives)
    p, summary = front_uncertainty(means, ses, design_ids, samples=samples, rng=rng, resamples=resamples,
                                   level=level, classes=classes)
    n = np.asarray(n_reps)
    few = (p > UNCERTAIN[0]) & (n < MIN_REPS) & _class_leads(np.asarray(design_ids), classes)
    if few.any():
        ids = np.asarray(design_ids)[few]
        listed = ", ".join(str(int(d)) for d in ids[:10]) + (f", ... ({len(ids) - 10} more)" if len(ids) > 10 else "")
        summary["warning"] = (f"P(non-dominated) is over-confident below {MIN_REPS} replications: "
                              f"{len(ids)} design(s) that may be on the front have fewer ({listed}); "
                              f"give each at least {MIN_REPS} (mopt.refine, mopt frontier --refine B, or n_reps).")
    lo, hi = intervals(means, ses, n, level)
    names = ["p_nondominated"] + [f"{o}_{end}" for o in objectives for end in ("lo", "hi")]
    block = np.column_stack([p] + [a[:, j] for j in range(len(objectives)) for a in (lo, hi)])
    return pd.DataFrame(block, columns=names), summary


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

