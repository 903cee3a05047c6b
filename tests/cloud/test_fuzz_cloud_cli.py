"""Generated bad input for the cloud family's files and commands: ``family = "cloud"`` scenario files
(loaded, and run by ``mopt frontier``) and the options of ``mopt simulate`` and ``mopt portfolio``.
(tests/cloud/test_fuzz_cloud.py fuzzes the Python API.)

Every generated input is bad by construction (one key of a valid file replaced by a wrong type, a
negative, NaN or infinite value, a huge number, an empty list, an unknown or misspelt key, a section in
the wrong place; an option value that is not a number, out of range, an unknown policy or portfolio, or
a wrong combination) and must end in one clear error naming the file and the section and key (or the
option): on the command line exit code 2, one line ``mopt: error: ...``, no traceback, nothing written
and nothing simulated. The trace is a tiny SWF file the test writes (as KTH-SP2 in a MOPT_DATA_DIR of
its own for the scenario files): nothing is fetched.
"""

from __future__ import annotations

import contextlib
import gzip
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
from mopt.cloud.policies import JOB_SELECTION, PROVISIONING, VM_SELECTION
from mopt.cloud.portfolio_problem import MAX_WINDOW
from mopt.cloud.simulate import MAX_PERIOD, MAX_TIME, MAX_VMS
from mopt.scenario import load_scenario
from mopt.workloads.synthetic import PATTERNS
from mopt.workloads.traces import TRACES, archive_name
from tests.helpers import assert_one_line_error, count_bad_input, fuzz, no_simulation
from tests.strategies import (
    BARE_KEY,
    FINITE,
    NEGATIVE,
    NON_FINITE,
    NON_INTEGRAL,
    SAFE_TEXT,
    WORDS,
    WRONG_TYPE,
    WRONG_TYPE_NOT_STR,
    lit,
    misspell,
)

_counter = itertools.count()
N_JOBS = 60  # jobs of the tiny trace, 1..32 processors each
WIDEST = 32


def swf_text(n: int = N_JOBS, days: float = 2.0, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, int(days * 86400), n))
    lines = ["; MaxProcs: 64"]
    for k in range(n):
        runtime = int(rng.integers(60, 9000))
        size = WIDEST if k == 0 else int(rng.integers(1, WIDEST + 1))
        lines.append(f"{k + 1} {submit[k]} 0 {runtime} {size} -1 -1 {size} {2 * runtime} -1 1 {k % 5} 1 -1 1 -1 -1 -1")
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz_cloud")


@pytest.fixture(scope="module")
def trace(workdir) -> Path:
    """The tiny trace as an SWF file (the commands' --trace)."""
    path = workdir / "tiny.swf"
    path.write_text(swf_text(), encoding="utf-8")
    return path


@pytest.fixture(scope="module", autouse=True)
def data_dir(workdir):
    """MOPT_DATA_DIR holding the tiny trace under KTH-SP2's file name (the scenario files' trace)."""
    folder = workdir / "data"
    folder.mkdir()
    with gzip.open(folder / TRACES["KTH-SP2"][0], "wt", encoding="utf-8") as f:
        f.write(swf_text())
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MOPT_DATA_DIR", str(folder))
        mp.setenv("MOPT_CACHE_DIR", str(workdir / "cache"))  # never a cached real trace
        mp.setenv("MOPT_TRACE_URL", "http://127.0.0.1:9")  # a fetch fails at once
        yield folder


# -- the valid files, as TOML literals -------------------------------------------------------------
def windows() -> dict:
    return {
        "workload": {"trace": '"KTH-SP2"', "kind": '"trace"', "window": "20"},
        "cloud": {"boot_delay": "120", "max_vms": "64", "period": "1", "kappa": "100"},
        "run": {"method": '"nsga2"', "n_reps": "2", "seed": "1", "budget": "200"},
    }


def synthetic() -> dict:
    return {
        "workload": {"trace": '"kth-sp2"', "kind": '"synthetic"', "window": "30",
                     "patterns": '["Steady", "bursty"]'},
        "cloud": {"max_vms": "128", "vm_key": '"binpack"'},
        "run": {"method": '"mocba"', "n_reps": "2", "seed": "3", "options": "{ n0 = 2, sample = 50 }"},
    }


BASES = {"trace": windows, "synthetic": synthetic}
ALLOWED = {
    "workload": {"trace", "kind", "window", "patterns"},
    "cloud": {"boot_delay", "max_vms", "period", "kappa", "vm_key"},
    "run": {"method", "n_reps", "seed", "budget", "options"},
}


