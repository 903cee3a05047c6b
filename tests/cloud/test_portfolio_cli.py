"""``mopt portfolio``: the table, the best constituent, the files; bad input exits 2 in one line."""

from __future__ import annotations

import pandas as pd
import pytest

from mopt.cli import main

# SWF: id submit wait run alloc cpu mem req_procs req_time req_mem status user group exe queue
# partition preceding think. Job 1: 4 VMs for 600 s at 0 (spec §5's check); job 2: 1 VM, 60 s at 30.
SWF = """; MaxProcs: 16
1 0 0 600 4 -1 -1 4 900 -1 1 1 1 1 1 1 -1 -1
2 30 0 60 1 -1 -1 1 120 -1 1 2 1 1 1 1 -1 -1
"""
MIX = "ODA-FCFS-FirstFit,ODX-FCFS-FirstFit"


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "tiny.swf"
    path.write_text(SWF)
    return path


def test_prints_every_constituent_and_the_best(trace, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["portfolio", "--trace", str(trace), "--portfolio", MIX, "--out", str(out), "--quiet"])
    stdout = capsys.readouterr().out
    assert code == 0
    assert "ODA-FCFS-FirstFit" in stdout and "ODX-FCFS-FirstFit" in stdout
    assert "best constituent: ODA-FCFS-FirstFit" in stdout
    table = pd.read_csv(out / "portfolio.csv")
    assert table["policy"].tolist() == ["ODA-FCFS-FirstFit", "ODX-FCFS-FirstFit", "portfolio"]
    # ODA on job 1 alone is spec §5's case; the portfolio chooses ODA at t = 0 and equals it here
    oda = table.set_index("policy").loc["ODA-FCFS-FirstFit"]
    assert table["utility"].iloc[-1] == pytest.approx(oda["utility"])
    assert (out / "portfolio.png").stat().st_size > 0
    log = pd.read_csv(out / "selections.csv")
    assert log.loc[0, "name"] == "ODA-FCFS-FirstFit" and log.loc[0, "time"] == 0


@pytest.mark.parametrize("argv, fragment", [
    (["--portfolio", "sc15"], "'portfolio' must be one of"),
    (["--portfolio", "SC15"], "got 'SC15'"),  # as typed
    (["--portfolio", ""], "'--portfolio' is an empty mix"),
    (["--portfolio", " , "], "'--portfolio' is an empty mix"),
    (["--portfolio", MIX + ","], "'--portfolio' has an empty policy name between commas"),
    (["--portfolio", "ODA-FCFS-FirstFit,ODA-FCFS"], "'policy' must read"),
    (["--ratio", "0"], "'ratio' must be in (0, 1]"),
    (["--alpha", "-1"], "'alpha' must be in [0, inf)"),
    (["--trace", "NOPE-SP2"], "'--trace' must be one of"),
])
def test_bad_input_exits_2_in_one_line(trace, tmp_path, capsys, argv, fragment):
    args = ["portfolio", "--trace", str(trace), "--out", str(tmp_path / "o"), "--quiet"]
    code = main(args + argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("mopt: error: "), err
    assert fragment in err[0]


@pytest.mark.parametrize("argv", [["--budget", "0"], ["--period", "1.5"], ["--period", "0"]])
def test_usage_errors(trace, tmp_path, capsys, argv):
    code = main(["portfolio", "--trace", str(trace), "--out", str(tmp_path / "o")] + argv)
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "must be" in err.splitlines()[-1]
