"""The compiled KOALA-C event loop (Numba); :func:`mopt.koala.simulation` is its public face.

Time moves on the scheduler's ticks ``t0 + k * step`` (``t0`` the first submission), visiting only
ticks where something happens. At each tick, in this order:

1. :func:`end_runs`: every run that ended at or before the tick, earliest first (ties by job
   index): a run shorter than or equal to its queue's limit completes (:func:`complete`); a longer
   one was killed at exactly the limit and its job joins the next queue, to restart from scratch
   (:func:`kill`). Nodes and VMs it held become free (VMs idle since the end time);
2. :func:`arrivals`: jobs submitted at or before the tick join their entry queue;
3. :func:`mopt.koala.sites.release_idle_vms`: a private VM above the minimum after its idle
   time (lowest row first), a public VM when its next billed hour is at most one step away;
4. if anything ended or arrived, :func:`serve`: every queue in queue order, each in its own order
   (:mod:`mopt.koala.queueing`), a job to the first site of its queue with room (or the next in
   round-robin order; :mod:`mopt.koala.sites`).

The next tick is the one of the :func:`next_event`.

:func:`run_engine` runs the loop in calls of about :data:`mopt.core.execute.CALL_SECONDS` each
(:func:`run_ticks` stops after a budget of work, status :data:`PAUSED`, and goes on from where it
stopped): a Ctrl-C or SIGTERM is handled when a call returns, so a whole trace stops within about
that time.  The calls give the same results as one call.

A cluster job starts at the tick. A cloud job takes idle VMs, leases the shortfall and starts when
all its VMs are up. The engine does not know which policy it runs: a policy is its queues
(:class:`~mopt.koala.tables.QueueTable`). Runtime prediction is :mod:`mopt.workloads.prediction`'s,
leases and billing :mod:`mopt.cloud.leasing`'s and :mod:`mopt.cloud.billing`'s.

The plain-Python model ``tests/reference/koala_model.py`` implements the same rules independently, tick
by tick; ``tests/koala/test_engine.py`` compares the two job by job.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from mopt.cloud.billing import release_due  # noqa: F401 - the release rule (mopt.koala.sites), re-exported
from mopt.cloud.kernels import inlined_kernel, kernel
from mopt.core.execute import CallPacer
from mopt.koala import heap
from mopt.koala.policies import FCFS
from mopt.koala.queueing import compact, join, next_job, order_keys
from mopt.koala.sites import (
    acquire,
    charge_still_leased,
    choose_site,
    free_after_run,
    max_room,
    release_idle_vms,
)
from mopt.koala.tables import (
    BIG,
    C_ARRIVED,
    C_DONE,
    C_RUNNING,
    CLUSTER,
    T_COST,
    T_FINISHED_RUNTIME,
    T_VM_SECONDS,
    T_WASTED_CLOUD,
    QueueTable,
    SiteTable,
    Workload,
    new_state,
)
from mopt.workloads.prediction import record_finished

__all__ = ["run_engine", "Workload", "SiteTable", "QueueTable"]

#: :func:`run_ticks`' status: every job completed; jobs were left that fit nowhere; the tick
#: budget ran out (call again from the tick returned)
DONE, STALLED, PAUSED = 0, 1, 2
#: units of work of the first call of :func:`run_ticks` (later calls: as many as fill CALL_SECONDS)
FIRST_WORK = 10_000


@kernel
def kill(state, work, sites, queues, j, s, end):
    """Job ``j``'s run on site ``s`` reached its queue's limit at ``end``: its node-seconds are
    wasted and it joins the next queue, to restart from scratch (TAGS)."""
    lost = work.size[j] * (end - state.run_start[j])
    state.wasted[j] += lost
    if sites.kind[s] != CLUSTER:
        state.totals[T_WASTED_CLOUD] += lost
    state.restarts[j] += 1
    q = queues.next[state.stage[j]]
    state.stage[j] = q
    join(state, work, q, j)


@kernel
def complete(state, work, j, s, end):
    """Job ``j`` completed on site ``s`` at ``end``; its user's history records it (keyed by
    completion order) for predictions."""
    state.site_out[j] = s
    state.start_out[j] = state.run_start[j]
    state.end_out[j] = end
    record_finished(state.history, work.user[j], float(state.counts[C_DONE]), work.runtime[j])
    state.totals[T_FINISHED_RUNTIME] += work.runtime[j]
    state.counts[C_DONE] += 1


@kernel
def end_runs(state, work, sites, queues, t):
    """Step 1: retire the runs that ended by ``t``; returns whether there was one."""
    changed = False
    while state.counts[C_RUNNING] > 0 and state.heap_time[0] <= t:
        end = state.heap_time[0]
        j = state.heap_job[0]
        state.counts[C_RUNNING] = heap.pop(state.heap_time, state.heap_job, state.counts[C_RUNNING])
        s = state.run_site[j]
        free_after_run(state, sites, s, j, work.size[j], end)
        if work.runtime[j] > queues.limit[state.stage[j]]:  # killed at exactly the limit
            kill(state, work, sites, queues, j, s, end)
        else:
            complete(state, work, j, s, end)
        changed = True
    return changed


@kernel
def arrivals(state, work, t):
    """Step 2: jobs submitted by ``t`` join their entry queue; returns whether there was one."""
    changed = False
    n = work.submit.shape[0]
    a = state.counts[C_ARRIVED]
    while a < n and work.submit[a] <= t:
        join(state, work, work.entry[a], a)
        a += 1
        changed = True
    state.counts[C_ARRIVED] = a
    return changed


@kernel
def start_run(state, work, queues, q, j, s, begin):
    """Job ``j`` of queue ``q`` runs on site ``s`` from ``begin``, until done or the queue's limit."""
    state.run_site[j] = s
    state.run_start[j] = begin
    run = work.runtime[j] if work.runtime[j] <= queues.limit[q] else queues.limit[q]
    state.counts[C_RUNNING] = heap.push(state.heap_time, state.heap_job, state.counts[C_RUNNING],
                                        begin + run, j)


