"""The report of a family command that compares named alternatives (policies, methods) rather than
searching a design space: one self-contained HTML page with an interactive scatter of the
alternatives (hover: the row's values; error bars where the command has intervals) and the
command's tables (``mopt simulate``, ``mopt portfolio``, ``mopt koala``, ``mopt vmc``).

The page is built like :func:`mopt.report.write_report`'s (plotly's JavaScript inlined: it opens
from disk with no network, or loaded from ``plotly_src``; the same error catcher, and ``<body data-rendered="yes"
data-points="N">`` once drawn, N the markers drawn), so the same browser checks apply.
"""

from __future__ import annotations

import html
import math
import os
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from mopt.core.set_writer import atomic_write
from mopt.report.assets import ERROR_CATCHER, STYLE
from mopt.report.data import plotly_text, script_json

__all__ = ["Scatter", "render_summary_report", "write_summary_report"]

#: markers drawn as WebGL above this many points (as the design report does)
GL_POINTS = 5000
#: at most this many rows: each point is labelled with its row's name on the scatter
LABELLED_POINTS = 20


@dataclass(frozen=True)
class Scatter:
    """What the page's scatter draws: ``frame``'s column ``y`` against ``x``, one marker per row,
    one trace per value of ``group`` (when given), hover text from ``label`` and every column of
    ``hover``; ``error_y`` a column of half-widths (drawn as error bars); axis titles in words."""

    frame: pd.DataFrame
    x: str
    y: str
    x_title: str
    y_title: str
    label: str | None = None
    group: str | None = None
    error_y: str | None = None
    hover: tuple = ()
    log_x: bool = False
    log_y: bool = False


