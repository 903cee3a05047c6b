"""The period model: the paper's Algorithm 1, corrected (fluid model of virtual clusters).

Virtual cluster c has θ_c VMs; one task of class c takes p_c seconds on one VM, so the cluster serves
β_c = θ_c / p_c tasks per second.  Within a period, batches arrive at t_{i,0} < t_{i,1} < ...; the
sub-interval j runs from one arrival to the next and the **last sub-interval, up to the period's end,
counts**.  Per sub-interval of length L and class c: δ_c = backlog_c + Δδ_c; if δ_c/β_c > L the
cluster stays busy (CET_c = L, backlog_c = δ_c − β_c·L), else CET_c = δ_c/β_c and backlog_c = 0.
EET = max_c CET_c.  A period's busy time is Σ_j EET_j, its finished work Σ_j Σ_c (δ_c − backlog_c),
its throughput finished / busy time.

These formulas correct the printed Algorithm 1, which uses L·p_c as the tasks done (θ_c never
appears), can give a negative CET, drops the last sub-interval and divides by θ* instead of the
makespan (see the project's specification, §2).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_array
from mopt.vmc.space import check_schedule

__all__ = ["execute", "run_intervals", "intervals", "check_workload"]


def run_intervals(rate, lengths, arrivals, backlog):
    """Advance the fluid model over consecutive sub-intervals (the kernel of :func:`execute`).

    Parameters
    ----------
    rate : ndarray (K, C)
        β_c in each sub-interval (tasks per second of the whole cluster of class c).
    lengths : ndarray (K,)
        Sub-interval lengths L.
    arrivals : ndarray (K, C)
        Tasks arriving at the start of each sub-interval.
    backlog : ndarray (C,)
        Tasks waiting before the first sub-interval.

    Returns
    -------
    eet, finished : ndarray (K,)
        EET_j and the tasks finished in each sub-interval.
    backlog : ndarray (C,)
        Tasks waiting after the last one.

    Examples
    --------
    >>> eet, done, b = run_intervals(np.array([[1.0]]), np.array([4.0]), np.array([[6.0]]), np.zeros(1))
    >>> eet.tolist(), done.tolist(), b.tolist()
    ([4.0], [4.0], [2.0])
    """
    K = len(lengths)
    b = np.array(backlog, dtype=float)
    eet = np.zeros(K)
    finished = np.zeros(K)
    for j in range(K):
        delta = b + arrivals[j]
        need = delta / rate[j]
        busy = need > lengths[j]
        cet = np.where(busy, lengths[j], need)
        b = np.where(busy, delta - rate[j] * lengths[j], 0.0)
        eet[j] = cet.max() if cet.size else 0.0
        finished[j] = float((delta - b).sum())
    return eet, finished, b


def _empty(x) -> bool:
    try:
        return len(x) == 0
    except TypeError:  # a scalar: not a workload either, check_array names it
        return False


#: the most tasks of one class in one batch (ours): beyond it no period clears and the model's sums
#: lose their precision
MAX_BATCH = 1e9


def check_workload(times, batches, n_classes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``times`` (sorted, finite) and ``batches`` (one row per batch, non-negative finite), checked."""
    if _empty(times) and _empty(batches):
        raise InputError("the workload is empty: 'times' and 'batches' must hold at least one batch.")
    t = check_array("times", times, ndim=1)
    A = check_array("batches", batches, ndim=2, nonnegative=True)
    if len(A) != len(t):
        raise InputError(f"'batches' must have one row per arrival time ({len(t)}); got {len(A)}.")
    if n_classes is not None and A.shape[1] != n_classes:
        raise InputError(f"'batches' must have one column per class ({n_classes}); got {A.shape[1]}.")
    if A.size and A.max() > MAX_BATCH:
        row, col = np.unravel_index(int(np.argmax(A)), A.shape)
        raise InputError(f"'batches' must hold at most {MAX_BATCH:.0e} tasks of a class in one batch; got "
                         f"{A[row, col]:g} (batch {row + 1}, class {col + 1}).")
    if (np.diff(t) < 0).any():
        k = int(np.flatnonzero(np.diff(t) < 0)[0]) + 1
        raise InputError(f"'times' must be sorted; got {t[k]:g} after {t[k - 1]:g} at position {k}.")
    return t, A


