"""Generated bad input for the virtual-clusters family: ``family = "vmc"`` scenario files (loaded, and
run by ``mopt frontier``) and the options of ``mopt vmc``.

Every generated input is bad by construction (one key of a valid file replaced by a wrong type, a
negative, NaN or infinite value, a huge number, an empty list, an unknown or misspelt key, a section
in the wrong place; an option value that is not a number, out of range, repeated, or a wrong
combination) and must end in one clear error naming the file and the section and key (or the option):
on the command line exit code 2, one line ``mopt: error: ...``, no traceback, nothing written and
nothing simulated (``StochasticProblem.replicate`` and the multi-period comparison are patched to fail).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import mopt
from mopt import InputError
from mopt.cli import main
from mopt.scenario import load_scenario
from mopt.vmc.multiperiod_problem import INFORMATION
from mopt.vmc.problem import NOISES
from mopt.vmc.space import MAX_CLASSES, MAX_THETA
from mopt.vmc.workload import KINDS
from tests.helpers import assert_one_line_error, count_bad_input, fuzz, no_simulation
from tests.strategies import (
    BARE_KEY,
    FINITE,
    NEGATIVE,
    NON_FINITE,
    NON_INTEGRAL,
    NON_POSITIVE,
    SAFE_TEXT,
    WORDS,
    WRONG_TYPE,
    WRONG_TYPE_NOT_STR,
    lit,
    misspell,
)

_counter = itertools.count()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz_vmc")


# -- the valid files, as TOML literals -----------------------------------------------------------
def explicit() -> dict:
    """examples/partition.toml: 12 VMs over 4 classes, three batches in a 300 s period."""
    return {
        "clusters": {"vms": "12", "classes": "4"},
        "period": {"length": "300", "times": "[0, 120, 200]",
                   "batches": "[[40, 10, 10, 5], [0, 30, 0, 0], [5, 5, 5, 5]]",
                   "backlog": "[0, 1, 0, 2]"},
        "run": {"method": '"oo"', "n_reps": "20", "seed": "1"},
    }


def generated() -> dict:
    """A generated workload, an elastic total and a profiling table of the test's own."""
    return {
        "clusters": {"vms": "10", "classes": "3", "elastic": "true", "profile": '"profile.csv"'},
        "period": {"length": "500", "workload": '"HFHD"', "workload_seed": "2"},
        "run": {"method": '"exhaustive"', "n_reps": "3", "seed": "4", "budget": "500"},
    }


BASES = {"explicit": explicit, "generated": generated}


def render(sections: dict, top: tuple[str, ...] = ()) -> str:
    lines = ['family = "vmc"', *top]
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(workdir: Path, text: str, stem: str = "vmc", suffix: str = ".toml") -> Path:
    path = workdir / f"{stem}_{next(_counter)}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module", autouse=True)
def profile_csv(workdir) -> Path:
    from mopt.vmc.profile import default_table

    path = workdir / "profile.csv"
    default_table(3).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("base", sorted(BASES))
def test_base_files_are_valid(workdir, base):
    sc = load_scenario(write(workdir, render(BASES[base]())))
    assert sc.family == "vmc" and sc.problem().n_designs > 0


# -- strategies of bad values ----------------------------------------------------------------------
def bad_int(low: int, high: int):
    """What an integer key in [low, high] must refuse: out of range, non-integral, non-finite, a wrong type."""
    return st.one_of(st.integers(-(2**63), low - 1), st.integers(high + 1, 2**63 - 1),
                     st.floats(2.0 * high + 2, 1e300).map(math.floor).map(float),
                     NON_INTEGRAL, NON_FINITE, WRONG_TYPE)


NOT_A_BOOL = st.one_of(st.integers(), FINITE, NON_FINITE, SAFE_TEXT, st.lists(st.integers(0, 9), max_size=2),
                       st.just({"a": 1}))
# a value in a list of numbers that is not a non-negative finite number of tasks (or seconds)
BAD_NUMBER = st.one_of(NEGATIVE, NON_FINITE, st.booleans(), SAFE_TEXT, st.just([1, 2]), st.just({"a": 1}),
                       st.floats(1.0000001e9, 1e300))


