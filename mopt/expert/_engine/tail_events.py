"""The tail's event sources, merged in (time, kind, row) order.

Five sources, each already in that order: the ends of the instances running at ``t_tail``
(``TailStart.orders[0]``), FIFOs of reliable results, of unreliable failures and of timers
(all three are created in time order, as every send happens at the current time; see
:func:`_timer_push`), and a heap of unreliable results.  At equal times the kinds come in
the order of their codes (:data:`_RELIABLE_RESULT` first, :data:`_TIMER` last), ties by row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.constants import (
    _FAILURES,
    _NO_EVENT,
    _RELIABLE_RESULT,
    _RELIABLE_RESULTS,
    _RUNNING,
    _TIMER,
    _TIMERS,
    _UNRELIABLE_FAILURE,
    _UNRELIABLE_RESULT,
    _UNRELIABLE_RESULTS,
)
from mopt.expert._engine.queues import _initial_kind
from mopt.expert._engine.tail_state import COMPILED_ONLY, _fifo_pop, _heap_remove_min


@njit(cache=True, **COMPILED_ONLY)
def _precedes(time, kind, row, best_time, best_kind, best_row):
    """Whether the event ``(time, kind, row)`` comes before ``(best_time, best_kind, best_row)``."""
    if time != best_time:
        return time < best_time
    if kind != best_kind:
        return kind < best_kind
    return row < best_row


@njit(cache=True, inline="always")
def _next_event(start, events):
    """The least (time, kind, row) over the sources, not removed.

    Returns ``(source, time, kind, row)``; ``source`` is :data:`_NO_EVENT` when every source is
    empty (then ``time`` is ``inf``).  A tie on all three keeps the earlier source.
    """
    source = _NO_EVENT
    t_next = np.inf
    kind = _TIMER + 1
    row = 0
    running = events.running
    if running.count > 0:
        source = _RUNNING
        row = start.orders[0, running.head]
        t_next = start.end[row]
        kind = _initial_kind(start.success, start.on_reliable, row)
    fifo = events.reliable_results
    if fifo.span.count > 0:
        head = fifo.span.head
        if _precedes(fifo.time[head], _RELIABLE_RESULT, fifo.row[head], t_next, kind, row):
            source = _RELIABLE_RESULTS
            t_next = fifo.time[head]
            kind = _RELIABLE_RESULT
            row = fifo.row[head]
    heap = events.unreliable_results
    if heap.span.count > 0:
        if _precedes(heap.time[0], _UNRELIABLE_RESULT, heap.row[0], t_next, kind, row):
            source = _UNRELIABLE_RESULTS
            t_next = heap.time[0]
            kind = _UNRELIABLE_RESULT
            row = heap.row[0]
    fifo = events.failures
    if fifo.span.count > 0:
        head = fifo.span.head
        if _precedes(fifo.time[head], _UNRELIABLE_FAILURE, fifo.row[head], t_next, kind, row):
            source = _FAILURES
            t_next = fifo.time[head]
            kind = _UNRELIABLE_FAILURE
            row = fifo.row[head]
    fifo = events.timers
    if fifo.span.count > 0:
        head = fifo.span.head
        if _precedes(fifo.time[head], _TIMER, fifo.row[head], t_next, kind, row):
            source = _TIMERS
            t_next = fifo.time[head]
            kind = _TIMER
            row = fifo.row[head]
    return source, t_next, kind, row


@njit(cache=True, inline="always")
def _take_event(source, kind, row, model, start, events):
    """Remove the event :func:`_next_event` found from its ``source``; return its pay (the cost
    of the instance whose result it is, 0 for a failure or a timer)."""
    pay = 0.0
    if source == _RUNNING:
        events.running.head += 1
        events.running.count -= 1
        if kind == _RELIABLE_RESULT:
            pay = model.cost_reliable_run
        elif kind == _UNRELIABLE_RESULT:
            pay = model.c_ur * (start.end[row] - start.send[row])
    elif source == _RELIABLE_RESULTS:
        _fifo_pop(events.reliable_results)
        pay = model.cost_reliable_run
    elif source == _UNRELIABLE_RESULTS:
        pay = events.unreliable_results.pay[0]
        _heap_remove_min(events.unreliable_results)
    elif source == _FAILURES:
        _fifo_pop(events.failures)
    else:
        _fifo_pop(events.timers)
    return pay
