"""``mopt.report``: the HTML report of a result, read back as text (its tables and its data) and
opened in a real browser (headless Chromium, network off) to check that the plots draw one marker
per design, raise no error and paint a screenshot that is not blank."""

from __future__ import annotations

import dataclasses
import html
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
from tests.helpers import REFERENCE

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


def test_intervals_are_the_results_own_bounds_and_no_probability_is_shown(tmp_path):
    # P(non-dominated) and P(correct selection) are posterior figures, not calibrated frequencies
    # (the how-sure guide): the page shows the certified status instead (issue #33)
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [1, 3])
    text = render_report(result)
    ev = result.evaluations.set_index("design")
    f1 = ev.loc[1, "f1"]
    # design 1's f1 as "mean [mean - 1, mean + 2]" (4 significant digits)
    assert f"{f1:.4g} <span class=\"ci\">[{f1 - 1:.4g}, {f1 + 2:.4g}]</span>" in text
    assert "90% confidence intervals" in text  # info["uncertainty"]["level"]
    assert "<td>0.50</td>" not in text and "P(non-dominated)</th>" not in text
    assert "<td>0.625</td>" not in text and "P(correct selection" not in text
    data = page_data(text)
    assert "p_nondominated" not in data["columns"] and "P(non-dominated)" not in data["hovertemplate"]
    status = result.certified().set_index("design")["status"]
    assert data["has_status"] and [data["columns"]["certified"][k] for k in range(4)] == [
        status[d] for d in data["columns"]["design"]]
    assert "certified (95 %): %{customdata[" in data["hovertemplate"]
    assert data["columns"]["f1_hi"][1] == pytest.approx(f1 + 2.0, rel=1e-4)


def test_an_older_result_shows_mean_pm_1_96_se_and_no_p(tmp_path):
    result = plain_result()
    text = render_report(result)
    row = result.evaluations.iloc[1]  # on the front (the page's front table)
    lo, hi = row["f2"] - 1.96 * row["f2_se"], row["f2"] + 1.96 * row["f2_se"]
    assert f"[{lo:.4g}, {hi:.4g}]" in text
    assert "mean ± 1.96 standard errors" in text and "P(non-dominated)</th>" not in text
    assert "no design is marked uncertain" in text
    assert "p_nondominated" not in page_data(text)["columns"]


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
def browse(page, tmp_path, *, screenshot=None, budget_ms: int = 5000, width: int | None = None) -> str:
    """Open ``page`` in headless Chromium with the network off (every request goes to a closed
    proxy port) and return the DOM once scripts have run (or write ``screenshot``); ``width``: of
    the window the DOM is laid out in (pixels)."""
    args = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--proxy-server=127.0.0.1:9", f"--user-data-dir={tmp_path / 'profile'}", "--hide-scrollbars",
            f"--virtual-time-budget={budget_ms}"]
    args += ["--window-size=1200,900", f"--screenshot={screenshot}"] if screenshot else ["--dump-dom"]
    args += [f"--window-size={width},900"] if width and not screenshot else []
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


# -- issue #36: what the page shows, in which order, on which axes ----------------------------------------
def sections(text: str) -> list[str]:
    """The page's section headings, in order."""
    return re.findall(r"<h2>(.*?)</h2>", text)


def slowdown_result() -> mopt.Result:
    """Four KOALA-C-like designs (three objectives, the last a cost), all on the front, whose
    intervals reach below the least values (slowdowns 1, the cost 0); a parameter the same for
    every design."""
    ev = pd.DataFrame({"design": [0, 1, 2, 3], "L1": [10, 10, 40, 40], "private_min": 8,
                       "slowdown_short": [2.6, 2.5, 8.0, 4.0], "slowdown_long": [4.6, 2.1, 3.9, 2.4],
                       "public_cost": [0.0, 129.0, 0.0, 101.0], "n_reps": 3})
    for o, half in (("slowdown_short", 5.0), ("slowdown_long", 3.0), ("public_cost", 200.0)):
        ev[f"{o}_se"] = half / 1.96
        ev[f"{o}_lo"], ev[f"{o}_hi"] = ev[o] - half, ev[o] + half
    ev["p_nondominated"] = [0.9, 0.95, 0.8, 0.85]
    info = {"family": "koala", "budget": 12, "uncertainty": {"level": 0.95, "uncertain": []}}
    return mopt.Result("exhaustive", 1, 12, ("slowdown_short", "slowdown_long", "public_cost"), ev, info)


