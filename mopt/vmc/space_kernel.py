"""The compiled unranking of :func:`mopt.vmc.space.unrank` (a module of its own, so that
``import mopt.vmc`` does not import numba)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["unrank_kernel"]


@njit(cache=True)
def unrank_kernel(ranks, theta, C, B):  # pragma: no cover - compiled
    """Row k: the schedule of rank ``ranks[k]``.  Class by class, the part is the number of a in
    [1, θ] whose offset C(n−1, m−1) − C(n−a, m−1) is ≤ the rank left, the other m−1 parts
    keeping ≥ 1 VM each (compiled: at 128 VMs the vectorised form built (ranks × θ) tables per
    class, 1 s for a sample of 27,132)."""
    out = np.empty((len(ranks), C), dtype=np.int64)
    for k in range(len(ranks)):
        rem = ranks[k]
        n = theta
        for c in range(C - 1):
            m = C - c
            part = 0
            for a in range(1, theta + 1):
                na = n - a
                if na >= m - 1 and B[n - 1, m - 1] - B[na, m - 1] <= rem:
                    part += 1
            out[k, c] = part
            rem -= B[n - 1, m - 1] - B[n - part, m - 1]
            n -= part
        out[k, C - 1] = n
    return out