def with_bad_element(good: list, bad, at: int) -> list:
    out = list(good)
    out[at % len(out)] = bad
    return out


@st.composite
def bad_case(draw, base: str | None = None):
    """A valid file with one thing made bad: ``(base, sections, top lines, fragments of the message)``."""
    base = base or draw(st.sampled_from(sorted(BASES)), label="base")
    sections = BASES[base]()
    top: tuple[str, ...] = ()
    kind = draw(st.sampled_from(["value", "value", "value", "value", "unknown key", "misspelt key",
                                 "missing key", "section", "workload"]), label="kind")
    if kind == "workload":  # times and batches, or a generated workload: one of the two
        period = sections["period"]
        if "workload" in period:
            how = draw(st.sampled_from(["times", "batches", "both", "neither"]), label="how")
            if how in ("times", "both"):
                period["times"] = "[0]"
            if how in ("batches", "both"):
                period["batches"] = "[[1, 1, 1]]"
            if how == "neither":
                del period["workload"]
            fragment = "give either 'times' and 'batches' or 'workload'"
            if how in ("times", "batches"):
                del period["workload"]
                fragment = f"'{'batches' if how == 'times' else 'times'}' is missing"
        else:
            how = draw(st.sampled_from(["times", "batches", "both", "workload"]), label="how")
            if how == "workload":
                period["workload"] = '"LFLD"'
            for key in ("times", "batches"):
                if how in (key, "both"):
                    del period[key]
            fragment = (f"'{how}' is missing" if how in ("times", "batches")
                        else "give either 'times' and 'batches' or 'workload'")
        return base, sections, top, ["[period]", fragment]
    if kind == "unknown key":
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section] and k not in sections[section]),
                   label="key")
        sections[section][key] = lit(draw(st.one_of(st.integers(0, 9), SAFE_TEXT, st.booleans())))
        return base, sections, top, [f"[{section}] unknown key '{key}'"]
    if kind == "misspelt key":
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(st.sampled_from(sorted(sections[section])), label="key")
        typo = misspell(key, draw(st.integers(0, 4)), draw(st.integers(0, 30)))
        assume(typo and typo not in ALLOWED[section] and re.fullmatch(r"[A-Za-z0-9_-]+", typo))
        sections[section] = {(typo if k == key else k): v for k, v in sections[section].items()}
        return base, sections, top, [f"[{section}] unknown key '{typo}'"]
    if kind == "missing key":
        section, key = draw(st.sampled_from([("clusters", "vms"), ("period", "length")]), label="missing")
        del sections[section][key]
        return base, sections, top, [f"[{section}] missing key '{key}'"]
    if kind == "section":
        how = draw(st.sampled_from(["unknown", "top-level key", "as a value", "missing", "key elsewhere",
                                    "sub-table"]), label="how")
        if how == "unknown":
            name = draw(BARE_KEY.filter(lambda k: k not in ("clusters", "period", "run")), label="name")
            sections[name] = {"x": "1"}
            return base, sections, top, [f"unknown section [{name}]"]
        if how == "top-level key":
            name = draw(BARE_KEY.filter(lambda k: k not in ("clusters", "period", "run", "family")), label="name")
            return base, sections, (f"{name} = 1",), [f"unknown top-level key '{name}'"]
        if how == "as a value":
            name = draw(st.sampled_from(["clusters", "period", "run"]), label="name")
            value = draw(st.one_of(st.integers(), SAFE_TEXT, st.lists(st.integers(), max_size=2)), label="value")
            sections.pop(name)
            return base, sections, (f"{name} = {lit(value)}",), [f"'{name}' must be a section [{name}]"]
        if how == "missing":
            name = draw(st.sampled_from(["clusters", "period"]), label="name")
            sections.pop(name)
            return base, sections, top, [f"missing section [{name}]"]
        if how == "key elsewhere":  # a key of one section written in another
            src, dst = draw(st.permutations(["clusters", "period", "run"]), label="sections")[:2]
            key = draw(st.sampled_from(sorted(ALLOWED[src] - ALLOWED[dst])), label="key")
            sections[dst][key] = "1"
            return base, sections, top, [f"[{dst}] unknown key '{key}'"]
        # a sub-table [clusters.extra] / an inline table: a key whose value is a table
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="key")
        sections[section][key] = "{ vms = 12 }"
        return base, sections, top, [f"[{section}] unknown key '{key}'"]
    # one key's value made bad
    cases = BAD[base]
    section, key = draw(st.sampled_from(sorted(cases)), label="key")
    value, fragments = draw(cases[section, key](sections), label="value")
    if value is None:
        sections[section].pop(key)
    else:
        sections[section][key] = lit(value)
    return base, sections, top, [f"[{section}]", *fragments]


