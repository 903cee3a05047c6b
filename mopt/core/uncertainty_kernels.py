"""The compiled loops of :mod:`mopt.core.uncertainty`: the multiplier bootstrap's weighted sums and
the two-objective dominance test, apart and fused (a module of its own, so that ``import
mopt.core`` does not import numba). Compiled rather than BLAS: the products are small (500
resamples x 10 replications), and a threaded BLAS call of that size took 8-12 ms instead of 0.1 ms
when the other core was busy."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["bootstrap_nondominated_2d", "multiplier_kernel", "nondominated_2d_kernel"]


@njit(cache=True)
def multiplier_kernel(means, g, resid, t):  # pragma: no cover - compiled
    """(B, C, m): ``means[c, j] + t[b, c] * sum_r g[b, r] * resid[r, c, j]`` for weights ``g``
    (B, R), scaled residuals ``resid`` (R, C, m) and Student-t scales ``t`` (B, C). The inner loop
    runs over a contiguous row of C * m values, which the compiler vectorises."""
    B, R = g.shape
    C, m = means.shape
    n = C * m
    flat = resid.reshape(R, n)
    centre = means.reshape(n)
    out = np.empty((B, n))
    for b in range(B):
        row = out[b]
        row[:] = 0.0
        for r in range(R):
            w = g[b, r]
            values = flat[r]
            for i in range(n):
                row[i] += w * values[i]
        for i in range(n):
            row[i] = centre[i] + t[b, i // m] * row[i]
    return out.reshape(B, C, m)


@njit(cache=True)
def nondominated_2d_kernel(x, y, start):  # pragma: no cover - compiled
    """Row b of the (B, C) result: which of the C points (x[b], y[b]) no other point dominates
    (equal points do not dominate each other). Each row is taken in the order ``start`` (the
    designs' order by their means: resampled means are nearly in that order) and sorted and swept
    by :func:`_sweep`."""
    B, C = x.shape
    out = np.empty((B, C), dtype=np.bool_)
    xs, ys, idx = np.empty(C), np.empty(C), np.empty(C, dtype=np.int64)
    for b in range(B):
        for k in range(C):
            i = start[k]
            xs[k] = x[b, i]
            ys[k] = y[b, i]
            idx[k] = i
        _sweep(xs, ys, idx, out[b])
    return out


@njit(cache=True)
def bootstrap_nondominated_2d(mx, my, g, rx, ry, t):  # pragma: no cover - compiled
    """:func:`multiplier_kernel` and :func:`nondominated_2d_kernel` in one pass, for two
    objectives, without storing the resampled means: row b of the (B, C) result says which designs
    are non-dominated when design c's means are ``mx[c] + t[b, c] * sum_r g[b, r] * rx[r, c]`` and
    the same in y. The designs come in the order of their means (the sort's starting order)."""
    B, R = g.shape
    C = mx.shape[0]
    out = np.empty((B, C), dtype=np.bool_)
    ax, ay = np.empty(C), np.empty(C)
    xs, ys, idx = np.empty(C), np.empty(C), np.empty(C, dtype=np.int64)
    for b in range(B):
        ax[:] = 0.0
        ay[:] = 0.0
        for r in range(R):
            w = g[b, r]
            for c in range(C):
                ax[c] += w * rx[r, c]
                ay[c] += w * ry[r, c]
        for c in range(C):
            xs[c] = mx[c] + t[b, c] * ax[c]
            ys[c] = my[c] + t[b, c] * ay[c]
            idx[c] = c
        _sweep(xs, ys, idx, out[b])
    return out


@njit(cache=True)
def _sweep(xs, ys, idx, out):  # pragma: no cover - compiled
    """Sort the points (xs, ys) (labels ``idx``, moved along) by (x, y), then mark ``out[label]``
    True where no point dominates. The sort is an insertion sort, about C steps on nearly sorted
    points; when it has moved 16 C + 64 times the points were far from sorted, and a Shell sort
    (Knuth's gaps ..., 13, 4, 1) finishes it. One function, no library sort: each compiled
    function adds to the first run's compilation (numba's argsort alone took 4 s). The sweep keeps
    the lowest y seen and the x of the first point that reached it (the lowest x of that y, by the
    sort): a point is dominated iff that y is lower than its own, or equal with a lower x."""
    C = len(xs)
    limit = 16 * C + 64
    moves = 0
    first = True  # the insertion sort's pass (gap 1, counting moves)
    gap = 1
    while gap >= 1:
        for k in range(gap, C):
            xi, yi, ii = xs[k], ys[k], idx[k]
            j = k - gap
            while j >= 0 and (xs[j] > xi or (xs[j] == xi and ys[j] > yi)):
                xs[j + gap] = xs[j]
                ys[j + gap] = ys[j]
                idx[j + gap] = idx[j]
                j -= gap
                moves += 1
            xs[j + gap] = xi
            ys[j + gap] = yi
            idx[j + gap] = ii
            if first and moves > limit:
                break
        if first and moves > limit:  # far from sorted: Shell sort from Knuth's largest gap
            gap = 1
            while gap < C // 3:
                gap = 3 * gap + 1
        else:
            gap //= 3
        first = False
    low = np.inf
    low_x = np.inf
    for k in range(C):
        yk = ys[k]
        if yk < low:
            out[idx[k]] = True
            low = yk
            low_x = xs[k]
        else:
            out[idx[k]] = yk == low and not (low_x < xs[k])
