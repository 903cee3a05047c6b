"""Hypothesis strategies of bad input shared by the fuzz tests, and TOML literals of values."""

from __future__ import annotations

import datetime
import keyword
import math

from hypothesis import strategies as st

from mopt.utility_spec import UTILITY_FUNCTIONS


# -- TOML literals ---------------------------------------------------------------------------------
def lit(value) -> str:
    """``value`` as a TOML literal."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):  # a TOML basic string: control characters (and DEL) escaped
        return (
            '"'
            + "".join(
                f"\\u{ord(c):04x}"
                if ord(c) < 0x20 or ord(c) == 0x7F
                else "\\" + c
                if c in '"\\'
                else c
                for c in value
            )
            + '"'
        )
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(lit(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {lit(v)}" for k, v in value.items()) + "}"
    raise AssertionError(value)


# -- strategies of bad values ------------------------------------------------------------------
FINITE = st.floats(allow_nan=False, allow_infinity=False)
NON_FINITE = st.sampled_from([math.nan, math.inf, -math.inf])
NEGATIVE = st.floats(max_value=-5e-324, allow_infinity=False)  # strictly below 0 (not -0.0)
NON_POSITIVE = FINITE.filter(lambda x: x <= 0)
NON_INTEGRAL = FINITE.filter(lambda x: x != math.floor(x))
TOML_INT = st.integers(-(2**63), 2**63 - 1)
# text that float() and int() reject (no CSV or TOML structure characters)
WORDS = st.text(alphabet="abcdefghjklmopqrsuvwxyzXYZ!?#&*;:@^~ ", min_size=1, max_size=12).filter(
    lambda s: s.strip() != "" and _not_a_number(s)
)
SAFE_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)


def _not_a_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return True
    return False


def bad_count(low: int, high: int | None = None, *, integral_floats_ok: bool = True):
    """Values a count in [low, high] must reject: too small, too large, non-integral, non-finite."""
    out = [st.integers(-(2**63), low - 1), NON_INTEGRAL, NON_FINITE]
    if high is not None:
        out.append(st.integers(high + 1, 2**63 - 1))
        if integral_floats_ok:
            out.append(
                st.floats(min_value=float(2 * high + 2), max_value=1e300).map(math.floor).map(float)
            )
    return st.one_of(out)


WRONG_TYPE = st.one_of(
    SAFE_TEXT,
    st.booleans(),
    st.lists(st.integers(0, 9), max_size=3),
    st.just({"a": 1}),
    st.dates(min_value=datetime.date(1900, 1, 1)),
    st.times().map(lambda t: t.replace(microsecond=0)),
)
WRONG_TYPE_NOT_STR = WRONG_TYPE.filter(lambda v: not isinstance(v, str))

# a bare TOML key
BARE_KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,14}", fullmatch=True)


# -- utility specs: names and arguments --------------------------------------------------------------
NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: s not in ("nan", "inf") and not keyword.iskeyword(s)
)
UTILITY_NAMES = sorted(UTILITY_FUNCTIONS)
NOT_AN_ARGUMENT = st.one_of(
    st.sampled_from(
        [
            "makespan.real",
            "cost[0]",
            "1 + 2",
            "makespan * 2",
            "[1]",
            "(1, 2)",
            "{1: 2}",
            "None",
            "True",
            "False",
            "...",
            "1j",
            "b'x'",
            "f'{x}'",
            "lambda: 1",
            "not 1",
            "~1",
            "--1",
            "-'a'",
            "open('x')",
            "makespan if 1 else cost",
            "x := 1",
            "*a",
            "-makespan",
        ]
    ),
    NAMES.map(lambda n: f"{n}()"),
    NAMES.map(lambda n: f"{n}.x"),
)


def assert_names(exc: BaseException, *fragments: str) -> None:
    message = str(exc)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def misspell(key: str, how: int, at: int) -> str:
    """``key`` with one typo: a letter dropped, doubled, swapped with the next or replaced, or the case
    changed (``how`` 0..4, at position ``at`` modulo the length)."""
    at %= len(key)
    if how == 0:
        return key[:at] + key[at + 1 :]  # a letter dropped
    if how == 1:
        return key[:at] + key[at] + key[at:]  # a letter doubled
    if how == 2 and at + 1 < len(key):
        return key[:at] + key[at + 1] + key[at] + key[at + 2 :]  # two letters swapped
    if how == 3:
        return key[:at] + ("x" if key[at] != "x" else "y") + key[at + 1 :]  # a letter replaced
    return key.upper() if key != key.upper() else key.lower()
