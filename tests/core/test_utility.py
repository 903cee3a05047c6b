"""mopt.core.utility: scoring rows of objective means (lower is better)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from mopt import InputError
from mopt.core.utility import U, Utility, by_deadline, minimize, product, weighted, within_budget

inf = math.inf


@pytest.fixture
def df():
    return pd.DataFrame(
        {
            "makespan": [10.0, 20.0, 40.0, 5.0],
            "cost": [3.0, 1.0, 0.5, 8.0],
            "utilisation": [0.5, 0.8, 1.0, 0.2],
            "bsd": [2.0, 4.0, 1.0, 1.0],
        },
        index=[7, 8, 9, 10],  # scores keep the frame's index
    )


def test_minimize(df):
    u = minimize("cost")
    assert isinstance(u, Utility) and u.name == "minimize(cost)"
    s = u(df)
    assert s.tolist() == [3.0, 1.0, 0.5, 8.0]
    assert s.index.tolist() == [7, 8, 9, 10]
    assert s.name == "minimize(cost)"


def test_product(df):
    # 10·3 = 30, 20·1 = 20, 40·0.5 = 20, 5·8 = 40
    assert product("makespan", "cost")(df).tolist() == [30.0, 20.0, 20.0, 40.0]
    assert repr(product("makespan", "cost")) == "product(makespan, cost)"


def test_weighted(df):
    # makespan + 3600·cost: 10 + 10800, 20 + 3600, 40 + 1800, 5 + 28800
    u = weighted(makespan=1, cost=3600)
    assert u(df).tolist() == [10810.0, 3620.0, 1840.0, 28805.0]
    assert u.name == "weighted(makespan=1, cost=3600)"
    # a single negative weight maximises
    assert weighted(cost=-2)(df).tolist() == [-6.0, -2.0, -1.0, -16.0]


def test_within_budget(df):
    # rows with cost <= 1.0 keep their makespan (20, 40), the others score inf
    assert within_budget("cost", 1.0, then="makespan")(df).tolist() == [inf, 20.0, 40.0, inf]
    # the limit itself is within budget
    assert within_budget("cost", 3.0, then="makespan")(df).tolist() == [10.0, 20.0, 40.0, inf]
    assert within_budget("cost", 0.1, then="makespan")(df).tolist() == [inf] * 4


def test_by_deadline(df):
    # rows with makespan <= 20 keep their cost (3, 1, -, 8)
    assert by_deadline("makespan", 20, then="cost")(df).tolist() == [3.0, 1.0, inf, 8.0]


def test_U(df):
    # U = -κ·utilisation^α·(1/bsd)^β
    # κ=100, α=β=1: -100·0.5/2 = -25, -100·0.8/4 = -20, -100·1/1 = -100, -100·0.2/1 = -20
    assert U()(df).tolist() == pytest.approx([-25.0, -20.0, -100.0, -20.0])
    # α=2, β=0, κ=10: -10·u²: -2.5, -6.4, -10, -0.4
    assert U(alpha=2, beta=0, kappa=10)(df).tolist() == pytest.approx([-2.5, -6.4, -10.0, -0.4])


@pytest.mark.parametrize(
    "utility, column",
    [
        (minimize("energy"), "energy"),
        (product("makespan", "energy"), "energy"),
        (weighted(makespan=1, energy=2), "energy"),
        (within_budget("energy", 1.0, then="makespan"), "energy"),
        (by_deadline("makespan", 1.0, then="energy"), "energy"),
        (U(utilisation="util"), "util"),
    ],
)
def test_missing_column_error_names_the_column(df, utility, column):
    with pytest.raises(InputError, match=f"'{column}'"):
        utility(df)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: within_budget("cost", math.nan, then="makespan"), "'limit'"),
        (lambda: by_deadline("makespan", math.inf, then="cost"), "'limit'"),
        (lambda: weighted(), "'weights'"),
        (lambda: weighted(cost=math.nan), "'weight of cost'"),
        (lambda: U(alpha=-1), "'alpha'"),
        (lambda: U(beta=-1), "'beta'"),
        (lambda: U(kappa=0), "'kappa'"),
    ],
)
def test_bad_parameters_raise(make, match):
    with pytest.raises(InputError, match=match):
        make()


def test_bad_objective_name_raises():
    with pytest.raises(TypeError, match="objective names"):
        minimize("")
    with pytest.raises(TypeError, match="objective names"):
        product("makespan", 3)


def test_scores_are_float_even_for_integer_columns():
    s = minimize("n")(pd.DataFrame({"n": [3, 1]}))
    assert s.dtype == np.float64 and s.tolist() == [3.0, 1.0]


@pytest.mark.parametrize("utility", [
    minimize("a"), product("a", "b"), weighted(a=1.0, b=3.5), within_budget("b", 0.5, then="a"),
    by_deadline("a", 0.2, then="b"), U(0.5, 1.5, utilisation="a", slowdown="b"),
])  # fmt: skip
def test_array_scores_equal_the_dataframe_scores_bit_for_bit(utility):
    # searches score rows without a DataFrame (Utility.score_arrays); every value, including
    # negatives, zeros, NaN and inf, scores exactly as through pandas, without warnings
    rng = np.random.default_rng(5)
    values = rng.normal(0.5, 1.0, size=(200, 2)) * rng.choice([1e-3, 1.0, 1e4], size=(200, 1))
    values[:4] = [[0.0, 0.0], [np.nan, 1.0], [np.inf, -np.inf], [-1.0, 0.0]]
    df = pd.DataFrame(values, columns=["a", "b"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        arrays = utility.score_arrays({"a": values[:, 0].copy(), "b": values[:, 1].copy()})
    np.testing.assert_array_equal(arrays, utility(df).to_numpy())
    assert utility.arrays


def test_a_utility_built_by_hand_scores_dataframes_only():
    u = Utility("clipped(a)", ("a",), lambda df: df["a"].clip(lower=0))
    assert u(pd.DataFrame({"a": [-1.0, 2.0]})).tolist() == [0.0, 2.0] and not u.arrays
    with pytest.raises(TypeError, match="scores DataFrames only"):
        u.score_arrays({"a": np.array([1.0])})
