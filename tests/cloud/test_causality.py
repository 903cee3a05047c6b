"""No future information in the cloud simulators (spec ``cloud.md`` §4, §6; docs/families/cloud.md,
"What a scheduler knows, and when").

With predicted or user-estimated runtimes a scheduler at time t knows the submit time, width,
requested time and user of the jobs submitted by t, and the actual runtimes of the jobs finished
by t, nothing else; with actual runtimes (the perfect-information variant) it knows the runtimes
of the jobs submitted by t too, and never an arrival before it happens. So: run, pick a time T,
change every input a scheduler could not know before T — the actual runtimes of the jobs not
finished by T (a job running at T still runs past T), and everything about the jobs submitted
after T (some dropped, some added, the rest redrawn) — run again: every selection (its time, the
policy chosen, how many were simulated and the chosen policy's online score) and every job start
before T must be the same. For one policy, the portfolio scheduler under both rules (mopt's with
its shadows' shortlist and with its forecast) and the walk-forward baseline; three real traces,
every runtime variant, three times T per run.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import simulate
from mopt.cloud.portfolio_scheduler import simulate_portfolio
from mopt.cloud.selection_rules import MoptRule
from mopt.cloud.walk_forward import walk_forward
from tests.helpers import trace_file

TRACES = ("KTH-SP2", "SDSC-SP2", "CTC-SP2")
RUNTIMES = ("predicted", "user", "actual")
#: a small portfolio of different shapes, so that selections change often
PORTFOLIO = ["ODA-UNICEF-WorstFit", "ODB-LXF-BestFit", "ODE-FCFS-FirstFit", "ODX-WFP3-BestFit",
             "ODM-UNICEF-FirstFit", "ODA-FCFS-BestFit"]
CLOUD = {"max_vms": 256, "boot_delay": 120, "step": 20}
N_JOBS = 300
#: the widest job kept and added (SC13: 64 VMs)
WIDEST = 64
#: the fractions of the slice's span at which T is taken
TIMES = (0.3, 0.55, 0.8)


@functools.cache
def _slice(name: str) -> pd.DataFrame:
    from mopt.workloads import load_trace

    trace_file(name)
    jobs = load_trace(name, size_limit=WIDEST).head(N_JOBS)
    return jobs[["job_id", "submit_time", "run_time", "n_procs", "req_time", "user_id"]].copy()


def trace(name: str) -> pd.DataFrame:
    return _slice(name).copy()


def unknowable_changed(jobs: pd.DataFrame, run: pd.DataFrame, T: float, runtime: str,
                       rng: np.random.Generator) -> pd.DataFrame:
    """``jobs`` with every input a scheduler could not know before ``T`` changed (module docstring);
    ``run`` is the first run's per-job table (``job_id``, ``start``)."""
    jobs = jobs.reset_index(drop=True).copy()
    start = jobs["job_id"].map(run.set_index("job_id")["start"]).to_numpy(np.float64)
    submit = jobs["submit_time"].to_numpy(np.float64)
    actual = jobs["run_time"].to_numpy(np.float64)
    known = submit <= T
    if runtime != "actual":  # runtimes of the jobs not finished by T are unknown
        unfinished = known & ~(start + actual <= T)  # NaN start: not started
        running = unfinished & (start < T)
        new = rng.integers(1, 3 * actual.astype(np.int64) + 60)
        new = np.where(running, np.maximum(new, np.floor(T - start) + 1 + rng.integers(0, 600,
                                                                                        len(new))),
                       new)
        jobs.loc[unfinished, "run_time"] = new[unfinished]
    # the jobs submitted after T: 30 % dropped, the rest redrawn, 20 added; runtimes and widths
    # drawn from the trace's own, so that the load stays the trace's
    later = jobs.loc[~known]
    kept = later.sample(frac=0.7, random_state=int(rng.integers(1 << 30)))
    kept = kept.assign(run_time=np.maximum(1, np.round(rng.permutation(kept["run_time"].to_numpy())
                                                       * rng.uniform(0.5, 2.0, len(kept)))),
                       n_procs=rng.permutation(kept["n_procs"].to_numpy()))
    n_new = 20
    span = max(submit.max() - T, 1.0)
    like = jobs.sample(n_new, replace=True, random_state=int(rng.integers(1 << 30)))
    added = like.assign(job_id=jobs["job_id"].max() + 1 + np.arange(n_new),
                        submit_time=np.floor(T) + 1 + np.floor(rng.random(n_new) * span),
                        user_id=rng.permutation(like["user_id"].to_numpy()))
    out = pd.concat([jobs.loc[known], kept, added], ignore_index=True)
    return out.sort_values("submit_time", kind="stable").reset_index(drop=True)


