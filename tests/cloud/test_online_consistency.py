"""Spec §6's online simulation against reality: from a selection instant, the online simulation of
policy i (a copy of the state, no future arrivals) must be exactly the schedule the real engine
produces when it applies i from that instant on a trace truncated after the jobs submitted so far
(actual runtimes): the same starts of the queued jobs, and the window's R_J, R_V and mean BSD
recomputed from the real run's totals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import Policy
from mopt.cloud import engine as E
from mopt.cloud.online import online_scores
from mopt.cloud.simulate import start_run
from tests.helpers import needs_traces

CLOUD = {"boot_delay": 120, "step": 20, "runtime": "actual", "kappa": 100, "alpha": 1, "beta": 1,
         "drop_wide": False}
POLICIES = ["ODA-UNICEF-WorstFit", "ODB-FCFS-BestFit", "ODE-LXF-FirstFit", "ODM-WFP3-BestFit",
            "ODX-UNICEF-WorstFit", "ODA-LXF-BestFit", "ODG-SJF-FirstFit", "ODW-FCFS-FirstFit"]


def random_trace(seed: int, n: int = 40) -> pd.DataFrame:
    """``n`` jobs of 1-6 VMs over 3 h, 5 s to 1.5 h: with a cap of 12 VMs a queue builds."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"submit_time": np.sort(rng.integers(0, 10800, n)),
                         "run_time": rng.integers(5, 5400, n), "n_procs": rng.integers(1, 7, n)})


def _prefix(df, history, until, max_vms):
    """The real engine over ``df`` applying ``history`` [(policy, until), ...], then stopping at
    the first tick >= ``until`` with a non-empty queue (a selection instant)."""
    table, _, _, state = start_run(df, max_vms=max_vms, **CLOUD)
    start = np.full(len(table), np.nan)
    for name, t in history:
        assert state.advance(table, Policy(name).codes, until=t, out_start=start) == E.UNTIL
    status = state.advance(table, Policy(history[-1][0]).codes, until=until, out_start=start)
    while status == E.UNTIL or state.queue_length == 0:
        status = state.advance(table, Policy(history[-1][0]).codes, period=CLOUD["step"],
                               out_start=start)
        assert status != E.DONE
    return table, state, start


def check_instant(df, history, until, policies, max_vms, vm_key="mod"):
    table, state, start = _prefix(df, history, until, max_vms)
    t, nq = state.clock, state.queue_length
    queued = state.queue[:nq, E.Q_ID].astype(np.int64)
    arrived = int(state.sc[E.S_NEXT])
    nv = int(state.sc[E.S_NV])
    elapsed = float(np.sum(t - state.vms[:nv, E.V_LEASE]))  # already paid for before t
    live = state.running[:, E.R_ACTIVE] > 0
    remaining = float(np.sum(state.running[live, E.R_N] * (state.running[live, E.R_END] - t)))
    codes = np.array([Policy(p).loop_codes(vm_key) for p in policies])
    compiled = online_scores(state, table, codes)
    for k in range(len(policies)):
        # reality: the same history on the trace cut after the jobs submitted by t, then policy k
        cut = df.sort_values("submit_time", kind="stable").iloc[:arrived]
        table2, state2, start2 = _prefix(cut, history, until, max_vms)
        assert state2.clock == t
        np.testing.assert_array_equal(start2, start[:arrived])  # the same past
        paid_before = state2.paid
        assert state2.advance(table2, codes[k], out_start=start2) == E.DONE
        run = table2[queued, E.J_RUN]
        bsd = np.maximum(1.0, (start2[queued] - table2[queued, E.J_SUB] + run)
                         / np.maximum(run, 10.0))
        real = [float(np.sum(table2[queued, E.J_N] * run)) + remaining,
                state2.paid - paid_before - elapsed, float(bsd.mean())]
        # the online simulation: job by job, then the window's totals
        view = state.online_view(table)
        online_start = np.full(len(table), np.nan)
        assert view.advance(table, codes[k], out_start=online_start) == E.DONE
        np.testing.assert_array_equal(online_start[queued], start2[queued])
        np.testing.assert_allclose([view.busy, view.paid, view.mean_bsd], real, rtol=1e-12)
        u = 100 * real[0] / real[1] / real[2]
        np.testing.assert_allclose(compiled[k], [u, *real], rtol=1e-12)
    return nq


@pytest.mark.parametrize("seed", range(6))
def test_online_simulation_is_the_truncated_real_run(seed):
    df = random_trace(seed)
    rng = np.random.default_rng(100 + seed)
    pre = rng.choice(POLICIES, 2, replace=False)
    t1, t2 = np.sort(rng.uniform(600, 9000, 2)).round()
    # the state comes from two policies in turn (as under a portfolio), then every policy is
    # simulated online from a selection instant after t2
    nq = check_instant(df, [(pre[0], t1), (pre[1], t2)], t2 + 20, POLICIES, max_vms=12)
    assert nq >= 1


