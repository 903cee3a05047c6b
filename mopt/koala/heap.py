"""The runs in progress of the KOALA-C engine: a binary heap ordered by (end time, job index).

The engine retires runs earliest first, ties by job index (spec ``koala.md``); the heap is two
arrays (``times``, ``jobs``) and a size kept by the caller.

Examples
--------
>>> import numpy as np
>>> times, jobs = np.empty(3), np.empty(3, np.int64)
>>> n = push(times, jobs, 0, 50.0, 2)
>>> n = push(times, jobs, n, 20.0, 7)
>>> n = push(times, jobs, n, 50.0, 1)
>>> float(times[0]), int(jobs[0])
(20.0, 7)
>>> n = pop(times, jobs, n)
>>> n, float(times[0]), int(jobs[0])  # ties: the lower job index first
(2, 50.0, 1)
"""

from __future__ import annotations

from mopt.cloud.kernels import kernel

__all__ = ["push", "pop"]


@kernel
def _before(times, jobs, a, b):
    return times[a] < times[b] or (times[a] == times[b] and jobs[a] < jobs[b])


@kernel
def push(times, jobs, n, time, job):
    """Add the run of ``job`` ending at ``time`` to a heap of ``n`` runs; returns the new size."""
    times[n] = time
    jobs[n] = job
    k = n
    while k > 0:
        parent = (k - 1) // 2
        if _before(times, jobs, k, parent):
            times[k], times[parent] = times[parent], times[k]
            jobs[k], jobs[parent] = jobs[parent], jobs[k]
            k = parent
        else:
            break
    return n + 1


@kernel
def pop(times, jobs, n):
    """Remove the first run (``times[0]``, ``jobs[0]``) of a heap of ``n``; returns the new size."""
    n -= 1
    times[0] = times[n]
    jobs[0] = jobs[n]
    k = 0
    while True:
        a, b, m = 2 * k + 1, 2 * k + 2, k
        if a < n and _before(times, jobs, a, m):
            m = a
        if b < n and _before(times, jobs, b, m):
            m = b
        if m == k:
            break
        times[k], times[m] = times[m], times[k]
        jobs[k], jobs[m] = jobs[m], jobs[k]
        k = m
    return n
