"""The compiled event loop of the cloud simulator (spec §2-5) and its copyable state.

Internal API (used by :func:`mopt.cloud.simulate` and by the portfolio scheduler)
---------------------------------------------------------------------------------
``jobs = job_table(submit, run, req, n, user, est)``
    The trace as one float64 array, rows sorted by submit time (columns ``J_*``). ``est`` is the
    static runtime estimate (actual or user); with the predicted variant it is recomputed.
``state = CloudState.start(jobs, step=20, boot_delay=120, max_vms=256, n_users=…, runtime=0)``
    The state at the first tick, its arrivals already in the queue, decisions pending.
    Arrays: ``queue`` (``nq`` rows, columns ``Q_*``: id, submit, run, est, req, n, user),
    ``running`` (``max_vms`` slots, columns ``R_*``: id, start, end, n, est, req, active), ``vms``
    (``nv`` rows in lease order, columns ``V_*``: lease, ready, slot of the job it runs or -1),
    ``hist`` (per user, the two most recently submitted finished jobs, for predicted runtimes)
    and ``sc`` (scalars ``S_*``: clock, busy VM-seconds R_J, paid VM-seconds, sum of started jobs'
    BSD, started jobs, ODG's counters, counts, …). ``state.copy()`` copies only the live rows
    (tens of µs) and the copy takes no further arrivals.
``status = advance(state, jobs, policy_codes, until=inf, period=0, out_start=None)``
    Runs the state in place. Each tick: decisions at ``clock`` (provisioning, job and VM
    selection, release), then the next tick (skipping, in O(1) per event, ticks where nothing
    can change) and its arrivals and completions. Returns :data:`DONE` when every job has run
    (every VM is then charged up to its next hourly boundary), :data:`SELECT` at a tick that is a
    multiple of ``period`` with a non-empty queue (decisions pending: choose a policy, call again)
    or :data:`UNTIL` at the first tick >= ``until``. ``period`` must be a multiple of ``step``. ``out_start[job]`` receives start times.
``view = state.online_view(jobs)``
    A copy for an online simulation (spec §6): no future arrivals; queued jobs run their
    estimated runtime (predicted runtimes refreshed to the current tick); running jobs end at
    their estimated end (a job past its estimate needs ``req_time``, past that one more tick);
    the accumulators restart so that after ``advance(view, jobs, codes)`` returns DONE,
    ``view.busy`` is the busy VM-seconds from now on, ``view.paid`` the paid VM-seconds from now
    on with every VM released at its next hourly boundary, ``view.mean_bsd`` the mean BSD of the
    jobs queued now (waits from their real submit times). :func:`mopt.cloud.online.online_scores` does this for
    several policies in one compiled call and returns U for each.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mopt.cloud import policies as P
from mopt.cloud.billing import billed_hours, paid_until, release_due

__all__ = ["CloudState", "advance", "job_table", "utility", "DONE", "SELECT", "UNTIL"]

DONE, SELECT, UNTIL = 0, 1, 2
J_SUB, J_RUN, J_REQ, J_N, J_USER, J_EST = range(6)
Q_ID, Q_SUB, Q_RUN, Q_EST, Q_REQ, Q_N, Q_USER = range(7)
R_ID, R_START, R_END, R_N, R_EST, R_REQ, R_ACTIVE = range(7)
V_LEASE, V_READY, V_SLOT = range(3)
(S_CLOCK, S_BUSY, S_PAID, S_BSD, S_STARTED, S_G, S_RG, S_NQ, S_NV, S_NEXT, S_ARRIVALS, S_STEP,
 S_BOOT, S_CAP, S_MODE, S_DONE, S_NRUN, S_TICKS) = range(18)
N_SCALARS = 18
PREDICTED = 2
HOUR = P.HOUR


def job_table(submit, run, req, n, user, est) -> np.ndarray:
    """The trace as the float64 array the loop reads (rows must be sorted by submit time)."""
    return np.ascontiguousarray(np.column_stack([submit, run, req, n, user, est]), dtype=np.float64)


# -- one tick's phases -------------------------------------------------------------------------------
@njit(cache=True)
def _predict(user, req, run, jobs, hist):
    """Tsafrir et al.: mean runtime of the user's two most recently submitted finished jobs."""
    u = int(user)
    guess = req if req > 0 else run
    if u >= 0 and hist[u, 0] >= 0:
        if hist[u, 1] >= 0:
            guess = 0.5 * (jobs[hist[u, 0], J_RUN] + jobs[hist[u, 1], J_RUN])
        else:
            guess = jobs[hist[u, 0], J_RUN]
        if req > 0:
            guess = min(guess, req)
    return guess