def render(sections: dict, top: tuple[str, ...] = ()) -> str:
    lines = ['family = "cloud"', *top]
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(workdir: Path, text: str, stem: str = "cloud", suffix: str = ".toml") -> Path:
    path = workdir / f"{stem}_{next(_counter)}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("base", sorted(BASES))
def test_base_files_are_valid(workdir, base):
    problem = load_scenario(write(workdir, render(BASES[base]()))).problem()
    assert problem.n_designs == 5115 and len(problem.jobs) == N_JOBS


# -- strategies of bad values ------------------------------------------------------------------------
def bad_int(low: int, high: int):
    """What an integer key in [low, high] must refuse."""
    return st.one_of(st.integers(-(2**63), low - 1), st.integers(high + 1, 2**63 - 1),
                     st.floats(2.0 * high + 2, 1e300).map(math.floor).map(float),
                     NON_INTEGRAL, NON_FINITE, WRONG_TYPE)


def bad_number(low: float, high: float = math.inf, *, low_open: bool = False):
    out = [st.floats(max_value=low, exclude_max=not low_open, allow_infinity=False), NON_FINITE, WRONG_TYPE]
    if low == 0 and not low_open:
        out[0] = NEGATIVE
    if math.isfinite(high):
        out.append(st.floats(high, 1.7e308, exclude_min=True))
    return st.one_of(out)


NOT_A_TRACE = st.one_of(SAFE_TEXT.filter(lambda s: archive_name(s) is None), WRONG_TYPE_NOT_STR)
RUN = {
    "method": (st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in mopt.METHODS), WRONG_TYPE_NOT_STR), "'method'"),
    "n_reps": (bad_int(1, 2**62), "'n_reps'"),
    "seed": (st.one_of(st.integers(-(2**63), -1), NON_INTEGRAL, NON_FINITE, WRONG_TYPE), "'seed'"),
    "budget": (st.one_of(st.integers(-(2**63), 0), NON_INTEGRAL, NON_FINITE, WRONG_TYPE), "'budget'"),
    "options": (st.one_of(st.integers(), SAFE_TEXT, st.lists(st.integers(), max_size=2)), "'options'"),
}


def bad_values(base: str) -> dict:
    """(section, key) -> (strategy of bad values, what the message names)."""
    window_high = N_JOBS if base == "trace" else MAX_WINDOW
    patterns = st.one_of(
        st.just([]),
        SAFE_TEXT.filter(lambda s: s.lower() not in {p.lower() for p in PATTERNS}).map(lambda s: [s]),
        st.tuples(st.lists(st.sampled_from(PATTERNS), max_size=2), WRONG_TYPE_NOT_STR.filter(
            lambda v: not isinstance(v, list))).map(lambda t: [*t[0], t[1]]),
        WRONG_TYPE_NOT_STR.filter(lambda v: not isinstance(v, list) or v),
        SAFE_TEXT.filter(lambda s: s.lower() not in {p.lower() for p in PATTERNS}),
    )
    return {
        ("workload", "trace"): (NOT_A_TRACE, "trace"),
        ("workload", "kind"): (st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in ("trace", "synthetic")),
                                         WRONG_TYPE_NOT_STR), "'kind'"),
        ("workload", "window"): (bad_int(1, window_high), "'window'"),
        ("workload", "patterns"): (patterns, "'patterns'"),
        ("cloud", "boot_delay"): (bad_number(0, MAX_TIME), "'boot_delay'"),
        ("cloud", "max_vms"): (bad_int(1, MAX_VMS), "'max_vms'"),
        ("cloud", "period"): (bad_int(1, MAX_PERIOD), "'period'"),
        ("cloud", "kappa"): (bad_number(0, low_open=True), "'kappa'"),
        ("cloud", "vm_key"): (st.one_of(SAFE_TEXT.filter(lambda s: s.lower() not in ("mod", "binpack")),
                                        WRONG_TYPE_NOT_STR), "'vm_key'"),
        **{("run", k): v for k, v in RUN.items()},
    }


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
        how = draw(st.sampled_from(["unknown", "top-level key", "as a value", "missing", "key elsewhere",
                                    "sub-table", "missing trace"]), label="how")
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
            sections.pop("workload")
            return sections, top, ["missing section [workload]"]
        if how == "missing trace":
            sections["workload"].pop("trace")
            return sections, top, ["[workload] missing key 'trace'"]
        if how == "key elsewhere":
            src, dst = draw(st.permutations(sorted(ALLOWED)), label="sections")[:2]
            key = draw(st.sampled_from(sorted(ALLOWED[src] - ALLOWED[dst])), label="key")
            sections.setdefault(dst, {})[key] = "1"
            return sections, top, [f"[{dst}] unknown key '{key}'"]
        section = draw(st.sampled_from(sorted(sections)), label="section")
        key = draw(BARE_KEY.filter(lambda k: k not in ALLOWED[section]), label="key")
        sections[section][key] = "{ window = 20 }"
        return sections, top, [f"[{section}] unknown key '{key}'"]
    (section, key) = draw(st.sampled_from(sorted(BAD[base])), label="key")
    values, fragment = BAD[base][section, key]
    sections.setdefault(section, {})[key] = lit(draw(values, label="value"))
    return sections, top, [f"[{section}]", fragment]


