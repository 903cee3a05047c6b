"""JSSPP's synthetic workloads: five arrival patterns with run times taken from a real trace
(JSSPP §4.2; spec ``cloud.md`` §1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int
from mopt.workloads.traces import load_trace

__all__ = ["PATTERNS", "synthetic"]

PATTERNS = ("Steady", "Increment", "Decline", "Periodic", "Bursty")


def _gaps(pattern: str, n: int) -> np.ndarray:
    """Inter-arrival times of the ``n - 1`` gaps of a JSSPP pattern (spec §1; ours where noted)."""
    k = np.arange(n - 1)
    if pattern == "Steady":
        return np.full(n - 1, 300.0)
    if pattern == "Increment":  # taken literally it turns negative: clipped at 5 s
        return np.maximum(600.0 - 70.0 * (k // 100), 5.0)
    if pattern == "Decline":
        return 5.0 + 70.0 * (k // 100)
    if pattern == "Periodic":  # 600 s -> 10 s over 100 jobs and back
        cycle = np.concatenate([np.linspace(600.0, 10.0, 100), np.linspace(10.0, 600.0, 100)])
        return np.resize(cycle, n - 1)
    # Bursty: bursts of 100 jobs 5 s apart, one burst every 30,000 s (the gap is ours)
    return np.where((k + 1) % 100 == 0, 30_000.0 - 5.0 * 99, 5.0)


def synthetic(pattern: str, n_jobs: int = 1000, runtimes="KTH-SP2", *, n_procs: int = 1,
              seed=None) -> pd.DataFrame:
    """A JSSPP synthetic workload: an arrival pattern with runtimes taken from a real trace.

    Parameters
    ----------
    pattern : {"Steady", "Increment", "Decline", "Periodic", "Bursty"}
        JSSPP §4.2's arrival patterns (spec §1).
    n_jobs : int, default 1000
    runtimes : str or DataFrame, default "KTH-SP2"
        A trace name (loaded with :func:`load_trace`) or a DataFrame with ``run_time`` (and
        optionally ``req_time``, ``user_id``). JSSPP used ANL-Intrepid, not available here.
    n_procs : int, default 1
        Width of every job (ours: JSSPP gives none).
    seed : int, Generator or None
        None: the first ``n_jobs`` jobs of the trace, in order (as JSSPP); otherwise ``n_jobs``
        jobs drawn at random with replacement.

    Examples
    --------
    >>> donor = pd.DataFrame({"run_time": [60, 120, 30]})
    >>> df = synthetic("Bursty", n_jobs=3, runtimes=donor)
    >>> df[["submit_time", "run_time", "n_procs"]].to_numpy().tolist()
    [[0, 60, 1], [5, 120, 1], [10, 30, 1]]
    """
    from mopt.core.random import resolve_seed

    names = {p.lower(): p for p in PATTERNS}
    if not isinstance(pattern, str) or pattern.strip().lower() not in names:
        raise InputError(f"unknown arrival pattern {pattern!r}; expected one of "
                         f"{', '.join(PATTERNS)}.")
    pattern = names[pattern.strip().lower()]
    n_jobs = check_int("n_jobs", n_jobs, low=1)
    n_procs = check_int("n_procs", n_procs, low=1)
    donor = load_trace(runtimes) if isinstance(runtimes, str) else runtimes
    if not isinstance(donor, pd.DataFrame) or "run_time" not in donor.columns or len(donor) == 0:
        raise InputError("'runtimes' must be a trace name or a non-empty DataFrame with run_time.")
    if seed is None:
        if len(donor) < n_jobs:
            raise InputError(f"'runtimes' has {len(donor)} jobs, fewer than 'n_jobs'={n_jobs}; "
                             f"pass a seed to draw with replacement.")
        rows = np.arange(n_jobs)
    else:
        rng = np.random.default_rng(resolve_seed(seed))
        rows = rng.integers(0, len(donor), n_jobs)
    pick = donor.iloc[rows]
    run = pick["run_time"].to_numpy()
    if (run <= 0).any():
        raise InputError("'runtimes' holds run times <= 0; clean the trace first.")
    submit = np.concatenate([[0.0], np.cumsum(_gaps(pattern, n_jobs))])
    return pd.DataFrame({
        "job_id": np.arange(1, n_jobs + 1),
        "submit_time": np.round(submit).astype(np.int64) if np.all(submit == np.round(submit))
        else submit,
        "run_time": run,
        "n_procs": np.full(n_jobs, n_procs, np.int64),
        "req_time": pick["req_time"].to_numpy() if "req_time" in pick else np.full(n_jobs, -1),
        "user_id": pick["user_id"].to_numpy() if "user_id" in pick else np.full(n_jobs, -1),
    })

