"""Independent task-time draws per schedule (spec §3, the paper's noise model), compiled.

The paper's Algorithm 1 (lines 8–10) simulates p_c "N times" for each schedule, each sub-interval
and class: every schedule draws its own task times.  Here replication r of schedule θ has its own
stream, addressed by (seed, rank of θ, r) and never by its position in a batch, so the values do
not depend on the order of evaluation, the batch size, the candidate set or the number of workers.

The stream (ours): counter-based, draw k of replication r of schedule θ hashes ``key + (k+1)·γ``
with SplitMix64's finaliser, ``key = mix(mix(base ^ mix(rank)) + mix(r))`` and ``base`` a 64-bit
key drawn from ``SeedSequence(seed)``; the 64-bit hashes become normals by the ziggurat method of Marsaglia and Tsang (J. Stat. Softw. 5(8), 2000; 128 layers, 32-bit), whose
tables are built below.  A replication's normals z[j, c] are drawn class by class, sub-interval by
sub-interval (draw k = c·J + j); :func:`independent_normals` returns them for a test or a model.
The numpy Generator is not used in the kernel: one Generator per (schedule, replication) costs
~20 µs to seed, 10 minutes for 27,132 × 1,000 replications.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["stream_key", "independent_normals", "ZIGGURAT"]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _ziggurat_tables():
    """kn, wn, fn of Marsaglia and Tsang's RNOR (2000), 128 layers."""
    m1 = 2147483648.0
    dn = tn = 3.442619855899
    vn = 9.91256303526217e-3
    kn, wn, fn = np.zeros(128), np.zeros(128), np.zeros(128)
    q = vn / math.exp(-0.5 * dn * dn)
    kn[0], kn[1] = (dn / q) * m1, 0.0
    wn[0], wn[127] = q / m1, dn / m1
    fn[0], fn[127] = 1.0, math.exp(-0.5 * dn * dn)
    for i in range(126, 0, -1):
        dn = math.sqrt(-2.0 * math.log(vn / dn + math.exp(-0.5 * dn * dn)))
        kn[i + 1] = (dn / tn) * m1
        tn = dn
        fn[i] = math.exp(-0.5 * dn * dn)
        wn[i] = dn / m1
    return np.floor(kn), wn, fn


#: the ziggurat's (kn, wn, fn) tables
ZIGGURAT = _ziggurat_tables()
_R = 3.442620


def stream_key(entropy: int) -> np.uint64:
    """The 64-bit base key of seed ``entropy``'s independent streams."""
    return np.random.SeedSequence(int(entropy), spawn_key=(0x1D5,)).generate_state(1, np.uint64)[0]


@njit(inline="always")
def mix(z):  # pragma: no cover - compiled; SplitMix64's finaliser
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def rep_key(base, rank, rep):  # pragma: no cover - compiled
    """Key of the stream of replication ``rep`` of schedule ``rank``."""
    return mix(mix(base ^ mix(np.uint64(rank) + _GOLDEN)) + mix(np.uint64(rep) + _GOLDEN))


@njit(inline="always")
def _uniform(state):  # pragma: no cover - compiled; (next state, u in (0, 1))
    state = state + _GOLDEN
    return state, ((mix(state) >> np.uint64(11)) + 0.5) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _signed(h):  # pragma: no cover - compiled; a signed 32-bit integer from a hash's top bits
    return np.int64(h >> np.uint64(32)) - 2147483648


@njit(inline="always")
def _nfix(h, hz, iz, kn, wn, fn):  # pragma: no cover - compiled; RNOR's slow path
    state = h  # its own sub-stream, seeded by the draw's hash
    while True:
        if iz == 0:  # the base strip's tail beyond r
            while True:
                state, u1 = _uniform(state)
                state, u2 = _uniform(state)
                x = -math.log(u1) / _R
                y = -math.log(u2)
                if y + y >= x * x:
                    break
            return (_R + x) if hz > 0 else -(_R + x)
        x = hz * wn[iz]
        state, u = _uniform(state)
        if fn[iz] + u * (fn[iz - 1] - fn[iz]) < math.exp(-0.5 * x * x):
            return x
        state = state + _GOLDEN
        hz = _signed(mix(state))
        iz = hz & 127
        if abs(hz) < kn[iz]:
            return hz * wn[iz]


@njit(inline="always")
def normal(key, k, kn, wn, fn):  # pragma: no cover - compiled; z ~ N(0, 1)
    """Normal number ``k`` of the stream ``key`` (Marsaglia and Tsang's RNOR: ~99 % of draws take
    the fast path, one hash, one table look-up, one product; the rest draw further uniforms from a
    sub-stream of their own, so draw k never depends on draw k − 1: a counter, not a chain)."""
    h = mix(key + np.uint64(k + 1) * _GOLDEN)
    hz = _signed(h)
    iz = hz & 127
    if abs(hz) < kn[iz]:
        return hz * wn[iz]
    return _nfix(h, hz, iz, kn, wn, fn)


@njit(inline="always")
def fill_normals(key, z, hz_buf, kn, wn, fn):  # pragma: no cover - compiled
    """z[k] = normal(key, k) for every k of ``z``: the same numbers, in two loops so that the
    first (hash, look-up, product: every draw's fast path) can run in SIMD lanes; the second
    redoes the ~1 % that the ziggurat's slow path must decide."""
    for k in range(z.shape[0]):
        hz = _signed(mix(key + np.uint64(k + 1) * _GOLDEN))
        hz_buf[k] = hz
        z[k] = hz * wn[hz & 127]
    for k in range(z.shape[0]):
        hz = hz_buf[k]
        iz = hz & 127
        if abs(hz) >= kn[iz]:
            z[k] = _nfix(mix(key + np.uint64(k + 1) * _GOLDEN), hz, iz, kn, wn, fn)


@njit(cache=True)
def _normals(base, ranks, reps, J, C, kn, wn, fn):  # pragma: no cover - compiled
    out = np.empty((len(ranks), len(reps), J, C))
    for s in range(len(ranks)):
        for k in range(len(reps)):
            key = rep_key(base, ranks[s], reps[k])
            for c in range(C):
                for j in range(J):
                    out[s, k, j, c] = normal(key, c * J + j, kn, wn, fn)
    return out


def independent_normals(entropy: int, ranks, reps, n_intervals: int, n_classes: int) -> np.ndarray:
    """z[s, k, j, c] that schedule ``ranks[s]`` uses in replication ``reps[k]``, sub-interval j, class c.

    Examples
    --------
    >>> z = independent_normals(1, [0, 5], [0, 1, 2], 4, 3)
    >>> z.shape, bool((z[0] != z[1]).all())
    ((2, 3, 4, 3), True)
    >>> bool((independent_normals(1, [5], [2], 4, 3)[0, 0] == z[1, 2]).all())
    True
    """
    return _normals(stream_key(entropy), np.asarray(ranks, dtype=np.int64).reshape(-1),
                    np.asarray(reps, dtype=np.int64).reshape(-1), int(n_intervals), int(n_classes), *ZIGGURAT)
