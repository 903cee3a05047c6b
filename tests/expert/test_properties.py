"""Properties of the ExPERT estimator over random environments and strategies (hypothesis)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from mopt import InputError
from mopt.expert import Environment, Strategy, TurnaroundModel, estimate
from mopt.expert.environment import shifted_lognormal

MIN_SUCCESS = 1e-4  # below this P(result before D) a pool without fallback "can never finish"


@st.composite
def environments(draw):
    t_ur = draw(st.floats(100.0, 5000.0))
    # F_s with mean t_ur, starting at shift·t_ur
    shift = draw(st.floats(0.0, 0.9))
    if draw(st.booleans()):
        fs = shifted_lognormal(t_ur, shift * t_ur, draw(st.floats(0.1, 1.5)))
    else:
        fs = stats.uniform(shift * t_ur, 2 * (1 - shift) * t_ur)
    return Environment(
        n_tasks=draw(st.integers(1, 60)),
        n_unreliable=draw(st.integers(1, 20)),
        t_ur=t_ur,
        t_r=draw(st.floats(10.0, 10000.0)),
        c_ur=draw(st.floats(0.0, 1.0)),
        c_r=draw(st.floats(0.0, 1.0)),
        turnaround=TurnaroundModel.parametric(fs, draw(st.floats(0.3, 1.0))),
        mr_max=draw(st.sampled_from([0.0, 0.05, 0.1, 0.5, 1.0])),
        charging_period_r=draw(st.sampled_from([1.0, 60.0, 3600.0])),
    )


@st.composite
def cases(draw):
    env = draw(environments())
    N = draw(st.sampled_from([0, 1, 2, 3, 4, math.inf]))
    D = env.t_ur * draw(st.floats(0.1, 8.0))
    T = D * draw(st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0.0, 1.0))
    Mr = env.mr_max * draw(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(0.0, 1.0))
    return env, Strategy(N, T, D, Mr)


def never_finishes(env, s) -> bool:
    """No reliable fallback (N = inf or no reliable machine) and no unreliable result before D."""
    no_fallback = math.isinf(s.N) or env.n_reliable(s.Mr) == 0
    return no_fallback and env.p_result_before(s.D) < MIN_SUCCESS


SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(cases(), st.integers(0, 2**32))
def test_estimates_are_sane(case, seed):
    env, strategy = case
    if never_finishes(env, strategy):
        with pytest.raises(InputError, match="can never finish"):
            estimate(env, strategy, n_reps=2, seed=seed)
        return
    # keep the example cheap: without a fallback, a task needs ~1/P instances
    assume(env.p_result_before(strategy.D) > 0.01 or env.n_reliable(strategy.Mr) > 0)
    df = estimate(env, strategy, n_reps=3, seed=seed)
    assert np.isfinite(df[["makespan", "cost", "t_tail"]].to_numpy()).all()
    assert (df["makespan"] >= 0).all() and (df["cost"] >= 0).all() and (df["t_tail"] >= 0).all()
    # the tail starts when fewer than #ur tasks remain
    assert (df["n_tail_tasks"] <= min(env.n_tasks, env.n_unreliable - 1)).all()
    assert (df.loc[df["n_tail_tasks"] == 0, "makespan"] == 0).all()
    n_rel = 0 if math.isinf(strategy.N) else env.n_reliable(strategy.Mr)
    assert (df["max_reliable_busy"] <= n_rel).all()
    assert (df["max_reliable_busy"] <= df["n_reliable_instances"]).all()
    assert (df["n_reliable_instances"] <= df["n_tail_tasks"]).all()  # at most one per tail task
    # every task pays at least one result: cost >= the cheapest possible result
    cheapest = min(env.c_ur * env.turnaround.fs_table[0], env.reliable_task_cost)
    assert (df["cost"] >= cheapest * (1 - 1e-9)).all()
    # a reliable run costs exactly reliable_task_cost and is always paid; unreliable results cost >= 0
    assert (
        df["cost"] * env.n_tasks >= df["n_reliable_instances"] * env.reliable_task_cost * (1 - 1e-9)
    ).all()


@SETTINGS
@given(cases(), st.integers(0, 2**32))
def test_n_infinite_never_pays_the_reliable_pool(case, seed):
    env, strategy = case
    strategy = dataclasses.replace(strategy, N=math.inf)
    assume(not never_finishes(env, strategy))
    assume(env.p_result_before(strategy.D) > 0.01)
    df = estimate(env, strategy, n_reps=2, seed=seed)
    assert (df["n_reliable_instances"] == 0).all()
    assert (df["max_reliable_busy"] == 0).all() and (df["max_reliable_queue"] == 0).all()
    # the reliable price does not matter
    dearer = dataclasses.replace(env, c_r=10 * env.c_r + 1.0, t_r=env.t_r + 1.0)
    again = estimate(dearer, strategy, n_reps=2, seed=seed)
    assert again["cost"].tolist() == df["cost"].tolist()
    assert again["makespan"].tolist() == df["makespan"].tolist()


@SETTINGS
@given(environments(), st.integers(0, 2**32))
def test_static_strategies_run(env, seed):
    names = ["AUR", "TRR", "TR", "B", "CN_inf", "CN1T0", "AR"] if env.mr_max > 0 else ["AUR"]
    for name in names:
        df = estimate(env, name, n_reps=2, seed=seed)
        assert np.isfinite(df[["makespan", "cost"]].to_numpy()).all(), name
        assert (df["makespan"] >= 0).all() and (df["cost"] >= 0).all(), name
        if name == "TRR" and env.n_reliable(env.mr_max) >= env.n_unreliable - 1:
            # N = 0, T = 0 with a reliable machine for every tail task: each gets a reliable instance
            # at T_tail, so the tail never lasts longer than t_r
            assert (df["makespan"] <= env.t_r * (1 + 1e-9) + 1e-9 * df["t_tail"]).all()
        if name == "AR":
            n_r = env.n_reliable(env.mr_max)
            assert (df["makespan"] == math.ceil(env.n_tasks / n_r) * env.t_r).all()
            assert (df["cost"] == env.reliable_task_cost).all()
