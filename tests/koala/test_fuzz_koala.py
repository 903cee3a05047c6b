"""Generated bad input for the KOALA-C family: ``family = "koala"`` scenario files (loaded, and run by
``mopt frontier``) and the options of ``mopt koala``.

Every generated input is bad by construction (one key of a valid file replaced by a wrong type, a
negative, NaN or infinite value, a huge number, an empty list, an unknown site, an unknown or misspelt
key, a section in the wrong place; an option value that is not a number, out of range, an unknown
policy or site, or a wrong combination) and must end in one clear error naming the file and the
section and key (or the option): on the command line exit code 2, one line ``mopt: error: ...``, no
traceback, nothing written and nothing simulated. The trace is a tiny SWF file the test writes.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import re
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import mopt
from mopt import InputError
from mopt.cli import main
from mopt.koala.commands import ENVIRONMENTS, MAX_LIMIT_MINUTES, POLICIES
from mopt.koala.environment import MAX_CHAINS
from mopt.koala.problem import MAX_PUBLIC_CAP, MIN_LOAD, SITES
from mopt.scenario import load_scenario
from mopt.workloads.traces import archive_name
from tests.helpers import assert_one_line_error, count_bad_input, fuzz, no_simulation
from tests.strategies import (
    BARE_KEY,
    FINITE,
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
SPAN_DAYS = 6  # the tiny trace's span


def swf_text(n: int = 150, days: float = SPAN_DAYS, seed: int = 0, size=None) -> str:
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, int(days * 86400), n))
    submit[0], submit[-1] = 0, int(days * 86400)
    lines = ["; MaxProcs: 64"]
    for k in range(n):
        runtime = int(rng.integers(1, 1800) if rng.random() < 0.6 else rng.integers(1800, 40000))
        p = size or int(rng.integers(1, 33))
        lines.append(f"{k + 1} {submit[k]} 0 {runtime} {p} -1 -1 {p} -1 -1 1 {k % 7} 1 -1 1 -1 -1 -1")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("fuzz_koala")
    (folder / "tiny.swf").write_text(swf_text(), encoding="utf-8")
    (folder / "wide.swf").write_text(swf_text(size=48), encoding="utf-8")  # no job of <= 32 processors
    (folder / "broken.swf").write_text("; MaxProcs: 64\n1 0 0 60 1 x\n", encoding="utf-8")
    (folder / "empty.swf").write_text("", encoding="utf-8")
    (folder / "a_dir.swf").mkdir()
    return folder


@pytest.fixture(scope="module")
def trace(workdir) -> Path:
    return workdir / "tiny.swf"


# -- the valid files, as TOML literals -------------------------------------------------------------
def two_sets() -> dict:
    return {
        "trace": {"name": '"tiny.swf"', "first": "140"},
        "grid": {"limits": "[10, 60]", "set2": '[["C3", "private", "public"], ["private", "public"]]',
                 "public_caps": "[0, 64]", "private_mins": "[8]"},
        "replication": {"window_days": "[1, 2]", "load": "[0.8, 1.3]", "step": "30"},
        "run": {"method": '"exhaustive"', "n_reps": "2", "seed": "3"},
    }


def three_sets() -> dict:
    sections = two_sets()
    sections["grid"].update(limits2="[60, 240]", set3='[["private", "public"]]')
    sections["run"] = {"method": '"mocba"', "n_reps": "2", "budget": "100", "options": "{ n0 = 2 }"}
    return sections


BASES = {"two sets": two_sets, "three sets": three_sets}
ALLOWED = {
    "trace": {"name", "first"},
    "grid": {"limits", "set2", "public_caps", "private_mins", "limits2", "set3"},
    "replication": {"window_days", "load", "step"},
    "run": {"method", "n_reps", "seed", "budget", "options"},
}


def render(sections: dict, top: tuple[str, ...] = ()) -> str:
    lines = ['family = "koala"', *top]
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(workdir: Path, text: str) -> Path:
    path = workdir / f"koala_{next(_counter)}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("base", sorted(BASES))
def test_base_files_are_valid(workdir, base):
    problem = load_scenario(write(workdir, render(BASES[base]()))).problem()
    assert problem.n_designs > 0


# -- strategies of bad values ------------------------------------------------------------------------
def bad_list(good: list, bad_element, *, empty: bool = True, repeat: bool = True):
    """A list of ``good`` with one bad element, a repeated element, an empty list, or not a list."""
    out = [st.tuples(bad_element, st.integers(0, len(good))).map(lambda t: good[:t[1]] + [t[0]] + good[t[1]:]),
           WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list)), SAFE_TEXT]
    if empty:
        out.append(st.just([]))
    if repeat:
        out.append(st.just(good + good[:1]))
    return st.one_of(out)


NOT_A_NUMBER = st.one_of(NON_FINITE, st.booleans(), SAFE_TEXT, st.just([1]), st.just({"a": 1}))
SITE_SET = st.lists(st.sampled_from(SITES), min_size=1, max_size=4, unique=True)
BAD_SET = st.one_of(
    st.tuples(SITE_SET, SAFE_TEXT.filter(lambda s: s not in SITES)).map(lambda t: [*t[0], t[1]]),  # unknown site
    st.just([]), st.just(list(SITES)),  # empty, the whole system
    SITE_SET.map(lambda s: s + s[:1]),  # a site twice
    SAFE_TEXT, st.integers().map(lambda v: [v]),  # not a list of names
)


def bad_pair(low: float, *, fits: float | None = None):
    """What a pair [low, high] above ``low`` must refuse."""
    out = [st.lists(FINITE, max_size=4).filter(lambda x: len(x) != 2),
           st.tuples(st.one_of(st.floats(max_value=low, allow_infinity=False), NOT_A_NUMBER), st.floats(2, 3),
                     st.booleans()).map(lambda t: [t[0], t[1]] if t[2] else [t[1], t[0]]),
           st.tuples(st.floats(1.5, 3), st.floats(0.01, 1.4)).map(list),  # low > high
           WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list)), SAFE_TEXT]
    if fits is not None:  # a window longer than the trace
        out.append(st.floats(fits, 1e300, exclude_min=True).map(lambda hi: [1.0, hi]))
    return st.one_of(out)


def bad_values(base: str) -> dict:
    """(section, key) -> (strategy of bad values, what the message names)."""
    limit = st.one_of(NON_POSITIVE, NOT_A_NUMBER, st.floats(MAX_LIMIT_MINUTES, 1.7e308, exclude_min=True))
    count = st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NOT_A_NUMBER)
    out = {
        ("trace", "name"): (st.one_of(
            WRONG_TYPE_NOT_STR, st.sampled_from(["", "  ", "wide.swf", "broken.swf", "empty.swf", "a_dir.swf"]),
            st.from_regex(r"[A-Za-z0-9_.-]{1,12}", fullmatch=True).filter(lambda s: archive_name(s) is None)
            .map(lambda s: f"missing_{s}")), "[trace]"),
        ("trace", "first"): (st.one_of(st.integers(-(2**63), 0), NON_INTEGRAL, NOT_A_NUMBER), "'first'"),
        ("grid", "limits"): (bad_list([10.0, 60.0], limit), "'limits'"),
        ("grid", "set2"): (st.one_of(bad_list([["C3", "private", "public"]], BAD_SET)), "'set2'"),
        ("grid", "public_caps"): (bad_list([0, 64], st.one_of(count, st.integers(MAX_PUBLIC_CAP + 1, 2**63 - 1),
                                                              st.floats(1e6, 1e300))), "'public_caps'"),
        ("grid", "private_mins"): (bad_list([8], st.one_of(count, st.integers(65, 2**63 - 1))), "'private_mins'"),
        ("replication", "window_days"): (bad_pair(0, fits=SPAN_DAYS), "'window_days'"),
        ("replication", "load"): (st.one_of(bad_pair(MIN_LOAD), st.floats(0, MIN_LOAD, exclude_max=True).map(
            lambda x: [x, 1.0])), "'load'"),
        ("replication", "step"): (st.one_of(NON_POSITIVE, NOT_A_NUMBER, st.floats(3600, 1e300)), "'step'"),
        ("run", "method"): (st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in mopt.METHODS), WRONG_TYPE_NOT_STR),
                            "'method'"),
        ("run", "n_reps"): (st.one_of(st.integers(-(2**63), 0), NON_INTEGRAL, NOT_A_NUMBER), "'n_reps'"),
        ("run", "seed"): (st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NOT_A_NUMBER, WRONG_TYPE), "'seed'"),
        ("run", "budget"): (st.one_of(st.integers(-(2**63), 0), NON_INTEGRAL, NOT_A_NUMBER), "'budget'"),
    }
    if base == "three sets":
        out[("grid", "limits2")] = (st.one_of(bad_list([60.0, 240.0], limit),
                                              st.just([5.0]), st.just([1.0, 10.0])), "'limits2'")
        out[("grid", "set3")] = (bad_list([["private", "public"]], BAD_SET), "'set3'")
    else:
        out[("grid", "set3")] = (st.just([["public"]]), "'set3' needs 'limits2'")
    return out


BAD = {base: bad_values(base) for base in BASES}


@st.composite
def bad_case(draw):
    """A valid file with one thing made bad: ``(sections, top lines, fragments of the message)``."""
    base = draw(st.sampled_from(sorted(BASES)), label="base")
    sections = BASES[base]()
    top: tuple[str, ...] = ()
    kind = draw(st.sampled_from(["value"] * 5 + ["unknown key", "misspelt key", "section"]), label="kind")
    if kind == "unknown key":
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="key")
        sections[section][key] = lit(draw(st.one_of(st.integers(0, 9), SAFE_TEXT, st.booleans())))
        return sections, top, [f"[{section}] unknown key '{key}'"]
    if kind == "misspelt key":
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(st.sampled_from(sorted(sections[section])), label="key")
        typo = misspell(key, draw(st.integers(0, 4)), draw(st.integers(0, 30)))
        assume(typo and typo not in ALLOWED[section] and re.fullmatch(r"[A-Za-z0-9_-]+", typo))
        sections[section] = {(typo if k == key else k): v for k, v in sections[section].items()}
        return sections, top, [f"[{section}] unknown key '{typo}'"]
    if kind == "section":
        how = draw(st.sampled_from(["unknown", "top-level key", "as a value", "missing", "missing name",
                                    "key elsewhere", "sub-table"]), label="how")
        if how == "unknown":
            name = draw(BARE_KEY.filter(lambda k: k not in ALLOWED), label="name")
            sections[name] = {"x": "1"}
            return sections, top, [f"unknown section [{name}]"]
        if how == "top-level key":
            name = draw(BARE_KEY.filter(lambda k: k not in ALLOWED and k != "family"), label="name")
            return sections, (f"{name} = 1",), [f"unknown top-level key '{name}'"]
        if how == "as a value":
            name = draw(st.sampled_from(sorted(ALLOWED)), label="name")
            value = draw(st.one_of(st.integers(), SAFE_TEXT, st.lists(st.integers(), max_size=2)), label="value")
            sections.pop(name)
            return sections, (f"{name} = {lit(value)}",), [f"'{name}' must be a section [{name}]"]
        if how == "missing":
            sections.pop("trace")
            return sections, top, ["missing section [trace]"]
        if how == "missing name":
            sections["trace"].pop("name")
            return sections, top, ["[trace] missing key 'name'"]
        if how == "key elsewhere":
            src, dst = draw(st.permutations(sorted(ALLOWED)), label="sections")[:2]
            key = draw(st.sampled_from(sorted(ALLOWED[src] - ALLOWED[dst])), label="key")
            sections[dst][key] = "1"
            return sections, top, [f"[{dst}] unknown key '{key}'"]
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="key")
        sections[section][key] = "{ limits = [10] }"
        return sections, top, [f"[{section}] unknown key '{key}'"]
    section, key = draw(st.sampled_from(sorted(BAD[base])), label="key")
    values, fragment = BAD[base][section, key]
    sections[section][key] = lit(draw(values, label="value"))
    return sections, top, [f"[{section}]", fragment]


def case_with(section: str, key: str, value: str, *fragments: str, base=two_sets):
    sections = base()
    sections[section][key] = value
    return sections, (), [f"[{section}]", *fragments]


# -- (a) scenario files ------------------------------------------------------------------------------
@fuzz(700)
@given(case=bad_case())
@example(case=case_with("grid", "limits", "[1e300]", "'limits'"))  # overflowed to inf at the first run
@example(case=case_with("grid", "public_caps", "[1e12]", "'public_caps'"))  # MemoryError at the first run
@example(case=case_with("replication", "load", "[1e-300, 1e-300]", "'load'"))  # hung at the first run
@example(case=case_with("replication", "load", "[0, 1]", "'load'"))  # named [grid]
def test_scenario_bad_input_names_file_section_and_key(workdir, case):
    sections, top, fragments = case
    path = write(workdir, render(sections, top))
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in [str(path), *fragments]:
        assert fragment in message, (fragment, message)
    count_bad_input("koala scenario (load_scenario)")


# -- the command line: one line, exit 2, nothing written, nothing simulated ----------------------------
@contextlib.contextmanager
def nothing_simulated():
    with no_simulation(), mock.patch("mopt.koala.simulate",
                                     side_effect=AssertionError("bad input reached the simulator")):
        yield



@fuzz(120)
@given(case=bad_case(), quiet=st.booleans())
def test_cli_frontier_bad_scenario_is_one_line(workdir, capsys, case, quiet):
    sections, top, fragments = case
    path = write(workdir, render(sections, top))
    out = workdir / f"out_{next(_counter)}"
    capsys.readouterr()
    with nothing_simulated():
        code = main(["frontier", str(path), "--out", str(out), *(["--quiet"] if quiet else [])])
    assert_one_line_error(capsys, code, str(path), *fragments)
    assert not out.exists()
    count_bad_input("koala mopt frontier")


NOT_AN_INT = st.one_of(WORDS, FINITE.filter(lambda x: x != math.floor(x)).map(repr),
                       st.sampled_from(["", " ", "nan", "inf", "1e3", "0x10", "--"]))
BAD_MINUTES = st.one_of(WORDS, NON_POSITIVE.map(repr), st.floats(MAX_LIMIT_MINUTES, 1e300, exclude_min=True).map(repr),
                        st.sampled_from(["nan", "inf", "-inf", "", " "]))


@st.composite
def bad_koala_option(draw, trace: Path):
    """``(argv, fragment)`` of ``mopt koala``: one option bad, the others valid."""
    option = draw(st.sampled_from(["--policy", "--env", "--chains", "--limits", "--set", "--dispatch", "--first",
                                   "--seed", "trace", "chains elsewhere", "set without TAGS-sets",
                                   "limits order", "chain env"]), label="option")
    argv = ["--trace", str(trace)]
    if option == "--policy":
        bad = draw(SAFE_TEXT.filter(lambda s: s.lower() not in {p.lower() for p in POLICIES}  # "ff" is FF
                                     and not s.startswith("-")), label="bad")
        return [*argv, "--policy", "FF", f"--policy={bad}"], "'--policy'"
    if option in ("--env", "--dispatch"):
        choices = ENVIRONMENTS if option == "--env" else ("RR", "RND")
        fold = str.lower if option == "--env" else str.upper  # "MULTICLOUD" is multicloud, "rnd" RND
        return [*argv, f"{option}={draw(SAFE_TEXT.filter(lambda s: fold(s) not in choices))}"], f"argument {option}"
    if option == "--chains":
        value = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), 0).map(str),
                               st.integers(MAX_CHAINS + 1, 10**30).map(str)), label="bad")
        return [*argv, "--env=multicluster", f"--chains={value}"], "--chains"
    if option == "--limits":
        good = draw(st.lists(st.sampled_from(["10", "40", "120"]), max_size=2, unique=True), label="good")
        bad = draw(BAD_MINUTES, label="bad")
        good.insert(draw(st.integers(0, len(good))), bad)
        policy = draw(st.sampled_from(["FF", "TAGS-sets", "SJF"]), label="policy")
        return [*argv, f"--policy={policy}", f"--limits={','.join(good)}"], "'--limits'"
    if option == "--set":
        sets = draw(st.one_of(BAD_SET.filter(lambda s: isinstance(s, list) and all(isinstance(x, str) for x in s)),
                              st.just(["C1", "C2"]),  # not a subset of the default second set
                              ), label="set")
        assume(all("," not in x for x in sets))
        return [*argv, "--policy=TAGS-sets", "--limits=10,60", "--set", "C3,private,public",
                f"--set={','.join(sets)}"], "--set"
    if option == "--first":
        value = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), 0).map(str)), label="bad")
        return [*argv, f"--first={value}"], "--first"
    if option == "--seed":
        value = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), -1).map(str)), label="bad")
        return [*argv, f"--seed={value}"], "--seed"
    if option == "trace":
        name = draw(st.one_of(st.sampled_from(["wide.swf", "broken.swf", "empty.swf", "a_dir.swf"]),
                              st.from_regex(r"[a-z]{1,8}", fullmatch=True).map(lambda s: f"missing_{s}.swf")))
        return ["--trace", str(trace.parent / name)], str(trace.parent / name) if name != "a_dir.swf" else "trace"
    if option == "chains elsewhere":
        env = draw(st.sampled_from(["multicloud", "real-world"]))
        return [*argv, f"--env={env}", f"--chains={draw(st.integers(1, 5))}"], "'--chains'"
    if option == "set without TAGS-sets":
        policy = draw(st.sampled_from([p for p in POLICIES if p not in ("TAGS-sets", "TAGS-chain")]))
        return [*argv, f"--policy={policy}", "--set=C3,private,public"], "'--set'"
    if option == "limits order":
        a, b = sorted(draw(st.lists(st.integers(1, 1000), min_size=2, max_size=2, unique=True)), reverse=True)
        return [*argv, "--policy=TAGS-sets", f"--limits={a},{b}", "--set=C3,private,public",
                "--set=private,public"], "--limits"
    # TAGS-chain on an environment whose sites do not form its chains
    env = draw(st.sampled_from(["multicloud", "real-world", "multicluster"]))
    limits = draw(st.sampled_from(["10,60", "10,60,120"]) if env == "multicluster" else st.just("40"))
    return [*argv, "--policy=TAGS-chain", f"--env={env}", f"--limits={limits}"], "--env"


@fuzz(300)
@given(data=st.data(), quiet=st.booleans())
@example(data=None, quiet=False)
def test_cli_koala_bad_option_is_one_line(workdir, trace, capsys, data, quiet):
    if data is None:  # regression examples
        t = "--trace=" + str(trace)
        cases = [([t, "--first=0"], "'--first'"),
                 ([t, "--env=multicluster", "--chains=0"], "'--chains'"),  # was taken as 1 and simulated
                 ([t, "--env=multicluster", "--chains=-1"], "'--chains'"),
                 ([t, "--env=multicluster", "--chains=1000000000"], "'--chains'"),  # hung
                 ([t, "--limits=,"], "'--limits'"), ([t, "--limits=10,,20"], "'--limits'"),
                 ([t, "--set=C9"], "--set"), ([t, "--set=,"], "--set"), ([t, "--set=C1,C1"], "--set"),  # simulated
                 ([t, "--policy=FF", "--set=C1"], "'--set'"), ([t, "--policy=FF", "--limits=xx"], "'--limits'")]
    else:
        cases = [data.draw(bad_koala_option(trace), label="case")]
    for argv, fragment in cases:
        out = workdir / f"koala_{next(_counter)}.csv"
        capsys.readouterr()
        with nothing_simulated():
            code = main(["koala", *argv, "--out", str(out), *(["--quiet"] if quiet else [])])
        assert_one_line_error(capsys, code, fragment)
        assert not out.exists()
        count_bad_input("koala mopt koala")