def load_bad(path: Path, fragments) -> None:
    with no_simulation(), pytest.raises((InputError, TypeError)) as info:
        load_scenario(path)
    message = str(info.value)
    assert "\n" not in message, message
    for fragment in [str(path), *fragments]:
        assert fragment in message, (fragment, message)
    count_bad_input("cloud scenario (load_scenario)")


def case_with(base: str, section: str, key: str, value: str, fragment: str):
    sections = BASES[base]()
    sections[section][key] = value
    return sections, (), [f"[{section}]", fragment]


# -- (a) scenario files ------------------------------------------------------------------------------
@fuzz(650)
@given(case=bad_case())
@example(case=case_with("trace", "workload", "kind", '"random"', "'kind'"))
@example(case=case_with("synthetic", "workload", "patterns", "5", "'patterns'"))
@example(case=case_with("trace", "cloud", "max_vms", "99999999999999999", "'max_vms'"))
@example(case=case_with("trace", "cloud", "period", "99999999999999999", "'period'"))
@example(case=case_with("trace", "cloud", "boot_delay", "1e300", "'boot_delay'"))
def test_scenario_bad_input_names_file_section_and_key(workdir, case):
    sections, top, fragments = case
    load_bad(write(workdir, render(sections, top)), fragments)


# -- the command line: one line, exit 2, nothing written, nothing simulated ----------------------------
@contextlib.contextmanager
def nothing_simulated():
    fail = AssertionError("bad input reached the simulator")
    with no_simulation(), mock.patch("mopt.cloud.simulate", side_effect=fail), \
            mock.patch("mopt.cloud.portfolio_report.portfolio_versus", side_effect=fail):
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
    count_bad_input("cloud mopt frontier")


NOT_A_NUMBER = st.one_of(WORDS, st.sampled_from(["", " ", "0x10", "1,5", "--"]))
NOT_AN_INT = st.one_of(NOT_A_NUMBER, FINITE.filter(lambda x: x != math.floor(x)).map(repr),
                       st.sampled_from(["nan", "inf", "1e3", "1.0"]))


def bad_int_text(low: int, high: int | None = None):
    out = [NOT_AN_INT, st.integers(-(10**30), low - 1).map(str)]
    if high is not None:
        out.append(st.integers(high + 1, 10**30).map(str))
    return st.one_of(out)


def bad_float_text(low: float, high: float, *, low_open: bool = False):
    below = NEGATIVE if low == 0 and not low_open else st.floats(max_value=low, allow_infinity=False,
                                                                  exclude_max=not low_open)
    return st.one_of(NOT_A_NUMBER, below.map(repr), st.floats(high, 1e300, exclude_min=True).map(repr),
                     st.sampled_from(["nan", "inf", "-inf", "NaN", "1e999"]))


POLICY_PARTS = (PROVISIONING, JOB_SELECTION, VM_SELECTION)
BAD_POLICY = st.one_of(
    SAFE_TEXT.filter(lambda s: "\x00" not in s and not s.startswith("-")),
    # three parts, one of them unknown
    st.tuples(*(st.sampled_from(p) for p in POLICY_PARTS), st.integers(0, 2),
              st.from_regex(r"[A-Za-z]{1,6}", fullmatch=True)).map(
        lambda t: "-".join(x if i != t[3] else t[4] for i, x in enumerate(t[:3]))).filter(
        lambda name: any(part not in parts for part, parts in zip(name.split("-"), POLICY_PARTS, strict=True))),
    st.sampled_from(["sc13", "jsspp", "ODA-FCFS", "ODA-FCFS-FirstFit-x", "ODA-FCFS-FirstFit,ODX-LXF-BestFit"]),
)
GOOD_POLICY = st.tuples(*(st.sampled_from(p) for p in POLICY_PARTS)).map("-".join)


