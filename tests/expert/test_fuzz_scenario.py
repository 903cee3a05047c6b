"""Generated bad input for the user-facing entry points: scenario files, utility specs, the CLI.

Every generated input is bad by construction (an unknown or misspelt key, an out-of-range or
non-finite value, a wrong type, malformed TOML, a bad CSV cell, a bad option or spec) and must end
in one clear error that names the file and the key (or line, option, parameter).  Nothing is
simulated: ``StochasticProblem.replicate`` is patched to fail while bad input is checked.
"""

from __future__ import annotations

import ast
import datetime
import itertools
import keyword
import math
import re
from pathlib import Path
from unittest import mock

import pandas as pd
import pytest
from tests.helpers import count_bad_input, fuzz, no_simulation
from hypothesis import assume, given
from hypothesis import strategies as st

import mopt
from mopt import InputError
from mopt.cli import main
from mopt.core.problem import StochasticProblem
from mopt.scenario import load_scenario
from mopt.utility_spec import UTILITY_FUNCTIONS, parse_utility

_counter = itertools.count()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# -- TOML rendering --------------------------------------------------------------------------
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


def base_sections() -> dict:
    """A small valid scenario (reference environment, 3 x 2 x 2 x 2 grid), as TOML literals."""
    return {
        "environment": {
            "n_tasks": "150",
            "n_unreliable": "50",
            "t_ur": "2066",
            "t_r": "2066",
            "c_ur": '"1/3600"',
            "c_r": '"34/3600"',
            "mr_max": "0.1",
            "charging_period_r": "1",
        },
        "turnaround": {
            "kind": '"shifted_lognormal"',
            "mean": "2066",
            "shift": "1000",
            "sigma": "0.5",
            "reliability": "0.827",
        },
        "grid": {"N": '[0, 1, "inf"]', "T": "[0, 2066]", "D": "[2066, 4132]", "Mr": "[0.02, 0.1]"},
        "run": {"method": '"exhaustive"', "n_reps": "2", "seed": "1", "budget": "100"},
    }


def render(sections: dict, top: tuple[str, ...] = ()) -> str:
    lines = list(top)
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(workdir: Path, text: str | bytes, stem: str = "scenario", suffix: str = ".toml") -> Path:
    path = workdir / f"{stem}_{next(_counter)}{suffix}"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_base_scenario_is_valid(workdir):
    sc = load_scenario(write(workdir, render(base_sections())))
    assert sc.problem().n_designs > 0 and (sc.n_reps, sc.budget) == (2, 100)


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

# key -> (section, strategy of bad values); every one of them names the key in its error
BAD_VALUES = {
    "n_tasks": ("environment", st.one_of(bad_count(1, 10**6), WRONG_TYPE)),
    "n_unreliable": ("environment", st.one_of(bad_count(1, 10**6), WRONG_TYPE)),
    # t_ur <= 250 s: no result is possible before 4·t_ur <= 1000 s = the shift of F_s
    "t_ur": (
        "environment",
        st.one_of(
            NON_POSITIVE,
            NON_FINITE,
            st.floats(1e-300, 250.0),
            st.floats(4.5e307, 1.7e308),
            WRONG_TYPE,
        ),
    ),
    "t_r": ("environment", st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE)),
    "c_ur": (
        "environment",
        st.one_of(
            NEGATIVE,
            NON_FINITE,
            WRONG_TYPE_NOT_STR,
            WORDS,
            st.integers(0, 99).map(lambda a: f"{a}/0"),
            st.just("1" + "0" * 400 + "/1"),
        ),
    ),
    "c_r": (
        "environment",
        st.one_of(
            NEGATIVE,
            NON_FINITE,
            WRONG_TYPE_NOT_STR,
            WORDS,
            st.integers(0, 99).map(lambda a: f"{a}/0.0"),
        ),
    ),
    "mr_max": (
        "environment",
        st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE, st.floats(0.0, 0.1, exclude_max=True)),
    ),  # < the grid's Mr
    "charging_period_r": ("environment", st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE)),
    "mean": (
        "turnaround",
        st.one_of(st.floats(-1e300, 1000.0), NON_FINITE, st.floats(1e308, 1.7e308), WRONG_TYPE),
    ),
    "shift": ("turnaround", st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE)),
    "sigma": (
        "turnaround",
        st.one_of(NON_POSITIVE, NON_FINITE, st.floats(40.0, 1e300), WRONG_TYPE),
    ),
    "reliability": (
        "turnaround",
        st.one_of(NEGATIVE, st.floats(1.0, 1e300, exclude_min=True), NON_FINITE, WRONG_TYPE),
    ),
    "kind": (
        "turnaround",
        st.one_of(
            SAFE_TEXT.filter(lambda s: s not in ("shifted_lognormal", "instances")),
            WRONG_TYPE_NOT_STR,
        ),
    ),
    "preset": (
        "grid",
        st.one_of(
            SAFE_TEXT.filter(lambda s: s not in ("paper", "high_resolution")), WRONG_TYPE_NOT_STR
        ),
    ),
    "method": (
        "run",
        st.one_of(SAFE_TEXT.filter(lambda s: s not in mopt.METHODS), WRONG_TYPE_NOT_STR),
    ),
    "n_reps": ("run", st.one_of(bad_count(1, 2**62), WRONG_TYPE)),
    "seed": ("run", st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NON_FINITE, WRONG_TYPE)),
    "budget": ("run", st.one_of(bad_count(1), WRONG_TYPE)),
}