@njit(cache=True)
def _events(sc, queue, running, vms, jobs, hist, t):
    """Arrivals (submit <= t) join the queue; jobs ending by t complete and free their VMs."""
    nq = int(sc[S_NQ])
    if sc[S_ARRIVALS] > 0:
        k = int(sc[S_NEXT])
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
        sc[S_NEXT] = k
    sc[S_NQ] = nq
    nv = int(sc[S_NV])
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0 and running[s, R_END] <= t:
            running[s, R_ACTIVE] = 0.0
            sc[S_NRUN] -= 1
            for v in range(nv):
                if vms[v, V_SLOT] == s:
                    vms[v, V_SLOT] = -1.0
            j = int(running[s, R_ID])
            u = int(jobs[j, J_USER]) if j < jobs.shape[0] else -1
            if u >= 0 and hist.shape[0] > u:
                if j > hist[u, 0]:
                    hist[u, 1] = hist[u, 0]
                    hist[u, 0] = j
                elif j > hist[u, 1]:
                    hist[u, 1] = j


@njit(cache=True)
def _count(vms, nv, t):
    idle = 0
    booting = 0
    for v in range(nv):
        if vms[v, V_READY] > t:
            booting += 1
        elif vms[v, V_SLOT] < 0:
            idle += 1
    return idle, booting


@njit(cache=True)
def _provision(sc, queue, vms, prov, t, head, idle, booting):
    """Lease clamp(target - supply, 0, C - L) VMs (ODG: 1, 2, 4, … while demand is unmet)."""
    nq = int(sc[S_NQ])
    nv = int(sc[S_NV])
    target, counts_busy = P.provisioning_target(prov, queue, nq, t, head, sc[S_BOOT])
    supply = nv if counts_busy else idle + booting
    room = sc[S_CAP] - nv
    if prov == P.ODG:
        if target > supply:
            new = min(sc[S_G], room)
            sc[S_RG] = 1.0
            if new > 0:
                sc[S_G] = min(2.0 * sc[S_G], sc[S_CAP])
        else:
            new = 0.0
            sc[S_G] = 1.0
    else:
        new = min(max(target - supply, 0.0), room)
    for _ in range(int(new)):
        vms[nv, V_LEASE] = t
        vms[nv, V_READY] = t + sc[S_BOOT]
        vms[nv, V_SLOT] = -1.0
        nv += 1
    sc[S_NV] = nv
    return int(new)


@njit(cache=True)
def _pick_vms(vms, nv, t, n, est, vmsel):
    """Indices of the ``n`` idle VMs the VM-selection policy takes for a job of runtime ``est``."""
    idle = np.empty(nv, np.int64)
    m = 0
    for v in range(nv):
        if vms[v, V_READY] <= t and vms[v, V_SLOT] < 0:
            idle[m] = v
            m += 1
    if vmsel == P.FIRSTFIT:
        return idle[:n]
    key = np.empty(m)
    for i in range(m):
        key[i] = P.fit_leftover(vms[idle[i], V_LEASE], t, est)
        if vmsel == P.WORSTFIT:
            key[i] = -key[i]
    order = np.argsort(key, kind="mergesort")  # stable: ties in lease order
    return idle[order[:n]]


