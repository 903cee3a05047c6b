"""eOO's adaptive stages: Algorithm 2 (partition) and Algorithm 3 (merge) of Zhang et al. (2014).

Both depend only on the batch arrivals, so they run up front on a grid of base periods.

- Algorithm 2: a stage of width ≥ ``w`` whose batches are all pairwise dissimilar (the largest
  similarity ≤ ``split_threshold``, the paper's α) is halved, and each half is tested again;
  otherwise it is kept.  A stage with fewer than two batches is not split.  (The printed
  pseudo-code forgets to record one of its decision points; this records every kept stage.)
- Algorithm 3: a stage of width ≤ ``W`` whose batches are all similar to the next stage's (the
  smallest similarity > ``merge_threshold``, the paper's β) absorbs that stage and is tested again.
  Between two stages, one without batches is similar only to another without batches (the
  zero-vector rules of :func:`~mopt.vmc.workload.similarity`).

With w = W = the base period t, stages are 0.5·t, t or 2·t long (§III.C of the paper).

Both read the batches of the stage itself and (Algorithm 3) of the stage after it, so run up front
they suit the paper's look-ahead only.  Under stale information (ours) a stage's width is decided
when the search of that stage starts, from the arrivals before then: :func:`stale_stage_width`.
"""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError, check_array, check_number
from mopt.vmc.period import check_workload
from mopt.vmc.workload import similarity

__all__ = ["partition", "merge", "adaptive_stages", "stale_stage_width", "check_threshold", "check_bounds"]


def check_threshold(name: str, value) -> float:
    """A similarity threshold in [0, 1]."""
    return check_number(name, value, low=0, high=1)


def check_bounds(bounds) -> np.ndarray:
    """Stage boundaries: at least two, finite and increasing."""
    b = check_array("bounds", bounds, ndim=1)
    if len(b) < 2 or (np.diff(b) <= 0).any():
        raise InputError(f"'bounds' must be at least two increasing stage boundaries; got {b.tolist()}.")
    return b


def _batches_in(times, batches, a, b):
    k = (times >= a) & (times < b)
    return batches[k]


def _pairwise_max(A) -> float:
    n = len(A)
    S = similarity(A[:, None, :], A[None, :, :])
    return float(S[~np.eye(n, dtype=bool)].max())


def partition(times, batches, bounds, w: float, split_threshold: float) -> np.ndarray:
    """Algorithm 2: stage boundaries after halving the dissimilar stages.

    Examples
    --------
    Two orthogonal batches in [0, 10) split it; two equal ones in [10, 20) do not:

    >>> partition([1, 6, 11, 16], [[1, 0], [0, 1], [1, 0], [1, 0]], [0, 10, 20], 10, 0.5).tolist()
    [0.0, 5.0, 10.0, 20.0]
    """
    t, A = check_workload(times, batches)
    bounds = check_bounds(bounds)
    w = check_number("w", w, low=0, low_open=True)
    alpha = check_threshold("split_threshold", split_threshold)
    out = [float(bounds[0])]

    def visit(a, b):
        inside = _batches_in(t, A, a, b)
        if b - a >= w and len(inside) >= 2 and _pairwise_max(inside) <= alpha:
            mid = (a + b) / 2
            visit(a, mid)
            visit(mid, b)
        else:
            out.append(float(b))

    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        visit(float(a), float(b))
    return np.array(out)


def _similar(P, Q, beta) -> bool:
    if len(P) == 0 or len(Q) == 0:
        return len(P) == len(Q)
    return float(similarity(P[:, None, :], Q[None, :, :]).min()) > beta


