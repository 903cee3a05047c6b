"""The steps of an NTDMr strategy in the tail (ExPERT, Section III): each reads and changes the
tail's state (:mod:`tail_state`) and knows nothing of the event loop that calls it.

A task's instances: the one running at ``t_tail``; after each timeout ``T`` without a result,
another unreliable instance (deadline ``D``) while fewer than ``N`` were sent in the tail, else
one reliable instance; strategy B sends every remaining task to the reliable pool once the
remaining budget pays for it.  An instance is paid iff it returns a result; ``tally.committed``
counts that cost when the instance is sent (its outcome is drawn then), ``tally.paid`` when the
result comes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import _RELIABLE_RESULT, N_INFINITE, TAIL_INSTANCE_OFFSET
from mopt.expert._engine.groups import Strategy
from mopt.expert._engine.random import _gamma_at, _turnaround, uniform
from mopt.expert._engine.tail_state import (
    _fifo_push,
    _heap_insert,
    _queue_pop,
    _queue_push,
    _timer_push,
)


@njit(cache=True, inline="always")
def _effective_strategy(strategy):
    """``strategy`` as the tail runs it: no reliable pool (``n_rel <= 0``) means ``N`` infinite
    and no budget; under strategy B (a finite budget), ``N`` is infinite until the budget
    suffices."""
    n_rel = max(strategy.n_rel, 0)
    budget = strategy.budget if n_rel > 0 else np.inf
    n_limit = N_INFINITE if n_rel == 0 or budget < np.inf else strategy.n_limit
    return Strategy(n_limit, strategy.t_timeout, strategy.deadline, n_rel, strategy.combine, budget)


@njit(cache=True, inline="always")
def _start_tail(model, strategy, start, tasks, events, tally):
    """The instances running at ``t_tail``: the machines they hold, the cost of those that will
    return a result, and their timers."""
    committed = start.cost_paid
    busy_ur = 0
    busy_rel = 0
    for row in range(start.n_remaining):
        if start.on_reliable[row]:
            busy_rel += 1
            tasks.has_rel[row] = True
            committed += model.cost_reliable_run
        else:
            busy_ur += 1
            if start.success[row]:
                committed += model.c_ur * (start.end[row] - start.send[row])
    tally.committed = committed
    tally.paid = start.cost_paid
    tally.last_completion = start.t_tail
    tally.free_ur = model.n_unreliable - busy_ur
    tally.free_rel = strategy.n_rel - busy_rel
    tally.max_reliable_busy = busy_rel
    tally.reliable_queue_length = 0
    tally.max_reliable_queue = 0
    tally.n_sent = 0
    tally.n_reliable_sent = 0
    tally.n_done = 0
    tally.budget_suffices = False
    tally.check_budget = strategy.budget < np.inf
    events.running.count = start.n_remaining
    _first_timers(strategy, start, events.timers)


@njit(cache=True, inline="always")
def _first_timers(strategy, start, timers):
    """Timers of the unreliable instances running at ``t_tail`` that may still need another:
    those due by ``t_tail`` fire at ``t_tail`` in row order, then the others by send time.
    A timer is useless once its task is done: a result at or before it comes first."""
    t_tail = start.t_tail
    for row in range(start.n_remaining):
        if not start.on_reliable[row] and start.send[row] + strategy.t_timeout <= t_tail:
            if not (start.success[row] and start.end[row] <= t_tail):
                _timer_push(timers, t_tail, row)
    for position in range(start.n_remaining):  # in send order
        row = start.orders[1, position]
        t_timer = start.send[row] + strategy.t_timeout
        if not start.on_reliable[row] and t_timer > t_tail:
            if not (start.success[row] and start.end[row] <= t_timer):
                _timer_push(timers, t_timer, row)


@njit(cache=True, inline="always")
def _send_to_unreliable(t, model, strategy, key, start, tasks, ur_queue, events, tally):
    """Idle unreliable machines take the heads of the unreliable queue (cancelled entries,
    whose task is done, are skipped)."""
    while tally.free_ur > 0 and ur_queue.span.count > 0:
        row = _queue_pop(ur_queue)
        if tasks.done[row]:
            continue
        tasks.queued_ur[row] = False
        tally.free_ur -= 1
        _send_unreliable_instance(row, t, model, strategy, key, start, tasks, events, tally)


@njit(cache=True, inline="always")
def _send_unreliable_instance(row, t, model, strategy, key, start, tasks, events, tally):
    """Send a tail unreliable instance of ``row`` at ``t``: it returns a result with
    probability ``gamma(t)``, after a turnaround drawn from ``F_s``, unless that reaches the
    deadline ``D``; else it fails at ``t + D``.  Its timer fires at ``t + T``."""
    tally.n_sent += 1
    task = start.task[row]
    instance = TAIL_INSTANCE_OFFSET + tasks.n_tail_ur[row] - 1  # numbers the draws
    if model.gamma_breaks.shape[0] == 1:
        gamma = model.gamma_values[0]
    else:
        gamma = _gamma_at(model.gamma_breaks, model.gamma_values, t)
    returns_result = False
    turnaround = 0.0
    if uniform(key, task, instance, 0) < gamma:
        turnaround = _turnaround(model.fs_table, uniform(key, task, instance, 1))
        if turnaround < strategy.deadline:
            returns_result = True
            pay = model.c_ur * turnaround
            tally.committed += pay
            _heap_insert(events.unreliable_results, t + turnaround, row, pay)
    if not returns_result:
        _fifo_push(events.failures, t + strategy.deadline, row)
    if not tally.budget_suffices and not (returns_result and turnaround <= strategy.t_timeout):
        _timer_push(events.timers, t + strategy.t_timeout, row)


@njit(cache=True, inline="always")
def _send_to_reliable(t, model, strategy, tasks, ur_queue, rel_queue, events, tally):
    """Idle reliable machines take the heads of the reliable queue, then (CN_inf, ``combine``)
    of the unreliable queue; cancelled entries are skipped."""
    while tally.free_rel > 0 and (
        rel_queue.span.count > 0 or (strategy.combine and ur_queue.span.count > 0)
    ):
        if rel_queue.span.count > 0:
            row = _queue_pop(rel_queue)
            if tasks.done[row]:
                continue
            tasks.queued_rel[row] = False
            tally.reliable_queue_length -= 1
        else:
            row = _queue_pop(ur_queue)
            if tasks.done[row]:
                continue
            tasks.queued_ur[row] = False
            tasks.has_rel[row] = True
        _send_reliable_instance(row, t, model, strategy, events, tally)


@njit(cache=True, inline="always")
def _send_reliable_instance(row, t, model, strategy, events, tally):
    """Send the reliable instance of ``row`` at ``t``: its result comes at ``t + t_r``."""
    tally.n_sent += 1
    tally.free_rel -= 1
    busy = strategy.n_rel - tally.free_rel
    if busy > tally.max_reliable_busy:
        tally.max_reliable_busy = busy
    tally.n_reliable_sent += 1
    tally.committed += model.cost_reliable_run
    _fifo_push(events.reliable_results, t + model.t_r, row)


@njit(cache=True, inline="always")
def _queue_for_reliable(row, tasks, rel_queue, tally):
    """``row`` joins the reliable queue: its reliable instance is on the way."""
    tasks.has_rel[row] = True
    tasks.queued_rel[row] = True
    _queue_push(rel_queue, row)
    tally.reliable_queue_length += 1
    if tally.reliable_queue_length > tally.max_reliable_queue:
        tally.max_reliable_queue = tally.reliable_queue_length


@njit(cache=True, inline="always")
def _on_timeout(row, strategy, tasks, ur_queue, rel_queue, tally):
    """``T`` passed since ``row``'s last instance was sent: unless the task is done, queued,
    has its reliable instance or strategy B took over, queue another unreliable instance while
    fewer than ``N`` were sent in the tail, else its reliable instance."""
    if tasks.done[row] or tasks.queued_ur[row] or tasks.queued_rel[row] or tasks.has_rel[row]:
        return
    if tally.budget_suffices:
        return
    if strategy.n_limit < 0 or tasks.n_tail_ur[row] < strategy.n_limit:
        tasks.n_tail_ur[row] += 1
        tasks.queued_ur[row] = True
        _queue_push(ur_queue, row)
    else:
        _queue_for_reliable(row, tasks, rel_queue, tally)


@njit(cache=True, inline="always")
def _check_budget(model, strategy, start, tasks, rel_queue, tally):
    """Strategy B, after the results of an instant (they pay) and before its timers: once the
    remaining budget pays a reliable run for every remaining task, queue each task without a
    reliable instance for one, in row order."""
    tally.check_budget = False
    n_left = start.n_remaining - tally.n_done
    if n_left * model.cost_reliable_run <= strategy.budget - tally.paid:
        tally.budget_suffices = True
        for row in range(start.n_remaining):
            if not tasks.done[row] and not tasks.has_rel[row]:
                _queue_for_reliable(row, tasks, rel_queue, tally)


@njit(cache=True, inline="always")
def _on_deadline(tally):
    """An unreliable instance reached its deadline ``D`` without a result: its machine is idle
    again, and it is not paid."""
    tally.free_ur += 1


@njit(cache=True, inline="always")
def _collect_result(row, kind, pay, t, strategy, start, tasks, tally):
    """A result of ``row`` at ``t``: its machine is idle again and its instance is paid; the
    first result of a task completes it (its reliable queue entry, if any, is cancelled).
    Returns whether every task is done."""
    if kind == _RELIABLE_RESULT:
        tally.free_rel += 1
    else:
        tally.free_ur += 1
    tally.paid += pay
    if not tasks.done[row]:
        tasks.done[row] = True
        tally.n_done += 1
        tally.last_completion = t
        if tasks.queued_rel[row]:
            tasks.queued_rel[row] = False
            tally.reliable_queue_length -= 1
        if tally.n_done == start.n_remaining:
            return True
    tally.check_budget = strategy.budget < np.inf and not tally.budget_suffices
    return False