_INF_WORDS = ("inf", "infinity", "+inf")
BAD_GRID_VALUES = {
    "N": st.one_of(
        st.integers(-(2**63), -1),
        st.integers(10**6 + 1, 2**63 - 1),
        NON_INTEGRAL,
        st.sampled_from([math.nan, -math.inf]),
        st.booleans(),
        SAFE_TEXT.filter(lambda s: s.strip().lower() not in _INF_WORDS),
    ),
    "T": st.one_of(NEGATIVE, NON_FINITE, st.booleans(), SAFE_TEXT),
    "D": st.one_of(NON_POSITIVE, NON_FINITE, st.booleans(), SAFE_TEXT),
    "Mr": st.one_of(
        NEGATIVE, st.floats(0.1, 1e300, exclude_min=True), NON_FINITE, st.booleans(), SAFE_TEXT
    ),
}
GOOD_GRID_VALUES = {
    "N": [0, 1, 2, "inf"],
    "T": [0.0, 1033.0, 2066.0],
    "D": [2066.0, 4132.0],
    "Mr": [0.02, 0.1],
}


def assert_names(exc: BaseException, *fragments: str) -> None:
    message = str(exc)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def load_bad(path: Path, *fragments: str):
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        load_scenario(path)
    assert_names(info.value, str(path), *fragments)
    count_bad_input("scenario")
    return info.value


# -- scenario files: values ------------------------------------------------------------------
@fuzz(250)
@given(data=st.data())
def test_scenario_bad_value_names_file_section_and_key(workdir, data):
    key = data.draw(st.sampled_from(sorted(BAD_VALUES)), label="key")
    section, values = BAD_VALUES[key]
    value = data.draw(values, label="value")
    sections = base_sections()
    sections[section][key] = lit(value)
    path = write(workdir, render(sections))
    exc = load_bad(path)
    # a bad mean or shift names both (mean must exceed the shift); a small mr_max names Mr
    expected = {"mean": ("'mean'",), "mr_max": ("mr_max",)}.get(key, (f"'{key}'",))
    assert_names(exc, *expected)
    assert f"[{section}]" in str(exc) or key == "mr_max"


@fuzz(120)
@given(data=st.data())
def test_scenario_bad_grid_value_names_the_list(workdir, data):
    key = data.draw(st.sampled_from(sorted(BAD_GRID_VALUES)), label="key")
    good = list(GOOD_GRID_VALUES[key])
    shape = data.draw(st.sampled_from(["element", "scalar", "empty"]), label="shape")
    if shape == "empty":
        value = []
    else:
        bad = data.draw(BAD_GRID_VALUES[key], label="bad")
        if shape == "scalar":
            value = bad
        else:
            value = good[:]
            value.insert(data.draw(st.integers(0, len(good)), label="at"), bad)
    sections = base_sections()
    sections["grid"][key] = lit(value)
    path = write(workdir, render(sections))
    load_bad(path, "[grid]", f"'{key}'")


# -- scenario files: keys and sections ---------------------------------------------------------
ALLOWED = {
    "environment": {
        "n_tasks",
        "n_unreliable",
        "t_ur",
        "t_r",
        "c_ur",
        "c_r",
        "mr_max",
        "charging_period_r",
    },
    "turnaround": {"kind", "mean", "shift", "sigma", "reliability"},
    "grid": {"preset", "N", "T", "D", "Mr"},
    "run": {"method", "n_reps", "seed", "budget"},
}
REQUIRED = {
    "environment": ["n_tasks", "n_unreliable", "t_ur", "c_ur", "c_r"],
    "turnaround": ["kind", "mean", "shift", "reliability"],
}
BARE_KEY = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,14}", fullmatch=True)
SECTION_NAMES = {"environment", "turnaround", "observed", "grid", "run"}


def misspell(key: str, how: int, at: int) -> str:
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