def starts_before(run: pd.DataFrame, T: float) -> pd.Series:
    early = run[run["start"] < T]
    return early.set_index("job_id")["start"].sort_index()


#: where a run keeps its decisions: (attribute, the column of their times, the decisions' columns;
#: walk-forward's ``jobs``, how many a month will hold, is a count after the fact)
SELECTIONS = ("log", "time", ["time", "policy", "name", "queue", "simulated", "utility"])
MONTHS = ("months", "start", ["month", "start", "policy", "past_utility"])


def log_before(log: pd.DataFrame, column: str, columns: list, T: float) -> pd.DataFrame:
    return log.loc[log[column] < T, columns].reset_index(drop=True)


def assert_same_before(first, second, T: float, log: tuple | None = None, what: str = "") -> None:
    pd.testing.assert_series_equal(starts_before(first.jobs, T), starts_before(second.jobs, T),
                                   obj=f"{what}: job starts before T={T}")
    if log is not None:
        (attribute, column, columns) = log
        pd.testing.assert_frame_equal(log_before(getattr(first, attribute), column, columns, T),
                                      log_before(getattr(second, attribute), column, columns, T),
                                      obj=f"{what}: decisions before T={T}")


def times(jobs: pd.DataFrame) -> list[float]:
    lo, hi = jobs["submit_time"].min(), jobs["submit_time"].max()
    return [float(np.floor(lo + f * (hi - lo))) for f in TIMES]


def check_causal(name: str, runtime: str, run_fn, log: tuple | None, seed: int) -> None:
    jobs = trace(name)
    first = run_fn(jobs)
    if log is not None:
        assert len(getattr(first, log[0])) > 3, "too few decisions to test"
    rng = np.random.default_rng(seed)
    for T in times(jobs):
        changed = unknowable_changed(jobs, first.jobs, T, runtime, rng)
        assert not changed.equals(jobs)
        assert_same_before(first, run_fn(changed), T, log, f"{name}, {runtime}")


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", TRACES)
def test_one_policy_is_causal(name, runtime):
    check_causal(name, runtime, lambda jobs: simulate(jobs, "ODX-UNICEF-BestFit", runtime=runtime,
                                                      **CLOUD), None, seed=1)


def _papers_rule(runtime):
    return lambda jobs: simulate_portfolio(jobs, PORTFOLIO, budget=3, seed=5, runtime=runtime,
                                           selection="sc13", **CLOUD)


def _mopt_rule(runtime, **rule):
    rule = MoptRule(reflect=6 * 3600.0, refresh=3600.0, shortlist=3, **rule)
    return lambda jobs: simulate_portfolio(jobs, PORTFOLIO, budget=3, seed=5, runtime=runtime,
                                           selection=rule, **CLOUD)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", TRACES)
def test_papers_rule_is_causal(name, runtime):
    check_causal(name, runtime, _papers_rule(runtime), SELECTIONS, seed=2)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", TRACES)
def test_mopt_rule_is_causal(name, runtime):
    """The shadows' shortlist is in use from the first hour on (their records hold a span)."""
    check_causal(name, runtime, _mopt_rule(runtime), SELECTIONS, seed=3)


@pytest.mark.parametrize("runtime", ["predicted", "actual"])
def test_mopt_rule_with_a_forecast_is_causal(runtime):
    """The sampled futures resample jobs submitted by now, with runtimes as known now."""
    check_causal("SDSC-SP2", runtime, _mopt_rule(runtime, samples=2, events_only=False), SELECTIONS,
                 seed=4)


@pytest.mark.parametrize("runtime", RUNTIMES)
@pytest.mark.parametrize("name", TRACES)
def test_walk_forward_is_causal(name, runtime):
    """Months of 6 h, so that the slice holds several choices."""
    check_causal(name, runtime, lambda jobs: walk_forward(jobs, PORTFOLIO, month=6 * 3600.0,
                                                          runtime=runtime, **CLOUD),
                 MONTHS, seed=5)
