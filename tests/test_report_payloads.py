"""Reports render a stranger's text as text (issue #34, item 3): every page kind — the design report
(:func:`mopt.report.render_report`, two and three objectives, and ``mopt report DIR`` reading a
``result.json``) and the summary page of the family commands
(:func:`mopt.report.summary_page.render_summary_report`, and ``mopt simulate`` on a trace whose
path is a payload) — is built with a corpus of hostile payloads in every text a user or a file can
supply: parameter names and values, objective names, utility (decision) labels, titles, leads,
table headings, cells and column names, facts, trace (legend) names, category names, progress
methods and metrics, the scenario text, directory and file names.

Checked in the page's text (always): the data scripts hold no ``<``, ``>`` or ``&`` (so nothing
closes the script or opens a comment) and parse back to the same values; outside the scripts the
page has exactly the elements of the same page built from harmless words, and no comment; every
label plotly draws is escaped. Checked in headless Chromium (network off; skipped without
chromium): no payload ran (``document.title``, ``data-pwned``), no element was injected (no
``img``, ``iframe``, ``svg onload``, no link to the payload's site, no inline handler), the plot is
drawn (``data-rendered``, no error, one marker per row) and the axis titles, legends, tick labels,
scatter-matrix and parallel-coordinates labels and the hover text show the payloads literally."""

from __future__ import annotations

import collections
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.report import render_report
from mopt.report.data import plotly_text, script_json
from mopt.report.summary_page import Scatter, render_summary_report
from tests.test_report import body, browse, errors, needs_chromium

#: what a stranger may write: each would run a script (setting the title or ``data-pwned``),
#: inject an element, end the script or open a comment, or be read by plotly as markup or a template
PAYLOADS = (
    "</script><img src=x onerror=\"document.body.dataset.pwned='img'\">",
    "<!--<script>",
    "<script>document.title='pwned'</script>",
    "</SCRIPT ><svg onload=\"document.body.dataset.pwned='svg'\">",
    '<a xlink:href="https://evil.example/" href="https://evil.example/">link</a>',
    "<b>bold</b><br>two <i>lines</i><sup>up</sup>",
    "&lt;i&gt;entity&amp; &#60;b&#62;",
    "%{customdata[0]} %{x} %{fullData.name}",
    "'\"`${document.title='pwned'}` \\u003c",
    "\u2028\u2029 line separators",
    "<style>body{display:none}</style>",
    "]]><![CDATA[<iframe srcdoc=\"<script>parent.document.title='pwned'</script>\">",
)


def words(k: int) -> str:
    """The harmless word standing for the ``k``-th payload (same page structure)."""
    return f"plain{k}"


# -- the pages, built from the payloads or from harmless words -------------------------------------------
def fields(texts) -> dict:
    """What each text of a page holds, from ``texts`` (the payloads, or harmless words): a field
    with room for one text holds all of them (``all``, after a word that keeps names apart), a
    field with one text per row or per entry holds each of them."""
    every = " ".join(texts)
    return {"all": every, "items": list(texts), "objective": [f"f{j} {every}" for j in range(3)],
            "text parameter": f"policy {every}", "parameters": [f"p{k} {every}" for k in range(3)],
            "metric": f"metric {every}", "progress x": f"x {every}", "x": f"x {every}", "y": f"y {every}",
            "group": f"group {every}", "label": f"label {every}", "hover": f"hover {every}",
            "x title": f"x title {every}", "y title": f"y title {every}"}