@pytest.mark.parametrize("seed", range(3))
def test_online_simulation_under_the_binpack_key(seed):
    # the bin-packing key rides on the VM-selection code into the online simulations too
    df = random_trace(20 + seed)
    rng = np.random.default_rng(200 + seed)
    pre = rng.choice(POLICIES, 2, replace=False)
    t1, t2 = np.sort(rng.uniform(600, 9000, 2)).round()
    assert check_instant(df, [(pre[0], t1), (pre[1], t2)], t2 + 20, POLICIES, max_vms=12,
                         vm_key="binpack") >= 1


@needs_traces("KTH-SP2")
def test_online_simulation_on_kth_prefix():
    from mopt.workloads import load_trace

    df = load_trace("KTH-SP2", size_limit=64).head(800)
    rng = np.random.default_rng(7)
    sizes = []
    for t in np.sort(rng.uniform(df.submit_time.iloc[200], df.submit_time.iloc[700], 3)).round():
        pre = rng.choice(POLICIES[:6], 2, replace=False)
        sizes.append(check_instant(df, [(pre[0], t - 7200), (pre[1], t)], t, POLICIES[:6],
                                   max_vms=256))
    assert min(sizes) >= 1


@pytest.mark.parametrize("seed, period, vm_key", [(0, 1, "mod"), (1, 1, "mod"), (2, 3, "mod"),
                                                  (3, 1, "binpack")])
def test_every_policy_budget_picks_the_argmax_and_the_log_is_what_ran(seed, period, vm_key):
    # Δ = N: every policy is simulated at every selection, so the logged choice must have the
    # largest online U of all N. Replaying the log (the logged policy from each logged time on,
    # the first policy before the first selection) must give the run's schedule job by job.
    from mopt.cloud.portfolio_scheduler import simulate_portfolio

    df = random_trace(seed, n=30)
    run = simulate_portfolio(df, POLICIES, budget=len(POLICIES), period=period, seed=seed,
                             max_vms=12, vm_key=vm_key)
    log = run.log
    assert len(log) >= 5 and (log["simulated"] == len(POLICIES)).all()
    codes = np.array([Policy(p).loop_codes(vm_key) for p in POLICIES])
    table, _, _, state = start_run(df, max_vms=12, **CLOUD)
    start = np.full(len(table), np.nan)
    active, k = 0, 0
    if state.clock % (20 * period) == 0 and state.queue_length > 0:
        status = E.SELECT
    else:
        status = state.advance(table, codes[active], period=20.0 * period, out_start=start)
    while status != E.DONE:
        assert status == E.SELECT
        assert state.clock == log.loc[k, "time"] and state.queue_length == log.loc[k, "queue"]
        scores = online_scores(state, table, codes)[:, 0]
        active = int(log.loc[k, "policy"])
        assert scores[active] == scores.max() == log.loc[k, "utility"]
        k += 1
        status = state.advance(table, codes[active], period=20.0 * period, out_start=start)
    assert k == len(log)
    np.testing.assert_array_equal(start, run.jobs["start"].to_numpy())
    assert state.paid == run.summary["R_V"]


@pytest.mark.parametrize("seed", range(4))
def test_fast_finish_equals_ticking_on(seed):
    # an online simulation finishes in one step once its queue is empty (engine._fast_finish):
    # the same R_V, R_J, BSD and final tick as ticking on, for every provisioning policy, from
    # instants with busy, idle and booting VMs (boot 300 s keeps some booting)
    df = random_trace(10 + seed)
    table, _, _, state = start_run(df, max_vms=12, **(CLOUD | {"boot_delay": 300}))
    policies = [f"{p}-{j}-{v}" for p, j, v in zip(
        ["ODA", "ODB", "ODE", "ODM", "ODX", "ODW", "ODS", "ODG", "StartUp"],
        ["FCFS", "LXF", "UNICEF", "WFP3", "SJF", "FCFS", "LXF", "UNICEF", "WFP3"],
        ["FirstFit", "BestFit", "WorstFit"] * 3, strict=True)]
    checked = 0
    while state.advance(table, Policy("ODM-FCFS-FirstFit").codes, period=200.0) == E.SELECT:
        for name in policies:
            ends = []
            for fast in (False, True):
                view = state.online_view(table)
                p, j, v = Policy(name).codes
                assert E.advance(view.sc, view.queue, view.running, view.vms, view.hist, table,
                                 p, j, v, np.inf, 0.0, np.empty(0), fast) == E.DONE
                ends.append([view.clock, view.busy, view.paid, view.mean_bsd])
            assert ends[0] == ends[1], name
        checked += 1
    assert checked >= 5
