"""The throughput phase: one FCFS queue, no replication, until T_tail."""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import (
    _KIND_SHIFT,
    _RELIABLE_RESULT,
    _ROW_MASK,
    _UNRELIABLE_FAILURE,
    _UNRELIABLE_RESULT,
)
from mopt.expert._engine.queues import (
    _heap_pop,
    _heap_push,
    _ring_pop,
    _ring_push,
)
from mopt.expert._engine.random import (
    _gamma_at,
    _turnaround,
    uniform,
)


# ----------------------------------------------------------------------------- throughput phase
@njit(cache=True)
def throughput_phase(
    model, n_reliable, d0, key, max_instances, rem_task, rem_send, rem_end, rem_success,
    rem_on_reliable, rem_next_k,
):  # fmt: skip
    """Simulate the throughput phase until ``t_tail`` and write the tail's starting state.

    One FCFS queue of tasks ``0..n_tasks-1``; a task goes to a free unreliable machine if any,
    else to a free reliable machine (``n_reliable = 0``: the plain variant).  Unreliable
    instances have deadline ``d0``; a failed task is re-queued at its failure time.

    Parameters
    ----------
    model : tuple
        ``(n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks,
        gamma_values)`` (see :func:`tail_phase`; ``cost_reliable_run`` from
        :func:`reliable_run_cost`).
    n_reliable : int
        The number of reliable machines (0 for the plain variant).
    d0 : float
        Throughput deadline.
    key : uint64
        Replication key.
    max_instances : int
        Safety cap on instances sent.
    rem_task, rem_send, rem_end, rem_success, rem_on_reliable, rem_next_k : ndarray
        Output arrays of length ``>= n_unreliable``: per remaining task (sorted by task id) its
        id, the send time and end time of its running instance, whether that instance returns a
        result, whether it runs on a reliable machine, and its next throughput instance number.

    Returns
    -------
    t_tail : float
        Start of the tail phase (NaN if the cap was hit).
    cost_paid : float
        Cost of the results returned before ``t_tail`` (running instances are not included).
    n_remaining : int
        Number of rows written, or -1 if more than ``max_instances`` instances were sent.
    """
    n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks, gamma_values = model
    send = np.empty(n_tasks)
    end = np.empty(n_tasks)
    success = np.zeros(n_tasks, np.bool_)
    on_reliable = np.zeros(n_tasks, np.bool_)
    next_k = np.zeros(n_tasks, np.int64)
    done = np.zeros(n_tasks, np.bool_)
    queue = np.empty(max(n_tasks, 1), np.int64)  # ring buffer: each task is queued at most once
    for j in range(n_tasks):
        queue[j] = j
    q_head = 0
    q_count = n_tasks
    h_cap = n_unreliable + n_reliable + 1
    h_time = np.empty(h_cap)
    h_code = np.empty(h_cap, np.int64)
    h_pay = np.empty(h_cap)
    size = 0
    free_ur = n_unreliable
    free_rel = n_reliable
    remaining = n_tasks
    paid = 0.0
    n_sent = 0
    constant_gamma = gamma_breaks.shape[0] == 1
    t = 0.0
    while True:
        # Idle machines take queued tasks (unreliable first).
        while q_count > 0 and (free_ur > 0 or free_rel > 0):
            j, q_head = _ring_pop(queue, q_head)
            q_count -= 1
            n_sent += 1
            if n_sent > max_instances:
                return np.nan, np.nan, -1
            send[j] = t
            k = next_k[j]
            next_k[j] = k + 1
            if free_ur > 0:
                free_ur -= 1
                on_reliable[j] = False
                g = gamma_values[0] if constant_gamma else _gamma_at(gamma_breaks, gamma_values, t)
                ok = False
                if uniform(key, j, k, 0) < g:
                    turnaround = _turnaround(fs_table, uniform(key, j, k, 1))
                    if turnaround < d0:
                        ok = True
                        end[j] = t + turnaround
                        success[j] = True
                        code = (_UNRELIABLE_RESULT << _KIND_SHIFT) | j
                        size = _heap_push(
                            h_time, h_code, h_pay, size, end[j], code, c_ur * turnaround
                        )
                if not ok:
                    end[j] = t + d0
                    success[j] = False
                    code = (_UNRELIABLE_FAILURE << _KIND_SHIFT) | j
                    size = _heap_push(h_time, h_code, h_pay, size, end[j], code, 0.0)
            else:
                free_rel -= 1
                on_reliable[j] = True
                success[j] = True
                end[j] = t + t_r
                code = (_RELIABLE_RESULT << _KIND_SHIFT) | j
                size = _heap_push(h_time, h_code, h_pay, size, end[j], code, cost_reliable_run)
        if remaining < n_unreliable:
            break
        if size == 0:  # nothing can happen any more (no machine at all)
            return np.nan, np.nan, -1
        t = h_time[0]
        code = h_code[0]
        pay = h_pay[0]
        size = _heap_pop(h_time, h_code, h_pay, size)
        kind = code >> _KIND_SHIFT
        j = code & _ROW_MASK
        if kind == _UNRELIABLE_FAILURE:
            free_ur += 1
            q_count = _ring_push(queue, q_head, q_count, j)
        else:
            if kind == _RELIABLE_RESULT:
                free_rel += 1
            else:
                free_ur += 1
            paid += pay
            done[j] = True
            remaining -= 1
    n_remaining = 0
    for j in range(n_tasks):
        if not done[j]:
            rem_task[n_remaining] = j
            rem_send[n_remaining] = send[j]
            rem_end[n_remaining] = end[j]
            rem_success[n_remaining] = success[j]
            rem_on_reliable[n_remaining] = on_reliable[j]
            rem_next_k[n_remaining] = next_k[j]
            n_remaining += 1
    return t, paid, n_remaining