def design_result(texts, n_objectives: int) -> mopt.Result:
    """A result whose objective names, parameter names, one text parameter's values (one design
    per text), method and run facts are ``texts``; the first three designs on the front."""
    f = fields(texts)
    n = len(texts)
    rng = np.random.default_rng(4)
    objectives = tuple(f["objective"][:n_objectives])
    ev = pd.DataFrame({"design": np.arange(n), f["text parameter"]: f["items"]})
    for k, name in enumerate(f["parameters"]):
        ev[name] = rng.uniform(0, 10, n).round(2) + k  # numeric parameters
    means = rng.uniform(2, 10, (n, n_objectives))
    means[:3] = [[1 + j if i == j else 0.5 for j in range(n_objectives)] for i in range(3)]
    for j, o in enumerate(objectives):
        ev[o], ev[f"{o}_se"] = means[:, j], 0.1
        ev[f"{o}_lo"], ev[f"{o}_hi"] = means[:, j] - 0.2, means[:, j] + 0.2
    ev["n_reps"] = 5
    ev["p_nondominated"] = np.linspace(0.9, 0.1, n)
    info = {"budget": 5 * n, "uncertainty": {"level": 0.95, "uncertain": [1, 2]},
            **{f"fact {k} {t}": t for k, t in enumerate(texts)}}  # the run table's rows (scalars under 300 characters)
    return mopt.Result(f["all"], 3, 5 * n, objectives, ev, info)


def design_page(texts, n_objectives: int) -> str:
    """The design report: decisions labelled by each text, progress of a method per text (its
    metric and its x named by all), the scenario and the title all of them."""
    f = fields(texts)
    result = design_result(texts, n_objectives)
    chosen = {label: result.evaluations.iloc[k % 3] for k, label in enumerate(f["items"])}
    progress = pd.DataFrame({"method": [m for m in f["items"] for _ in (10, 100)], "budget": [10, 100] * len(texts),
                             f["metric"]: np.linspace(0.1, 0.9, 2 * len(texts))})
    progress = progress.drop(columns="budget").set_index(pd.Index(progress["budget"], name=f["progress x"]))
    return render_report(result, chosen=chosen, progress=progress, scenario="\n".join(texts), title=f["all"])


def summary_frame(texts) -> pd.DataFrame:
    f = fields(texts)
    n = len(texts)
    return pd.DataFrame({f["x"]: f["items"], f["y"]: np.arange(n) % 3 + 1.0, f["group"]: f["items"],
                         f["hover"]: np.arange(n) * 1.5, f["label"]: list(reversed(texts))})


def summary_page(texts) -> str:
    """The summary page: a category axis of every text, a trace per text, every title, heading,
    column name, cell and fact holding them."""
    f = fields(texts)
    t = summary_frame(texts)
    scatter = Scatter(t, f["x"], f["y"], f["x title"], f["y title"], label=f["label"], group=f["group"],
                      hover=(f["hover"],))
    return render_summary_report(title=f["all"], lead=f["all"], tables=[(f["all"], t)], scatter=scatter,
                                 facts={f["all"]: f["all"], "trace": f["all"]})


PAGES = {"design, 2 objectives": lambda texts: design_page(texts, 2),
         "design, 3 objectives": lambda texts: design_page(texts, 3),
         "summary": summary_page}
HOSTILE = {kind: make(PAYLOADS) for kind, make in PAGES.items()}
F = fields(PAYLOADS)


