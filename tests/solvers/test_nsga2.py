"""NSGA-II with a replication budget, its operators, and StochasticProblem.repair."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mopt
from mopt import FunctionProblem, InputError, solve
from mopt.core.pareto import pareto_mask
from mopt.solvers.nsga2 import NSGA2, mutate_integer, rank_and_crowding, sbx_integer
from tests.helpers import assert_same_result

GRID = 15  # x, y in 0..14: 225 designs


def true_means(x, y):
    """Two conflicting objectives of x; any y other than 7 is worse in both by |y - 7| / 2."""
    return (x + 0.5 * abs(y - 7), (GRID - 1 - x) ** 2 / (GRID - 1) + 0.5 * abs(y - 7))


def noisy_grid(params, rng):
    f1, f2 = true_means(params["x"], params["y"])
    return (f1 + rng.normal(0.0, 0.5), f2 + rng.normal(0.0, 0.5))


@pytest.fixture(scope="module")
def grid_problem():
    designs = [{"x": x, "y": y} for x in range(GRID) for y in range(GRID)]
    return FunctionProblem(noisy_grid, designs, ["time", "cost"], n_reps=10)


@pytest.fixture(scope="module")
def ntdmr():
    from mopt.expert import NTDMrProblem, reference_environment

    # the paper grid: N ∈ {0, 1, 2, 3, ∞}, T ∈ {0, 1033, 2066, 4132, 8264},
    # D ∈ {1549.5, 2066, 3099, 4132, 8264}, M_r ∈ {0.02, 0.04, 0.06, 0.1}; vector (iN, iT, iD, iMr)
    return NTDMrProblem(reference_environment(0.1))


# -- repair ---------------------------------------------------------------------------------------
class TestRepair:
    def test_a_design_maps_to_itself(self, ntdmr):
        idx = np.arange(0, ntdmr.n_designs, 7)
        X = np.array([ntdmr.design(i) for i in idx])
        assert ntdmr.repair(X).tolist() == idx.tolist()

    def test_t_above_d_maps_to_the_lowest_nearest_neighbour(self, ntdmr):
        # (N=0, T=2066, D=1549.5, Mr=0.02) has T > D.  At L1 distance 1 two designs are valid:
        # T one step down (1033 <= 1549.5) and D one step up (2066 <= 2066); N and M_r steps keep
        # T > D.  The tie goes to the lower design index, T lowered (designs are ordered N, T, D, M_r).
        (i,) = ntdmr.repair([[0, 2, 0, 0]])
        assert ntdmr.design(i).tolist() == [0, 1, 0, 0]
        assert ntdmr.decode(ntdmr.design(i)) == {"N": 0, "T": 1033.0, "D": 1549.5, "Mr": 0.02}

    def test_n_infinity_with_a_reliable_pool_is_not_a_design(self, ntdmr):
        # N = ∞ exists only with M_r index 0.  (∞, 0, 0, 1): (∞, 0, 0, 0) and (3, 0, 0, 1) are both
        # at distance 1, N = 3 has the lower index; (∞, 0, 0, 3) is 3 away from M_r index 0 but 1
        # away from N = 3.
        with pytest.raises(InputError, match="not a design"):
            ntdmr.index([4, 0, 0, 1])
        assert ntdmr.design(ntdmr.repair([4, 0, 0, 1])[0]).tolist() == [3, 0, 0, 1]
        assert ntdmr.design(ntdmr.repair([4, 0, 0, 3])[0]).tolist() == [3, 0, 0, 3]
        assert ntdmr.design(ntdmr.repair([4, 3, 4, 0])[0]).tolist() == [4, 3, 4, 0]

    def test_matches_brute_force_nearest(self, ntdmr):
        rng = np.random.default_rng(7)
        X = rng.integers(ntdmr.xl, ntdmr.xu + 1, size=(300, 4)).astype(float)
        X[:40] += rng.uniform(-0.5, 0.5, size=(40, 4))  # real-valued vectors too
        table = np.array([ntdmr.design(i) for i in range(ntdmr.n_designs)])
        dist = np.abs(table[None] - X[:, None]).sum(axis=2)
        assert ntdmr.repair(X).tolist() == dist.argmin(axis=1).tolist()  # argmin: lowest of ties

    def test_function_problem_clips_and_rounds(self, grid_problem):
        assert grid_problem.repair([[3], [-4], [10**6], [7.4], [7.6]]).tolist() == [3, 0, 224, 7, 8]
        assert grid_problem.repair([12]).tolist() == [12]
        assert grid_problem.repair([]).tolist() == []

    @pytest.mark.parametrize("X", [[[1, 2]], [[math.nan]], "abc", [[math.inf]]])
    def test_bad_vectors(self, grid_problem, X):
        with pytest.raises(InputError, match="'X' must be a list of design vectors of 1 numbers"):
            grid_problem.repair(X)


# -- operators ------------------------------------------------------------------------------------
def test_rank_and_crowding_by_hand():
    # front 0: (1, 4), (2, 2), (4, 1); the middle point's crowding is (4-1)/3 + (4-1)/3 = 2
    # (3, 3) is dominated by (2, 2) only, (3.5, 3.5) also by (3, 3), (5, 5) by all of them
    rank, cd = rank_and_crowding([[1, 4], [2, 2], [4, 1], [3, 3], [5, 5], [3.5, 3.5]])
    assert rank.tolist() == [0, 0, 0, 1, 3, 2]
    assert cd.tolist() == [math.inf, 2.0, math.inf, math.inf, math.inf, math.inf]
    # four points on one front: inner ones get (neighbour gap / span) summed over objectives
    rank, cd = rank_and_crowding([[0, 6], [1, 3], [3, 1], [6, 0]])
    assert rank.tolist() == [0, 0, 0, 0]
    np.testing.assert_allclose(cd[1:3], [3 / 6 + 5 / 6, 5 / 6 + 3 / 6])


def test_operators_stay_integer_and_in_bounds():
    rng = np.random.default_rng(0)
    xl, xu = np.array([0, 0, 0, 0]), np.array([6, 19, 19, 9])
    P = rng.integers(xl, xu + 1, size=(500, 4))
    Q = rng.integers(xl, xu + 1, size=(500, 4))
    C = sbx_integer(P, Q, xl, xu, rng)
    assert C.shape == (1000, 4) and C.dtype.kind == "i"
    assert (C >= xl).all() and (C <= xu).all()
    assert (C != np.concatenate([P, Q])).any()  # something was crossed
    # identical parents give copies
    assert (sbx_integer(P, P, xl, xu, rng) == np.concatenate([P, P])).all()
    M = mutate_integer(C, xl, xu, rng)
    assert (M >= xl).all() and (M <= xu).all() and M.dtype.kind == "i"
    changed = (M != C).mean()
    assert 0.1 < changed < 0.3  # ≈ 1/n_var of the variables hit, a few resets land where they were
    assert (mutate_integer(C, xl, xu, rng, prob=0.0) == C).all()


# -- the method -----------------------------------------------------------------------------------
def test_default_budget_is_a_quarter_of_exhaustive(grid_problem):
    assert NSGA2()._default_budget(grid_problem) == math.ceil(0.25 * 225 * 10)
    # at least pop_size × n_reps0
    assert NSGA2(n_reps0=5)._default_budget(grid_problem) == 563
    assert NSGA2(pop_size=100, n_reps0=6)._default_budget(grid_problem) == 600


@pytest.mark.parametrize("budget", [40, 41, 200, 201, 333, 999, 2250])
def test_budget_is_spent_never_exceeded(grid_problem, budget):
    res = solve(grid_problem, "nsga2", seed=3, budget=budget, pop_size=20)
    # new designs remain to be simulated: the last generation spends what is left, up to less
    # than one offspring's replications (at most n_reps_max = 10)
    assert budget - 10 < res.n_evals <= budget
    assert res.evaluations["n_reps"].sum() == res.n_evals
    # a design already simulated is topped up, never simulated again from scratch
    assert res.evaluations["n_reps"].max() <= 10


def test_small_design_space_ends_when_everything_is_replicated():
    designs = [{"x": x, "y": 7} for x in range(6)]
    prob = FunctionProblem(noisy_grid, designs, ["time", "cost"], n_reps=4)
    res = solve(prob, "nsga2", seed=1, budget=10_000, pop_size=4, n_reps0=1)
    assert res.n_evals == 6 * 4  # every design reached n_reps_max = 4, then nothing is left to do
    assert res.evaluations["n_reps"].tolist() == [4] * 6
    assert res.info["n_reps"] == 4


def test_same_seed_same_result(grid_problem):
    a = solve(grid_problem, "nsga2", seed=21, budget=500, pop_size=16)
    b = solve(grid_problem, "nsga2", seed=21, budget=500, pop_size=16)
    assert_same_result(a, b)
    assert a.info == b.info
    c = solve(grid_problem, "nsga2", seed=22, budget=500, pop_size=16)
    assert c.evaluations["design"].tolist() != a.evaluations["design"].tolist()


def test_info_and_replication_growth(grid_problem):
    res = solve(grid_problem, "nsga2", seed=4, budget=1500, pop_size=20, n_reps0=2, n_reps_max=8)
    info = res.info
    assert info["pop_size"] == 20 and info["generations"] >= 5 and info["n_reps"] == 8
    ev = res.evaluations.set_index("design")
    selected = info["selected"]
    assert selected == sorted(selected) and all(isinstance(i, int) for i in selected)
    assert 1 <= len(selected) <= 20
    # the selected designs are mutually non-dominated on their current means
    assert pareto_mask(ev.loc[selected, ["time", "cost"]].to_numpy()).all()
    # early designs kept 2 replications, the confirmed front has 8
    assert ev["n_reps"].min() == 2 and ev["n_reps"].max() == 8
    assert (res.front["n_reps"] == 8).all()


def schaffer_means(i):
    """Schaffer's problem on designs 0..99: f1 = ((i - 40)/20)², f2 = ((i - 60)/20)²; the Pareto
    set is 40 <= i <= 60 (21 designs), every other design is dominated by its nearer end."""
    return (((i - 40) / 20) ** 2, ((i - 60) / 20) ** 2)


def noisy_schaffer(params, rng):
    f1, f2 = schaffer_means(params["i"])
    return (f1 + rng.normal(0.0, 0.05), f2 + rng.normal(0.0, 0.05))


def test_finds_most_of_the_true_front():
    prob = FunctionProblem(noisy_schaffer, [{"i": i} for i in range(100)], ["f1", "f2"], n_reps=4)
    truth = np.array([schaffer_means(i) for i in range(100)])
    true_front = set(np.flatnonzero(pareto_mask(truth)).tolist())
    assert true_front == set(range(40, 61))
    # half of exhaustive's budget (200 replications: exhaustive at that budget sees 2 per design,
    # blind pick sees 50 designs and so about half of the front)
    res = solve(prob, "nsga2", seed=0, budget=200, pop_size=10)
    assert res.n_evals <= 200
    found = set(res.front["design"].tolist())
    assert len(found & true_front) >= 15
    assert set(res.info["selected"]) <= found | set(res.evaluations["design"])
    assert len(set(res.info["selected"]) & true_front) >= 8
    # hypervolume of the answer at its true means, normalised by the true front's ideal and nadir
    F = truth[sorted(true_front)]
    ideal, nadir = F.min(axis=0), F.max(axis=0)
    ratio = mopt.hypervolume((truth[sorted(found)] - ideal) / (nadir - ideal), [1.1, 1.1])
    ratio /= mopt.hypervolume((F - ideal) / (nadir - ideal), [1.1, 1.1])
    assert ratio >= 0.95


@pytest.mark.parametrize("confirm", [True, False])
def test_replications_grow_with_the_budget_spent(grid_problem, confirm):
    # budget 400, pop 20, n_reps 2 -> 10, full at half the budget: generation 1 starts after the
    # 40 replications of the first population (r = 2 + ⌊9 · 40/200⌋ = 3), later ones with more
    res = solve(grid_problem, "nsga2", seed=5, budget=400, pop_size=20, confirm_front=confirm)
    assert 390 < res.n_evals <= 400
    counts = set(res.evaluations["n_reps"])
    assert max(counts) == 10 and len(counts) >= 2
    if confirm:  # the observed front is made of designs with n_reps_max replications
        assert (res.front["n_reps"] == 10).all()
    else:
        assert 3 in counts  # an offspring of generation 1 that did not survive


@pytest.mark.parametrize(
    "options, message",
    [
        ({"pop_size": 226}, "'pop_size' must be an integer in \\[2, 225\\]; got 226"),
        ({"pop_size": 1}, "'pop_size' must be an integer in \\[2, 225\\]; got 1"),
        ({"pop_size": 2.5}, "'pop_size' must be an integer; got 2.5"),
        ({"n_reps0": 0}, "'n_reps0' must be an integer >= 1; got 0"),
        ({"n_reps_max": 1}, "'n_reps_max' must be an integer >= 2; got 1"),
        ({"n_reps0": 4, "n_reps_max": 3}, "'n_reps_max' must be an integer >= 4; got 3"),
        ({"full_reps_at": 0}, "'full_reps_at' must be in \\(0, 1\\]; got 0"),
        ({"full_reps_at": 1.5}, "'full_reps_at' must be in \\(0, 1\\]; got 1.5"),
        ({"confirm_front": "yes"}, "'confirm_front' must be True or False; got 'yes'"),
    ],
)
def test_bad_options_are_named(grid_problem, options, message):
    with pytest.raises(InputError, match=message):
        solve(grid_problem, "nsga2", seed=1, **options)


def test_budget_below_one_population(grid_problem):
    with pytest.raises(InputError, match="'budget' must be >= 60 for method 'nsga2'"):
        solve(grid_problem, "nsga2", budget=59, pop_size=20, n_reps0=3)