ALLOWED = {
    "clusters": {"vms", "classes", "elastic", "profile", "noise", "cv"},
    "period": {"length", "times", "batches", "backlog", "workload", "workload_seed"},
    "run": {"method", "n_reps", "seed", "budget", "options"},
}

TIMES = [0, 120, 200]
BATCHES = [[40, 10, 10, 5], [0, 30, 0, 0], [5, 5, 5, 5]]


def _values(strategy, *fragments):
    """``sections -> strategy of (value, fragments)`` for a key whose error names ``fragments``."""
    return lambda sections: strategy.map(lambda v: (v, list(fragments)))


def _bad_times(sections):
    element = st.tuples(st.one_of(BAD_NUMBER.filter(lambda v: not isinstance(v, float) or v < 1e9),
                                  st.floats(300.0, 1e300)), st.integers(0, 2))
    return st.one_of(
        element.map(lambda t: (with_bad_element(TIMES, t[0], t[1]), ["'times'"])),
        st.permutations(TIMES).filter(lambda p: list(p) != TIMES).map(lambda p: (list(p), ["'times'"])),
        st.just(([], ["'times'"])),
        WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list)).map(lambda v: (v, ["'times'"])),
        st.lists(st.floats(0, 299), min_size=1, max_size=5).filter(lambda x: len(x) != 3)
        .map(lambda x: (sorted(x), ["'batches'"])),  # one row per arrival time
    )


def _bad_batches(sections):
    def cell(t):
        bad, row, col = t
        out = [list(r) for r in BATCHES]
        out[row][col] = bad
        return out, ["'batches'"]

    return st.one_of(
        st.tuples(BAD_NUMBER, st.integers(0, 2), st.integers(0, 3)).map(cell),
        st.integers(0, 2).map(lambda k: ([r[:3] for r in BATCHES[:k]] + [BATCHES[k][:3]] + BATCHES[k + 1:],
                                         ["'batches'"])),  # a short row (ragged)
        st.just(([r[:3] for r in BATCHES], ["'batches'"])),  # a class missing
        st.just((BATCHES[:2], ["'batches'"])),  # a row missing
        st.just(([], ["'batches'"])),
        st.just(([[]] * 3, ["'batches'"])),
        st.just(([BATCHES], ["'batches'"])),  # 3-d
        st.just((BATCHES[0], ["'batches'"])),  # 1-d
        WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list)).map(lambda v: (v, ["'batches'"])),
    )


def _bad_backlog(sections):
    n = int(sections["clusters"].get("classes", "7"))
    good = [0] * n
    return st.one_of(
        st.tuples(BAD_NUMBER, st.integers(0, n - 1)).map(lambda t: (with_bad_element(good, *t), ["'backlog'"])),
        st.integers(0, 9).filter(lambda k: k != n).map(lambda k: ([1] * k, ["'backlog'"])),
        WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list)).map(lambda v: (v, ["'backlog'"])),
        SAFE_TEXT.map(lambda v: (v, ["'backlog'"])),
    )


def _bad_length(sections):
    last = max(TIMES) if "times" in sections["period"] else 0.0
    out = [NON_POSITIVE, NON_FINITE, WRONG_TYPE]
    if "times" in sections["period"]:
        out.append(st.floats(1e-300, float(last)))  # the last batch would arrive after the period
    else:
        out.append(st.floats(1e12, 1.7e308))  # a generated batch of more than 1e9 tasks
    return st.one_of(out).map(lambda v: (v, ["length"]))