def test_intervals_stop_at_the_least_value_each_objective_can_take():
    result = slowdown_result()
    text = render_report(result)
    columns = page_data(text)["columns"]
    assert columns["slowdown_short_lo"] == [1, 1, 3, 1]  # 2.6 - 5, 2.5 - 5, 8 - 5, 4 - 5, cut at 1
    assert columns["slowdown_long_lo"] == [1.6, 1, 1, 1]
    assert columns["public_cost_lo"] == [0, 0, 0, 0] and columns["public_cost_hi"] == [200, 329, 200, 301]
    front = text.split("<h2>Pareto front</h2>")[1].split("<h2>")[0]
    assert '2.500 <span class="ci">[1.000, 7.500]</span>' in front and "[-" not in front
    assert "intervals cut at the least value an objective can take (mean slowdown of short jobs ≥ 1" in text
    # a family that declares no least value: nothing is cut
    plain = render_report(dataclasses.replace(result, info={**result.info, "family": "none"}))
    assert page_data(plain)["columns"]["slowdown_short_lo"][0] == pytest.approx(-2.4)


def test_a_constant_parameter_is_left_out_of_the_parallel_coordinates_and_named():
    text = render_report(slowdown_result())
    data = page_data(text)
    assert data["params"] == ["L1"] and data["parcoords_objectives"] == [0, 1, 2]
    assert "Not drawn, the same for every design: private_min = 8." in text
    assert "every design is on the front (in colour)" in text and "the front is drawn in colour" not in text
    assert "Every evaluated design is on the front" in text


def test_the_front_comes_first_then_the_decisions_and_long_lists_are_folded():
    result = big_result(60)
    uncertain = result.evaluations["design"].tolist()[:25]
    result = dataclasses.replace(result, info={**result.info, "uncertainty": {
        **result.info["uncertainty"], "uncertain": uncertain}})
    chosen = {"min makespan": result.best(mopt.utility.minimize("makespan"))}
    text = render_report(result, chosen=chosen)
    order = sections(text)
    assert order[:3] == ["Pareto frontier", "Pareto front", "Decisions"]
    assert order.index("Certified sets") < order.index("Uncertain designs") < order.index("Run")
    folded = text.split("<h2>Uncertain designs</h2>")[1].split("<h2>")[0]
    assert "<details><summary>25 uncertain designs (show the table)</summary>" in folded
    assert "<details>" not in text.split("<h2>Pareto front</h2>")[1].split("<h2>")[0]  # the front stays open
    assert len(re.findall(r"<tr><td>", folded)) == 25  # all of them, a click away


def test_static_strategies_are_a_table_and_markers_on_the_frontier():
    result = big_result(50)
    statics = pd.DataFrame({"name": ["AR", "<b>TRR</b>"], "makespan": [61980.0, 11570.0], "cost": [19.5, 3.865],
                            "dominated_by_frontier": [True, False]})
    text = render_report(result, statics=statics, figure="front.png")
    table = text.split("<h2>Static strategies</h2>")[1].split("<h2>")[0]
    assert "<td>AR</td><td>61980</td><td>19.500</td><td>yes</td>" in table  # the family's formats
    assert "&lt;b&gt;TRR&lt;/b&gt;" in table and "<th>dominated by frontier</th>" in table
    assert page_data(text)["statics"] == {"names": ["AR", "&lt;b&gt;TRR&lt;/b&gt;"], "x": [61980, 11570],
                                          "y": [19.5, 3.865]}
    assert 'static figure: <a href="front.png">front.png</a>' in text
    with pytest.raises(ValueError, match="'statics' must have the columns 'name' and"):
        render_report(result, statics=statics.drop(columns="cost"))


