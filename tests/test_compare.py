"""mopt.compare: scoring against a ground truth, and comparing methods under equal budgets."""

from __future__ import annotations

import doctest
import importlib
import math

import numpy as np
import pandas as pd
import pytest
from conftest import noisy_quadratic

import mopt
from mopt import FunctionProblem, InputError, Result
from mopt.compare import (
    COLUMNS,
    TOO_SMALL,
    compare,
    ground_truth,
    hypervolume_ratio,
    resolve_budgets,
    score,
    summary,
)
from mopt.plot import plot_progress


# -- a synthetic problem with known means -----------------------------------------------------------
def exact(params, rng):
    """Deterministic: time = x + 1 + penalty, cost = (5 - x)² + 1 + penalty (rng unused)."""
    x, penalty = params["x"], params["penalty"]
    return (x + 1 + penalty, (5 - x) ** 2 + 1 + penalty)


def exploding(params, rng):
    raise AssertionError("simulated before the parameters were checked")


#: designs 0-5 (x = 0..5) are all Pareto-optimal; 6 (x=1, +3) and 7 (x=4, +2) are dominated
DESIGNS = [{"x": x, "penalty": 0} for x in range(6)] + [{"x": 1, "penalty": 3}, {"x": 4, "penalty": 2}]
#: the known means, row i = design i
MEANS = np.array([exact(d, None) for d in DESIGNS], dtype=float)
#: time × cost of each design: 26, 34, 30, 20, 10, 6, 100, 28 — design 5 is best (6)
PRODUCT = MEANS.prod(axis=1)


@pytest.fixture
def prob():
    return FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=3)


def hand_result(designs, method="blind_pick", info=None, n_evals=None) -> Result:
    """A Result that evaluated ``designs`` at their exact means."""
    ev = pd.DataFrame({"design": designs, "time": MEANS[designs, 0], "cost": MEANS[designs, 1],
                       "n_reps": 3})
    return Result(method, 1, n_evals or 3 * len(designs), ("time", "cost"), ev, info or {})


def test_the_synthetic_problem_is_as_described():
    np.testing.assert_array_equal(PRODUCT, [26, 34, 30, 20, 10, 6, 100, 28])
    assert mopt.pareto_mask(MEANS).tolist() == [True] * 6 + [False] * 2


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


# -- ground truth ------------------------------------------------------------------------------------
def test_ground_truth_of_a_deterministic_problem(prob):
    truth = ground_truth(prob)
    assert truth["n_reps"].tolist() == [100] * 8          # max(100, 10 x 3)
    np.testing.assert_array_equal(truth[["time", "cost"]].to_numpy(), MEANS)
    assert truth.attrs == {"n_reps": 100, "seed": 0}
    assert ground_truth(prob, n_reps=2, seed=5)["n_reps"].tolist() == [2] * 8


# -- compare -----------------------------------------------------------------------------------------
def test_compare_rows_columns_and_exact_scores(prob):
    df = compare(prob, ["exhaustive", "blind_pick"], ["100%", 8, "25%"], 3, seed=7, truth=MEANS,
                 options={"blind_pick": {"alpha": 0.5}})
    assert list(df.columns) == list(COLUMNS)
    assert len(df) == 2 * 3 * 3
    assert df["budget"].unique().tolist() == [6, 8, 24]    # 25% of 8 x 3 = 6; ascending
    assert df["method"].tolist() == ["exhaustive"] * 9 + ["blind_pick"] * 9
    assert df["macrorep"].tolist() == [0, 1, 2] * 6
    ex = df[df["method"] == "exhaustive"]
    # budget 6 < 8 designs: exhaustive cannot run; never silently skipped
    small = ex[ex["budget"] == 6]
    assert (small["status"] == TOO_SMALL).all() and small[["pcs", "regret", "hv_ratio"]].isna().all().all()
    assert (small["n_evals"] == 0).all() and small["selected"].isna().all()
    full = ex[ex["budget"] == 24]
    assert (full["status"] == "ok").all()
    assert full[["pcs", "hv_ratio"]].eq(1.0).all().all() and full[["regret", "type1", "type2"]].eq(0).all().all()
    assert full["n_evals"].tolist() == [24] * 3 and full["selected"].tolist() == [5] * 3
    assert ex[ex["budget"] == 8]["n_evals"].tolist() == [8] * 3  # one replication each
    bp = df[df["method"] == "blind_pick"]
    assert (bp["status"] == "ok").all()
    # a budget buys budget // 3 designs (3 reps each), whatever alpha says: 2, 2, then all 8
    assert bp["n_evals"].tolist() == [6] * 6 + [24] * 3