@fuzz(100)
@given(data=st.data())
def test_scenario_unknown_key_names_it(workdir, data):
    section = data.draw(st.sampled_from(sorted(ALLOWED)), label="section")
    key = data.draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="key")
    value = data.draw(st.one_of(st.integers(0, 9), SAFE_TEXT, st.booleans()), label="value")
    sections = base_sections()
    sections[section][key] = lit(value)
    load_bad(write(workdir, render(sections)), f"[{section}] unknown key '{key}'")


@fuzz(100)
@given(data=st.data())
def test_scenario_misspelt_key_names_it(workdir, data):
    section = data.draw(st.sampled_from(sorted(ALLOWED)), label="section")
    key = data.draw(st.sampled_from(sorted(base_sections()[section])), label="key")
    typo = misspell(key, data.draw(st.integers(0, 4)), data.draw(st.integers(0, 30)))
    assume(typo and typo not in ALLOWED[section] and re.fullmatch(r"[A-Za-z0-9_-]+", typo))
    sections = base_sections()
    sections[section] = {(typo if k == key else k): v for k, v in sections[section].items()}
    load_bad(write(workdir, render(sections)), f"[{section}] unknown key '{typo}'")


@pytest.mark.parametrize("section, key", [(s, k) for s, keys in REQUIRED.items() for k in keys])
def test_scenario_missing_required_key_names_it(workdir, section, key):
    sections = base_sections()
    del sections[section][key]
    load_bad(write(workdir, render(sections)), f"[{section}] missing key '{key}'")


@fuzz(50)
@given(name=BARE_KEY.filter(lambda k: k not in SECTION_NAMES), as_key=st.booleans())
def test_scenario_unknown_section_or_top_level_key_names_it(workdir, name, as_key):
    sections = base_sections()
    if as_key:
        text = render(sections, top=(f"{name} = 1",))
        fragment = f"unknown top-level key '{name}'"
    else:
        text = render({**sections, name: {"x": "1"}})
        fragment = f"unknown section [{name}]"
    load_bad(write(workdir, text), fragment)


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda s: s.pop("turnaround"), "missing section [turnaround]"),
        (lambda s: s.pop("environment"), "missing section [environment]"),
        (
            lambda s: s.update(observed={"file": '"log.csv"', "t_tail": "1", "deadline": "1"}),
            "[observed] are alternatives",
        ),
    ],
)
def test_scenario_section_structure(workdir, change, fragment):
    sections = base_sections()
    change(sections)
    load_bad(write(workdir, render(sections)), fragment)


@fuzz(30)
@given(section=st.sampled_from(sorted(SECTION_NAMES)), value=st.one_of(st.integers(), SAFE_TEXT))
def test_scenario_section_given_as_a_value(workdir, section, value):
    sections = base_sections()
    sections.pop(section, None)
    load_bad(
        write(workdir, render(sections, top=(f"{section} = {lit(value)}",))),
        f"'{section}' must be a section",
    )


# -- scenario files: malformed TOML and unreadable files -----------------------------------------
MALFORMED_LINES = st.one_of(
    BARE_KEY.map(lambda k: f"{k} = "),  # no value
    st.tuples(BARE_KEY, st.text("abc xyz", max_size=5)).map(
        lambda t: f'{t[0]} = "{t[1]}'
    ),  # unterminated
    BARE_KEY.map(lambda k: f"[{k}"),  # unclosed header
    BARE_KEY.map(lambda k: f"[[{k}]"),
    st.tuples(BARE_KEY, st.integers(), st.integers()).map(lambda t: f"{t[0]} = {t[1]} {t[2]}"),
    st.integers().map(lambda v: f"= {v}"),  # no key
    BARE_KEY.map(lambda k: f"{k} = {{x = 1"),  # unclosed inline table
    BARE_KEY.map(lambda k: f"{k} = [1,,2]"),
    st.tuples(
        BARE_KEY, st.sampled_from(["tru", "%", "0x", "1979-13-45", "+", "'a' 'b'", "1.", "nan1"])
    ).map(lambda t: f"{t[0]} = {t[1]}"),
)


@fuzz(120)
@given(data=st.data())
def test_scenario_malformed_toml_names_file_and_line(workdir, data):
    lines = render(base_sections()).splitlines()
    at = data.draw(st.integers(0, len(lines)), label="at")
    bad = data.draw(MALFORMED_LINES, label="line")
    lines.insert(at, bad)
    exc = load_bad(write(workdir, "\n".join(lines) + "\n"), "malformed TOML", f"line {at + 1}")
    assert isinstance(exc, InputError)