@st.composite
def bad_simulate_option(draw, trace: Path):
    """``(argv, option)`` of ``mopt simulate``: one option bad, the others valid."""
    option = draw(st.sampled_from(["--policy", "--max-vms", "--size-limit", "--boot-delay", "--alpha", "--beta",
                                   "--runtime", "--vm-key", "--trace", "narrow cap", "not an option"]),
                    label="option")
    argv = {"--trace": str(trace), "--policy": draw(GOOD_POLICY, label="policy")}
    if option == "--policy":
        argv["--policy"] = draw(BAD_POLICY, label="bad")
        return argv, "'--policy'"
    if option == "--max-vms":
        argv[option] = draw(bad_int_text(1, MAX_VMS), label="bad")
    elif option == "--size-limit":
        argv[option] = draw(bad_int_text(1), label="bad")
    elif option == "--boot-delay":
        argv[option] = draw(bad_float_text(0, MAX_TIME), label="bad")
    elif option in ("--alpha", "--beta"):
        argv[option] = draw(bad_float_text(0, 100), label="bad")
    elif option == "--runtime":
        argv[option] = draw(SAFE_TEXT.filter(lambda s: s not in ("actual", "user", "predicted")), label="bad")
    elif option == "--vm-key":
        argv[option] = draw(SAFE_TEXT.filter(lambda s: s not in ("mod", "binpack")), label="bad")
    elif option == "--trace":
        argv[option] = draw(st.one_of(st.just(""), st.just(str(trace.parent)),
                                      st.from_regex(r"[a-z]{1,8}", fullmatch=True).map(
                                          lambda s: str(trace.parent / f"missing_{s}.swf"))), label="bad")
    elif option == "narrow cap":  # jobs wider than the cap and no --drop-wide
        argv["--max-vms"] = str(draw(st.integers(1, WIDEST - 1), label="cap"))
        return argv, "'--max-vms'"
    else:  # an option of another command
        name = draw(st.sampled_from(["--seed", "--workers", "--budget", "--portfolio", "--period"]))
        return {**argv, name: "1"}, name
    return argv, option.lstrip("-") if option == "--trace" else option


@st.composite
def bad_portfolio_option(draw, trace: Path):
    """``(argv, option)`` of ``mopt portfolio``: one option bad, the others valid."""
    option = draw(st.sampled_from(["--portfolio", "--selection-budget", "--ratio", "--period", "--alpha", "--beta",
                                   "--size-limit", "--first", "--boot-delay", "--max-vms", "--runtime",
                                   "--vm-key", "--seed", "--workers", "--trace", "narrow cap", "two clusters"]), label="option")
    argv = {"--trace": str(trace), "--portfolio": draw(st.sampled_from(["jsspp", "sc13", "ODA-FCFS-FirstFit"]))}
    if option == "--portfolio":
        how = draw(st.sampled_from(["name", "list", "repeat", "empty item"]), label="how")
        if how == "name":
            argv[option] = draw(st.from_regex(r"[A-Za-z0-9_ ]{0,10}", fullmatch=True).filter(
                lambda s: s.strip().lower() not in ("sc13", "jsspp")), label="bad")
        else:
            good = draw(st.lists(GOOD_POLICY, min_size=1, max_size=3, unique=True), label="good")
            bad = {"list": draw(BAD_POLICY.filter(lambda s: "," not in s and s.strip() and "-" in s)),
                   "repeat": good[0], "empty item": " "}[how]
            good.insert(draw(st.integers(0, len(good))), bad)
            argv[option] = ",".join(good)
        return argv, "'--portfolio'"
    if option in ("--selection-budget", "--period", "--size-limit", "--first"):
        argv[option] = draw(bad_int_text(1, MAX_PERIOD if option == "--period" else None), label="bad")
    elif option == "--ratio":
        argv[option] = draw(bad_float_text(0, 1, low_open=True), label="bad")
    elif option in ("--alpha", "--beta"):
        argv[option] = draw(bad_float_text(0, 100), label="bad")
    elif option == "--boot-delay":
        argv[option] = draw(bad_float_text(0, MAX_TIME), label="bad")
    elif option == "--max-vms":
        argv[option] = draw(bad_int_text(1, MAX_VMS), label="bad")
    elif option == "--runtime":
        argv[option] = draw(SAFE_TEXT.filter(lambda s: s not in ("actual", "user", "predicted")), label="bad")
    elif option == "--vm-key":
        argv[option] = draw(SAFE_TEXT.filter(lambda s: s not in ("mod", "binpack")), label="bad")
    elif option == "--seed":
        argv[option] = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), -1).map(str)), label="bad")
    elif option == "--workers":
        argv[option] = draw(st.one_of(NOT_AN_INT, st.integers(-(10**30), 0).map(str),
                                      st.integers(10**4, 10**30).map(str)), label="bad")
    elif option == "--trace":
        argv[option] = draw(st.one_of(st.just(""), st.just(str(trace.parent)),
                                      st.from_regex(r"[a-z]{1,8}", fullmatch=True).map(
                                          lambda s: str(trace.parent / f"missing_{s}.swf"))), label="bad")
        return argv, "trace"
    elif option == "narrow cap":
        argv["--max-vms"] = str(draw(st.integers(1, WIDEST - 1), label="cap"))
        return argv, "'--max-vms'"
    else:
        return {**argv, "--scheduler": "tcp://127.0.0.1:1", "--workers": str(draw(st.integers(2, 4)))}, \
            "'--scheduler'"
    return argv, option


