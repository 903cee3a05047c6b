"""Certified sets: which classes are efficient or dominated for sure, valid at every look (issue #33).

:func:`certified_sets` sorts the classes of a result's evaluations (designs whose replications are
identical in every replication form one class; without a ``class`` column each design is a class)
into ``"efficient"`` (truly non-dominated among the evaluated classes), ``"dominated"`` (truly
dominated by one of them) and ``"undecided"``. With probability at least ``level``, every
``"efficient"`` and every ``"dominated"`` is right, for all classes at once *and at every
replication count at which one looks again*: one may add replications, look, and stop whenever the
answer suffices (optional stopping) without losing the guarantee.

How. Per class and objective a confidence sequence for the true mean (:func:`confidence_sequence`):
Lai's (1976) mixture of the scale-invariant likelihood ratio of a Gaussian mean with unknown
variance (Wang & Ramdas 2023). For a hypothesised mean mu0, y_i = x_i - mu0, S = sum y_i^2 and
T = sum y_i, mixing the ratio of N(theta sigma, sigma^2) to N(0, sigma^2) over theta ~ N(0, 1/rho)
and over the unknown scale gives::

    M_n = sqrt(rho / (n + rho)) * (S / (S - T^2 / (n + rho)))^(n / 2),

a nonnegative martingale of mean 1 under mu0 whatever sigma (on the filtration of the scale-free
statistics y / |y|). By Ville's inequality P(M_n >= 1 / alpha for some n) <= alpha, so the means
mu0 with M_n < 1 / alpha form a sequence of intervals that covers the true mean at every n at once
with probability >= 1 - alpha. With d = mean - mu0, V = (n - 1) n se^2, r = n d^2 / V and
q = (sqrt((n + rho) / rho) / alpha)^(2 / n), ``M_n < 1 / alpha`` reads r (1 - q rho / (n + rho))
< q - 1: the interval is ``mean +- se sqrt((n - 1) (q - 1) / (1 - q rho / (n + rho)))``, and the
whole line when q rho / (n + rho) >= 1 (always at n = 1, where M_1 = 1: no information; for small
n and small alpha as well). ``rho`` by default makes the interval narrowest at
:data:`TIGHTEST_AT` replications for the alpha in use (:func:`default_rho`).

All classes and objectives at once: a union bound, alpha = (1 - level) / (K m) for K classes and m
objectives, valid under any dependence between designs and objectives (common random numbers,
correlated objectives). From the boxes of intervals: a class A is ``"dominated"`` if some class's
upper corner dominates A's lower corner (then, when every interval covers, that class truly
dominates A); ``"efficient"`` if no other class's lower corner dominates A's upper corner (then no
class can dominate A). The two never both hold.

Assumptions, and what happens when they fail:

* each class's replications are i.i.d. Gaussian in each objective (the objectives and the classes
  may depend on one another in any way). Skewed or heavy-tailed outcomes (makespans, lognormal)
  break the exact guarantee (lognormal noise of skewness 1.75: one interval misses 1.6-9 times as
  often as alpha), but a miss misclassifies only at a boundary that matters: in
  ``benchmarks/certified.py`` no lognormal truth (skewness 1.75 or 6.2) was misclassified in 200
  macroreplications. mopt does not test normality: it applies the intervals as they are;
* the classes are fixed in advance (the equivalent strategies of a common-random-numbers run);
* a standard error of 0 with at least 2 replications is a deterministic design: its interval is
  the point (exact under zero noise, an event of probability 0 under Gaussian noise with sd > 0).
  A noisy design whose replications happen to be equal (discrete outcomes, few replications)
  breaks the assumption and may be misclassified;
* a mean of +inf or -inf (some replication infinite: the true mean is infinite) is exact; a NaN
  mean or standard error, or fewer than 2 replications, gives no information (the whole line).

Cost: a vectorised formula per interval, then per class two dominance tests against all the
others: with one or two objectives a sort and a sweep (prefix minima, and the second-smallest to
leave the class itself out), with more in blocks of numpy comparisons against the first two
non-dominated layers. The demo's 289 strategies take under 1 ms, 27,132 classes 10-20 ms.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number

__all__ = ["TIGHTEST_AT", "STATUSES", "default_rho", "confidence_sequence", "certified_sets"]

#: the default ``rho`` makes the intervals narrowest at this many replications
TIGHTEST_AT = 20
#: the statuses of :func:`certified_sets`
STATUSES = ("efficient", "dominated", "undecided")

_RHO_GRID = np.geomspace(1e-4, 1e3, 561)


def _half_factor(n, alpha: float, rho) -> np.ndarray:
    """The interval's half-width in standard errors, sqrt((n - 1) r*) (inf where it is the whole
    line, NaN below n = 2), for counts ``n`` and mixing precisions ``rho`` (broadcast)."""
    n = np.asarray(n, dtype=float)
    rho = np.asarray(rho, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_q = (2.0 / n) * (0.5 * np.log((n + rho) / rho) - math.log(alpha))
        q1 = np.expm1(log_q)  # q - 1, accurate for large n
        den = 1.0 - (q1 + 1.0) * rho / (n + rho)
        out = np.sqrt((n - 1.0) * q1 / den)
    out = np.where(den > 0, out, np.inf)
    return np.where(n >= 2, out, np.nan)


def default_rho(alpha: float, n: int = TIGHTEST_AT) -> float:
    """The mixing precision ``rho`` that makes the interval at ``alpha`` narrowest at ``n``
    replications (a grid search over 1e-4 .. 1e3, log-spaced).

    Examples
    --------
    >>> round(default_rho(0.05), 2), round(default_rho(0.05 / 578), 2)
    (1.88, 0.49)
    """
    alpha = check_number("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    width = _half_factor(float(n), alpha, _RHO_GRID)
    return float(_RHO_GRID[int(np.argmin(width))])


def confidence_sequence(means, ses, n_reps, alpha: float, rho: float | None = None):
    """``(lo, hi)``: anytime-valid confidence intervals of true means (module docstring).

    Parameters
    ----------
    means, ses : array_like, shape (D,) or (D, m)
        Sample means and their standard errors (sample sd / sqrt(n)).
    n_reps : array_like, shape (D,)
        Replications behind each row.
    alpha : float in (0, 1)
        Each interval misses its mean at some n with probability at most ``alpha``.
    rho : float > 0, optional
        The mixing precision; default :func:`default_rho` of ``alpha``.

    Returns
    -------
    lo, hi : ndarray, shaped as ``means``
        ``-inf, inf`` without information (n_reps < 2, NaN); the point where se = 0 or the mean is
        infinite.

    Examples
    --------
    >>> lo, hi = confidence_sequence([[1.0, 2.0]], [[0.1, 0.0]], [30], alpha=0.05)
    >>> lo.round(3).tolist(), hi.round(3).tolist()
    ([[0.672, 2.0]], [[1.328, 2.0]])
    >>> confidence_sequence([1.0], [0.1], [1], alpha=0.05)
    (array([-inf]), array([inf]))
    """
    alpha = check_number("alpha", alpha, low=0, high=1, low_open=True, high_open=True)
    rho = default_rho(alpha) if rho is None else check_number("rho", rho, low=0, low_open=True)
    means = np.asarray(means, dtype=float)
    ses = np.asarray(ses, dtype=float)
    if ses.shape != means.shape:
        raise InputError(f"'ses' must have the shape of 'means' {means.shape}; got {ses.shape}.")
    if (ses < 0).any():
        raise InputError(f"'ses' must hold non-negative numbers; got {float(ses[ses < 0][0])!r}.")
    n = np.asarray(n_reps, dtype=float)
    if n.ndim != 1 or len(n) != (len(means) if means.ndim else 1):
        raise InputError(f"'n_reps' must be a 1-d sequence of {len(means) if means.ndim else 1} counts; "
                         f"got shape {n.shape}.")
    if ((n < 0) | (n != np.floor(n))).any():
        raise InputError(f"'n_reps' must hold non-negative integers; got {float(n[(n < 0) | (n != np.floor(n))][0])!r}.")
    n = n.reshape((-1,) + (1,) * (means.ndim - 1)) if means.ndim else n[0]
    counts, index = np.unique(n, return_inverse=True)  # one factor per distinct count
    factor = _half_factor(counts, alpha, rho)[index].reshape(np.shape(n))
    with np.errstate(invalid="ignore"):
        half = np.where(ses == 0, 0.0, ses * factor)  # se = 0: a deterministic design, the point
    known = (n >= 2) & np.isfinite(half) & np.isfinite(means)
    infinite = np.isinf(means)  # some replication infinite: the true mean is infinite
    lo = np.where(known, means - np.where(known, half, 0.0), -np.inf)
    hi = np.where(known, means + np.where(known, half, 0.0), np.inf)
    lo, hi = np.where(infinite, means, lo), np.where(infinite, means, hi)
    return lo, hi


def _dominated_by(points: np.ndarray, queries: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
    """(len(queries),) bool: whether ``queries[i]`` is Pareto-dominated (<= everywhere, < somewhere)
    by some ``points[b]``, b != ``rows[i]`` (``rows`` None: any b). No NaN; infinities allowed."""
    K, m = points.shape
    if len(queries) == 0 or K == 0:
        return np.zeros(len(queries), dtype=bool)
    if m <= 2:
        return _dominated_by_2d(points, queries, rows)
    from mopt.core.pareto import pareto_mask

    # a point that dominates q is dominated by, or is, a point of the first non-dominated layer;
    # leaving one point out, of the first two layers (disjoint: one of them is not the one left out)
    finite = _finite_copy(points)  # moocore (pareto_mask) crashes on -inf with 3 objectives
    first = pareto_mask(finite)
    cand = np.flatnonzero(first)
    if rows is not None:
        rest = np.flatnonzero(~first)
        cand = np.sort(np.concatenate([cand, rest[pareto_mask(finite[rest])]]))
    P = points[cand][None]
    out = np.zeros(len(queries), dtype=bool)
    step = max(1, 2_000_000 // max(len(cand) * m, 1))
    for lo in range(0, len(queries), step):
        q = queries[lo:lo + step, None, :]
        dom = (P <= q).all(axis=2) & (P < q).any(axis=2)
        if rows is not None:
            dom &= cand[None, :] != rows[lo:lo + step, None]
        out[lo:lo + len(q)] = dom.any(axis=1)
    return out


def _finite_copy(points: np.ndarray) -> np.ndarray:
    """``points`` with each column's infinities replaced by finite numbers beyond its finite ones
    (the same order in every column, so the same dominance between the points)."""
    out = points.copy()
    for j in range(points.shape[1]):
        col = out[:, j]
        fin = col[np.isfinite(col)]
        low, high = (float(fin.min()), float(fin.max())) if len(fin) else (0.0, 0.0)
        span = max(high - low, 1.0)
        col[col == -np.inf] = low - span
        col[col == np.inf] = high + span
    return out


def _dominated_by_2d(points: np.ndarray, queries: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """:func:`_dominated_by` for one or two objectives: the points sorted by x, the prefix
    minima of y and (to leave ``rows[i]`` out) the prefix second-smallest y; b dominates q iff
    (x_b < x_q and y_b <= y_q) or (x_b <= x_q and y_b < y_q)."""
    K = len(points)
    px = points[:, 0]
    py = points[:, 1] if points.shape[1] == 2 else np.zeros(K)
    qx = queries[:, 0]
    qy = queries[:, 1] if points.shape[1] == 2 else np.zeros(len(queries))
    order = np.argsort(px)  # the order among equal x does not matter: a search takes all or none
    xs, ys = px[order], py[order]
    first = np.minimum.accumulate(ys)
    if rows is None:
        def best(k):  # the least y among the first k + 1 sorted points (inf: none)
            return np.where(k >= 0, first[np.maximum(k, 0)], np.inf), k >= 0
    else:
        position = np.empty(K, dtype=np.int64)
        position[order] = np.arange(K)
        mine, own = position[rows], ys[position[rows]]
        # the second-smallest of ys[0..k] is min over j <= k of max(ys[j], min(ys[:j]))
        second = np.minimum.accumulate(np.maximum(ys, np.r_[np.inf, first[:-1]]))

        def best(k):  # the least y among the first k + 1 sorted points other than rows[i]
            kk = np.maximum(k, 0)
            inside = mine <= k
            v = np.where(inside & (own == first[kk]), second[kk], first[kk])
            return v, k + 1 - inside > 0
    sort = np.argsort(qx, kind="stable")  # sorted queries: a quicker search
    sx = qx[sort]
    left, right = np.empty(len(qx), dtype=np.int64), np.empty(len(qx), dtype=np.int64)
    left[sort] = np.searchsorted(xs, sx, side="left") - 1
    right[sort] = np.searchsorted(xs, sx, side="right") - 1
    y, some = best(left)  # points with x_b < x_q
    out = some & (y <= qy)
    y, some = best(right)  # points with x_b <= x_q
    return out | (some & (y < qy))


def certified_sets(evaluations: pd.DataFrame, objectives, level: float = 0.95, rho: float | None = None
                   ) -> pd.DataFrame:
    """The classes certified efficient or dominated, at ``level`` for all at once and at every look.

    Parameters
    ----------
    evaluations : pandas.DataFrame
        A Result's ``evaluations``: ``design``, per objective ``<o>`` and ``<o>_se``, ``n_reps``,
        and optionally ``class`` (an int per design; without it each design is its own class).
        A class's numbers are its representative's (its smallest design index).
    objectives : sequence of str
        The objectives (all minimised).
    level : float in (0, 1)
        With probability at least ``level`` every status ``"efficient"`` and ``"dominated"`` is
        right, for every class and at every replication count (module docstring).
    rho : float > 0, optional
        The confidence sequences' mixing precision; default :func:`default_rho` of
        alpha = (1 - level) / (classes x objectives).

    Returns
    -------
    pandas.DataFrame
        One row per class, ordered by class: ``class``, ``design`` (the representative) and
        ``status`` in ``"efficient"``, ``"dominated"``, ``"undecided"``.

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6], [2.05, 2.05]], sd=0.3, n_reps=30)
    >>> result = mopt.solve(prob, "exhaustive", seed=1)
    >>> certified_sets(result.evaluations, result.objectives)
       class  design     status
    0      0       0  efficient
    1      1       1  undecided
    2      2       2  efficient
    3      3       3  dominated
    4      4       4  undecided
    """
    level = check_number("level", level, low=0, high=1, low_open=True, high_open=True)
    if not isinstance(evaluations, pd.DataFrame):
        raise InputError(f"'evaluations' must be a pandas DataFrame; got {type(evaluations).__name__}.")
    if isinstance(objectives, str) or not len(objectives := list(objectives)):
        raise InputError(f"'objectives' must be a non-empty sequence of column names; got {objectives!r}.")
    for name in ["design", *objectives, *(f"{o}_se" for o in objectives), "n_reps"]:
        if name not in evaluations.columns:
            raise InputError(f"'evaluations' must have a column {name!r} (a Result's evaluations).")
    ev = evaluations
    design = _numeric(ev, "design")
    if len(ev) and ((design != np.floor(design)) | ~np.isfinite(design)).any():
        raise InputError("'evaluations' column 'design' must hold integers.")
    if "class" in ev.columns:
        cls = _numeric(ev, "class")
        if len(ev) and ((cls != np.floor(cls)) | ~np.isfinite(cls)).any():
            raise InputError("'evaluations' column 'class' must hold integers.")
        order = np.lexsort((design, cls))  # each class's representative first
        starts = np.flatnonzero(np.r_[True, cls[order][1:] != cls[order][:-1]]) if len(ev) else np.empty(0, int)
        rows = order[starts]
    else:  # each design a class, numbered in the order of the design indices
        rows = np.argsort(design, kind="stable")
        cls = np.empty(len(ev))
        cls[rows] = np.arange(len(ev))
    K, m = len(rows), len(objectives)
    means = np.column_stack([_numeric(ev, o)[rows] for o in objectives]) if K else np.empty((0, m))
    ses = np.column_stack([_numeric(ev, f"{o}_se")[rows] for o in objectives]) if K else np.empty((0, m))
    if (ses < 0).any():
        raise InputError("'evaluations' standard errors ('<objective>_se') must be non-negative.")
    n = _numeric(ev, "n_reps")[rows]
    n = np.where(np.isfinite(n) & (n >= 0), np.floor(n), 0.0)
    alpha = (1.0 - level) / max(K * m, 1)
    lo, hi = confidence_sequence(means, ses, n, alpha, rho)
    # dominated: some class's upper corner dominates A's lower corner (never A's own: hi >= lo);
    # efficient: no other class's lower corner dominates A's upper corner (only where not dominated)
    dominated = _dominated_by(hi, lo)
    efficient = np.zeros(K, dtype=bool)
    rest = np.flatnonzero(~dominated)
    efficient[rest] = ~_dominated_by(lo, hi[rest], rest)
    status = np.array(STATUSES, dtype=object)[np.where(efficient, 0, np.where(dominated, 1, 2))]
    return pd.DataFrame({"class": cls[rows].astype(np.int64), "design": design[rows].astype(np.int64),
                         "status": status})


def _numeric(ev: pd.DataFrame, name: str) -> np.ndarray:
    """Column ``name`` as floats (InputError naming it if it is not numeric)."""
    try:
        return ev[name].to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'evaluations' column {name!r} must be numeric.") from None


def certified_status(result, level: float = 0.95):
    """Each class's certified status (a Series indexed by class, or by design without classes), or
    None when the result has no standard errors."""
    ev = result.evaluations
    if not all(f"{o}_se" in ev.columns for o in result.objectives) or "n_reps" not in ev.columns:
        return None
    sets = result.certified(level)
    return sets.set_index("class" if "class" in ev.columns else "design")["status"]