@fuzz(40)
@given(data=st.data())
def test_scenario_duplicate_key_is_malformed_toml(workdir, data):
    section = data.draw(st.sampled_from(sorted(ALLOWED)), label="section")
    sections = base_sections()
    key = data.draw(st.sampled_from(sorted(sections[section])), label="key")
    text = render(sections)
    lines = text.splitlines()
    header = lines.index(f"[{section}]")
    at = data.draw(st.integers(header + 1, header + 1 + len(sections[section])), label="at")
    lines.insert(at, f"{key} = 1")
    load_bad(write(workdir, "\n".join(lines) + "\n"), "malformed TOML", "line ")


@fuzz(30)
@given(junk=st.binary(min_size=1, max_size=20).filter(lambda b: _not_utf8(b)))
def test_scenario_not_utf8_names_the_file(workdir, junk):
    load_bad(
        write(workdir, render(base_sections()).encode() + junk), "cannot read the scenario file"
    )


def _not_utf8(b: bytes) -> bool:
    try:
        b.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_scenario_missing_file_and_directory(workdir):
    load_bad(workdir / "nope.toml", "no such scenario file")
    load_bad(workdir, "is a directory")


# -- scenario files: CSV files they refer to -------------------------------------------------------
def instances_scenario(
    workdir: Path, rows: list[list[str]], header="send_time,turnaround_time"
) -> tuple[Path, Path]:
    csv_path = write(
        workdir, header + "\n" + "".join(",".join(r) + "\n" for r in rows), "inst", ".csv"
    )
    sections = base_sections()
    sections["turnaround"] = {"kind": '"instances"', "file": lit(csv_path.name), "deadline": "4000"}
    return write(workdir, render(sections)), csv_path


GOOD_ROWS = [[f"{10 * i}", f"{1000 + 13 * i}" if i % 4 else "inf"] for i in range(12)]


@fuzz(80)
@given(data=st.data())
def test_instances_csv_bad_cell_names_file_line_and_column(workdir, data):
    row = data.draw(st.integers(0, len(GOOD_ROWS) - 1), label="row")
    column = data.draw(st.sampled_from(["send_time", "turnaround_time"]), label="column")
    if column == "send_time":
        bad = data.draw(
            st.one_of(
                WORDS, st.just(""), NEGATIVE.map(repr), st.sampled_from(["nan", "inf", "-inf"])
            )
        )
    else:
        bad = data.draw(
            st.one_of(WORDS, NEGATIVE.map(repr), st.sampled_from(["nan", "-inf", "NaN"]))
        )
    rows = [r[:] for r in GOOD_ROWS]
    rows[row][0 if column == "send_time" else 1] = bad
    path, csv_path = instances_scenario(workdir, rows)
    load_bad(path, "[turnaround]", str(csv_path), f"line {row + 2}", f"'{column}'")


@pytest.mark.parametrize("header", ["send,turnaround_time", "send_time", "turnaround_time,x", ""])
def test_instances_csv_missing_column(workdir, header):
    path, csv_path = instances_scenario(workdir, GOOD_ROWS if header else [], header=header)
    load_bad(path, "[turnaround]", str(csv_path), "missing column")


@fuzz(40)
@given(data=st.data())
def test_instances_bad_keys(workdir, data):
    key = data.draw(st.sampled_from(["deadline", "group_size", "t_tail", "file"]), label="key")
    bad = {
        "deadline": st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE),
        "group_size": st.one_of(bad_count(1), WRONG_TYPE),
        "t_tail": st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE),
        "file": st.one_of(WRONG_TYPE_NOT_STR, st.just(""), SAFE_TEXT.map(lambda s: s + "\x00")),
    }[key]
    path, _ = instances_scenario(workdir, GOOD_ROWS)
    text = path.read_text().replace(
        "deadline = 4000", f"deadline = 4000\n{key} = {lit(data.draw(bad))}"
    )
    if key in ("deadline", "file"):  # replace the key's own line
        text = re.sub(rf"^{key} = .*\n", "", text, count=1, flags=re.M)
    load_bad(write(workdir, text), "[turnaround]", f"'{key}'")


OBSERVED_LOG = "task,send_time,result_time\n0,0,1000\n1,0,\n2,0,900\n3,900,\n4,1000,\n1,1100,\n"


def observed_scenario(workdir: Path, log: str, extra: str = "") -> tuple[Path, Path]:
    csv_path = write(workdir, log, "log", ".csv")
    text = (
        "[environment]\nn_unreliable = 3\nt_r = 500\nc_ur = 1\nc_r = 10\nmr_max = 1\n\n"
        f"[observed]\nfile = {lit(csv_path.name)}\nt_tail = 1200\ndeadline = 1100\n{extra}\n"
        "[grid]\nN = [0]\nT = [0]\nD = [1100]\nMr = [1]\n"
    )
    return write(workdir, text), csv_path