@njit(cache=True)
def _serve(sc, queue, running, vms, prio, jobsel, vmsel, t, idle, out_start):
    """Start jobs from the head of the priority order until the head does not fit."""
    nq = int(sc[S_NQ])
    nv = int(sc[S_NV])
    started = np.zeros(nq, np.bool_)
    n_started = 0
    while n_started < nq:
        h = -1
        for i in range(nq):
            if not started[i] and (h < 0 or prio[i] > prio[h]):
                h = i
        n = int(queue[h, Q_N])
        if n > idle:
            break
        slot = 0
        while running[slot, R_ACTIVE] > 0:
            slot += 1
        for v in _pick_vms(vms, nv, t, n, queue[h, Q_EST], vmsel):
            vms[v, V_SLOT] = slot
        run = queue[h, Q_RUN]
        running[slot, R_ID] = queue[h, Q_ID]
        running[slot, R_START] = t
        running[slot, R_END] = t + run
        running[slot, R_N] = n
        running[slot, R_EST] = queue[h, Q_EST]
        running[slot, R_REQ] = queue[h, Q_REQ]
        running[slot, R_ACTIVE] = 1.0
        sc[S_NRUN] += 1
        idle -= n
        started[h] = True
        n_started += 1
        wait = t - queue[h, Q_SUB]
        sc[S_BUSY] += n * run
        sc[S_BSD] += max(1.0, (wait + run) / max(run, 10.0))
        sc[S_STARTED] += 1
        if out_start.shape[0] > 0:
            out_start[int(queue[h, Q_ID])] = t
    if n_started > 0:  # compact the queue, keeping arrival order
        k = 0
        for i in range(nq):
            if not started[i]:
                if k != i:
                    queue[k, :] = queue[i, :]
                k += 1
        sc[S_NQ] = k
    return idle, n_started


@njit(cache=True)
def _release(sc, vms, prov, t):
    """Release idle VMs whose paid hour ends in [t, t + step) (JSSPP); StartUp never; ODG geometric."""
    if prov == P.STARTUP:
        return 0
    nv = int(sc[S_NV])
    step = sc[S_STEP]
    limit = sc[S_RG] if prov == P.ODG else np.inf
    released = 0
    k = 0
    for v in range(nv):
        lease = vms[v, V_LEASE]
        idle = vms[v, V_READY] <= t and vms[v, V_SLOT] < 0
        if idle and release_due(t, lease, step, False) and released < limit:
            sc[S_PAID] += billed_hours(t, lease) * HOUR
            released += 1
        else:
            if k != v:
                vms[k, :] = vms[v, :]
            k += 1
    sc[S_NV] = k
    if prov == P.ODG and released > 0:
        sc[S_RG] = 2.0 * sc[S_RG]
    return released


@njit(cache=True)
def _finish(sc, vms, t):
    """Charge every VM still leased up to its next hourly boundary."""
    for v in range(int(sc[S_NV])):
        sc[S_PAID] += billed_hours(t, vms[v, V_LEASE]) * HOUR
    sc[S_NV] = 0.0
    sc[S_DONE] = 1.0


@njit(cache=True)
def _tick_of(x, step):
    return math.ceil(x / step) * step


@njit(cache=True)
def _fast_finish(sc, running, vms, t):
    """Finish a run whose queue is empty and that takes no more arrivals, without ticking: what
    the loop would do from here (no lease: every target is 0; each VM released on the first tick
    at or after it goes idle whose paid hour ends before the next tick; every VM still leased
    charged at the tick the last job ends). Not for StartUp (never releases) nor ODG (releases
    a few VMs per tick)."""
    step = sc[S_STEP]
    end = t
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            end = max(end, _tick_of(running[s, R_END], step))
            running[s, R_ACTIVE] = 0.0
    for v in range(int(sc[S_NV])):
        lease = vms[v, V_LEASE]
        if vms[v, V_READY] > t:  # booting: idle from the tick it is ready
            idle = _tick_of(vms[v, V_READY], step)
        elif vms[v, V_SLOT] >= 0:  # busy: idle from the tick its job's end is seen
            idle = _tick_of(running[int(vms[v, V_SLOT]), R_END], step)
        else:  # idle now: this tick's release has passed it over
            idle = t + step
        boundary = paid_until(idle, lease)
        release = idle if release_due(idle, lease, step, False) else math.floor(boundary / step) * step
        sc[S_PAID] += billed_hours(min(release, end), lease) * HOUR
    sc[S_NV] = 0.0
    sc[S_NRUN] = 0.0
    sc[S_CLOCK] = end
    sc[S_DONE] = 1.0


@njit(cache=True)
def _overtake(queue, nq, jobsel, head, wide, idle, t, step):
    """A tick at or before the first at which a job overtakes the head: one that fits in the
    ``idle`` VMs, or any job if ``wide`` (ODE's target follows the head's width)."""
    ah, bh = P.priority_line(jobsel, queue[head, Q_SUB], queue[head, Q_EST], queue[head, Q_N])
    nxt = np.inf
    for i in range(nq):
        if i != head and (wide or queue[i, Q_N] <= idle):
            a, b = P.priority_line(jobsel, queue[i, Q_SUB], queue[i, Q_EST], queue[i, Q_N])
            if b > bh:  # conservative: a tick before the crossing, rounding aside
                nxt = min(nxt, math.floor((ah - a) / (b - bh) / step) * step - step)
    return nxt


