"""mopt.expert.estimator through the public API: hand-computed replications of the ExPERT estimator.

Most cases use the near-deterministic environment of ``tests.helpers.deterministic_environment``:
12 tasks, #ur = 5 unreliable machines, γ = 1, every successful turnaround 1000 s (+ < 1e-6 s),
t_r = 1500 s, c_ur = 0.01 ¢/s, c_r = 0.1 ¢/s, D0 = 4·t_ur = 4000 s.  Its throughput phase, by hand:

    t = 0      tasks 0-4 start on the 5 unreliable machines
    t ≈ 1000   they return (5 results); tasks 5-9 start; 7 tasks remain
    t ≈ 2000   1st result of the second wave: task 10 starts (6 remain);
               2nd result: task 11 starts (5 remain);
               3rd result: 4 < #ur = 5 tasks remain  ->  T_tail ≈ 2000 s, 4 tail tasks:
               two of tasks 5-9 (their results arrive < 1e-6 s after T_tail) and
               tasks 10, 11 (sent at ≈ 2000 s, results at ≈ 3000 s).

An unreliable result costs c_ur·t ≈ 0.01·1000 = 10 ¢; a reliable run c_r·t_r = 0.1·1500 = 150 ¢.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mopt import InputError, solve
from mopt.core import utility
from mopt.expert import (
    STATIC_STRATEGIES,
    Environment,
    NTDMrProblem,
    Strategy,
    TurnaroundModel,
    estimate,
    reference_environment,
)
from tests.helpers import deterministic_environment as det_env

inf = math.inf
EPS = 1e-5  # the turnarounds' spread (1e-6 s) accumulated over a few steps

COLUMNS = [
    "rep",
    "makespan",
    "cost",
    "t_tail",
    "n_tail_tasks",
    "max_reliable_busy",
    "used_mr",
    "max_reliable_queue",
    "n_reliable_instances",
]


def mean_turnaround():
    """Mean successful turnaround of the deterministic model's table (≈ 1000.0000005 s)."""
    return det_env().turnaround.mean_success


def test_output_table():
    df = estimate(det_env(), "AUR", n_reps=4, seed=1)
    assert list(df.columns) == COLUMNS
    assert df["rep"].tolist() == [0, 1, 2, 3]
    for c in ("n_tail_tasks", "max_reliable_busy", "max_reliable_queue", "n_reliable_instances"):
        assert df[c].dtype == np.int64