def run_command(command: str, argv: dict, out: Path, quiet: bool) -> int:
    items = [f"{k}={v}" for k, v in argv.items()]
    with nothing_simulated():
        return main([command, *items, "--out", str(out), *(["--quiet"] if quiet else [])])


@fuzz(170)
@given(data=st.data(), quiet=st.booleans())
@example(data=None, quiet=False)
def test_cli_simulate_bad_option_is_one_line(workdir, trace, capsys, data, quiet):
    if data is None:  # regression examples: the library's names, a cap under the widest job
        cases = [({"--trace": str(trace), "--policy": "XX"}, "'--policy'"),
                 ({"--trace": str(trace), "--policy": "ODA-FCFS-FirstFit", "--max-vms": "99999999999999999999"},
                  "'--max-vms'"),
                 ({"--trace": str(trace), "--policy": "ODA-FCFS-FirstFit", "--boot-delay": "1e300"},
                  "'--boot-delay'"),
                 ({"--trace": str(trace), "--policy": "ODA-FCFS-FirstFit", "--alpha": "1e300"}, "'--alpha'"),
                 ({"--trace": str(trace), "--policy": "ODA-FCFS-FirstFit", "--max-vms": "4"}, "'--max-vms'")]
    else:
        cases = [data.draw(bad_simulate_option(trace), label="case")]
    for argv, option in cases:
        out = workdir / f"simulate_{next(_counter)}.csv"
        capsys.readouterr()
        code = run_command("simulate", argv, out, quiet)
        assert_one_line_error(capsys, code, option)
        assert not out.exists()
        count_bad_input("cloud mopt simulate")


@fuzz(220)
@given(data=st.data(), quiet=st.booleans())
@example(data=None, quiet=False)
def test_cli_portfolio_bad_option_is_one_line(workdir, trace, capsys, data, quiet):
    if data is None:  # regression examples
        base = {"--trace": str(trace), "--portfolio": "jsspp"}
        cases = [({**base, "--boot-delay": "nan"}, "--boot-delay"), ({**base, "--boot-delay": "1e300"}, "--boot-delay"),
                 ({**base, "--period": "99999999999999999999999"}, "'--period'"),
                 ({**base, "--max-vms": "99999999999999999999999"}, "'--max-vms'"),
                 ({**base, "--alpha": "1e300"}, "'--alpha'"), ({**base, "--ratio": "nan"}, "'--ratio'"),
                 ({**base, "--portfolio": "ODA-FCFS-FirstFit,XX-YY-ZZ"}, "'--portfolio'"),
                 ({**base, "--scheduler": "tcp://127.0.0.1:1", "--workers": "2"}, "'--scheduler'"),
                 ({**base, "--first": "--"}, "--first"), ({**base, "--selection-budget": "--"}, "--selection-budget")]
    else:
        cases = [data.draw(bad_portfolio_option(trace), label="case")]
    for argv, option in cases:
        out = workdir / f"portfolio_{next(_counter)}"
        capsys.readouterr()
        code = run_command("portfolio", argv, out, quiet)
        assert_one_line_error(capsys, code, option)
        assert not out.exists()
        count_bad_input("cloud mopt portfolio")
