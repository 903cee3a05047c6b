"""Numba engine of the ExPERT Estimator: throughput phase, then the tail under NTDMr strategies.

One replication simulates the BoT on ``n_unreliable`` (``#ur``) unreliable machines until the
tail starts (``t_tail``: fewer remaining tasks than unreliable machines), then runs the tail under
a strategy ``(N, T, D, n_rel, combine, budget)`` with two FCFS queues, one per pool (ExPERT,
Section IV, "EXPERT Estimator").  Every random draw comes from the counter-based generator
:func:`uniform`, addressed by ``(key, task, instance number, stream)``, so a replication gives the
same numbers whatever the evaluation order, the batch or the thread that runs it; all strategies
of a replication share one key (common random numbers).

The throughput phase does not depend on the strategy: :func:`simulate` runs it once per
``(variant, key)`` and every strategy's tail starts from that state.  The state is plain arrays
(one row per remaining task, sorted by task id), so a tail can also start from an observed state.

Times are in seconds, costs in cents; an instance is paid iff it returns a result.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

__all__ = [
    "OUTPUT_COLUMNS",
    "N_INFINITE",
    "MAX_INSTANCES",
    "TAIL_INSTANCE_OFFSET",
    "uniform",
    "reliable_run_cost",
    "throughput_phase",
    "event_orders",
    "tail_phase",
    "simulate",
]

OUTPUT_COLUMNS = (
    "makespan",
    "cost",
    "t_tail",
    "n_tail_tasks",
    "max_reliable_busy",
    "max_reliable_queue",
    "n_reliable_instances",
)
N_INFINITE = -1
MAX_INSTANCES = 10_000_000
TAIL_INSTANCE_OFFSET = 1_000_000

# Event kinds, in processing order at equal times; ties within a kind by task (row) index.
_RELIABLE_RESULT = 0
_UNRELIABLE_RESULT = 1
_UNRELIABLE_FAILURE = 2
_TIMER = 3
_KIND_SHIFT = 32
_ROW_MASK = (1 << 32) - 1

_C_TASK = np.uint64(0x9E3779B97F4A7C15)
_C_INSTANCE = np.uint64(0xC2B2AE3D27D4EB4F)
_C_STREAM = np.uint64(0x165667B19E3779F9)
_C_FINAL = np.uint64(0xD6E8FEB86659FD93)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_TWO_POW_M53 = 2.0**-53


# ----------------------------------------------------------------------------- random numbers
@njit(cache=True)
def _splitmix64_mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform(key: int, task: int, k: int, stream: int) -> float:
    """Counter-based uniform draw in [0, 1) addressed by ``(key, task, k, stream)``.

    Parameters
    ----------
    key : int
        Replication key (uint64).
    task : int
        Task id.
    k : int
        Instance number (throughput instances ``0, 1, ...``; tail unreliable instances
        ``TAIL_INSTANCE_OFFSET + j``).
    stream : int
        0 for the success draw, 1 for the turnaround draw.

    Returns
    -------
    float
        ``(splitmix64 hash >> 11) * 2**-53``.

    Examples
    --------
    >>> 0.0 <= uniform(7, 3, 0, 1) < 1.0
    True
    >>> uniform(7, 3, 0, 1) == uniform(7, 3, 0, 1)
    True
    """
    x = (
        np.uint64(key)
        ^ (np.uint64(task + 1) * _C_TASK)
        ^ (np.uint64(k + 1) * _C_INSTANCE)
        ^ (np.uint64(stream + 1) * _C_STREAM)
    )
    x = _splitmix64_mix(x)
    x = _splitmix64_mix(x ^ _C_FINAL)
    return np.float64(x >> np.uint64(11)) * _TWO_POW_M53


@njit(cache=True, inline="always")
def _gamma_at(gamma_breaks: np.ndarray, gamma_values: np.ndarray, t_send: float) -> float:
    """Reliability of an instance sent at ``t_send``: value of the last break ``<= t_send``."""
    n = gamma_breaks.shape[0]
    if n == 1 or t_send < gamma_breaks[1]:
        return gamma_values[0]
    lo = 1  # gamma_breaks[lo] <= t_send
    hi = n  # gamma_breaks[hi] > t_send (or hi == n)
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if gamma_breaks[mid] <= t_send:
            lo = mid
        else:
            hi = mid
    return gamma_values[lo]


@njit(cache=True, inline="always")
def _turnaround(fs_table: np.ndarray, u: float) -> float:
    n = fs_table.shape[0]
    idx = int(u * n)
    if idx >= n:
        idx = n - 1
    return fs_table[idx]


def reliable_run_cost(t_r: float, c_r: float, charging_period_r: float) -> float:
    """Cost of one reliable run: ``c_r * ceil(t_r / period) * period``.

    Examples
    --------
    >>> reliable_run_cost(2066.5, 1.0, 1.0)
    2067.0
    """
    return c_r * math.ceil(t_r / charging_period_r) * charging_period_r


# ----------------------------------------------------------------------------- event heap
# A binary min-heap over (time, code) held in three arrays; code = kind << 32 | row, and ``pay``
# carries the cost of a result event (paid when it is popped).
@njit(cache=True, inline="always")
def _heap_push(h_time, h_code, h_pay, size, time, code, pay):
    pos = size
    while pos > 0:
        parent = (pos - 1) >> 1
        pt = h_time[parent]
        if pt < time or (pt == time and h_code[parent] < code):
            break
        h_time[pos] = pt
        h_code[pos] = h_code[parent]
        h_pay[pos] = h_pay[parent]
        pos = parent
    h_time[pos] = time
    h_code[pos] = code
    h_pay[pos] = pay
    return size + 1


@njit(cache=True, inline="always")
def _heap_pop(h_time, h_code, h_pay, size):
    """Remove the root (read it before calling); return the new size."""
    size -= 1
    if size == 0:
        return 0
    time = h_time[size]
    code = h_code[size]
    pay = h_pay[size]
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size:
            rt = h_time[right]
            ct = h_time[child]
            if rt < ct or (rt == ct and h_code[right] < h_code[child]):
                child = right
        ct = h_time[child]
        if time < ct or (time == ct and code < h_code[child]):
            break
        h_time[pos] = ct
        h_code[pos] = h_code[child]
        h_pay[pos] = h_pay[child]
        pos = child
    h_time[pos] = time
    h_code[pos] = code
    h_pay[pos] = pay
    return size


# ----------------------------------------------------------------------------- throughput phase
@njit(cache=True)
def throughput_phase(
    n_tasks,
    n_unreliable,
    n_reliable,
    t_r,
    d0,
    c_ur,
    cost_reliable_run,
    fs_table,
    gamma_breaks,
    gamma_values,
    key,
    max_instances,
    rem_task,
    rem_send,
    rem_end,
    rem_success,
    rem_on_reliable,
    rem_next_k,
):
    """Simulate the throughput phase until ``t_tail`` and write the tail's starting state.

    One FCFS queue of tasks ``0..n_tasks-1``; a task goes to a free unreliable machine if any,
    else to a free reliable machine (``n_reliable = 0``: the plain variant).  Unreliable
    instances have deadline ``d0``; a failed task is re-queued at its failure time.

    Parameters
    ----------
    n_tasks, n_unreliable, n_reliable : int
        BoT size, ``#ur`` and the number of reliable machines (0 for the plain variant).
    t_r, d0, c_ur, cost_reliable_run : float
        Reliable run time, throughput deadline, unreliable cents per second and the cost of one
        reliable run (see :func:`reliable_run_cost`).
    fs_table, gamma_breaks, gamma_values : ndarray
        Turnaround model (see :func:`simulate`).
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
    send = np.empty(n_tasks)
    end = np.empty(n_tasks)
    success = np.zeros(n_tasks, np.bool_)
    on_reliable = np.zeros(n_tasks, np.bool_)
    next_k = np.zeros(n_tasks, np.int64)
    done = np.zeros(n_tasks, np.bool_)
    queue = np.empty(max(n_tasks, 1), np.int64)  # ring buffer: each task is queued at most once
    for j in range(n_tasks):
        queue[j] = j
    q_cap = queue.shape[0]
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
            j = queue[q_head]
            q_head += 1
            if q_head == q_cap:
                q_head = 0
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
            pos = q_head + q_count
            if pos >= q_cap:
                pos -= q_cap
            queue[pos] = j
            q_count += 1
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


