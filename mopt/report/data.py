"""The report's data (:mod:`mopt.report`): the evaluated designs once, as columns of compact
numbers, and what the page script (:data:`mopt.report.assets.PAGE_SCRIPT`) needs to draw them."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from mopt.core.classes import representatives
from mopt.core.pareto import pareto_mask
from mopt.report.tables import intervals, parameters

__all__ = ["GL_THRESHOLD", "DIGITS", "script_json", "plotly_text", "js_array", "axis_type", "log_objectives", "log_ticks",
           "constant", "page_data", "uncertain_designs", "progress_data", "padded_range"]

#: above this many evaluated designs the frontier is drawn with WebGL (``scattergl``), not SVG
GL_THRESHOLD = 2000
#: significant digits of the numbers carried into the page's plots
DIGITS = 5


#: what :func:`script_json` replaces: the characters that could end a ``<script>`` element
#: (``</script``), open a comment or a nested script (``<!--``, ``<script``) or an entity, and the
#: line separators older JavaScript forbids in strings; outside strings JSON holds none of them
_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                 "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_json(value, *, encoded: bool = False, allow_nan: bool = False) -> str:
    """``value`` as JSON that is safe inside an HTML ``<script>`` element: ``<``, ``>``, ``&``,
    U+2028 and U+2029 written as ``\\u003c`` etc. (still valid JSON and JavaScript, the same value
    once parsed), so that no text of a user's or a file's can close the script, open a comment
    or start markup. Every page of :mod:`mopt.report` puts its data into a script through this.

    ``encoded``: ``value`` is already JSON text (e.g. built from :func:`js_array` pieces) and is
    only escaped.

    Examples
    --------
    >>> script_json({"a": "</script><!--"})
    '{"a": "\\\\u003c/script\\\\u003e\\\\u003c!--"}'
    >>> import json; json.loads(script_json(["<b>&</b>"]))
    ['<b>&</b>']
    """
    text = value if encoded else json.dumps(value, allow_nan=allow_nan)
    return text.translate(_SCRIPT_ESCAPES)


def plotly_text(text) -> str:
    """``text`` as plotly shows it literally: plotly reads ``<b>``, ``<a href>``, ``<br>`` … in
    titles, legends, axis, tick and hover labels as markup, and fills in ``%{…}`` in hover
    templates and titles, so ``&``, ``<``, ``>`` and ``%`` become entities (which plotly turns back
    into the characters). Every text a user or a file supplies passes through this before it
    reaches plotly.

    Examples
    --------
    >>> plotly_text('<a href="x">R&D</a> %{x}')
    '&lt;a href="x"&gt;R&amp;D&lt;/a&gt; &#37;{x}'
    """
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("%", "&#37;")


def js_array(col: pd.Series) -> str:
    """A column as a compact JavaScript array: integers as they are, floats to :data:`DIGITS`
    significant digits, NaN and infinities as null, anything else as strings plotly shows literally
    (:func:`plotly_text`: a text parameter's values fill the hover text)."""
    if pd.api.types.is_integer_dtype(col):
        return "[" + ",".join(map(str, col.tolist())) + "]"
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        spec = f"{{:.{DIGITS}g}}".format
        return "[" + ",".join(spec(v) if math.isfinite(v) else "null"
                              for v in col.to_numpy(dtype=float).tolist()) + "]"
    return json.dumps([None if pd.isna(v) else plotly_text(v) for v in col.tolist()])



def axis_type(values: pd.Series) -> str:
    """``"log"`` for positive values spanning more than two decades, else ``"linear"``."""
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    return "log" if len(v) and v.min() > 0 and v.max() / v.min() > 100 else "linear"


def log_objectives(result) -> tuple[str, ...]:
    """The objectives drawn on a log axis, by the report and by a frontier's ``front.png``
    (:meth:`mopt.scenario.Scenario.figure`): those ``result.info["log_objectives"]`` lists (a
    command that chose, e.g. ``mopt demo``'s cost), else those whose means are positive and span
    more than two decades (:func:`axis_type`).

    Examples
    --------
    >>> import mopt
    >>> result = mopt.solve(mopt.NormalProblem([[1, 5], [2, 2], [500, 1]], sd=0.1), "exhaustive", seed=1)
    >>> log_objectives(result)
    ('f1',)
    """
    listed = result.info.get("log_objectives")
    if isinstance(listed, list | tuple):
        return tuple(o for o in result.objectives if o in listed)
    return tuple(o for o in result.objectives if axis_type(result.evaluations[o]) == "log")


def log_ticks(columns) -> list[float] | None:
    """The ticks of a log axis over the positive values of ``columns``: 1, 2, 5 times each power
    of ten (powers of ten alone over more than four decades), labelled as plain numbers (plotly's
    own ticks on a short log axis are bare digits: "2" for 20).

    Examples
    --------
    >>> log_ticks([[0.55, 19.5]])
    [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]
    """
    v = np.concatenate([np.asarray(c, dtype=float) for c in columns]) if len(columns) else np.array([])
    v = v[np.isfinite(v) & (v > 0)]
    if not len(v):
        return None
    low, high = math.floor(math.log10(v.min())), math.ceil(math.log10(v.max()))
    steps = (1,) if high - low > 4 else (1, 2, 5)
    ticks = [float(f"{m * 10.0 ** k:.6g}") for k in range(low, high + 1) for m in steps]
    first = max([t for t in ticks if t <= v.min()], default=ticks[0])
    last = min([t for t in ticks if t >= v.max()], default=ticks[-1])
    return [t for t in ticks if first <= t <= last]


def constant(ev: pd.DataFrame, columns) -> dict:
    """Column -> its one value, for the numeric ``columns`` of ``ev`` that hold a single value
    (the parallel coordinates leave them out and say so)."""
    out = {}
    for c in columns:
        values = ev[c].dropna()
        if pd.api.types.is_numeric_dtype(ev[c]) and len(values) and values.nunique() == 1:
            out[c] = values.iloc[0]
    return out


def page_data(result, labels: dict, formats, chosen: dict, progress, *, lows: dict | None = None,
              log=(), statics: pd.DataFrame | None = None, status: pd.Series | None = None) -> str:
    """The JavaScript object the page script draws from (see :data:`mopt.report.assets.PAGE_SCRIPT`):
    intervals cut at ``lows``, the objectives of ``log`` on log axes, the ``statics`` as markers,
    each class's certified status (``status``, :func:`mopt.tables.certified_status`) in its hover
    and the front's colours. No P(non-dominated): it is not a calibrated frequency (the how-sure
    guide)."""
    ev = representatives(result.evaluations).reset_index(drop=True)  # a marker per class of equivalent designs
    objectives = list(result.objectives)
    params = parameters(result)
    bounds, _ = intervals(ev, objectives, lows)
    columns = {"design": ev["design"], **{c: ev[c] for c in params}}
    for o in objectives:
        columns[o] = ev[o]
        columns[f"{o}_lo"], columns[f"{o}_hi"] = bounds[o]
    has_status = status is not None
    if has_status:
        key = "class" if "class" in ev.columns else "design"
        columns["certified"] = pd.Series(status.reindex(ev[key].to_numpy()).to_numpy(), index=ev.index)
    if "n_reps" in ev.columns:
        columns["n_reps"] = ev["n_reps"]
    front = (np.flatnonzero(pareto_mask(ev[objectives].to_numpy(dtype=float))) if len(ev)
             else np.array([], dtype=int))
    design_row = {int(d): i for i, d in enumerate(ev["design"].tolist())}
    # the hover text: parameters, means [interval], certified status; d3 formats, numbers from customdata
    hover = ["design"] + params + [c for o in objectives for c in (o, f"{o}_lo", f"{o}_hi")]
    lines = ["<b>design %{customdata[0]}</b>"]
    lines += [f"{plotly_text(p)} = %{{customdata[{k + 1}]}}" for k, p in enumerate(params)]
    for j, o in enumerate(objectives):
        k = 1 + len(params) + 3 * j
        lines.append(f"{plotly_text(labels[o])}: %{{customdata[{k}]:,.4~g}} "
                     f"[%{{customdata[{k + 1}]:,.4~g}}, %{{customdata[{k + 2}]:,.4~g}}]")
    if has_status:
        hover.append("certified")
        lines.append(f"certified (95 %): %{{customdata[{len(hover) - 1}]}}")
    if (ev["n_designs"] > 1).any():  # classes of equivalent designs
        columns["n_designs"] = ev["n_designs"]
        hover.append("n_designs")
        lines.append(f"designs in its class: %{{customdata[{len(hover) - 1}]}}")
    uncertain = uncertain_designs(result, ev)
    fixed = constant(ev, [*objectives, *params])
    numeric = [p for p in params if pd.api.types.is_numeric_dtype(ev[p]) and p not in fixed]
    spec = {  # every text plotly draws passes through plotly_text; names used as keys stay as they are
        "n": len(ev),
        "objectives": objectives,
        "labels": [plotly_text(labels[o]) for o in objectives],
        "axis_types": ["log" if o in log else "linear" for o in objectives],
        "log_ticks": [log_ticks([ev[o], bounds[o][0], bounds[o][1], *([statics[o]] if statics is not None else [])])
                      if o in log else None for o in objectives],
        "parcoords_objectives": [k for k, o in enumerate(objectives) if o not in fixed],
        "params": numeric,
        "param_labels": [plotly_text(p) for p in numeric],
        "front": front.tolist(),
        "uncertain": [design_row[d] for d in uncertain if d in design_row],
        "has_status": has_status,
        "gl": len(ev) > GL_THRESHOLD,
        "hover_columns": hover,
        "hovertemplate": "<br>".join(lines) + "<extra>%{fullData.name}</extra>",
        "chosen": [{"label": plotly_text(label), "row": design_row[int(row["design"])]}
                   for label, row in chosen.items()
                   if row is not None and int(row["design"]) in design_row],
        "progress": progress_data(progress),
        "statics": _statics(statics, objectives),
    }
    body = ",".join(f"{json.dumps(name)}:{js_array(col)}" for name, col in columns.items())
    return script_json(json.dumps(spec)[:-1] + ',"columns":{' + body + "}}", encoded=True)


def _statics(statics: pd.DataFrame | None, objectives: list) -> dict | None:
    """The static strategies as the frontier plot marks them (two objectives or more): names and
    the first two objectives' means."""
    if statics is None or len(statics) == 0 or len(objectives) < 2:
        return None
    xy = {k: [v if math.isfinite(v) else None for v in statics[o].to_numpy(dtype=float).tolist()]
          for k, o in zip("xy", objectives[:2], strict=False)}
    return {"names": [plotly_text(n) for n in statics["name"]], **xy}


def uncertain_designs(result, ev: pd.DataFrame) -> list[int]:
    """The design ids whose membership of the front is uncertain: ``info["uncertainty"]
    ["uncertain"]``, else those with 0.05 < P(non-dominated) < 0.95, most uncertain first."""
    listed = result.info.get("uncertainty", {}).get("uncertain") if isinstance(
        result.info.get("uncertainty"), dict) else None
    if listed is not None:
        ids = [int(d) for d in listed]
    elif "p_nondominated" in ev.columns:
        p = ev["p_nondominated"].to_numpy(dtype=float)
        ids = ev["design"][(p > 0.05) & (p < 0.95)].astype(int).tolist()
    else:
        return []
    if "p_nondominated" in ev.columns:
        p = dict(zip(ev["design"].astype(int).tolist(), ev["p_nondominated"].tolist(), strict=True))
        ids.sort(key=lambda d: abs(p.get(d, 0.5) - 0.5))
    return ids


def progress_data(progress) -> dict | None:
    """Progress curves for the page: x is the first of ``budget``, ``n_evals``, ``generation``,
    ``round`` present (else the index), one panel per other numeric column with a finite value
    (a score no method has, e.g. the alignment of methods that select no set, gets none); with a ``method``
    column, one line per method (the mean over rows of the same method and x, e.g. over
    macroreplications)."""
    if progress is None or len(progress) == 0:
        return None
    df = progress.copy()
    x = next((c for c in ("budget", "n_evals", "generation", "round") if c in df.columns), None)
    if x is None:
        x = df.index.name or "step"
        df = df.reset_index(names=x)
    if "status" in df.columns:
        df = df[df["status"].isin(["ok"])] if (df["status"] == "ok").any() else df
    metrics = [c for c in df.columns if c not in (x, "method", "macrorep", "seed")
               and pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c])
               and np.isfinite(df[c].to_numpy(dtype=float)).any()]  # no empty panel (alignment of no set)
    groups = df.groupby("method", sort=False) if "method" in df.columns else [("", df)]
    panels = []
    for m in metrics:
        series = []
        for name, g in groups:
            mean = g.groupby(x, sort=True)[m].mean()
            series.append({"name": plotly_text(name), "x": [float(v) for v in mean.index],
                           "y": [float(f"{v:.{DIGITS}g}") if math.isfinite(v) else None for v in mean]})
        panels.append({"metric": plotly_text(m), "series": series})
    xs = df[x].to_numpy(dtype=float)
    xs = xs[np.isfinite(xs)]
    log = bool(len(xs) and xs.min() > 0 and xs.max() / xs.min() > 10)
    return {"x": plotly_text(x), "x_type": "log" if log else "linear", "panels": panels,
            "x_range": padded_range(xs, log) if len(xs) else None}


def padded_range(values, log: bool, pad: float = 0.05) -> list[float]:
    """The x-range every progress panel shares: the values' span widened by ``pad`` of it on each
    side (so that the first and the last markers are drawn whole), in log10 units on a log axis
    (as plotly takes a log axis's range); one value: ± 10 % of it (± 1 if it is 0).

    Examples
    --------
    >>> padded_range([100, 1650], False)
    [22.5, 1727.5]
    >>> [round(v, 3) for v in padded_range([10, 1000], True)]
    [0.9, 3.1]
    """
    v = np.log10(np.asarray(values, dtype=float)) if log else np.asarray(values, dtype=float)
    low, high = float(v.min()), float(v.max())
    span = high - low
    if span == 0:
        span = 0.2 if log else (0.2 * abs(low) or 2.0)
        pad = 0.5
    return [low - pad * span, high + pad * span]