def test_observed_base_is_valid(workdir):
    path, _ = observed_scenario(workdir, OBSERVED_LOG)
    assert load_scenario(path).observed.n_remaining == 3


@fuzz(60)
@given(data=st.data())
def test_observed_log_bad_cell_names_file_line_and_column(workdir, data):
    rows = [line.split(",") for line in OBSERVED_LOG.splitlines()]
    row = data.draw(st.integers(1, len(rows) - 1), label="row")
    column = data.draw(st.sampled_from(["task", "send_time"]), label="column")
    bad = data.draw(st.one_of(WORDS, st.just(""), st.integers(-(2**62), -1).map(str)), label="bad")
    rows[row][rows[0].index(column)] = bad
    path, csv_path = observed_scenario(workdir, "".join(",".join(r) + "\n" for r in rows))
    load_bad(path, "[observed]", str(csv_path), f"line {row + 1}", f"'{column}'")


@fuzz(40)
@given(data=st.data())
def test_observed_bad_keys(workdir, data):
    key = data.draw(st.sampled_from(["t_tail", "deadline", "group_size"]), label="key")
    bad = {
        "t_tail": st.one_of(NEGATIVE, NON_FINITE, WRONG_TYPE),
        "deadline": st.one_of(NON_POSITIVE, NON_FINITE, WRONG_TYPE),
        "group_size": st.one_of(bad_count(1), WRONG_TYPE),
    }[key]
    path, _ = observed_scenario(workdir, OBSERVED_LOG)
    text = re.sub(rf"^{key} = .*\n", "", path.read_text(), count=1, flags=re.M)
    text = text.replace("[grid]", f"{key} = {lit(data.draw(bad))}\n[grid]")
    load_bad(write(workdir, text), "[observed]", f"'{key}'")


# -- scenario files: valid values load exactly ---------------------------------------------------
@fuzz(40)
@given(
    num=st.integers(0, 10**6),
    den=st.integers(1, 10**6),
    n_reps=st.integers(1, 50),
    seed=st.integers(0, 2**63 - 1),
    t_ur=st.floats(600.0, 1e5),
)
def test_scenario_valid_values_load_exactly(workdir, num, den, n_reps, seed, t_ur):
    sections = base_sections()
    sections["environment"].update(c_ur=lit(f"{num}/{den}"), c_r=lit(num / den), t_ur=lit(t_ur))
    sections["environment"].pop("t_r")
    sections["turnaround"].update(mean=lit(t_ur + 1000.0))
    sections["run"].update(n_reps=lit(n_reps), seed=lit(seed))
    sc = load_scenario(write(workdir, render(sections)))
    assert sc.env.c_ur == num / den == sc.env.c_r
    assert sc.env.t_ur == sc.env.t_r == t_ur  # t_r defaults to t_ur
    assert (sc.n_reps, sc.seed) == (n_reps, seed)
    assert sc.problem().n_reps == n_reps


# -- utility specs ---------------------------------------------------------------------------------
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
            "within_budget": {"cost", "limit", "then"},
            "by_deadline": {"time", "limit", "then"},
            "U": {"alpha", "beta", "kappa", "utilisation", "slowdown"},
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


# -- the command line ------------------------------------------------------------------------------
def assert_one_line_error(capsys, code, *fragments: str) -> str:
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert "Traceback" not in captured.err and "Traceback" not in captured.out
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("mopt: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    count_bad_input("cli")
    return lines[0]


def assert_usage_error(capsys, code, command: str, *fragments: str) -> None:
    """A usage error: exit 2 and one line ``mopt: error: <command>: ...`` (no usage block)."""
    captured = capsys.readouterr()
    assert code == 2, (code, captured.err)
    assert "Traceback" not in captured.err
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"mopt: error: {command}: "), captured.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    count_bad_input("cli")


def run_cli(argv) -> int:
    with no_simulation():
        return main([str(a) for a in argv])


@pytest.fixture(scope="module")
def small_scenario(workdir) -> Path:
    return write(workdir, render(base_sections()), "small")


@fuzz(80)
@given(data=st.data())
def test_cli_frontier_bad_scenario_is_one_line(workdir, capsys, data):
    key = data.draw(st.sampled_from(sorted(BAD_VALUES)), label="key")
    section, values = BAD_VALUES[key]
    sections = base_sections()
    if data.draw(st.booleans(), label="typo"):
        typo = data.draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="typo key")
        sections[section][typo] = "1"
        fragment = f"unknown key '{typo}'"
    else:
        sections[section][key] = lit(data.draw(values, label="value"))
        fragment = "mr_max" if key == "mr_max" else f"'{key}'"
    path = write(workdir, render(sections))
    out = workdir / f"out_{next(_counter)}"
    capsys.readouterr()
    code = run_cli(["frontier", path, "--out", out, "--quiet"])
    assert_one_line_error(capsys, code, str(path), fragment)
    assert not out.exists()


