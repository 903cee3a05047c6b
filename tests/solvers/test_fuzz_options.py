"""Generated bad parameters of ``mopt.solve`` for every method: one clear error naming it.

Each method option (and ``budget``, ``seed``, ``method``, ``problem``, ``executor``) gets one bad
value at a time; ``mopt.solve`` must raise ``InputError`` (or ``TypeError`` for a wrong Python type)
naming it, before anything is simulated.  Valid options are checked to run within the budget and
to be reproducible.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mopt
from mopt import InputError, NormalProblem
from tests.helpers import assert_same_result, count_bad_input, fuzz, no_simulation

#: six designs, two objectives (designs 0, 1, 3 on the front), three replications each by default
MEANS = [[1.0, 6.0], [2.0, 4.0], [3.0, 5.0], [4.0, 1.0], [5.0, 5.0], [6.0, 6.0]]
N_DESIGNS = len(MEANS)


@pytest.fixture(scope="module")
def problem() -> NormalProblem:
    return NormalProblem(MEANS, sd=0.5, objectives=["time", "cost"], n_reps=3)


def solve_bad(problem, method, *fragments, budget=200, seed=1, **options):
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        mopt.solve(problem, method, budget=budget, seed=seed, **options)
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    count_bad_input("method")
    return info.value


# -- strategies of bad values ------------------------------------------------------------------
FINITE = st.floats(allow_nan=False, allow_infinity=False)
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan")])
NON_POSITIVE = st.one_of(st.floats(max_value=0.0, allow_infinity=False), st.integers(max_value=0))
NON_INTEGRAL = FINITE.filter(lambda x: x != math.floor(x))
WRONG_TYPE = st.one_of(
    st.text(max_size=4),
    st.booleans(),
    st.lists(st.integers(0, 3), max_size=2),
    st.just({"n": 1}),
    st.just(complex(2, 0)),
    st.just(object()),
    st.just(np.array([2, 3])),
)


def bad_count(low: int, high: int | None = None, *, none_ok: bool = True):
    """Not an integer in [low, high] (``None`` too, unless it means "the default")."""
    out = [
        st.integers(max_value=low - 1),
        st.integers(-(2**63), low - 1).map(np.int64),
        NON_INTEGRAL,
        NON_FINITE,
        WRONG_TYPE,
    ]
    if high is not None:
        out.append(st.integers(min_value=high + 1))
    if not none_ok:
        out.append(st.none())
    return st.one_of(out)


UNIT_BAD = st.one_of(
    NON_POSITIVE, st.floats(1.0, 1e300, exclude_min=True), NON_FINITE, WRONG_TYPE, st.none()
)
REPS_MAX = 2**62
UTILITY_BAD = st.one_of(
    st.text(max_size=6).filter(lambda s: s not in ("time", "cost")),
    st.integers(),
    FINITE,
    st.lists(st.just("time"), max_size=2),
    st.just({"time": 1}),
)

#: (method, option) -> strategy of bad values; the error names the option
BAD_OPTIONS = {
    ("exhaustive", "n_reps"): bad_count(1, REPS_MAX),
    ("blind_pick", "alpha"): UNIT_BAD,
    ("blind_pick", "n_reps"): bad_count(1, REPS_MAX),
    ("oo", "n_rough"): bad_count(1, REPS_MAX, none_ok=False),
    ("oo", "n_accurate"): st.one_of(bad_count(2, REPS_MAX), st.just(1)),  # below n_rough = 2 too
    ("oo", "s"): bad_count(1, N_DESIGNS),
    ("oo", "alpha"): UNIT_BAD,
    ("oo", "utility"): UTILITY_BAD,
    ("oo", "truth"): st.one_of(
        st.just(np.ones((N_DESIGNS, 3))),
        st.just(np.ones(N_DESIGNS)),
        st.just("abc"),
        st.just(np.full((N_DESIGNS, 2), np.nan)),
        st.just([[1.0, 2.0]]),
        st.integers(),
        st.just(object()),
    ),
    ("oo", "g"): bad_count(1, N_DESIGNS),
    ("ocba", "n0"): bad_count(2, REPS_MAX),
    ("ocba", "delta"): bad_count(1, REPS_MAX),
    ("ocba", "utility"): UTILITY_BAD,
    ("mocba", "n0"): bad_count(2, REPS_MAX),
    ("mocba", "delta"): bad_count(1, REPS_MAX),
    ("nsga2", "pop_size"): bad_count(2, N_DESIGNS),
    ("nsga2", "n_reps0"): bad_count(1, REPS_MAX, none_ok=False),
    ("nsga2", "n_reps_max"): st.one_of(bad_count(2, REPS_MAX), st.just(1)),  # below n_reps0 = 2 too
    ("nsga2", "full_reps_at"): UNIT_BAD,
    ("screen", "breadth"): UNIT_BAD,
    ("screen", "guided"): st.one_of(st.floats(max_value=0.0, exclude_max=True, allow_infinity=False),
                                    st.floats(1.0, 1e300), NON_FINITE, WRONG_TYPE, st.none()),
    ("screen", "z"): st.one_of(st.floats(max_value=0.0, exclude_max=True), st.just(math.nan), WRONG_TYPE,
                               st.none()),
    ("screen", "prior"): st.one_of(st.floats(max_value=0.0, exclude_max=True, allow_infinity=False),
                                   NON_FINITE, WRONG_TYPE, st.none()),
    ("auto", "utility"): UTILITY_BAD,
    ("nsga2", "confirm_front"): st.one_of(
        st.integers(), FINITE, st.text(max_size=4), st.none(), st.just([True])
    ),
}


@fuzz(300)
@given(data=st.data())
def test_bad_method_option_names_it(problem, data):
    method, option = data.draw(st.sampled_from(sorted(BAD_OPTIONS)), label="option")
    value = data.draw(BAD_OPTIONS[method, option], label="value")
    solve_bad(problem, method, f"'{option}'", **{option: value})


@fuzz(60)
@given(
    method=st.sampled_from(sorted(mopt.METHODS)),
    name=st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True),
    value=st.integers(),
)
def test_unknown_option_names_it(problem, method, name, value):
    if name in mopt.METHODS[method].defaults or name in (
        "budget",
        "seed",
        "executor",
        "progress",
        "problem",
        "method",
    ):
        return
    solve_bad(problem, method, f"unknown option '{name}' for method '{method}'", **{name: value})


@fuzz(100)
@given(
    method=st.sampled_from(sorted(mopt.METHODS)),
    budget=st.one_of(st.integers(max_value=0), NON_INTEGRAL, NON_FINITE, WRONG_TYPE),
)
def test_bad_budget_names_it(problem, method, budget):
    solve_bad(problem, method, "'budget'", budget=budget)


#: the smallest budget each method runs with on ``problem`` and default options
MIN_BUDGET = {
    "exhaustive": N_DESIGNS,
    "blind_pick": 3,
    "oo": 3,
    "ocba": 2 * N_DESIGNS,
    "mocba": 2 * N_DESIGNS,
    "nsga2": N_DESIGNS * 2,
}


@fuzz(40)
@given(data=st.data())
def test_budget_too_small_for_the_method_names_it(problem, data):
    method = data.draw(st.sampled_from(sorted(MIN_BUDGET)), label="method")
    budget = data.draw(st.integers(1, MIN_BUDGET[method] - 1), label="budget")
    solve_bad(problem, method, "'budget' must be >=", budget=budget)


@fuzz(60)
@given(
    method=st.sampled_from(sorted(mopt.METHODS)),
    seed=st.one_of(
        st.integers(max_value=-1),
        NON_INTEGRAL,
        NON_FINITE,
        st.text(max_size=3),
        st.lists(st.integers(), max_size=2),
        st.just(object()),
        st.just(1 + 2j),
    ),
)
def test_bad_seed_names_it(problem, method, seed):
    solve_bad(problem, method, "'seed'", seed=seed)


@fuzz(40)
@given(
    method=st.one_of(
        st.text(max_size=12).filter(lambda m: m.lower() not in mopt.METHODS),  # "OCBA" is ocba
        st.sampled_from(sorted(mopt.METHODS)).map(lambda m: m + "#"),
        st.integers(),
        st.none(),
        st.just(["exhaustive"]),
    )
)
def test_bad_method_name_names_it(problem, method):
    solve_bad(problem, method, "'method'")


@fuzz(20)
@given(
    what=st.one_of(WRONG_TYPE, st.none(), st.just(np.ones((3, 2)))),
    which=st.sampled_from(["problem", "executor"]),
)
def test_bad_problem_or_executor(problem, what, which):
    if which == "problem":
        with no_simulation(), pytest.raises(TypeError, match="'problem'"):
            mopt.solve(what, "exhaustive")
    else:
        if what is None:
            return
        with no_simulation(), pytest.raises(TypeError, match="'executor'"):
            mopt.solve(problem, "exhaustive", executor=what)
    count_bad_input("method")


# -- valid options: within the budget, reproducible ------------------------------------------------
VALID_OPTIONS = {
    "exhaustive": st.fixed_dictionaries({}, optional={"n_reps": st.integers(1, 5)}),
    "blind_pick": st.fixed_dictionaries(
        {}, optional={"alpha": st.floats(0.05, 1.0), "n_reps": st.integers(1, 5)}
    ),
    "oo": st.fixed_dictionaries(
        {},
        optional={
            "n_rough": st.just(1),
            "s": st.integers(1, N_DESIGNS),
            "utility": st.sampled_from(["time", "cost"]),
        },
    ),
    "ocba": st.fixed_dictionaries(
        {}, optional={"n0": st.integers(2, 4), "delta": st.integers(1, 20)}
    ),
    "mocba": st.fixed_dictionaries(
        {}, optional={"n0": st.integers(2, 4), "delta": st.integers(1, 20)}
    ),
    "screen": st.fixed_dictionaries(
        {}, optional={"breadth": st.floats(0.05, 1.0), "guided": st.floats(0.0, 0.95),
                      "z": st.floats(0.0, 5.0), "prior": st.floats(0.0, 20.0)}
    ),
    "auto": st.fixed_dictionaries({}, optional={"utility": st.sampled_from(["time", "cost"])}),
    "nsga2": st.fixed_dictionaries(
        {},
        optional={
            "pop_size": st.integers(2, N_DESIGNS),
            "n_reps_max": st.integers(2, 5),
            "confirm_front": st.booleans(),
        },
    ),
}


@fuzz(40)
@given(data=st.data())
def test_valid_options_respect_the_budget_and_the_seed(problem, data):
    method = data.draw(st.sampled_from(sorted(VALID_OPTIONS)), label="method")
    options = data.draw(VALID_OPTIONS[method], label="options")
    budget = data.draw(st.integers(60, 200), label="budget")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    a = mopt.solve(problem, method, budget=budget, seed=seed, **options)
    b = mopt.solve(problem, method, budget=budget, seed=seed, **options)
    assert 0 < a.n_evals <= budget
    assert_same_result(a, b)
    assert set(a.front["design"]) <= set(a.evaluations["design"])