def intervals(times, batches, start: float, end: float) -> tuple[np.ndarray, np.ndarray]:
    """Sub-intervals of the period [start, end): their lengths and the arrivals at their starts.

    Boundaries are ``start`` and every batch time in [start, end) (batches at the same instant are
    summed; a batch exactly at ``end`` belongs to the next period).

    Examples
    --------
    >>> L, A = intervals([1.0, 3.0, 5.0], [[1.0], [2.0], [4.0]], 0.0, 5.0)
    >>> L.tolist(), A.tolist()
    ([1.0, 2.0, 2.0], [[0.0], [1.0], [2.0]])
    """
    t = np.asarray(times, dtype=float)
    A = np.asarray(batches, dtype=float)
    inside = (t >= start) & (t < end)
    bounds, where = np.unique(np.concatenate([[start], t[inside]]), return_inverse=True)
    arr = np.zeros((len(bounds), A.shape[1]))
    np.add.at(arr, where[1:], A[inside])
    return np.diff(np.append(bounds, end)), arr


def execute(schedule, p, times, batches, period_ends, backlog=None) -> pd.DataFrame:
    """Run ``schedule`` over consecutive periods with fixed per-class task times ``p``.

    Parameters
    ----------
    schedule : sequence of int
        VMs per class (each ≥ 1).
    p : sequence of float
        Seconds per task on one VM, per class (> 0).
    times : sequence of float
        Sorted batch arrival times.
    batches : 2-D array
        One row per batch, one column per class: tasks arriving.
    period_ends : sequence of float
        Increasing ends of the periods.  The first period starts at ``times[0]``; period k is
        [period_ends[k−1], period_ends[k]).  Batches at or after the last end are not run.
    backlog : sequence of float or None
        Tasks waiting at the start (None: none).

    Returns
    -------
    DataFrame
        One row per period: ``period``, ``start``, ``end``, ``busy_time``, ``finished``,
        ``throughput`` (finished / busy time; NaN when the clusters were idle) and ``backlog_<c>``
        (tasks waiting at the period's end, classes from 1).

    Examples
    --------
    >>> df = execute([1, 1], [2.0, 1.0], [0.0], [[2.0, 2.0]], [10.0])
    >>> df[["busy_time", "finished", "throughput"]].iloc[0].tolist()
    [4.0, 4.0, 1.0]
    """
    theta = check_schedule(schedule)
    C = len(theta)
    p = check_array("p", p, ndim=1, shape=(C,))
    if (p <= 0).any():
        k = int(np.flatnonzero(p <= 0)[0])
        raise InputError(f"'p' must hold finite numbers > 0 (seconds per task); got {p[k]:g} at position {k}.")
    t, A = check_workload(times, batches, C)
    ends = check_array("period_ends", period_ends, ndim=1)
    if (np.diff(ends) <= 0).any() or ends[0] <= t[0]:
        raise InputError(f"'period_ends' must be increasing and after the first arrival {t[0]:g}.")
    b = np.zeros(C) if backlog is None else check_array("backlog", backlog, ndim=1, shape=(C,), nonnegative=True)
    beta = theta / p
    rows = []
    starts = np.concatenate([[t[0]], ends[:-1]])
    for k, (s, e) in enumerate(zip(starts, ends, strict=True)):
        L, arr = intervals(t, A, s, e)
        eet, done, b = run_intervals(np.broadcast_to(beta, arr.shape), L, arr, b)
        busy, fin = float(eet.sum()), float(done.sum())
        row = {"period": k, "start": float(s), "end": float(e), "busy_time": busy, "finished": fin,
               "throughput": fin / busy if busy > 0 else np.nan}
        row.update({f"backlog_{c + 1}": float(b[c]) for c in range(C)})
        rows.append(row)
    return pd.DataFrame(rows)
