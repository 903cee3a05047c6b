"""Generated bad ExPERT scenario files: every one is bad by construction (an unknown or misspelt key,
an out-of-range or non-finite value, a wrong type, malformed TOML, a bad CSV cell) and must end in
one clear error that names the file and the key (or line, column).  Nothing is simulated:
``StochasticProblem.replicate`` is patched to fail while bad input is checked.  (The same through
the ``mopt`` command: tests/cli/test_fuzz_inputs.py; utility specs: tests/test_utility_spec.py.)
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from mopt import InputError
from mopt.scenario import load_scenario
from tests.expert.scenario_files import ALLOWED, BAD_VALUES, base_sections, render, write
from tests.helpers import count_bad_input, fuzz, no_simulation
from tests.strategies import (
    BARE_KEY,
    NEGATIVE,
    NON_FINITE,
    NON_INTEGRAL,
    NON_POSITIVE,
    SAFE_TEXT,
    WORDS,
    WRONG_TYPE,
    WRONG_TYPE_NOT_STR,
    assert_names,
    bad_count,
    lit,
    misspell,
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_base_scenario_is_valid(workdir):
    sc = load_scenario(write(workdir, render(base_sections())))
    assert sc.problem().n_designs > 0 and (sc.n_reps, sc.budget) == (2, 100)


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
REQUIRED = {
    "environment": ["n_tasks", "n_unreliable", "t_ur", "c_ur", "c_r"],
    "turnaround": ["kind", "mean", "shift", "reliability"],
}
SECTION_NAMES = {"environment", "turnaround", "observed", "grid", "run"}


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
