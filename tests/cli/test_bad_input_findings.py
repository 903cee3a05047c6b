"""Issue 14, findings 1-7 and 10, each reproduced as filed: it now ends as the README promises,
exit 2 and one line ``mopt: error: ...`` naming the file, line, key or parameter (library calls:
one InputError saying the same).  Bad input is refused before anything is simulated.

The findings met through the ``mopt`` command are here; those of the library are in the
``test_bad_input_findings.py`` of tests/core (function problems, journals), tests/expert (scenario
values) and tests/workloads (SWF line ends)."""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import time
from pathlib import Path
from unittest import mock

import pytest

import mopt
from mopt import FunctionProblem, InputError
from mopt.cli import main
from mopt.workloads import read_swf
from tests.helpers import no_simulation

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "reference.toml"
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


# -- 1: long plain numbers ------------------------------------------------------------------
def test_1_long_plain_number_is_not_inf(tmp_path, capsys):
    fields = RECORD.split()
    fields[3] = "9" * 330  # run time: 330 digits, no exponent (above 1.8e308)
    path = tmp_path / "long.swf"
    path.write_text(RECORD + "\n" + " ".join(fields) + "\n")
    code = main(["traces", "describe", str(path)])
    one_line(capsys, code, f"{path}, line 2: field 4 ('run_time') is out of range")
    fields[3] = "9" * 308  # below the float64 maximum: a number, but beyond every trace's time bound
    path.write_text(" ".join(fields) + "\n")
    with pytest.raises(InputError, match=r"line 1: field 4 \('run_time'\) must be at most 1e\+12 s"):
        read_swf(path)


# -- 2: no bound on input size ---------------------------------------------------------------
def test_2_huge_single_line_swf_is_refused_at_once(tmp_path, capsys):
    path = tmp_path / "one_line.swf"
    path.write_text("1 " * 1_500_000)  # 3 MB on one line (took 66 s and 2.3 GB)
    start = time.perf_counter()
    code = main(["traces", "describe", str(path)])
    # read in blocks: the refusal comes at the first block without a line end (not the line's end)
    message = one_line(capsys, code, f"{path}, line 1: the line is at least ", "MOPT_MAX_LINE_BYTES")
    assert int(message.split("at least ")[1].split(" bytes")[0].replace(",", "")) > 1_048_576
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
    named = special  # what a scenario names: the FIFO beside it (an absolute /dev/zero leaves its directory)
    if where in ("observed", "instances") and special != "/dev/zero":
        named = "fifo"
    if where == "trace":
        argv = ["traces", "describe", special]
    elif where == "scenario":
        argv = ["frontier", special, "--out", str(tmp_path / "o")]
    elif where == "observed":
        online = REFERENCE.parent / "online.toml"
        path = tmp_path / "obs.toml"
        path.write_text(online.read_text().replace('file = "online_log.csv"', f'file = "{named}"'))
        argv = ["frontier", str(path), "--out", str(tmp_path / "o")]
    else:
        path = scenario(tmp_path, 'kind = "shifted_lognormal"\nmean = 2066\nshift = 1000\nsigma = 0.5\n'
                        "reliability = 0.827",
                        f'kind = "instances"\nfile = "{named}"\ndeadline = 8264')
        argv = ["frontier", str(path), "--out", str(tmp_path / "o")]
    with no_simulation():
        code = main(argv)
    if named == "/dev/zero" and where in ("observed", "instances"):  # refused before it is opened
        one_line(capsys, code, "'file' '/dev/zero' leaves the scenario's directory")
    else:
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


# -- 7: journal integrity --------------------------------------------------------------------
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
    one_line(capsys, code, f"{short / 'evaluations.csv'}', line 3", "expected 13 fields (as the header); got 12")
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
    (["frontier", "s.toml", "--bogus"], "mopt: error: frontier: unrecognized arguments: --bogus"),
])
def test_10_usage_errors_are_one_line(capsys, argv, fragment):
    one_line(capsys, main(argv), fragment, "--help")
