"""A result as one self-contained HTML page a person opens in a browser, and as a small table in a
notebook.

:func:`write_report` writes one file: plotly's JavaScript inlined (it opens from disk with no
network; or, with ``plotly_src``, loaded from one shared file beside it, :mod:`mopt.report.plotly_asset`),
the evaluated designs once as columns of numbers, and a short script that draws from them
the interactive frontier (every evaluated design a marker, the front highlighted and coloured by
its certified status, hover showing the design's parameters, means, interval and status), with three or more
objectives a scatter matrix and a parallel-coordinates view, and the progress curves; the tables
(the front, the decisions, the static strategies, the certified sets, the run) are plain HTML. Axis
titles and column headers are the family's objective labels and units
(:meth:`mopt.core.family.Family.label`); intervals stop at the least value an objective can take
(:meth:`mopt.core.family.Family.low`: 0 for a cost, 1 for a slowdown).

Every text a user or a file supplies (parameter names and values, objective names, titles,
labels, file names) is shown as text: HTML-escaped in the page, written into its scripts by
:func:`mopt.report.data.script_json` (no ``<``, ``>`` or ``&``: nothing closes a script or opens a
comment) and passed to plotly through :func:`mopt.report.data.plotly_text` (plotly reads ``<…>``
in labels as markup and ``%{…}`` as a template); ``tests/test_report_payloads.py`` checks every
page kind with a corpus of payloads, in the text and in headless Chromium.

Uncertainty: ``<objective>_lo`` / ``<objective>_hi`` columns and ``info["uncertainty"]`` when the
result has them, otherwise (older results) means ± 1.96 standard errors; and the certified sets
(:meth:`Result.certified <mopt.core.result.Result.certified>`). No page shows P(non-dominated): it
is not a calibrated frequency (the how-sure guide); it only ranks the uncertain designs.

:func:`repr_html` is the notebook view (``Result._repr_html_``): the front with its uncertainty as
an HTML table, no JavaScript.

The package is split by what each part makes: :mod:`mopt.report.tables` (the HTML tables),
:mod:`mopt.report.data` (the designs as the page's data), :mod:`mopt.report.assets` (style sheet
and page script), :mod:`mopt.report.plotly_asset` (plotly's JavaScript, inlined or shared). Only
:mod:`mopt.report.plotly_asset` imports plotly.
"""

from __future__ import annotations

import functools
import html
import os
from pathlib import Path

from mopt.core.classes import representatives
from mopt.core.set_writer import atomic_write
from mopt.report.assets import ERROR_CATCHER, PAGE_SCRIPT, STYLE
from mopt.report.data import GL_THRESHOLD, constant, log_objectives, page_data, uncertain_designs
from mopt.report.tables import (
    TABLE_ROWS,
    breakable,
    cell,
    collapsed,
    decisions_table,
    family_of,
    html_table,
    intervals,
    objective_labels,
    objective_lows,
    parameters,
    run_table,
    statics_table,
    uncertainty_words,
)
from mopt.tables import certified_status, front_heading, front_rows

__all__ = ["write_report", "render_report", "repr_html", "GL_THRESHOLD", "TABLE_ROWS"]


def _scenario_text(scenario) -> str | None:
    """The scenario as text: a string as it is, a path read (bounded, :func:`mopt.core.inputs.read_text`)."""
    if scenario is None:
        return None
    if isinstance(scenario, os.PathLike):
        from mopt.core.inputs import read_text

        return read_text(Path(scenario), "scenario file")
    return str(scenario)


