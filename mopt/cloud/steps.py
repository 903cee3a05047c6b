"""The steps of one tick of the cloud simulator (spec §2-4), compiled; :mod:`mopt.cloud.engine`
runs them in order.

Each step takes the simulation (:class:`~mopt.cloud.layout.Cloud`) and asks the policy's rules
(:mod:`mopt.cloud.policies`) what to do; none knows which policy runs. At a tick ``t``, after the
events that brought the clock there (:func:`arrivals`, :func:`completions`):

1. :func:`refresh_predictions` (predicted runtimes only) and :func:`rank_jobs` (job selection's
   priorities, the head of the queue);
2. :func:`provision`: lease clamp(target - supply, 0, C - L) VMs;
3. :func:`start_jobs`: from the head of the priority order until the head does not fit, each job
   on the VMs :func:`select_vms` takes (VM selection);
4. :func:`release_at_paid_hour`: release the idle VMs whose paid hour ends before the next tick,
   keeping as many VMs up as the waiting head of the queue needs.

:func:`charge_leased` ends a run: every VM still leased is charged up to its next hourly boundary.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.cloud import policies
from mopt.cloud.billing import HOUR, billed_hours, release_due
from mopt.cloud.kernels import kernel
from mopt.cloud.layout import (
    J_EST,
    J_N,
    J_REQ,
    J_RUN,
    J_SUB,
    J_USER,
    PREDICTED,
    Q_EST,
    Q_ID,
    Q_N,
    Q_REQ,
    Q_RUN,
    Q_SUB,
    Q_USER,
    R_ACTIVE,
    R_END,
    R_EST,
    R_ID,
    R_N,
    R_REQ,
    R_START,
    S_ARRIVALS,
    S_BOOT,
    S_BSD,
    S_BUSY,
    S_CAP,
    S_DONE,
    S_MODE,
    S_NEXT,
    S_NQ,
    S_NRUN,
    S_NV,
    S_ODG_LEASE,
    S_ODG_RELEASE,
    S_PAID,
    S_PRORATE,
    S_STARTED,
    S_STEP,
    V_LEASE,
    V_READY,
    V_SLOT,
)
from mopt.cloud.leasing import IDLE, first_idle, is_idle, lease_vm
from mopt.workloads.prediction import predict_sc13, record_finished

__all__ = ["arrivals", "completions", "refresh_predictions", "rank_jobs", "count_vms", "provision",
           "select_vms", "start_jobs", "release_at_paid_hour", "charge_leased"]


@kernel
def arrivals(cloud, t):
    """Jobs submitted by ``t`` join the queue (unless the run takes no more arrivals)."""
    scalars, queue, jobs = cloud.scalars, cloud.queue, cloud.jobs
    nq = int(scalars[S_NQ])
    if scalars[S_ARRIVALS] > 0:
        k = int(scalars[S_NEXT])
        while k < jobs.shape[0] and jobs[k, J_SUB] <= t:
            queue[nq, Q_ID] = k
            queue[nq, Q_SUB] = jobs[k, J_SUB]
            queue[nq, Q_RUN] = jobs[k, J_RUN]
            queue[nq, Q_EST] = jobs[k, J_EST]
            queue[nq, Q_REQ] = jobs[k, J_REQ]
            queue[nq, Q_N] = jobs[k, J_N]
            queue[nq, Q_USER] = jobs[k, J_USER]
            nq += 1
            k += 1
        scalars[S_NEXT] = k
    scalars[S_NQ] = nq


@kernel
def completions(cloud, t):
    """Jobs ending by ``t`` complete: their VMs go idle and their users' histories (for predicted
    runtimes; keyed by submission order) record them. A job outside the trace (an online
    simulation's running jobs) leaves no history."""
    scalars, running, vms, jobs, history = (cloud.scalars, cloud.running, cloud.vms, cloud.jobs,
                                            cloud.history)
    nv = int(scalars[S_NV])
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0 and running[s, R_END] <= t:
            running[s, R_ACTIVE] = 0.0
            scalars[S_NRUN] -= 1
            for v in range(nv):
                if vms[v, V_SLOT] == s:
                    vms[v, V_SLOT] = IDLE
            j = int(running[s, R_ID])
            user = int(jobs[j, J_USER]) if j < jobs.shape[0] else -1
            if user >= 0 and history.shape[0] > user:
                record_finished(history, user, float(j), jobs[j, J_RUN])


@kernel
def refresh_predictions(cloud):
    """With predicted runtimes, each queued job's estimate from its user's history as it is now."""
    scalars, queue = cloud.scalars, cloud.queue
    if scalars[S_MODE] == PREDICTED:
        for i in range(int(scalars[S_NQ])):
            queue[i, Q_EST] = predict_sc13(cloud.history, int(queue[i, Q_USER]), queue[i, Q_REQ],
                                           queue[i, Q_EST])  # never the actual runtime


@kernel
def rank_jobs(cloud, job_selection, t, priority):
    """Job selection: each queued job's priority into ``priority``; returns the head (the first of
    the highest, in arrival order)."""
    queue = cloud.queue
    head = 0
    for i in range(int(cloud.scalars[S_NQ])):
        priority[i] = policies.priority(job_selection, t - queue[i, Q_SUB], queue[i, Q_EST],
                                        queue[i, Q_N])
        if priority[i] > priority[head]:
            head = i
    return head


@kernel
def count_vms(cloud, t):
    """``(idle, booting)``: leased VMs up and running nothing, and VMs not up yet."""
    vms = cloud.vms
    idle = 0
    booting = 0
    for v in range(int(cloud.scalars[S_NV])):
        if vms[v, V_READY] > t:
            booting += 1
        elif vms[v, V_SLOT] < 0:
            idle += 1
    return idle, booting


@kernel
def provision(cloud, provisioning, t, head, idle, booting):
    """Lease the VMs the provisioning policy asks for at ``t`` (appended in lease order, up after
    the boot delay); returns how many, or -1 with nothing changed if the VM table has too few rows
    (it grows with the VMs used, up to the cap: :meth:`~mopt.cloud.engine.CloudState.advance`)."""
    scalars = cloud.scalars
    nv = int(scalars[S_NV])
    target, counts_busy = policies.provisioning_target(provisioning, cloud.queue,
                                                       int(scalars[S_NQ]), t, head, scalars[S_BOOT])
    supply = nv if counts_busy else idle + booting
    odg_lease, odg_release = scalars[S_ODG_LEASE], scalars[S_ODG_RELEASE]
    new = policies.vms_to_lease(provisioning, scalars, target, supply, scalars[S_CAP] - nv)
    if nv + new > cloud.vms.shape[0]:
        scalars[S_ODG_LEASE], scalars[S_ODG_RELEASE] = odg_lease, odg_release  # as if not asked
        return -1
    for _ in range(int(new)):
        lease_vm(cloud.vms, nv, t, scalars[S_BOOT], IDLE)
        nv += 1
    scalars[S_NV] = nv
    return int(new)


@njit(cache=True)
def select_vms(cloud, vm_selection, t, n, est, rows):
    """VM selection: the rows of the ``n`` idle VMs taken for a job of estimated runtime ``est``
    (``rows``: scratch space for every leased VM). FirstFit: the first in lease order; otherwise
    the smallest ``(tier, key)`` pairs (:func:`mopt.cloud.policies.vm_key`), ties in lease
    order."""
    vms = cloud.vms
    nv = int(cloud.scalars[S_NV])
    if policies.in_lease_order(vm_selection):
        m = first_idle(vms, 0, nv, t, n, rows)
        return rows[:m]
    m = first_idle(vms, 0, nv, t, nv, rows)
    key = np.empty(m)
    tier = np.zeros(m, np.int64)
    tiered = False
    for i in range(m):
        tier[i], key[i] = policies.vm_key(vm_selection, vms[rows[i], V_LEASE], t, est)
        tiered = tiered or tier[i] != 0
    order = np.argsort(key, kind="mergesort")  # stable: ties in lease order
    if tiered:  # then by tier, stably: the order is by (tier, key), ties in lease order
        order = order[np.argsort(tier[order], kind="mergesort")]
    return rows[order[:n]]


@njit(cache=True)
def start_jobs(cloud, vm_selection, t, priority, idle, out_start):
    """Start queued jobs from the head of the priority order until the head does not fit in the
    ``idle`` VMs (strict head of line); account their busy time and bounded slowdown, write their
    start times into ``out_start`` (if not empty) and compact the queue. Returns ``(idle,
    started, waiting)``: ``waiting`` the width of the head left waiting (0 if the queue emptied)."""
    scalars, queue, running, vms = cloud.scalars, cloud.queue, cloud.running, cloud.vms
    nq = int(scalars[S_NQ])
    rows = np.empty(int(scalars[S_NV]), np.int64)
    started = np.zeros(nq, np.bool_)
    n_started = 0
    waiting = 0
    while n_started < nq:
        h = -1
        for i in range(nq):
            if not started[i] and (h < 0 or priority[i] > priority[h]):
                h = i
        n = int(queue[h, Q_N])
        if n > idle:
            waiting = n
            break
        slot = 0
        while running[slot, R_ACTIVE] > 0:
            slot += 1
        for v in select_vms(cloud, vm_selection, t, n, queue[h, Q_EST], rows):
            vms[v, V_SLOT] = slot
        run = queue[h, Q_RUN]
        running[slot, R_ID] = queue[h, Q_ID]
        running[slot, R_START] = t
        running[slot, R_END] = t + run
        running[slot, R_N] = n
        running[slot, R_EST] = queue[h, Q_EST]
        running[slot, R_REQ] = queue[h, Q_REQ]
        running[slot, R_ACTIVE] = 1.0
        scalars[S_NRUN] += 1
        idle -= n
        started[h] = True
        n_started += 1
        wait = t - queue[h, Q_SUB]
        scalars[S_BUSY] += n * run
        scalars[S_BSD] += max(1.0, (wait + run) / max(run, 10.0))
        scalars[S_STARTED] += 1
        if out_start.shape[0] > 0:
            out_start[int(queue[h, Q_ID])] = t
    if n_started > 0:  # compact the queue, keeping arrival order
        k = 0
        for i in range(nq):
            if not started[i]:
                if k != i:
                    queue[k, :] = queue[i, :]
                k += 1
        scalars[S_NQ] = k
    return idle, n_started, waiting


@kernel
def release_at_paid_hour(cloud, provisioning, t, waiting):
    """Release the idle VMs whose paid hour ends in [t, t + step) (JSSPP), as many as the policy
    allows (StartUp none, ODG a few); each is charged its started hours. Returns how many.

    ``waiting``: the width of the job at the head of the queue, left waiting by this tick (0 if
    none). Ours, beyond the papers: no release leaves fewer than ``waiting`` VMs up (idle or busy).
    Releasing VMs the waiting head needs, only to lease them again, livelocks a head as wide as
    the cap: a VM released at its paid hour is leased again and boots while another's hour ends,
    so the head's VMs are never all up at once (KTH-SP2's first 1,974 jobs, cap 64, 240 s boots).
    With the rule, the VMs up stay at least the head's width once they reach it, and the head
    starts when the busy ones are done.
    """
    scalars, vms = cloud.scalars, cloud.vms
    nv = int(scalars[S_NV])
    allowance = policies.release_allowance(provisioning, scalars)
    if waiting > 0 and allowance > 0:
        up = 0
        for v in range(nv):
            if vms[v, V_READY] <= t:
                up += 1
        allowance = min(allowance, max(up - waiting, 0))
    if allowance == 0:
        return 0
    step = scalars[S_STEP]
    released = 0
    k = 0
    for v in range(nv):
        lease = vms[v, V_LEASE]
        if is_idle(vms, v, t) and release_due(t, lease, step, False) and released < allowance:
            scalars[S_PAID] += billed_hours(t, lease) * HOUR
            released += 1
        else:
            if k != v:  # compact the table, keeping lease order
                for c in range(vms.shape[1]):
                    vms[k, c] = vms[v, c]
            k += 1
    scalars[S_NV] = k
    policies.after_release(provisioning, scalars, released)
    return released


@kernel
def charge_leased(cloud, t):
    """The end of a run: charge every VM still leased up to its next hourly boundary (with
    ``S_PRORATE``, an online window of mopt's rule: only up to ``t``)."""
    scalars = cloud.scalars
    for v in range(int(scalars[S_NV])):
        if scalars[S_PRORATE] > 0:
            scalars[S_PAID] += t - cloud.vms[v, V_LEASE]
        else:
            scalars[S_PAID] += billed_hours(t, cloud.vms[v, V_LEASE]) * HOUR
    scalars[S_NV] = 0.0
    scalars[S_DONE] = 1.0
