"""The working state of one tail: per-task flags, the two FCFS queues, the event sources and
the tally, as typed structs over a workspace allocated once per batch block.

A queue or an event source is a named tuple of arrays plus a ``span`` record (head and count
of its ring buffer, in a record array of the workspace), so a step reads ``timers.span.count``
and the helpers below keep every ring-buffer detail.  The scalars the steps share live in one
``tally`` record (:data:`TALLY`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mopt.expert._engine.queues import _heap_pop, _heap_push

#: head and count of a ring buffer (a heap uses ``count`` as its size)
SPAN = np.dtype([("head", np.int64), ("count", np.int64)])
#: the scalars of a tail shared by its steps
TALLY = np.dtype([
    ("committed", np.float64),  # every result ever paid, known at send time (the cost output)
    ("paid", np.float64),  # results returned so far (the budget rule of strategy B)
    ("last_completion", np.float64),
    ("free_ur", np.int64),  # idle unreliable machines
    ("free_rel", np.int64),  # idle reliable machines
    ("max_reliable_busy", np.int64),
    ("reliable_queue_length", np.int64),  # live (not cancelled) entries of the reliable queue
    ("max_reliable_queue", np.int64),
    ("n_sent", np.int64),  # instances sent in the tail
    ("n_reliable_sent", np.int64),
    ("n_done", np.int64),  # tasks with a result
    ("budget_suffices", np.bool_),  # strategy B has queued every remaining task for reliable
    ("check_budget", np.bool_),  # a result came since strategy B last checked its budget
])
_N_SPANS = 7

#: ``njit`` options of the tail's kernels besides ``cache=True``: called from compiled code only
#: (no Python or C entry point to compile) and without reference counting: they allocate nothing,
#: and numba would otherwise count references to the arrays of the named tuples above at every
#: step of the event loop (numba's own sorts run with these options, ``numba/misc/mergesort.py``)
COMPILED_ONLY = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True, "_nrt": False}


class Tasks(NamedTuple):
    """Per remaining task (row): whether it has a result, is waiting in the unreliable or the
    reliable queue, has its reliable instance (sent or queued), and its tail unreliable
    instances so far."""

    done: np.ndarray
    queued_ur: np.ndarray
    queued_rel: np.ndarray
    has_rel: np.ndarray
    n_tail_ur: np.ndarray


class Queue(NamedTuple):
    """A FCFS queue of rows (a ring buffer; a task has at most one entry per queue)."""

    rows: np.ndarray
    span: np.void  # a SPAN record


class Fifo(NamedTuple):
    """Events created in time order: a ring buffer of (time, row)."""

    time: np.ndarray
    row: np.ndarray
    span: np.void


class Heap(NamedTuple):
    """Events in any order: a binary min-heap on (time, row) carrying each result's pay."""

    time: np.ndarray
    row: np.ndarray
    pay: np.ndarray
    span: np.void  # ``count`` is the size


class Events(NamedTuple):
    """The five event sources of a tail (see :func:`_next_event`)."""

    running: np.void  # span over ``TailStart.orders[0]``: ends of the instances running at t_tail
    reliable_results: Fifo
    unreliable_results: Heap
    failures: Fifo  # unreliable instances that miss their deadline
    timers: Fifo  # at most one pending per task


@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)  # allocates: counts references
def _tail_workspace(n_remaining, n_unreliable, n_rel):
    """Workspaces big enough for a tail with at most these sizes (see :func:`_tail_views`)."""
    queue_cap = max(n_remaining, 1)
    reliable_cap = max(n_rel, 1)
    unreliable_cap = max(n_unreliable, 1)
    flags = np.empty(4 * n_remaining, np.bool_)
    ints = np.empty(n_remaining + 3 * queue_cap + reliable_cap + 2 * unreliable_cap, np.int64)
    floats = np.empty(queue_cap + reliable_cap + 3 * unreliable_cap)
    return flags, ints, floats, np.empty(_N_SPANS, SPAN), np.empty(1, TALLY)