# ----------------------------------------------------------------------------- tail phase
@njit(cache=True, inline="always")
def _initial_kind(rem_success, rem_on_reliable, i):
    if rem_on_reliable[i]:
        return _RELIABLE_RESULT
    if rem_success[i]:
        return _UNRELIABLE_RESULT
    return _UNRELIABLE_FAILURE


@njit(cache=True)
def event_orders(rem_send, rem_end, rem_success, rem_on_reliable, n_remaining):
    """Orders of the rows of a tail state, computed once per state.

    Parameters
    ----------
    rem_send, rem_end, rem_success, rem_on_reliable : ndarray
        State arrays (see :func:`throughput_phase`).
    n_remaining : int
        Number of valid rows.

    Returns
    -------
    ndarray of int64, shape (2, n_remaining)
        Row 0: rows sorted by the end event of their running instance on (time, kind, row) --
        reliable results, then unreliable results, then failures at equal times, ties by row.
        Row 1: rows sorted by (send time, row), the order of their first timers.
    """
    orders = np.empty((2, n_remaining), np.int64)
    orders[1] = np.argsort(rem_send[:n_remaining], kind="mergesort")  # stable: ties by row
    order = np.argsort(rem_end[:n_remaining], kind="mergesort")
    for a in range(1, n_remaining):  # insertion sort of the (rare) equal-time runs by kind
        x = order[a]
        kx = _initial_kind(rem_success, rem_on_reliable, x)
        b = a - 1
        while b >= 0:
            y = order[b]
            if rem_end[y] < rem_end[x]:
                break
            ky = _initial_kind(rem_success, rem_on_reliable, y)
            if ky < kx or (ky == kx and y < x):
                break
            order[b + 1] = y
            b -= 1
        order[b + 1] = x
    orders[0] = order
    return orders


