"""The arrays of a KOALA-C simulation (spec ``koala.md``): the structs the compiled engine takes.

:class:`Workload` (per job), :class:`SiteTable` (per site) and :class:`QueueTable` (per queue of
the policy, :meth:`mopt.koala.policies.Policy.queues`) are the inputs; :class:`KoalaState` holds
everything the engine changes, made by :func:`new_state`. Numba passes each to the compiled
functions as one struct.

KOALA-C's VMs are rows of the table of :mod:`mopt.cloud.leasing` (lease, ready, slot = the job
it runs, ``IDLE`` or ``UNLEASED``) plus :data:`V_IDLE_SINCE`; each cloud site has fixed rows
``vm_offset[s]`` to ``vm_offset[s + 1] - 1``, one per VM it may lease.

The indices below are compiled into the steps as constants, and Numba's cache checks only the
source file of each cached function: after changing one, clear the cache (``find mopt -name
'*.nb[ic]' -delete``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from mopt.cloud.leasing import IDLE, UNLEASED, V_LEASE, V_READY, V_SLOT
from mopt.workloads.prediction import new_history

__all__ = ["Workload", "SiteTable", "QueueTable", "KoalaState", "new_state", "CLUSTER", "PRIVATE",
           "PUBLIC", "BIG"]

#: site kinds (positions in :data:`mopt.koala.environment.KINDS`)
CLUSTER, PRIVATE, PUBLIC = 0, 1, 2
#: a size no job has: marks a queue place whose job has left
BIG = 2**62
#: KOALA-C's own VM column: when the VM went idle (the private cloud releases after an idle time)
V_IDLE_SINCE = 3
#: ``KoalaState.counts``: runs in progress (the heap's size), completed jobs, jobs arrived
C_RUNNING, C_DONE, C_ARRIVED = range(3)
#: ``KoalaState.totals``: public-cloud cost ($), leased VM-seconds, wasted cloud VM-seconds, the
#: summed runtime of the completed jobs (for predictions)
T_COST, T_VM_SECONDS, T_WASTED_CLOUD, T_FINISHED_RUNTIME = range(4)


class Workload(NamedTuple):
    """The jobs, in submission order."""

    submit: np.ndarray  # float64, s
    size: np.ndarray  # int64, nodes or VMs
    runtime: np.ndarray  # float64, s
    user: np.ndarray  # int64, 0 .. n_users - 1
    req: np.ndarray  # float64, requested time (s; <= 0: none)
    entry: np.ndarray  # int64, the queue each job joins at submission
    n_users: int


class SiteTable(NamedTuple):
    """The sites, in the environment's order."""

    kind: np.ndarray  # int64, CLUSTER / PRIVATE / PUBLIC
    capacity: np.ndarray  # int64, nodes, or most VMs leased at once
    minimum: np.ndarray  # int64, VMs always up (private cloud)
    price: np.ndarray  # float64, $ per started VM-hour
    boot: np.ndarray  # float64, s from lease to a usable VM
    idle_release: np.ndarray  # float64, s an idle private VM is kept


class QueueTable(NamedTuple):
    """The policy's queues: queue ``q`` may use sites ``site_index[site_ptr[q]:site_ptr[q + 1]]`` in
    that order; a run from it is killed at ``limit[q]`` and its job joins queue ``next[q]``;
    ``order[q]`` and ``select[q]`` are the codes of :mod:`mopt.koala.policies`."""

    site_ptr: np.ndarray
    site_index: np.ndarray
    limit: np.ndarray
    next: np.ndarray
    order: np.ndarray
    select: np.ndarray
    blocking: bool


class KoalaState(NamedTuple):
    """What the engine changes (all arrays, modified in place)."""

    # per job: the current run, and the final run's results
    stage: np.ndarray  # the queue the job is in (or ran from)
    run_site: np.ndarray
    run_start: np.ndarray
    site_out: np.ndarray
    start_out: np.ndarray
    end_out: np.ndarray
    restarts: np.ndarray
    wasted: np.ndarray  # node-seconds of killed runs
    # per site
    free_nodes: np.ndarray  # clusters
    leased: np.ndarray  # clouds: VMs leased (idle or busy)
    idle: np.ndarray  # clouds: leased VMs running nothing
    vm_offset: np.ndarray  # clouds: the site's first VM row (n_sites + 1 entries)
    vms: np.ndarray  # one row per VM place (module docstring)
    vm_rows: np.ndarray  # scratch: the rows of the VMs a job takes
    # per queue: waiting jobs in arrival order, their sizes (BIG: left), counts
    waiting: np.ndarray
    waiting_size: np.ndarray
    length: np.ndarray
    rr_next: np.ndarray  # round robin: the next site position to try
    smallest: np.ndarray  # the smallest size waiting
    keys: np.ndarray  # scratch: the queue order's sort keys
    # runs in progress, a heap ordered by (end, job)
    heap_time: np.ndarray
    heap_job: np.ndarray
    # runtime prediction
    history: np.ndarray  # per user (mopt.workloads.prediction), keyed by completion order
    counts: np.ndarray  # int64, C_*
    totals: np.ndarray  # float64, T_*


@njit(cache=True)
def new_state(work, sites, queues):
    """The state at the first submission: clusters free, each private cloud's minimum up."""
    n = work.submit.shape[0]
    n_sites = sites.kind.shape[0]
    n_queues = queues.limit.shape[0]
    t0 = work.submit[0]
    vm_offset = np.zeros(n_sites + 1, np.int64)
    free_nodes = np.zeros(n_sites, np.int64)
    for s in range(n_sites):
        if sites.kind[s] == CLUSTER:
            free_nodes[s] = sites.capacity[s]
            vm_offset[s + 1] = vm_offset[s]
        else:
            vm_offset[s + 1] = vm_offset[s] + sites.capacity[s]
    vms = np.zeros((vm_offset[n_sites], 4))
    vms[:, V_SLOT] = UNLEASED
    leased = np.zeros(n_sites, np.int64)
    idle = np.zeros(n_sites, np.int64)
    for s in range(n_sites):
        for v in range(vm_offset[s], vm_offset[s] + sites.minimum[s]):  # up from t0
            vms[v, V_LEASE] = t0
            vms[v, V_READY] = t0
            vms[v, V_SLOT] = IDLE
            vms[v, V_IDLE_SINCE] = t0
        leased[s] = sites.minimum[s]
        idle[s] = sites.minimum[s]
    return KoalaState(
        work.entry.copy(), np.full(n, -1, np.int64), np.zeros(n),
        np.full(n, -1, np.int64), np.full(n, np.nan), np.full(n, np.nan), np.zeros(n, np.int64),
        np.zeros(n),
        free_nodes, leased, idle, vm_offset, vms, np.empty(max(vm_offset[n_sites], 1), np.int64),
        np.empty((n_queues, n), np.int64), np.empty((n_queues, n), np.int64),
        np.zeros(n_queues, np.int64), np.zeros(n_queues, np.int64),
        np.full(n_queues, BIG, np.int64), np.empty(n),
        np.empty(n), np.empty(n, np.int64),
        new_history(work.n_users), np.zeros(3, np.int64), np.zeros(4),
    )