@njit(cache=True)
def _next_tick(sc, queue, running, vms, jobs, prov, jobsel, t, quiet, head, idle):
    """The next tick at which anything can change (t + step unless the tick is ``quiet``)."""
    step = sc[S_STEP]
    if not quiet:
        return t + step
    nxt = np.inf
    if sc[S_ARRIVALS] > 0 and sc[S_NEXT] < jobs.shape[0]:
        nxt = _tick_of(jobs[int(sc[S_NEXT]), J_SUB], step)
    for s in range(running.shape[0]):
        if running[s, R_ACTIVE] > 0:
            nxt = min(nxt, _tick_of(running[s, R_END], step))
    for v in range(int(sc[S_NV])):
        if vms[v, V_READY] > t:
            nxt = min(nxt, _tick_of(vms[v, V_READY], step))
        elif vms[v, V_SLOT] < 0 and prov != P.STARTUP:  # idle: its next paid-hour boundary
            b = paid_until(t + step, vms[v, V_LEASE])
            nxt = min(nxt, math.floor(b / step) * step)
    nq = int(sc[S_NQ])
    if prov == P.ODX or prov == P.ODW:  # a queued job crossing the policy's waiting threshold
        w = P.odw_wait(sc[S_BOOT])
        for i in range(nq):
            m = max(queue[i, Q_EST], 10.0) if prov == P.ODX else w
            if t - queue[i, Q_SUB] <= m:
                nxt = min(nxt, math.floor((queue[i, Q_SUB] + m) / step) * step + step)
    if nq > 1 and (idle > 0 or prov == P.ODE):
        nxt = min(nxt, _overtake(queue, nq, jobsel, head, prov == P.ODE, idle, t, step))
    return max(nxt, t + step)


@njit(cache=True)
def advance(sc, queue, running, vms, hist, jobs, prov, jobsel, vmsel, until, period, out_start,
            fast=False):
    """Run the state (arrays, modified in place) under one policy; see the module docstring.
    ``fast``: once the queue is empty and no job is to come, finish in one step
    (:func:`_fast_finish`; online simulations, whose per-job history is not needed)."""
    step = sc[S_STEP]
    prio = np.empty(queue.shape[0])
    while True:
        t = sc[S_CLOCK]
        sc[S_TICKS] += 1
        nq = int(sc[S_NQ])
        if sc[S_MODE] == PREDICTED:
            for i in range(nq):
                queue[i, Q_EST] = _predict(queue[i, Q_USER], queue[i, Q_REQ], queue[i, Q_RUN],
                                           jobs, hist)
        head = 0
        for i in range(nq):
            prio[i] = P.priority(jobsel, t - queue[i, Q_SUB], queue[i, Q_EST], queue[i, Q_N])
            if prio[i] > prio[head]:
                head = i
        idle, booting = _count(vms, int(sc[S_NV]), t)
        leased = _provision(sc, queue, vms, prov, t, head, idle, booting)
        idle, booting = _count(vms, int(sc[S_NV]), t)
        started = 0
        if nq > 0 and idle > 0:
            idle, started = _serve(sc, queue, running, vms, prio, jobsel, vmsel, t, idle,
                                   out_start)
        released = _release(sc, vms, prov, t)
        nq = int(sc[S_NQ])
        no_more = sc[S_ARRIVALS] == 0 or sc[S_NEXT] >= jobs.shape[0]
        if no_more and nq == 0 and sc[S_NRUN] == 0:
            _finish(sc, vms, t)
            return DONE
        if fast and no_more and nq == 0 and prov != P.STARTUP and prov != P.ODG:
            _fast_finish(sc, running, vms, t)
            return DONE
        # quiet: the next ticks decide as this one did until an event (an arrival, a completion,
        # a VM ready, an idle VM's hour boundary, an ODX/ODW threshold, a job overtaking the
        # head); with a queue, only if this tick changed nothing
        quiet = nq == 0 or (leased == 0 and started == 0 and released == 0)
        nxt = _next_tick(sc, queue, running, vms, jobs, prov, jobsel, t, quiet, head, idle)
        if nq == 0 and nxt > t + step:
            sc[S_G] = 1.0  # ODG: the skipped ticks had no demand
        if nxt == np.inf or nxt <= t:  # no event (cannot happen with jobs no wider than the
            return -1  # cap) or times too large for float64 ticks (refused by simulate)
        if period > 0 and nq > 0:  # (period: a multiple of the step)
            nxt = min(nxt, _tick_of((math.floor(t / period) + 1) * period, step))
        if until < np.inf:
            nxt = min(nxt, max(_tick_of(until, step), t + step))
        _events(sc, queue, running, vms, jobs, hist, nxt)
        sc[S_CLOCK] = nxt
        if period > 0 and sc[S_NQ] > 0 and nxt % period == 0:
            return SELECT
        if nxt >= until:
            return UNTIL