@njit(cache=True, inline="always")
def _timer_append(tf_time, tf_row, tf_head, tf_count, time, row):
    """Append a timer to the timer FIFO, keeping equal-time runs in row order.

    Timers are created in nondecreasing time order (each at the current time plus ``T``), so
    the FIFO stays sorted by (time, row); only the trailing equal-time run may need a shift.
    Returns the new count.
    """
    cap = tf_time.shape[0]
    pos = tf_head + tf_count
    if pos >= cap:
        pos -= cap
    while pos != tf_head:
        prev = pos - 1 if pos > 0 else cap - 1
        if tf_time[prev] == time and tf_row[prev] > row:
            tf_time[pos] = tf_time[prev]
            tf_row[pos] = tf_row[prev]
            pos = prev
        else:
            break
    tf_time[pos] = time
    tf_row[pos] = row
    return tf_count + 1


@njit(cache=True)
def tail_phase(
    n_tasks,
    n_unreliable,
    t_r,
    c_ur,
    cost_reliable_run,
    fs_table,
    gamma_breaks,
    gamma_values,
    n_limit,
    t_timeout,
    deadline,
    n_rel,
    combine,
    budget,
    key,
    t_tail,
    cost_paid,
    rem_task,
    rem_send,
    rem_end,
    rem_success,
    rem_on_reliable,
    rem_orders,
    n_remaining,
    max_instances,
    out,
):
    """Simulate the tail of one replication under one strategy; write one output row.

    Parameters
    ----------
    n_tasks, n_unreliable : int
        BoT size (the cost is per task of the whole BoT) and ``#ur``.
    t_r, c_ur, cost_reliable_run : float
        Reliable run time, unreliable cents per second, cost of one reliable run.
    fs_table, gamma_breaks, gamma_values : ndarray
        Turnaround model (see :func:`simulate`).
    n_limit : int
        ``N``, the number of tail unreliable instances per task before its reliable one;
        ``N_INFINITE`` (-1) for no reliable instance.
    t_timeout, deadline : float
        ``T`` and ``D``.
    n_rel : int
        Number of reliable machines (0: no reliable pool, ``N`` is then infinite).
    combine : bool
        CN_inf: the unreliable queue spills onto idle reliable machines.
    budget : float
        Total budget in cents for strategy B, ``inf`` for none.
    key : uint64
        Replication key.
    t_tail, cost_paid : float
        Start of the tail and the cost of the results returned before it.
    rem_task, rem_send, rem_end, rem_success, rem_on_reliable : ndarray
        The remaining tasks (rows sorted by task id) and their running instance, as written by
        :func:`throughput_phase`.  A task whose instance runs on a reliable machine already has
        its reliable instance.
    rem_orders : ndarray of int64, shape (2, >= n_remaining)
        :func:`event_orders` of the state, or an empty ``(2, 0)`` array to compute it here.
    n_remaining : int
        Number of valid rows.
    max_instances : int
        Safety cap on instances sent in the tail; beyond it the row is NaN.
    out : ndarray
        Row of length 7 receiving :data:`OUTPUT_COLUMNS`.

    Notes
    -----
    Events live in five time-ordered sources merged on (time, kind, row): the running
    instances at ``t_tail`` (``rem_orders[0]``), FIFOs of reliable results, of unreliable
    failures and of timers (all three are created in time order, as every send happens at the
    current time; see :func:`_timer_append`), and a heap of unreliable results.
    """
    ws_flags, ws_int, ws_float = _tail_workspace(n_remaining, n_unreliable, n_rel)
    _tail_phase(
        n_tasks,
        n_unreliable,
        t_r,
        c_ur,
        cost_reliable_run,
        fs_table,
        gamma_breaks,
        gamma_values,
        n_limit,
        t_timeout,
        deadline,
        n_rel,
        combine,
        budget,
        key,
        t_tail,
        cost_paid,
        rem_task,
        rem_send,
        rem_end,
        rem_success,
        rem_on_reliable,
        rem_orders,
        n_remaining,
        max_instances,
        out,
        ws_flags,
        ws_int,
        ws_float,
    )


