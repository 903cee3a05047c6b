"""Tick skipping (spec §2: KTH-SP2's 11 months are 1.4 million ticks), compiled.

A tick after which nothing changed is *quiet*: the next ticks decide as it did until an event —
an arrival, a completion, a VM up, an idle VM's paid-hour boundary, a queued job crossing the
policy's waiting threshold (ODX, ODW), or a job overtaking the head of the queue.
:func:`next_tick` finds the first tick at which one can happen, in O(1) per event;
:func:`finish_without_ticking` ends a run whose queue is empty and that takes no more jobs.
"""

from __future__ import annotations

import math

import numpy as np

from mopt.cloud import policies
from mopt.cloud.billing import HOUR, billed_hours, paid_until, release_due
from mopt.cloud.kernels import kernel
from mopt.cloud.layout import (
    J_SUB,
    Q_EST,
    Q_N,
    Q_SUB,
    R_ACTIVE,
    R_END,
    S_ARRIVALS,
    S_BOOT,
    S_CLOCK,
    S_DONE,
    S_NEXT,
    S_NQ,
    S_NRUN,
    S_NV,
    S_PAID,
    S_PRORATE,
    S_STEP,
    V_LEASE,
    V_READY,
    V_SLOT,
)

__all__ = ["tick_of", "overtake_tick", "next_tick", "finish_without_ticking"]


@kernel
def tick_of(x, step):
    """The first tick at or after time ``x``."""
    return math.ceil(x / step) * step


@kernel
def overtake_tick(queue, nq, job_selection, head, wide, idle, t, step):
    """A tick at or before the first at which a job overtakes the head: one that fits in the
    ``idle`` VMs, or any job if ``wide`` (a target that follows the head's width)."""
    ah, bh = policies.priority_line(job_selection, queue[head, Q_SUB], queue[head, Q_EST],
                                    queue[head, Q_N])
    nxt = np.inf
    for i in range(nq):
        if i != head and (wide or queue[i, Q_N] <= idle):
            a, b = policies.priority_line(job_selection, queue[i, Q_SUB], queue[i, Q_EST],
                                          queue[i, Q_N])
            if b > bh:  # conservative: a tick before the crossing, rounding aside
                nxt = min(nxt, math.floor((ah - a) / (b - bh) / step) * step - step)
    return nxt


@kernel
def next_tick(cloud, policy, t, quiet, head, idle):
    """The next tick at which anything can change (``t + step`` unless the tick is ``quiet``)."""
    scalars, queue, running, vms, jobs = (cloud.scalars, cloud.queue, cloud.running, cloud.vms,
                                          cloud.jobs)
    step = scalars[S_STEP]
    if not quiet:
        return t + step
    nxt = np.inf
    if scalars[S_ARRIVALS] > 0 and scalars[S_NEXT] < jobs.shape[0]:
        nxt = tick_of(jobs[int(scalars[S_NEXT]), J_SUB], step)
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            nxt = min(nxt, tick_of(running[s, R_END], step))
    releases = policies.releases_idle_vms(policy.provisioning)
    for v in range(int(scalars[S_NV])):
        if vms[v, V_READY] > t:
            nxt = min(nxt, tick_of(vms[v, V_READY], step))
        elif vms[v, V_SLOT] < 0 and releases:  # idle: its next paid-hour boundary
            b = paid_until(t + step, vms[v, V_LEASE])
            nxt = min(nxt, math.floor(b / step) * step)
    nq = int(scalars[S_NQ])
    if policies.has_waiting_threshold(policy.provisioning):  # a job crossing the threshold
        for i in range(nq):
            m = policies.waiting_threshold(policy.provisioning, queue[i, Q_EST], scalars[S_BOOT])
            if t - queue[i, Q_SUB] <= m:
                nxt = min(nxt, math.floor((queue[i, Q_SUB] + m) / step) * step + step)
    wide = policies.target_follows_head(policy.provisioning)
    if nq > 1 and (idle > 0 or wide):
        nxt = min(nxt, overtake_tick(queue, nq, policy.job_selection, head, wide, idle, t, step))
    return max(nxt, t + step)


@kernel
def finish_without_ticking(cloud, t):
    """Finish a run whose queue is empty and that takes no more arrivals, without ticking: what
    the loop would do from here (no lease: every target is 0; each VM released on the first tick
    at or after it goes idle whose paid hour ends before the next tick; every VM still leased
    charged at the tick the last job ends; with ``S_PRORATE``, a VM still leased then is charged
    only up to that tick). Only for policies that release every idle VM at its
    paid hour (:func:`mopt.cloud.policies.releases_all_at_paid_hour`)."""
    scalars, running, vms = cloud.scalars, cloud.running, cloud.vms
    step = scalars[S_STEP]
    end = t
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            end = max(end, tick_of(running[s, R_END], step))
            running[s, R_ACTIVE] = 0.0
    for v in range(int(scalars[S_NV])):
        lease = vms[v, V_LEASE]
        if vms[v, V_READY] > t:  # booting: idle from the tick it is ready
            idle = tick_of(vms[v, V_READY], step)
        elif vms[v, V_SLOT] >= 0:  # busy: idle from the tick its job's end is seen
            idle = tick_of(running[int(vms[v, V_SLOT]), R_END], step)
        else:  # idle now: this tick's release has passed it over
            idle = t + step
        boundary = paid_until(idle, lease)
        release = idle if release_due(idle, lease, step, False) else math.floor(boundary / step) * step
        if scalars[S_PRORATE] > 0 and release > end:  # still leased at the end: up to the end
            scalars[S_PAID] += end - lease
        else:
            scalars[S_PAID] += billed_hours(min(release, end), lease) * HOUR
    scalars[S_NV] = 0.0
    scalars[S_NRUN] = 0.0
    scalars[S_CLOCK] = end
    scalars[S_DONE] = 1.0
