"""KOALA-C's sites in the compiled engine: room, placement, on-demand leases and releases (spec
``koala.md`` §1).

A cluster's nodes are always there. A cloud site leases VMs on demand (OD): it fits a job if its
idle leased VMs plus the VMs it may still lease are enough; the job takes idle VMs first (lowest
row first, :func:`mopt.cloud.leasing.first_idle`), leases the shortfall (:func:`take_vms`) and
starts when all its VMs are up. Idle VMs go (:func:`release_idle_vms`): a private VM above the
minimum after its idle time (free), a public VM when its next billed hour is at most one tick away
(:func:`mopt.cloud.billing.release_due` with ``within_tick``), charged ``price`` per started hour.

The VM rows, the lease, the idle test, first-fit taking and hourly billing are the cloud
simulator's (:mod:`mopt.cloud.leasing`, :mod:`mopt.cloud.billing`). KOALA-C's own rules, which
SC13/JSSPP do not have: leasing per job (the cloud simulator's provisioning policies lease ahead
of the jobs), the private cloud's minimum and idle time, the release window of one whole tick
(the cloud simulator's is ``[t, t + step)``) and a price per VM-hour.
"""

from __future__ import annotations

import math

from mopt.cloud.billing import billed_hours, paid_until, release_due
from mopt.cloud.kernels import kernel
from mopt.cloud.leasing import (
    IDLE,
    UNLEASED,
    V_LEASE,
    V_READY,
    V_SLOT,
    first_idle,
    is_idle,
    lease_vm,
)
from mopt.koala.policies import ROUND_ROBIN
from mopt.koala.tables import (
    CLUSTER,
    PRIVATE,
    PUBLIC,
    T_COST,
    T_VM_SECONDS,
    V_IDLE_SINCE,
)

__all__ = ["room", "max_room", "choose_site", "take_vms", "acquire", "free_after_run",
           "release_idle_vms", "charge_still_leased"]



@kernel
def room(state, sites, s):
    """Nodes (cluster) or VMs (cloud: idle plus not yet leased) a job could have on site ``s``."""
    if sites.kind[s] == CLUSTER:
        return state.free_nodes[s]
    return state.idle[s] + sites.capacity[s] - state.leased[s]


@kernel
def max_room(state, sites, queues, q):
    """The largest room among the sites of queue ``q``."""
    best = 0
    for k in range(queues.site_ptr[q], queues.site_ptr[q + 1]):
        best = max(best, room(state, sites, queues.site_index[k]))
    return best


@kernel
def choose_site(state, sites, queues, q, size):
    """The site of queue ``q`` for a job of ``size``: the first with room in the queue's site order
    (first fit), or from the round-robin position on, which then moves past it."""
    lo = queues.site_ptr[q]
    width = queues.site_ptr[q + 1] - lo
    round_robin = queues.select[q] == ROUND_ROBIN
    for k in range(width):
        p = (state.rr_next[q] + k) % width if round_robin else k
        s = queues.site_index[lo + p]
        if room(state, sites, s) >= size:
            if round_robin:
                state.rr_next[q] = (p + 1) % width
            return s
    return -1


@kernel
def take_vms(state, sites, s, j, need, t):
    """Give job ``j`` ``need`` VMs of cloud site ``s``: idle ones first (lowest row first), then
    leases of the shortfall (lowest free rows; up after the boot delay). Returns when the job can
    start: when all its VMs are up."""
    begin = t
    # idle VMs are up: they ran a job, or are the private minimum, up from t0
    taken = first_idle(state.vms, state.vm_offset[s], state.vm_offset[s + 1], t, need,
                       state.vm_rows)
    for i in range(taken):
        state.vms[state.vm_rows[i], V_SLOT] = j
        begin = max(begin, state.vms[state.vm_rows[i], V_READY])
    state.idle[s] -= taken
    need -= taken
    for v in range(state.vm_offset[s], state.vm_offset[s + 1]):
        if need == 0:
            break
        if state.vms[v, V_SLOT] == UNLEASED:
            lease_vm(state.vms, v, t, sites.boot[s], j)
            begin = max(begin, state.vms[v, V_READY])
            state.leased[s] += 1
            need -= 1
    return begin


@kernel
def acquire(state, sites, s, j, size, t):
    """Job ``j`` takes ``size`` nodes or VMs of site ``s`` at ``t``; returns when it can start."""
    if sites.kind[s] == CLUSTER:
        state.free_nodes[s] -= size
        return t
    return take_vms(state, sites, s, j, size, t)


@kernel
def free_after_run(state, sites, s, j, size, end):
    """The run of job ``j`` on site ``s`` ended at ``end``: its nodes are free, its VMs idle."""
    if sites.kind[s] == CLUSTER:
        state.free_nodes[s] += size
        return
    for v in range(state.vm_offset[s], state.vm_offset[s + 1]):
        if state.vms[v, V_SLOT] == j:
            state.vms[v, V_SLOT] = IDLE
            state.vms[v, V_IDLE_SINCE] = end
    state.idle[s] += size


@kernel
def _release(state, s, v, t):
    state.vms[v, V_SLOT] = UNLEASED
    state.leased[s] -= 1
    state.idle[s] -= 1
    state.totals[T_VM_SECONDS] += t - state.vms[v, V_LEASE]


@kernel
def release_idle_vms(state, sites, t, step):
    """Release the idle cloud VMs that are due at tick ``t`` (module docstring); returns the
    earliest time another one falls due (inf: none)."""
    next_release = math.inf
    for s in range(sites.kind.shape[0]):
        if sites.kind[s] == CLUSTER or state.idle[s] == 0:
            continue
        for v in range(state.vm_offset[s], state.vm_offset[s + 1]):
            if not is_idle(state.vms, v, t):
                continue
            if sites.kind[s] == PRIVATE:
                if state.leased[s] <= sites.minimum[s]:
                    break
                due = state.vms[v, V_IDLE_SINCE] + sites.idle_release[s]
                if due <= t:
                    _release(state, s, v, t)
                elif due < next_release:
                    next_release = due
            else:
                lease = state.vms[v, V_LEASE]
                boundary = paid_until(t, lease)
                if release_due(t, lease, step, True):
                    _release(state, s, v, t)
                    state.totals[T_COST] += sites.price[s] * billed_hours(t, lease)
                elif boundary - step < next_release:
                    next_release = boundary - step
    return next_release


@kernel
def charge_still_leased(state, sites, t, t_end):
    """The end: VMs still leased count as leased up to ``t_end`` (the last completion); public ones
    are charged their started hours at the last tick ``t``."""
    for s in range(sites.kind.shape[0]):
        for v in range(state.vm_offset[s], state.vm_offset[s + 1]):
            if state.vms[v, V_SLOT] != UNLEASED:
                state.totals[T_VM_SECONDS] += max(0.0, t_end - state.vms[v, V_LEASE])
                if sites.kind[s] == PUBLIC:
                    state.totals[T_COST] += sites.price[s] * billed_hours(t, state.vms[v, V_LEASE])
