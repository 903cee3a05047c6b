"""One vocabulary across commands (issue #36): --trace, --first, --budget, --out mean one thing,
and the spellings of the earlier release keep working with one deprecation note."""

from __future__ import annotations

import pandas as pd
import pytest

from mopt.cli import main


def _swf(tmp_path, n=40):
    """A small SWF trace whose records 0, 3, 6, ... have run time 0 (dropped by cleaning)."""
    lines = ["; MaxProcs: 8"]
    for k in range(n):
        runtime, size = (0 if k % 3 == 0 else 300 + 10 * k), 1 + k % 4
        lines.append(f"{k + 1} {k * 60} 0 {runtime} {size} -1 -1 {size} {runtime + 60} -1 1 {k % 5} 1 -1 1 -1 -1 -1")
    path = tmp_path / "t.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_koala_takes_trace_as_an_option_and_the_positional_with_a_note(tmp_path, capsys):
    trace = _swf(tmp_path)
    assert main(["koala", "--trace", str(trace), "--policy", "FF", "--out", str(tmp_path / "a.csv"),
                 "--quiet"]) == 0
    assert "deprecated" not in capsys.readouterr().err
    assert main(["koala", str(trace), "--policy", "FF", "--out", str(tmp_path / "b.csv"), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert err.count("mopt: note: 'mopt koala TRACE' is deprecated") == 1 and "--trace" in err
    a, b = pd.read_csv(tmp_path / "a.csv"), pd.read_csv(tmp_path / "b.csv")
    pd.testing.assert_frame_equal(a, b)


def test_koala_without_a_trace_or_with_two_is_one_line(tmp_path, capsys):
    assert main(["koala", "--policy", "FF"]) == 2
    assert "'--trace' is required" in capsys.readouterr().err
    assert main(["koala", "x.swf", "--trace", "y.swf"]) == 2
    assert "give the trace once, as '--trace'" in capsys.readouterr().err


def test_first_counts_records_before_cleaning_in_simulate_and_portfolio(tmp_path, capsys):
    trace = _swf(tmp_path)  # of the first 9 records, 3 have run time 0: 6 jobs
    assert main(["simulate", "--trace", str(trace), "--policy", "ODA-FCFS-FirstFit", "--first", "9",
                 "--out", str(tmp_path / "s.csv")]) == 0
    assert len(pd.read_csv(tmp_path / "s.csv")) == 6
    capsys.readouterr()
    assert main(["portfolio", "--trace", str(trace), "--portfolio", "ODA-FCFS-FirstFit,ODX-FCFS-FirstFit",
                 "--first", "9", "--out", str(tmp_path / "p"), "--quiet"]) == 0
    assert "6 jobs; portfolio of 2 policies" in capsys.readouterr().out


def test_portfolio_old_spellings_work_with_one_note_each(tmp_path, capsys):
    trace = _swf(tmp_path)
    common = ["portfolio", "--trace", str(trace), "--portfolio", "ODA-FCFS-FirstFit,ODX-FCFS-FirstFit", "--quiet"]
    assert main([*common, "--max-jobs", "9", "--budget", "1", "--out", str(tmp_path / "old")]) == 0
    old = capsys.readouterr()
    assert "9 jobs; portfolio of 2 policies, mopt selection rule, Δ = 1" in old.out  # cleaned jobs, as before
    assert old.err.count("'--max-jobs' is deprecated, use '--first'") == 1
    assert old.err.count("'--budget' is deprecated, use '--selection-budget'") == 1
    assert main([*common, "--selection-budget", "1", "--out", str(tmp_path / "new")]) == 0
    new = capsys.readouterr()
    assert "Δ = 1" in new.out and "deprecated" not in new.err


@pytest.mark.parametrize("command", ["simulate", "portfolio", "koala"])
def test_every_trace_command_documents_trace_and_first(command, capsys):
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--trace TRACE" in text or "--trace NAME" in text
    assert "--first N" in text and "first N records of the trace" in text
