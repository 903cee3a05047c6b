"""Outcomes of the running instances of an observed tail state (online use)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from mopt.expert._engine.constants import (
    RUNNING_INSTANCE,
)
from mopt.expert._engine.random import (
    _gamma_at,
    uniform,
)


# ----------------------------------------------------------------------------- running instances
@njit(cache=True)
def _draw_running(
    fs_table, gamma_breaks, gamma_values, t_tail, deadline, key, rem_task, rem_send, rem_end,
    rem_success,
):
    """Outcome of each observed running instance, conditioned on no result by ``t_tail``.

    An instance sent at ``s`` and out for ``a = t_tail - s`` returns a result with probability
    ``gamma(s) (1 - F_s(a)) / (1 - gamma(s) F_s(a))``, at a turnaround drawn uniformly among the
    ``fs_table`` entries ``> a``; a result at or after ``deadline`` is a failure at ``s + deadline``.
    Draws are ``uniform(key, task, RUNNING_INSTANCE, 0 or 1)``.
    """
    n_table = fs_table.shape[0]
    for i in range(rem_task.shape[0]):
        s = rem_send[i]
        age = t_tail - s
        lo = 0  # first index with fs_table[lo] > age
        hi = n_table
        while lo < hi:
            mid = (lo + hi) >> 1
            if fs_table[mid] <= age:
                lo = mid + 1
            else:
                hi = mid
        f_age = lo / n_table
        g = _gamma_at(gamma_breaks, gamma_values, s)
        denominator = 1.0 - g * f_age
        p = g * (1.0 - f_age) / denominator if denominator > 0.0 else 0.0
        task = rem_task[i]
        rem_success[i] = False
        rem_end[i] = s + deadline
        if lo < n_table and uniform(key, task, RUNNING_INSTANCE, 0) < p:
            idx = lo + int(uniform(key, task, RUNNING_INSTANCE, 1) * (n_table - lo))
            if idx >= n_table:
                idx = n_table - 1
            turnaround = fs_table[idx]
            if turnaround < deadline:
                rem_success[i] = True
                rem_end[i] = s + turnaround


@njit(cache=True, parallel=True)
def running_outcomes(fs_table, gamma_breaks, gamma_values, t_tail, deadline, rem_task, rem_send, keys):
    """Per replication key, the end time and success of each observed running instance.

    Parameters
    ----------
    fs_table, gamma_breaks, gamma_values : ndarray
        Turnaround model (see :func:`simulate`).
    t_tail, deadline : float
        The observation time and the deadline of the running instances.
    rem_task, rem_send : ndarray
        Task id and send time of each running instance (rows sorted by task id).
    keys : ndarray of uint64

    Returns
    -------
    end : ndarray, shape (len(keys), len(rem_task))
    success : ndarray of bool, same shape
    """
    n_keys = keys.shape[0]
    n_rem = rem_task.shape[0]
    end = np.empty((n_keys, n_rem))
    success = np.empty((n_keys, n_rem), np.bool_)
    for r in prange(n_keys):
        _draw_running(
            fs_table, gamma_breaks, gamma_values, t_tail, deadline, keys[r], rem_task, rem_send,
            end[r], success[r],
        )
    return end, success