def test_compare_is_deterministic_with_common_seeds_across_methods():
    noisy = FunctionProblem(noisy_quadratic, [{"x": x} for x in range(5)], ["time", "cost"], n_reps=2)
    options = {"ocba": {"n0": 2, "delta": 2}, "blind_pick": {"alpha": 0.4}}
    args = (noisy, ["exhaustive", "blind_pick", "ocba"], [10, 20], 3)
    a = compare(*args, seed=3, options=options, truth_reps=20)
    b = compare(*args, seed=3, options=options, truth_reps=20)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == {"seed": 3, "utility": "product(time, cost)", "truth_reps": 20}
    seeds = a.pivot_table(index="macrorep", columns=["method", "budget"], values="seed", aggfunc="first")
    assert (seeds.nunique(axis=1) == 1).all()              # one seed per macroreplication ...
    assert seeds.iloc[:, 0].nunique() == 3                 # ... different across them
    c = compare(*args, seed=4, options=options, truth_reps=20)
    assert not np.array_equal(a["seed"], c["seed"])

    # a row is mopt.solve with the row's seed, scored against the truth
    truth = ground_truth(noisy, 20, seed=99)
    d = compare(*args, seed=3, options=options, truth=truth)
    pd.testing.assert_series_equal(d["seed"], a["seed"])   # the truth does not change the runs' seeds
    for _, row in d[d["budget"] == 10].iterrows():
        rerun = mopt.solve(noisy, row["method"], budget=10, seed=int(row["seed"]), **options.get(row["method"], {}))
        expected = score(rerun, truth)
        for key in ("pcs", "regret", "hv_ratio", "type1", "type2", "n_false", "n_missed", "n_evals"):
            assert row[key] == pytest.approx(expected[key]), (row["method"], key)
        assert row["selected"] == expected["selected"]
    # common random numbers: in one macroreplication, blind pick's designs got the very replications
    # that exhaustive search gave them
    seed = int(d.loc[0, "seed"])
    ex = mopt.solve(noisy, "exhaustive", budget=10, seed=seed).evaluations.set_index("design")
    bp = mopt.solve(noisy, "blind_pick", budget=10, seed=seed, sample=2).evaluations.set_index("design")
    assert len(bp) == 2
    pd.testing.assert_frame_equal(bp[["time", "cost"]], ex.loc[bp.index, ["time", "cost"]])


def test_compare_scores_against_its_own_ground_truth(prob):
    df = compare(prob, ["exhaustive"], ["100%"], 1, seed=0)
    assert df.attrs["truth_reps"] == 100
    assert df.loc[0, ["pcs", "hv_ratio"]].tolist() == [1.0, 1.0]


def test_compare_passes_its_utility_to_methods_that_take_one(prob):
    from mopt.compare import _method_options

    u, v = mopt.utility.minimize("time"), mopt.utility.minimize("cost")
    assert _method_options(["ocba", "exhaustive"], None, u) == {"ocba": {"utility": u}, "exhaustive": {}}
    assert _method_options(["ocba"], {"ocba": {"utility": v}}, u) == {"ocba": {"utility": v}}
    assert _method_options(["ocba"], None, None) == {"ocba": {}}
    df = compare(prob, ["ocba"], [40], 1, seed=1, truth=MEANS, utility=u, options={"ocba": {"n0": 2}})
    assert df.loc[0, "selected"] == 0 and df.loc[0, "pcs"] == 1.0
    assert df.attrs["utility"] == "minimize(time)"


def test_budget_too_small_for_a_method_with_options(prob):
    df = compare(prob, ["ocba"], [15, 16], 2, seed=1, truth=MEANS, options={"ocba": {"n0": 2}})
    assert df["status"].tolist() == [TOO_SMALL] * 2 + ["ok"] * 2     # n0 x n_designs = 16


