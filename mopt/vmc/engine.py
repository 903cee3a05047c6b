"""The compiled period engine: schedules × replications × sub-intervals (Numba).

The same rules as :func:`mopt.vmc.period.run_intervals` (the corrected Algorithm 1); an independent
plain-Python model lives in ``benchmarks/vmc_reference.py`` and a test compares the two.
"""

from __future__ import annotations

import threading

import numpy as np
from numba import njit, prange

__all__ = ["clear_times", "class_busy", "task_time_table"]

_LOCK = threading.Lock()  # numba's workqueue layer aborts if two threads launch parallel kernels at once


def task_time_table(mean, sd, Z, sizes, eps_frac: float) -> np.ndarray:
    """``inv[c, k, r, j]``: seconds per task of the whole cluster of class c with ``sizes[c, k]`` VMs.

    That is p / v with ``p = max(eps_frac·μ, μ + σ·z)``, ``z = Z[r, j, c]`` shared by every schedule
    (common random numbers), μ and σ from the profiling table for v VMs (``mean[c, v]``, ``sd[c, v]``).
    ``sizes`` (C, V) lists the cluster sizes needed per class (≥ 1).
    """
    C = mean.shape[0]
    c = np.arange(C)[:, None]
    mu, sig = mean[c, sizes], sd[c, sizes]  # (C, V)
    Zc = np.moveaxis(Z, 2, 0)  # (C, R, J)
    p = mu[:, :, None, None] + sig[:, :, None, None] * Zc[:, None, :, :]
    p = np.maximum(p, eps_frac * mu[:, :, None, None])
    return p / sizes[:, :, None, None]


def class_busy(inv, L, A, b0) -> tuple[np.ndarray, np.ndarray]:
    """Per class and cluster size: ``cet[c, v, j, r]`` and ``tail[c, v, r]`` (backlog clearing time).

    A class's cluster evolves independently of the others: its CET in sub-interval j depends only
    on its own VM count v, so it is computed once per (class, v), not once per schedule.  Rules:
    δ = backlog + Δδ; CET = min(δ·q, L) with q = p/v the seconds per task of the cluster; the
    backlog after is δ − L/q when the cluster stays busy, else 0; the tail is backlog·q of the last
    sub-interval.
    """
    C, V1, R, J = inv.shape
    q = np.moveaxis(inv, 3, 2)  # (C, V1, J, R)
    cet = np.empty((C, V1, J, R))
    b = np.broadcast_to(np.asarray(b0, dtype=float)[:, None, None], (C, V1, R)).copy()
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(J):
            d = b + A[j][:, None, None]
            need = d * q[:, :, j]
            busy = need > L[j]
            cet[:, :, j] = np.where(busy, L[j], need)
            b = np.where(busy, d - L[j] / q[:, :, j], 0.0)
        tail = b * q[:, :, J - 1]
    return cet, tail


def _combine_py(S, cet, tail):  # pragma: no cover - compiled below
    n, C = S.shape
    J, R = cet.shape[2], cet.shape[3]
    out = np.empty((n, R))
    for s in prange(n):
        acc = np.zeros(R)
        m = np.empty(R)
        for j in range(J):
            m[:] = cet[0, S[s, 0], j]
            for c in range(1, C):
                row = cet[c, S[s, c], j]
                for r in range(R):
                    m[r] = max(m[r], row[r])
            for r in range(R):
                acc[r] += m[r]
        m[:] = tail[0, S[s, 0]]
        for c in range(1, C):
            row = tail[c, S[s, c]]
            for r in range(R):
                m[r] = max(m[r], row[r])
        for r in range(R):
            out[s, r] = acc[r] + m[r]
    return out


_combine = njit(cache=True, parallel=True, fastmath=True)(_combine_py)
_combine_serial = njit(cache=True, fastmath=True)(_combine_py)  # small calls: no thread launch
#: below this many (schedule, replication) pairs the serial kernel runs
SERIAL_BELOW = 200_000


def clear_times(S, mean, sd, Z, eps_frac, L, A, b0) -> np.ndarray:
    """Period objective (time to clear the period's work) of schedules ``S`` (n, C) in every
    replication: Σ_j EET_j + max_c backlog_c(end) / β_c, shape (n, R).

    ``Z`` (R, J, C) are the replications' normals; β_c at the end is that of the last sub-interval's
    draw.  Only the cluster sizes that ``S`` uses are simulated, once per class.
    """
    S = np.asarray(S, dtype=np.int64)
    C = S.shape[1]
    used = [np.unique(S[:, c]) for c in range(C)]
    V = max(len(u) for u in used)
    sizes = np.array([np.pad(u, (0, V - len(u)), mode="edge") for u in used])  # (C, V)
    pos = np.stack([np.searchsorted(used[c], S[:, c]) for c in range(C)], axis=1)
    inv = task_time_table(mean, sd, Z, sizes, eps_frac)
    cet, tail = class_busy(inv, np.asarray(L, dtype=float), np.asarray(A, dtype=float), b0)
    pos = np.ascontiguousarray(pos)
    if len(S) * Z.shape[0] < SERIAL_BELOW:
        return _combine_serial(pos, cet, tail)
    with _LOCK:
        return _combine(pos, cet, tail)
