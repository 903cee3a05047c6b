"""The portfolio scheduler: hand-checked selection, reduction to one policy, the log, the budget."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import Policy, simulate
from mopt.cloud.online import online_scores
from mopt.cloud.portfolio_scheduler import simulate_portfolio
from mopt.cloud.simulate import start_run
from mopt.core.errors import InputError

ODA = "ODA-FCFS-FirstFit"
ODX = "ODX-FCFS-FirstFit"
MIX = ["ODA-UNICEF-FirstFit", "ODB-FCFS-BestFit", "ODE-LXF-WorstFit", "ODX-WFP3-FirstFit",
       "ODM-FCFS-FirstFit", "ODB-LXF-FirstFit"]


def random_trace(seed: int, n: int = 60) -> pd.DataFrame:
    """``n`` jobs over about two hours: 1-8 VMs, 10 s to 2 h, user estimates 1-3x, 5 users."""
    rng = np.random.default_rng(seed)
    run = np.maximum(1, rng.lognormal(6.0, 1.5, n).round())
    run = np.minimum(run, 7200)
    return pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.uniform(0, 7200, n)).round(),
        "run_time": run, "n_procs": rng.integers(1, 9, n),
        "req_time": (run * rng.uniform(1, 3, n)).round(), "user_id": rng.integers(1, 6, n)})


def test_hand_checked_selection_of_oda_over_odx():
    # One 4-VM job submitted at 0 running 600 s, boot 120 s (spec §5). Online from t = 0:
    # ODA leases 4 VMs at 0, starts at 120: BSD = 720/600 = 1.2, R_J = 2400, R_V = 4 x 3600
    #   -> U = 100 * (2400/14400) / 1.2 = 13.89.
    # ODX leases only once (q + 600)/600 > 2, i.e. at the 620 s tick; start 740, BSD = 1340/600
    #   -> U = 100 * (1/6) / (1340/600) = 7.46.
    df = pd.DataFrame({"submit_time": [0], "run_time": [600], "n_procs": [4]})
    table, _, _, state = start_run(df, boot_delay=120, step=20, max_vms=256, runtime="actual",
                                   kappa=100, alpha=1, beta=1, drop_wide=False)
    scores = online_scores(state, table, [Policy(ODX).codes, Policy(ODA).codes])
    assert scores[:, 0] == pytest.approx([100 / 6 / (1340 / 600), 100 / 6 / 1.2])
    run = simulate_portfolio(df, [ODX, ODA], seed=0)
    assert run.log.loc[0, ["time", "name"]].tolist() == [0.0, ODA]
    assert run.log.loc[0, "utility"] == pytest.approx(100 / 6 / 1.2)
    # later selections (ticks 20..100 while the VMs boot, and 120, where selection comes before
    # the job starts: spec §2's order within a tick) see ODA and ODX tie and keep ODA (stable sort)
    assert run.log["time"].tolist() == [0.0, 20.0, 40.0, 60.0, 80.0, 100.0, 120.0]
    assert set(run.log["name"]) == {ODA}
    assert run.summary["utility"] == pytest.approx(13.89, abs=0.005)
    assert run.jobs.loc[0, "start"] == 120.0


def test_hand_checked_online_utility_with_a_running_job():
    # Job A: 4 VMs, 600 s, at 0 (starts at 120 on 4 VMs leased at 0); job B: 1 VM, 100 s, at 130.
    # Selection at the 140 s tick, A running with 580 s left, B queued, no VM idle. Online, ODA
    # leases 1 VM at 140, B starts at 260: BSD (130 + 100)/100 = 2.3. R_J from now = 4 x 580 + 100
    # = 2,420; R_V from now, every VM released at its next hour: 4 x (3600 - 140) + 3600 = 17,440;
    # U = 100 x 2420/17440 / 2.3 = 6.033. ODX waits until (q + 100)/100 > 2 (the 240 s tick), B
    # starts at 360: BSD 3.3, R_V the same -> U = 4.205; ODA is chosen and B starts at 260.
    df = pd.DataFrame({"submit_time": [0, 130], "run_time": [600, 100], "n_procs": [4, 1]})
    run = simulate_portfolio(df, [ODX, ODA], budget=2, seed=0)
    at = run.log.set_index("time")
    assert at.loc[140.0, "name"] == ODA
    assert at.loc[140.0, "utility"] == pytest.approx(100 * 2420 / 17440 / 2.3, rel=1e-12)
    assert run.jobs["start"].tolist() == [120.0, 260.0]


@pytest.mark.parametrize("policy", [ODA, "ODB-LXF-BestFit", "ODE-UNICEF-WorstFit", "ODG-SJF-FirstFit"])
def test_one_policy_portfolio_is_that_policy(policy):
    df = random_trace(1)
    alone = simulate(df, policy)
    run = simulate_portfolio(df, [policy], seed=3)
    assert len(run.log) == 0
    pd.testing.assert_frame_equal(run.jobs, alone.jobs)
    assert run.summary["R_V"] == alone.summary["R_V"]


def test_one_selection_then_that_policy():
    # a selection period longer than the trace: the only selection is at t = 0 (a multiple of
    # every period), so the run is the chosen policy's own run, job by job
    df = random_trace(2).assign(submit_time=lambda d: d.submit_time - d.submit_time.min())
    run = simulate_portfolio(df, MIX, budget=6, period=10**6, seed=0)
    assert run.log["time"].tolist() == [0.0]
    alone = simulate(df, run.log.loc[0, "name"])
    pd.testing.assert_frame_equal(run.jobs, alone.jobs)


@pytest.mark.parametrize("budget, period", [(2, 1), (3, 3), (6, 1), (10, 2)])
def test_log_respects_budget_and_period(budget, period):
    df = random_trace(4)
    run = simulate_portfolio(df, MIX, budget=budget, period=period, seed=5)
    log = run.log
    assert len(log) > 10
    assert (log["time"] % (20 * period) == 0).all() and log["time"].is_monotonic_increasing
    assert (log["queue"] > 0).all()
    assert (log["simulated"] <= min(len(MIX), budget + 1)).all()
    if budget >= len(MIX):
        assert (log["simulated"] == len(MIX)).all()
    assert run.summary["online_simulations"] == log["simulated"].sum()
    assert run.jobs["start"].notna().all() and (run.jobs["wait"] >= 0).all()
    shares = run.shares()
    assert list(shares.index) == MIX and shares.sum() == pytest.approx(1.0)


def test_same_seed_same_run():
    df = random_trace(6)
    a = simulate_portfolio(df, "sc13", budget=5, seed=11)
    b = simulate_portfolio(df, "sc13", budget=5, seed=11)
    pd.testing.assert_frame_equal(a.log, b.log)
    pd.testing.assert_frame_equal(a.jobs, b.jobs)
    c = simulate_portfolio(df, "sc13", budget=5, seed=12)
    assert not a.log.equals(c.log)  # Poor policies are drawn at random


@pytest.mark.parametrize("kwargs, match", [
    ({"budget": 0}, "'budget' must be an integer >= 1; got 0"),
    ({"ratio": 0}, r"'ratio' must be in \(0, 1\]"),
    ({"ratio": 1.01}, r"'ratio' must be in \(0, 1\]"),
    ({"period": 0}, "'period' must be an integer >= 1; got 0"),
    ({"period": 1.5}, "'period' must be an integer; got 1.5"),
    ({"portfolio": "sc12"}, "'portfolio' must be one of 'sc13', 'jsspp'"),
    ({"portfolio": []}, "'portfolio' must hold at least one policy"),
    ({"portfolio": ["ODA-FCFS-NextFit"]}, "unknown VM-selection policy 'NextFit'"),
    ({"runtime": "guessed"}, "'runtime' must be one of actual, user, predicted"),
])
def test_bad_input(kwargs, match):
    df = random_trace(0, n=5)
    args = {"portfolio": MIX, "seed": 0} | kwargs
    with pytest.raises(InputError, match=match):
        simulate_portfolio(df, **args)