def render_report(result, *, problem=None, family=None, scenario=None, chosen=None, progress=None,
                  title=None, statics=None, log=None, figure=None, plotly_src=None) -> str:
    """The report of ``result`` as the text of one HTML page (see :func:`write_report`, which
    takes the same arguments and writes it)."""
    from mopt.core.pareto import pareto_mask
    from mopt.report.plotly_asset import plotly_tag

    fam = family_of(result, family)
    labels = objective_labels(result, fam)
    lows = objective_lows(result, fam)
    formats = dict(fam.formats) if fam is not None else {}
    chosen = dict(chosen or {})
    objectives = list(result.objectives)
    ev = result.evaluations
    log = log_objectives(result) if log is None else tuple(log)
    if statics is not None and not {"name", *objectives} <= set(statics.columns):
        raise ValueError(f"'statics' must have the columns 'name' and {objectives}; got {list(statics.columns)}.")
    title = title or f"mopt result: {result.method}, {len(ev):,} designs, seed {result.seed}"
    raw, kind = intervals(ev, objectives)
    cut = {labels[o]: low for o, low in lows.items() if (raw[o][0] < low).any()}  # the bounds the page cuts
    level = result.info.get("uncertainty", {}).get("level", 0.95) if isinstance(
        result.info.get("uncertainty"), dict) else 0.95
    status = certified_status(result)  # certified once: the front's column, the plot and the certified sets
    words = uncertainty_words(kind, level, status is not None, cut)
    uncertain_ids = uncertain_designs(result, ev.reset_index(drop=True))
    front, _ = front_rows(result, status=status)  # one row per class of equivalent designs
    classes = representatives(ev)
    classes = classes.assign(varies=result.classes.set_index("class")["varies"].reindex(
        classes["class"].to_numpy()).fillna("").to_numpy()) if "class" in classes.columns else classes
    by_design = classes.set_index(classes["design"].astype(int), drop=False)
    uncertain = by_design.loc[[d for d in uncertain_ids if d in by_design.index]]
    on_front = int(pareto_mask(classes[objectives].to_numpy(dtype=float)).sum()) if len(classes) else 0
    every = len(classes) > 0 and on_front == len(classes)
    text = _scenario_text(scenario)
    h = html.escape
    table = functools.partial(html_table, result=result, labels=labels, formats=formats, lows=lows)
    parts = [
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{h(title)}</title><style>{STYLE}</style>",
        f"<script>{ERROR_CATCHER}</script>",
        plotly_tag(plotly_src),
        "</head><body>",
        f"<h1>{h(title)}</h1>",
        f'<p class="lead">{h(front_heading(result, "designs", front).removeprefix("Pareto frontier: "))} '
        f"are on the Pareto front (on the means; all objectives minimised). Shown: {h(words)}.</p>",
        "<h2>Pareto frontier</h2>",
        '<div id="frontier" class="plot"></div>',
        '<p class="note">' + ("Every evaluated design is on the front" if every else
                              "Every evaluated design is a marker; the front is highlighted")
        + ("; the front's certified efficient classes in green, its undecided ones in blue"
           if status is not None else "")
        + ("; the static strategies are the open squares" if statics is not None and len(statics) else "")
        + "; hover for a design's parameters, means and interval. Drag to zoom, double-click to reset."
        + (f' The same frontier as a static figure: <a href="{h(figure)}">{h(Path(figure).name)}</a>.'
           if figure else "") + "</p>",
        "<h2>Pareto front</h2>", table(front),
    ]
    if chosen:
        parts += ["<h2>Decisions</h2>", decisions_table(result, chosen, labels, formats, lows)]
    if statics is not None and len(statics):
        parts += ["<h2>Static strategies</h2>",
                  '<p class="note">Fixed strategies, not searched, estimated alike (the means).</p>',
                  statics_table(statics, objectives, labels, formats)]
    if len(objectives) >= 3:
        parts += ["<h2>Objectives, pairwise</h2>", '<div id="splom" class="plot square"></div>',
                  "<h2>Parallel coordinates</h2>", '<div id="parcoords" class="plot"></div>',
                  '<p class="note">Drag along an axis to select a range; '
                  + ("every design is on the front (in colour)." if every else "the front is drawn in colour.")
                  + _constant_note(classes, objectives, parameters(result), labels, formats) + "</p>"]
    parts += _certified_section(result, status, classes, table)
    parts += ["<h2>Uncertain designs</h2>",
              '<p class="note">Designs whose place on or off the front the replications do not settle '
              "(most uncertain first, ranked by the posterior probability of being non-dominated; "
              "no probability is shown: measured, it is not a calibrated frequency, see the how-sure "
              "guide). The certified sets carry the guarantee.</p>" if len(uncertain) or "p_nondominated" in ev.columns
              else '<p class="note">This result carries no P(non-dominated): no design is marked '
                   "uncertain.</p>",
              collapsed(table(uncertain), len(uncertain), "uncertain designs") if len(uncertain)
              or "p_nondominated" in ev.columns else ""]
    if progress is not None and len(progress):
        parts += ["<h2>Progress</h2>", '<div id="progress" class="panels"></div>', _progress_table(progress)]
    parts += ["<h2>Run</h2>", run_table(result, problem, fam, words)]
    if text is not None:
        parts += ["<h2>Scenario</h2>", f"<pre class=\"scenario\">{h(text)}</pre>"]
    data = page_data(result, labels, formats, chosen, progress, lows=lows, log=log, statics=statics, status=status)
    parts += ['<pre id="errors" hidden></pre>', f"<script>const REPORT = {data};</script>",
              f"<script>{PAGE_SCRIPT}</script>", "</body></html>"]
    return "\n".join(parts) + "\n"