# -- reading a page back -------------------------------------------------------------------------------------
class Elements(HTMLParser):
    """The start tags of a page (outside its scripts), its comments and its scripts' text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.comments, self.scripts, self._in_script = collections.Counter(), [], [], False

    def handle_starttag(self, tag, attrs):
        self.tags[tag] += 1
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = self._in_script and tag != "script"

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data

    def handle_comment(self, data):
        self.comments.append(data)


def elements(text: str) -> Elements:
    parser = Elements()
    parser.feed(text)
    parser.close()
    return parser


def data_of(text: str, name: str) -> dict:
    found = re.search(rf"<script>const {name} = (.*?);</script>", text, re.S)
    assert found, f"no {name} data in the page"
    return found.group(1)


def data_name(kind: str) -> str:
    return "SUMMARY" if kind == "summary" else "REPORT"


def normal(text: str) -> str:
    """Whitespace (U+2028/9 too) as single spaces: what plotly lays out on one line."""
    return " ".join(str(text).split())


# -- the page as text ------------------------------------------------------------------------------------------
def test_script_json_cannot_end_a_script_or_open_a_comment():
    for payload in PAYLOADS:
        text = script_json({payload: [payload]})
        assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
        assert json.loads(text) == {payload: [payload]}


def test_plotly_text_leaves_no_markup():
    entities = {"&lt;": "<", "&gt;": ">", "&amp;": "&", "&#37;": "%"}  # plotly turns them back into characters
    for payload in PAYLOADS:
        shown = plotly_text(payload)
        assert "<" not in shown and ">" not in shown and "%{" not in shown
        assert re.sub("|".join(entities), lambda m: entities[m.group(0)], shown) == payload


@pytest.mark.parametrize("kind", list(PAGES))
def test_the_data_script_holds_no_markup_and_parses_back(kind):
    text = HOSTILE[kind]
    data = data_of(text, data_name(kind))
    assert not set(data) & {"<", ">", "&", "\u2028", "\u2029"}
    assert isinstance(json.loads(data), dict)


@pytest.mark.parametrize("kind", list(PAGES))
def test_the_page_has_the_elements_of_a_harmless_page_and_no_comment(kind):
    """Every payload stayed text: the page parses to exactly the elements (and four scripts) of the
    same page built from harmless words (but for ``<wbr>``, the break a table puts after a word's
    "+", "/" or ",": a payload has more of them; it is void and takes no attribute)."""
    hostile, plain = elements(HOSTILE[kind]), elements(PAGES[kind]([words(k) for k in range(len(PAYLOADS))]))
    hostile.tags.pop("wbr", None), plain.tags.pop("wbr", None)
    assert hostile.tags == plain.tags and hostile.tags["script"] == 4
    assert hostile.comments == [] and len(hostile.scripts) == 4


def test_the_design_reports_plotly_labels_are_escaped_and_keys_kept():
    for n_objectives in (2, 3):
        data = json.loads(data_of(HOSTILE[f"design, {n_objectives} objectives"], "REPORT"))
        objectives = F["objective"][:n_objectives]
        assert data["objectives"] == objectives  # keys of the columns, as they are
        assert data["labels"] == [plotly_text(o) for o in objectives]
        assert data["params"] == F["parameters"] and data["param_labels"] == [plotly_text(p) for p in F["parameters"]]
        assert [c["label"] for c in data["chosen"]] == [plotly_text(p) for p in PAYLOADS]
        assert data["columns"][F["text parameter"]] == [plotly_text(p) for p in PAYLOADS]  # shown in the hover
        progress = data["progress"]
        assert [s["name"] for s in progress["panels"][0]["series"]] == [plotly_text(p) for p in PAYLOADS]
        assert progress["panels"][0]["metric"] == plotly_text(F["metric"]) and progress["x"] == plotly_text(F["progress x"])
        template = data["hovertemplate"]
        for name in (F["text parameter"], *F["parameters"], *objectives):
            assert plotly_text(name) in template
        assert "%{" not in re.sub(r"%\{(customdata\[\d+\](:[^}]*)?|fullData\.name)\}", "", template)


def test_the_summary_pages_plotly_labels_are_escaped():
    data = json.loads(data_of(HOSTILE["summary"], "SUMMARY"))
    traces, layout = data["scatter"]["traces"], data["scatter"]["layout"]
    assert [t["name"] for t in traces] == [plotly_text(p) for p in PAYLOADS]
    assert layout["xaxis"]["title"]["text"] == plotly_text(F["x title"])
    assert layout["yaxis"]["title"]["text"] == plotly_text(F["y title"])
    assert layout["xaxis"]["type"] == "category"
    assert [x for t in traces for x in t["x"]] == [plotly_text(p) for p in PAYLOADS]
    for t in traces:
        assert all("<" not in line and ">" not in line for text in t["text"] for line in text.split("<br>"))


def test_the_tables_and_titles_show_the_payloads_escaped():
    for kind, text in HOSTILE.items():
        outside = re.sub(r"<script>.*?</script>", "", text, flags=re.S)
        for payload in PAYLOADS:
            if "<" in payload:
                assert payload not in outside, (kind, payload)
        assert f"<title>{html.escape(F['all'])}</title>" in text and f"<h1>{html.escape(F['all'])}</h1>" in text


# -- through the command line: a result.json and a trace file named by payloads ---------------------------------
def hostile_dir(root: Path, name: str) -> Path:
    """``root / "x<" / name``: a path whose text holds ``</…`` (a file name cannot hold a slash)."""
    d = root / "x<" / name
    d.parent.mkdir(parents=True, exist_ok=True)
    return d


@pytest.fixture
def report_dir(tmp_path) -> Path:
    """A result directory (no family: the generic decisions, labelled by the objectives' names)
    whose path, objectives, parameters and run facts are payloads, read by ``mopt report``."""
    result = design_result(PAYLOADS, 2)
    result = mopt.Result(result.method, result.seed, result.n_evals, result.objectives, result.evaluations,
                         {**result.info, "family": "none"})
    d = hostile_dir(tmp_path, "script><img src=x onerror=\"document.body.dataset.pwned='dir'\">")
    result.to_csv(d)
    return d


def test_mopt_report_of_a_hostile_result_json(report_dir, capsys):
    assert main(["report", str(report_dir)]) == 0
    text = (report_dir / "report.html").read_text(encoding="utf-8")
    data = json.loads(data_of(text, "REPORT"))
    assert data["objectives"] == F["objective"][:2] and data["labels"] == [plotly_text(o) for o in F["objective"][:2]]
    assert not set(data_of(text, "REPORT")) & {"<", ">", "&"}
    assert elements(text).comments == [] and elements(text).tags["script"] == 4 and elements(text).tags["img"] == 0


@pytest.fixture
def hostile_trace(tmp_path) -> Path:
    from tests.cli.test_recorded_outputs import synthetic_swf

    path = hostile_dir(tmp_path, "script><img src=x onerror=\"document.body.dataset.pwned='file'\"><!--.swf")
    path.write_text(synthetic_swf(30))
    return path


def test_mopt_simulate_on_a_trace_named_by_a_payload(hostile_trace, tmp_path):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(hostile_trace), "--policy", "ODA-FCFS-FirstFit", "--out", str(out),
                 "--quiet"]) == 0
    text = (tmp_path / "jobs.report.html").read_text(encoding="utf-8")
    assert str(hostile_trace) not in text and html.escape(str(hostile_trace)) in text
    assert not set(data_of(text, "SUMMARY")) & {"<", ">", "&"}
    assert elements(text).comments == [] and elements(text).tags["script"] == 4 and elements(text).tags["img"] == 0


# -- in headless Chromium ----------------------------------------------------------------------------------------
#: appended to a page by the tests only: once drawn, hover over the first marker of ``trace`` of
#: the first plot and copy the hover label's text, and every SVG text's, into <pre> elements
PROBE = """<script>
(function wait() {
  if (document.body.dataset.rendered !== 'yes') return setTimeout(wait, 50);
  const gd = document.querySelector('.js-plotly-plot');
  Plotly.Fx.hover(gd, [{curveNumber: TRACE, pointNumber: 0}]);
  setTimeout(function () {
    const out = (id, nodes) => { const pre = document.createElement('pre'); pre.id = id;
      pre.textContent = JSON.stringify(Array.from(nodes, t => t.textContent)); document.body.appendChild(pre); };
    out('probe-hover', gd.querySelectorAll('.hoverlayer text'));
    out('probe-texts', document.querySelectorAll('svg text'));
  }, 200);
})();
</script></body>"""


def probed(text: str, tmp_path: Path, name: str, trace: int) -> tuple[str, list, list]:
    """Open ``text`` (with :data:`PROBE`) in Chromium: the DOM, the hover label's texts, every SVG text."""
    page = tmp_path / f"{name}.html"
    page.write_text(text.replace("</body>", PROBE.replace("TRACE", str(trace))), encoding="utf-8")
    dom = browse(page, tmp_path, budget_ms=8000)
    found = {k: json.loads(html.unescape(v)) for k, v in re.findall(r'<pre id="probe-(\w+)">(.*?)</pre>', dom, re.S)}
    assert_nothing_ran_or_was_injected(dom)
    assert set(found) == {"hover", "texts"}, "the probe did not run: the page was not drawn"
    return dom, [normal(t) for t in found["hover"]], [normal(t) for t in found["texts"]]


def assert_nothing_ran_or_was_injected(dom: str) -> None:
    """No payload ran, no element was injected, the page was drawn without an error."""
    page = body(dom)
    assert "pwned" not in page, f"a payload ran: data-pwned={page['pwned']!r}"
    title = re.search(r"<title>(.*?)</title>", dom, re.S)
    assert title is not None and html.unescape(title.group(1)) != "pwned", "a payload ran (or the head was lost)"
    tags = []  # every element of the DOM with its attributes (names and values)
    parser = HTMLParser(convert_charrefs=True)
    parser.handle_starttag = lambda tag, attrs: tags.append((tag, dict(attrs)))
    parser.feed(dom)
    names = collections.Counter(tag for tag, _ in tags)
    assert names["img"] == names["iframe"] == names["i"] == names["sup"] == 0
    assert names["script"] == 5  # the page's four and the probe
    for style in re.findall(r"<style\b[^>]*>(.*?)</style>", dom, re.S | re.I):  # the page's own and plotly's
        assert "body{display:none}" not in style
    for tag, attrs in tags:
        assert not any(name.startswith("on") for name in attrs), (tag, attrs)  # no inline handler
        assert not any("evil.example" in (attrs.get(k) or "") for k in ("href", "xlink:href", "src")), (tag, attrs)
    assert errors(dom) == "" and "errors" not in page, errors(dom)
    assert page.get("rendered") == "yes", "the page was not drawn"


def shown(texts: list, text: str) -> bool:
    return normal(text) in texts


@needs_chromium
@pytest.mark.parametrize("n_objectives", [2, 3])
def test_browser_design_report_runs_nothing_and_shows_every_label_literally(tmp_path, n_objectives):
    dom, hover, texts = probed(HOSTILE[f"design, {n_objectives} objectives"], tmp_path, "design", trace=1)
    assert body(dom)["points"] == str(len(PAYLOADS)) and body(dom)["svg-points"] == str(len(PAYLOADS))
    objectives = F["objective"][:n_objectives]
    if n_objectives == 2:  # the frontier's axis titles, the decisions' legend, the progress panels
        for label in (*objectives, *PAYLOADS, F["metric"], F["progress x"]):
            assert shown(texts, label), label
    else:  # the scatter matrix's and the parallel coordinates' labels, the numeric parameters too
        for label in objectives:
            assert sum(t == normal(label) for t in texts) >= 2, label
        for label in F["parameters"]:
            assert shown(texts, label), label
    joined = " | ".join(hover)  # the hover of the front's first design: its text parameter, names, labels
    for text in (F["text parameter"], PAYLOADS[0], *F["parameters"], *objectives):
        assert normal(text) in joined, text


@needs_chromium
def test_browser_summary_page_runs_nothing_and_shows_every_label_literally(tmp_path):
    dom, hover, texts = probed(HOSTILE["summary"], tmp_path, "summary", trace=0)
    assert body(dom)["points"] == str(len(PAYLOADS))
    for label in (F["x title"], F["y title"], *PAYLOADS):  # axis titles; legend entries and tick labels
        assert shown(texts, label), label
    assert sum(t in map(normal, PAYLOADS) for t in texts) >= 2 * len(PAYLOADS)  # each twice: legend, x axis
    joined = " | ".join(hover)  # the first row: its label, then "column: value" lines
    assert normal(PAYLOADS[-1]) in joined and normal(f"{F['x']}: {PAYLOADS[0]}") in joined
    assert normal(f"{F['hover']}: 0") in joined


@needs_chromium
def test_browser_mopt_report_and_simulate_pages(report_dir, hostile_trace, tmp_path, capsys):
    assert main(["report", str(report_dir)]) == 0
    dom, hover, texts = probed((report_dir / "report.html").read_text(encoding="utf-8"), tmp_path, "report", trace=1)
    for label in F["objective"][:2]:  # the axis titles, the generic decisions' legend entries
        assert shown(texts, label) and shown(texts, f"min {label}"), label
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(hostile_trace), "--policy", "ODA-FCFS-FirstFit", "--out", str(out),
                 "--quiet"]) == 0
    dom, _, _ = probed((tmp_path / "jobs.report.html").read_text(encoding="utf-8"), tmp_path, "simulate", trace=0)
    assert body(dom)["points"] == "30"
