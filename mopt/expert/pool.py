"""Effective size of the unreliable pool (#ur) from the throughput phase (ExPERT §IV).

ExPERT estimates #ur "by running iterations of the estimator over the throughput phase until the
estimated result rate matches the real result rate".  The throughput phase has no replication, so
the number of results by time ``elapsed`` grows with #ur; a bisection finds the smallest #ur whose
mean simulated count (common random numbers over ``n_reps`` replications) reaches the observed one.
"""

from __future__ import annotations

import heapq

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.random import SeedLike, replication_rng, resolve_seed
from mopt.expert.turnaround import TurnaroundModel

__all__ = ["estimate_n_unreliable", "throughput_results"]


def throughput_results(turnaround: TurnaroundModel, n_tasks: int, n_unreliable: int, elapsed: float,
                       throughput_deadline: float, rng: np.random.Generator) -> int:
    """Results returned by ``elapsed`` in one simulated throughput phase (FCFS, no replication,
    failed instances detected at the deadline and re-queued)."""
    table = turnaround.fs_table
    # (time a machine frees, machine, whether its instance failed); every machine frees at 0
    events = [(0.0, m, False) for m in range(n_unreliable)]
    queued, results, idle = n_tasks, 0, []
    while events:
        now, m, failed = heapq.heappop(events)
        if now > elapsed:
            break
        queued += failed  # a failed task is re-queued when its deadline passes, not before
        idle.append(m)
        while queued and idle:
            machine = idle.pop()
            queued -= 1
            t = table[min(int(rng.random() * table.size), table.size - 1)]
            ok = rng.random() < float(turnaround.reliability(now)) and t < throughput_deadline
            end = now + (t if ok else throughput_deadline)
            results += bool(ok and end <= elapsed)
            heapq.heappush(events, (end, machine, not ok))
    return int(results)


def estimate_n_unreliable(turnaround: TurnaroundModel, *, n_tasks: int, n_results: int, elapsed: float,
                          throughput_deadline: float, n_reps: int = 10, seed: SeedLike = None,
                          max_unreliable: int = 100_000) -> int:
    """``#ur`` whose simulated throughput phase returns ``n_results`` results by ``elapsed``.

    Parameters
    ----------
    turnaround : TurnaroundModel
        The pool's F(t, t') (e.g. from the throughput phase's instances).
    n_tasks : int
        Tasks in the bag.
    n_results : int
        Results observed by time ``elapsed`` since the bag was submitted.
    elapsed : float
        Observation time (s).
    throughput_deadline : float
        Deadline of throughput-phase instances (ExPERT: 4·t_ur).

    Examples
    --------
    >>> from scipy import stats
    >>> m = TurnaroundModel.parametric(stats.uniform(1000, 1e-6), 1.0)
    >>> estimate_n_unreliable(m, n_tasks=1000, n_results=120, elapsed=2500, throughput_deadline=4000, seed=1)
    60
    """
    if not isinstance(turnaround, TurnaroundModel):
        raise TypeError(f"'turnaround' must be a TurnaroundModel; got {type(turnaround).__name__}.")
    n_tasks = check_int("n_tasks", n_tasks, low=1)
    n_results = check_int("n_results", n_results, low=1, high=n_tasks)
    elapsed = check_number("elapsed", elapsed, low=0, low_open=True)
    throughput_deadline = check_number("throughput_deadline", throughput_deadline, low=0, low_open=True)
    n_reps = check_int("n_reps", n_reps, low=1)
    max_unreliable = check_int("max_unreliable", max_unreliable, low=1)
    entropy = resolve_seed(seed)

    def mean_results(n_ur: int) -> float:
        return float(np.mean([
            throughput_results(turnaround, n_tasks, n_ur, elapsed, throughput_deadline,
                               replication_rng(entropy, r)) for r in range(n_reps)
        ]))

    hi = min(max_unreliable, n_tasks)
    if mean_results(hi) < n_results:
        raise InputError(
            f"'n_results'={n_results} by elapsed={elapsed:g} s is more than {hi} unreliable machines "
            "return in simulation; check 'elapsed' and the turnaround model."
        )
    lo = 1
    while lo < hi:
        mid = (lo + hi) // 2
        if mean_results(mid) >= n_results:
            hi = mid
        else:
            lo = mid + 1
    return lo