def _bad_workload(sections):
    return st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in {k.lower() for k in KINDS}), WRONG_TYPE_NOT_STR).map(
        lambda v: (v, ["'workload'"]))


def _bad_profile(sections):
    return st.one_of(
        WRONG_TYPE_NOT_STR.map(lambda v: (v, ["'profile'"])),
        SAFE_TEXT.map(lambda s: ("missing_" + s, ["'profile'"])),
        st.sampled_from(["", ".", "..", "/", "/dev/null"]).map(lambda s: (s, ["'profile'"])),
        st.sampled_from(["bad_profile.csv", "empty_profile.csv", "short_profile.csv", "nan_profile.csv"])
        .map(lambda s: (s, ["'profile'", s])),
    )


RUN = {
    ("run", "method"): _values(st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in mopt.METHODS), WRONG_TYPE_NOT_STR),
                               "'method'"),
    ("run", "n_reps"): _values(bad_int(1, 2**62), "'n_reps'"),
    ("run", "seed"): _values(st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NON_FINITE, WRONG_TYPE), "'seed'"),
    ("run", "budget"): _values(st.one_of(st.integers(-(2**63), 0), NON_INTEGRAL, NON_FINITE, WRONG_TYPE),
                               "'budget'"),
    ("run", "options"): _values(st.one_of(st.integers(), SAFE_TEXT, st.lists(st.integers(), max_size=2)),
                                "'options'"),
}
CLUSTERS = {
    ("clusters", "vms"): lambda s: bad_int(int(s["clusters"]["classes"]), MAX_THETA).map(lambda v: (v, ["vms"])),
    ("clusters", "classes"): lambda s: st.one_of(
        bad_int(1, MAX_CLASSES), st.integers(int(s["clusters"]["vms"]) + 1, MAX_CLASSES)).map(
        lambda v: (v, ["classes"])),
    ("clusters", "elastic"): _values(NOT_A_BOOL, "'elastic'"),
    ("clusters", "noise"): _values(st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in NOISES), WRONG_TYPE_NOT_STR),
                                   "'noise'"),
    ("clusters", "profile"): _bad_profile,
}
BAD = {
    "explicit": {
        **CLUSTERS, **RUN,
        ("period", "length"): _bad_length,
        ("period", "times"): _bad_times,
        ("period", "batches"): _bad_batches,
        ("period", "backlog"): _bad_backlog,
    },
    "generated": {
        **CLUSTERS, **RUN,
        ("period", "length"): _bad_length,
        ("period", "workload"): _bad_workload,
        ("period", "workload_seed"): _values(st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NON_FINITE,
                                                       WRONG_TYPE), "'workload_seed'"),
        ("period", "backlog"): _bad_backlog,
    },
}
@pytest.fixture(scope="module", autouse=True)
def bad_profiles(workdir):
    from mopt.vmc.profile import default_table

    (workdir / "bad_profile.csv").write_text('cls,"x\n1,2\n', encoding="utf-8")
    (workdir / "empty_profile.csv").write_text("", encoding="utf-8")
    default_table(2).to_csv(workdir / "short_profile.csv", index=False)  # no row for class 3
    t = default_table(3)
    t.loc[2, "mean"] = math.nan
    t.to_csv(workdir / "nan_profile.csv", index=False)


def load_bad(path: Path, fragments) -> str:
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in [str(path), *fragments]:
        assert fragment in message, (fragment, message)
    count_bad_input("vmc scenario (load_scenario)")
    return message


# -- (a) scenario files --------------------------------------------------------------------------
@fuzz(700)
@given(case=bad_case())
@example(case=("explicit", {**explicit(), "clusters": {"vms": "5000000", "classes": "4"}}, (), ["'vms'"]))
@example(case=("generated", {**generated(), "clusters": {"vms": "100000", "classes": "5", "elastic": "true"}},
               (), ["'vms'"]))
@example(case=("explicit", {**explicit(), "clusters": {"vms": "20000", "classes": "4"}}, (), ["'vms'"]))
@example(case=("explicit", {**explicit(), "clusters": {"vms": "12", "classes": "4", "profile": '"a\\u0000b"'}},
               (), ["'profile'"]))