def merge(times, batches, bounds, W: float, merge_threshold: float) -> np.ndarray:
    """Algorithm 3: stage boundaries after merging each short stage with similar successors.

    Examples
    --------
    [0, 10) and [10, 20) hold the same mix and merge; [20, 30) differs and stays:

    >>> merge([1, 11, 21], [[1, 0], [2, 0], [0, 1]], [0, 10, 20, 30], 10, 0.5).tolist()
    [0.0, 20.0, 30.0]
    """
    t, A = check_workload(times, batches)
    bounds = [float(x) for x in check_bounds(bounds)]
    W = check_number("W", W, low=0, low_open=True)
    beta = check_threshold("merge_threshold", merge_threshold)
    out = [bounds[0]]
    k = 0
    while k < len(bounds) - 1:
        a, b = bounds[k], bounds[k + 1]
        while (k + 2 < len(bounds) and b - a <= W
               and _similar(_batches_in(t, A, a, b), _batches_in(t, A, b, bounds[k + 2]), beta)):
            k += 1
            b = bounds[k + 1]
        out.append(b)
        k += 1
    return np.array(out)


def adaptive_stages(times, batches, start: float, end: float, t: float, split_threshold: float,
                    merge_threshold: float) -> np.ndarray:
    """eOO's stage boundaries over [start, end): base periods of width ``t``, split (Algorithm 2,
    w = t), then merged (Algorithm 3, W = t).  The last base period may be shorter.

    Examples
    --------
    >>> adaptive_stages([1, 6], [[1, 0], [0, 1]], 0, 20, 10, 0.5, 0.5).tolist()
    [0.0, 5.0, 10.0, 20.0]
    """
    t = check_number("t", t, low=0, low_open=True)
    start = check_number("start", start)
    end = check_number("end", end, low=start, low_open=True, low_name=f"start={start:g}")
    grid = np.append(np.arange(start, end, t), end)
    if len(grid) > 2 and grid[-1] - grid[-2] <= 0:
        grid = grid[:-1]
    stages = partition(times, batches, grid, t, split_threshold)
    return merge(times, batches, stages, t, merge_threshold)


def stale_stage_width(times, batches, seen: float, t: float, split_threshold: float, merge_threshold: float,
                      start: float = -np.inf) -> float:
    """Width of eOO's stage whose search starts at ``seen``, from the arrivals before ``seen`` only
    (ours, for ``information="stale"``: Algorithms 2 and 3 read the stage's own and the next stage's
    batches, which a search at ``seen`` has not seen).

    The last base period, [seen − t, seen), stands for the stage, as the stale search replays it:

    - Algorithm 2: its batches, at least two, all pairwise dissimilar (largest similarity ≤
      ``split_threshold``): the stage is halved, 0.5·t;
    - else Algorithm 3: its batches all similar to those of the base period before it, [seen − 2t,
      seen − t) (smallest similarity > ``merge_threshold``; the zero-vector rules of :func:`merge`):
      the stage absorbs the next, 2·t;
    - else t.

    A base period that begins before ``start`` (nothing observed yet) counts as neither.  Batches at
    or after ``seen`` are never read.

    Examples
    --------
    Two orthogonal batches in [10, 20) halve the stage searched at 20; a third like the second, at
    20, is not yet known there, and at 30 the base period [20, 30) holds one batch, like [10, 20)'s
    last, so not like both of its batches:

    >>> times, B = [11, 16, 20], [[1, 0], [0, 1], [0, 1]]
    >>> stale_stage_width(times, B, 20, 10, 0.5, 0.5, start=0)
    5.0
    >>> stale_stage_width(times, B, 30, 10, 0.5, 0.5, start=0)
    10.0
    >>> stale_stage_width([1, 11], [[1, 0], [2, 0]], 20, 10, 0.5, 0.5, start=0)  # alike: merged
    20.0
    """
    tm, A = check_workload(times, batches)
    seen = check_number("seen", seen)
    t = check_number("t", t, low=0, low_open=True)
    alpha = check_threshold("split_threshold", split_threshold)
    beta = check_threshold("merge_threshold", merge_threshold)
    known = tm < seen
    tm, A = tm[known], A[known]
    last = _batches_in(tm, A, seen - t, seen)
    if seen - t >= start and len(last) >= 2 and _pairwise_max(last) <= alpha:
        return 0.5 * t
    if seen - 2 * t >= start and _similar(_batches_in(tm, A, seen - 2 * t, seen - t), last, beta):
        return 2.0 * t
    return float(t)
