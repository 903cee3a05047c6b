"""Issue 14, findings 1-7 and 10, each reproduced as filed: it now ends as the README promises,
exit 2 and one line ``mopt: error: ...`` naming the file, line, key or parameter (library calls:
one InputError saying the same).  Bad input is refused before anything is simulated."""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import os
import re
import shutil
import sqlite3
import time
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from tests.helpers import no_simulation

import mopt
from mopt import FunctionProblem, InputError, SimulationError
from mopt.cli import main

REFERENCE = Path(__file__).resolve().parents[1] / "examples" / "reference.toml"
RECORD = "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1"


def one_line(capsys, code: int, *fragments: str, exit_code: int = 2) -> str:
    err = capsys.readouterr().err
    assert code == exit_code, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mopt: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


def scenario(tmp_path: Path, old: str = "", new: str = "", name: str = "s.toml") -> Path:
    text = REFERENCE.read_text()
    if old:
        assert old in text, old
        text = text.replace(old, new)
    path = tmp_path / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory) -> Path:
    """A small result directory written by the library (4 designs, 2 objectives)."""
    problem = FunctionProblem(lambda p, rng: (p["x"] + rng.normal(0, 0.1), (3 - p["x"]) ** 2),
                              [{"x": x} for x in range(4)], ["time", "cost"], n_reps=2)
    out = tmp_path_factory.mktemp("result")
    mopt.solve(problem, "exhaustive", seed=1).to_csv(out)
    return out


def edited(result_dir: Path, tmp_path: Path, edit) -> Path:
    copy = tmp_path / "edited"
    shutil.copytree(result_dir, copy)
    lines = (copy / "evaluations.csv").read_text().splitlines()
    (copy / "evaluations.csv").write_text("\n".join(edit(lines)) + "\n")
    return copy


# -- 1: long plain numbers, CR-only line ends ------------------------------------------------
def test_1_long_plain_number_is_not_inf(tmp_path, capsys):
    fields = RECORD.split()
    fields[3] = "9" * 330  # run time: 330 digits, no exponent (above 1.8e308)
    path = tmp_path / "long.swf"
    path.write_text(RECORD + "\n" + " ".join(fields) + "\n")
    code = main(["traces", "describe", str(path)])
    one_line(capsys, code, f"{path}, line 2: field 4 ('run_time') is out of range")
    fields[3] = "9" * 308  # below the float64 maximum: a number
    path.write_text(" ".join(fields) + "\n")
    assert mopt.cloud.read_swf(path)["run_time"].iloc[0] == float("9" * 308)


def test_1_cr_only_line_ends_keep_the_header(tmp_path):
    big = RECORD.replace(" 2 -1 -1 2 ", " 8 -1 -1 8 ", 1)  # 8 processors > MaxProcs 4
    path = tmp_path / "mac.swf"
    path.write_bytes(f"; MaxProcs: 4\r; Note: old Mac\r{RECORD}\r{big}\r".encode())
    df = mopt.cloud.read_swf(path, clean=True)
    assert df.attrs["header"] == {"MaxProcs": "4", "Note": "old Mac"}
    assert df.attrs["n_records"] == 2 and len(df) == 1  # the 8-processor job is cleaned away


# -- 2: no bound on input size ---------------------------------------------------------------
def test_2_huge_single_line_swf_is_refused_at_once(tmp_path, capsys):
    path = tmp_path / "one_line.swf"
    path.write_text("1 " * 1_500_000)  # 3 MB on one line (took 66 s and 2.3 GB)
    start = time.perf_counter()
    code = main(["traces", "describe", str(path)])
    one_line(capsys, code, f"{path}, line 1: the line is 3,000,000 bytes long", "MOPT_MAX_LINE_BYTES")
    assert time.perf_counter() - start < 10