@example(case=("generated", {**generated(), "period": {"length": "1e300", "workload": '"HFHD"'}}, (),
               ["[period]", "'length'"]))
@example(case=("explicit", {**explicit(), "period": {**explicit()["period"], "backlog": "[1e300, 0, 0, 0]"}},
               (), ["[period]", "'backlog'"]))
@example(case=("explicit", {**explicit(), "period": {**explicit()["period"], "times": "[true, 120, 200]"}},
               (), ["[period]", "'times'"]))
@example(case=("explicit", {**explicit(), "period": {**explicit()["period"],
                                                     "batches": "[[40, 10, 10, false], [0, 30, 0, 0], "
                                                                "[5, 5, 5, 5]]"}},
               (), ["[period]", "'batches'"]))
def test_scenario_bad_input_names_file_section_and_key(workdir, case):
    _, sections, top, fragments = case
    load_bad(write(workdir, render(sections, top)), fragments)


# -- the command line: one line, exit 2, nothing written, nothing simulated ------------------------
@contextlib.contextmanager
def nothing_simulated():
    with no_simulation(), mock.patch("mopt.vmc.paper_scenarios.compare_methods",
                                     side_effect=AssertionError("bad input reached the simulator")):
        yield



@fuzz(150)
@given(case=bad_case(), quiet=st.booleans())
def test_cli_frontier_bad_scenario_is_one_line(workdir, capsys, case, quiet):
    _, sections, top, fragments = case
    path = write(workdir, render(sections, top))
    out = workdir / f"out_{next(_counter)}"
    capsys.readouterr()
    with nothing_simulated():
        code = main(["frontier", str(path), "--out", str(out), *(["--quiet"] if quiet else [])])
    assert_one_line_error(capsys, code, str(path), *fragments)
    assert not out.exists()
    count_bad_input("vmc mopt frontier")


def _item_list(good: list[str], bad: str, at: int) -> str:
    items = list(good)
    items.insert(at % (len(items) + 1), bad)
    return ",".join(items)


NOT_AN_INT = st.one_of(WORDS, FINITE.filter(lambda x: x != math.floor(x)).map(repr),
                       st.sampled_from(["nan", "inf", "1e3", "0x10", "1_0_", "", " "]))


