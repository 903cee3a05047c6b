"""``mopt report DIR`` (and the report.html that ``mopt frontier`` and ``mopt demo`` write beside
their CSV files): the page holds the result's designs, the family's labels, the decisions and the
scenario; bad directories and outputs end in one line naming the path and exit 2."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.core.family import get_family
from tests.helpers import REFERENCE, assert_one_line_error


def page_data(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    return json.loads(re.search(r"const REPORT = (\{.*?\});</script>", text, re.S).group(1))


@pytest.fixture
def result_dir(tmp_path) -> Path:
    """Four ExPERT-like designs (makespan, cost): A (10, 5), B (20, 2), C (40, 0.5), D (30, 3) — D
    dominated — with the uncertainty columns, run from a scenario file that still exists."""
    scenario = tmp_path / "s.toml"
    scenario.write_text('# the scenario\n[grid]\nN = [1, 2]  # "<b>kept</b>"\n')
    ev = pd.DataFrame({
        "design": [0, 1, 2, 3], "N": [1, 2, 3, 4],
        "makespan": [10.0, 20.0, 40.0, 30.0], "makespan_se": 0.1,
        "cost": [5.0, 2.0, 0.5, 3.0], "cost_se": 0.01, "n_reps": 10,
        "makespan_lo": [9.0, 19.0, 39.0, 29.0], "makespan_hi": [11.0, 21.0, 41.0, 31.0],
        "cost_lo": [4.5, 1.5, 0.25, 2.5], "cost_hi": [5.5, 2.5, 0.75, 3.5],
        "p_nondominated": [1.0, 0.625, 0.875, 0.25],
    })
    info = {"family": "expert", "scenario": str(scenario), "budget": 40,
            "uncertainty": {"level": 0.95, "p_correct_selection": 0.5, "expected_false_in": 0.25,
                            "expected_false_out": 0.125, "uncertain": [1, 3], "resamples": 200}}
    d = tmp_path / "run"
    mopt.Result("exhaustive", 7, 40, ("makespan", "cost"), ev, info).to_csv(d)
    return d


def test_report_writes_dir_report_html_and_prints_its_path(result_dir, capsys):
    assert main(["report", str(result_dir)]) == 0
    page = result_dir / "report.html"
    assert capsys.readouterr().out.strip() == str(page)
    text = page.read_text(encoding="utf-8")
    data = page_data(page)
    assert data["n"] == 4 and sorted(data["columns"]["design"][i] for i in data["front"]) == [0, 1, 2]
    expert = get_family("expert")
    assert data["labels"] == [expert.label("makespan"), expert.label("cost")]
    assert "p_nondominated" not in data["columns"]  # a posterior, not a calibrated frequency: not shown
    assert set(data["columns"]["certified"]) <= {"efficient", "dominated", "undecided"}
    # the family's default decisions: min makespan is A (design 0), min cost is C (design 2)
    decisions = text.split("<h2>Decisions</h2>")[1].split("<h2>")[0]
    assert re.search(r"<td>min makespan</td><td>0</td>", decisions)
    assert re.search(r"<td>min cost</td><td>2</td>", decisions)
    # the uncertain designs, most uncertain first (|P - 0.5|: 0.125, 0.25)
    uncertain = text.split("<h2>Uncertain designs</h2>")[1].split("<h2>")[0]
    assert re.findall(r"<tr><td>(\d+)</td>", uncertain) == ["1", "3"]
    # the scenario file, escaped
    assert "# the scenario" in text and "&lt;b&gt;kept&lt;/b&gt;" in text


def test_report_out_elsewhere_leaves_the_directory_alone(result_dir, tmp_path, capsys):
    before = sorted(p.name for p in result_dir.iterdir())
    out = tmp_path / "pages" / "r.html"
    assert main(["report", str(result_dir), "--out", str(out)]) == 0
    assert out.is_file() and capsys.readouterr().out.strip() == str(out)
    assert sorted(p.name for p in result_dir.iterdir()) == before


def test_report_of_an_older_result_without_uncertainty(tmp_path, capsys):
    ev = pd.DataFrame({"design": [0, 1], "x": [0.5, 1.5], "time": [1.0, 2.0], "time_se": [0.1, 0.2],
                       "cost": [2.0, 1.0], "cost_se": [0.0, 0.1], "n_reps": [5, 5]})
    d = tmp_path / "old"
    mopt.Result("oo", 3, 10, ("time", "cost"), ev).to_csv(d)
    assert main(["report", str(d)]) == 0
    text = (d / "report.html").read_text(encoding="utf-8")
    assert "mean ± 1.96 standard errors" in text and "[1.608, 2.392]" in text  # 2 ± 1.96 x 0.2


@pytest.mark.parametrize("case", ["missing", "not a result", "out is a directory", "out is an input",
                                  "malformed"])
def test_report_bad_input_is_one_line_naming_the_path(result_dir, tmp_path, capsys, case):
    args, fragment = {
        "missing": (["report", str(tmp_path / "nowhere")], str(tmp_path / "nowhere")),
        "not a result": (["report", str(tmp_path)], "not a mopt result directory"),
        "out is a directory": (["report", str(result_dir), "--out", str(tmp_path)], str(tmp_path)),
        "out is an input": (["report", str(result_dir), "--out", str(result_dir / "evaluations.csv")],
                            "one of the run's inputs"),
        "malformed": (["report", str(result_dir)], "result.json"),
    }[case]
    if case == "malformed":
        (result_dir / "result.json").write_text("{")
    assert_one_line_error(capsys, main(args), fragment)
    assert not (result_dir / "report.html").exists()


def test_frontier_writes_report_html_in_its_set(tmp_path, capsys):
    scenario = tmp_path / "small.toml"
    scenario.write_text(REFERENCE.read_text().replace('preset = "paper"', 'N = [0, 1]\nT = [0, 2066]\nD = [4132]\n'
                                                      "Mr = [0.1]"))
    out = tmp_path / "run"
    assert main(["frontier", str(scenario), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    page = out / "report.html"
    assert str(page) in printed.splitlines()[-1]  # "wrote ..., report.html"
    meta = json.loads((out / "result.json").read_text())
    assert meta["files"]["report.html"] == hashlib.sha256(page.read_bytes()).hexdigest()
    text = page.read_text(encoding="utf-8")
    assert "Mr = [0.1]" in text  # the scenario file
    assert page_data(page)["n"] == len(pd.read_csv(out / "evaluations.csv")) == 4
    assert "<h2>Decisions</h2>" in text


def test_result_to_html_and_repr_html(result_dir, tmp_path):
    result = mopt.Result.read_csv(result_dir)
    page = result.to_html(tmp_path / "r.html")
    assert page == tmp_path / "r.html" and page_data(page)["n"] == 4
    table = result._repr_html_()
    assert "<script" not in table and table.count("<tr><td>") == 3  # the front
    assert dataclasses.replace(result) == result  # the methods add no field


def test_a_demo_set_is_drawn_with_its_static_strategies_and_its_figure(result_dir, tmp_path, capsys):
    """``mopt report DIR`` on a set that holds ``statics.csv`` (listed in its result.json, as
    ``mopt demo`` writes it) and ``front.png``: the static strategies' table and markers, a link
    to the figure by its address from the page; a statics.csv edited after it was written, or
    not part of the set, is not shown."""
    from mopt.core.outputs import write_outputs

    result = mopt.Result.read_csv(result_dir)
    statics = pd.DataFrame({"name": ["AR", "TRR"], "makespan": [61980.0, 11570.0], "cost": [19.5, 3.865],
                            "dominated_by_frontier": [True, True]})
    d = tmp_path / "demo"
    write_outputs(result, d, lambda p: Path(p).write_bytes(b"\x89PNG"),
                  {"statics.csv": lambda p: statics.to_csv(p, index=False)})
    assert main(["report", str(d), "--out", str(tmp_path / "pages" / "demo.html")]) == 0
    text = (tmp_path / "pages" / "demo.html").read_text(encoding="utf-8")
    assert "<h2>Static strategies</h2>" in text and "<td>AR</td><td>61980</td>" in text
    assert page_data(tmp_path / "pages" / "demo.html")["statics"]["names"] == ["AR", "TRR"]
    assert '<a href="../demo/front.png">front.png</a>' in text
    (d / "statics.csv").write_text("name,makespan,cost\nEVIL,1,1\n")
    assert main(["report", str(d)]) == 0
    text = (d / "report.html").read_text(encoding="utf-8")
    assert "Static strategies" not in text and "EVIL" not in text and '<a href="front.png">' in text


def test_a_set_that_records_its_title_decisions_and_space_is_redrawn_with_them(result_dir, tmp_path, capsys):
    """``mopt demo`` records its title, its five decisions (utility specs) and the size of its space
    in result.json: ``mopt report`` on its directory draws the same title and decisions rather than
    the family's defaults (issue #36 audit: the redraw lost "budget: ..." and "deadline: ...")."""
    from mopt.expert.commands import DEMO_TITLE, DEMO_UTILITIES

    result = mopt.Result.read_csv(result_dir)
    result = dataclasses.replace(result, info={**result.info, "title": DEMO_TITLE, "n_designs": 289,
                                               "utilities": DEMO_UTILITIES})
    d = tmp_path / "set"
    result.to_csv(d)
    assert main(["report", str(d)]) == 0
    text = (d / "report.html").read_text(encoding="utf-8")
    assert f"<title>{DEMO_TITLE}" in text or f"<h1>{DEMO_TITLE}" in text
    for label in DEMO_UTILITIES:
        assert mopt.report.tables.html.escape(label) in text, label
    assert "<th>designs in the space</th><td>289</td>" in text
    # a spec that no longer parses: the family's decisions, not a failure
    broken = dataclasses.replace(result, info={**result.info, "utilities": {"x": "nonsense(("}})
    broken.to_csv(tmp_path / "broken")
    assert main(["report", str(tmp_path / "broken")]) == 0


def test_the_folder_of_a_koala_csv_is_named_for_what_it_holds(tmp_path, capsys):
    d = tmp_path / "kout"
    d.mkdir()
    (d / "koala.csv").write_text("policy,slowdown\nFF,1.5\n")
    (d / "koala.report.html").write_text("<html></html>")
    assert_one_line_error(capsys, main(["report", str(d)]), "holds no result set but koala.report.html",
                          "'mopt simulate' or 'mopt koala' wrote beside its CSV")
