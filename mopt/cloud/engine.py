"""The compiled event loop of the cloud simulator (spec §2-5) and its copyable state.

Layout: the arrays and their columns (:mod:`mopt.cloud.layout`), the steps of a tick
(:mod:`mopt.cloud.steps`), tick skipping (:mod:`mopt.cloud.skipping`), the policies' rules
(:mod:`mopt.cloud.policies`), leases and billing (:mod:`mopt.cloud.leasing`,
:mod:`mopt.cloud.billing`), predicted runtimes (:mod:`mopt.workloads.prediction`), the start of
an online simulation (:mod:`mopt.cloud.window`). This module runs the steps in order.

Internal API (used by :func:`mopt.cloud.simulate` and by the portfolio scheduler)
---------------------------------------------------------------------------------
``jobs = job_table(submit, run, req, n, user, est)``
    The trace as one float64 array, rows sorted by submit time (columns ``J_*``). ``est`` is the
    static runtime estimate (actual or user); with the predicted variant it is recomputed.
``state = CloudState.start(jobs, step=20, boot_delay=120, max_vms=256, n_users=…, runtime=0)``
    The state at the first tick, its arrivals already in the queue, decisions pending: the arrays
    ``scalars``, ``queue``, ``running``, ``vms`` and ``history`` of :mod:`mopt.cloud.layout`
    (``sc`` and ``hist`` are their earlier names). ``state.copy()`` copies only the live rows
    (tens of µs) and the copy takes no further arrivals.
``status = state.advance(jobs, policy_codes, until=inf, period=0, out_start=None)``
    Runs the state in place. Each tick: decisions at the clock (provisioning, job and VM
    selection, release), then the next tick (skipping, in O(1) per event, ticks where nothing
    can change) and its arrivals and completions. Returns :data:`DONE` when every job has run
    (every VM is then charged up to its next hourly boundary), :data:`SELECT` at a tick that is a
    multiple of ``period`` with a non-empty queue (decisions pending: choose a policy, call again)
    or :data:`UNTIL` at the first tick >= ``until``. ``period`` must be a multiple of ``step``.
    ``out_start[job]`` receives start times.
``view = state.online_view(jobs)``
    A copy for an online simulation (spec §6, :mod:`mopt.cloud.window`): after
    ``view.advance(jobs, codes)`` returns DONE, ``view.busy``, ``view.paid`` and
    ``view.mean_bsd`` are the window's. :func:`mopt.cloud.online.online_scores` does this for
    several policies in one compiled call and returns U for each.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from mopt.cloud import policies
from mopt.cloud.billing import HOUR, release_due  # noqa: F401 - the steps' rules, re-exported
from mopt.cloud.layout import *  # noqa: F403 - the columns, re-exported for the loop's callers
from mopt.cloud.layout import (
    DONE,
    GROW,
    J_SUB,
    N_SCALARS,
    PAUSED,
    Q_N,
    S_ARRIVALS,
    S_BOOT,
    S_BSD,
    S_BUSY,
    S_CAP,
    S_CLOCK,
    S_MODE,
    S_NEXT,
    S_NQ,
    S_NRUN,
    S_ODG_LEASE,
    S_ODG_RELEASE,
    S_PAID,
    S_STARTED,
    S_STEP,
    S_TICKS,
    SELECT,
    STALLED,
    UNTIL,
    Cloud,
    PolicyCodes,
    job_table,
)
from mopt.cloud.skipping import finish_without_ticking, next_tick, tick_of
from mopt.cloud.steps import (
    arrivals,
    charge_leased,
    completions,
    count_vms,
    provision,
    rank_jobs,
    refresh_predictions,
    release_at_paid_hour,
    start_jobs,
)
from mopt.cloud.window import start_window
from mopt.workloads.prediction import new_history

__all__ = ["CloudState", "advance", "run_ticks", "run_to_end", "grown", "job_table", "utility", "DONE",
           "SELECT", "UNTIL"]

#: rows of the VM and running-job tables at the start (they double as needed, up to the cap)
FIRST_ROWS = 256
#: seconds a compiled call of :meth:`CloudState.advance` lasts, about: signals wait no longer
CALL_SECONDS = 0.1
#: ticks of the first call (then sized from the pace)
FIRST_BUDGET = 5000


@njit(cache=True)
def run_ticks(cloud, policy, until, period, out_start, fast, max_ticks=-1):
    """Run ``cloud`` (a :class:`~mopt.cloud.layout.Cloud`, modified in place) under ``policy`` (a
    :class:`~mopt.cloud.layout.PolicyCodes`) until DONE, SELECT or UNTIL (module docstring), or
    GROW (the VM table is full below the cap: grow it with :func:`grown` and call again) or
    PAUSED (``max_ticks`` ticks run, if >= 0; call again). ``fast``: once the queue is empty and
    no job is to come, finish in one step (:func:`~mopt.cloud.skipping.finish_without_ticking`;
    online simulations, whose per-job history is not needed)."""
    scalars = cloud.scalars
    step = scalars[S_STEP]
    priority = np.empty(cloud.queue.shape[0])
    ticks = 0
    while True:
        t = scalars[S_CLOCK]
        refresh_predictions(cloud)
        head = rank_jobs(cloud, policy.job_selection, t, priority)
        idle, booting = count_vms(cloud, t)
        leased = provision(cloud, policy.provisioning, t, head, idle, booting)
        if leased < 0:
            return GROW  # nothing changed: the tick runs again on the grown table
        scalars[S_TICKS] += 1
        ticks += 1
        idle, booting = count_vms(cloud, t)
        started = 0
        waiting = int(cloud.queue[head, Q_N]) if scalars[S_NQ] > 0 else 0
        if scalars[S_NQ] > 0 and idle > 0:
            idle, started, waiting = start_jobs(cloud, policy.vm_selection, t, priority, idle,
                                                out_start)
        released = release_at_paid_hour(cloud, policy.provisioning, t, waiting)
        nq = int(scalars[S_NQ])
        no_more = scalars[S_ARRIVALS] == 0 or scalars[S_NEXT] >= cloud.jobs.shape[0]
        if no_more and nq == 0 and scalars[S_NRUN] == 0:
            charge_leased(cloud, t)
            return DONE
        if fast and no_more and nq == 0 and policies.releases_all_at_paid_hour(policy.provisioning):
            finish_without_ticking(cloud, t)
            return DONE
        # quiet: the next ticks decide as this one did until an event; with a queue, only if
        # this tick changed nothing (skipping)
        quiet = nq == 0 or (leased == 0 and started == 0 and released == 0)
        nxt = next_tick(cloud, policy, t, quiet, head, idle)
        if nq == 0 and nxt > t + step:
            policies.no_demand(scalars)
        if nxt == np.inf or nxt <= t:  # no event (cannot happen with jobs no wider than the
            return STALLED  # cap) or times too large for float64 ticks (refused by simulate)
        if period > 0 and nq > 0:  # (period: a multiple of the step)
            nxt = min(nxt, tick_of((math.floor(t / period) + 1) * period, step))
        if until < np.inf:
            nxt = min(nxt, max(tick_of(until, step), t + step))
        arrivals(cloud, nxt)
        completions(cloud, nxt)
        scalars[S_CLOCK] = nxt
        if period > 0 and scalars[S_NQ] > 0 and nxt % period == 0:
            return SELECT
        if nxt >= until:
            return UNTIL
        if ticks == max_ticks:
            return PAUSED


@njit(cache=True)
def grown(cloud):
    """``cloud`` with a VM table of twice the rows (at most the cap), and as many running-job rows
    if it had fewer (a running job holds at least one VM, so that many always suffice)."""
    rows = min(2 * cloud.vms.shape[0], max(int(cloud.scalars[S_CAP]), 1))
    vms = np.zeros((rows, cloud.vms.shape[1]))
    vms[: cloud.vms.shape[0]] = cloud.vms
    running = cloud.running
    if running.shape[0] < rows:
        running = np.zeros((rows, cloud.running.shape[1]))
        running[: cloud.running.shape[0]] = cloud.running
    return Cloud(cloud.scalars, cloud.queue, running, vms, cloud.history, cloud.jobs)


@njit(cache=True)
def run_to_end(cloud, policy, until, period, out_start, fast):
    """:func:`run_ticks` without pauses, growing the tables as needed; returns the grown
    ``(cloud, status)`` (online simulations, inside one compiled call)."""
    status = run_ticks(cloud, policy, until, period, out_start, fast)
    while status == GROW:
        cloud = grown(cloud)
        status = run_ticks(cloud, policy, until, period, out_start, fast)
    return cloud, status


@njit(cache=True)
def advance(scalars, queue, running, vms, history, jobs, provisioning, job_selection, vm_selection,
            until, period, out_start, fast=False, max_ticks=-1):
    """:func:`run_ticks` on bare arrays: the entry point from Python. (Numba's dispatcher unboxes
    separate arrays faster than a NamedTuple of them, about 8 against 19 µs a call, and the
    portfolio scheduler calls this once per selection.)"""
    return run_ticks(Cloud(scalars, queue, running, vms, history, jobs),
                     PolicyCodes(provisioning, job_selection, vm_selection), until, period,
                     out_start, fast, max_ticks)


@njit(cache=True)
def _grown(scalars, queue, running, vms, history, jobs):
    cloud = grown(Cloud(scalars, queue, running, vms, history, jobs))
    return cloud.running, cloud.vms


@njit(cache=True)
def utility(busy, paid, mean_bsd, kappa, alpha, beta):
    """U = κ·(R_J / R_V)^α·(1 / BSD)^β (spec §5); 0 when nothing was paid."""
    if paid <= 0 or mean_bsd <= 0:
        return 0.0
    return kappa * (busy / paid) ** alpha * (1.0 / mean_bsd) ** beta


@njit(cache=True)
def _start_window(scalars, queue, running, vms, history, jobs):
    start_window(Cloud(scalars, queue, running, vms, history, jobs))


@njit(cache=True)
def _first_arrivals(scalars, queue, running, vms, history, jobs, t):
    cloud = Cloud(scalars, queue, running, vms, history, jobs)
    arrivals(cloud, t)
    completions(cloud, t)


class CloudState:
    """State of a cloud simulation at a tick (see the module docstring for its arrays)."""

    __slots__ = ("scalars", "queue", "running", "vms", "history", "_budget")

    def __init__(self, scalars, queue, running, vms, history) -> None:
        self.scalars, self.queue, self.running, self.vms = scalars, queue, running, vms
        self.history = history
        self._budget = FIRST_BUDGET  # ticks per compiled call (CALL_SECONDS)

    @classmethod
    def start(cls, jobs: np.ndarray, *, step: float = 20.0, boot_delay: float = 120.0,
              max_vms: int = 256, n_users: int = 0, runtime: int = 0) -> CloudState:
        """The state at the first tick (the first multiple of ``step`` >= the first submit time).

        The VM and running-job tables start at :data:`FIRST_ROWS` rows (or the cap, if smaller)
        and double when the VMs leased need more, up to the cap: their cost follows the VMs
        used, not the cap."""
        scalars = np.zeros(N_SCALARS)
        scalars[S_STEP], scalars[S_BOOT], scalars[S_CAP] = step, boot_delay, max_vms
        scalars[S_MODE] = runtime
        scalars[S_ODG_LEASE] = scalars[S_ODG_RELEASE] = 1.0
        scalars[S_ARRIVALS] = 1.0
        rows = min(max(int(max_vms), 1), FIRST_ROWS)
        state = cls(scalars, np.zeros((max(len(jobs), 1), 7)), np.zeros((rows, 7)),
                    np.zeros((rows, 3)), new_history(n_users))
        t0 = math.ceil(jobs[0, J_SUB] / step) * step if len(jobs) else 0.0
        scalars[S_CLOCK] = t0
        _first_arrivals(*state.arrays, jobs, t0)
        return state

    @property
    def arrays(self) -> tuple:
        """``(scalars, queue, running, vms, history)``, as the compiled functions take them."""
        return self.scalars, self.queue, self.running, self.vms, self.history

    def advance(self, jobs, policy_codes, *, until: float = math.inf, period: float = 0.0,
                out_start: np.ndarray | None = None) -> int:
        """Run under ``policy_codes`` (a Policy's ``codes``) until DONE, SELECT or UNTIL.

        The compiled loop runs in calls of about :data:`CALL_SECONDS` each (a tick budget, sized
        from the last call's pace), so that a signal (Ctrl-C, SIGTERM), which Python handles only
        between calls, stops a run promptly; the tables grow between calls when the VMs leased
        need more rows."""
        provisioning, job_selection, vm_selection = policy_codes
        out = np.empty(0) if out_start is None else out_start
        while True:
            ticks = self.scalars[S_TICKS]
            start = time.perf_counter()
            status = advance(*self.arrays, jobs, provisioning, job_selection, vm_selection,
                             float(until), float(period), out, False, self._budget)
            if status == GROW:
                self.running, self.vms = _grown(*self.arrays, jobs)
            elif status == PAUSED:
                pace = (time.perf_counter() - start) / max(self.scalars[S_TICKS] - ticks, 1.0)
                self._budget = int(min(max(CALL_SECONDS / max(pace, 1e-9), self._budget / 4),
                                       self._budget * 8, 10**9)) + 1
            else:
                return status

    def copy(self) -> CloudState:
        """A compact copy (only the live queue rows); it takes no further arrivals."""
        scalars = self.scalars.copy()
        scalars[S_ARRIVALS] = 0.0
        nq = int(scalars[S_NQ])
        return CloudState(scalars, self.queue[: max(nq, 1)].copy(), self.running.copy(),
                          self.vms.copy(), self.history.copy())

    def online_view(self, jobs) -> CloudState:
        """A copy prepared for an online simulation (:mod:`mopt.cloud.window`)."""
        view = self.copy()
        _start_window(*view.arrays, jobs)
        return view

    @property
    def sc(self) -> np.ndarray:
        """The earlier name of :attr:`scalars`."""
        return self.scalars

    @property
    def hist(self) -> np.ndarray:
        """The earlier name of :attr:`history`."""
        return self.history

    @property
    def clock(self) -> float:
        return float(self.scalars[S_CLOCK])

    @property
    def queue_length(self) -> int:
        return int(self.scalars[S_NQ])

    @property
    def busy(self) -> float:
        return float(self.scalars[S_BUSY])

    @property
    def paid(self) -> float:
        return float(self.scalars[S_PAID])

    @property
    def mean_bsd(self) -> float:
        n = self.scalars[S_STARTED]
        return float(self.scalars[S_BSD] / n) if n > 0 else 1.0
