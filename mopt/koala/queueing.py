"""KOALA-C's queues in the compiled engine: joining, the policies' orders, the next job to place
(spec ``koala.md`` §2).

Each queue keeps its waiting jobs in arrival order (``waiting[q, :length[q]]``, their sizes in
``waiting_size``; a job that leaves is marked with size BIG until the queue is compacted). A queue
is served in its order: FCFS (arrival), SJF (predicted runtime, :func:`order_keys`), SJF-ideal
(actual runtime) or HSDF (highest estimated slowdown first); a job that fits no site is skipped,
or stops the scan of its queue when ``blocking``.
"""

from __future__ import annotations

from mopt.cloud.kernels import kernel
from mopt.koala.policies import BY_PREDICTED, BY_RUNTIME
from mopt.koala.tables import BIG, C_DONE, T_FINISHED_RUNTIME
from mopt.workloads.prediction import predict_koala

__all__ = ["join", "order_keys", "next_job", "compact"]



@kernel
def join(state, work, q, j):
    """Job ``j`` joins the end of queue ``q``."""
    m = state.length[q]
    state.waiting[q, m] = j
    state.waiting_size[q, m] = work.size[j]
    state.length[q] = m + 1
    state.smallest[q] = min(state.smallest[q], work.size[j])


@kernel
def order_keys(state, work, q, order, max_size, t):
    """Sort keys (lower first) of the jobs of queue ``q`` of at most ``max_size`` nodes: the actual
    runtime (SJF-ideal), the predicted runtime (SJF), or minus the estimated slowdown
    (t - submit + r) / r with r >= 1 s the predicted runtime (HSDF; ours)."""
    n_done = state.counts[C_DONE]
    finished_mean = state.totals[T_FINISHED_RUNTIME] / n_done if n_done > 0 else 0.0
    for i in range(state.length[q]):
        if state.waiting_size[q, i] > max_size:
            continue
        j = state.waiting[q, i]
        if order == BY_RUNTIME:
            state.keys[i] = work.runtime[j]
        else:
            r = predict_koala(state.history, work.user[j], work.req[j], finished_mean)
            if order == BY_PREDICTED:
                state.keys[i] = r
            else:
                r = max(r, 1.0)
                state.keys[i] = -(t - work.submit[j] + r) / r


@kernel
def next_job(state, q, keyed, blocking, room, pos):
    """The position of the next job of queue ``q`` to place, in the queue's order, that fits in
    ``room`` (-1: none), and where an FCFS scan goes on from. A job that fits nowhere is skipped,
    or ends the scan when ``blocking``; room only shrinks during a scan, so a job skipped once
    stays skipped."""
    m = state.length[q]
    if not keyed:
        while pos < m:
            if state.waiting_size[q, pos] <= room:
                return pos, pos
            if blocking and state.waiting_size[q, pos] < BIG:
                return -1, m
            pos += 1
        return -1, pos
    limit = BIG - 1 if blocking else room
    pick = -1
    for i in range(m):
        if state.waiting_size[q, i] <= limit and (pick < 0 or state.keys[i] < state.keys[pick]):
            pick = i
    if pick >= 0 and state.waiting_size[q, pick] > room:
        pick = -1
    return pick, pos


@kernel
def compact(state, work, q):
    """Drop the jobs that left queue ``q``, keeping arrival order."""
    w = 0
    smallest = BIG
    for i in range(state.length[q]):
        j = state.waiting[q, i]
        if j >= 0:
            state.waiting[q, w] = j
            state.waiting_size[q, w] = work.size[j]
            w += 1
            smallest = min(smallest, work.size[j])
    state.length[q] = w
    state.smallest[q] = smallest
