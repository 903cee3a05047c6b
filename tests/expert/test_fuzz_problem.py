"""Generated bad parameters of every problem family: one clear error naming the parameter.

``Environment``, ``TurnaroundModel`` (and ``shifted_lognormal``), ``NTDMrProblem``,
``FunctionProblem`` and ``NormalProblem`` get one bad parameter at a time (out of range, NaN or
infinite, of the wrong type, a wrong shape or name); each must raise ``InputError`` (or
``TypeError`` for a wrong Python type) whose message names that parameter.  Parameters that the
constructors only store (``n_reps``, ``seed``) must fail the same way at their first use, before
anything is simulated.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from scipy import stats

import mopt
from mopt import FunctionProblem, InputError, NormalProblem
from mopt.expert import Environment, NTDMrProblem, TurnaroundModel
from mopt.expert.environment import shifted_lognormal
from tests.helpers import count_bad_input, fuzz, no_simulation


def raises_naming(fn, *fragments: str):
    """``fn()`` raises InputError or TypeError whose message contains every fragment."""
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        fn()
    for fragment in fragments:
        assert fragment in str(info.value), (fragment, str(info.value))
    count_bad_input("problem")
    return info.value


# -- strategies of bad values ------------------------------------------------------------------
FINITE = st.floats(allow_nan=False, allow_infinity=False)
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf, np.float64("nan"), np.float32("inf")])
NEGATIVE = st.one_of(st.floats(max_value=-5e-324, allow_infinity=False), st.integers(max_value=-1))
NON_POSITIVE = st.one_of(st.floats(max_value=0.0, allow_infinity=False), st.integers(max_value=0))
NON_INTEGRAL = FINITE.filter(lambda x: x != math.floor(x))
LETTERS = st.text(alphabet="abcxyz_ ", min_size=1, max_size=4)  # text that is not a number
WRONG_TYPE = st.one_of(
    st.text(max_size=5),
    st.none(),
    st.booleans(),
    st.lists(st.integers(0, 3), max_size=2),
    st.just({"a": 1}),
    st.just(complex(1, 1)),
    st.just(object()),
    st.just(np.array([1.0, 2.0])),
)


def bad_count(low: int, high: int | None = None):
    """Not an integer in [low, high]: too small, too large, non-integral, non-finite, a bool."""
    out = [
        st.integers(max_value=low - 1),
        NON_INTEGRAL,
        NON_FINITE,
        st.booleans(),
        st.integers(-(2**63), low - 1).map(np.int64),
    ]
    if high is not None:
        out.append(st.integers(min_value=high + 1))
    return st.one_of(out)


# -- Environment -----------------------------------------------------------------------------------
#: F_s uniform on [1000, 1200] s: no result is possible before 4·t_ur when t_ur < 250 s
FS = stats.uniform(1000, 200)


@pytest.fixture(scope="module")
def model() -> TurnaroundModel:
    return TurnaroundModel.parametric(FS, 0.8)


def env_params(model, **changes) -> dict:
    return {
        "n_tasks": 20,
        "n_unreliable": 5,
        "t_ur": 1100.0,
        "t_r": 1100.0,
        "c_ur": 0.01,
        "c_r": 0.1,
        "turnaround": model,
        "mr_max": 0.5,
        "charging_period_r": 1.0,
        **changes,
    }


ENV_BAD = {
    "n_tasks": st.one_of(bad_count(1, 10**6), WRONG_TYPE),
    # issue 14 finding 5: above 10**6 machines the per-machine state takes gigabytes (bound of ours)
    "n_unreliable": st.one_of(bad_count(1, 10**6), WRONG_TYPE),
    "t_ur": st.one_of(
        NON_POSITIVE, NON_FINITE, st.floats(1e-300, 249.0), st.floats(4.5e307, 1.7e308), WRONG_TYPE
    ),
    "t_r": st.one_of(NON_POSITIVE, NON_FINITE, st.floats(1e9, 1e300, exclude_min=True), WRONG_TYPE),
    "c_ur": st.one_of(NEGATIVE, NON_FINITE, st.floats(1e6, 1e300, exclude_min=True), WRONG_TYPE),
    "c_r": st.one_of(NEGATIVE, NON_FINITE, st.floats(1e6, 1e300, exclude_min=True), WRONG_TYPE),
    "mr_max": st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE),
    "charging_period_r": st.one_of(NON_POSITIVE, NON_FINITE, st.floats(31_536_000, 1e300, exclude_min=True),
                                   WRONG_TYPE),
    "turnaround": st.one_of(WRONG_TYPE, st.just(FS), st.just(0.8)),
}


def test_base_environment_is_valid(model):
    env = Environment(**env_params(model))
    assert env.n_reliable(env.mr_max) == 3


@fuzz(200)
@given(data=st.data())
def test_environment_bad_parameter_names_it(model, data):
    name = data.draw(st.sampled_from(sorted(ENV_BAD)), label="name")
    value = data.draw(ENV_BAD[name], label="value")
    raises_naming(lambda: Environment(**env_params(model, **{name: value})), f"'{name}'")


@fuzz(30)
@given(
    n_tasks=st.integers(1, 10**6),
    n_unreliable=st.integers(1, 10**6),
    c=st.floats(0, 1e6),
    mr_max=st.floats(0, 10),
)
def test_environment_valid_parameters_are_kept(model, n_tasks, n_unreliable, c, mr_max):
    env = Environment(
        **env_params(model, n_tasks=n_tasks, n_unreliable=n_unreliable, c_ur=c, mr_max=mr_max)
    )
    assert (env.n_tasks, env.n_unreliable, env.c_ur, env.mr_max) == (
        n_tasks,
        n_unreliable,
        c,
        mr_max,
    )


# -- TurnaroundModel and shifted_lognormal ---------------------------------------------------------
NOT_A_DISTRIBUTION = st.one_of(WRONG_TYPE, st.just(np.ones(3)), st.just(pd.Series([1.0])))
BAD_SUPPORT = st.one_of(
    st.floats(-1e6, 4.0).map(lambda loc: stats.norm(loc, 1.0)),  # negative times
    st.floats(0, 4e4).map(lambda loc: stats.cauchy(loc, 1.0)),  # heavy left tail below 0
    st.floats(-1e6, -1e-3).map(lambda loc: stats.uniform(loc, 1.0)),  # starts below 0
)
BAD_RELIABILITY = st.one_of(
    NEGATIVE,
    st.floats(1.0, 1e300, exclude_min=True),
    NON_FINITE,
    st.text(max_size=3),
    st.booleans(),
    st.lists(st.floats(0, 1), max_size=2),
    st.none(),
)


@fuzz(60)
@given(fs=st.one_of(NOT_A_DISTRIBUTION, BAD_SUPPORT))
def test_parametric_bad_fs_names_it(fs):
    raises_naming(lambda: TurnaroundModel.parametric(fs, 0.8), "'fs'")


@fuzz(60)
@given(reliability=BAD_RELIABILITY, as_function=st.booleans())
def test_parametric_bad_reliability_names_it(reliability, as_function):
    assume(not as_function or not isinstance(reliability, list))
    value = (lambda t: reliability) if as_function else reliability
    raises_naming(lambda: TurnaroundModel.parametric(FS, value), "'reliability")


SEND = [0.0, 10.0, 20.0, 30.0, 40.0, 50.0]
TURN = [1000.0, math.inf, 1200.0, 1100.0, 1050.0, math.inf]


@fuzz(120)
@given(data=st.data())
def test_from_instances_bad_parameter_names_it(data):
    name = data.draw(
        st.sampled_from(["send_times", "turnaround_times", "deadline", "t_tail", "group_size"])
    )
    args = {
        "send_times": list(SEND),
        "turnaround_times": list(TURN),
        "deadline": 4000.0,
        "t_tail": None,
        "group_size": 2,
    }
    if name in ("send_times", "turnaround_times"):
        kind = data.draw(st.sampled_from(["cell", "length", "empty", "type"]), label="kind")
        if kind == "cell":
            bad = data.draw(
                st.one_of(NEGATIVE, st.just(math.nan))
                if name == "turnaround_times"
                else st.one_of(NEGATIVE, NON_FINITE),
                label="bad",
            )
            args[name][data.draw(st.integers(0, len(SEND) - 1), label="at")] = bad
        elif kind == "length":
            args[name] = args[name] + data.draw(st.lists(st.floats(0, 10), min_size=1, max_size=3))
        elif kind == "empty":
            args[name] = []
        else:
            args[name] = data.draw(
                st.one_of(
                    st.text(min_size=1, max_size=4),
                    st.just({"a": 1}),
                    st.just([object()]),
                    st.just(["x", 1.0]),
                ),
                label="type",
            )
        fragment = f"'{name}'" if kind != "length" else "'send_times' and 'turnaround_times'"
    else:
        bad = {
            "deadline": st.one_of(
                NON_POSITIVE, NON_FINITE, WRONG_TYPE.filter(lambda v: v is not None)
            ),
            "t_tail": st.one_of(
                NEGATIVE, NON_FINITE, st.floats(0, 4000), WRONG_TYPE.filter(lambda v: v is not None)
            ),
            "group_size": bad_count(1),
        }[name]
        args[name] = data.draw(bad, label="bad")
        fragment = f"'{name}'"
    raises_naming(
        lambda: TurnaroundModel.from_instances(
            args["send_times"],
            args["turnaround_times"],
            args["deadline"],
            args["t_tail"],
            group_size=args["group_size"],
        ),
        fragment,
    )


@fuzz(60)
@given(data=st.data())
def test_shifted_lognormal_bad_parameter_names_it(data):
    name = data.draw(st.sampled_from(["mean", "shift", "sigma"]), label="name")
    bad = {
        "mean": st.one_of(
            st.floats(-1e300, 1000.0), NON_FINITE, st.floats(1e308, 1.7e308), WRONG_TYPE
        ),
        "shift": st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE),
        "sigma": st.one_of(NON_POSITIVE, NON_FINITE, st.floats(40.0, 1.7e308), WRONG_TYPE),
    }[name]
    params = {"mean": 2066.0, "shift": 1000.0, "sigma": 0.5, name: data.draw(bad, label="value")}
    raises_naming(lambda: shifted_lognormal(**params), f"'{name}'")


@fuzz(20)
@given(mean=st.floats(1001.0, 1e6), sigma=st.floats(0.01, 3.0))
def test_shifted_lognormal_has_the_mean_and_shift_asked_for(mean, sigma):
    fs = shifted_lognormal(mean, 1000.0, sigma)
    assert fs.mean() == pytest.approx(mean, rel=1e-9)
    assert fs.ppf(0.0) == 1000.0


# -- NTDMrProblem -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def env(model) -> Environment:
    return Environment(**env_params(model))


GOOD_GRID = {"N": [0, 1, math.inf], "T": [0.0, 1100.0], "D": [1100.0, 2200.0], "Mr": [0.2, 0.5]}
BAD_GRID = {
    "N": st.one_of(
        st.integers(max_value=-1),
        st.integers(min_value=10**6 + 1),
        NON_INTEGRAL,
        st.sampled_from([math.nan, -math.inf]),
        st.booleans(),
        st.text(max_size=3),
        st.none(),
    ),
    "T": st.one_of(
        NEGATIVE, NON_FINITE, st.booleans(), st.text(max_size=3), st.none(), st.just([1.0])
    ),
    "D": st.one_of(NON_POSITIVE, NON_FINITE, st.booleans(), st.text(max_size=3), st.none()),
    "Mr": st.one_of(
        NEGATIVE,
        st.floats(0.5, 1e300, exclude_min=True),
        NON_FINITE,
        st.booleans(),
        st.text(max_size=3),
    ),
}


def test_base_problem_is_valid(env):
    assert NTDMrProblem(env, **GOOD_GRID).n_designs == 2 * 4 * 2 + 4


@fuzz(150)
@given(data=st.data())
def test_ntdmr_bad_grid_names_the_list(env, data):
    key = data.draw(st.sampled_from(sorted(BAD_GRID)), label="key")
    shape = data.draw(st.sampled_from(["element", "array", "empty", "not a list"]), label="shape")
    grid = dict(GOOD_GRID)
    if shape == "empty":
        grid[key] = data.draw(st.sampled_from([[], (), np.array([])]))
    elif shape == "not a list":
        grid[key] = data.draw(
            st.one_of(st.text(max_size=4), st.just({1.0: 2.0}), st.just(object()), st.just(b"12"))
        )
    else:
        values = list(GOOD_GRID[key])
        values.insert(data.draw(st.integers(0, len(values))), data.draw(BAD_GRID[key], label="bad"))
        grid[key] = np.array(values, dtype=object) if shape == "array" else values
    raises_naming(lambda: NTDMrProblem(env, **grid), f"'{key}'")


@fuzz(30)
@given(bad=st.one_of(WRONG_TYPE, st.just(FS)), which=st.sampled_from(["env", "observed"]))
def test_ntdmr_bad_env_or_observed(env, bad, which):
    assume(not (which == "observed" and bad is None))
    args = {"env": bad} if which == "env" else {"env": env, "observed": bad}
    raises_naming(lambda: NTDMrProblem(**args), f"'{which}'")


def test_ntdmr_mr_max_below_the_paper_grid(model):
    low = Environment(**env_params(model, mr_max=0.01))
    raises_naming(lambda: NTDMrProblem(low), "'mr_max'", "'Mr'")


BAD_N_REPS = st.one_of(bad_count(1, 2**62), st.text(max_size=3), st.none(), st.just([3]))
BAD_SEED = st.one_of(
    st.integers(max_value=-1), NON_INTEGRAL, NON_FINITE, st.text(max_size=3), st.just([1.5])
)


@fuzz(60)
@given(data=st.data())
def test_stored_n_reps_and_seed_fail_at_first_use(env, data):
    """Constructors store n_reps and seed: a search (n_reps) or pymoo (both) names them first."""
    which = data.draw(st.sampled_from(["n_reps", "seed"]), label="which")
    bad = data.draw(BAD_N_REPS if which == "n_reps" else BAD_SEED, label="bad")
    family = data.draw(st.sampled_from(["ntdmr", "function", "normal"]), label="family")
    make = {
        "ntdmr": lambda **kw: NTDMrProblem(env, **GOOD_GRID, **kw),
        "function": lambda **kw: FunctionProblem(_simulate, [{"x": 1}, {"x": 2}], ["f", "g"], **kw),
        "normal": lambda **kw: NormalProblem([[1.0, 2.0], [2.0, 1.0]], **kw),
    }[family]
    problem = make(**{which: bad})
    if which == "n_reps" and data.draw(st.booleans(), label="via solve"):
        # the multi-period family (iOO with the paper's fixed s = 30, eOO) checks its own
        # options or the problem kind first
        methods = [m for m, cls in mopt.METHODS.items() if cls.__module__ != "mopt.solvers.evolutionary_oo"]
        method = data.draw(st.sampled_from(sorted(methods)), label="method")
        raises_naming(lambda: mopt.solve(problem, method, seed=1), "'n_reps'")
    else:
        x = np.atleast_2d(problem.design(0))
        raises_naming(lambda: problem.evaluate(x), f"the problem's '{which}'")


# -- FunctionProblem ------------------------------------------------------------------------------
def _simulate(params, rng):
    return (params["x"], -params["x"])


RESERVED = st.sampled_from(["design", "n_reps", "utility", "f_se", "g_se"])


@fuzz(120)
@given(data=st.data())
def test_function_problem_bad_parameter_names_it(data):
    args = {
        "simulate": _simulate,
        "designs": [{"x": 1}, {"x": 2}],
        "objectives": ["f", "g"],
        "common_random_numbers": True,
    }
    which = data.draw(
        st.sampled_from(
            ["simulate", "designs", "objectives", "common_random_numbers", "parameter names"]
        ),
        label="which",
    )
    fragment = f"'{which}'"
    if which == "simulate":
        args["simulate"] = data.draw(st.one_of(WRONG_TYPE, st.integers()))
    elif which == "designs":
        args["designs"] = data.draw(
            st.one_of(
                st.just([]),
                st.just(pd.DataFrame()),
                st.text(max_size=4),
                st.integers(),
                st.none(),
                st.just({"x": [1, 2]}),  # a dict of lists
                st.lists(
                    st.one_of(
                        st.integers(), st.text(max_size=2), st.lists(st.integers(), max_size=2)
                    ),
                    min_size=1,
                    max_size=3,
                ),  # entries not dicts
                st.lists(st.just({"x": 1}), min_size=1, max_size=2).map(lambda d: [*d, 5]),
            ),
            label="designs",
        )
    elif which == "objectives":
        args["objectives"] = data.draw(
            st.one_of(
                st.just([]),
                st.text(max_size=4),
                st.none(),
                st.integers(),
                st.just({"f", "g"}),
                st.lists(
                    st.one_of(
                        st.integers(),
                        st.just(""),
                        st.just(" "),
                        RESERVED,
                        st.just("x"),
                        st.just("f_se"),
                    ),
                    min_size=1,
                    max_size=2,
                ),
                st.just(["f", "f"]),
            ),
            label="objectives",
        )
    elif which == "common_random_numbers":
        args["common_random_numbers"] = data.draw(
            st.one_of(st.integers(), st.text(max_size=3), st.none(), st.floats())
        )
    else:
        name = data.draw(
            st.one_of(RESERVED, st.just(""), st.just("  "), st.integers()), label="name"
        )
        if data.draw(st.booleans(), label="frame"):
            args["designs"] = pd.DataFrame({name: [1, 2], "x": [3, 4]})
        else:
            args["designs"] = [{name: 1, "x": 3}, {name: 2, "x": 4}]
        fragment = "'designs'"
    raises_naming(
        lambda: FunctionProblem(
            args["simulate"],
            args["designs"],
            args["objectives"],
            common_random_numbers=args["common_random_numbers"],
        ),
        fragment,
    )


def test_function_problem_duplicate_parameter_names():
    table = pd.DataFrame([[1, 2], [3, 4]], columns=["x", "x"])
    raises_naming(lambda: FunctionProblem(_simulate, table, ["f", "g"]), "'designs'", "'x' twice")


@fuzz(20)
@given(xs=st.lists(st.integers(-100, 100), min_size=1, max_size=6))
def test_function_problem_designs_round_trip(xs):
    prob = FunctionProblem(_simulate, [{"x": x} for x in xs], ["f", "g"], n_reps=2)
    assert prob.n_designs == len(xs)
    assert [prob.decode(prob.design(i))["x"] for i in range(len(xs))] == xs
    assert prob.replicate(range(len(xs)), [0, 1], seed=1)[:, :, 0].tolist() == [[x, x] for x in xs]


# -- NormalProblem --------------------------------------------------------------------------------
@fuzz(120)
@given(data=st.data())
def test_normal_problem_bad_parameter_names_it(data):
    means, sd, objectives = [[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], 1.0, None
    which = data.draw(st.sampled_from(["means", "sd", "objectives"]), label="which")
    if which == "means":
        means = data.draw(
            st.one_of(
                st.just([]),
                st.just([[]]),
                st.just(np.ones((2, 2, 2))),
                LETTERS,
                st.just([[1.0, 2.0], [1.0]]),
                st.just([{"a": 1}]),
                st.just([1j]),
                st.lists(st.floats(0, 10), min_size=1, max_size=4).flatmap(
                    lambda v: st.tuples(st.integers(0, len(v) - 1), NON_FINITE).map(
                        lambda t: v[: t[0]] + [t[1]] + v[t[0] + 1 :]
                    )
                ),
            ),
            label="means",
        )
    elif which == "sd":
        sd = data.draw(
            st.one_of(
                NEGATIVE,
                NON_FINITE,
                LETTERS,
                st.just([1.0, 2.0]),
                st.just([[1.0, 2.0, 3.0]]),
                st.just([[-1.0, 1.0]] * 3),
                st.just([[1.0], [2.0]]),
            ),
            label="sd",
        )
    else:
        objectives = data.draw(
            st.one_of(
                st.just(["f"]),
                st.just(["a", "b", "c"]),
                st.just("ab"),
                st.integers(),
                st.just(["a", "a"]),
                st.just(["i", "b"]),
                st.just(["design", "b"]),
                st.just(["a", ""]),
                st.just([1, 2]),
                st.just({"a", "b"}),
            ),
            label="objectives",
        )
    raises_naming(lambda: NormalProblem(means, sd, objectives=objectives), f"'{which}'")


@fuzz(30)
@given(rows=st.integers(1, 6), cols=st.integers(1, 3), data=st.data())
def test_normal_problem_valid_tables(rows, cols, data):
    means = data.draw(
        st.lists(
            st.lists(st.floats(-1e6, 1e6), min_size=cols, max_size=cols),
            min_size=rows,
            max_size=rows,
        )
    )
    prob = NormalProblem(means, sd=0.0)
    assert (prob.n_designs, prob.n_obj) == (rows, cols)
    out = prob.replicate(range(rows), [0, 3], seed=2)
    np.testing.assert_array_equal(
        out, np.repeat(np.array(means, dtype=float)[:, None, :], 2, axis=1)
    )