def test_log_axes_are_the_results_or_the_callers_and_ticks_are_plain_numbers(monkeypatch, tmp_path):
    result = big_result(50)
    data = page_data(render_report(result))
    assert data["axis_types"] == ["linear", "linear"] and data["log_ticks"] == [None, None]
    logged = dataclasses.replace(result, info={**result.info, "log_objectives": ["cost"]})  # as mopt demo writes
    data = page_data(render_report(logged))
    assert data["axis_types"] == ["linear", "log"]
    ticks = data["log_ticks"][1]
    assert set(ticks) <= {0.5, 1, 2, 5, 10, 20, 50, 100} and ticks == sorted(ticks) and 1 in ticks
    assert page_data(render_report(logged, log=()))["axis_types"] == ["linear", "linear"]
    # a frontier's front.png takes its log axes from the same rule
    from mopt import plot
    from mopt.scenario import load_scenario

    drawn = []
    monkeypatch.setattr(plot, "save_figure", lambda fig, path, **kw: drawn.append(fig))
    load_scenario(REFERENCE).figure(logged, tmp_path / "front.png")
    (axes,) = [ax for ax in drawn[0].axes if ax.get_xlabel()]
    assert (axes.get_xscale(), axes.get_yscale()) == ("linear", "log")


def test_the_lead_and_the_run_table_say_the_same_about_the_intervals():
    """A result with its own bounds but no summary of the front's uncertainty
    (mopt compare's ground truth): neither part claims it has no confidence bounds."""
    result = with_uncertainty(plain_result(), [0.75, 0.5, 0.875, 0.125], [])
    result = dataclasses.replace(result, info={k: v for k, v in result.info.items() if k != "uncertainty"})
    text = render_report(result)
    words = ("means with 95% confidence intervals (the result's own bounds); each class certified "
             "efficient, dominated or undecided at 95 %")
    assert f"Shown: {html.escape(words)}." in text and f"<th>intervals</th><td>{html.escape(words)}</td>" in text
    assert "carries no" not in text and "no intervals" not in text  # the audit: "not recorded (no intervals ...)"
    assert "<th>confidence level and resamples</th><td>not recorded with this result</td>" in text


def test_a_score_no_method_has_gets_no_progress_panel():
    """compare's alignment is NaN for methods that select no set: no empty panel (issue #36 audit)."""
    progress = pd.DataFrame({"method": ["ocba", "ocba"], "budget": [10, 100], "pcs": [0.2, 0.6],
                             "alignment": [np.nan, np.nan], "status": "ok"})
    data = page_data(render_report(plain_result(), progress=progress))["progress"]
    assert [p["metric"] for p in data["panels"]] == ["pcs"]


def test_progress_panels_share_one_x_range_padded_past_the_last_budget():
    progress = pd.DataFrame({"method": ["a", "a", "b"], "budget": [289, 1650, 1650],
                             "pcs": [0.1, 0.5, 0.4], "regret": [3.0, 1.0, 2.0]})
    data = page_data(render_report(plain_result(), progress=progress))["progress"]
    low, high = data["x_range"]
    assert data["x_type"] == "linear" and low < 289 and high > 1650 and high - 1650 == pytest.approx(289 - low)
    assert [p["metric"] for p in data["panels"]] == ["pcs", "regret"]  # each its y-axis's title


def test_plotly_src_makes_a_small_page_that_loads_plotly_from_there():
    text = render_report(big_result(300), plotly_src="../assets/plotly-x.min.js")
    assert '<script src="../assets/plotly-x.min.js"></script>' in text
    from plotly.offline import get_plotlyjs

    assert len(text.encode()) < 500_000 and get_plotlyjs()[-2000:] not in text