def _progress_table(progress) -> str:
    """The progress curves' numbers as a table (what ``mopt compare`` prints: each method's mean
    scores per budget), without the columns no row has."""
    import pandas as pd

    df = progress.drop(columns=[c for c in ("status", "macrorep", "seed") if c in progress.columns])
    df = df[[c for c in df.columns if not (pd.api.types.is_numeric_dtype(df[c]) and df[c].isna().all())]]
    head = "".join(f"<th>{breakable(html.escape(str(c)), '_')}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>"
                   for row in df.itertuples(index=False))
    return (f'<div class="table"><table class="named"><thead><tr>{head}</tr></thead><tbody>{rows}'
            "</tbody></table></div>")


def _constant_note(classes, objectives, params, labels, formats) -> str:
    """The columns the parallel coordinates leave out because every design has the same value."""
    fixed = constant(classes, [*objectives, *params])
    if not fixed:
        return ""
    shown = "; ".join(f"{html.escape(labels.get(c, c))} = {cell(v, formats.get(c))}" for c, v in fixed.items())
    return f" Not drawn, the same for every design: {shown}."


def _certified_section(result, status, classes, table) -> list[str]:
    """The certified sets (:meth:`Result.certified`, 95 %; ``status``: their
    :func:`~mopt.tables.certified_status`): how many classes are certified efficient, dominated
    and undecided, and the efficient and undecided ones (a long list folded); ``table`` draws
    a table of classes."""
    if status is None:
        return []
    key = "class" if "class" in classes.columns else "design"
    rows = classes.assign(certified=status.reindex(classes[key].to_numpy()).to_numpy())
    counts = rows["certified"].value_counts()
    h = html.escape
    out = ["<h2>Certified sets</h2>",
           f'<p class="note">At 95 % for all classes at once, and still valid when you look again after more '
           f"replications (anytime-valid confidence sequences): <b>{int(counts.get('efficient', 0)):,} "
           f"efficient</b>, <b>{int(counts.get('dominated', 0)):,} dominated</b>, "
           f"<b>{int(counts.get('undecided', 0)):,} undecided</b>. "
           + h("mopt.refine(result, problem, budget, target='undecided')") + " spends replications on the "
           "undecided.</p>"]
    for name in ("efficient", "undecided"):
        chosen = rows[rows["certified"] == name]
        if len(chosen):
            out += [f"<h3>{name.capitalize()}</h3>", collapsed(table(chosen), len(chosen), f"{name} classes")]
    return out


