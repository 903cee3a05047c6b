"""The schedule space: compositions of θ VMs over C virtual clusters, ranked lexicographically.

A schedule θ = (θ_1, ..., θ_C) gives θ_c ≥ 1 VMs to the virtual cluster of class c with Σθ_c = θ.
These are *compositions* of θ (the paper says "partition"): there are C(θ−1, C−1) of them.  The
order is lexicographic (θ_1 first, smallest first): rank 0 is (1, ..., 1, θ−C+1) and the last rank
is (θ−C+1, 1, ..., 1).  Ranks are int64 and computed with :func:`math.comb`; nothing here builds an
array of the whole space (5.2·10⁹ schedules at θ = 128, C = 7).

The elastic total (ours, beyond the paper): Σθ_c ≤ θ_max.  Such a schedule is the composition
(θ_1, ..., θ_C, θ_max + 1 − Σθ_c) of θ_max + 1 into C + 1 parts, so there are C(θ_max, C) of them and
the same rank/unrank serve.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from mopt.core.errors import InputError, check_int

__all__ = ["count_partitions", "count_elastic", "rank", "unrank", "rank_elastic", "unrank_elastic",
           "check_space", "check_schedule", "MAX_THETA", "MAX_CLASSES"]

#: ranks stay below this (int64 with room to spare)
MAX_COUNT = 2**62
#: the most VMs and task classes of a problem (ours): its profiling arrays hold one entry per class
#: and cluster size (the paper's scale: 128 VMs, 7 classes)
MAX_THETA = 10_000
MAX_CLASSES = 100


def check_space(theta, n_classes) -> tuple[int, int]:
    """``(theta, n_classes)`` validated: n_classes ≥ 1 and theta ≥ n_classes (every class gets a VM).

    Examples
    --------
    >>> check_space(20, 7)
    (20, 7)
    >>> check_space(5, 7)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'theta' must be >= n_classes=7 (every class needs a VM); got 5.
    """
    n_classes = check_int("n_classes", n_classes, low=1)
    theta = check_int("theta", theta)
    if theta < n_classes:
        raise InputError(f"'theta' must be >= n_classes={n_classes} (every class needs a VM); got {theta}.")
    if math.comb(theta - 1, n_classes - 1) >= MAX_COUNT:
        raise InputError(f"'theta' {theta} over {n_classes} classes gives more than 2**62 schedules.")
    return theta, n_classes


def count_partitions(theta: int, n_classes: int) -> int:
    """Number of schedules of ``theta`` VMs over ``n_classes`` clusters, each with ≥ 1 VM: C(θ−1, C−1).

    Examples
    --------
    >>> count_partitions(20, 7), count_partitions(128, 7)
    (27132, 5169379425)
    """
    theta, n_classes = check_space(theta, n_classes)
    return math.comb(theta - 1, n_classes - 1)


def count_elastic(theta_max: int, n_classes: int) -> int:
    """Number of schedules with Σθ_c ≤ ``theta_max``, each θ_c ≥ 1: C(θ_max, C).

    Examples
    --------
    >>> count_elastic(20, 7)
    77520
    """
    theta_max, n_classes = check_space(theta_max, n_classes)
    count = math.comb(theta_max, n_classes)
    if count >= MAX_COUNT:  # ranks are int64: C(θ_max, C) can pass 2**62 where C(θ_max − 1, C − 1) does not
        raise InputError(f"'theta' {theta_max} over {n_classes} classes (elastic) gives more than 2**62 schedules.")
    return count


def check_schedule(schedule, theta: int | None = None) -> np.ndarray:
    """``schedule`` as a 1-D int64 array of VM counts, each ≥ 1 (and summing to ``theta`` if given).

    Examples
    --------
    >>> check_schedule([3, 0, 2])
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'schedule' must give every class at least one VM; class 2 has 0.
    """
    try:
        arr = np.asarray(schedule, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'schedule' must be a sequence of VM counts; got {schedule!r}.") from None
    if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all() or (arr != np.rint(arr)).any():
        raise InputError(f"'schedule' must be a non-empty sequence of integer VM counts; got {schedule!r}.")
    if (arr < 1).any():
        c = int(np.flatnonzero(arr < 1)[0])
        raise InputError(f"'schedule' must give every class at least one VM; class {c + 1} has {arr[c]:g}.")
    out = arr.astype(np.int64)
    if theta is not None and int(out.sum()) != theta:
        raise InputError(f"'schedule' must use theta={theta} VMs in all; got {int(out.sum())}.")
    return out


def rank(schedule) -> int:
    """Lexicographic rank of ``schedule`` among the compositions of its total.

    Compositions of n into m parts whose first part is < a number C(n−1, m−1) − C(n−a, m−1), which
    is the rank offset of first part a; the rest is ranked recursively.

    Examples
    --------
    >>> rank([1, 1, 3]), rank([1, 2, 2]), rank([3, 1, 1])
    (0, 1, 5)
    """
    s = check_schedule(schedule).tolist()
    n, m, r = sum(s), len(s), 0
    for a in s[:-1]:
        r += math.comb(n - 1, m - 1) - math.comb(n - a, m - 1)
        n, m = n - a, m - 1
    return r


@functools.lru_cache(maxsize=64)
def _binomials(n_max: int, k_max: int) -> np.ndarray:
    """int64 table B[n, k] = C(n, k) for 0 ≤ n ≤ n_max, 0 ≤ k ≤ k_max (entries ≥ 2**62 are capped)."""
    B = np.zeros((n_max + 1, k_max + 1), dtype=np.int64)
    for n in range(n_max + 1):
        for k in range(min(n, k_max) + 1):
            B[n, k] = min(math.comb(n, k), MAX_COUNT)
    B.flags.writeable = False
    return B


def unrank(r, theta: int, n_classes: int) -> np.ndarray:
    """Schedule(s) of lexicographic rank ``r`` (an int, or an array of ranks: vectorised).

    Returns a 1-D array of ``n_classes`` VM counts for a scalar ``r``, else an array of shape
    ``(len(r), n_classes)``.  Never builds the space: O(len(r) · θ · C) work.

    Examples
    --------
    >>> unrank(0, 5, 3).tolist(), unrank(5, 5, 3).tolist()
    ([1, 1, 3], [3, 1, 1])
    >>> unrank([1, 2], 5, 3).tolist()
    [[1, 2, 2], [1, 3, 1]]
    """
    theta, C = check_space(theta, n_classes)
    u = math.comb(theta - 1, C - 1)
    scalar = np.ndim(r) == 0
    try:
        ranks = np.atleast_1d(np.asarray(r))
    except (TypeError, ValueError):
        raise InputError(f"'r' must be an integer rank in [0, {u - 1}]; got {r!r}.") from None
    if ranks.dtype.kind == "f":
        if not np.isfinite(ranks).all() or (ranks != np.floor(ranks)).any():
            raise InputError(f"'r' must be an integer rank in [0, {u - 1}]; got {r!r}.")
        ranks = ranks.astype(np.int64)
    if ranks.dtype.kind not in "iu" or ranks.ndim != 1:
        raise InputError(f"'r' must be an integer rank in [0, {u - 1}]; got {r!r}.")
    ranks = ranks.astype(np.int64)
    if ranks.size and (ranks.min() < 0 or ranks.max() >= u):
        bad = ranks[(ranks < 0) | (ranks >= u)][0]
        raise InputError(f"'r' must be an integer rank in [0, {u - 1}]; got {int(bad)}.")
    from mopt.vmc.space_kernel import unrank_kernel  # compiled: loaded on first use

    out = unrank_kernel(ranks, theta, C, _binomials(theta, C))
    return out[0] if scalar else out


def rank_elastic(schedule, theta_max: int) -> int:
    """Rank of ``schedule`` (Σθ_c ≤ ``theta_max``) in the elastic space (a slack part appended).

    Examples
    --------
    >>> rank_elastic([1, 1], 3), rank_elastic([2, 1], 3)
    (0, 2)
    """
    s = check_schedule(schedule)
    theta_max = check_int("theta_max", theta_max, low=len(s))
    if int(s.sum()) > theta_max:
        raise InputError(f"'schedule' must use at most theta_max={theta_max} VMs; got {int(s.sum())}.")
    return rank(np.append(s, theta_max + 1 - s.sum()))


def unrank_elastic(r, theta_max: int, n_classes: int) -> np.ndarray:
    """Schedule(s) of rank ``r`` in the elastic space Σθ_c ≤ ``theta_max`` (see :func:`rank_elastic`).

    Examples
    --------
    >>> unrank_elastic(2, 3, 2).tolist()
    [2, 1]
    """
    full = unrank(r, theta_max + 1, n_classes + 1)
    return full[..., :-1]
