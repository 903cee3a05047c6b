"""The selection rules (issue #24): the papers' rule unchanged, mopt's rule's parts by hand
(hysteresis, the forecast's rate-scaled resampling, the prorated lease charge), determinism, the
walk-forward baseline and bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import Policy, simulate
from mopt.cloud import engine as E
from mopt.cloud.online import forecast_scores, online_scores
from mopt.cloud.portfolio_scheduler import run_selections, simulate_portfolio
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.selection_rules import MoptRule, keep_incumbent, sample_futures, selection_rule
from mopt.cloud.simulate import start_run
from mopt.cloud.walk_forward import MONTH, walk_forward
from mopt.core.errors import InputError

from .test_portfolio import MIX, random_trace

CLOUD = {"boot_delay": 120, "step": 20, "max_vms": 256, "runtime": "actual", "kappa": 100,
         "alpha": 1, "beta": 1, "drop_wide": False}


@pytest.mark.parametrize(("challenger", "chosen"), [(1.05, 0), (1.10, 0), (1.15, 1), (0.9, 0)])
def test_hysteresis_keeps_the_incumbent_unless_a_challenger_is_10_percent_better(challenger, chosen):
    # incumbent 0 scores 1.0; challenger 1 replaces it only above 1.0 * (1 + 0.1)
    best = 1 if challenger > 1.0 else 0
    assert keep_incumbent({0: 1.0, 1: challenger}, best, 0, 0.1) == chosen


def test_hysteresis_without_an_incumbent_or_with_zero_margin_takes_the_best():
    assert keep_incumbent({0: 1.0, 1: 1.01}, 1, None, 0.1) == 1
    assert keep_incumbent({0: 1.0, 1: 1.01}, 1, 0, 0.0) == 1


def test_forecast_resamples_recent_jobs_at_the_recent_rate():
    # jobs at 0, 100, 200, 300; now 300, lookback 200 s: the recent jobs are those submitted in
    # (100, 300] (2 jobs), so a sample has Poisson(2 * 400 / 200 = 4) jobs over (300, 700],
    # each a copy of job 2 (30 s, 3 VMs) or job 3 (40 s, 4 VMs)
    table = E.job_table([0, 100, 200, 300], [10, 20, 30, 40], [50, 60, 70, 80], [1, 2, 3, 4],
                        [0, 1, 2, 3], [10, 20, 30, 40])
    futures, bounds = sample_futures(table, 300.0, 4, lookback=200.0, horizon=400.0,
                                     samples=4000, rng=np.random.default_rng(3))
    counts = np.diff(bounds)
    assert abs(counts.mean() - 4.0) < 0.1 and abs(counts.var() - 4.0) < 0.4  # Poisson(4)
    assert set(map(tuple, futures[:, [E.J_RUN, E.J_N]])) == {(30.0, 3.0), (40.0, 4.0)}
    assert futures[:, E.J_SUB].min() > 300 and futures[:, E.J_SUB].max() <= 700
    for m in range(10):  # each sample sorted by submit time, users unknown
        assert np.all(np.diff(futures[bounds[m]:bounds[m + 1], E.J_SUB]) >= 0)
    assert np.all(futures[:, E.J_USER] == -1)
    # lookback 250 s: (50, 300] holds 3 jobs, Poisson(3 * 400 / 250 = 4.8)
    _, bounds = sample_futures(table, 300.0, 4, lookback=250.0, horizon=400.0, samples=4000,
                               rng=np.random.default_rng(3))
    assert abs(np.diff(bounds).mean() - 4.8) < 0.12
    # the runtimes the scheduler knows replace the actual ones (predicted runtimes)
    futures, _ = sample_futures(table, 300.0, 4, lookback=200.0, horizon=400.0, samples=50,
                                rng=np.random.default_rng(3),
                                known_run=lambda first, arrived: table[first:arrived, E.J_REQ])
    assert set(futures[:, E.J_RUN]) <= {70.0, 80.0}


def test_prorated_lease_charge_by_hand():
    # One 4-VM job of 600 s at 0 (spec §5): ODA leases 4 VMs at 0, the job runs 120..720.
    # Rounded: 4 x 3600 = 14400 VM-s, U = 100 * 2400/14400 / 1.2 = 13.89. Prorated: the window
    # ends at 720, each VM is charged 720 s: 2880 VM-s, U = 100 * 2400/2880 / 1.2 = 69.44.
    df = pd.DataFrame({"submit_time": [0], "run_time": [600], "n_procs": [4]})
    table, _, _, state = start_run(df, **CLOUD)
    codes = [Policy("ODA-FCFS-FirstFit").codes]
    prorated = forecast_scores(state, table, codes, table[:0], [0], prorate=True)[0]
    np.testing.assert_allclose(prorated, [100 * 2400 / 2880 / 1.2, 2400, 2880, 1.2])
    rounded = forecast_scores(state, table, codes, table[:0], [0], prorate=False)
    np.testing.assert_array_equal(rounded, online_scores(state, table, codes))


def test_forecast_scores_use_common_random_numbers():
    # the same policy twice scores the same over the same samples; a forecast adds work
    df = random_trace(5)
    table, _, _, state = start_run(df, **CLOUD)
    state.advance(table, Policy(MIX[0]).codes, until=3600.0)
    futures, bounds = sample_futures(table, state.clock, int(state.scalars[E.S_NEXT]),
                                     lookback=3600.0, horizon=3600.0, samples=3,
                                     rng=np.random.default_rng(0))
    assert bounds[-1] > 0
    codes = [Policy(MIX[0]).codes, Policy(MIX[1]).codes, Policy(MIX[0]).codes]
    out = forecast_scores(state, table, codes, futures, bounds)
    np.testing.assert_array_equal(out[0], out[2])
    bare = forecast_scores(state, table, codes, table[:0], [0])
    assert out[0, 1] > bare[0, 1]  # busy VM-seconds of the forecast jobs


def test_sc13_rule_is_the_papers_rule_bit_for_bit():
    # selection="sc13" (the default) equals the spec's window utility driven by run_selections
    df = random_trace(7, n=80)
    run = simulate_portfolio(df, MIX, budget=3, seed=2, selection="sc13")
    assert run.log.equals(simulate_portfolio(df, MIX, budget=3, seed=2).log)
    table, frame, info, state = start_run(df, **CLOUD)
    codes = np.array([Policy(p).codes for p in MIX])
    log = run_selections(state, table, codes, TimeConstrainedSelection(len(MIX), 3, 0.6, 2), 20.0,
                         np.full(len(table), np.nan),
                         lambda planned: online_scores(state, table, codes[planned])[:, 0])
    assert log["policy"] == run.log["policy"].tolist()
    assert log["utility"] == run.log["utility"].tolist()


@pytest.mark.parametrize("rule", ["mopt", MoptRule(samples=2, hysteresis=0.05)])
def test_mopt_rule_is_deterministic_per_seed(rule):
    df = random_trace(8, n=80)
    a = simulate_portfolio(df, MIX, budget=3, seed=4, selection=rule)
    b = simulate_portfolio(df, MIX, budget=3, seed=4, selection=rule)
    assert a.log.equals(b.log) and a.summary == b.summary
    assert a.log["simulated"].max() <= 3 + 1 + 1  # Δ, one overshoot, the incumbent
    assert len(a.log) > 0


def test_shortlist_simulates_only_the_shadows_best_and_the_incumbent():
    # 400 jobs over 4 days, refresh 6 h, reflect 1 day: once the shadows have two records with
    # charged VM-hours between them, a selection simulates the 2 shortlisted policies and at most
    # the incumbent besides; before, Algorithm 1 plans Δ = 4
    rng = np.random.default_rng(11)
    n = 400
    df = pd.DataFrame({"submit_time": np.sort(rng.uniform(0, 4 * 86400, n)).round(),
                       "run_time": rng.integers(60, 7200, n), "n_procs": rng.integers(1, 9, n)})
    rule = MoptRule(shortlist=2, reflect=86400.0, refresh=6 * 3600.0)
    a = simulate_portfolio(df, MIX, budget=4, seed=4, selection=rule)
    b = simulate_portfolio(df, MIX, budget=4, seed=4, selection=rule)
    assert a.log.equals(b.log)
    assert a.log["simulated"].iloc[0] >= 4
    late = a.log[a.log["time"] >= 86400.0]
    assert len(late) > 0 and late["simulated"].max() <= 3


def test_mopt_rule_selects_only_after_an_arrival_or_a_completion():
    df = random_trace(9, n=80)
    eager = simulate_portfolio(df, MIX, budget=3, seed=1, selection=MoptRule(events_only=False))
    lazy = simulate_portfolio(df, MIX, budget=3, seed=1, selection="mopt")
    assert 0 < len(lazy.log) < len(eager.log)


@pytest.mark.parametrize(("selection", "fragment"), [
    ("foo", "'selection' must be one of sc13, mopt"),
    (MoptRule(hysteresis=-0.1), "'hysteresis'"),
    (MoptRule(samples=1.5), "'samples'"),
    (MoptRule(horizon=0), "'horizon'"),
])
def test_bad_rules_are_refused_naming_the_parameter(selection, fragment):
    df = random_trace(1, n=5)
    with pytest.raises(InputError, match=fragment):
        simulate_portfolio(df, MIX, selection=selection)


def test_selection_rule_names():
    assert selection_rule("SC13").name == "sc13" and selection_rule(" mopt ").name == "mopt"


def test_walk_forward_runs_last_months_best():
    # two months of jobs; month 1 runs the constituent with the highest U over month 0's jobs alone
    rng = np.random.default_rng(2)
    n = 120
    df = pd.DataFrame({"submit_time": np.sort(rng.uniform(0, 2 * MONTH - 1, n)).round(),
                       "run_time": rng.integers(60, 20000, n), "n_procs": rng.integers(1, 9, n)})
    run = walk_forward(df, MIX)
    months = run.months
    assert months["policy"].iloc[0] == MIX[0] and len(months) == 2
    past = df[df.submit_time < df.submit_time.min() + MONTH]  # months start at the first job
    scores = [simulate(past, p).summary["utility"] for p in MIX]
    assert months["policy"].iloc[1] == MIX[int(np.argmax(scores))]
    assert months["past_utility"].iloc[1] == max(scores)
    # a one-month walk-forward is its default policy alone
    one = walk_forward(df, MIX, month=3 * MONTH, default=MIX[2])
    assert one.summary["utility"] == simulate(df, MIX[2]).summary["utility"]
    with pytest.raises(InputError, match="'month'"):
        walk_forward(df, MIX, month=0)


def test_shadows_score_each_constituent_by_its_own_run():
    # from the first tick to past the end, a shadow's recent U is the policy's U alone; the
    # shortlist ranks by it; a shadow never runs past the clock it is asked for
    from mopt.cloud.shadows import Shadows

    df = random_trace(6)
    table, _, _, state = start_run(df, **CLOUD)
    codes = np.array([Policy(p).codes for p in MIX])
    shadows = Shadows(state, table, codes, lookback=1e9, refresh=3600.0, kappa=100, alpha=1,
                      beta=1)
    assert shadows.shortlist(state.clock, 2) is None  # one record: nothing to compare yet
    shadows.catch_up(state.clock + 1800.0)  # not due: the refresh is an hour
    assert len(shadows.records) == 1
    shadows.catch_up(state.clock + 3600.0)
    assert all(run.clock <= state.clock + 3600.0 for run in shadows.runs)
    shadows.catch_up(1e7)
    alone = [simulate(df, p).summary["utility"] for p in MIX]
    np.testing.assert_allclose(shadows.recent_utility(), alone, rtol=1e-12)
    assert shadows.shortlist(1e7, 2) == sorted(range(len(MIX)), key=lambda p: -alone[p])[:2]
