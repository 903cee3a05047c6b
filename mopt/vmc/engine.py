"""The compiled period engine: schedules × replications × sub-intervals (Numba).

Two noise models (spec §3): :func:`clear_times_independent` draws every schedule's own task times
(the paper's Algorithm 1, the default); :func:`clear_times` and :func:`clear_times_all` share one
draw per (replication, sub-interval, class) among all schedules (common random numbers, ours), which
lets them simulate each (class, cluster size) once and combine.

The same rules as :func:`mopt.vmc.period.run_intervals` (the corrected Algorithm 1); an independent
plain-Python model lives in ``tests/reference/vmc_reference.py`` and a test compares the two.
"""

from __future__ import annotations

import threading

import numba
import numpy as np
from numba import njit, prange

from mopt.core.execute import kernel_threads
from mopt.vmc.noise import ZIGGURAT, fill_normals, rep_key, stream_key

__all__ = ["clear_times", "clear_times_all", "clear_times_independent", "class_busy"]

_LOCK = threading.Lock()  # numba's workqueue layer aborts if two threads launch parallel kernels at once


@njit(cache=True, fastmath=False)
def _class_busy(mu, sig, sizes, Z, eps_frac, L, A, b0):  # pragma: no cover - compiled
    C, V = sizes.shape
    R, J = Z.shape[0], Z.shape[1]
    cet = np.empty((C, V, J, R))
    tail = np.empty((C, V, R))
    for c in range(C):
        for k in range(V):
            m, s, v = mu[c, k], sig[c, k], sizes[c, k]
            floor = eps_frac * m
            for r in range(R):
                b = b0[c]
                q = 0.0
                for j in range(J):
                    p = m + s * Z[r, j, c]
                    if p < floor:
                        p = floor
                    q = p / v  # seconds per task of the whole cluster
                    d = b + A[j, c]
                    need = d * q
                    if need > L[j]:
                        cet[c, k, j, r] = L[j]
                        b = d - L[j] / q
                    else:
                        cet[c, k, j, r] = need
                        b = 0.0
                tail[c, k, r] = b * q
    return cet, tail


def class_busy(mean, sd, sizes, Z, eps_frac, L, A, b0) -> tuple[np.ndarray, np.ndarray]:
    """Per class and cluster size: ``cet[c, k, j, r]`` and ``tail[c, k, r]`` (backlog clearing time).

    A class's cluster evolves independently of the others: its CET in sub-interval j depends only
    on its own VM count v = ``sizes[c, k]``, so it is computed once per (class, v), not once per
    schedule.  Rules: p = max(ε·μ, μ + σ·z); q = p/v seconds per task of the cluster; δ = backlog
    + Δδ; CET = δ·q if that is ≤ L, else L with backlog δ − L/q after; the tail is backlog·q of
    the last sub-interval.
    """
    c = np.arange(mean.shape[0])[:, None]
    return _class_busy(np.ascontiguousarray(mean[c, sizes]), np.ascontiguousarray(sd[c, sizes]),
                       sizes.astype(float), np.ascontiguousarray(Z, dtype=float), float(eps_frac),
                       np.ascontiguousarray(L, dtype=float), np.ascontiguousarray(A, dtype=float),
                       np.ascontiguousarray(b0, dtype=float))


@njit(cache=True, fastmath=True)
def _one(s, S, cet, tail, out):  # pragma: no cover - compiled
    """out[s, r] = Σ_j max_c cet[c, S[s, c], j, r] + max_c tail[c, S[s, c], r]."""
    C = S.shape[1]
    J, R = cet.shape[2], cet.shape[3]
    m = np.empty(R)
    for r in range(R):
        out[s, r] = 0.0
    for j in range(J):
        m[:] = cet[0, S[s, 0], j]
        for c in range(1, C):
            row = cet[c, S[s, c], j]
            for r in range(R):
                m[r] = max(m[r], row[r])
        for r in range(R):
            out[s, r] += m[r]
    m[:] = tail[0, S[s, 0]]
    for c in range(1, C):
        row = tail[c, S[s, c]]
        for r in range(R):
            m[r] = max(m[r], row[r])
    for r in range(R):
        out[s, r] += m[r]


# two kernels with distinct names: numba's on-disk cache keys a function by name and signature, not
# by its flags, so one Python function compiled twice (parallel and serial) shares one cache entry
@njit(cache=True, parallel=True)
def _combine(S, cet, tail):  # pragma: no cover - compiled
    out = np.empty((S.shape[0], cet.shape[3]))
    for s in prange(S.shape[0]):
        _one(s, S, cet, tail, out)
    return out


@njit(cache=True)
def _combine_serial(S, cet, tail):  # pragma: no cover - compiled; small calls: no thread launch
    out = np.empty((S.shape[0], cet.shape[3]))
    for s in range(S.shape[0]):
        _one(s, S, cet, tail, out)
    return out


