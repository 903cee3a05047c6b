"""Online simulations of the portfolio scheduler (spec §6), compiled beside the engine's loop.

From a copy of the current state — queued jobs with their true submit times, running jobs with
their remaining time as the runtime variant estimates it, booting VMs with their ready times,
every VM's lease — with no future arrivals, a candidate policy runs until every queued job has
finished; it is scored with U over that window: R_J = busy VM-seconds from now on, R_V = paid
VM-seconds from now on with every VM released at its next hourly boundary, BSD = the mean over
the jobs queued now, with waits from their real submit times.

``view = online_view(state, jobs)`` is such a copy (made by :mod:`mopt.cloud.window`; after
``view.advance(jobs, codes)`` returns DONE, ``view.busy``, ``view.paid`` and ``view.mean_bsd`` are
the window's); :func:`online_scores` runs several policies from one state in one compiled call. Ours, for speed, with the same
results (tested against the real engine on a truncated trace and against ticking on): the
running-job table is cut down to the live jobs, and a simulation finishes in one step once the
last queued job has started (:func:`mopt.cloud.skipping.finish_without_ticking`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.cloud.engine import CloudState, run_to_end, utility
from mopt.cloud.layout import (
    S_ARRIVALS,
    S_BSD,
    S_BUSY,
    S_CAP,
    S_NEXT,
    S_NQ,
    S_NV,
    S_PAID,
    S_PRORATE,
    S_STARTED,
    Cloud,
    PolicyCodes,
)
from mopt.cloud.window import compact_running, start_window

__all__ = ["online_view", "online_scores", "forecast_scores"]


@njit(cache=True)
def _window_score(scalars, queue, live, live_vms, history, jobs, code, future, prorate):
    """One policy's window from the state (arrays already compacted): busy, paid, summed BSD,
    started jobs. ``future`` (forecast arrivals, rows by submit time; may be empty) joins the
    queue as it is submitted; ``prorate``: the VMs still leased at the end are charged only up to
    it (mopt's rule, ours)."""
    nq = int(scalars[S_NQ])
    window = Cloud(scalars.copy(), queue[:max(nq, 1)].copy(), live.copy(), live_vms.copy(),
                   history, jobs)
    if future.shape[0] > 0:
        rows = np.zeros((nq + future.shape[0], queue.shape[1]))
        rows[:nq] = queue[:nq]
        window = Cloud(window.scalars, rows, window.running, window.vms, history, future)
    start_window(window)
    # the window writes nothing back into the real run: its completions leave no user history
    # (an empty one; its estimates were fixed from the real history by start_window)
    window = Cloud(window.scalars, window.queue, window.running, window.vms, history[:0],
                   window.jobs)
    if future.shape[0] > 0:
        window.scalars[S_ARRIVALS] = 1.0
        window.scalars[S_NEXT] = 0.0
    window.scalars[S_PRORATE] = 1.0 if prorate else 0.0
    window, _ = run_to_end(window, PolicyCodes(code[0], code[1], code[2]), np.inf, 0.0,
                           np.empty(0), True)
    w = window.scalars
    return w[S_BUSY], w[S_PAID], w[S_BSD], w[S_STARTED]


@njit(cache=True)
def _online_scores(scalars, queue, running, vms, history, jobs, codes, kappa, alpha, beta, out):
    """Each policy of ``codes`` from a window of the state (bare arrays: see
    :func:`mopt.cloud.engine.advance`); ``out[p]`` = U, busy, paid, mean BSD."""
    nq = int(scalars[S_NQ])
    live, live_vms = compact_running(running, vms, int(scalars[S_NV]), max(nq, 1))
    for p in range(codes.shape[0]):
        busy, paid, bsd, started = _window_score(scalars, queue, live, live_vms, history, jobs,
                                                 codes[p], np.empty((0, jobs.shape[1])), False)
        bsd = bsd / started if started > 0 else 1.0
        out[p, 0] = utility(busy, paid, bsd, kappa, alpha, beta)
        out[p, 1] = busy
        out[p, 2] = paid
        out[p, 3] = bsd


@njit(cache=True)
def _forecast_scores(scalars, queue, running, vms, history, jobs, codes, futures, bounds, prorate,
                     kappa, alpha, beta, out):
    """mopt's rule: each policy of ``codes`` over every sampled future (``futures[bounds[m]:
    bounds[m + 1]]``, the same for every policy: common random numbers); ``out[p]`` = the mean U
    over the samples, then the mean busy, paid and BSD."""
    nq = int(scalars[S_NQ])
    n_samples = max(bounds.shape[0] - 1, 1)
    most = 0
    for m in range(bounds.shape[0] - 1):
        most = max(most, bounds[m + 1] - bounds[m])
    free = min(max(nq, 1) + most, max(int(scalars[S_CAP]), 1))
    live, live_vms = compact_running(running, vms, int(scalars[S_NV]), free)
    for p in range(codes.shape[0]):
        out[p, :] = 0.0
        for m in range(n_samples):
            if bounds.shape[0] > 1:
                future = futures[bounds[m]:bounds[m + 1]].copy()
            else:
                future = np.empty((0, jobs.shape[1]))
            busy, paid, bsd, started = _window_score(scalars, queue, live, live_vms, history,
                                                     jobs, codes[p], future, prorate)
            bsd = bsd / started if started > 0 else 1.0
            out[p, 0] += utility(busy, paid, bsd, kappa, alpha, beta) / n_samples
            out[p, 1] += busy / n_samples
            out[p, 2] += paid / n_samples
            out[p, 3] += bsd / n_samples


def online_view(state: CloudState, jobs) -> CloudState:
    """A copy of ``state`` prepared for an online simulation (module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> from mopt.cloud import Policy
    >>> from mopt.cloud.simulate import prepare_jobs
    >>> table, _, info = prepare_jobs(pd.DataFrame({"submit_time": [0], "run_time": [600],
    ...                                             "n_procs": [4]}))
    >>> view = online_view(CloudState.start(table), table)
    >>> view.advance(table, Policy("ODA-FCFS-FirstFit").codes), view.busy, view.paid
    (0, 2400.0, 14400.0)
    """
    return state.online_view(jobs)


def online_scores(state: CloudState, jobs, codes, *, kappa=100.0, alpha=1.0, beta=1.0):
    """Online simulations of several policies from ``state`` in one compiled call.

    ``codes`` is an (k, 3) int array of policy codes (:attr:`Policy.codes`, or
    :meth:`Policy.loop_codes` for the bin-packing VM key); returns a (k, 4) array of U, busy
    VM-seconds, paid VM-seconds and mean BSD of the queued jobs for each policy.

    Examples
    --------
    >>> import pandas as pd
    >>> from mopt.cloud import Policy
    >>> from mopt.cloud.simulate import prepare_jobs
    >>> table, _, _ = prepare_jobs(pd.DataFrame({"submit_time": [0], "run_time": [600],
    ...                                          "n_procs": [4]}))
    >>> codes = [Policy("ODA-FCFS-FirstFit").codes, Policy("ODX-FCFS-FirstFit").codes]
    >>> online_scores(CloudState.start(table), table, codes).round(2).tolist()  # spec §5's job
    [[13.89, 2400.0, 14400.0, 1.2], [7.46, 2400.0, 14400.0, 2.23]]
    """
    codes = np.asarray(codes, dtype=np.int64).reshape(-1, 3)
    out = np.empty((len(codes), 4))
    _online_scores(*state.arrays, jobs, codes, float(kappa), float(alpha), float(beta), out)
    return out


def forecast_scores(state: CloudState, jobs, codes, futures, bounds, *, prorate=True, kappa=100.0,
                    alpha=1.0, beta=1.0):
    """mopt's rule (ours): online simulations of several policies over sampled futures.

    As :func:`online_scores`, but each window also receives the forecast arrivals of every
    sample (``futures``, a job table of :func:`mopt.cloud.engine.job_table`'s columns, the
    samples one after another, sample ``m`` in rows ``bounds[m]:bounds[m + 1]``, each sorted by
    submit time, all after the clock) and runs until they have finished too; with ``prorate``
    the VMs still leased at the window's end are charged only up to it (not to their next hourly
    boundary). The same samples for every policy (common random numbers); returns the mean over
    the samples of U, busy, paid and BSD. With ``bounds = [0]`` (no sample) and
    ``prorate=False`` this is :func:`online_scores`.

    Examples
    --------
    Spec §5's job (4 VMs, 600 s, ODA starts it at 120 s): its 4 VMs charged 720 s each, not an hour

    >>> from mopt.cloud.engine import job_table
    >>> table = job_table([0.0], [600.0], [600.0], [4.0], [-1.0], [600.0])
    >>> oda = [(2, 0, 0)]  # ODA-FCFS-FirstFit's codes
    >>> forecast_scores(CloudState.start(table), table, oda, table[:0], [0]).round(2).tolist()
    [[69.44, 2400.0, 2880.0, 1.2]]
    """
    codes = np.asarray(codes, dtype=np.int64).reshape(-1, 3)
    futures = np.ascontiguousarray(futures, dtype=np.float64).reshape(-1, jobs.shape[1])
    bounds = np.asarray(bounds, dtype=np.int64)
    out = np.empty((len(codes), 4))
    _forecast_scores(*state.arrays, jobs, codes, futures, bounds, bool(prorate), float(kappa),
                     float(alpha), float(beta), out)
    return out
