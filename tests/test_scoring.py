"""mopt.scoring: one run scored against a ground truth (PCS, regret, hypervolume ratio, type I/II
errors, alignment), on the synthetic problem of tests.known_means and on hand-made fronts."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt import FunctionProblem, InputError, Result
from mopt.scoring import hypervolume_ratio, score
from tests.known_means import DESIGNS, MEANS, PRODUCT, exact


@pytest.fixture
def prob():
    return FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=3)


def hand_result(designs, method="blind_pick", info=None, n_evals=None) -> Result:
    """A Result that evaluated ``designs`` at their exact means."""
    ev = pd.DataFrame({"design": designs, "time": MEANS[designs, 0], "cost": MEANS[designs, 1],
                       "n_reps": 3})
    return Result(method, 1, n_evals or 3 * len(designs), ("time", "cost"), ev, info or {})


# -- hypervolume_ratio -------------------------------------------------------------------------------
FRONT = [[1, 3], [2, 2], [3, 1]]  # normalised: (0, 1), (0.5, 0.5), (1, 0); HV to (1.1, 1.1) = 0.46


@pytest.mark.parametrize(
    "selected, expected",
    [
        ([[2, 2]], 0.36 / 0.46),                     # 0.6 x 0.6
        ([[1, 3]], 0.11 / 0.46),                     # 1.1 x 0.1
        ([[1, 3], [3, 1]], 0.21 / 0.46),             # 0.11 + 0.11 - 0.01 overlap
        ([[1, 3], [3, 1], [3, 3], [2.5, 2.5]], (0.21 + 0.25**2) / 0.46),  # (0.75, 0.75) adds [0.75, 1]²
        (FRONT, 1.0),
        (FRONT + [[3, 3], [2, 2]], 1.0),             # dominated and duplicate points add nothing
        ([[4, 4]], 0.0),                             # beyond the reference point (1.5, 1.5)
        ([[1, 3.3]], 0.0),                           # on the reference point: nothing
        ([[0.5, 2.5]], (1.1 + 0.25) * (1.1 - 0.75) / 0.46),  # better than the front: (-0.25, 0.75)
        (np.empty((0, 2)), 0.0),
    ],
)
def test_hypervolume_ratio_hand_computed(selected, expected):
    assert hypervolume_ratio(selected, FRONT) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_hypervolume_ratio_zero_range_counts_as_one():
    # the third objective is 7 on the whole front: its range counts as 1, so 7 -> 0 and 8 -> 1
    front = [[1, 2, 7], [2, 1, 7]]                  # normalised (0, 1, 0), (1, 0, 0): 0.21 x 1.1
    assert hypervolume_ratio([[1, 2, 7]], front) == pytest.approx(0.11 * 1.1 / (0.21 * 1.1))
    assert hypervolume_ratio([[1, 2, 8]], front) == pytest.approx(0.11 * 0.1 / (0.21 * 1.1))
    assert hypervolume_ratio([[5, 5, 5]], [[5, 5, 5]]) == 1.0  # a single point: every range is 0


def test_hypervolume_ratio_dominated_rows_of_the_true_front_are_dropped():
    assert hypervolume_ratio([[2, 2]], FRONT + [[3, 3]]) == pytest.approx(0.36 / 0.46)


@pytest.mark.parametrize(
    "selected, front, fragment",
    [
        ([[1, 2, 3]], FRONT, "'selected_F' must be shape (n, 2)"),
        ([[1, 2]], [], "'true_front_F'"),
        ([[1, 2]], [1, 2], "'true_front_F' must be a 2-d array"),
        ([[1, np.nan]], FRONT, "'selected_F' must hold finite numbers"),
        ([["a", 1]], FRONT, "'selected_F'"),
    ],
)
def test_hypervolume_ratio_bad_input(selected, front, fragment):
    with pytest.raises(InputError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        hypervolume_ratio(selected, front)


# -- score -------------------------------------------------------------------------------------------
def test_exhaustive_on_a_deterministic_problem_is_exact(prob):
    result = mopt.solve(prob, "exhaustive", seed=4)
    s = score(result, MEANS)
    assert s == {"pcs": 1.0, "regret": 0.0, "hv_ratio": 1.0, "type1": 0.0, "type2": 0.0, "n_false": 0,
                 "n_missed": 0, "n_evals": 24, "alignment": s["alignment"], "selected": 5}
    assert math.isnan(s["alignment"])


def test_a_pick_that_misses_the_best(prob):
    # designs 1 (2, 17), 3 (4, 5), 7 (7, 4): 7 is dominated in truth (by 4) but not among these
    s = score(hand_result([1, 3, 7]), MEANS)
    assert s["selected"] == 3                        # products 34, 20, 28
    assert (s["pcs"], s["regret"]) == (0.0, 20.0 - 6.0)
    assert (s["type1"], s["n_false"]) == (1.0, 1)    # design 7
    assert (s["type2"], s["n_missed"]) == (1.0, 4)   # designs 0, 2, 4, 5
    # ideal (1, 1), nadir (6, 26): design 7 normalises to (1.2, 0.12), beyond the reference point,
    # so only (2, 17) and (4, 5) count
    front = MEANS[:6]
    assert s["hv_ratio"] == pytest.approx(hypervolume_ratio(MEANS[[1, 3]], front))
    assert 0 < s["hv_ratio"] < 1


def test_a_real_blind_pick_that_misses_the_best(prob):
    for seed in range(50):
        result = mopt.solve(prob, "blind_pick", seed=seed, alpha=0.3)  # 3 of 8 designs
        picked = result.evaluations["design"].tolist()
        if 5 not in picked:
            break
    else:
        pytest.fail("every seed picked the best design")
    s = score(result, MEANS)
    assert s["pcs"] == 0.0
    assert s["regret"] == PRODUCT[picked].min() - 6.0 > 0
    assert s["selected"] == picked[int(np.argmin(PRODUCT[picked]))]
    assert s["type2"] == 1.0 and s["n_evals"] == 9


def test_ties_in_the_truth_count_as_correct():
    truth = np.vstack([MEANS, MEANS[5]])            # design 8 is a copy of the best design 5
    ev = pd.DataFrame({"design": [4, 8], "time": [5.0, 6.0], "cost": [2.0, 1.0], "n_reps": 3})
    s = score(Result("blind_pick", 1, 6, ("time", "cost"), ev), truth)
    assert (s["selected"], s["pcs"], s["regret"]) == (8, 1.0, 0.0)
    # weakly tied duplicates are both truly Pareto-optimal: 5 is missing from the observed set
    assert s["n_missed"] == 5 and s["n_false"] == 0


def test_the_utility_decides_pcs_and_regret():
    s = score(hand_result([0, 3, 5]), MEANS, utility="time")
    assert (s["selected"], s["pcs"], s["regret"]) == (0, 1.0, 0.0)
    s = score(hand_result([3, 5]), MEANS, utility=mopt.utility.weighted(time=1, cost=1))
    # time + cost: 27, 19, 13, 9, 7, 7 (designs 4 and 5 tie), ... -> 5 is truly best
    assert (s["selected"], s["pcs"], s["regret"]) == (5, 1.0, 0.0)
    s = score(hand_result([2, 3]), MEANS, utility=mopt.utility.weighted(time=1, cost=1))
    assert (s["selected"], s["pcs"], s["regret"]) == (3, 0.0, 2.0)


def test_no_design_satisfies_the_utility():
    u = mopt.utility.within_budget("cost", 1.5, then="time")   # only design 5 (cost 1) fits
    s = score(hand_result([3, 4]), MEANS, utility=u)
    assert s["selected"] is None and s["pcs"] == 0.0 and math.isnan(s["regret"])


def test_alignment_of_a_selected_set():
    # true top 3 by time x cost: 5 (6), 4 (10), 3 (20)
    s = score(hand_result([0, 4, 5], info={"selected": [5, 4, 0]}), MEANS)
    assert s["alignment"] == 2.0
    s = score(hand_result([3, 4, 5], info={"selected": [3, 4, 5]}), MEANS)
    assert s["alignment"] == 3.0


def test_truth_as_frame_result_or_array_agree():
    result = hand_result([1, 3, 7])
    frame = pd.DataFrame({"design": np.arange(8)[::-1], "time": MEANS[::-1, 0], "cost": MEANS[::-1, 1],
                          "x": 0})
    as_result = Result("exhaustive", 0, 8, ("time", "cost"), frame)
    expected = score(result, MEANS)
    assert score(result, frame) == expected
    assert score(result, as_result) == expected


@pytest.mark.parametrize(
    "truth, fragment",
    [
        (MEANS[:, :1], "'truth' as an array must have shape (n_designs, 2)"),
        ("means.csv", "'truth' must be a DataFrame"),
        (pd.DataFrame({"design": [0, 1], "time": [1.0, 2.0]}), "column 'cost' is missing"),
        (pd.DataFrame({"design": [0, 0], "time": [1.0, 2.0], "cost": 1.0}), "design 0 appears twice"),
        (pd.DataFrame({"design": [0, -1], "time": [1.0, 2.0], "cost": 1.0}), "non-negative integers"),
        (pd.DataFrame({"design": [0, 1], "time": [1.0, np.nan], "cost": 1.0}), "'time' must hold finite"),
        (MEANS[:5], "'truth' has no row for design 7"),
        (Result("x", 0, 1, ("speed",), pd.DataFrame({"design": [0], "speed": [1.0]})), "objectives"),
    ],
)
def test_bad_truth_names_truth(truth, fragment):
    with pytest.raises(InputError, match="'truth'") as info:
        score(hand_result([1, 3, 7]), truth)
    assert fragment in str(info.value)