#: appended to a page by the layout test: once drawn, measure what would scroll sideways, each
#: progress panel (its drawing against its box, its x-range, its last marker against its plot area,
#: its toolbar) and the parallel coordinates' labels against their box, into <pre id="layout">
LAYOUT_PROBE = """<script>
(function wait() {
  if (document.body.dataset.rendered !== 'yes') return setTimeout(wait, 50);
  setTimeout(function () {
    const box = e => e.getBoundingClientRect();
    const out = {page: document.documentElement.scrollWidth - document.documentElement.clientWidth,
                 tables: Array.from(document.querySelectorAll('div.table'), d => d.scrollWidth - d.clientWidth)};
    out.panels = Array.from(document.querySelectorAll('#progress .js-plotly-plot'), d => {
      const x = d._fullLayout.xaxis, last = Math.max(...d._fullData.flatMap(t => Array.from(t.x)));
      return {over: box(d.querySelector('.main-svg')).width - box(d).width, range: x.range,
              room: x._length - x.l2p(last), toolbar: d.querySelector('.modebar') !== null};
    });
    const par = document.getElementById('parcoords');
    out.labels = par ? Array.from(par.querySelectorAll('text.axis-title'), t => ({
      text: t.textContent, left: box(t).left - box(par).left, right: box(par).right - box(t).right})) : [];
    const pre = document.createElement('pre'); pre.id = 'layout'; pre.textContent = JSON.stringify(out);
    document.body.appendChild(pre);
  }, 300);
})();
</script></body>"""


def demo_like_page() -> str:
    """The demo's page in miniature: 289 ExPERT designs, its five decisions (long labels), seven
    static strategies, and progress curves of two methods over a comparison's budgets."""
    result = big_result(289)
    u = mopt.utility
    chosen = {"min makespan": u.minimize("makespan"), "min cost": u.minimize("cost"),
              "min makespan x cost": u.product("makespan", "cost"),
              "budget: cost <= 5, then min makespan": u.within_budget("cost", 5.0, then="makespan"),
              "deadline: makespan <= 8000 s, then min cost": u.by_deadline("makespan", 8000.0, then="cost")}
    chosen = {label: result.best(utility) for label, utility in chosen.items()}
    for row in chosen.values():
        if row is not None:
            row["p_best"], row["runner_up"] = 0.5, 3
    statics = pd.DataFrame({"name": ["AR", "TRR", "TR", "AUR", "B", "CN_inf", "CN1T0"],
                            "makespan": [61980, 11570, 12462, 18422, 11521, 18581, 10852.0],
                            "cost": [19.5, 3.87, 3.75, 0.58, 3.54, 2.6, 5.48], "dominated_by_frontier": True})
    progress = pd.DataFrame({"method": ["blind_pick"] * 2 + ["ocba"], "budget": [289, 1650, 1650],
                             **{m: [0.1, 0.5, 0.4] for m in ("pcs", "regret", "hv_ratio", "type1", "n_missed")}})
    return render_report(result, chosen=chosen, statics=statics, progress=progress, title="demo-like")


def koala_decisions_page() -> str:
    """KOALA-C's frontier page with its site sets and three decisions, each with P(best) and a
    runner-up (the audit found the runner-up column past a 900 px page)."""
    result = slowdown_result()
    ev = result.evaluations.assign(set2="C3+private+public", public_cap=[32, 0, 32, 0])
    result = dataclasses.replace(result, evaluations=ev)
    chosen = {f"min {o}": result.best(mopt.utility.minimize(o)) for o in result.objectives}
    for row in chosen.values():
        row["p_best"], row["runner_up"] = 0.75, 3
    return render_report(result, chosen=chosen)


def koala_summary_page() -> str:
    """``mopt koala``'s page: a policies table of long column names (wasted_node_seconds)."""
    from mopt.report.summary_page import Scatter, render_summary_report

    t = pd.DataFrame({"policy": ["FF", "RR", "SJF", "SJF-ideal", "HSDF", "TAGS-sets"], "offered_load": 0.1524,
                      "slowdown": [1.786, 2.886, 1.777, 1.738, 1.783, 1.771], "slowdown_short": 2.086,
                      "slowdown_long": 1.003, "wait": 25.38, "public_cost": [116.7, 771.9, 120.7, 118.5, 116.7, 313.6],
                      "utilisation": 0.3988, "wasted_node_seconds": [0, 0, 0, 0, 0, 16_632_000]})
    return render_summary_report(title="mopt koala: KTH-SP2 on multicloud", lead="six policies",
                                 tables=[("Policies", t)],
                                 scatter=Scatter(t, "public_cost", "slowdown", "cost [$]", "slowdown", label="policy"))


PAGES = {"demo-like": demo_like_page, "three objectives": lambda: render_report(slowdown_result()),
         "koala decisions": koala_decisions_page, "koala summary": koala_summary_page}