@njit(cache=True)
def _tail_workspace(n_remaining, n_unreliable, n_rel):
    """Workspaces big enough for :func:`_tail_phase` with at most these sizes."""
    q_cap = max(n_remaining, 1)
    fifo_cap_rel = max(n_rel, 1)
    fifo_cap_ur = max(n_unreliable, 1)
    ws_flags = np.empty(4 * n_remaining, np.bool_)
    ws_int = np.empty(n_remaining + 3 * q_cap + fifo_cap_rel + 2 * fifo_cap_ur, np.int64)
    ws_float = np.empty(q_cap + fifo_cap_rel + 3 * fifo_cap_ur)
    return ws_flags, ws_int, ws_float


@njit(cache=True)
def _tail_phase(
    n_tasks,
    n_unreliable,
    t_r,
    c_ur,
    cost_reliable_run,
    fs_table,
    gamma_breaks,
    gamma_values,
    n_limit,
    t_timeout,
    deadline,
    n_rel,
    combine,
    budget,
    key,
    t_tail,
    cost_paid,
    rem_task,
    rem_send,
    rem_end,
    rem_success,
    rem_on_reliable,
    rem_orders,
    n_remaining,
    max_instances,
    out,
    ws_flags,
    ws_int,
    ws_float,
):
    """:func:`tail_phase` on caller-provided workspaces (see :func:`_tail_workspace`)."""
    n_rem = n_remaining
    if rem_orders.shape[1] < n_rem:
        rem_orders = event_orders(rem_send, rem_end, rem_success, rem_on_reliable, n_rem)
    if n_rel <= 0:
        n_rel = 0
        n_limit = -1
    budget_mode = budget < np.inf and n_rel > 0
    if budget_mode:
        n_limit = -1  # strategy B: N = inf until the budget suffices
    out[2] = t_tail
    out[3] = n_rem
    n_rel_sent = 0
    max_queue = 0
    committed = cost_paid  # every result ever paid, known at send time (for the cost output)
    paid = cost_paid  # results returned so far (for the budget rule)
    # Per-task state (row index = task order) and event sources, as views of the workspaces.
    q_cap = max(n_rem, 1)
    fifo_cap_rel = max(n_rel, 1)
    fifo_cap_ur = max(n_unreliable, 1)
    flags = ws_flags[: 4 * n_rem]
    flags[:] = False
    done = flags[:n_rem]
    queued_ur = flags[n_rem : 2 * n_rem]
    queued_rel = flags[2 * n_rem : 3 * n_rem]
    has_rel = flags[3 * n_rem : 4 * n_rem]
    a = 0
    n_tail_ur = ws_int[a : a + n_rem]
    n_tail_ur[:] = 0
    a += n_rem
    ur_queue = ws_int[a : a + q_cap]  # FCFS queues as ring buffers: a task has at most
    a += q_cap  # one entry per queue at any time
    rel_queue = ws_int[a : a + q_cap]
    a += q_cap
    tf_row = ws_int[a : a + q_cap]
    a += q_cap
    rr_row = ws_int[a : a + fifo_cap_rel]
    a += fifo_cap_rel
    ff_row = ws_int[a : a + fifo_cap_ur]
    a += fifo_cap_ur
    sh_row = ws_int[a : a + fifo_cap_ur]
    a = 0
    tf_time = ws_float[a : a + q_cap]
    a += q_cap
    rr_time = ws_float[a : a + fifo_cap_rel]
    a += fifo_cap_rel
    ff_time = ws_float[a : a + fifo_cap_ur]
    a += fifo_cap_ur
    sh_time = ws_float[a : a + fifo_cap_ur]
    a += fifo_cap_ur
    sh_pay = ws_float[a : a + fifo_cap_ur]
    ur_head = 0
    ur_count = 0
    rel_head = 0
    rel_count = 0
    rel_live = 0  # non-cancelled entries of the reliable queue
    busy_ur = 0
    busy_rel = 0
    for i in range(n_rem):
        if rem_on_reliable[i]:
            busy_rel += 1
            has_rel[i] = True
            committed += cost_reliable_run
        else:
            busy_ur += 1
            if rem_success[i]:
                committed += c_ur * (rem_end[i] - rem_send[i])
    # Event sources (see Notes); at most one pending timer per task.
    rr_head = 0
    rr_count = 0
    ff_head = 0
    ff_count = 0
    sh_size = 0
    tf_head = 0
    tf_count = 0
    # First timers: those due by t_tail fire at t_tail in row order, then the others.
    for i in range(n_rem):
        if not rem_on_reliable[i] and rem_send[i] + t_timeout <= t_tail:
            if not (rem_success[i] and rem_end[i] <= t_tail):
                tf_count = _timer_append(tf_time, tf_row, tf_head, tf_count, t_tail, i)
    for a in range(n_rem):
        i = rem_orders[1, a]
        t_timer = rem_send[i] + t_timeout
        if not rem_on_reliable[i] and t_timer > t_tail:
            if not (rem_success[i] and rem_end[i] <= t_timer):
                tf_count = _timer_append(tf_time, tf_row, tf_head, tf_count, t_timer, i)
    p_initial = 0
    if n_rem == 0:
        out[0] = 0.0
        out[1] = committed / n_tasks if n_tasks > 0 else 0.0
        out[4] = 0.0
        out[5] = 0.0
        out[6] = 0.0
        return
    free_ur = n_unreliable - busy_ur
    free_rel = n_rel - busy_rel
    max_busy = busy_rel
    constant_gamma = gamma_breaks.shape[0] == 1
    n_done = 0
    n_sent = 0
    last_completion = t_tail
    triggered = False
    t = t_tail
    check_budget = budget_mode
    while True:
        # Strategy B: once the remaining budget pays a reliable run for every remaining task.
        if check_budget:
            check_budget = False
            if (n_rem - n_done) * cost_reliable_run <= budget - paid:
                triggered = True
                for i in range(n_rem):
                    if not done[i] and not has_rel[i]:
                        has_rel[i] = True
                        queued_rel[i] = True
                        pos = rel_head + rel_count
                        if pos >= q_cap:
                            pos -= q_cap
                        rel_queue[pos] = i
                        rel_count += 1
                        rel_live += 1
                if rel_live > max_queue:
                    max_queue = rel_live
        # Idle machines take the heads of their queues, skipping cancelled entries.
        while free_ur > 0 and ur_count > 0:
            i = ur_queue[ur_head]
            ur_head += 1
            if ur_head == q_cap:
                ur_head = 0
            ur_count -= 1
            if done[i]:
                continue
            queued_ur[i] = False
            n_sent += 1
            free_ur -= 1
            task = rem_task[i]
            k = TAIL_INSTANCE_OFFSET + n_tail_ur[i] - 1
            g = gamma_values[0] if constant_gamma else _gamma_at(gamma_breaks, gamma_values, t)
            ok = False
            turnaround = 0.0
            if uniform(key, task, k, 0) < g:
                turnaround = _turnaround(fs_table, uniform(key, task, k, 1))
                if turnaround < deadline:
                    ok = True
                    pay = c_ur * turnaround
                    committed += pay
                    sh_size = _heap_push(sh_time, sh_row, sh_pay, sh_size, t + turnaround, i, pay)
            if not ok:
                pos = ff_head + ff_count
                if pos >= fifo_cap_ur:
                    pos -= fifo_cap_ur
                ff_time[pos] = t + deadline
                ff_row[pos] = i
                ff_count += 1
            # The timer is useless once the task is done: a result at or before it comes first.
            if not triggered and not (ok and turnaround <= t_timeout):
                tf_count = _timer_append(tf_time, tf_row, tf_head, tf_count, t + t_timeout, i)
        while free_rel > 0 and (rel_count > 0 or (combine and ur_count > 0)):
            if rel_count > 0:
                i = rel_queue[rel_head]
                rel_head += 1
                if rel_head == q_cap:
                    rel_head = 0
                rel_count -= 1
                if done[i]:
                    continue
                queued_rel[i] = False
                rel_live -= 1
            else:
                i = ur_queue[ur_head]
                ur_head += 1
                if ur_head == q_cap:
                    ur_head = 0
                ur_count -= 1
                if done[i]:
                    continue
                queued_ur[i] = False
                has_rel[i] = True
            n_sent += 1
            free_rel -= 1
            busy_rel += 1
            if busy_rel > max_busy:
                max_busy = busy_rel
            n_rel_sent += 1
            committed += cost_reliable_run
            pos = rr_head + rr_count
            if pos >= fifo_cap_rel:
                pos -= fifo_cap_rel
            rr_time[pos] = t + t_r
            rr_row[pos] = i
            rr_count += 1
        if n_sent > max_instances:
            break
        # Next event: the least (time, kind, row) over the five sources.
        source = -1
        t = np.inf
        kind = 4
        i = 0
        if p_initial < n_rem:
            row = rem_orders[0, p_initial]
            source = 0
            t = rem_end[row]
            kind = _initial_kind(rem_success, rem_on_reliable, row)
            i = row
        if rr_count > 0:
            te = rr_time[rr_head]
            row = rr_row[rr_head]
            if te < t or (te == t and (kind > _RELIABLE_RESULT or row < i)):
                source = 1
                t = te
                kind = _RELIABLE_RESULT
                i = row
        if sh_size > 0:
            te = sh_time[0]
            row = sh_row[0]
            if te < t or (
                te == t and (kind > _UNRELIABLE_RESULT or (kind == _UNRELIABLE_RESULT and row < i))
            ):
                source = 2
                t = te
                kind = _UNRELIABLE_RESULT
                i = row
        if ff_count > 0:
            te = ff_time[ff_head]
            row = ff_row[ff_head]
            if te < t or (
                te == t
                and (kind > _UNRELIABLE_FAILURE or (kind == _UNRELIABLE_FAILURE and row < i))
            ):
                source = 3
                t = te
                kind = _UNRELIABLE_FAILURE
                i = row
        if tf_count > 0:
            te = tf_time[tf_head]
            row = tf_row[tf_head]
            if te < t or (te == t and (kind > _TIMER or (kind == _TIMER and row < i))):
                source = 4
                t = te
                kind = _TIMER
                i = row
        pay = 0.0
        if source == 0:
            p_initial += 1
            if kind == _RELIABLE_RESULT:
                pay = cost_reliable_run
            elif kind == _UNRELIABLE_RESULT:
                pay = c_ur * (rem_end[i] - rem_send[i])
        elif source == 1:
            rr_head += 1
            if rr_head == fifo_cap_rel:
                rr_head = 0
            rr_count -= 1
            pay = cost_reliable_run
        elif source == 2:
            pay = sh_pay[0]
            sh_size = _heap_pop(sh_time, sh_row, sh_pay, sh_size)
        elif source == 3:
            ff_head += 1
            if ff_head == fifo_cap_ur:
                ff_head = 0
            ff_count -= 1
        elif source == 4:
            tf_head += 1
            if tf_head == q_cap:
                tf_head = 0
            tf_count -= 1
        else:
            break  # nothing left to happen: cannot finish
        if kind == _TIMER:
            if done[i] or queued_ur[i] or queued_rel[i] or has_rel[i] or triggered:
                continue
            if n_limit < 0 or n_tail_ur[i] < n_limit:
                n_tail_ur[i] += 1
                queued_ur[i] = True
                pos = ur_head + ur_count
                if pos >= q_cap:
                    pos -= q_cap
                ur_queue[pos] = i
                ur_count += 1
            else:
                has_rel[i] = True
                queued_rel[i] = True
                pos = rel_head + rel_count
                if pos >= q_cap:
                    pos -= q_cap
                rel_queue[pos] = i
                rel_count += 1
                rel_live += 1
                if rel_live > max_queue:
                    max_queue = rel_live
        elif kind == _UNRELIABLE_FAILURE:
            free_ur += 1
        else:
            if kind == _RELIABLE_RESULT:
                free_rel += 1
                busy_rel -= 1
            else:
                free_ur += 1
            paid += pay
            if not done[i]:
                done[i] = True
                n_done += 1
                last_completion = t
                if queued_rel[i]:
                    queued_rel[i] = False
                    rel_live -= 1
                if n_done == n_rem:
                    out[0] = last_completion - t_tail
                    out[1] = committed / n_tasks
                    out[4] = max_busy
                    out[5] = max_queue
                    out[6] = n_rel_sent
                    return
            check_budget = budget_mode and not triggered
    for c in range(7):
        out[c] = np.nan


