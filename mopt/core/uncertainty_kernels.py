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
    designs' order by their means: resampled means are nearly in that order) and tested by
    :func:`_staircase` (or, far from that order, sorted and swept by :func:`_sweep`)."""
    B, C = x.shape
    out = np.empty((B, C), dtype=np.bool_)
    xs, ys, idx = np.empty(C), np.empty(C), np.empty(C, dtype=np.int64)
    sx, sy, si = np.empty(C), np.empty(C), np.empty(C, dtype=np.int64)
    for b in range(B):
        for k in range(C):
            i = start[k]
            xs[k] = x[b, i]
            ys[k] = y[b, i]
            idx[k] = i
        if not _staircase(xs, ys, idx, out[b], sx, sy, si):
            _sweep(xs, ys, idx, out[b])
    return out


@njit(cache=True)
def bootstrap_nondominated_2d(mx, my, g, rx, ry, t, label):  # pragma: no cover - compiled
    """:func:`multiplier_kernel` and :func:`nondominated_2d_kernel` in one pass, for two
    objectives and designs of one replication count, without storing the resampled means: in row
    b of the (B, C) result, column ``label[c]`` says whether design c is non-dominated when its
    means are ``mx[c] + t[b] * sum_r g[b, r] * rx[r, c]`` and the same in y. The designs come in
    the order of their means (the staircase's starting order); ``label`` puts them back."""
    B, R = g.shape
    C = mx.shape[0]
    out = np.empty((B, C), dtype=np.bool_)
    ax, ay = np.empty(C), np.empty(C)
    xs, ys = np.empty(C), np.empty(C)
    sx, sy, si = np.empty(C), np.empty(C), np.empty(C, dtype=np.int64)
    for b in range(B):
        ax[:] = 0.0
        ay[:] = 0.0
        for r in range(R):
            w = g[b, r]
            for c in range(C):
                ax[c] += w * rx[r, c]
                ay[c] += w * ry[r, c]
        for c in range(C):
            xs[c] = mx[c] + t[b] * ax[c]
            ys[c] = my[c] + t[b] * ay[c]
        if not _staircase(xs, ys, label, out[b], sx, sy, si):
            _sweep(xs, ys, label.copy(), out[b])
    return out


@njit(cache=True)
def _staircase(xs, ys, idx, out, sx, sy, si):  # pragma: no cover - compiled
    """Mark ``out[idx[k]]`` True where no other point (xs, ys) dominates point k, without sorting
    them: the points are taken in their order, and the staircase of those not yet dominated is
    kept sorted by x (y then strictly decreasing; equal points side by side) in ``sx``, ``sy``,
    ``si``. A point is dominated iff the staircase's last point with x <= its x has a lower y, or
    the same y and a lower x (dominance is transitive: the staircase holds a dominator of every
    point left off it). Else it joins, and the staircase points it dominates (same x and higher y
    before it, and the run after it with y >= its y, not equal to it) leave, marked False. In
    about C steps when the points come nearly in order of x (the designs' order by their means);
    False, and ``out`` to be redone, when its scans and shifts pass 16 C + 64 steps (the points
    were far from that order). The points themselves are not moved."""
    C = len(xs)
    limit = 16 * C + 64
    steps = 0
    F = 0  # the staircase's length
    for k in range(C):
        x = xs[k]
        y = ys[k]
        pos = F  # after the last staircase point with sx <= x
        while pos > 0 and sx[pos - 1] > x:
            pos -= 1
        steps += F - pos
        if pos > 0 and (sy[pos - 1] < y or (sy[pos - 1] == y and sx[pos - 1] < x)):
            out[idx[k]] = False
            continue
        q = pos  # the points of the same x and a higher y leave
        while q > 0 and sx[q - 1] == x and sy[q - 1] > y:
            q -= 1
            out[si[q]] = False
        r = pos  # and those after it that it dominates
        while r < F and sy[r] >= y and not (sy[r] == y and sx[r] == x):
            out[si[r]] = False
            r += 1
        shift = q + 1 - r  # the staircase's tail from r moves to q + 1
        if shift > 0:
            for j in range(F - 1, r - 1, -1):
                sx[j + shift] = sx[j]
                sy[j + shift] = sy[j]
                si[j + shift] = si[j]
        elif shift < 0:
            for j in range(r, F):
                sx[j + shift] = sx[j]
                sy[j + shift] = sy[j]
                si[j + shift] = si[j]
        steps += F - r
        F += shift
        sx[q] = x
        sy[q] = y
        si[q] = idx[k]
        out[idx[k]] = True
        if steps > limit:
            return False
    return True


@njit(cache=True)
def _sweep(xs, ys, idx, out):  # pragma: no cover - compiled
    """The fallback of :func:`_staircase`: sort the points (xs, ys) (labels ``idx``, moved
    along) by (x, y), then mark ``out[label]`` True where no point dominates. The sort is an insertion sort, about C steps on nearly sorted
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