def write_report(result, path: str | os.PathLike, *, problem=None, family=None, scenario=None,
                 chosen=None, progress=None, title=None, statics=None, log=None, figure=None,
                 plotly_src=None) -> Path:
    """Write ``result`` as one HTML page, atomically: self-contained (plotly's JavaScript inlined:
    it opens from disk with no network), or loading plotly from ``plotly_src``.

    The page shows, in this order: the frontier plot, the front (one row per class of equivalent
    designs), the decisions, the static strategies, with three or more objectives a scatter
    matrix and parallel coordinates, the certified sets and the uncertain designs (a list of
    more than :data:`~mopt.report.tables.OPEN_ROWS` folded), the progress, the run, the scenario.

    Parameters
    ----------
    result : mopt.Result
        The result (uncertainty columns ``p_nondominated``, ``<objective>_lo``/``_hi`` and
        ``info["uncertainty"]`` are shown when present; otherwise means ± 1.96 standard errors).
    path : path
        The HTML file to write (an existing regular file is replaced).
    problem : mopt.StochasticProblem, optional
        The problem searched (its number of designs is shown).
    family : str or mopt.core.family.Family, optional
        The family whose objective labels and units name the axes (default:
        ``result.info["family"]``; without one, the column names).
    scenario : str or path, optional
        The scenario, as text or as the path of its file, shown as it is.
    chosen : dict of str to pandas.Series, optional
        Label -> the row a utility chose (:meth:`mopt.Result.best`; None: nothing satisfies it);
        a row may hold ``p_best`` and ``runner_up``.
    progress : pandas.DataFrame, optional
        Progress curves: a ``budget`` (or ``n_evals``, ``generation``, ``round``) column against
        which every other numeric column is drawn, one line per ``method`` if there is such a
        column (e.g. :func:`mopt.compare`'s rows, averaged over macroreplications).
    title : str, optional
        The page's title.
    statics : pandas.DataFrame, optional
        Static strategies (baselines that were not searched): a ``name`` column and the
        objectives' means (other columns are shown as they are), a table and markers on the plot.
    log : sequence of str, optional
        The objectives drawn on a log axis (as the command's ``front.png`` draws them); default
        :func:`mopt.report.data.log_objectives`.
    figure : str, optional
        The address of the same frontier as a static figure, relative to the page (``front.png``),
        linked under the plot.
    plotly_src : str, optional
        The address of plotly's JavaScript, relative to the page
        (:func:`mopt.report.plotly_asset.plotly_src`); default: inlined.

    Returns
    -------
    Path
        ``path``.

    Examples
    --------
    >>> import mopt, tempfile, pathlib
    >>> result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.1), "exhaustive", seed=1)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     page = write_report(result, pathlib.Path(d) / "report.html")
    ...     "Plotly" in page.read_text(encoding="utf-8")
    True
    """
    text = render_report(result, problem=problem, family=family, scenario=scenario, chosen=chosen,
                         progress=progress, title=title, statics=statics, log=log, figure=figure,
                         plotly_src=plotly_src)
    path = Path(path)
    atomic_write(path, lambda p: Path(p).write_text(text, encoding="utf-8"))
    return path


def repr_html(result, *, limit: int = 20) -> str:
    """The front of ``result`` with its uncertainty as a small HTML table (a notebook's view of a
    Result, ``Result._repr_html_``; no JavaScript).

    Examples
    --------
    >>> import mopt
    >>> result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.1), "exhaustive", seed=1)
    >>> repr_html(result).startswith("<div")
    True
    """
    fam = family_of(result, None)
    labels = objective_labels(result, fam)
    formats = dict(fam.formats) if fam is not None else {}
    front = result.front
    _, kind = intervals(result.evaluations, result.objectives)
    interval = {"ci": "confidence intervals", "se": "mean ± 1.96 se", "": "no intervals"}[kind]
    head = (f"<p><b>mopt Result</b>: method {html.escape(result.method)}, seed {result.seed}, "
            f"{result.n_evals:,} replications, {len(result.evaluations):,} designs, "
            f"{len(front):,} on the Pareto front ({interval}).</p>")
    table = html_table(front, result, labels, formats, limit=limit, lows=objective_lows(result, fam))
    return f'<div class="mopt-result">{head}{table}</div>'