@st.composite
def bad_vmc_option(draw):
    """``(argv, option)``: one option of ``mopt vmc`` given a bad value (the others valid)."""
    option = draw(st.sampled_from(["--vms", "--workloads", "--scenarios", "--methods", "--seeds",
                                   "--sample-size", "--seed", "--workers", "--noise", "--information", "--cv",
                                   "combination"]),
                  label="option")
    if option == "--vms":
        bad = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), 6).map(str),
                             st.integers(MAX_THETA + 1, 10**30).map(str), st.sampled_from(["8"])), label="bad")
        good = draw(st.lists(st.sampled_from(["7", "8", "16"]), max_size=2, unique=True), label="good")
        assume(bad.strip() != "" or good)  # an empty list is refused by argparse, also fine below
        value = _item_list(good, bad, draw(st.integers(0, 3)))
        assume(bad != "8" or "8" in good)
    elif option == "--workloads":
        good = draw(st.lists(st.sampled_from(KINDS), max_size=2, unique=True), label="good")
        bad = draw(st.one_of(SAFE_TEXT.map(lambda s: s.replace(",", "")).filter(lambda s: s.strip() not in KINDS),
                             st.sampled_from(good or ["LFLD"])), label="bad")
        if bad in KINDS and bad not in good:  # a repeat
            good = [*good, bad]
        value = _item_list(good, bad, draw(st.integers(0, 3)))
    elif option == "--scenarios":
        good = draw(st.lists(st.sampled_from(["1", "2"]), max_size=1), label="good")
        bad = draw(st.one_of(NOT_AN_INT, st.integers(-(10**9), 10**9).filter(lambda k: k not in (1, 2)).map(str),
                             st.sampled_from(["1", "2", "01"])), label="bad")
        if bad.strip() in ("1", "2", "01") and bad.strip().lstrip("0") not in good:  # a repeat
            good = [*good, bad.strip().lstrip("0")]
        value = _item_list(good, bad, draw(st.integers(0, 2)))
    elif option == "--methods":
        from mopt.solvers.evolutionary_oo import MULTI_PERIOD_METHODS

        good = draw(st.lists(st.sampled_from(sorted(MULTI_PERIOD_METHODS)), max_size=2, unique=True), label="good")
        bad = draw(st.one_of(SAFE_TEXT.map(lambda s: s.replace(",", "")).filter(
            lambda s: s.strip() not in MULTI_PERIOD_METHODS), st.sampled_from(good or ["ioo"])), label="bad")
        if bad in MULTI_PERIOD_METHODS and bad not in good:  # a repeat
            good = [*good, bad]
        value = _item_list(good, bad, draw(st.integers(0, 3)))
    elif option in ("--seeds", "--sample-size"):
        high = 10_000 if option == "--seeds" else 10_000_000
        value = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), 0).map(str),
                               st.integers(high + 1, 10**30).map(str)), label="bad")
    elif option in ("--seed", "--workers"):
        low = 0 if option == "--seed" else 1
        value = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), low - 1).map(str),
                               *([st.integers(10**4, 10**30).map(str)] if option == "--workers" else [])),
                     label="bad")
    elif option == "--noise":
        value = draw(SAFE_TEXT.filter(lambda s: s not in NOISES), label="bad")
    elif option == "--cv":
        value = draw(st.one_of(st.floats(-1e9, -1e-9).map(repr), st.sampled_from(["-0.5", "nan", "inf", "x", ""])),
                     label="bad")
    elif option == "--information":
        value = draw(SAFE_TEXT.filter(lambda s: s.lower() not in INFORMATION), label="bad")
    else:  # --scheduler with --workers: two clusters
        workers = draw(st.integers(2, 4), label="workers")
        return ["--scheduler", "tcp://127.0.0.1:1", "--workers", str(workers)], "'--scheduler'"
    return [f"{option}={value}"], option


@fuzz(300)
@given(case=bad_vmc_option(), quiet=st.booleans())
@example(case=(["--vms=100000"], "--vms"), quiet=False)
@example(case=(["--vms=99999999999999999999"], "--vms"), quiet=False)
@example(case=(["--seeds=99999999999999999"], "--seeds"), quiet=True)
@example(case=(["--scenarios=1,1"], "--scenarios"), quiet=True)
@example(case=(["--workloads=HFHD,HFHD"], "--workloads"), quiet=True)
@example(case=(["--methods=ioo,ioo"], "--methods"), quiet=True)
@example(case=(["--noise=foo"], "--noise"), quiet=True)
@example(case=(["--information=x"], "--information"), quiet=False)
@example(case=(["--cv=-0.5"], "--cv"), quiet=True)
@example(case=(["--scheduler", "tcp://127.0.0.1:1", "--workers", "2"], "'--scheduler'"), quiet=False)
def test_cli_vmc_bad_option_is_one_line(workdir, capsys, case, quiet):
    argv, option = case
    out = workdir / f"vmc_out_{next(_counter)}"
    capsys.readouterr()
    with nothing_simulated():
        code = main(["vmc", *argv, "--out", str(out), *(["--quiet"] if quiet else [])])
    assert_one_line_error(capsys, code, option)
    assert not out.exists()
    count_bad_input("vmc mopt vmc")


@fuzz(60)
@given(method=SAFE_TEXT.filter(lambda s: s and "\x00" not in s and s not in mopt.METHODS),
       budget=st.one_of(NOT_AN_INT, st.integers(-(10**9), 0).map(str)))
def test_cli_frontier_bad_method_or_budget(workdir, capsys, method, budget):
    path = write(workdir, render(explicit()))
    out = workdir / f"out_{next(_counter)}"
    for argv, fragment in ([f"--method={method}"], "'--method'"), ([f"--budget={budget}"], "--budget"):
        capsys.readouterr()
        with nothing_simulated():
            code = main(["frontier", str(path), *argv, "--out", str(out)])
        assert_one_line_error(capsys, code, fragment)
        assert not out.exists()
        count_bad_input("vmc mopt frontier")
