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
    # gain_% is explained in the line after the table, and printed as the best constituent's line has it
    # (issue #36: it was unexplained)
    lines = stdout.splitlines()
    after = lines[next(i for i, line in enumerate(lines) if line.startswith("portfolio "))+ 1]
    assert after == ("gain_%: the portfolio's gain in utility over the row's policy, "
                     "100 x (U(portfolio) / U(policy) - 1)")
    assert lines[next(i for i, line in enumerate(lines) if line.startswith("ODA-FCFS-FirstFit"))].endswith(" +0.0")
    table = pd.read_csv(out / "portfolio.csv")
    assert table["policy"].tolist() == ["ODA-FCFS-FirstFit", "ODX-FCFS-FirstFit", "portfolio"]
    # ODA on job 1 alone is spec §5's case; the portfolio chooses ODA at t = 0 and equals it here
    oda = table.set_index("policy").loc["ODA-FCFS-FirstFit"]
    assert table["utility"].iloc[-1] == pytest.approx(oda["utility"])
    assert (out / "portfolio.png").stat().st_size > 0
    log = pd.read_csv(out / "selections.csv")
    assert log.loc[0, "name"] == "ODA-FCFS-FirstFit" and log.loc[0, "time"] == 0


@pytest.mark.parametrize("argv, fragment", [
    (["--portfolio", "sc15"], "'--portfolio' must be a portfolio name (sc13, jsspp) or a comma-separated list"),
    (["--portfolio", "SC15"], "got 'SC15'"),  # as typed
    (["--portfolio", ""], "'--portfolio' is an empty mix"),
    (["--portfolio", " , "], "'--portfolio' is an empty mix"),
    (["--portfolio", MIX + ","], "'--portfolio' has an empty policy name between commas"),
    (["--portfolio", "ODA-FCFS-FirstFit,ODA-FCFS"], "'--portfolio' must read"),
    (["--ratio", "0"], "'--ratio' must be in (0, 1]"),
    (["--selection", "foo"], "argument --selection: invalid choice: 'foo' (choose from 'mopt', 'sc13')"),
    (["--alpha", "-1"], "'--alpha' must be in [0, 100]"),
    (["--trace", "NOPE-SP2"], "'--trace' must be an archive name"),
    (["--max-vms", "2"], "1 jobs of "),  # job 1 needs 4 VMs
    (["--max-vms", "2"], "need more than '--max-vms' 2 VMs; give '--size-limit' 2 (now 64)"),
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


@pytest.mark.parametrize("selection", ["mopt", "sc13"])
def test_workers_give_the_same_files(tmp_path, capsys, selection):
    # 30 random jobs, three policies: the constituents and the portfolio as tasks of a local Dask
    # cluster of 2 workers give the same table and selection log as in-process (both rules)
    import numpy as np

    rng = np.random.default_rng(4)
    lines = [f"{k + 1} {t} 0 {r} {n} -1 -1 {n} {2 * r} -1 1 {u} 1 1 1 1 -1 -1"
             for k, (t, r, n, u) in enumerate(zip(np.sort(rng.integers(0, 20_000, 30)),
                                                  rng.integers(30, 4000, 30),
                                                  rng.integers(1, 9, 30), rng.integers(1, 4, 30), strict=True))]
    path = tmp_path / "random.swf"
    path.write_text("; MaxProcs: 16\n" + "\n".join(lines) + "\n")
    mix = MIX + ",ODB-LXF-BestFit"
    outs = []
    for k, extra in enumerate(([], ["--workers", "2"])):
        out = tmp_path / f"o{k}"
        assert main(["portfolio", "--trace", str(path), "--portfolio", mix, "--out", str(out),
                     "--selection", selection, "--quiet", *extra]) == 0
        outs.append(out)
    capsys.readouterr()
    for name in ("portfolio.csv", "selections.csv"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    assert len(pd.read_csv(outs[0] / "selections.csv")) > 0


def test_a_trace_the_vms_cannot_keep_up_with_is_announced(tmp_path, capsys):
    # 10 jobs of 4 VMs x 3,000 s submitted 600 s apart: 120,000 VM-seconds over a 5,400 s span;
    # 4 VMs do 21,600: offered load 5.6 > 0.8 (a queue that never drains); 16 VMs: 1.4, still warned;
    # 64 VMs: 0.35, not warned
    lines = [f"{k + 1} {600 * k} 0 3000 4 -1 -1 4 3000 -1 1 1 1 1 1 1 -1 -1" for k in range(10)]
    path = tmp_path / "busy.swf"
    path.write_text("; MaxProcs: 4\n" + "\n".join(lines) + "\n")
    for cap, warned in (("4", True), ("16", True), ("64", False)):
        assert main(["portfolio", "--trace", str(path), "--portfolio", MIX, "--max-vms", cap,
                     "--out", str(tmp_path / f"o{cap}"), "--quiet"]) == 0
        err = capsys.readouterr().err
        assert ("queue hardly ever drains" in err) is warned, (cap, err)
