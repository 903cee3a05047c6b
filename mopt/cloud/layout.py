"""The arrays of a cloud simulation (spec §2-5): their columns, the structs the compiled loop takes,
and the loop's return codes.

A simulation is a :class:`Cloud`: five state arrays, modified in place, and the trace it reads.

``jobs`` (the trace, rows sorted by submit time; columns ``J_*``)
    submit time, actual runtime, requested time, processors (VMs), user index (-1: unknown), and
    the static runtime estimate the policies see (actual or user; recomputed when predicted).
``queue`` (the first ``S_NQ`` rows, in arrival order; columns ``Q_*``)
    job index, submit, runtime it will run, estimate, request, VMs, user.
``running`` (one row per slot, at most the cap on VMs; columns ``R_*``)
    job index, start, end, VMs, estimate, request, active (1) or free (0).
``vms`` (the first ``S_NV`` rows, in lease order; columns ``V_*`` of :mod:`mopt.cloud.leasing`)
    lease time, ready time, slot of the job it runs or IDLE.
``history``
    per user, the two most recently submitted finished jobs (:mod:`mopt.workloads.prediction`).
``scalars`` (``S_*``)
    the clock, the accumulators (busy VM-seconds R_J, paid VM-seconds, the started jobs' summed
    bounded slowdown and their count), ODG's counters, the counts of queued jobs, leased VMs and
    running jobs, the next arrival, whether arrivals are still taken, the parameters (tick step,
    boot delay, cap on VMs, runtime variant), whether the run is done, the ticks visited, and
    whether the end of the run charges the VMs still leased only up to it (``S_PRORATE``: mopt's
    selection rule's windows, ours; 0 everywhere else).

The column indices are compiled into the steps as constants, and Numba's cache checks only the
source file of each cached function: after changing an index here (or in
:mod:`mopt.cloud.leasing`), clear the cache (``find mopt -name '*.nb[ic]' -delete``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mopt.cloud.leasing import V_LEASE, V_READY, V_SLOT

#: what the loop returns: every job has run; a selection is due; the requested time is reached;
#: no event is left (jobs wider than the cap, or times too large for float64 ticks)
DONE, SELECT, UNTIL, STALLED = 0, 1, 2, -1
#: what the compiled loop also returns, handled by :meth:`mopt.cloud.engine.CloudState.advance`
#: (never returned by it): the VM table is full below the cap (grow it, run the tick again); the
#: call's tick budget is spent (back to Python, where signals are handled; then go on)
GROW, PAUSED = 3, 4

J_SUB, J_RUN, J_REQ, J_N, J_USER, J_EST = range(6)
Q_ID, Q_SUB, Q_RUN, Q_EST, Q_REQ, Q_N, Q_USER = range(7)
R_ID, R_START, R_END, R_N, R_EST, R_REQ, R_ACTIVE = range(7)
(S_CLOCK, S_BUSY, S_PAID, S_BSD, S_STARTED, S_ODG_LEASE, S_ODG_RELEASE, S_NQ, S_NV, S_NEXT,
 S_ARRIVALS, S_STEP, S_BOOT, S_CAP, S_MODE, S_DONE, S_NRUN, S_TICKS, S_PRORATE) = range(19)
N_SCALARS = 19
#: runtime variants (``S_MODE``), positions in :data:`mopt.cloud.policies.RUNTIMES`
ACTUAL, USER, PREDICTED = range(3)

__all__ = ["Cloud", "PolicyCodes", "job_table", "DONE", "SELECT", "UNTIL", "STALLED", "GROW", "PAUSED",
           "N_SCALARS",
           "ACTUAL", "USER", "PREDICTED", "V_LEASE", "V_READY", "V_SLOT"]
__all__ += [name for name in list(globals()) if name[:2] in ("J_", "Q_", "R_", "S_")]  # every column index


class Cloud(NamedTuple):
    """A cloud simulation: its state arrays (modified in place) and the trace (see the module
    docstring). Numba passes it to the compiled functions as one struct."""

    scalars: np.ndarray
    queue: np.ndarray
    running: np.ndarray
    vms: np.ndarray
    history: np.ndarray
    jobs: np.ndarray


class PolicyCodes(NamedTuple):
    """A policy as the loop sees it: the codes of its provisioning, job and VM selection
    (:mod:`mopt.cloud.policies`). ``vm_selection`` also carries BestFit / WorstFit's key
    (:func:`mopt.cloud.policies.vm_code`: 0-2 under ``"mod"``, 3-5 under ``"binpack"``)."""

    provisioning: int
    job_selection: int
    vm_selection: int


def job_table(submit, run, req, n, user, est) -> np.ndarray:
    """The trace as the float64 array the loop reads (rows must be sorted by submit time)."""
    return np.ascontiguousarray(np.column_stack([submit, run, req, n, user, est]), dtype=np.float64)