def not_an_int(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return True
    return False


ARG_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)


@fuzz(90)
@given(data=st.data())
def test_cli_usage_errors_name_the_option(small_scenario, capsys, data):
    option = data.draw(st.sampled_from(["--seed", "--workers", "--budget"]), label="option")
    low = 0 if option == "--seed" else 1
    value = data.draw(
        st.one_of(
            st.integers(-(10**30), low - 1).map(str), FINITE.map(repr), ARG_TEXT.filter(not_an_int)
        ),
        label="value",
    )
    assume(not_an_int(value) or int(value) < low)
    command = data.draw(
        st.sampled_from(["frontier", "compare", "demo"] if option != "--budget" else ["frontier"])
    )
    argv = {
        "frontier": ["frontier", small_scenario],
        "demo": ["demo"],
        "compare": [
            "compare",
            small_scenario,
            "--methods",
            "exhaustive",
            "--budgets",
            "1",
            "--macroreps",
            "1",
        ],
    }[command]
    capsys.readouterr()
    code = run_cli([*argv, f"{option}={value}", "--quiet"])
    assert_usage_error(capsys, code, command, f"argument {option}")


@fuzz(30)
@given(method=SAFE_TEXT.filter(lambda s: s and "\x00" not in s and s not in mopt.METHODS))
def test_cli_frontier_unknown_method(small_scenario, workdir, capsys, method):
    capsys.readouterr()
    code = run_cli(
        ["frontier", small_scenario, f"--method={method}", "--out", workdir / "never", "--quiet"]
    )
    # the message is one line: runs of whitespace are folded
    assert_one_line_error(capsys, code, "'--method' must be one of", " ".join(repr(method).split()))


# method -> option -> strategy of bad command-line values (text), each naming the option
INT_TEXT_BAD = st.one_of(
    st.integers(-(10**6), 0).map(str),
    NON_INTEGRAL.map(repr),
    WORDS,
    st.sampled_from(["nan", "inf", "-inf", "true", "false", "1e999"]),
)
UNIT_TEXT_BAD = st.one_of(
    NON_POSITIVE.map(repr),
    st.floats(1.0, 1e300, exclude_min=True).map(repr),
    WORDS,
    st.sampled_from(["nan", "inf", "true"]),
)
CLI_OPTIONS = {
    ("exhaustive", "n_reps"): INT_TEXT_BAD,
    ("blind_pick", "alpha"): UNIT_TEXT_BAD,
    ("blind_pick", "n_reps"): INT_TEXT_BAD,
    ("oo", "n_rough"): INT_TEXT_BAD,
    ("oo", "s"): INT_TEXT_BAD,
    ("oo", "alpha"): UNIT_TEXT_BAD,
    ("oo", "utility"): WORDS,  # not an objective name
    ("ocba", "n0"): st.one_of(INT_TEXT_BAD, st.just("1")),
    ("ocba", "delta"): INT_TEXT_BAD,
    ("mocba", "n0"): st.one_of(INT_TEXT_BAD, st.just("1")),
    ("nsga2", "pop_size"): st.one_of(INT_TEXT_BAD, st.just("1"), st.integers(1000, 10**6).map(str)),
    ("nsga2", "full_reps_at"): UNIT_TEXT_BAD,
    ("nsga2", "confirm_front"): st.one_of(WORDS, st.integers().map(str)),
}


@fuzz(120)
@given(data=st.data())
def test_cli_frontier_bad_method_option(small_scenario, workdir, capsys, data):
    method, option = data.draw(st.sampled_from(sorted(CLI_OPTIONS)), label="option")
    value = data.draw(CLI_OPTIONS[method, option], label="value")
    assume(value.strip().lower() not in ("none", "true", "false") or option != "confirm_front")
    assume(value.strip().lower() != "none")
    capsys.readouterr()
    code = run_cli(
        [
            "frontier",
            small_scenario,
            "--method",
            method,
            "--budget",
            "50",
            f"--option={option}={value}",
            "--out",
            workdir / "never",
            "--quiet",
        ]
    )
    assert_one_line_error(capsys, code, f"'{option}'")


