"""SC13 Algorithm 1 (time-constrained selection): hand traces, the paper's steady state, the budget."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mopt.cloud.selection import TimeConstrainedSelection
from mopt.core.errors import InputError

SCORES = [5.0, 1.0, 4.0, 2.0, 6.0, 3.0]


def test_first_two_calls_by_hand():
    sel = TimeConstrainedSelection(6, budget=3, ratio=0.5, seed=0)
    # Call 1: Smart = [0..5]; delta1 = 6*3 = 18 (units of 1/N), one simulation costs N = 6:
    # simulate 0 (12), 1 (6), 2 (0) -> stop; 3, 4, 5 unsimulated go to Stale; delta3 = 0, no Poor.
    # Q = [0, 1, 2] scored 5, 1, 4 -> ranked [0, 2, 1]; ceil(0.5*3) = 2 Smart.
    assert sel.select(lambda i: SCORES[i]) == 0
    assert sel.last_simulated == [0, 1, 2]
    assert (sel.smart, sel.stale, sel.poor) == ([0, 2], [3, 4, 5], [1])
    # Call 2: delta1 = 2*3 = 6, delta2 = 3*3 = 9, delta3 = 18 - 15 = 3.
    # Smart: 0 (delta1 = 0); Stale: 3 (3), 4 (-3, the overshoot); delta3 = 3 + 0 - 3 = 0, no Poor.
    # Q = [0, 3, 4] scored 5, 2, 6 -> ranked [4, 0, 3]; Smart [4, 0]; Stale [5] + unsimulated
    # Smart [2]; Poor [1] + [3].
    assert sel.select(lambda i: SCORES[i]) == 4
    assert sel.last_simulated == [0, 3, 4]
    assert (sel.smart, sel.stale, sel.poor) == ([4, 0], [5, 2], [1, 3])
    # Call 3: delta1 = delta2 = delta3 = 6: Smart 4, Stale 5, then one random Poor policy.
    sel.select(lambda i: SCORES[i])
    assert sel.last_simulated[:2] == [4, 5]
    assert len(sel.last_simulated) == 3 and sel.last_simulated[2] in (1, 3)


def test_ties_keep_simulation_order_and_nan_sorts_last():
    sel = TimeConstrainedSelection(4, budget=4, ratio=0.5, seed=0)
    # all four simulated; 1 and 2 tie at 7, 0 is NaN: ranked [1, 2, 3, 0], top ceil(2) = [1, 2]
    assert sel.select(lambda i: [math.nan, 7.0, 7.0, 1.0][i]) == 1
    assert sel.smart == [1, 2] and sel.poor == [3, 0]


def test_ratio_is_exact():
    # 0.7 * 10 = 7.000000000000001 in floating point; ceil must give 7 Smart, not 8
    sel = TimeConstrainedSelection(10, budget=10, ratio=0.7, seed=0)
    sel.select(float)
    assert len(sel.smart) == 7 and len(sel.poor) == 3


@pytest.mark.parametrize("n, k, ratio", [(60, 20, 0.6), (60, 10, 0.6), (10, 5, 0.4), (20, 5, 0.8)])
def test_steady_state_of_the_paper(n, k, ratio):
    # SC13 §4.3: |Smart| = λK, |Stale| = λ(N − K), |Poor| = (1 − λ)N (integers for these cases)
    rng = np.random.default_rng(3)
    sel = TimeConstrainedSelection(n, budget=k, ratio=ratio, seed=4)
    for _ in range(60):
        sel.select(lambda i: rng.random())
        assert len(sel.last_simulated) == k
    expected = (round(ratio * k), round(ratio * (n - k)), round((1 - ratio) * n))
    assert (len(sel.smart), len(sel.stale), len(sel.poor)) == expected


def _steady(n, budget, ratio, calls=200):
    sel = TimeConstrainedSelection(n, budget=budget, ratio=ratio, seed=0)
    for _ in range(calls):  # the list sizes never depend on the scores or the draw
        sel.select(float)
    return len(sel.smart), len(sel.stale), len(sel.poor), len(sel.last_simulated)


def test_steady_state_is_exact_when_the_per_call_quotas_are_whole():
    # The paper's derivation runs λK·K/N Smart and λ(N − K)·K/N Stale policies a call; when those
    # and λK, λ(N − K), (1 − λ)N are whole, whole simulations reach the paper's sizes exactly.
    cases = 0
    for n in range(1, 41):
        for k in range(1, n + 1):
            for ratio in (0.25, 0.5, 0.6, 0.75, 0.8, 1.0):
                sizes = (ratio * k, ratio * (n - k), (1 - ratio) * n,
                         ratio * k * k / n, ratio * (n - k) * k / n)
                if any(abs(v - round(v)) > 1e-9 for v in sizes):
                    continue
                cases += 1
                assert _steady(n, k, ratio) == (*(round(v) for v in sizes[:3]), k), (n, k, ratio)
    assert cases > 100


@pytest.mark.parametrize("n, budget, expected, paper", [
    # N = 60, Δ = 15, quotas scaled by N (a simulation costs 60). From the paper's (9, 27, 24):
    # Smart 135 runs 3 (overshoot 45), Stale 405 runs 7 (overshoot 15), Poor 360 - 60 = 300 runs 5;
    # Stale 27 - 7 + 6 = 26, Poor 24 - 5 + 6 = 25, and so on down to (9, 24, 27): Smart 3, Stale
    # 360 runs exactly 6, Poor 405 - 45 = 360 runs 6; Stale 24 - 6 + 6, Poor 27 - 6 + 6: fixed.
    (60, 15, (9, 24, 27, 15), (9, 27, 24)),
    # N = 10, Δ = 5 at (3, 2, 5): Smart 15 runs 2 (overshoot 5), Stale 10 runs 1, Poor 25 - 5 = 20
    # runs 2; Stale 2 - 1 + 1, Poor 5 - 2 + 2: fixed.
    (10, 5, (3, 2, 5, 5), (3, 3, 4)),
    # N = 60, Δ = 1: one Smart (quota 2 > 0) and one Stale (58 > 0) run, Δ + 1 = 2 a call; both
    # stay Smart (ceil(0.6·2) = 2), so Poor is empty for good.
    (60, 1, (2, 58, 0, 2), (1.2, 34.8, 24)),
])
def test_steady_state_off_the_paper_by_the_overshoot(n, budget, expected, paper):
    assert _steady(n, budget, 0.6) == expected
    assert expected[:3] != paper


def test_score_must_be_callable():
    sel = TimeConstrainedSelection(6, budget=3, seed=0)
    with pytest.raises(InputError, match=r"'score' must be a callable .*; got \[1, 2\]"):
        sel.select([1, 2])
    assert sel.select(float) == 2  # nothing was planned or drawn by the refused call


def test_the_one_overshoot_is_reached():
    # N = 4, Δ = 3, Smart = [0, 1], Stale = [2, 3]: delta1 = delta2 = 6 and a simulation costs 4:
    # two of each run (6 -> 2 -> -2), 4 = Δ + 1 simulations, and delta3 = 0 - 2 - 2 < 0.
    sel = TimeConstrainedSelection(4, budget=3, seed=0)
    sel.smart, sel.stale, sel.poor = [0, 1], [2, 3], []
    sel.select(float)
    assert sel.last_simulated == [0, 1, 2, 3]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 40), budget=st.integers(1, 50), ratio=st.floats(0.01, 1.0),
       calls=st.integers(1, 12), seed=st.integers(0, 2**32))
def test_budget_and_partition_invariants(n, budget, ratio, calls, seed):
    rng = np.random.default_rng(seed)
    sel = TimeConstrainedSelection(n, budget=budget, ratio=ratio, seed=seed)
    for _ in range(calls):
        values = rng.random(n)
        chosen = sel.select(values.__getitem__)
        sim = sel.last_simulated
        assert 1 <= len(sim) <= min(n, budget + 1)
        assert len(set(sim)) == len(sim)
        assert chosen == max(sim, key=lambda i: values[i])
        assert sorted(sel.smart + sel.stale + sel.poor) == list(range(n))
        assert len(sel.smart) == math.ceil(round(ratio * len(sim), 9))
        if budget >= n:  # everything is simulated every time
            assert len(sim) == n


def test_same_seed_same_choices_and_generator_is_used():
    def run(seed):
        rng = np.random.default_rng(0)
        sel = TimeConstrainedSelection(30, budget=7, seed=seed)
        return [(sel.select(lambda i: rng.random()), tuple(sel.last_simulated)) for _ in range(20)]

    assert run(11) == run(11)
    assert run(11) != run(12)
    gen = np.random.default_rng(5)
    before = gen.bit_generator.state
    TimeConstrainedSelection(30, budget=7, seed=gen)
    run(gen)
    assert gen.bit_generator.state != before


@pytest.mark.parametrize("kwargs, match", [
    ({"budget": 0}, "'budget' must be an integer >= 1; got 0"),
    ({"budget": 2.5}, "'budget' must be an integer"),
    ({"ratio": 0.0}, r"'ratio' must be in \(0, 1\]; got 0.0"),
    ({"ratio": 1.5}, r"'ratio' must be in \(0, 1\]; got 1.5"),
    ({"n_policies": 0}, "'n_policies' must be an integer >= 1"),
])
def test_bad_input(kwargs, match):
    args = {"n_policies": 5, "budget": 3, "ratio": 0.6, "seed": 0} | kwargs
    with pytest.raises(InputError, match=match):
        TimeConstrainedSelection(**args)


def test_plan_then_update_is_select():
    rng = np.random.default_rng(9)
    values = [rng.random(12) for _ in range(10)]
    a = TimeConstrainedSelection(12, budget=4, seed=2)
    b = TimeConstrainedSelection(12, budget=4, seed=2)
    for v in values:
        chosen = a.select(v.__getitem__)
        planned = b.plan()
        assert planned == a.last_simulated
        assert b.update({p: v[p] for p in planned}) == chosen
        assert (a.smart, a.stale, a.poor) == (b.smart, b.stale, b.poor)
    with pytest.raises(RuntimeError, match="without plan"):
        b.update({})
    b.plan()
    with pytest.raises(InputError, match="'scores' lacks the planned policies"):
        b.update({})