def test_2_inflating_gzip_trace(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MOPT_MAX_INPUT_BYTES", "1M")
    path = tmp_path / "bomb.swf.gz"
    path.write_bytes(gzip.compress(b"\n" * 2**23))  # 8 MiB of newlines in 8 KiB
    code = main(["traces", "describe", str(path)])
    one_line(capsys, code, f"'{path}' inflates beyond the size limit", "MOPT_MAX_INPUT_BYTES")


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
@pytest.mark.parametrize("where", ["scenario", "trace", "observed", "instances"])
def test_2_dev_zero_and_fifo_are_refused(tmp_path, capsys, special, where):
    if special == "fifo":
        special = str(tmp_path / "fifo")
        os.mkfifo(special)
    kind = "a character device" if special == "/dev/zero" else "a FIFO"
    if where == "trace":
        argv = ["traces", "describe", special]
    elif where == "scenario":
        argv = ["frontier", special, "--out", str(tmp_path / "o")]
    elif where == "observed":
        online = REFERENCE.parent / "online.toml"
        path = tmp_path / "obs.toml"
        path.write_text(online.read_text().replace('file = "online_log.csv"', f'file = "{special}"'))
        argv = ["frontier", str(path), "--out", str(tmp_path / "o")]
    else:
        path = scenario(tmp_path, 'kind = "shifted_lognormal"\nmean = 2066\nshift = 1000\nsigma = 0.5\n'
                        "reliability = 0.827",
                        f'kind = "instances"\nfile = "{special}"\ndeadline = 8264')
        argv = ["frontier", str(path), "--out", str(tmp_path / "o")]
    with no_simulation():
        code = main(argv)
    one_line(capsys, code, f"'{special}' is not a regular file ({kind})")


# -- 3: deep nesting, huge integers ----------------------------------------------------------
def test_3_deeply_nested_scenario_and_result(tmp_path, capsys, result_dir):
    path = scenario(tmp_path, "[run]", "[run]\nx = " + "[" * 5000 + "]" * 5000)
    code = main(["frontier", str(path), "--out", str(tmp_path / "o")])
    one_line(capsys, code, f"{path}: arrays or tables nested deeper than 64 levels", "MOPT_MAX_NESTING")
    copy = tmp_path / "deep"
    shutil.copytree(result_dir, copy)
    meta = json.loads((copy / "result.json").read_text())
    text = json.dumps(meta).replace('"info": {', '"info": {"x": ' + "[" * 5000 + "]" * 5000 + ", ")
    (copy / "result.json").write_text(text)
    code = main(["decide", str(copy), "--utility", "product(time, cost)"])
    one_line(capsys, code, f"{copy / 'result.json'}: arrays or tables nested deeper than 64 levels")


def test_3_huge_seed_in_result_json(tmp_path, capsys, result_dir):
    copy = tmp_path / "seed"
    shutil.copytree(result_dir, copy)
    text = (copy / "result.json").read_text()
    (copy / "result.json").write_text(re.sub(r'"seed": \d+', '"seed": ' + "7" * 5000, text))
    code = main(["decide", str(copy), "--utility", "product(time, cost)"])
    one_line(capsys, code, f"{copy / 'result.json'}: malformed mopt result metadata (an integer has more "
                           "than 4,300 digits)")


# -- 4: --workers 1000 -----------------------------------------------------------------------
@pytest.mark.parametrize("command", [["demo"], ["frontier", str(REFERENCE)]])
def test_4_too_many_workers_are_refused_before_any_process(tmp_path, capsys, monkeypatch, command):
    monkeypatch.delenv("MOPT_MAX_WORKERS", raising=False)
    cap = 4 * (os.cpu_count() or 1)
    with mock.patch("mopt.core.execute.local_cluster", side_effect=AssertionError("a cluster started")), \
            no_simulation():
        code = main([*command, "--out", str(tmp_path / "o"), "--workers", "1000"])
    one_line(capsys, code, f"mopt: error: {command[0]}: argument --workers: must be at most {cap}",
             "MOPT_MAX_WORKERS", "got 1000")
    monkeypatch.setenv("MOPT_MAX_WORKERS", "2000")  # the documented override: accepted by the parser
    assert mopt.cli.build_parser().parse_args([*command, "--workers", "1000"]).workers == 1000
    with pytest.raises(InputError, match="'n_workers' must be at most 2000"):
        with mopt.core.execute.local_cluster(2001):
            pass


# -- 5: values no run can use ----------------------------------------------------------------
@pytest.mark.parametrize("old, new, fragment", [
    ("charging_period_r = 1 ", "charging_period_r = 1e300 ", "'charging_period_r' must be in (0, 3.1536e+07]"),
    ("n_unreliable = 50 ", "n_unreliable = 100000000 ", "'n_unreliable' must be an integer in [1, 1,000,000]"),
    ('c_r = "34/3600"', "c_r = 1e300", "'c_r' must be in [0, 1e+06]"),
    ("n_tasks = 150", "n_tasks = 100000000", "'n_tasks' must be an integer in [1, 1,000,000]"),
])
def test_5_unusable_values_are_refused(tmp_path, capsys, old, new, fragment):
    path = scenario(tmp_path, old, new)
    with no_simulation():
        code = main(["frontier", str(path), "--out", str(tmp_path / "o")])
    one_line(capsys, code, str(path), "[environment]", fragment)


def test_5_largest_values_still_run():
    """At the bounds, costs and standard errors stay finite (no overflow warnings)."""
    env = mopt.expert.reference_environment(0.1)
    env = dataclasses.replace(env, charging_period_r=365 * 86400.0, c_r=1e6)
    with np.errstate(all="raise"):
        df = mopt.expert.estimate(env, mopt.expert.Strategy(N=0, T=0, D=4132, Mr=0.1), n_reps=3, seed=1)
    assert np.isfinite(df["cost"]).all() and np.isfinite(df["cost"].std())


# -- 6: messages that name nothing -----------------------------------------------------------
@pytest.mark.parametrize("column", ["time", "time_se", "n_reps", "x"])
def test_6_decide_names_a_word_in_a_numeric_column(tmp_path, capsys, result_dir, column):
    def edit(lines):
        header = lines[0].split(",")
        cells = lines[2].split(",")
        cells[header.index(column)] = "abc"
        return [lines[0], lines[1], ",".join(cells), *lines[3:]]

    copy = edited(result_dir, tmp_path, edit)
    code = main(["decide", str(copy), "--utility", "product(time, cost)"])
    one_line(capsys, code, f"{copy / 'evaluations.csv'}", f"column {column!r}", "'abc' at line 3")


def _raises(p, rng):
    if p["x"] == 2:
        raise ZeroDivisionError("division by zero")
    return (p["x"], 3 - p["x"])


def _text(p, rng):
    return "abc" if p["x"] == 1 else (1.0, 2.0)


def _mapping(p, rng):
    return {"time": 1.0, "cost": 2.0} if p["x"] == 1 else (1.0, 2.0)


def _nan(p, rng):
    return (math.nan if p["x"] == 3 else 1.0, 2.0)


@pytest.mark.parametrize("method", ["exhaustive", "ocba"])
def test_6_function_problem_names_the_design(method):
    designs = [{"x": x} for x in range(4)]

    def solve(f):
        return mopt.solve(FunctionProblem(f, designs, ["time", "cost"], n_reps=2), method, seed=1, budget=40)

    with pytest.raises(SimulationError, match=r"'simulate' raised ZeroDivisionError on design 2 \(x=2\), "
                                              r"replication \d+: division by zero") as info:
        solve(_raises)
    assert isinstance(info.value.__cause__, ZeroDivisionError)  # the user's own error is kept
    with pytest.raises(InputError, match=r"must return 2 values \(time, cost\); got 'abc' \(str\) for design 1 "
                                         r"\(x=1\)"):
        solve(_text)
    with pytest.raises(InputError, match=r"got \{'time': 1.0, 'cost': 2.0\} \(dict\) for design 1 \(x=1\)"):
        solve(_mapping)
    # NaN: not an empty front (exhaustive) nor an internal message (ocba)
    with pytest.raises(InputError, match=r"the simulation of design 3 \(x=3\), replication \d+ gave NaN for "
                                         r"objective 'time'"):
        solve(_nan)


# -- 7: journal integrity --------------------------------------------------------------------
def test_7_fractional_replication_in_the_journal_is_refused(tmp_path):
    problem = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], sd=1.0, n_reps=3)
    path = tmp_path / "run.sqlite"
    clean = mopt.solve(problem, "exhaustive", seed=4, journal=path)
    with sqlite3.connect(path) as db:  # a hand edit: replication 1 of design 2 becomes 1.5
        db.execute("UPDATE replications SET rep = 1.5 WHERE design = 2 AND rep = 1")
    with pytest.raises(InputError, match=r"run\.sqlite' is damaged: the row of design 2, replication 1\.5 does "
                                         r"not address a replication"):
        mopt.solve(problem, "exhaustive", seed=4, journal=path)
    with sqlite3.connect(path) as db:  # undone: the journal is whole again and gives the same result
        db.execute("UPDATE replications SET rep = 1 WHERE design = 2 AND rep = 1.5")
    again = mopt.solve(problem, "exhaustive", seed=4, journal=path)
    assert again.evaluations.equals(clean.evaluations)