@fuzz(50)
@given(data=st.data())
def test_cli_frontier_malformed_or_unknown_option(small_scenario, workdir, capsys, data):
    method = data.draw(st.sampled_from(sorted(mopt.METHODS)), label="method")
    if data.draw(st.booleans(), label="malformed"):
        item = data.draw(
            st.one_of(
                ARG_TEXT.filter(lambda s: "=" not in s),
                ARG_TEXT.map(lambda s: " =" + s.replace("=", "")),
            ),
            label="item",
        )
        fragment = "'--option' must look like KEY=VALUE"
    else:
        key = data.draw(NAMES.filter(lambda k: k not in mopt.METHODS[method].defaults), label="key")
        item, fragment = f"{key}=1", f"unknown option '{key}' for method '{method}'"
    capsys.readouterr()
    code = run_cli(
        [
            "frontier",
            small_scenario,
            "--method",
            method,
            f"--option={item}",
            "--out",
            workdir / "never",
            "--quiet",
        ]
    )
    assert_one_line_error(capsys, code, fragment)


def compare_argv(path, **changes) -> list:
    args = {"--methods": "exhaustive", "--budgets": "50%", "--macroreps": "1", "--truth-reps": "2"}
    args.update(changes)
    return ["compare", path, *[x for k, v in args.items() for x in (f"{k}={v}",)], "--quiet"]


BUDGET_ITEM_BAD = st.one_of(
    st.integers(-(10**9), 0).map(str),
    NON_POSITIVE.map(lambda x: f"{x!r}%"),
    WORDS,
    WORDS.map(lambda w: w + "%"),
    NON_INTEGRAL.filter(lambda x: abs(x) < 1e15).map(repr),
    st.sampled_from(["nan%", "inf%", "%", "", "1e3", "-0"]),
)


@fuzz(120)
@given(data=st.data())
def test_cli_compare_bad_arguments(small_scenario, workdir, capsys, data):
    option = data.draw(
        st.sampled_from(["--methods", "--budgets", "--macroreps", "--truth-reps", "--utility"])
    )
    if option == "--methods":
        good = data.draw(st.lists(st.sampled_from(sorted(mopt.METHODS)), max_size=2, unique=True))
        bad = data.draw(
            st.one_of(NAMES.filter(lambda m: m not in mopt.METHODS), st.just("")), label="bad"
        )
        if data.draw(st.booleans(), label="repeat") and good:
            bad = good[0]
        items = good + [bad]
        value, fragments = ",".join(items), ["'--methods'"]
    elif option == "--budgets":
        good = data.draw(st.lists(st.sampled_from(["1", "50%", "3"]), max_size=2))
        bad = data.draw(BUDGET_ITEM_BAD, label="bad")
        assume("," not in bad)
        value, fragments = ",".join([*good, bad]), ["'--budgets'"]
    elif option in ("--macroreps", "--truth-reps"):
        value = data.draw(
            st.one_of(
                st.integers(-(10**9), 0).map(str),
                ARG_TEXT.filter(lambda s: s.strip() == "" or not_an_int(s.strip())),
            ),
            label="bad",
        )
        fragments = [f"'{option}'"]
    else:
        value = data.draw(
            st.one_of(
                NAMES.filter(lambda n: n not in UTILITY_FUNCTIONS).map(lambda n: f"{n}(makespan)"),
                st.sampled_from(
                    [
                        "minimize(speed)",
                        "product(makespan)",
                        "minimize(makespan",
                        "weighted(cost=1, cost=2)",
                        "U(kappa=0)",
                        "",
                        "1 + 2",
                    ]
                ),
            )
        )
        fragments = ["utility"]
    out = workdir / "never"
    capsys.readouterr()
    code = run_cli([*compare_argv(small_scenario, **{option: value}), "--out", out])
    assert_one_line_error(capsys, code, *fragments)
    assert not out.exists()


@fuzz(60)
@given(data=st.data())
def test_cli_compare_bad_method_options(small_scenario, workdir, capsys, data):
    kind = data.draw(
        st.sampled_from(["value", "malformed", "not compared", "unknown"]), label="kind"
    )
    methods = "exhaustive,blind_pick,oo,ocba,mocba,nsga2"
    if kind == "value":
        method, option = data.draw(st.sampled_from(sorted(CLI_OPTIONS)), label="option")
        value = data.draw(CLI_OPTIONS[method, option], label="value")
        assume(value.strip().lower() not in ("none", "true", "false") or option != "confirm_front")
        assume(value.strip().lower() != "none")
        item, fragments = (
            f"{method}.{option}={value}",
            [f"'options' for method '{method}'", f"'{option}'"],
        )
    elif kind == "malformed":
        item = data.draw(
            st.one_of(
                ARG_TEXT.filter(lambda s: "=" not in s or "." not in s.partition("=")[0]),
                st.sampled_from([".n0=1", "ocba.=1", "=1"]),
            ),
            label="item",
        )
        fragments = ["'--option' must look like METHOD.KEY=VALUE"]
    elif kind == "not compared":
        method = data.draw(NAMES.filter(lambda m: m != "exhaustive"), label="method")
        item, methods = f"{method}.n0=5", "exhaustive"
        fragments = [f"options for method '{method}', which is not in 'methods'"]
    else:
        # only the compared methods: options for any other method are refused as "not compared"
        method = data.draw(st.sampled_from(methods.split(",")), label="method")
        key = data.draw(NAMES.filter(lambda k: k not in mopt.METHODS[method].defaults), label="key")
        item, fragments = f"{method}.{key}=1", [f"unknown option '{key}'"]
    capsys.readouterr()
    code = run_cli(
        [
            *compare_argv(small_scenario, **{"--methods": methods, "--budgets": "100"}),
            f"--option={item}",
            "--out",
            workdir / "never",
        ]
    )
    assert_one_line_error(capsys, code, *fragments)