class TestDeterministicTail:
    def test_t_tail_and_tail_tasks(self):
        df = estimate(det_env(), "AUR", n_reps=5, seed=1)
        assert df["t_tail"].to_numpy() == pytest.approx(2000.0, abs=EPS)
        assert (df["t_tail"] > 2000.0).all()  # two turnaround spreads above 2000
        assert (df["n_tail_tasks"] == 4).all()

    def test_aur(self):
        df = estimate(det_env(), "AUR", n_reps=5, seed=1)
        # nothing fails: tasks 10 and 11 return at ≈ 3000 s -> makespan ≈ 3000 - 2000 = 1000 s
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        # every task pays exactly one unreliable result: cost = 12 · 0.01 · 1000 / 12 = 10 ¢ per task
        assert df["cost"].to_numpy() == pytest.approx(0.01 * 1000.0, abs=1e-7)
        assert df["cost"].to_numpy() == pytest.approx(0.01 * mean_turnaround(), abs=1e-8)
        assert (df["n_reliable_instances"] == 0).all() and (df["max_reliable_busy"] == 0).all()
        assert (df["used_mr"] == 0).all()

    def test_fewer_tasks_than_machines_starts_the_tail_at_zero(self):
        # 3 tasks < #ur = 5: T_tail = 0 with all 3 tasks in the tail; they return at ≈ 1000 s
        df = estimate(det_env(n_tasks=3), "AUR", n_reps=3, seed=1)
        assert (df["t_tail"] == 0).all() and (df["n_tail_tasks"] == 3).all()
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        assert df["cost"].to_numpy() == pytest.approx(10.0, abs=1e-7)

    def test_n0_t0_enough_reliable_machines_unreliable_first(self):
        # M_r = 0.8: ⌈0.8·5⌉ = 4 reliable machines >= 4 tail tasks: each tail task gets a reliable
        # instance at T_tail (T = 0, N = 0), finishing at T_tail + 1500.  The running unreliable
        # instances finish first (≈ T_tail + 0 and ≈ T_tail + 1000): makespan ≈ 1000 s.
        # Running reliable instances are not aborted: all 4 are paid.
        # cost = (12 results · 10 ¢ + 4 · 150 ¢) / 12 = 720 / 12 = 60 ¢
        df = estimate(det_env(), Strategy(N=0, T=0, D=4000, Mr=0.8), n_reps=5, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        assert df["cost"].to_numpy() == pytest.approx(60.0, abs=1e-7)
        assert (df["n_reliable_instances"] == 4).all()
        assert (df["max_reliable_busy"] == 4).all()
        assert df["used_mr"].to_numpy() == pytest.approx(4 / 5)

    def test_n0_t0_enough_reliable_machines_reliable_first(self):
        # t_r = 500: the reliable instances of tasks 10 and 11 finish at T_tail + 500, before their
        # unreliable ones (≈ T_tail + 1000): makespan = 500 s exactly.
        # The unreliable instances still return and are paid:
        # cost = (12 · 10 ¢ + 4 · 0.1 · 500 ¢) / 12 = (120 + 200) / 12 = 26.67 ¢
        df = estimate(det_env(t_r=500), Strategy(N=0, T=0, D=4000, Mr=0.8), n_reps=5, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(500.0, abs=1e-9)
        assert df["cost"].to_numpy() == pytest.approx(320 / 12, abs=1e-7)
        assert (df["n_reliable_instances"] == 4).all()

    def test_one_reliable_machine_cancels_queued_instances(self):
        # M_r = 0.2: ⌈0.2·5⌉ = 1 reliable machine.  At T_tail the 4 tail tasks enqueue a reliable
        # instance each (task-id order, all before the allocation: queue length 4); the first
        # starts at once (runs until T_tail + 1500, paid), the other three wait.  The unreliable results (≈ T_tail, ≈ T_tail + 1000)
        # complete every task first, so the 3 queued instances are cancelled, never sent, never paid.
        # makespan ≈ 1000 s, cost = (120 + 150) / 12 = 22.5 ¢, one reliable instance
        df = estimate(det_env(), Strategy(N=0, T=0, D=4000, Mr=0.2), n_reps=5, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        assert df["cost"].to_numpy() == pytest.approx(22.5, abs=1e-7)
        assert (df["n_reliable_instances"] == 1).all()
        assert (df["max_reliable_busy"] == 1).all()
        assert (df["max_reliable_queue"] == 4).all()
        assert df["used_mr"].to_numpy() == pytest.approx(0.2)

    def test_one_reliable_machine_queueing(self):
        # t_r = 300, one reliable machine, tail tasks a < b (two of 5-9), 10, 11 queued at T_tail:
        #   a: reliable T_tail -> T_tail + 300 (a already done at ≈ T_tail; paid 30 ¢)
        #   b: done at ≈ T_tail before its turn: cancelled
        #   10: reliable T_tail + 300 -> + 600, before its unreliable result (≈ + 1000): done
        #   11: reliable T_tail + 600 -> + 900: done  -> makespan = 900 s exactly
        # paid: 12 unreliable results (10 and 11 return later but are paid) + 3 · 30 ¢
        # cost = (120 + 90) / 12 = 17.5 ¢
        df = estimate(det_env(t_r=300), Strategy(N=0, T=0, D=4000, Mr=0.2), n_reps=5, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(900.0, abs=1e-9)
        assert df["cost"].to_numpy() == pytest.approx(17.5, abs=1e-7)
        assert (df["n_reliable_instances"] == 3).all()
        assert (df["max_reliable_busy"] == 1).all()

    def test_reliable_charging_period(self):
        # as the previous test, but reliable runs charged per started hour: 3 · 0.1 · 3600 = 1080 ¢
        # cost = (120 + 1080) / 12 = 100 ¢; makespan unchanged
        env = det_env(t_r=300, charging_period_r=3600)
        df = estimate(env, Strategy(N=0, T=0, D=4000, Mr=0.2), n_reps=3, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(900.0, abs=1e-9)
        assert df["cost"].to_numpy() == pytest.approx(100.0, abs=1e-7)

    def test_n1_t0_sends_one_more_unreliable_instance_first(self):
        # N = 1, T = 0, D = 4000, M_r = 0: no reliable pool, so N is treated as infinite: the strategy
        # is exactly N = inf with the same T and D
        a = estimate(det_env(), Strategy(N=1, T=0, D=4000, Mr=0.0), n_reps=3, seed=2)
        b = estimate(det_env(), Strategy(N=inf, T=0, D=4000, Mr=0.5), n_reps=3, seed=2)
        pd.testing.assert_frame_equal(a, b)
        assert (a["n_reliable_instances"] == 0).all()

    def test_combined_pools(self):
        # CN1T0 and CN_inf with mr_max = 0.2 (one reliable machine) share the "combined" throughput:
        #   t = 0: tasks 0-4 on the unreliable machines, task 5 on the reliable one (until 1500)
        #   t ≈ 1000: tasks 6-10 start; t = 1500: task 5 returns, task 11 starts on the reliable
        #   machine (until 3000); 6 tasks remain
        #   t ≈ 2000: the 2nd result of the wave leaves 4 < 5 tasks -> T_tail ≈ 2000, 4 tail tasks
        # The 3 unreliable tail tasks return at ≈ T_tail; task 11 (reliable) at 3000: makespan ≈ 1000.
        # Paid: 10 unreliable results (tasks 0-4, 6-10) and 2 reliable runs (5, 11):
        # cost = (100 + 300) / 12 = 33.33 ¢.  CN1T0 enqueues reliable instances for the 3 unreliable
        # tail tasks (none for task 11), which stay queued behind task 11 and are cancelled.
        env = det_env(mr_max=0.2)
        for name in ("CN1T0", "CN_inf"):
            df = estimate(env, name, n_reps=3, seed=1)
            assert df["t_tail"].to_numpy() == pytest.approx(2000.0, abs=EPS), name
            assert (df["n_tail_tasks"] == 4).all(), name
            assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS), name
            assert df["cost"].to_numpy() == pytest.approx(400 / 12, abs=1e-7), name
            assert (df["n_reliable_instances"] == 0).all(), name
            assert (df["max_reliable_busy"] == 1).all(), name

    def test_budget_strategy_switches_when_the_remaining_tasks_fit(self):
        # B: budget 5 ¢/task = 60 ¢.  With c_ur = c_r = 0.001 ¢/s a result costs 1 ¢ and a reliable run
        # 1.5 ¢.  At T_tail at most 12 ¢ are paid and 4 · 1.5 = 6 <= 60 - 12: every tail task gets a
        # reliable instance at once (5 machines), finishing at T_tail + 1500, after the unreliable
        # results: makespan ≈ 1000; cost = (12 · 1 + 4 · 1.5) / 12 = 1.5 ¢
        df = estimate(det_env(c_ur=0.001, c_r=0.001), "B", n_reps=3, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        assert df["cost"].to_numpy() == pytest.approx(1.5, abs=1e-8)
        assert (df["n_reliable_instances"] == 4).all()

    def test_budget_strategy_never_switching_is_aur(self):
        # paid at T_tail: 8 results · 10 ¢ = 80 ¢ > the 60 ¢ budget: B never uses the reliable pool
        env = det_env()
        pd.testing.assert_frame_equal(
            estimate(env, "B", n_reps=3, seed=1), estimate(env, "AUR", n_reps=3, seed=1)
        )


class TestAllToReliable:
    def test_closed_form(self):
        # 13 tasks on ⌈0.5·5⌉ = 3 reliable machines: ⌈13 / 3⌉ = 5 rounds of t_r = 1500 s = 7500 s;
        # each task costs c_r·t_r = 0.1·1500 = 150 ¢
        df = estimate(det_env(n_tasks=13, mr_max=0.5), "AR", n_reps=2, seed=1)
        assert df["makespan"].tolist() == [7500.0, 7500.0]
        assert df["cost"].tolist() == [150.0, 150.0]
        assert (df["n_reliable_instances"] == 13).all() and (df["max_reliable_busy"] == 3).all()
        assert (df["t_tail"] == 0).all() and (df["n_tail_tasks"] == 13).all()

    def test_charging_period(self):
        # per started hour: ⌈1500 / 3600⌉ · 3600 = 3600 s charged: 0.1 · 3600 = 360 ¢ per task
        df = estimate(
            det_env(n_tasks=13, mr_max=0.5, charging_period_r=3600), "AR", n_reps=2, seed=1
        )
        assert df["cost"].tolist() == [360.0, 360.0]
        assert df["makespan"].tolist() == [7500.0, 7500.0]

    def test_fractional_seconds_round_up(self):
        # charging period 1 s: t_r = 1500.2 s is charged 1501 s -> 150.1 ¢; 12 tasks on 1 machine
        df = estimate(det_env(t_r=1500.2, mr_max=0.2), "AR", n_reps=1, seed=1)
        assert df["cost"].iloc[0] == pytest.approx(150.1)
        assert df["makespan"].iloc[0] == pytest.approx(12 * 1500.2)

    def test_needs_a_reliable_pool(self):
        with pytest.raises(InputError, match="'mr_max' must be > 0"):
            estimate(det_env(mr_max=0.0), "AR")


def random_environment(**overrides):
    """γ = 0.6, F_s uniform on [1000, 7000] s, D0 = 4000 s: half of the successes are too late."""
    params = dict(
        n_tasks=60,
        n_unreliable=20,
        t_ur=1000.0,
        t_r=1500.0,
        c_ur=0.01,
        c_r=0.1,
        turnaround=TurnaroundModel.parametric(stats.uniform(1000, 6000), 0.6),
        mr_max=1.0,
    )
    params.update(overrides)
    return Environment(**params)


class TestAURIdentity:
    def test_two_point_turnaround_exactly(self):
        # F_s: 1000 s or 3000 s with probability ½ each, γ = 0.6, D0 = 4000 s.  AUR never replicates,
        # so each task pays exactly one result of 1000 or 3000 s:
        # cost · n_tasks / c_ur = 1000·a + 3000·b with a + b = 12, i.e. 12000 + 2000·b, b in 0..12.
        fs = stats.rv_discrete(values=([1000, 3000], [0.5, 0.5]))
        env = random_environment(
            n_tasks=12, n_unreliable=5, turnaround=TurnaroundModel.parametric(fs, 0.6)
        )
        df = estimate(env, "AUR", n_reps=40, seed=3)
        paid = df["cost"].to_numpy() * 12 / 0.01
        b = (paid - 12000) / 2000
        assert np.allclose(b, np.round(b), atol=1e-6)
        assert (b > -1e-6).all() and (b < 12 + 1e-6).all()
        assert len(np.unique(np.round(b))) > 2  # the replications differ

    def test_statistically(self):
        # E[cost] = c_ur · E[t | t < D0] over the model's table: ≈ 0.01 · 2500 = 25 ¢
        env = random_environment()
        table = env.turnaround.fs_table
        paid = table[table < env.throughput_deadline]
        expected = env.c_ur * paid.mean()
        assert expected == pytest.approx(25.0, rel=1e-3)
        n_reps = 200
        df = estimate(env, "AUR", n_reps=n_reps, seed=3)
        se = env.c_ur * paid.std() / math.sqrt(env.n_tasks * n_reps)
        assert abs(df["cost"].mean() - expected) < 4 * se
        assert (df["n_reliable_instances"] == 0).all()


class TestStaticStrategiesByName:
    @pytest.mark.parametrize(
        "env_factory", [random_environment, lambda: reference_environment(0.1)]
    )
    def test_equal_ntdmr_strategies(self, env_factory):
        env = env_factory()
        d0 = 4 * env.t_ur
        equal = {
            "TRR": Strategy(0, 0, d0, env.mr_max),
            "TR": Strategy(0, d0, d0, env.mr_max),
            "AUR": Strategy(inf, d0, d0, 0.0),
        }
        for name, strategy in equal.items():
            by_name = estimate(env, name, n_reps=6, seed=7)
            pd.testing.assert_frame_equal(
                by_name, estimate(env, strategy, n_reps=6, seed=7), check_exact=True
            )
            pd.testing.assert_frame_equal(
                by_name, estimate(env, STATIC_STRATEGIES[name], n_reps=6, seed=7), check_exact=True
            )
        aur = estimate(env, "AUR", n_reps=6, seed=7)
        for mr in (0.0, 0.02, env.mr_max):
            pd.testing.assert_frame_equal(
                aur, estimate(env, Strategy(inf, d0, d0, mr), n_reps=6, seed=7), check_exact=True
            )

    def test_common_random_numbers_and_seeds(self):
        env = random_environment()
        a = estimate(env, "TR", n_reps=4, seed=1)
        pd.testing.assert_frame_equal(a, estimate(env, "TR", n_reps=4, seed=1))
        # the throughput phase is shared by every strategy of a replication
        assert a["t_tail"].tolist() == estimate(env, "AUR", n_reps=4, seed=1)["t_tail"].tolist()
        assert a["t_tail"].tolist() != estimate(env, "TR", n_reps=4, seed=2)["t_tail"].tolist()
        # replication r does not depend on how many replications are asked for
        pd.testing.assert_frame_equal(estimate(env, "TR", n_reps=2, seed=1), a.iloc[:2])
        rng = np.random.default_rng(5)
        assert not estimate(env, "TR", n_reps=4, seed=rng).equals(
            estimate(env, "TR", n_reps=4, seed=rng)
        )


@pytest.mark.slow
def test_reference_scenario_frontier():
    # F_s of the reference scenario is a stand-in (shifted lognormal) for the paper's Fig. 5 CDF.
    env = reference_environment(0.1)
    prob = NTDMrProblem(env)
    assert prob.n_designs == 289 and prob.n_excluded == 0
    res = solve(prob, "exhaustive", seed=1)
    assert res.n_evals == 2890
    front = res.front
    m, c = front["makespan"].to_numpy(), front["cost"].to_numpy()
    static = {}
    for name in STATIC_STRATEGIES:
        df = estimate(env, name, n_reps=10, seed=1)  # the same replications (common random numbers)
        static[name] = (df["makespan"].mean(), df["cost"].mean())
        if name == "AUR":
            continue
        sm, sc = static[name]
        assert np.any((m <= sm) & (c <= sc) & ((m < sm) | (c < sc))), f"{name} is not dominated"
    # TRR, TR and AUR are grid points: their estimates are rows of the evaluations
    ev = res.evaluations.set_index(["N", "T", "D", "Mr"])
    assert ev.loc[(0, 0.0, 8264.0, 0.1), "cost"] == pytest.approx(static["TRR"][1], rel=1e-12)
    assert ev.loc[(inf, 8264.0, 8264.0, 0.0), "makespan"] == pytest.approx(
        static["AUR"][0], rel=1e-12
    )
    best = res.best(utility.product("makespan", "cost"))
    cn_makespan, cn_cost = static["CN_inf"]
    assert best["cost"] <= 0.5 * cn_cost
    assert best["makespan"] < cn_makespan


class TestBadInput:
    @pytest.mark.parametrize("name", ["t_ur", "t_r", "c_ur", "c_r"])
    @pytest.mark.parametrize("value", [-1.0, math.nan])
    def test_environment_times_and_costs(self, name, value):
        with pytest.raises(InputError, match=f"'{name}' must be in"):
            det_env(**{name: value})

    @pytest.mark.parametrize("name", ["t_ur", "t_r"])
    def test_environment_zero_times(self, name):
        with pytest.raises(InputError, match=f"'{name}'"):
            det_env(**{name: 0.0})

    def test_fewer_than_one_unreliable_machine(self):
        with pytest.raises(InputError, match="'n_unreliable' must be an integer >= 1; got 0"):
            det_env(n_unreliable=0)

    @pytest.mark.parametrize(
        "name, value",
        [("n_tasks", 0), ("n_tasks", 2.5), ("mr_max", -0.1), ("charging_period_r", 0.0)],
    )
    def test_other_environment_parameters(self, name, value):
        with pytest.raises(InputError, match=f"'{name}'"):
            det_env(**{name: value})

    def test_turnaround_must_be_a_model(self):
        with pytest.raises(TypeError, match="'turnaround'"):
            det_env(turnaround=stats.uniform(1000, 1))

    def test_unreliable_pool_that_can_never_finish(self):
        with pytest.raises(InputError, match="can never finish the bag"):
            det_env(turnaround=TurnaroundModel.parametric(stats.uniform(5000, 10), 1.0))

    @pytest.mark.parametrize("N", [-1, 1.5, math.nan, 2**70, 1e20, 1_000_001, np.float32(0.5)])
    def test_N(self, N):
        with pytest.raises(InputError, match=r"'N' must be an integer in \[0, 1000000\] or math.inf; got "):
            Strategy(N, 0, 100, 0.1)

    @pytest.mark.parametrize("N", ["2", True, None])
    def test_N_not_a_number(self, N):
        with pytest.raises(TypeError, match="'N' must be an integer >= 0 or math.inf"):
            Strategy(N, 0, 100, 0.1)

    @pytest.mark.parametrize("N", [1_000_000, 1e6, np.int64(2), np.float64(3.0), np.float32(math.inf)])
    def test_N_numpy_scalars_and_the_bound(self, N):
        assert Strategy(N, 0, 100, 0.1).N == (math.inf if math.isinf(N) else int(N))

    def test_N_minus_infinity(self):
        with pytest.raises(InputError, match="'N'"):
            Strategy(-math.inf, 0, 100, 0.1)

    def test_T_above_D(self):
        with pytest.raises(InputError, match=r"'T' must be in \[0, D=100\]; got 200"):
            Strategy(1, 200, 100, 0.1)

    def test_T_negative_and_D_zero(self):
        with pytest.raises(InputError, match="'T'"):
            Strategy(1, -1, 100, 0.1)
        with pytest.raises(InputError, match="'D'"):
            Strategy(1, 0, 0, 0.1)

    def test_Mr_negative(self):
        with pytest.raises(InputError, match="'Mr' must be in"):
            Strategy(1, 0, 100, -0.1)

    def test_Mr_above_mr_max(self):
        with pytest.raises(InputError, match=r"'Mr' must be in \[0, mr_max=0.5\]; got 0.9"):
            estimate(det_env(mr_max=0.5), Strategy(1, 0, 4000, 0.9))

    def test_unknown_strategy_and_n_reps(self):
        with pytest.raises(InputError, match="'strategy' must be a Strategy or one of"):
            estimate(det_env(), "ALL")
        with pytest.raises(TypeError, match="'strategy'"):
            estimate(det_env(), 3)
        with pytest.raises(InputError, match="'n_reps'"):
            estimate(det_env(), "AUR", n_reps=0)
        with pytest.raises(TypeError, match="'env'"):
            estimate(None, "AUR")

    def test_empty_turnaround_sample(self):
        with pytest.raises(InputError, match="'send_times' must not be empty"):
            TurnaroundModel.from_instances([], [], 100)

    @pytest.mark.parametrize("bad", [-1.0, math.nan])
    def test_malformed_turnaround_sample(self, bad):
        with pytest.raises(
            InputError, match="'turnaround_times' must hold non-negative numbers.*position 1"
        ):
            TurnaroundModel.from_instances([0, 1], [10, bad], 100)

    @pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
    def test_malformed_send_times(self, bad):
        with pytest.raises(InputError, match="'send_times' must hold finite non-negative numbers"):
            TurnaroundModel.from_instances([0, bad], [10, 10], 100)

    def test_mismatched_sample_lengths(self):
        with pytest.raises(InputError, match="same length"):
            TurnaroundModel.from_instances([0, 1], [10], 100)

    @pytest.mark.parametrize("strategy", [Strategy(inf, 0, 500, 0.1), Strategy(3, 0, 500, 0.0)])
    def test_strategy_that_can_never_finish(self, strategy):
        # every turnaround is >= 1000 s > D = 500 s and there is no reliable pool to fall back on
        # (N = inf, or M_r = 0)
        with pytest.raises(InputError, match=r"strategy N=\S+ T=0 D=500 Mr=\S+ can never finish"):
            estimate(det_env(), strategy)

    def test_a_short_deadline_with_a_reliable_fallback_finishes(self):
        # N = 1, T = 0, D = 500, M_r = 0.8 (4 reliable machines): every tail unreliable instance fails
        # (turnaround 1000 > D), and as soon as one is sent its timer (T = 0) enqueues the task's
        # reliable instance.  At T_tail one unreliable machine is idle: the first tail task a gets its
        # unreliable instance, then its reliable one, at T_tail; b, 10, 11 queue for unreliable
        # machines, freed by a's and b's throughput results (< 1e-6 s after T_tail).  If a's result
        # comes first, b is still running and gets a reliable instance too; if b's comes first, its
        # queued entry is cancelled.  Tasks 10, 11 always get one (11 only at T_tail + 500, when a's
        # tail instance fails) but finish first on their throughput instances at ≈ T_tail + 1000.
        # So makespan ≈ 1000 s, 3 or 4 reliable instances, all paid, and no tail instance paid:
        # cost = (12 · 10 + n_reliable · 150) / 12 ∈ {47.5, 60} ¢
        df = estimate(det_env(), Strategy(1, 0, 500, 0.8), n_reps=12, seed=1)
        assert df["makespan"].to_numpy() == pytest.approx(1000.0, abs=EPS)
        assert set(df["n_reliable_instances"]) == {3, 4}
        expected = (120 + 150 * df["n_reliable_instances"].to_numpy()) / 12
        assert df["cost"].to_numpy() == pytest.approx(expected, abs=1e-7)
        assert (df["max_reliable_busy"] == df["n_reliable_instances"]).all()

    def test_grid_leaves_out_strategies_that_can_never_finish(self):
        # N ∈ {0, inf}, T = 0, D ∈ {500, 4000}, M_r ∈ {0, 0.1}:
        #   N = 0:   (D=500, Mr=0) never finishes (no reliable pool); (500, 0.1), (4000, 0), (4000, 0.1) ok
        #   N = inf: one M_r only; D = 500 never finishes, D = 4000 ok
        prob = NTDMrProblem(det_env(), N=[0, inf], T=[0], D=[500, 4000], Mr=[0, 0.1])
        assert prob.n_excluded == 2
        assert prob.n_designs == 4
        kept = [prob.decode(prob.design(i)) for i in range(prob.n_designs)]
        assert kept == [
            {"N": 0, "T": 0.0, "D": 500.0, "Mr": 0.1},
            {"N": 0, "T": 0.0, "D": 4000.0, "Mr": 0.0},
            {"N": 0, "T": 0.0, "D": 4000.0, "Mr": 0.1},
            {"N": inf, "T": 0.0, "D": 4000.0, "Mr": 0.0},
        ]
        res = solve(prob, "exhaustive", seed=1, n_reps=2)
        assert np.isfinite(res.evaluations[["makespan", "cost"]].to_numpy()).all()

    @pytest.mark.parametrize(
        "key, values, match",
        [
            ("Mr", [0.1, 0.5], r"'Mr' must be in \[0, mr_max=0.2\]; got 0.5"),
            ("Mr", [-0.1], r"'Mr' must be in \[0, mr_max=0.2\]; got -0.1"),
            ("D", [0.0, 4000], r"'D' must be in \(0, inf\); got 0"),
            ("T", [-1.0], r"'T' must be in \[0, inf\); got -1"),
            ("N", [1.5], r"'N' must be an integer in \[0, 1000000\] or math.inf; got 1.5"),
            ("N", [2**70], r"'N' must be an integer in \[0, 1000000\] or math.inf; got 1180591620717411303424"),
            ("N", [], r"'N' must list at least one value"),
        ],
    )
    def test_grid_values(self, key, values, match):
        with pytest.raises(InputError, match=match):
            NTDMrProblem(det_env(mr_max=0.2), **{key: values})

    def test_grid_with_nothing_left(self):
        with pytest.raises(InputError, match="no design with T <= D that can finish"):
            NTDMrProblem(det_env(), N=[inf], T=[0], D=[500], Mr=[0.1])


@pytest.mark.parametrize("name", ["TRR", "TR", "B", "CN_inf", "CN1T0", "AR"])
def test_static_strategies_that_need_a_reliable_pool_refuse_mr_max_zero(name):
    env = reference_environment(0.1)
    no_pool = Environment(
        n_tasks=env.n_tasks, n_unreliable=env.n_unreliable, t_ur=env.t_ur, t_r=env.t_r,
        c_ur=env.c_ur, c_r=env.c_r, turnaround=env.turnaround, mr_max=0.0,
    )
    with pytest.raises(ValueError, match="mr_max"):
        estimate(no_pool, name, n_reps=2, seed=1)
    assert len(estimate(no_pool, "AUR", n_reps=2, seed=1)) == 2