@inlined_kernel
def serve(state, work, sites, queues, q, t):
    """Step 4 for queue ``q``: place its jobs, in its order, while one fits a site; returns about
    how many queue places it visited (the work :func:`run_ticks` counts)."""
    waiting = state.length[q]
    if waiting == 0:
        return 0
    room = max_room(state, sites, queues, q)
    if room < state.smallest[q]:
        return 0  # no waiting job fits any site of this queue
    keyed = queues.order[q] != FCFS
    if keyed:
        order_keys(state, work, q, queues.order[q], BIG - 1 if queues.blocking else room, t)
    placed = 0
    pos = 0
    while room > 0:
        pick, pos = next_job(state, q, keyed, queues.blocking, room, pos)
        if pick < 0:
            break
        j = state.waiting[q, pick]
        s = choose_site(state, sites, queues, q, work.size[j])
        begin = acquire(state, sites, s, j, work.size[j], t)
        start_run(state, work, queues, q, j, s, begin)
        state.waiting[q, pick] = -1
        state.waiting_size[q, pick] = BIG
        placed += 1
        room = max_room(state, sites, queues, q)
    if placed:
        compact(state, work, q)
    return waiting * (placed + 2)  # the keys, a scan per job placed and one more, compact


@kernel
def next_event(state, work, next_release):
    """The earliest time at which something happens: a VM falls due for release, a job arrives,
    or a run ends (inf: nothing will)."""
    nxt = next_release
    a = state.counts[C_ARRIVED]
    if a < work.submit.shape[0] and work.submit[a] < nxt:
        nxt = work.submit[a]
    if state.counts[C_RUNNING] > 0 and state.heap_time[0] < nxt:
        nxt = state.heap_time[0]
    return nxt


@kernel
def run_ticks(state, work, sites, queues, step, t, budget):
    """Simulate one policy over one trace from ``state`` at tick ``t`` (module docstring) until
    about ``budget`` units of work are done (a unit: a tick, a run ended, a job arrived, a queue
    place visited); returns ``(tick, status, work done)``: the last tick and :data:`DONE`, the last
    tick and :data:`STALLED` if jobs were left that fit nowhere, or the tick to go on from and
    :data:`PAUSED`."""
    t0 = work.submit[0]
    done = 0
    while done < budget:
        running, arrived = state.counts[C_RUNNING], state.counts[C_ARRIVED]
        changed = end_runs(state, work, sites, queues, t)  # 1.
        if state.counts[C_DONE] == work.submit.shape[0]:
            return t, DONE, done + 1
        changed = arrivals(state, work, t) or changed  # 2.
        next_release = release_idle_vms(state, sites, t, step)  # 3.
        done += 1 + (running - state.counts[C_RUNNING]) + (state.counts[C_ARRIVED] - arrived)
        if changed:  # 4.
            for q in range(queues.limit.shape[0]):
                done += serve(state, work, sites, queues, q, t)
        nxt = next_event(state, work, next_release)
        if nxt == math.inf:
            return t, STALLED, done  # jobs wait that fit nowhere, and nothing will change
        t_next = t0 + math.ceil((nxt - t0) / step) * step  # the tick of the next event
        t = t_next if t_next > t else t + step
    return t, PAUSED, done


@njit(cache=True)
def advance(state, work, sites, queues, step, t, budget):
    """:func:`run_ticks` called from Python (a kernel takes no arrays from Python)."""
    return run_ticks(state, work, sites, queues, step, t, budget)


def run_engine(work, sites, queues, step):
    """Simulate one policy (``queues``) over one trace (``work``) on ``sites``; see the module
    docstring for the rules.

    Returns ``(site, start, end, restarts, wasted, totals, status)``: per job the site, start and
    end of its final run, kills and wasted node-seconds; ``totals`` = (public cost, leased VM-seconds
    up to the last completion, wasted cloud VM-seconds); status 1 if jobs were left that fit nowhere.
    """
    state = new_state(work, sites, queues)
    t, status = work.submit[0], PAUSED
    pacer = CallPacer(FIRST_WORK)
    while status == PAUSED:  # calls of about CALL_SECONDS: a signal is handled between two
        start = time.perf_counter()
        t, status, done = advance(state, work, sites, queues, step, t, pacer.size())
        pacer.record(done, time.perf_counter() - start)
    return finish(state, work, sites, t, status)


@njit(cache=True)
def finish(state, work, sites, t, status):
    """:func:`run_engine`'s results from the state after the last tick ``t``."""
    # VMs still leased: counted up to the last completion; public ones charged as released later
    t_end = work.submit[0]
    for j in range(work.submit.shape[0]):
        if state.end_out[j] > t_end:
            t_end = state.end_out[j]
    charge_still_leased(state, sites, t, t_end)
    totals = np.array([state.totals[T_COST], state.totals[T_VM_SECONDS],
                       state.totals[T_WASTED_CLOUD]])
    return (state.site_out, state.start_out, state.end_out, state.restarts, state.wasted, totals,
            status)
