"""portfolio_versus: every constituent and the portfolio, in-process or as tasks of an executor."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd

from mopt.cloud import simulate, simulate_portfolio
from mopt.cloud.portfolio_report import portfolio_versus

MIX = ["ODA-FCFS-FirstFit", "ODX-LXF-BestFit", "ODB-UNICEF-WorstFit"]


def random_jobs(n: int = 40, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"submit_time": np.sort(rng.integers(0, 30_000, n)),
                         "run_time": rng.integers(20, 5000, n), "n_procs": rng.integers(1, 9, n)})


def test_rows_are_the_runs_alone_and_an_executor_changes_nothing():
    jobs = random_jobs()
    seen = []
    table, run = portfolio_versus(jobs, MIX, budget=2, seed=3, progress=seen.append)
    assert seen == [*MIX, "portfolio"]
    for policy, u in zip(MIX, table["utility"], strict=False):
        assert u == simulate(jobs, policy).summary["utility"]
    alone = simulate_portfolio(jobs, MIX, budget=2, seed=3)
    assert table["utility"].iloc[-1] == alone.summary["utility"] and run.log.equals(alone.log)
    done = []
    with ThreadPoolExecutor(2) as pool:
        table2, run2 = portfolio_versus(jobs, MIX, budget=2, seed=3, progress=done.append,
                                        executor=pool)
    pd.testing.assert_frame_equal(table, table2)
    assert run2.log.equals(run.log) and run2.jobs.equals(run.jobs)
    assert sorted(done) == sorted(seen)  # each run reported once, when it has finished