# ----------------------------------------------------------------------------- batch driver
@njit(cache=True, parallel=True)
def _simulate_batch(
    n_tasks,
    n_unreliable,
    t_r,
    d0,
    c_ur,
    cost_reliable_run,
    fs_table,
    gamma_breaks,
    gamma_values,
    variant_n_rel,
    strategy_variant,
    n_limit,
    t_timeout,
    deadline,
    n_rel,
    combine,
    budget,
    keys,
    max_instances,
):
    n_variants = variant_n_rel.shape[0]
    n_keys = keys.shape[0]
    n_strategies = n_limit.shape[0]
    width = max(n_unreliable, 1)
    st_task = np.empty((n_variants, n_keys, width), np.int64)
    st_send = np.empty((n_variants, n_keys, width))
    st_end = np.empty((n_variants, n_keys, width))
    st_success = np.empty((n_variants, n_keys, width), np.bool_)
    st_on_reliable = np.empty((n_variants, n_keys, width), np.bool_)
    st_next_k = np.empty((n_variants, n_keys, width), np.int64)
    st_t_tail = np.empty((n_variants, n_keys))
    st_cost = np.empty((n_variants, n_keys))
    st_n_rem = np.empty((n_variants, n_keys), np.int64)
    st_orders = np.empty((n_variants, n_keys, 2, width), np.int64)
    for p in prange(n_variants * n_keys):
        v = p // n_keys
        r = p - v * n_keys
        t_tail, cost_paid, n_rem = throughput_phase(
            n_tasks,
            n_unreliable,
            variant_n_rel[v],
            t_r,
            d0,
            c_ur,
            cost_reliable_run,
            fs_table,
            gamma_breaks,
            gamma_values,
            keys[r],
            max_instances,
            st_task[v, r],
            st_send[v, r],
            st_end[v, r],
            st_success[v, r],
            st_on_reliable[v, r],
            st_next_k[v, r],
        )
        st_t_tail[v, r] = t_tail
        st_cost[v, r] = cost_paid
        st_n_rem[v, r] = n_rem
        if n_rem > 0:
            st_orders[v, r, :, :n_rem] = event_orders(
                st_send[v, r], st_end[v, r], st_success[v, r], st_on_reliable[v, r], n_rem
            )
    out = np.empty((n_strategies, n_keys, 7))
    n_pairs = n_strategies * n_keys
    # Strided blocks: each block interleaves strategies, which balances cheap and costly tails.
    n_blocks = min(n_pairs, 256)
    max_n_rel = 0
    for s in range(n_strategies):
        max_n_rel = max(max_n_rel, n_rel[s])
    for b in prange(n_blocks):
        ws_flags, ws_int, ws_float = _tail_workspace(width, n_unreliable, max_n_rel)
        for p in range(b, n_pairs, n_blocks):
            s = p // n_keys
            r = p - s * n_keys
            v = strategy_variant[s]
            if st_n_rem[v, r] < 0:
                for c in range(7):
                    out[s, r, c] = np.nan
                continue
            _tail_phase(
                n_tasks,
                n_unreliable,
                t_r,
                c_ur,
                cost_reliable_run,
                fs_table,
                gamma_breaks,
                gamma_values,
                n_limit[s],
                t_timeout[s],
                deadline[s],
                n_rel[s],
                combine[s],
                budget[s],
                keys[r],
                st_t_tail[v, r],
                st_cost[v, r],
                st_task[v, r],
                st_send[v, r],
                st_end[v, r],
                st_success[v, r],
                st_on_reliable[v, r],
                st_orders[v, r],
                st_n_rem[v, r],
                max_instances,
                out[s, r],
                ws_flags,
                ws_int,
                ws_float,
            )
    return out