@pytest.fixture
def unsimulable():
    """A problem whose simulator fails: parameter errors must come before any simulation."""
    return FunctionProblem(exploding, DESIGNS, ["time", "cost"], n_reps=3)


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(methods=["exhaustive", "nope"]), "'methods' must name methods from"),
        (dict(methods="exhaustive"), "'methods' must be a non-empty list"),
        (dict(methods=[]), "'methods' must be a non-empty list"),
        (dict(methods=["ocba", "ocba"]), "'methods' must not repeat"),
        (dict(budgets=[]), "'budgets' must be a non-empty list"),
        (dict(budgets=[0]), "'budgets'"),
        (dict(budgets=["10%", "ten%"]), "got 'ten%'"),
        (dict(budgets=["0%"]), "'budgets'"),
        (dict(budgets=[2.5]), "'budgets'"),
        (dict(budgets=100), "'budgets' must be a non-empty list"),
        (dict(macroreps=0), "'macroreps' must be an integer in [1, 1000000]"),
        (dict(options={"blind_pick": {"alpha": 0.5}}), "'options' has options for method 'blind_pick'"),
        (dict(options={"ocba": {"n1": 2}}), "'options' for method 'ocba': unknown option 'n1'"),
        (dict(options={"ocba": {"n0": 1}}), "'options' for method 'ocba': 'n0'"),
        (dict(options={"ocba": 2}), "'options' for method 'ocba' must be a dict"),
        (dict(truth=MEANS[:4]), "'truth' must hold every design 0..7"),
        (dict(truth=MEANS, truth_reps=10), "'truth_reps'"),
        (dict(truth_reps=0), "'truth_reps'"),
        (dict(utility=mopt.utility.minimize("speed")), "needs column(s) ['speed']"),
        (dict(utility="speed"), "'utility' must be an objective name"),
    ],
)
def test_bad_parameters_are_refused_before_simulating(unsimulable, kwargs, fragment):
    args = dict(methods=["exhaustive", "ocba"], budgets=["100%"], macroreps=2)
    args.update(kwargs)
    with pytest.raises(InputError) as info:
        compare(unsimulable, seed=1, **args)
    assert fragment in str(info.value)


def test_resolve_budgets():
    p = FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=10)     # 80 replications = 100%
    assert resolve_budgets(["50%", 10, "100%", "1%", " 7 ", 40], p) == [1, 7, 10, 40, 80]
    assert resolve_budgets(["12.5%", "300%"], p) == [10, 240]
    with pytest.raises(InputError, match="'--budgets' .*got '-5%'"):
        resolve_budgets(["-5%"], p, name="--budgets")


# -- summary and figure ------------------------------------------------------------------------------
def test_summary_by_hand():
    df = pd.DataFrame({
        "method": ["a"] * 4 + ["b"] * 2, "budget": [10] * 4 + [5] * 2,
        "status": ["ok"] * 4 + [TOO_SMALL] * 2,
        "pcs": [1.0, 0.0, 1.0, 1.0, np.nan, np.nan], "regret": [0.0, 4.0, 0.0, 2.0, np.nan, np.nan],
        "hv_ratio": [1.0, 0.6, 0.8, 0.9, np.nan, np.nan], "type1": [0.0, 1.0, 0.0, 0.0, np.nan, np.nan],
        "type2": [1.0, 1.0, 0.0, 0.0, np.nan, np.nan], "n_evals": [10, 10, 9, 9, 0, 0],
    })
    s = summary(df).set_index("method")
    a = s.loc["a"]
    assert (a["runs"], a["status"], a["pcs"], a["type1"], a["type2"], a["n_evals"]) == (4, "ok", 0.75, 0.25,
                                                                                       0.5, 9.5)
    # quartiles by linear interpolation: regret sorted 0, 0, 2, 4; hv_ratio 0.6, 0.8, 0.9, 1.0
    assert (a["regret_q1"], a["regret_median"], a["regret_q3"]) == (0.0, 1.0, 2.5)
    assert (a["hv_ratio_q1"], a["hv_ratio_median"], a["hv_ratio_q3"]) == pytest.approx((0.75, 0.85, 0.925))
    b = s.loc["b"]
    assert (b["runs"], b["status"]) == (0, TOO_SMALL) and math.isnan(b["pcs"]) and math.isnan(b["regret_median"])
    with pytest.raises(InputError, match="column 'pcs' is missing"):
        summary(df.drop(columns="pcs"))


