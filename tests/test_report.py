"""``mopt.report``: the HTML report of a result, read back as text (its tables and its data) and
opened in a real browser (headless Chromium, network off) to check that the plots draw one marker
per design, raise no error and paint a screenshot that is not blank."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.core.family import get_family
from mopt.report import GL_THRESHOLD, render_report, repr_html, write_report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH (CI installs it)")


# -- results with and without the uncertainty columns -------------------------------------------------
def plain_result() -> mopt.Result:
    """Four designs of (f1, f2) means (1, 5), (2, 2), (5, 1), (3, 3), sd 0.3: three on the front;
    without the uncertainty columns (a result of an earlier release: :func:`with_uncertainty` adds
    them by hand)."""
    result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [3, 3]], sd=0.3), "exhaustive", seed=1)
    return without_uncertainty(result)


def without_uncertainty(result: mopt.Result) -> mopt.Result:
    how_sure = ["p_nondominated", *(f"{o}_{e}" for o in result.objectives for e in ("lo", "hi"))]
    info = {k: v for k, v in result.info.items() if k != "uncertainty"}
    return dataclasses.replace(result, evaluations=result.evaluations.drop(columns=how_sure), info=info)


def with_uncertainty(result: mopt.Result, p: list[float], uncertain: list[int]) -> mopt.Result:
    """``result`` with the uncertainty columns added by hand: bounds mean - 1 and mean + 2 (so
    that they cannot be mistaken for mean ± 1.96 se), ``p_nondominated`` = ``p``."""
    ev = result.evaluations.copy()
    for o in result.objectives:
        ev[f"{o}_lo"], ev[f"{o}_hi"] = ev[o] - 1.0, ev[o] + 2.0
    ev["p_nondominated"] = p
    info = {**result.info, "uncertainty": {"level": 0.9, "p_correct_selection": 0.625,
                                           "expected_false_in": 0.25, "expected_false_out": 0.5,
                                           "uncertain": uncertain, "resamples": 400}}
    return dataclasses.replace(result, evaluations=ev, info=info)


def big_result(n: int, seed: int = 5) -> mopt.Result:
    """``n`` made-up ExPERT designs (N, T, D, Mr; makespan, cost), with the uncertainty columns."""
    rng = np.random.default_rng(seed)
    makespan = rng.lognormal(9, 0.5, n)
    cost = 5e4 / makespan * rng.lognormal(0, 0.4, n)
    ev = pd.DataFrame({"design": np.arange(n), "N": rng.integers(1, 60, n),
                       "T": rng.choice(np.arange(0, 4000, 50.0), n), "D": rng.choice(np.arange(0, 8000, 100.0), n),
                       "Mr": rng.choice([0.02, 0.04, 0.06, 0.08, 0.1], n),
                       "makespan": makespan, "makespan_se": makespan * 0.02, "cost": cost, "cost_se": cost * 0.03,
                       "n_reps": 10})
    result = mopt.Result("exhaustive", 1, 10 * n, ("makespan", "cost"), ev, {"family": "expert", "budget": 10 * n})
    front = mopt.pareto_mask(ev[["makespan", "cost"]].to_numpy())
    return with_uncertainty(result, np.where(front, 0.9, 0.02).tolist(), [])


def page_data(text: str) -> dict:
    """The ``REPORT`` object a page draws from (JSON)."""
    found = re.search(r"const REPORT = (\{.*?\});</script>", text, re.S)
    assert found, "no REPORT data in the page"
    return json.loads(found.group(1))


# -- the page as text ----------------------------------------------------------------------------------
def test_the_page_is_self_contained(tmp_path):
    path = write_report(plain_result(), tmp_path / "r.html")
    text = path.read_text(encoding="utf-8")
    from plotly.offline import get_plotlyjs

    assert get_plotlyjs() in text  # plotly.js inlined, whole
    assert not re.search(r"<script[^>]+src=", text) and not re.search(r"<link[^>]+href=", text)
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def test_intervals_are_the_results_own_bounds_and_p_is_shown(tmp_path):
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [1, 3])
    text = render_report(result)
    ev = result.evaluations.set_index("design")
    f1 = ev.loc[1, "f1"]
    # design 1's f1 as "mean [mean - 1, mean + 2]" (4 significant digits), and its P
    assert f"{f1:.4g} <span class=\"ci\">[{f1 - 1:.4g}, {f1 + 2:.4g}]</span>" in text
    assert "<td>0.50</td>" in text and "P(non-dominated)" in text
    assert "90% confidence intervals" in text  # info["uncertainty"]["level"]
    assert "<td>0.625</td>" in text  # P(correct selection)
    data = page_data(text)
    assert data["has_p"] and data["columns"]["p_nondominated"] == [0.75, 0.5, 0.875, 0.125]
    assert data["columns"]["f1_hi"][1] == pytest.approx(f1 + 2.0, rel=1e-4)


def test_an_older_result_shows_mean_pm_1_96_se_and_no_p(tmp_path):
    result = plain_result()
    text = render_report(result)
    row = result.evaluations.iloc[1]  # on the front (the page's front table)
    lo, hi = row["f2"] - 1.96 * row["f2_se"], row["f2"] + 1.96 * row["f2_se"]
    assert f"[{lo:.4g}, {hi:.4g}]" in text
    assert "mean ± 1.96 standard errors" in text and "P(non-dominated)</th>" not in text
    assert "no design is marked uncertain" in text
    assert page_data(text)["has_p"] is False


def test_uncertain_designs_most_uncertain_first():
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [3, 0, 1])
    text = render_report(result)
    table = text.split("<h2>Uncertain designs</h2>")[1].split("<h2>")[0]
    designs = [int(d) for d in re.findall(r"<tr><td>(\d+)</td>", table)]
    assert designs == [1, 0, 3]  # |P - 0.5|: 0, 0.25, 0.375
    # the page data marks them by row number, for the plot's circles
    assert sorted(page_data(text)["uncertain"]) == [0, 1, 3]


def test_front_and_columns_in_the_page_data():
    result = plain_result()
    data = page_data(render_report(result))
    assert data["n"] == 4 and all(len(v) == 4 for v in data["columns"].values())
    front_designs = sorted(data["columns"]["design"][i] for i in data["front"])
    assert front_designs == sorted(result.front["design"].tolist()) == [0, 1, 2]
    means = result.evaluations["f1"].to_numpy()
    np.testing.assert_allclose(data["columns"]["f1"], means, rtol=1e-4)  # 5 significant digits
    assert data["gl"] is False  # a small set is drawn as SVG


def test_axis_titles_are_the_familys_labels():
    data = page_data(render_report(big_result(50)))
    expert = get_family("expert")
    assert data["labels"] == [expert.label("makespan"), expert.label("cost")]
    assert "[s]" in data["labels"][0]
    assert page_data(render_report(plain_result()))["labels"] == ["f1", "f2"]  # no family: the names


def test_decisions_with_p_best_and_runner_up():
    result = plain_result()
    chosen = {"min f1": result.best(mopt.utility.minimize("f1")),
              "product": result.best(mopt.utility.product("f1", "f2")), "nothing fits": None}
    chosen["product"]["p_best"] = 0.71
    chosen["product"]["runner_up"] = 3
    text = render_report(result, chosen=chosen)
    table = text.split("<h2>Decisions</h2>")[1].split("<h2>")[0]
    assert "<td>product</td><td>1</td>" in table  # design 1: 2 x 2 = 4 is the least product
    assert "<td>0.71</td><td>3</td>" in table and "P(best)" in table and "runner-up" in table
    assert "no evaluated design satisfies nothing fits" in table
    assert [c["label"] for c in page_data(text)["chosen"]] == ["min f1", "product"]


def test_progress_is_the_mean_over_macroreplications_per_method():
    progress = pd.DataFrame({"method": ["ocba"] * 4 + ["oo"] * 2, "budget": [10, 10, 100, 100, 10, 100],
                             "macrorep": [0, 1, 0, 1, 0, 0], "pcs": [0.2, 0.4, 0.6, 1.0, 0.1, 0.3],
                             "status": "ok"})
    data = page_data(render_report(plain_result(), progress=progress))["progress"]
    assert data["x"] == "budget" and data["x_type"] == "linear"
    (panel,) = data["panels"]
    assert panel["metric"] == "pcs"
    assert {s["name"]: s["y"] for s in panel["series"]} == {"ocba": [0.3, 0.8], "oo": [0.1, 0.3]}


def test_three_objectives_get_a_scatter_matrix_and_parallel_coordinates():
    three = mopt.solve(mopt.NormalProblem([[1, 2, 3], [3, 2, 1], [2, 2, 2], [3, 3, 3]], sd=0.1), "exhaustive", seed=1)
    text = render_report(three)
    assert 'id="splom"' in text and 'id="parcoords"' in text
    assert 'id="splom"' not in render_report(plain_result())


def test_scenario_text_is_escaped():
    text = render_report(plain_result(), scenario='[grid]\nx = "</script><b>bold</b>"')
    assert "<b>bold</b>" not in text and "&lt;/script&gt;&lt;b&gt;bold" in text


def test_15579_designs_stay_under_10_mb_and_use_webgl(tmp_path):
    """ExPERT's WL3 grid has 15,579 designs: the page stays under 10 MB (plotly.js is ~4.6 MB)."""
    path = write_report(big_result(15_579), tmp_path / "big.html")
    size = path.stat().st_size
    assert size < 10e6, f"{size / 1e6:.1f} MB"
    data = page_data(path.read_text(encoding="utf-8"))
    assert data["n"] == 15_579 and data["gl"] is True and 15_579 > GL_THRESHOLD


