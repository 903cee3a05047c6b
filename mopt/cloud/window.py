"""The start of an online simulation (spec §6), compiled: a copied state turned into a window.

From a copy of the current state, with no future arrivals: queued jobs run their estimated
runtime (predicted runtimes refreshed to the current tick, then fixed for the window); running jobs
end at their estimated end (a job past its estimate needs ``req_time``, past that one more tick):
no actual runtime of a job that has not finished enters a window; the accumulators
restart, so that when the window's run is done ``S_BUSY`` holds the busy VM-seconds from now on,
``S_PAID`` the paid VM-seconds from now on (with every VM released at its next hourly boundary)
and ``S_BSD / S_STARTED`` the mean bounded slowdown of the jobs queued now (waits from their real
submit times). :mod:`mopt.cloud.online` runs candidate policies from such windows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.cloud.kernels import kernel
from mopt.cloud.layout import (
    PREDICTED,
    Q_EST,
    Q_REQ,
    Q_RUN,
    Q_USER,
    R_ACTIVE,
    R_END,
    R_EST,
    R_ID,
    R_N,
    R_REQ,
    R_START,
    S_ARRIVALS,
    S_BSD,
    S_BUSY,
    S_CLOCK,
    S_MODE,
    S_NQ,
    S_NV,
    S_PAID,
    S_STARTED,
    S_STEP,
    V_LEASE,
    V_SLOT,
)
from mopt.workloads.prediction import predict_sc13

__all__ = ["start_window", "compact_running"]


@kernel
def start_window(cloud):
    """Turn ``cloud`` (a copy) into the start of an online simulation (module docstring)."""
    scalars, queue, running, vms, jobs = (cloud.scalars, cloud.queue, cloud.running, cloud.vms,
                                          cloud.jobs)
    t = scalars[S_CLOCK]
    step = scalars[S_STEP]
    nq = int(scalars[S_NQ])
    for i in range(nq):
        if scalars[S_MODE] == PREDICTED:
            queue[i, Q_EST] = predict_sc13(cloud.history, int(queue[i, Q_USER]), queue[i, Q_REQ],
                                           queue[i, Q_EST])
        queue[i, Q_RUN] = queue[i, Q_EST]
    busy = 0.0
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            end = running[s, R_START] + running[s, R_EST]
            if end <= t:
                end = running[s, R_START] + running[s, R_REQ]
                if end <= t:
                    end = t + step
            running[s, R_END] = end
            running[s, R_ID] = jobs.shape[0]  # outside the trace: no user history update
            busy += running[s, R_N] * (end - t)
    paid = 0.0
    for v in range(int(scalars[S_NV])):
        paid -= t - vms[v, V_LEASE]
    scalars[S_BUSY] = busy
    scalars[S_PAID] = paid
    scalars[S_BSD] = 0.0
    scalars[S_STARTED] = 0.0
    scalars[S_ARRIVALS] = 0.0
    scalars[S_MODE] = 0.0


@njit(cache=True)
def compact_running(running, vms, nv, free):
    """The running-job table cut down to the live jobs plus ``free`` free slots (one per queued
    job: all an online simulation without arrivals can fill), the VMs' slot numbers renumbered to
    match. The loop visits every slot on every tick, so this keeps an online simulation's cost
    in the queued and running jobs, not in the cap on VMs (ours; the results are the same)."""
    live = 0
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            live += 1
    compact = np.zeros((live + free, running.shape[1]))
    renumber = np.full(running.shape[0], -1.0)
    k = 0
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            compact[k, :] = running[s, :]
            renumber[s] = k
            k += 1
    moved = vms.copy()
    for v in range(nv):
        if moved[v, V_SLOT] >= 0:
            moved[v, V_SLOT] = renumber[int(moved[v, V_SLOT])]
    return compact, moved
