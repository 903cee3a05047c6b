"""The tail phase of one replication under one NTDMr strategy (two FCFS queues).

:func:`_tail_phase` is the event loop: it takes events in (time, kind, row) order
(:mod:`tail_events`) and hands each to its step (:mod:`tail_steps`); the state the steps share
lives in :mod:`tail_state`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import _TIMER, _UNRELIABLE_FAILURE, _UNRELIABLE_RESULT
from mopt.expert._engine.groups import Model, Strategy, TailStart
from mopt.expert._engine.queues import event_orders
from mopt.expert._engine.tail_events import _next_event, _take_event
from mopt.expert._engine.tail_state import COMPILED_ONLY, _tail_views, _tail_workspace
from mopt.expert._engine.tail_steps import (
    _check_budget,
    _collect_result,
    _effective_strategy,
    _on_deadline,
    _on_timeout,
    _send_to_reliable,
    _send_to_unreliable,
    _start_tail,
)


@njit(cache=True)
def tail_phase(model, strategy, key, state, max_instances, out):
    """Simulate the tail of one replication under one strategy; write one output row.

    Parameters
    ----------
    model : Model or tuple
        ``(n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks,
        gamma_values)``: the BoT size (the cost is per task of the whole BoT), ``#ur``, the
        reliable run time, unreliable cents per second, the cost of one reliable run and the
        turnaround model (see :func:`simulate`).
    strategy : Strategy or tuple
        ``(n_limit, t_timeout, deadline, n_rel, combine, budget)``: ``N``, the number of tail
        unreliable instances per task before its reliable one (``N_INFINITE`` (-1) for no reliable
        instance); ``T`` and ``D``; the number of reliable machines (0: no reliable pool, ``N`` is
        then infinite); CN_inf (the unreliable queue spills onto idle reliable machines); the total
        budget in cents for strategy B (``inf`` for none).
    key : uint64
        Replication key.
    state : TailStart or tuple
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
    """
    model = Model(model[0], model[1], model[2], model[3], model[4], model[5], model[6], model[7])
    strategy = Strategy(strategy[0], strategy[1], strategy[2], strategy[3], strategy[4], strategy[5])
    start = TailStart(state[0], state[1], state[2], state[3], state[4], state[5], state[6], state[7],
                      state[8])
    if start.orders.shape[1] < start.n_remaining:
        orders = event_orders(start.send, start.end, start.success, start.on_reliable, start.n_remaining)
        start = TailStart(start.t_tail, start.cost_paid, start.task, start.send, start.end,
                          start.success, start.on_reliable, orders, start.n_remaining)
    workspace = _tail_workspace(start.n_remaining, model.n_unreliable, strategy.n_rel)
    _tail_phase(model, strategy, key, start, max_instances, out, workspace)


@njit(cache=True, **COMPILED_ONLY)
def _tail_phase(model, strategy, key, start, max_instances, out, workspace):
    """The event loop of :func:`tail_phase`, on a caller-provided ``workspace`` (see
    :func:`_tail_workspace`); ``start.orders`` must hold the :func:`event_orders`.

    The paper's time step (DESIGN §4 rule 5): every result, failure and timer of an instant is
    processed (in that order, ties by row) before any machine is allocated; a timer created by
    a send at this instant (T = 0) fires in the next step, behind the instances already queued.
    """
    n_remaining = start.n_remaining
    strategy = _effective_strategy(strategy)
    out[2] = start.t_tail
    out[3] = n_remaining
    tasks, ur_queue, rel_queue, events, tally = _tail_views(
        workspace, n_remaining, model.n_unreliable, strategy.n_rel
    )
    _start_tail(model, strategy, start, tasks, events, tally)
    if n_remaining == 0:
        _write_output(out, model, start, tally)
        return
    t = start.t_tail
    allocate = False
    in_step = True  # the step at t_tail is open: allocate once its events (if any) are processed
    while True:
        if allocate:
            allocate = False
            in_step = False
            _send_to_unreliable(t, model, strategy, key, start, tasks, ur_queue, events, tally)
            _send_to_reliable(t, model, strategy, tasks, ur_queue, rel_queue, events, tally)
            if tally.n_sent > max_instances:
                break
        source, t_next, kind, row = _next_event(start, events)
        instant_over = source < 0 or t_next > t
        if tally.check_budget and (instant_over or kind > _UNRELIABLE_RESULT):
            _check_budget(model, strategy, start, tasks, rel_queue, tally)
        if in_step and instant_over:
            allocate = True  # the instant is over: allocate before the next one
            continue
        if source < 0:
            break  # nothing left to happen: cannot finish
        t = t_next
        in_step = True
        pay = _take_event(source, kind, row, model, start, events)
        if kind == _TIMER:
            _on_timeout(row, strategy, tasks, ur_queue, rel_queue, tally)
        elif kind == _UNRELIABLE_FAILURE:
            _on_deadline(tally)
        elif _collect_result(row, kind, pay, t, strategy, start, tasks, tally):
            _write_output(out, model, start, tally)
            return
    for column in range(out.shape[0]):
        out[column] = np.nan


@njit(cache=True, inline="always")
def _write_output(out, model, start, tally):
    """The output row of a tail where every task is done (:data:`OUTPUT_COLUMNS`)."""
    if start.n_remaining == 0:
        out[0] = 0.0
        out[1] = tally.committed / model.n_tasks if model.n_tasks > 0 else 0.0
        out[4] = 0.0
        out[5] = 0.0
        out[6] = 0.0
        return
    out[0] = tally.last_completion - start.t_tail
    out[1] = tally.committed / model.n_tasks
    out[4] = tally.max_reliable_busy
    out[5] = tally.max_reliable_queue
    out[6] = tally.n_reliable_sent