def test_plot_progress_saves_atomically(prob, tmp_path):
    df = compare(prob, ["exhaustive", "blind_pick"], [8, 24], 2, seed=1, truth=MEANS)
    fig = plot_progress(df, tmp_path / "progress.png", title="t", caption="c")
    assert (tmp_path / "progress.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.png"]   # no temporary left
    assert len(fig.axes) == 4 and all(ax.get_xscale() == "log" for ax in fig.axes)
    pcs_lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert pcs_lines["exhaustive"].get_xydata().tolist() == [[8, 1.0], [24, 1.0]]  # exact problem
    assert set(pcs_lines) == {"exhaustive", "blind_pick"}


# -- public names ------------------------------------------------------------------------------------
def test_public_names_and_doctests():
    assert mopt.compare is compare and "compare" in mopt.__all__
    module = importlib.import_module("mopt.compare")
    for name in module.__all__:
        assert getattr(module, name, None) is not None, name
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 10
    scoring = importlib.import_module("mopt.scoring")  # score and hypervolume_ratio live there
    moved = ("score", "hypervolume_ratio", "SCORES", "REFERENCE")  # still importable from mopt.compare
    assert all(getattr(module, name) is getattr(scoring, name) for name in moved)
    result = doctest.testmod(scoring, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 5
    result = doctest.testmod(importlib.import_module("mopt.plot"), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


def test_compare_with_a_journal_directory_resumes_without_simulating(tmp_path):
    """One journal per seed; a second identical comparison simulates nothing and gives the same frame."""
    from mopt.core.journal import Journal

    prob = mopt.NormalProblem(np.array([[1.0, 4.0], [2.0, 2.0], [3.0, 1.0], [2.5, 3.5]]), sd=0.5, n_reps=4)
    kw = dict(seed=3, truth_reps=30, journal=tmp_path / "journals")
    first = compare(prob, ["exhaustive", "ocba"], [16], 2, **kw)
    files = sorted(p.name for p in (tmp_path / "journals").iterdir() if p.suffix == ".sqlite")
    assert len(files) == 3  # the truth and two macroreplications
    second = compare(prob, ["exhaustive", "ocba"], [16], 2, **kw)
    pd.testing.assert_frame_equal(first, second)
    pd.testing.assert_frame_equal(first, compare(prob, ["exhaustive", "ocba"], [16], 2, seed=3, truth_reps=30))
    seed = int(first["seed"].iloc[0])
    with Journal(tmp_path / "journals" / f"seed-{seed}.sqlite", prob, seed) as j:
        # both methods of the macroreplication share it: their replications overlap
        assert 16 <= len(j) < 32
    with pytest.raises(InputError, match="'journal' must be a directory"):
        compare(prob, ["exhaustive"], [16], 1, seed=3, truth_reps=30,
                journal=tmp_path / "journals" / files[0])


def test_every_method_spends_its_budget_and_the_summary_shows_it():
    # issue 14: exhaustive search on ten designs with n_reps = 10 spent 100 replications at every
    # budget; its replications now follow the budget: 200 // 10 = 20 and 600 // 10 = 60 each
    problem = mopt.NormalProblem(np.arange(1.0, 11.0), sd=6.0, n_reps=10)
    df = compare(problem, ["exhaustive", "ocba"], [200, 600], 2, seed=1, truth=np.arange(1.0, 11.0),
                 options={"ocba": {"n0": 10, "delta": 20}})
    assert df["n_evals"].tolist() == [200, 200, 600, 600, 200, 200, 600, 600]
    table = summary(df)
    assert table[["method", "budget", "n_evals"]].values.tolist() == [
        ["exhaustive", 200, 200.0], ["exhaustive", 600, 600.0], ["ocba", 200, 200.0], ["ocba", 600, 600.0]]
    assert list(table.columns[:4]) == ["method", "budget", "runs", "n_evals"]
    # a budget that is not a multiple of n_designs: 205 // 10 = 20 each, 5 left unspent
    run = mopt.solve(problem, "exhaustive", budget=205, seed=1)
    assert run.n_evals == 200 and run.evaluations["n_reps"].eq(20).all()
    # an explicit n_reps caps it (the experiments' old way to ask for the same)
    assert mopt.solve(problem, "exhaustive", budget=600, n_reps=7, seed=1).n_evals == 70