def test_repr_html_is_the_front_with_its_uncertainty_and_no_script():
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [])
    text = repr_html(result)
    assert "<script" not in text and text.startswith("<div")
    assert len(re.findall(r"<tr><td>", text)) == 3  # the front: designs 0, 1, 2
    f2 = result.front["f2"].iloc[0]
    assert f"[{f2 - 1:.4g}, {f2 + 2:.4g}]" in text


def test_importing_mopt_and_its_report_does_not_import_plotly():
    code = "import sys, mopt, mopt.report, mopt.cli; print('plotly' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- in a browser ----------------------------------------------------------------------------------------
def browse(page, tmp_path, *, screenshot=None, budget_ms: int = 5000) -> str:
    """Open ``page`` in headless Chromium with the network off (every request goes to a closed
    proxy port) and return the DOM once scripts have run (or write ``screenshot``)."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--proxy-server=127.0.0.1:9", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
            f"--virtual-time-budget={budget_ms}"]
    args += ["--window-size=1200,900", f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    done = subprocess.run([*args, page.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def body(dom: str) -> dict:
    """The ``data-*`` attributes of ``<body>`` (rendered, points, svg-points, errors)."""
    tag = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', tag))


def errors(dom: str) -> str:
    return re.search(r'<pre id="errors"[^>]*>(.*?)</pre>', dom, re.S).group(1)


@needs_chromium
def test_browser_draws_one_svg_marker_per_design_offline(tmp_path):
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [3])
    chosen = {"min f1": result.best(mopt.utility.minimize("f1"))}
    dom = browse(write_report(result, tmp_path / "r.html", chosen=chosen), tmp_path)
    attrs = body(dom)
    assert errors(dom) == "" and "errors" not in attrs
    assert attrs["rendered"] == "yes" and attrs["points"] == "4" and attrs["svg-points"] == "4"
    assert dom.count('class="main-svg"') >= 2  # plotly drew into the page


@needs_chromium
def test_browser_counts_designs_only_when_every_design_is_on_the_front(tmp_path):
    """No dominated design (an empty trace draws no SVG group) and a chosen marker on top: the
    markers of designs are still one per design."""
    result = mopt.solve(mopt.NormalProblem([[1, 3], [2, 2], [3, 1]], sd=0.1), "exhaustive", seed=1)
    chosen = {"min f2": result.best(mopt.utility.minimize("f2"))}
    attrs = body(browse(write_report(result, tmp_path / "r.html", chosen=chosen), tmp_path))
    assert attrs["points"] == attrs["svg-points"] == "3"


@needs_chromium
def test_browser_draws_three_objectives_and_progress(tmp_path):
    rng = np.random.default_rng(3)
    result = without_uncertainty(mopt.solve(mopt.NormalProblem(rng.uniform(1, 10, (40, 3)), sd=0.5), "exhaustive",
                                            seed=1))  # no uncertain designs: two frontier traces
    progress = pd.DataFrame({"method": ["a", "a", "b", "b"], "budget": [10, 100, 10, 100], "pcs": [0.1, 0.5, 0.2, 0.4]})
    dom = browse(write_report(result, tmp_path / "r.html", progress=progress), tmp_path)
    attrs = body(dom)
    assert errors(dom) == "" and attrs["rendered"] == "yes" and attrs["points"] == "40"
    plots = dict(p.split(":") for p in attrs["plots"].split())
    assert plots == {"frontier": "scatter,scatter", "splom": "splom", "parcoords": "parcoords",
                     "progress-0": "scatter,scatter"}


@needs_chromium
def test_browser_reports_a_script_error(tmp_path):
    """The harness itself: an error thrown on the page reaches the dumped DOM."""
    text = render_report(plain_result()).replace("</body>", "<script>throw new Error('boom')</script></body>")
    page = tmp_path / "broken.html"
    page.write_text(text, encoding="utf-8")
    dom = browse(page, tmp_path)
    assert "boom" in errors(dom) and body(dom)["errors"] == "1"


@needs_chromium
def test_browser_screenshot_is_not_blank(tmp_path):
    from matplotlib.image import imread

    png = tmp_path / "shot.png"
    browse(write_report(with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [3]), tmp_path / "r.html"),
           tmp_path, screenshot=png)
    pixels = imread(png)[..., :3]
    assert pixels.shape[:2] == (900, 1200)
    assert pixels.std() > 0.05  # text, axes and markers on white
    not_grey = np.abs(pixels - pixels.mean(axis=2, keepdims=True)).max(axis=2) > 0.2
    assert not_grey.sum() > 100  # coloured markers (the front, by P) were painted


@needs_chromium
@pytest.mark.slow
def test_browser_draws_15579_designs_with_webgl(tmp_path):
    dom = browse(write_report(big_result(15_579), tmp_path / "big.html"), tmp_path, budget_ms=10_000)
    attrs = body(dom)
    assert errors(dom) == "" and attrs["rendered"] == "yes" and attrs["points"] == "15579"


def test_the_report_shows_the_certified_sets():
    result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [2.05, 2.05], [5, 1], [9, 9]], sd=0.3, n_reps=30),
                        "exhaustive", seed=1)
    counts = result.certified()["status"].value_counts()
    section = render_report(result).split("<h2>Certified sets</h2>")[1].split("<h2>")[0]
    for name in ("efficient", "dominated", "undecided"):
        assert f"<b>{int(counts.get(name, 0))} {name}</b>" in section


def test_the_report_certifies_the_result_once(monkeypatch):
    # the front's column and the certified sets share one certification
    result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.3, n_reps=5), "exhaustive", seed=1)
    calls = []
    certified = mopt.Result.certified
    monkeypatch.setattr(mopt.Result, "certified", lambda self, *a, **k: calls.append(a) or certified(self, *a, **k))
    assert "<h2>Certified sets</h2>" in render_report(result) and len(calls) == 1
