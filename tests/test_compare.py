"""mopt.compare: the ground truth, and comparing methods under equal budgets. (Scoring one run:
tests/test_scoring.py; the progress figure: tests/test_plot.py.)"""

from __future__ import annotations

import doctest
import importlib
import importlib.metadata
import math

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt import FunctionProblem, InputError
from mopt.compare import (
    COLUMNS,
    TOO_SMALL,
    compare,
    ground_truth,
    resolve_budgets,
    score,
    summary,
)
from tests.helpers import noisy_quadratic
from tests.known_means import DESIGNS, MEANS, PRODUCT, exact


def exploding(params, rng):
    raise AssertionError("simulated before the parameters were checked")


@pytest.fixture
def prob():
    return FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=3)


def test_the_synthetic_problem_is_as_described():
    np.testing.assert_array_equal(PRODUCT, [26, 34, 30, 20, 10, 6, 100, 28])
    assert mopt.pareto_mask(MEANS).tolist() == [True] * 6 + [False] * 2


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


def test_compare_scores_regret_under_more_utilities_by_hand():
    # the runs see the known means exactly; the truth differs from them for designs 0 and 5, so the
    # choices are wrong by amounts worked out by hand
    prob = FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=1)  # deterministic
    truth = MEANS.copy()
    truth[0, 0] = 10.0   # design 0, the runs' fastest (time 1), is truly at 10: best time is design 1's 2
    truth[5, 1] = 11.0   # design 5, the runs' cheapest (cost 1) and best product (6), truly costs 11
    utilities = {"min time": "time", "min cost": mopt.utility.minimize("cost"),
                 "min time x cost": mopt.utility.product("time", "cost")}
    df = compare(prob, ["exhaustive", "random:1"], ["100%"], 2, seed=3, truth=truth, utilities=utilities)
    assert list(df.columns) == [*COLUMNS, "pcs[min time]", "regret[min time]", "pcs[min cost]",
                                "regret[min cost]", "pcs[min time x cost]", "regret[min time x cost]"]
    ex = df[df["method"] == "exhaustive"]  # every design once (budget 8 x 1), at its known mean
    assert ex["regret[min time]"].tolist() == [8.0, 8.0]           # 10 - 2
    assert ex["regret[min cost]"].tolist() == [9.0, 9.0]           # 11 - 2 (design 4: (5-4)^2 + 1)
    assert ex["regret[min time x cost]"].tolist() == [56.0, 56.0]  # 6 x 11 - 5 x 2
    assert (ex[["pcs[min time]", "pcs[min cost]", "pcs[min time x cost]"]] == 0).all().all()
    # the default utility is the product too: the same numbers in the usual columns
    assert ex["regret"].tolist() == [56.0, 56.0] and ex["pcs"].tolist() == [0.0, 0.0]
    assert df.attrs["utilities"]["min time"] == str(mopt.utility.minimize("time"))
    assert (ex["versions"] == f"mopt {importlib.metadata.version('mopt')}").all()
    peer = df[df["method"] == "random:1"]["versions"].iloc[0]
    assert peer.startswith("numpy ") and "; " not in peer  # random search runs numpy alone


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
        (dict(utilities={"fast": "speed"}), "'utilities' 'fast': 'utility' must be an objective name"),
        (dict(utilities={}), "'utilities' must be a non-empty dict"),
        (dict(utilities=["time"]), "'utilities' must be a non-empty dict"),
        (dict(utilities={"": "time"}), "'utilities' labels must be non-empty strings"),
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


# -- summary ------------------------------------------------------------------------------------------
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
