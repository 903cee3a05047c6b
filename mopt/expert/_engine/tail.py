"""The tail phase of one replication under one NTDMr strategy (two FCFS queues)."""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import (
    _RELIABLE_RESULT,
    _TIMER,
    _UNRELIABLE_FAILURE,
    _UNRELIABLE_RESULT,
    TAIL_INSTANCE_OFFSET,
)
from mopt.expert._engine.queues import (
    _heap_pop,
    _heap_push,
    _initial_kind,
    _ring_pop,
    _ring_push,
    _timer_append,
    event_orders,
)
from mopt.expert._engine.random import (
    _gamma_at,
    _turnaround,
    uniform,
)


@njit(cache=True)
def tail_phase(model, strategy, key, state, max_instances, out):
    """Simulate the tail of one replication under one strategy; write one output row.

    Parameters
    ----------
    model : tuple
        ``(n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks,
        gamma_values)``: the BoT size (the cost is per task of the whole BoT), ``#ur``, the
        reliable run time, unreliable cents per second, the cost of one reliable run and the
        turnaround model (see :func:`simulate`).
    strategy : tuple
        ``(n_limit, t_timeout, deadline, n_rel, combine, budget)``: ``N``, the number of tail
        unreliable instances per task before its reliable one (``N_INFINITE`` (-1) for no reliable
        instance); ``T`` and ``D``; the number of reliable machines (0: no reliable pool, ``N`` is
        then infinite); CN_inf (the unreliable queue spills onto idle reliable machines); the total
        budget in cents for strategy B (``inf`` for none).
    key : uint64
        Replication key.
    state : tuple
        ``(t_tail, cost_paid, rem_task, rem_send, rem_end, rem_success, rem_on_reliable,
        rem_orders, n_remaining)``: the start of the tail, the cost of the results returned before
        it, the remaining tasks (rows sorted by task id) and their running instance as written by
        :func:`throughput_phase` (a task whose instance runs on a reliable machine already has its
        reliable instance), their :func:`event_orders` (shape ``(2, >= n_remaining)``, or an empty
        ``(2, 0)`` array to compute them here) and the number of valid rows.
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
    workspace = _tail_workspace(state[8], model[1], strategy[3])
    _tail_phase(model, strategy, key, state, max_instances, out, workspace)


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
def _tail_phase(model, strategy, key, state, max_instances, out, workspace):
    """:func:`tail_phase` on a caller-provided ``workspace`` (see :func:`_tail_workspace`)."""
    n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks, gamma_values = model
    n_limit, t_timeout, deadline, n_rel, combine, budget = strategy
    t_tail, cost_paid, rem_task, rem_send, rem_end, rem_success, rem_on_reliable, rem_orders, n_remaining = state
    ws_flags, ws_int, ws_float = workspace
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
    # The paper's time step (DESIGN §4 rule 5): every result, failure and timer of an instant is
    # processed (in that order, ties by row) before any machine is allocated; a timer created by a
    # send at this instant (T = 0) fires in the next step, behind the instances already queued.
    allocate = False
    in_step = True  # the step at t_tail is open: allocate once its events (if any) are processed
    while True:
        if allocate:
            allocate = False
            in_step = False
            # Idle machines take the heads of their queues, skipping cancelled entries.
            while free_ur > 0 and ur_count > 0:
                i, ur_head = _ring_pop(ur_queue, ur_head)
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
                    i, rel_head = _ring_pop(rel_queue, rel_head)
                    rel_count -= 1
                    if done[i]:
                        continue
                    queued_rel[i] = False
                    rel_live -= 1
                else:
                    i, ur_head = _ring_pop(ur_queue, ur_head)
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
        tn = np.inf
        kind = 4
        i = 0
        if p_initial < n_rem:
            row = rem_orders[0, p_initial]
            source = 0
            tn = rem_end[row]
            kind = _initial_kind(rem_success, rem_on_reliable, row)
            i = row
        if rr_count > 0:
            te = rr_time[rr_head]
            row = rr_row[rr_head]
            if te < tn or (te == tn and (kind > _RELIABLE_RESULT or row < i)):
                source = 1
                tn = te
                kind = _RELIABLE_RESULT
                i = row
        if sh_size > 0:
            te = sh_time[0]
            row = sh_row[0]
            if te < tn or (
                te == tn and (kind > _UNRELIABLE_RESULT or (kind == _UNRELIABLE_RESULT and row < i))
            ):
                source = 2
                tn = te
                kind = _UNRELIABLE_RESULT
                i = row
        if ff_count > 0:
            te = ff_time[ff_head]
            row = ff_row[ff_head]
            if te < tn or (
                te == t
                and (kind > _UNRELIABLE_FAILURE or (kind == _UNRELIABLE_FAILURE and row < i))
            ):
                source = 3
                tn = te
                kind = _UNRELIABLE_FAILURE
                i = row
        if tf_count > 0:
            te = tf_time[tf_head]
            row = tf_row[tf_head]
            if te < tn or (te == tn and (kind > _TIMER or (kind == _TIMER and row < i))):
                source = 4
                tn = te
                kind = _TIMER
                i = row
        # Strategy B: after the results of an instant (they pay), before its timers and allocation,
        # once the remaining budget pays a reliable run for every remaining task.
        if check_budget and (source < 0 or tn > t or kind > _UNRELIABLE_RESULT):
            check_budget = False
            if (n_rem - n_done) * cost_reliable_run <= budget - paid:
                triggered = True
                for j in range(n_rem):
                    if not done[j] and not has_rel[j]:
                        has_rel[j] = True
                        queued_rel[j] = True
                        rel_count = _ring_push(rel_queue, rel_head, rel_count, j)
                        rel_live += 1
                if rel_live > max_queue:
                    max_queue = rel_live
        if in_step and (source < 0 or tn > t):
            allocate = True  # the instant is over: allocate before the next one
            continue
        t = tn
        in_step = True
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
                ur_count = _ring_push(ur_queue, ur_head, ur_count, i)
            else:
                has_rel[i] = True
                queued_rel[i] = True
                rel_count = _ring_push(rel_queue, rel_head, rel_count, i)
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