@pytest.mark.parametrize("name", ["front.csv", "evaluations.csv", "result.json", "front.png", "."])
def test_7_journal_that_the_outputs_would_overwrite_is_refused(tmp_path, capsys, name):
    out = tmp_path / "OUT"
    journal = out / name if name != "." else out
    with no_simulation():
        code = main(["frontier", str(REFERENCE), "--out", str(out), "--journal", str(journal), "--quiet"])
    one_line(capsys, code, "'--journal'", "'--out'", "would overwrite")
    assert not (out / name).is_file()  # nothing created


def test_7_journal_elsewhere_in_out_is_kept(tmp_path, capsys):
    """A journal inside --out under its own name is fine, and survives the run."""
    out = tmp_path / "OUT"
    path = scenario(tmp_path, 'preset = "paper"', 'preset = "paper"\nN = [0, 1]\nT = [0]\nD = [4132]\nMr = [0.1]')
    argv = ["frontier", str(path), "--out", str(out), "--journal", str(out / "run.sqlite"), "--quiet"]
    assert main(argv) == 0
    assert (out / "run.sqlite").read_bytes()[:16] == b"SQLite format 3\x00"
    assert main(argv) == 0  # resumes from it
    capsys.readouterr()


def test_7_decide_refuses_ragged_rows_and_repeated_designs(tmp_path, capsys, result_dir):
    short = edited(result_dir, tmp_path / "a", lambda lines: [*lines[:2], lines[2].rsplit(",", 1)[0], *lines[3:]])
    code = main(["decide", str(short), "--utility", "product(time, cost)"])
    one_line(capsys, code, f"{short / 'evaluations.csv'}', line 3", "expected 7 fields (as the header); got 6")
    twice = edited(result_dir, tmp_path / "b", lambda lines: [*lines, lines[1]])
    code = main(["decide", str(twice), "--utility", "product(time, cost)"])
    one_line(capsys, code, f"{twice / 'evaluations.csv'}", "design 0 appears twice, at lines 2 and 6")


# -- 10: usage errors ------------------------------------------------------------------------
@pytest.mark.parametrize("argv, fragment", [
    ([], "mopt: error: the following arguments are required: COMMAND"),
    (["frontier"], "mopt: error: frontier: the following arguments are required: SCENARIO.toml"),
    (["compare", "s.toml"], "mopt: error: compare: the following arguments are required: --methods"),
    (["traces", "nope"], "mopt: error: traces: argument action: invalid choice: 'nope'"),
    (["demo", "--seed", "x"], "mopt: error: demo: argument --seed: must be a non-negative integer"),
    (["frontier", "s.toml", "--bogus"], "mopt: error: unrecognized arguments: --bogus"),
])
def test_10_usage_errors_are_one_line(capsys, argv, fragment):
    one_line(capsys, main(argv), fragment, "--help")


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_7_journal_that_is_not_a_regular_file(tmp_path, special):
    if special == "fifo":
        special = str(tmp_path / "fifo")
        os.mkfifo(special)
    problem = mopt.NormalProblem([[1.0], [2.0]], sd=1.0)
    with no_simulation(), pytest.raises(InputError, match=f"'journal' must be a regular file; '{special}' is not"):
        mopt.solve(problem, "exhaustive", seed=1, journal=special)
