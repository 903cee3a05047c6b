"""The reports of the family commands that compare named alternatives (``mopt simulate``,
``portfolio``, ``koala``, ``vmc``; :mod:`mopt.report.summary_page`): each writes one page beside
its CSV and says so; the page holds one marker per row of what it compares, the command's table
and the run's facts; the page script's data is valid JSON (NaN as null)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mopt.cli import main
from mopt.report.summary_page import Scatter, render_summary_report
from tests.cli.test_recorded_outputs import synthetic_swf
from tests.helpers import needs_traces


def spec(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r"const SUMMARY = (\{.*?\});</script>", text, re.S).group(1))


def markers(data: dict) -> int:
    return sum(len(t["x"]) for t in data["scatter"]["traces"])


@pytest.fixture
def swf(tmp_path) -> Path:
    path = tmp_path / "w.swf"
    path.write_text(synthetic_swf(120))
    return path


def test_scatter_groups_errors_categories_and_nan():
    t = pd.DataFrame({"cell": ["a", "a", "b"], "method": ["x", "y", "x"], "mean": [1.0, np.nan, 3.0],
                      "ci95": [0.5, 0.25, np.nan]})
    data = json.loads(re.search(r"const SUMMARY = (\{.*?\});</script>",
                                render_summary_report(title="t", lead="l", tables=[("T", t)],
                                                      scatter=Scatter(t, "cell", "mean", "cell", "mean", group="method",
                                                                      error_y="ci95")), re.S).group(1))
    traces = data["scatter"]["traces"]
    assert [tr["name"] for tr in traces] == ["x", "y"]
    assert traces[0]["x"] == ["a", "b"] and traces[0]["y"] == [1.0, 3.0] and traces[0]["error_y"]["array"] == [0.5, None]
    assert traces[1]["y"] == [None]
    assert data["scatter"]["layout"]["xaxis"]["type"] == "category"
    assert data["scatter"]["layout"]["yaxis"]["type"] == "linear"
    with pytest.raises(KeyError, match="'nope'"):
        render_summary_report(title="t", lead="l", tables=[], scatter=Scatter(t, "nope", "mean", "", ""))


def test_simulate_writes_its_report_beside_the_csv(swf, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit", "--out", str(out), "--quiet"]) == 0
    page = tmp_path / "jobs.report.html"
    assert f"wrote {out}, {page}" in capsys.readouterr().out
    data = spec(page)
    assert markers(data) == len(pd.read_csv(out)) == 120  # one marker per job
    assert data["scatter"]["layout"]["yaxis"]["type"] == "log"
    text = page.read_text(encoding="utf-8")
    assert "ODA-FCFS-FirstFit" in text and "mean bounded slowdown" in text


def test_simulate_refuses_a_report_path_it_must_not_replace_before_running(swf, tmp_path, capsys):
    (tmp_path / "jobs.report.html").mkdir()
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit",
                 "--out", str(tmp_path / "jobs.csv"), "--quiet"]) == 2
    assert "jobs.report.html" in capsys.readouterr().err
    assert not (tmp_path / "jobs.csv").exists()


def test_portfolio_report_has_every_constituent_and_the_portfolio(swf, tmp_path, capsys):
    out = tmp_path / "p"
    assert main(["portfolio", "--trace", str(swf), "--portfolio", "ODA-FCFS-FirstFit,ODB-FCFS-FirstFit",
                 "--out", str(out), "--quiet"]) == 0
    assert str(out / "report.html") in capsys.readouterr().out
    data = spec(out / "report.html")
    table = pd.read_csv(out / "portfolio.csv")
    assert markers(data) == len(table) == 3
    assert sorted(t["name"] for t in data["scatter"]["traces"]) == sorted(set(table["provisioning"]))


def test_vmc_report_has_a_point_per_cell_and_method_with_its_interval(tmp_path, capsys):
    out = tmp_path / "v"
    assert main(["vmc", "--vms", "8", "--workloads", "LFLD", "--seeds", "2", "--sample-size", "20",
                 "--methods", "exhaustive,blind_pick", "--out", str(out), "--quiet"]) == 0
    data = spec(out / "report.html")
    summary = pd.read_csv(out / "vmc_summary.csv")
    assert markers(data) == len(summary) == 4  # 2 scenarios x 2 methods
    bars = [v for t in data["scatter"]["traces"] for v in t["error_y"]["array"]]
    assert sorted(bars) == pytest.approx(sorted(summary["ci95"]))


@needs_traces("KTH-SP2")
def test_koala_report_beside_its_csv(tmp_path, capsys):
    out = tmp_path / "k.csv"
    assert main(["koala", "--trace", "KTH-SP2", "--first", "200", "--policy", "FF", "--policy", "SJF",
                 "--out", str(out), "--quiet"]) == 0
    page = tmp_path / "k.report.html"
    assert f"wrote {out}, {page}" in capsys.readouterr().out
    assert markers(spec(page)) == len(pd.read_csv(out)) == 2


@pytest.mark.skipif(shutil.which("chromium") is None and shutil.which("chromium-browser") is None,
                    reason="no chromium on PATH (CI installs it)")
def test_browser_draws_every_job_of_the_simulate_report_offline(swf, tmp_path):
    from tests.test_report import body, browse, errors

    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODX-SJF-BestFit", "--out", str(out), "--quiet"]) == 0
    dom = browse(tmp_path / "jobs.report.html", tmp_path)
    attrs = body(dom)
    assert errors(dom) == "" and "errors" not in attrs
    assert attrs["rendered"] == "yes" and attrs["points"] == "120"
    assert dom.count('class="point"') == 120  # one SVG marker per job


@pytest.mark.parametrize("command, metavar", [("simulate", "FILE"), ("koala", "FILE"), ("portfolio", "DIR"),
                                              ("vmc", "DIR"), ("frontier", "DIR")])
def test_out_says_whether_it_names_a_file_or_a_directory(command, metavar, capsys):
    assert main([command, "--help"]) == 0
    assert f"--out {metavar}" in capsys.readouterr().out