def _parallel(kernel, *args):
    """``kernel(*args)`` (a ``prange`` kernel) on :func:`~mopt.core.execute.kernel_threads`
    threads, one launch at a time."""
    with _LOCK:
        numba.set_num_threads(min(kernel_threads(), numba.config.NUMBA_NUM_THREADS))
        return kernel(*args)


#: below this many (schedule, replication) pairs the serial kernel runs
SERIAL_BELOW = 200_000
#: up to this many schedules, each schedule's clusters are simulated without de-duplication
SMALL = 8


def clear_times(S, mean, sd, Z, eps_frac, L, A, b0) -> np.ndarray:
    """Period objective (time to clear the period's work) of schedules ``S`` (n, C) in every
    replication: Σ_j EET_j + max_c backlog_c(end) / β_c, shape (n, R).

    ``Z`` (R, J, C) are the replications' normals; β_c at the end is that of the last sub-interval's
    draw.  Only the cluster sizes that ``S`` uses are simulated, once per class.
    """
    S = np.asarray(S, dtype=np.int64)
    n, C = S.shape
    if n <= SMALL:  # a few schedules: simulate each one's clusters, no de-duplication
        sizes = np.ascontiguousarray(S.T)
        pos = np.broadcast_to(np.arange(n)[:, None], (n, C))
    else:
        used = [np.unique(S[:, c]) for c in range(C)]
        V = max(len(u) for u in used)
        sizes = np.array([np.pad(u, (0, V - len(u)), mode="edge") for u in used])  # (C, V)
        pos = np.stack([np.searchsorted(used[c], S[:, c]) for c in range(C)], axis=1)
    cet, tail = class_busy(mean, sd, sizes, Z, eps_frac, L, A, b0)
    pos = np.ascontiguousarray(pos)
    if len(S) * Z.shape[0] < SERIAL_BELOW:
        return _combine_serial(pos, cet, tail)
    return _parallel(_combine, pos, cet, tail)


@njit(cache=True, fastmath=True)
def _space_block(cet, tail, theta, v1, out, start):  # pragma: no cover - compiled
    """Schedules with θ_1 = v1 in lexicographic order from row ``start`` of ``out``: a depth-first
    walk over the classes keeping the running maxima of the classes fixed so far, so a schedule
    costs the maxima with its last two classes only (cet/tail indexed by VM count − 1)."""
    C, J, R = cet.shape[0], cet.shape[2], cet.shape[3]
    M = np.empty((C, J, R))
    Mt = np.empty((C, R))
    M[0] = cet[0, v1 - 1]
    Mt[0] = tail[0, v1 - 1]
    vals = np.zeros(C, dtype=np.int64)
    rem = np.zeros(C, dtype=np.int64)
    rem[1] = theta - v1
    pos = start
    k = 1
    while k >= 1:
        vals[k] += 1
        if vals[k] > rem[k] - (C - 1 - k):  # every later class needs a VM
            vals[k] = 0
            k -= 1
            continue
        a = vals[k] - 1
        if k == C - 2:  # a leaf: classes C−2 and C−1 (the last one takes what is left)
            b = rem[k] - vals[k] - 1
            for r in range(R):
                out[pos, r] = 0.0
            for j in range(J):
                for r in range(R):
                    out[pos, r] += max(max(M[k - 1, j, r], cet[k, a, j, r]), cet[C - 1, b, j, r])
            for r in range(R):
                out[pos, r] += max(max(Mt[k - 1, r], tail[k, a, r]), tail[C - 1, b, r])
            pos += 1
        else:
            for j in range(J):
                for r in range(R):
                    M[k, j, r] = max(M[k - 1, j, r], cet[k, a, j, r])
            for r in range(R):
                Mt[k, r] = max(Mt[k - 1, r], tail[k, a, r])
            rem[k + 1] = rem[k] - vals[k]
            k += 1


@njit(cache=True, parallel=True)
def _space(cet, tail, theta, starts):  # pragma: no cover - compiled
    top = cet.shape[1]
    out = np.empty((starts[-1], cet.shape[3]))
    for v1 in prange(1, top + 1):
        _space_block(cet, tail, theta, v1, out, starts[v1 - 1])
    return out


def clear_times_all(theta: int, mean, sd, Z, eps_frac, L, A, b0) -> np.ndarray:
    """:func:`clear_times` of every schedule of θ VMs over C ≥ 3 classes, in rank order, shape (u, R).

    The same values, faster: the schedules are walked in lexicographic order and the maxima over
    the classes fixed so far are shared by every schedule that extends them.
    """
    from mopt.vmc.space import count_partitions

    C = mean.shape[0]
    top = theta - C + 1
    sizes = np.tile(np.arange(1, top + 1), (C, 1))
    cet, tail = class_busy(mean, sd, sizes, Z, eps_frac, L, A, b0)
    # rows of the block θ_1 = v start after every schedule with a smaller θ_1
    counts = [count_partitions(theta - v, C - 1) for v in range(1, top + 1)]
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return _parallel(_space, cet, tail, int(theta), starts)