@needs_chromium
@pytest.mark.parametrize("page", list(PAGES))
@pytest.mark.parametrize("width", [1400, 900])
def test_browser_lays_the_page_out_within_its_width(tmp_path, page, width):
    text = PAGES[page]()
    path = tmp_path / "r.html"
    path.write_text(text.replace("</body>", LAYOUT_PROBE), encoding="utf-8")
    dom = browse(path, tmp_path, width=width)
    assert errors(dom) == "" and body(dom)["rendered"] == "yes"
    found = re.search(r'<pre id="layout">(.*?)</pre>', dom, re.S)
    assert found, "the probe did not run"
    layout = json.loads(html.unescape(found.group(1)))
    assert layout["page"] <= 0, f"the page scrolls sideways by {layout['page']} px"
    assert all(over <= 0 for over in layout["tables"]), layout["tables"]  # no table scrolls either
    if page == "demo-like":
        panels = layout["panels"]
        assert len(panels) == 5 and len({tuple(p["range"]) for p in panels}) == 1  # one x-range
        assert all(p["over"] <= 1 and p["room"] >= 8 and not p["toolbar"] for p in panels), panels
    elif page == "three objectives":
        labels = layout["labels"]
        assert [lab["text"] for lab in labels[:3]] == ["mean slowdown of short jobs", "mean slowdown of long jobs",
                                                       "public-cloud cost [$]"]
        assert all(lab["left"] >= 0 and lab["right"] >= 0 for lab in labels), labels  # none cut


def test_a_worded_parameter_wraps_after_its_plus_and_a_header_after_its_underscore():
    # KOALA-C's site sets ("C3+private+public") kept a table wider than a 900 px page (issue #36)
    from mopt.report.tables import html_table

    sites = ["C3+private+public", "C3", "C3+private+public"]
    prob = mopt.FunctionProblem(lambda p, rng: (p["public_cap"] + rng.normal(), 1.0 + rng.random()),
                                [{"set2": s, "public_cap": c} for s, c in zip(sites, (0, 8, 32), strict=True)],
                                ["f1", "f2"], n_reps=2)
    result = mopt.solve(prob, "exhaustive", seed=1)
    page = html_table(result.evaluations, result, {"f1": "f1", "f2": "f2"}, {})
    heads = re.findall(r"<th( class=\"text\")?>(.*?)</th>", page)
    assert ("", "public_<wbr>cap") in heads and (' class="text"', "set2") in heads
    assert page.count('<td class="text">C3+<wbr>private+<wbr>public</td>') == 2
    assert '<td class="text">C3</td>' in page and "<td>8</td>" in page  # numbers stay on one line


def test_a_summary_scatter_of_few_rows_names_each_point_and_draws_edge_markers_whole():
    from mopt.report.summary_page import LABELLED_POINTS, Scatter, _traces

    t = pd.DataFrame({"policy": ["FF", "RR"], "cost": [1.0, 2.0], "slowdown": [2.0, 1.0]})
    (trace,) = _traces(Scatter(t, "cost", "slowdown", "cost", "slowdown", label="policy"))
    assert trace["mode"] == "markers+text" and trace["texttemplate"] == ["FF", "RR"] and trace["cliponaxis"] is False
    many = pd.DataFrame({"policy": [f"p{k}" for k in range(LABELLED_POINTS + 1)], "cost": 1.0, "slowdown": 1.0})
    (trace,) = _traces(Scatter(many, "cost", "slowdown", "cost", "slowdown", label="policy"))
    assert trace["mode"] == "markers" and "texttemplate" not in trace


def test_the_progress_numbers_are_a_table_too():
    """compare's page shows each method's mean scores per budget as a table, as the printout does
    (issue #36 audit), without a column no row has."""
    progress = pd.DataFrame({"method": ["ocba", "ocba"], "budget": [10, 100], "pcs": [0.25, 0.625],
                             "alignment": [np.nan, np.nan], "status": "ok"})
    text = render_report(plain_result(), progress=progress)
    section = text.split("<h2>Progress</h2>")[1].split("<h2>")[0]
    assert "<th>method</th><th>budget</th><th>pcs</th></tr>" in section
    assert "<tr><td>ocba</td><td>10</td><td>0.25</td></tr>" in section and "alignment" not in section
