"""mopt.utility_spec: the utility specs of the command line (``--utility "product(makespan, cost)"``).
Generated bad specs each end in one clear error naming the function, parameter or argument; good
ones build the library's utilities."""

from __future__ import annotations

import ast

import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import mopt
from mopt import InputError
from mopt.utility_spec import UTILITY_FUNCTIONS, parse_utility
from tests.helpers import count_bad_input, fuzz
from tests.strategies import FINITE, NAMES, NOT_AN_ARGUMENT, UTILITY_NAMES, assert_names


def test_parse_utility_negative_numbers_and_u():
    assert parse_utility("weighted(makespan=1, cost=-2)").name == "weighted(makespan=1, cost=-2)"
    assert parse_utility("U(alpha=1, beta=0.5)").name.startswith("U(alpha=1, beta=0.5")


# -- generated bad specs -------------------------------------------------------------------------
def parse_bad(spec, *fragments: str, kind=InputError):
    with pytest.raises(kind) as info:
        parse_utility(spec)
    assert_names(info.value, *fragments)
    count_bad_input("utility")


@fuzz(60)
@given(
    name=NAMES.filter(lambda n: n not in UTILITY_FUNCTIONS),
    args=st.sampled_from(["", "makespan", "1, 2"]),
)
def test_utility_unknown_function_names_it(name, args):
    parse_bad(f"{name}({args})", f"{name!r} is not a utility")


@fuzz(60)
@given(fn=st.sampled_from(UTILITY_NAMES), arg=NOT_AN_ARGUMENT, keyword=st.booleans())
def test_utility_argument_not_a_name_or_number(fn, arg, keyword):
    assume(not (keyword and arg.startswith("*")))
    spec = f"{fn}(x={arg})" if keyword else f"{fn}({arg})"
    try:
        ast.parse(spec, mode="eval")
    except SyntaxError:
        parse_bad(spec, "is not a call like")  # not even an expression
        return
    parse_bad(spec, "arguments must be objective names or numbers")


@fuzz(60)
@given(data=st.data())
def test_utility_bad_number_names_the_parameter(data):
    which = data.draw(
        st.sampled_from(["weighted", "within_budget", "by_deadline", "U"]), label="fn"
    )
    huge = st.sampled_from(["1e999", "-1e999", "1e400"])
    if which == "weighted":
        name = data.draw(NAMES, label="objective")
        spec, fragment = f"weighted({name}={data.draw(huge)})", f"'weight of {name}'"
    elif which in ("within_budget", "by_deadline"):
        spec, fragment = f"{which}(a, {data.draw(huge)}, then=b)", "'limit'"
    else:
        param = data.draw(st.sampled_from(["alpha", "beta", "kappa"]), label="param")
        low = data.draw(st.one_of(st.floats(-1e300, -1e-300).map(repr), huge), label="value")
        if param == "kappa":
            low = data.draw(st.one_of(st.floats(-1e300, 0.0).map(repr), huge), label="kappa")
        spec, fragment = f"U({param}={low})", f"'{param}'"
    parse_bad(spec, fragment)


@fuzz(60)
@given(fn=st.sampled_from(UTILITY_NAMES), kw=NAMES, repeated=st.booleans())
def test_utility_unknown_or_repeated_keyword(fn, kw, repeated):
    if repeated:
        spec = f"{fn}(a, {kw}=1, {kw}=2)"
        parse_bad(spec, f"{kw!r} is repeated")
    else:
        params = {
            "minimize": {"obj"},
            "product": {"a", "b"},
            "within_budget": {"cost", "limit", "then", "probability", "confidence"},
            "by_deadline": {"time", "limit", "then", "probability", "confidence"},
            "U": {"alpha", "beta", "kappa", "utilisation", "slowdown"},
            "quantile": {"obj", "q"},
            "cvar": {"obj", "q"},
        }
        assume(fn != "weighted" and kw not in params[fn])
        parse_bad(f"{fn}({kw}=1)", repr(kw))


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("minimize()", "'obj'"),
        ("minimize(a, b)", "minimize()"),
        ("product(a)", "'b'"),
        ("weighted()", "'weights'"),
        ("within_budget(cost, 1)", "'then'"),
        ("by_deadline(makespan)", "'limit'"),
        ("U(1, 2, 3, 4)", "U()"),
        ("minimize(1)", "'obj'"),
        ("product(a, 2)", "'b'"),
        ("within_budget(1, 2, then=x)", "'cost'"),
        ("by_deadline(x, 1, then=5)", "'then'"),
        ("U(utilisation=1)", "'utilisation'"),
        ("U(slowdown=2)", "'slowdown'"),
        ("minimize('')", "'obj'"),
        ("weighted(makespan='fast')", "'weight of makespan'"),
    ],
)
def test_utility_wrong_arguments_name_the_parameter(spec, fragment):
    parse_bad(spec, fragment)


@fuzz(60)
@given(
    text=st.one_of(
        st.text(alphabet="()[]{},=+-*/.'\"abc 0123", max_size=30),
        st.sampled_from(UTILITY_NAMES).map(lambda f: f"{f}(makespan"),
        st.sampled_from(UTILITY_NAMES).map(lambda f: f"{f}(makespan))"),
        st.sampled_from(UTILITY_NAMES).map(lambda f: f"{f}(makespan)\x00"),
    )
)
def test_utility_not_a_single_call(text):
    try:
        tree = ast.parse(text.strip(), mode="eval")
        is_call = (
            type(tree.body).__name__ == "Call"
            and type(tree.body.func).__name__ == "Name"
            and (tree.body.func.id in UTILITY_FUNCTIONS)
        )
    except (SyntaxError, ValueError):
        is_call = False
    assume(not is_call)
    parse_bad(text, "utility")


@fuzz(20)
@given(n=st.integers(501, 2000))
def test_utility_too_long(n):
    parse_bad("minimize(" + "m" * n + ")", "too long")


@pytest.mark.parametrize("spec", [None, 5, b"minimize(x)", ["minimize(x)"], 1.5])
def test_utility_not_a_string_is_a_type_error(spec):
    parse_bad(spec, "'utility'", kind=TypeError)


@fuzz(40)
@given(
    a=NAMES,
    b=NAMES,
    limit=FINITE,
    w=st.floats(-1e6, 1e6),
    values=st.lists(st.tuples(st.floats(0, 1e6), st.floats(0, 1e6)), min_size=1, max_size=5),
)
def test_utility_specs_build_the_library_utilities(a, b, limit, w, values):
    assume(a != b)
    df = pd.DataFrame(values, columns=[a, b])
    u = mopt.utility
    pairs = [
        (f"minimize({a})", u.minimize(a)),
        (f"product({a}, '{b}')", u.product(a, b)),
        (f"weighted({a}={w!r}, {b}=1)", u.weighted(**{a: w, b: 1})),
        (f"within_budget({a}, {limit!r}, then={b})", u.within_budget(a, limit, then=b)),
        (f"by_deadline(time={a}, limit={limit!r}, then={b})", u.by_deadline(a, limit, then=b)),
    ]
    for spec, lib in pairs:
        got = parse_utility(spec)
        assert got.name == lib.name
        pd.testing.assert_series_equal(got(df), lib(df))