def simulate(
    n_tasks: int,
    n_unreliable: int,
    t_r: float,
    d0: float,
    c_ur: float,
    c_r: float,
    charging_period_r: float,
    fs_table: np.ndarray,
    gamma_breaks: np.ndarray,
    gamma_values: np.ndarray,
    N: np.ndarray,
    T: np.ndarray,
    D: np.ndarray,
    n_rel: np.ndarray,
    combine: np.ndarray,
    combined_throughput: np.ndarray,
    budget: np.ndarray,
    keys: np.ndarray,
    *,
    max_instances: int = MAX_INSTANCES,
) -> np.ndarray:
    """Simulate replications of many strategies under common random numbers.

    The throughput phase is simulated once per (variant, key) and shared by every strategy
    of that variant; then every (strategy, key) tail runs in parallel.

    Parameters
    ----------
    n_tasks : int
        Number of tasks in the BoT.
    n_unreliable : int
        ``#ur``, the effective size of the unreliable pool (>= 1).
    t_r : float
        Run time of a task on a reliable machine (deterministic).
    d0 : float
        Throughput-phase deadline (``4 * t_ur``).
    c_ur, c_r : float
        Cents per second on unreliable and reliable machines.
    charging_period_r : float
        Reliable charging period: a reliable run costs ``c_r * ceil(t_r / period) * period``.
    fs_table : ndarray of float64
        Sorted successful turnaround times; a draw ``u`` gives ``fs_table[int(u * len)]``.
    gamma_breaks, gamma_values : ndarray of float64
        Piecewise-constant reliability ``gamma(t')`` of an instance sent at ``t'``.
    N : ndarray of int64
        Unreliable tail instances per task before the reliable one; ``N_INFINITE`` (-1) = inf.
    T, D : ndarray of float64
        Timeout before sending another instance, and the deadline of tail unreliable instances.
    n_rel : ndarray of int64
        Reliable machines in the tail (``ceil(M_r * n_unreliable)``; 0 = no reliable pool).
    combine : ndarray of bool
        CN_inf: the unreliable queue spills onto idle reliable machines.
    combined_throughput : ndarray of bool
        The throughput phase is the "combined" variant with ``n_rel[i]`` reliable machines
        (CN_inf, CN1T0) instead of the plain one.
    budget : ndarray of float64
        Strategy B budget in cents (``inf`` for none).
    keys : ndarray of uint64
        One key per replication, shared by all strategies.
    max_instances : int, optional
        Safety cap on instances sent per phase; a replication exceeding it gives a NaN row.

    Returns
    -------
    ndarray of float64, shape (len(N), len(keys), 7)
        Columns :data:`OUTPUT_COLUMNS`: tail makespan, cost per task, ``t_tail``, number of
        tail tasks, max reliable machines busy at once, max reliable queue length, reliable
        instances sent in the tail.

    Examples
    --------
    >>> one = np.ones(1)
    >>> out = simulate(10, 5, 500.0, 4000.0, 1.0, 10.0, 1.0, np.array([1000.0]),
    ...                np.zeros(1), one, np.array([0]), np.zeros(1), one * 4000.0,
    ...                np.array([5]), np.zeros(1, bool), np.zeros(1, bool),
    ...                np.full(1, np.inf), np.array([1], np.uint64))
    >>> out[0, 0, :4].tolist()  # tasks 6..9 remain at t_tail = 2000 and finish right then
    [0.0, 1000.0, 2000.0, 4.0]
    """
    N = np.ascontiguousarray(N, dtype=np.int64)
    n_strategies = N.shape[0]
    T = np.ascontiguousarray(T, dtype=np.float64).reshape(n_strategies)
    D = np.ascontiguousarray(D, dtype=np.float64).reshape(n_strategies)
    n_rel = np.ascontiguousarray(n_rel, dtype=np.int64).reshape(n_strategies)
    combine = np.ascontiguousarray(combine, dtype=np.bool_).reshape(n_strategies)
    combined_throughput = np.ascontiguousarray(combined_throughput, dtype=np.bool_).reshape(
        n_strategies
    )
    budget = np.ascontiguousarray(budget, dtype=np.float64).reshape(n_strategies)
    keys = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
    fs_table = np.ascontiguousarray(fs_table, dtype=np.float64).ravel()
    gamma_breaks = np.ascontiguousarray(gamma_breaks, dtype=np.float64).ravel()
    gamma_values = np.ascontiguousarray(gamma_values, dtype=np.float64).ravel()
    # Throughput variants: 0 is the plain one, then one per distinct combined n_rel.
    combined_n_rel = np.unique(n_rel[combined_throughput])
    variant_n_rel = np.concatenate([np.zeros(1, np.int64), combined_n_rel]).astype(np.int64)
    strategy_variant = np.zeros(n_strategies, np.int64)
    if combined_n_rel.size:
        strategy_variant[combined_throughput] = 1 + np.searchsorted(
            combined_n_rel, n_rel[combined_throughput]
        )
    if n_strategies == 0 or keys.shape[0] == 0:
        return np.empty((n_strategies, keys.shape[0], len(OUTPUT_COLUMNS)))
    return _simulate_batch(
        int(n_tasks),
        int(n_unreliable),
        float(t_r),
        float(d0),
        float(c_ur),
        reliable_run_cost(float(t_r), float(c_r), float(charging_period_r)),
        fs_table,
        gamma_breaks,
        gamma_values,
        variant_n_rel,
        strategy_variant,
        N,
        T,
        D,
        n_rel,
        combine,
        budget,
        keys,
        int(max_instances),
    )
