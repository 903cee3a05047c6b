"""Ordinal optimisation: horse-race selection, budget plan and goal softening."""

from __future__ import annotations

import numpy as np
import pytest

import mopt
from mopt import InputError, NormalProblem
from mopt.solvers.oo import good_enough_set, rough_order


def test_rough_order_by_layers_then_crowding():
    F = np.array([[0, 4], [4, 0], [2, 2], [1, 3], [5, 5], [3, 3.5]])
    # layer 1 = {0, 1, 2, 3}: the extremes 0 and 1 (infinite crowding) first, then the larger
    # crowding distance: 2 ((4-1)/4 + (3-0)/4 = 1.5) before 3 ((2-0)/4 + (4-2)/4 = 1); layer 2 = {5}
    assert rough_order(F).tolist() == [0, 1, 2, 3, 5, 4]
    # by a score: ties keep position order
    assert rough_order(F, [3, 1, 1, 0, 9, 2]).tolist() == [3, 1, 2, 5, 0, 4]


def test_good_enough_set_takes_whole_layers():
    F = np.array([[0, 4], [4, 0], [5, 5], [4, 4.5]])  # layers {0, 1}, {3}, {2}
    assert good_enough_set(F, 1).tolist() == [0, 1]
    assert good_enough_set(F, 3).tolist() == [0, 1, 3]
    assert good_enough_set(F[:, :1], 2).tolist() == [0, 1]  # tie 1 / 3 -> lower index


def test_horse_race_on_known_means():
    # without noise the rough order is the true order: the s selected are the true top s
    prob = NormalProblem(np.arange(10.0)[::-1], sd=0.0, n_reps=6)
    res = mopt.solve(prob, "oo", seed=1, s=3, n_rough=1, truth=prob.means, g=3)
    assert res.info["selected"] == [7, 8, 9]
    assert res.info["alignment"] == 3
    ev = res.evaluations.set_index("design")["n_reps"]
    assert res.n_evals == 10 * 1 + 3 * 5 == ev.sum()
    assert ev[[7, 8, 9]].tolist() == [6, 6, 6] and (ev.drop([7, 8, 9]) == 1).all()


def test_goal_softening_under_noise():
    # heavy noise: the selected set still overlaps the true top-g more often than a blind pick would
    prob = NormalProblem(np.linspace(0, 10, 100), sd=3.0)
    aligned = [mopt.solve(prob, "oo", seed=k, s=10, n_rough=2, n_accurate=2, truth=prob.means, g=10)
               .info["alignment"] for k in range(30)]
    # a blind pick of 10 out of 100 holds on average 1 of the true top 10
    assert np.mean(aligned) > 3


def test_budget_plan():
    prob = NormalProblem(np.arange(20.0), n_reps=10)
    # s not given: rough model on at most half the budget (20 designs × 2 = 40), the rest for s
    res = mopt.solve(prob, "oo", seed=1, budget=100)
    assert res.info["u"] == 20 and res.info["s"] == 7 and res.n_evals == 40 + 7 * 8
    # s given, budget too small for the whole rough model: a sample of u designs
    res = mopt.solve(prob, "oo", seed=1, budget=40, s=2)
    assert res.info["u"] == 12 and res.n_evals == 12 * 2 + 2 * 8
    assert len(res.evaluations) == 12
    # no budget: all designs rough, 5 % of them (1) accurate
    res = mopt.solve(prob, "oo", seed=1)
    assert res.info["u"] == 20 and res.info["s"] == 1 and res.n_evals == 48


def test_several_objectives_select_by_nondominated_rank():
    means = np.array([[0, 4], [4, 0], [2, 2], [5, 5], [6, 6], [7, 7]])
    prob = NormalProblem(means, sd=0.0)
    assert mopt.solve(prob, "oo", seed=1, s=3, n_rough=1).info["selected"] == [0, 1, 2]
    # with a utility: by its score
    res = mopt.solve(prob, "oo", seed=1, s=2, n_rough=1, utility=mopt.utility.weighted(f1=1, f2=0))
    assert res.info["selected"] == [0, 2]


@pytest.mark.parametrize("options, name", [
    ({"s": 11}, "'s' must be <= n_designs=10"),
    ({"s": 6, "alpha": 0.5}, "'s' must be <= alpha·n_designs=5"),
    ({"n_rough": 0}, "'n_rough'"),
    ({"n_rough": 5, "n_accurate": 3}, "'n_accurate'"),
    ({"alpha": 0}, "'alpha'"),
    ({"truth": np.zeros((3, 1))}, "'truth'"),
    ({"g": 0}, "'g'"),
])
def test_bad_options(options, name):
    with pytest.raises(InputError, match=name):
        mopt.solve(NormalProblem(np.arange(10.0)), "oo", **options)
