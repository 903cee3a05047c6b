"""``mopt report DIR`` works on the output directory of every command that writes one (issue #36):
``frontier`` and ``demo`` (a result), ``compare`` (its ground truth kept as ``truth.csv``), ``vmc``
and ``portfolio`` (the facts kept in ``manifest.json``) — the page drawn again from the directory
is the page the command wrote; what it cannot draw it refuses in one line saying what to run."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mopt.cli import main
from tests.cli.test_recorded_outputs import synthetic_swf
from tests.helpers import REFERENCE, assert_one_line_error


def regenerated(directory: Path, capsys) -> tuple[str, str]:
    """The page the command wrote and the one ``mopt report`` draws again (to another file and
    over DIR/report.html)."""
    first = (directory / "report.html").read_text(encoding="utf-8")
    capsys.readouterr()
    again = directory.parent / f"{directory.name}-again.html"
    assert main(["report", str(directory), "--out", str(again)]) == 0
    assert capsys.readouterr().out.strip() == str(again)
    assert main(["report", str(directory)]) == 0
    assert (directory / "report.html").read_text(encoding="utf-8") == again.read_text(encoding="utf-8")
    return first, again.read_text(encoding="utf-8")


@pytest.fixture
def vmc_dir(tmp_path) -> Path:
    out = tmp_path / "v"
    assert main(["vmc", "--vms", "8", "--workloads", "LFLD", "--scenarios", "1", "--seeds", "2",
                 "--sample-size", "10", "--methods", "exhaustive,blind_pick", "--noise", "common",
                 "--out", str(out), "--quiet"]) == 0
    facts = json.loads((out / "manifest.json").read_text())["facts"]
    assert facts["noise"] == "common" and facts["seeds"] == 2
    return out


@pytest.fixture
def portfolio_dir(tmp_path) -> Path:
    swf = tmp_path / "w.swf"
    swf.write_text(synthetic_swf(120))
    out = tmp_path / "p"
    assert main(["portfolio", "--trace", str(swf), "--portfolio", "ODA-FCFS-FirstFit,ODB-FCFS-FirstFit",
                 "--out", str(out), "--quiet"]) == 0
    return out


@pytest.mark.parametrize("directory, said", [("vmc_dir", "noise common"),
                                             ("portfolio_dir", "120 jobs, actual runtimes; the portfolio of 2 policies")])
def test_vmc_and_portfolio_directories(request, capsys, directory, said):
    first, again = regenerated(request.getfixturevalue(directory), capsys)
    assert again == first
    assert said in again


def test_an_older_portfolio_set_without_facts(portfolio_dir, tmp_path, capsys):
    out = portfolio_dir
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps({"mopt": manifest["mopt"], "files": manifest["files"]}))
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "old.html")]) == 0
    text = (tmp_path / "old.html").read_text(encoding="utf-8")
    assert "The portfolio of 2 policies against each of them alone." in text
    assert "ODB-FCFS-FirstFit" in text


def test_compare_directory(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["compare", str(REFERENCE), "--methods", "blind_pick,exhaustive", "--budgets", "10%",
                 "--macroreps", "2", "--truth-reps", "10", "--out", str(out), "--quiet"]) == 0
    truth = pd.read_csv(out / "truth.csv")
    assert len(truth) == 289 and (truth["n_reps"] == 10).all()
    first, again = regenerated(out, capsys)
    assert again == first


def test_compare_directory_without_its_truth_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "c"
    assert main(["compare", str(REFERENCE), "--methods", "blind_pick", "--budgets", "10%",
                 "--macroreps", "1", "--truth-reps", "10", "--out", str(out), "--quiet"]) == 0
    (out / "truth.csv").unlink()
    capsys.readouterr()
    code = main(["report", str(out)])
    assert_one_line_error(capsys, code, "written by 'mopt compare' before it kept its ground truth",
                          "run 'mopt compare' again")


def test_frontier_directory_still_works(tmp_path, capsys):
    out = tmp_path / "f"
    assert main(["frontier", str(REFERENCE), "--method", "blind_pick", "--budget", "200",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["report", str(out), "--out", str(tmp_path / "f.html")]) == 0
    assert (tmp_path / "f.html").stat().st_size > 1_000_000


def test_a_file_of_simulate_is_refused_saying_where_its_report_is(tmp_path, capsys):
    swf = tmp_path / "w.swf"
    swf.write_text(synthetic_swf(50))
    jobs = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit", "--out", str(jobs),
                 "--quiet"]) == 0
    capsys.readouterr()
    code = main(["report", str(jobs)])
    assert_one_line_error(capsys, code, "is a file, not a result directory", "jobs.report.html")


def test_another_set_is_refused_in_one_line(tmp_path, capsys):
    d = tmp_path / "odd"
    d.mkdir()
    (d / "manifest.json").write_text(json.dumps({"mopt": "0", "files": {"other.csv": "00"}}))
    code = main(["report", str(d)])
    assert_one_line_error(capsys, code, "none of the commands 'mopt report' draws")


def test_a_set_missing_its_table_is_refused_in_one_line(vmc_dir, capsys):
    out = vmc_dir
    (out / "vmc_summary.csv").unlink()
    capsys.readouterr()
    code = main(["report", str(out)])
    assert_one_line_error(capsys, code, "is the output of 'mopt vmc' but vmc_summary.csv is missing")


def test_a_table_edited_after_it_was_written_is_refused_in_one_line(portfolio_dir, capsys):
    table = portfolio_dir / "portfolio.csv"
    table.write_text(table.read_text().replace("ODB-FCFS-FirstFit", "ODB-FCFS-FirstFix"))
    capsys.readouterr()
    code = main(["report", str(portfolio_dir)])
    assert_one_line_error(capsys, code, "portfolio.csv' does not match the sha256 recorded in", "manifest.json")