@njit(cache=True, inline="always")  # inlined: numba cannot return a record (the spans)
def _tail_views(workspace, n_remaining, n_unreliable, n_rel):
    """The cleared state of a tail over ``workspace``: ``(tasks, ur_queue, rel_queue, events,
    tally)``.

    Capacities: a task has at most one entry per queue and one pending timer; at most one
    result or failure is pending per busy machine.
    """
    flags, ints, floats, spans, tally = workspace
    n = n_remaining
    queue_cap = max(n, 1)
    reliable_cap = max(n_rel, 1)
    unreliable_cap = max(n_unreliable, 1)
    flags[: 4 * n] = False
    tasks = Tasks(flags[:n], flags[n : 2 * n], flags[2 * n : 3 * n], flags[3 * n : 4 * n], ints[:n])
    tasks.n_tail_ur[:] = 0
    at = n  # next free int, then float
    ur_queue = Queue(ints[at : at + queue_cap], spans[0])
    at += queue_cap
    rel_queue = Queue(ints[at : at + queue_cap], spans[1])
    at += queue_cap
    timer_rows = ints[at : at + queue_cap]
    at += queue_cap
    reliable_rows = ints[at : at + reliable_cap]
    at += reliable_cap
    failure_rows = ints[at : at + unreliable_cap]
    at += unreliable_cap
    result_rows = ints[at : at + unreliable_cap]
    at = 0
    timers = Fifo(floats[at : at + queue_cap], timer_rows, spans[2])
    at += queue_cap
    reliable_results = Fifo(floats[at : at + reliable_cap], reliable_rows, spans[3])
    at += reliable_cap
    failures = Fifo(floats[at : at + unreliable_cap], failure_rows, spans[4])
    at += unreliable_cap
    result_times = floats[at : at + unreliable_cap]
    at += unreliable_cap
    unreliable_results = Heap(result_times, result_rows, floats[at : at + unreliable_cap], spans[5])
    for s in range(_N_SPANS):
        spans[s].head = 0
        spans[s].count = 0
    events = Events(spans[6], reliable_results, unreliable_results, failures, timers)
    return tasks, ur_queue, rel_queue, events, tally[0]


# ----------------------------------------------------------------------------- ring buffers
# Compiled once each and inlined by LLVM where they are called.  (``inline="always"`` would copy
# them into each step at each call site, and the steps into the event loop: numba copies the
# whole variable scope of a function for each of its blocks, so compile time grows with both.)
@njit(cache=True, **COMPILED_ONLY)
def _queue_push(queue, row):
    """Append ``row`` to ``queue`` (the caller keeps its count below its capacity)."""
    pos = queue.span.head + queue.span.count
    if pos >= queue.rows.shape[0]:
        pos -= queue.rows.shape[0]
    queue.rows[pos] = row
    queue.span.count += 1


@njit(cache=True, **COMPILED_ONLY)
def _queue_pop(queue):
    """The row at the head of ``queue``, removed."""
    head = queue.span.head
    row = queue.rows[head]
    head += 1
    if head == queue.rows.shape[0]:
        head = 0
    queue.span.head = head
    queue.span.count -= 1
    return row


@njit(cache=True, **COMPILED_ONLY)
def _fifo_push(fifo, time, row):
    """Append an event no earlier than the last one."""
    pos = fifo.span.head + fifo.span.count
    if pos >= fifo.time.shape[0]:
        pos -= fifo.time.shape[0]
    fifo.time[pos] = time
    fifo.row[pos] = row
    fifo.span.count += 1


@njit(cache=True, **COMPILED_ONLY)
def _fifo_pop(fifo):
    """Remove the head (read it before calling)."""
    head = fifo.span.head + 1
    if head == fifo.time.shape[0]:
        head = 0
    fifo.span.head = head
    fifo.span.count -= 1


@njit(cache=True, **COMPILED_ONLY)
def _timer_push(timers, time, row):
    """Append a timer to the timer FIFO, keeping equal-time runs in row order.

    Timers are created in nondecreasing time order (each at the current time plus ``T``), so
    the FIFO stays sorted by (time, row); only the trailing equal-time run may need a shift.
    """
    cap = timers.time.shape[0]
    head = timers.span.head
    pos = head + timers.span.count
    if pos >= cap:
        pos -= cap
    while pos != head:
        prev = pos - 1 if pos > 0 else cap - 1
        if timers.time[prev] == time and timers.row[prev] > row:
            timers.time[pos] = timers.time[prev]
            timers.row[pos] = timers.row[prev]
            pos = prev
        else:
            break
    timers.time[pos] = time
    timers.row[pos] = row
    timers.span.count += 1


@njit(cache=True, **COMPILED_ONLY)
def _heap_insert(heap, time, row, pay):
    """Add a result at ``time`` carrying its ``pay``."""
    heap.span.count = _heap_push(heap.time, heap.row, heap.pay, heap.span.count, time, row, pay)


@njit(cache=True, **COMPILED_ONLY)
def _heap_remove_min(heap):
    """Remove the root (read it before calling)."""
    heap.span.count = _heap_pop(heap.time, heap.row, heap.pay, heap.span.count)