def _breakable_headers(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with a zero-width space after each ``_`` of its column names: a long header
    (``wasted_node_seconds``) wraps there instead of widening the table past a 900 px page."""
    return frame.rename(columns=lambda c: str(c).replace("_", "_\u200b"))


def _number(v: float) -> str:
    """A table's number: thousands separated, no exponent below 10^15, 4 significant digits below 10^4."""
    return f"{v:,.0f}" if 1e4 <= abs(v) < 1e15 else f"{v:,.4g}"


def _finite(values) -> list:
    return [None if v is None or (isinstance(v, float) and not math.isfinite(v)) else v
            for v in pd.Series(values).tolist()]


def _values(values) -> list:
    """A column as plotly draws it: numbers as they are (NaN as null), anything else as literal
    text (:func:`mopt.report.data.plotly_text`: category names are drawn as tick labels)."""
    if pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        return _finite(values)
    return [None if v is None or (isinstance(v, float) and v != v) else plotly_text(v)
            for v in pd.Series(values).tolist()]


def _traces(s: Scatter) -> list[dict]:
    """The plotly traces of ``s``: numbers as lists (NaN as null), hover text per row; every text
    passed through :func:`mopt.report.data.plotly_text`."""
    for column in (s.x, s.y, s.label, s.group, s.error_y, *s.hover):
        if column is not None and column not in s.frame.columns:
            raise KeyError(f"the scatter's column {column!r} is not in the table ({list(s.frame.columns)}).")
    groups = [(None, s.frame)] if s.group is None else list(s.frame.groupby(s.group, sort=False))
    kind = "scattergl" if len(s.frame) > GL_POINTS else "scatter"
    traces = []
    for name, rows in groups:
        text = []
        for _, row in rows.iterrows():
            lines = [str(row[s.label])] if s.label is not None else []
            lines += [f"{c}: {row[c]:,.4g}" if isinstance(row[c], float) else f"{c}: {row[c]}"
                      for c in (s.x, s.y, *s.hover)]
            text.append("<br>".join(plotly_text(line) for line in lines))
        trace = {"type": kind, "mode": "markers", "x": _values(rows[s.x]), "y": _values(rows[s.y]),
                 "text": text, "hoverinfo": "text", "marker": {"size": 7 if len(rows) < 200 else 4},
                 "cliponaxis": False}  # a marker at the axis' end is drawn whole
        if s.label is not None and len(s.frame) <= LABELLED_POINTS:  # a few rows: each named beside its point
            trace["mode"] = "markers+text"
            trace["texttemplate"] = [plotly_text(str(v)) for v in rows[s.label]]
            trace["textposition"] = "top right"
            trace["textfont"] = {"size": 11}
        if name is not None:
            trace["name"] = plotly_text(name)
        if s.error_y is not None:
            trace["error_y"] = {"type": "data", "array": _finite(rows[s.error_y]), "visible": True}
        traces.append(trace)
    return traces


_SCRIPT = """
(function () {
  try {
    var spec = SUMMARY;
    var points = 0;
    if (spec.scatter) {
      spec.scatter.traces.forEach(function (t) { points += t.x.length; });
      Plotly.newPlot('scatter', spec.scatter.traces, spec.scatter.layout,
                     {responsive: true, displaylogo: false});
    }
    document.body.dataset.points = String(points);
    document.body.dataset.rendered = 'yes';
  } catch (e) { __reportError(e && e.stack ? e.stack : e); }
})();
"""


def render_summary_report(*, title: str, lead: str, tables, scatter: Scatter | None = None,
                          facts: dict | None = None, refresh: float | None = None,
                          plotly_src: str | None = None) -> str:
    """The page (see :func:`write_summary_report`) as text; ``refresh`` (seconds): the browser
    reloads it at that pace (a live page, ``mopt report --watch``)."""
    from mopt.report.plotly_asset import plotly_tag
    from mopt.report.tables import versions

    h = html.escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             *([f'<meta http-equiv="refresh" content="{max(1, math.ceil(refresh))}">'] if refresh else []),
             f"<title>{h(title)}</title><style>{STYLE}</style>", f"<script>{ERROR_CATCHER}</script>",
             plotly_tag(plotly_src), "</head><body>", f"<h1>{h(title)}</h1>",
             f'<p class="lead">{h(lead)}</p>']
    spec = {}
    if scatter is not None:
        def axis(column, title, log):
            numeric = pd.api.types.is_numeric_dtype(scatter.frame[column])
            return {"title": {"text": plotly_text(title)}, "type": "log" if log else "linear" if numeric else "category"}

        spec["scatter"] = {"traces": _traces(scatter),
                           "layout": {"xaxis": axis(scatter.x, scatter.x_title, scatter.log_x),
                                      "yaxis": axis(scatter.y, scatter.y_title, scatter.log_y),
                                      "hovermode": "closest", "margin": {"t": 20}, "scattermode": "group",
                                      "showlegend": scatter.group is not None}}
        parts += ['<div id="scatter" class="plot"></div>',
                  '<p class="note">Hover for a row\'s values; drag to zoom, double-click to reset.</p>']
    for heading, frame in tables:
        parts += [f"<h2>{h(heading)}</h2>",
                  '<div class="table">' + _breakable_headers(frame).to_html(index=False, border=0, float_format=_number,
                                                                          na_rep="-")
                  + "</div>"]
    rows = {**(facts or {}), **{f"version of {k}": v for k, v in versions().items()}}
    parts += ["<h2>Run</h2>", '<table class="run">'
              + "".join(f"<tr><th>{h(str(k))}</th><td>{h(str(v))}</td></tr>" for k, v in rows.items())
              + "</table>",
              '<pre id="errors" hidden></pre>',
              f"<script>const SUMMARY = {script_json(spec)};</script>",
              f"<script>{_SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def write_summary_report(path: str | os.PathLike, *, title: str, lead: str, tables, scatter: Scatter | None = None,
                         facts: dict | None = None, plotly_src: str | None = None) -> Path:
    """Write one HTML page, atomically: ``title``, a ``lead`` sentence, the ``scatter`` (a
    :class:`Scatter`, optional), every ``(heading, DataFrame)`` of ``tables``, and the run's
    ``facts`` (label -> value, e.g. the command line) with the versions of mopt and its libraries.
    Self-contained (plotly's JavaScript inlined), or loading plotly from ``plotly_src`` (its
    address relative to the page, :func:`mopt.report.plotly_asset.plotly_src`).

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> t = pd.DataFrame({"policy": ["A", "B"], "cost": [3.0, 1.0], "slowdown": [1.5, 4.0]})
    >>> with tempfile.TemporaryDirectory() as d:
    ...     page = write_summary_report(pathlib.Path(d) / "report.html", title="two policies", lead="A and B.",
    ...                                 tables=[("Policies", t)],
    ...                                 scatter=Scatter(t, "cost", "slowdown", "cost [$]", "mean slowdown", label="policy"))
    ...     "Plotly" in page.read_text(encoding="utf-8")
    True
    """
    text = render_summary_report(title=title, lead=lead, tables=tables, scatter=scatter, facts=facts,
                                 plotly_src=plotly_src)
    path = Path(path)
    atomic_write(path, lambda p: Path(p).write_text(text, encoding="utf-8"))
    return path