RESULT_COLUMNS = ("design", "makespan", "makespan_se", "cost", "cost_se", "n_reps")


@pytest.fixture(scope="module")
def result_dir(workdir) -> Path:
    ev = pd.DataFrame(
        {
            "design": [0, 1, 2],
            "makespan": [10.0, 20.0, 40.0],
            "makespan_se": 0.1,
            "cost": [5.0, 2.0, 0.5],
            "cost_se": 0.01,
            "n_reps": 10,
        }
    )
    d = workdir / "result"
    mopt.Result("exhaustive", 7, 30, ("makespan", "cost"), ev).to_csv(d)
    return d


@fuzz(60)
@given(
    spec=st.one_of(
        NAMES.filter(lambda n: n not in UTILITY_FUNCTIONS).map(lambda n: f"{n}(makespan)"),
        st.sampled_from(UTILITY_NAMES).flatmap(
            lambda f: NOT_AN_ARGUMENT.filter(lambda a: not a.startswith("*")).map(
                lambda a: f"{f}({a})"
            )
        ),
        NAMES.filter(lambda n: n not in RESULT_COLUMNS).map(
            lambda n: f"minimize({n})"
        ),  # no such column
        st.sampled_from(
            [
                "",
                "minimize",
                "minimize(makespan",
                "weighted(cost=1, cost=1)",
                "U(alpha=-1)",
                "within_budget(cost, 1e999, then=makespan)",
                "x" * 600,
            ]
        ),
    )
)
def test_cli_decide_bad_utility(result_dir, capsys, spec):
    capsys.readouterr()
    code = run_cli(["decide", result_dir, "--utility", "minimize(cost)", "--utility", spec])
    assert_one_line_error(capsys, code, "utility")


def test_cli_decide_good_utility(result_dir, capsys):
    assert run_cli(["decide", result_dir, "--utility", "product(makespan, cost)"]) == 0
    assert "40" in capsys.readouterr().out  # design 2: 40 x 0.5 = 20 is the least product


# -- bugs left in files this suite may not change ------------------------------------------------
def test_cli_empty_method_is_an_error(small_scenario, workdir, capsys):
    code = run_cli(["frontier", small_scenario, "--method=", "--out", workdir / "never", "--quiet"])
    assert_one_line_error(capsys, code, "'--method'")


def test_cli_compare_budget_beyond_int64(small_scenario, workdir, capsys):
    code = main(
        [str(a) for a in compare_argv(small_scenario, **{"--budgets": str(10**23)})]
        + ["--out", str(workdir / "never")]
    )
    assert_one_line_error(capsys, code, "'--budgets'")


def test_cli_compare_truth_reps_beyond_int64(small_scenario, workdir, capsys):
    code = run_cli(
        [*compare_argv(small_scenario, **{"--truth-reps": str(10**23)}), "--out", workdir / "never"]
    )
    assert_one_line_error(capsys, code, "'--truth-reps'")


def test_cli_memory_error_is_one_line(small_scenario, workdir, capsys):
    with mock.patch.object(
        StochasticProblem, "replicate", side_effect=MemoryError("Unable to allocate")
    ):
        code = main(["frontier", str(small_scenario), "--out", str(workdir / "never"), "--quiet"])
    assert_one_line_error(capsys, code)


def test_cli_bad_out_is_rejected_before_the_search(small_scenario, workdir, capsys):
    not_a_dir = write(workdir, "a file", "file", ".txt")
    code = run_cli(["frontier", small_scenario, "--out", not_a_dir / "sub", "--quiet"])
    assert_one_line_error(capsys, code, str(not_a_dir))


def test_nothing_left_behind(workdir):
    assert not (workdir / "never").exists()
