"""The screen method (breadth, then elimination on common replications) and method="auto"."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mopt
from mopt import FunctionProblem, InputError, NormalProblem
from mopt.core.pareto import pareto_mask
from mopt.solvers.auto import choose
from mopt.solvers.screen import dominance_margins, layers, pooled_variances


def grid_problem(n=20, sd=0.05, n_reps=5):
    """An n x n grid of designs (a, b) with means (a, (n-1-a)² / n + b / n): the front is b = 0."""
    designs = [{"a": a, "b": b} for a in range(n) for b in range(n)]

    def sim(p, rng):
        return (p["a"] / n + rng.normal(0, sd), ((n - 1 - p["a"]) ** 2 + p["b"]) / n**2 + rng.normal(0, sd))

    return FunctionProblem(sim, designs, ["f1", "f2"], n_reps=n_reps)


def test_pooled_variances_by_hand():
    means = np.array([[2.0], [4.0], [1.0]])
    var = np.array([[0.4], [np.nan], [0.1]])
    counts = np.array([3, 1, 2])
    # relative variances 0.4/4 = 0.1 (weight 2) and 0.1/1 = 0.1 (weight 1): pooled 0.1 · x̄²
    v = pooled_variances(means, var, counts, prior=0)
    np.testing.assert_allclose(v[:, 0], [0.4, 1.6, 0.1])
    # with a prior of 4 replications: ((n-1) s² + 4 · pooled) / (n - 1 + 4)
    v = pooled_variances(means, var, counts, prior=4)
    np.testing.assert_allclose(v[:, 0], [(2 * 0.4 + 4 * 0.4) / 6, 1.6, (0.1 + 4 * 0.1) / 5])
    # an objective with a value <= 0, or spanning more than a factor 100, pools absolute variances:
    # (2·0.4 + 1·0.1) / 3 = 0.3
    np.testing.assert_allclose(pooled_variances(means - 1.5, var, counts, prior=0)[1, 0], 0.3)
    np.testing.assert_allclose(pooled_variances(means * [[1], [1], [0.001]], var, counts, prior=0)[1, 0], 0.3)
    assert not pooled_variances(means, var, np.ones(3, dtype=int), prior=4).any()  # nothing to pool


def test_dominance_margins_by_hand():
    M = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 3.0], [0.5, 0.5]])
    V = np.ones_like(M)
    n = np.array([2, 2, 2, 2])
    front = pareto_mask(M)
    assert front.tolist() == [True, True, False, True]
    m = dominance_margins(M, V, n, front)
    # design 2 = (2, 3) is dominated by all three, by design 0 most surely: its smallest lead is
    # min(2 - 0, 3 - 1) = 2 standard errors (sqrt(1/2 + 1/2) = 1); design 1's is 1, design 3's 1.5
    assert m[2] == pytest.approx(2.0)
    assert (m[front] <= 0).all()
    assert [len(layer) for layer in layers(M)] == [3, 1]


def test_every_design_once_when_the_budget_allows_then_elimination():
    prob = grid_problem(10, sd=0.002)  # b's steps (0.01 in f2) are 5 noise sd apart
    res = mopt.solve(prob, "screen", budget=400, seed=1)
    ev = res.evaluations
    # 100 looks, then elimination in whole rounds: what does not make a round is not spent
    assert len(ev) == prob.n_designs and 380 <= res.n_evals <= 400
    assert res.info["looks"] == 100 and res.info["depth"] == res.n_evals - 100
    # the replications went to the true front (b = 0) and its neighbours, not to the far designs
    near = ev["b"] <= 1
    assert ev.loc[near, "n_reps"].mean() > 3 * ev.loc[~near, "n_reps"].mean()
    assert set(res.front["b"]) <= {0, 1}


def test_below_one_replication_per_design_it_looks_once_at_as_many_as_it_can():
    prob = grid_problem(20)  # 400 designs
    res = mopt.solve(prob, "screen", budget=100, seed=2)
    assert res.n_evals == 100
    assert res.info["looks"] >= math.ceil(0.8 * 100) and res.info["looks"] + res.info["depth"] == 100
    assert res.info["space_filling"] == 40 and res.info["guided"] == res.info["looks"] - 40


def test_the_space_filling_looks_are_a_latin_hypercube():
    # the first 40 looks on 1000^4 designs: in each parameter, one point in each of 40 strata of 25
    from mopt.solvers.base import SearchState
    from tests.solvers.test_huge_spaces import GridProblem

    prob = GridProblem()
    solver = mopt.METHODS["screen"](breadth=1.0, guided=0.2)
    solver.check_budget(prob, 50)
    first = solver._ask(SearchState(prob, 50, np.random.default_rng(0)))[0][0]
    assert len(first) == 40
    X = np.array([prob.design(int(i)) for i in first])
    for j in range(X.shape[1]):
        assert sorted((X[:, j] // 25).tolist()) == list(range(40))


def test_guided_looks_are_next_to_the_front():
    prob = grid_problem(20, sd=0.0)  # no noise: the observed front is the true one
    res = mopt.solve(prob, "screen", budget=200, seed=4, breadth=1.0)
    ev = res.evaluations
    # 100 space-filling looks, 100 guided ones (a FunctionProblem's design vector is its index, so
    # a neighbour is b ± 1): they cluster at small b, next to the front b = 0
    assert res.info["guided"] == 100
    assert (ev["b"] <= 2).sum() >= 50  # a uniform sample: 30 expected, sd 5


def test_a_utility_keeps_its_best_competitors_in_play():
    means = np.array([[1.0, 9.0], [1.05, 8.9], [5.0, 1.0], [9.0, 0.5], [3.0, 4.0], [6.0, 6.0]])
    prob = NormalProblem(means, sd=0.5, objectives=["time", "cost"], n_reps=10)
    res = mopt.solve(prob, "screen", budget=120, seed=5, utility="time")
    ev = res.evaluations.set_index("design")
    assert ev.loc[[0, 1], "n_reps"].min() > ev.loc[5, "n_reps"]  # the two best on time share the budget


def test_same_seed_same_result_and_huge_spaces_cost_what_the_budget_costs():
    prob = grid_problem(20)
    a = mopt.solve(prob, "screen", budget=150, seed=9)
    b = mopt.solve(prob, "screen", budget=150, seed=9)
    assert a.evaluations.equals(b.evaluations)


def test_bad_options_are_named():
    prob = grid_problem(5)
    for options, name in (({"breadth": 0}, "breadth"), ({"guided": 1.0}, "guided"), ({"z": -1}, "z"),
                          ({"prior": -2}, "prior"), ({"utility": "nope"}, "utility")):
        with pytest.raises(InputError, match=f"'{name}'"):
            mopt.solve(prob, "screen", budget=20, seed=1, **options)
    with pytest.raises(InputError, match="'budget' must be >= 1"):
        mopt.METHODS["screen"]().check_budget(prob, 0)


# -- method="auto" ---------------------------------------------------------------------------------
def test_auto_says_what_it_chose_and_why():
    prob = grid_problem(10)
    res = mopt.solve(prob, "auto", budget=50, seed=1)
    assert res.method == "auto"
    assert res.info["auto"]["method"] == "screen" and "0.5 replications per design" in res.info["auto"]["why"]
    single = NormalProblem(np.arange(20.0), sd=1.0, n_reps=10)
    res = mopt.solve(single, "auto", budget=100, seed=1)
    assert res.info["auto"]["method"] == "ocba" and res.info["auto"]["options"] == {"n0": 2}
    assert res.info["n0"] == 2  # the chosen method's own info is kept
    assert mopt.solve(single, "auto", budget=30, seed=1).info["auto"]["method"] == "screen"


@pytest.mark.parametrize("n_designs, n_obj, budget, method", [
    (289, 2, 14, "screen"), (289, 2, 1445, "screen"), (5 * 10**9, 2, 2000, "screen"),
    (100, 1, 150, "screen"), (100, 1, 200, "ocba"), (100, 1, None, "ocba"), (5 * 10**9, 1, 10**6, "screen"),
    (84, 3, 21, "screen"), (84, 3, 105, "mocba"), (84, 3, 210, "ocba"), (84, 3, None, "ocba"),
])
def test_the_rule(n_designs, n_obj, budget, method):
    assert choose(n_designs, n_obj, budget)[0] == method


# -- every family ------------------------------------------------------------------------------------
def _family_problems():
    from mopt.scenario import load_scenario
    from tests.helpers import EXAMPLES

    yield "expert", lambda: load_scenario(EXAMPLES / "reference.toml").problem()
    yield "vmc", lambda: load_scenario(EXAMPLES / "vmc_partition.toml").problem()
    yield "koala", lambda: load_scenario(EXAMPLES / "koala_tags_sets.toml").problem()

    def cloud():
        from mopt.cloud.portfolio_problem import PortfolioProblem
        from tests.cloud.test_portfolio_problem import jobs_table

        return PortfolioProblem(jobs_table(), window=12, n_reps=2, seed=3)

    yield "cloud", cloud


@pytest.mark.parametrize("family, make", list(_family_problems()), ids=[f for f, _ in _family_problems()])
@pytest.mark.parametrize("method", ["screen", "auto"])
def test_every_family(family, make, method):
    try:
        prob = make()
    except Exception as exc:  # a trace this machine does not have
        if "MOPT_DATA_DIR" in str(exc):
            pytest.skip(str(exc))
        raise
    budget = min(40, 2 * prob.n_designs + 3)
    a = mopt.solve(prob, method, budget=budget, seed=4, uncertainty=False)
    b = mopt.solve(prob, method, budget=budget, seed=4, uncertainty=False)
    assert a.evaluations.equals(b.evaluations) and a.n_evals == b.n_evals <= budget
    assert a.evaluations["design"].is_unique and len(a.front) >= 1
    if method == "auto" and a.info["auto"]["method"] != "screen":  # e.g. KOALA-C's 4 designs: OCBA
        assert a.info["auto"]["method"] == "ocba" and prob.n_obj == 3 and budget >= 2 * prob.n_designs
        return
    assert a.info["looks"] == len(a.evaluations) >= min(prob.n_designs, math.ceil(0.8 * budget) // 2)
