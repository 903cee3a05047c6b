"""The portfolio scheduler against its independent plain-Python model (tests/reference/portfolio_model.py):
the same selections (time and policy) and the same start of every job on small random traces."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import TimeConstrainedSelection, simulate_portfolio
from tests.reference.portfolio_model import run_portfolio_model

MIXES = {
    "sc13-like": ["ODA-UNICEF-FirstFit", "ODB-FCFS-BestFit", "ODE-LXF-WorstFit", "ODX-WFP3-FirstFit",
                  "ODM-SJF-BestFit", "ODB-LXF-WorstFit", "ODA-FCFS-FirstFit"],
    "vm-selection": ["ODA-FCFS-BestFit", "ODA-FCFS-WorstFit", "ODM-LXF-FirstFit"],
}


def trace(seed: int, n: int = 9) -> pd.DataFrame:
    """``n`` jobs of 1-6 VMs over 40 min, 5 s to 25 min (a cap of 12 VMs makes them queue)."""
    rng = np.random.default_rng(seed)
    run = rng.integers(5, 1500, n)
    return pd.DataFrame({"submit_time": np.sort(rng.integers(0, 2400, n)), "run_time": run,
                         "n_procs": rng.integers(1, 7, n),
                         "req_time": np.where(rng.random(n) < 0.2, -1, run * rng.integers(1, 4, n)),
                         "user_id": rng.integers(1, 4, n)})


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("runtime, budget, period", [("actual", 3, 1), ("user", 7, 2)])
def test_engine_matches_the_plain_model(seed, mix, runtime, budget, period):
    df = trace(seed)
    policies = MIXES[mix]
    run = simulate_portfolio(df, policies, budget=budget, period=period, seed=seed, runtime=runtime,
                             max_vms=12)
    jobs = [{"submit": float(r.submit_time), "run": float(r.run_time), "req": float(r.req_time),
             "n": int(r.n_procs)} for r in df.sort_values("submit_time", kind="stable").itertuples()]
    selection = TimeConstrainedSelection(len(policies), budget, seed=seed)
    starts, paid, log = run_portfolio_model(jobs, policies, selection, period=period,
                                             runtime=runtime, max_vms=12)
    assert list(zip(run.log["time"], run.log["policy"], strict=True)) == log
    np.testing.assert_array_equal(run.jobs["start"].to_numpy(), np.array(starts, dtype=float))
    assert run.summary["R_V"] == paid