#: replications simulated together per schedule by the independent-draw kernel (SIMD lanes)
_LANES = 32


@njit(inline="always")
def _one_independent(s, S, ranks, mu, sig, base, reps, eps_frac, L, A, b0, kn, wn, fn, out):  # pragma: no cover
    """out[s, k]: schedule ``S[s]``'s objective in replication ``reps[k]``, with its own draws.

    Replications go in blocks of :data:`_LANES`, the inner loop over a block's replications (so it
    runs in SIMD lanes): the rules of :func:`class_busy` written without branches, CET = min(δ·q, L)
    and backlog = max(δ − L/q, 0) (the same values up to one rounding where δ·q is within an ulp of L).
    """
    C, J, R = S.shape[1], L.shape[0], reps.shape[0]
    K = C * J
    z = np.empty((_LANES, K))
    hz_buf = np.empty(K, dtype=np.int64)
    eet = np.empty((J, _LANES))
    b = np.empty(_LANES)
    tail = np.empty(_LANES)
    for k0 in range(0, R, _LANES):
        nb = min(_LANES, R - k0)
        for i in range(nb):
            fill_normals(rep_key(base, ranks[s], reps[k0 + i]), z[i], hz_buf, kn, wn, fn)  # z[i, c·J + j]
        eet[:, :] = 0.0
        tail[:] = 0.0
        for c in range(C):
            m, sd, inv_v = mu[c, S[s, c]], sig[c, S[s, c]], 1.0 / S[s, c]
            floor = eps_frac * m
            b[:] = b0[c]
            for j in range(J):
                Lj, Aj, kk = L[j], A[j, c], c * J + j
                for i in range(nb):
                    q = max(m + sd * z[i, kk], floor) * inv_v  # seconds per task of the whole cluster
                    d = b[i] + Aj
                    eet[j, i] = max(eet[j, i], min(d * q, Lj))
                    b[i] = max(d - Lj / q, 0.0)
            kk = c * J + J - 1
            for i in range(nb):
                tail[i] = max(tail[i], b[i] * (max(m + sd * z[i, kk], floor) * inv_v))
        for i in range(nb):
            total = tail[i]
            for j in range(J):
                total += eet[j, i]
            out[s, k0 + i] = total


@njit(cache=True, parallel=True)
def _independent(S, ranks, mu, sig, base, reps, eps_frac, L, A, b0, kn, wn, fn):  # pragma: no cover
    out = np.empty((S.shape[0], reps.shape[0]))
    for s in prange(S.shape[0]):
        _one_independent(s, S, ranks, mu, sig, base, reps, eps_frac, L, A, b0, kn, wn, fn, out)
    return out


@njit(cache=True)
def _independent_serial(S, ranks, mu, sig, base, reps, eps_frac, L, A, b0, kn, wn, fn):  # pragma: no cover
    out = np.empty((S.shape[0], reps.shape[0]))
    for s in range(S.shape[0]):
        _one_independent(s, S, ranks, mu, sig, base, reps, eps_frac, L, A, b0, kn, wn, fn, out)
    return out


def clear_times_independent(S, ranks, mean, sd, entropy: int, reps, eps_frac, L, A, b0) -> np.ndarray:
    """:func:`clear_times` with independent draws: schedule ``S[s]`` (rank ``ranks[s]``) in
    replication r uses :func:`mopt.vmc.noise.independent_normals` ``(entropy, ranks[s], r)``, its own
    z per (sub-interval, class) — the paper's Algorithm 1, which simulates p "N times" for each
    schedule.  Shape (n, len(reps)); each schedule walks its classes itself (no sharing is possible).
    """
    S = np.ascontiguousarray(S, dtype=np.int64)
    reps = np.ascontiguousarray(reps, dtype=np.int64).reshape(-1)
    args = (S, np.ascontiguousarray(ranks, dtype=np.int64).reshape(-1), np.ascontiguousarray(mean, dtype=float),
            np.ascontiguousarray(sd, dtype=float), stream_key(entropy), reps, float(eps_frac),
            np.ascontiguousarray(L, dtype=float), np.ascontiguousarray(A, dtype=float),
            np.ascontiguousarray(b0, dtype=float), *ZIGGURAT)
    if len(S) * len(reps) < SERIAL_BELOW // 4:
        return _independent_serial(*args)
    return _parallel(_independent, *args)