@njit(cache=True)
def utility(busy, paid, mean_bsd, kappa, alpha, beta):
    """U = κ·(R_J / R_V)^α·(1 / BSD)^β (spec §5); 0 when nothing was paid."""
    if paid <= 0 or mean_bsd <= 0:
        return 0.0
    return kappa * (busy / paid) ** alpha * (1.0 / mean_bsd) ** beta


class CloudState:
    """State of a cloud simulation at a tick (see the module docstring for its arrays)."""

    __slots__ = ("sc", "queue", "running", "vms", "hist")

    def __init__(self, sc, queue, running, vms, hist) -> None:
        self.sc, self.queue, self.running, self.vms, self.hist = sc, queue, running, vms, hist

    @classmethod
    def start(cls, jobs: np.ndarray, *, step: float = 20.0, boot_delay: float = 120.0,
              max_vms: int = 256, n_users: int = 0, runtime: int = 0) -> CloudState:
        """The state at the first tick (the first multiple of ``step`` >= the first submit time)."""
        sc = np.zeros(N_SCALARS)
        sc[S_STEP], sc[S_BOOT], sc[S_CAP], sc[S_MODE] = step, boot_delay, max_vms, runtime
        sc[S_G] = sc[S_RG] = 1.0
        sc[S_ARRIVALS] = 1.0
        cap = max(int(max_vms), 1)
        state = cls(sc, np.zeros((max(len(jobs), 1), 7)), np.zeros((cap, 7)), np.zeros((cap, 3)),
                    np.full((max(n_users, 1), 2), -1, np.int64))
        t0 = math.ceil(jobs[0, J_SUB] / step) * step if len(jobs) else 0.0
        sc[S_CLOCK] = t0
        _events(sc, state.queue, state.running, state.vms, jobs, state.hist, t0)
        return state

    def advance(self, jobs, policy_codes, *, until: float = math.inf, period: float = 0.0,
                out_start: np.ndarray | None = None) -> int:
        """Run under ``policy_codes`` (a Policy's ``codes``) until DONE, SELECT or UNTIL."""
        p, j, v = policy_codes
        out = np.empty(0) if out_start is None else out_start
        return advance(self.sc, self.queue, self.running, self.vms, self.hist, jobs, p, j, v,
                       float(until), float(period), out)

    def copy(self) -> CloudState:
        """A compact copy (only the live queue rows); it takes no further arrivals."""
        sc = self.sc.copy()
        sc[S_ARRIVALS] = 0.0
        nq = int(sc[S_NQ])
        return CloudState(sc, self.queue[: max(nq, 1)].copy(), self.running.copy(),
                          self.vms.copy(), self.hist.copy())

    def online_view(self, jobs) -> CloudState:
        """A copy prepared for an online simulation (:func:`mopt.cloud.online.online_view`)."""
        from mopt.cloud.online import online_view

        return online_view(self, jobs)

    @property
    def clock(self) -> float:
        return float(self.sc[S_CLOCK])

    @property
    def queue_length(self) -> int:
        return int(self.sc[S_NQ])

    @property
    def busy(self) -> float:
        return float(self.sc[S_BUSY])

    @property
    def paid(self) -> float:
        return float(self.sc[S_PAID])

    @property
    def mean_bsd(self) -> float:
        n = self.sc[S_STARTED]
        return float(self.sc[S_BSD] / n) if n > 0 else 1.0
