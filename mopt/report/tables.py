"""The report's HTML tables (:mod:`mopt.report`): numbers as the family formats them, each
objective's mean with its interval, the certified status; the run's description; the decisions."""

from __future__ import annotations

import html
import math
import platform

import numpy as np
import pandas as pd

__all__ = ["TABLE_ROWS", "OPEN_ROWS", "Z95", "family_of", "objective_labels", "objective_lows", "intervals",
           "parameters", "cell", "interval", "uncertain_cell", "html_table", "collapsed", "uncertainty_words",
           "versions", "run_table", "decisions_table", "statics_table"]

#: rows shown at most in each table of the report (the CSV files hold them all)
TABLE_ROWS = 200
#: a list of designs longer than this is folded (``<details>``: its heading and count shown, the rows
#: a click away)
OPEN_ROWS = 10
#: z of the interval shown when a result has standard errors only (a normal 95% interval)
Z95 = 1.96


def family_of(result, family):
    """The Family object (or None) naming the objectives: ``family`` or ``result.info["family"]``."""
    from mopt.core.family import Family, families

    if isinstance(family, Family):
        return family
    name = family if family is not None else result.info.get("family")
    return families().get(name) if isinstance(name, str) else None


def objective_labels(result, fam) -> dict:
    """Objective -> axis label (``"label [unit]"``), the column name when the family does not say."""
    return {o: fam.label(o) if fam is not None else o for o in result.objectives}


def objective_lows(result, fam) -> dict:
    """Objective -> the least value it can take (:meth:`mopt.core.family.Family.low`), for the
    objectives whose family declares one: the report cuts intervals there."""
    if fam is None:
        return {}
    lows = {o: fam.low(o) for o in result.objectives}
    return {o: float(v) for o, v in lows.items() if v is not None}


def intervals(ev: pd.DataFrame, objectives, lows: dict | None = None) -> tuple[dict, str]:
    """Objective -> (lo, hi) columns, and how they were obtained (``"ci"``: the result's own
    confidence bounds; ``"se"``: mean ± 1.96 se; ``""``: neither, NaN); a lower bound below the
    objective's least value (``lows``, :func:`objective_lows`) is cut there."""
    out, kind = {}, "ci"
    for o in objectives:
        if f"{o}_lo" in ev.columns and f"{o}_hi" in ev.columns:
            lo, hi = ev[f"{o}_lo"], ev[f"{o}_hi"]
        else:
            kind = "se" if f"{o}_se" in ev.columns and kind else ""
            se = ev[f"{o}_se"] if f"{o}_se" in ev.columns else pd.Series(np.nan, index=ev.index)
            lo, hi = ev[o] - Z95 * se, ev[o] + Z95 * se
        out[o] = (lo.clip(lower=lows[o]) if lows and o in lows else lo, hi)
    return out, kind


def parameters(result) -> list[str]:
    """The decoded parameters of the evaluations (no index, statistics or uncertainty columns):
    :attr:`Result.parameters <mopt.core.result.Result.parameters>`."""
    return result.parameters



def cell(value, spec=None) -> str:
    """One number or word of a table, as the family's format ``spec`` says (see
    :func:`mopt.tables.format_table`)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | float | np.number):
        return html.escape(str(value))
    if spec == "count":
        return "inf" if math.isinf(float(value)) else f"{int(value)}"
    if spec == "seconds":
        return f"{float(value):.0f}" if abs(value - round(value)) < 0.05 else f"{float(value):.1f}"
    if isinstance(spec, str):
        return html.escape(spec.format(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    return f"{float(value):.4g}"


def breakable(text: str, marks: str = "") -> str:
    """Escaped ``text`` that may break after its ``+``, ``/``, ``,`` and ``marks`` (``<wbr>``), so
    that a long word such as a site set (or, in a header, a parameter's name) wraps in a narrow
    column.

    Examples
    --------
    >>> breakable("C3+private+public")
    'C3+<wbr>private+<wbr>public'
    >>> breakable("public_cap", "_")
    'public_<wbr>cap'
    """
    for mark in ("+", "/", ",", *marks):
        text = text.replace(mark, mark + "<wbr>")
    return text


def interval(row, objective: str, low: float | None = None) -> tuple[float, float]:
    """A row's interval of ``objective``: its ``_lo``/``_hi`` bounds, else mean ± 1.96 se; the
    lower bound cut at ``low`` (the least value the objective can take)."""
    if f"{objective}_lo" in row.index and f"{objective}_hi" in row.index:
        lo, hi = float(row[f"{objective}_lo"]), float(row[f"{objective}_hi"])
    else:
        se = float(row[f"{objective}_se"]) if f"{objective}_se" in row.index else math.nan
        lo, hi = float(row[objective]) - Z95 * se, float(row[objective]) + Z95 * se
    return (max(lo, low) if low is not None and math.isfinite(lo) else lo), hi


def uncertain_cell(row, objective: str, spec=None, low: float | None = None) -> str:
    """``mean [lo, hi]`` (the interval in a smaller font, on a line of its own in a narrow
    column); the mean alone without an interval; ``low`` as :func:`interval` takes it."""
    mean, (lo, hi) = row[objective], interval(row, objective, low)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return cell(mean, spec)
    return f'{cell(mean, spec)} <span class="ci">[{cell(lo, spec)}, {cell(hi, spec)}]</span>'


def html_table(rows: pd.DataFrame, result, labels: dict, formats, *, lead=(), extra=(),
                limit: int = TABLE_ROWS, lows: dict | None = None, skip=()) -> str:
    """An HTML table of design ``rows``: the ``lead`` columns, the design, its parameters, each
    objective's mean and interval (cut at ``lows``, :func:`objective_lows`), the certified status
    (no P(non-dominated): not a calibrated frequency), ``n_reps``, then the ``extra`` columns (``(column, header, format)`` each); none of the
    columns named in ``skip``. Wrapped in a ``<div class="table">`` that scrolls sideways by itself
    if it must, never the page."""
    if len(rows) == 0:
        return '<p class="note">(none)</p>'
    lows = lows or {}
    params = [c for c in parameters(result) if c in rows.columns]
    tail = [(c, c, None) for c in ("n_reps",) if c in rows.columns and c not in skip]
    if "certified" in rows.columns:
        tail.insert(0, ("certified", "certified (95 %)", None))
    if "n_designs" in rows.columns and (rows["n_designs"] > 1).any():  # classes of equivalent designs
        tail += [("n_designs", "designs in its class", "count")]
        tail += [("varies", "varies in the class", None)] if "varies" in rows.columns else []
    tail += [e for e in extra if e[0] in rows.columns]
    head = [*lead, "design", *params, *(labels[o] for o in result.objectives), *(h for _, h, _ in tail)]
    # text columns wrap, numbers keep to one line: a first column that names the row (the choice;
    # the style sheet's table.named), the parameters that are words (a site set such as
    # "C3+private+public" breaks after its "+") and what varies in a class
    wrap = {len(head) - len(tail) + k for k, (c, _, _) in enumerate(tail) if c == "varies"}
    worded = {c for c in params if rows[c].map(lambda v: isinstance(v, str)).any()}
    wrap |= {len(lead) + 1 + k for k, c in enumerate(params) if c in worded}
    out = ['<div class="table"><table class="named">' if lead else '<div class="table"><table>', "<thead><tr>",
           *(f'<th class="text">{breakable(html.escape(h), "_")}</th>' if k in wrap
             else f"<th>{breakable(html.escape(h), '_')}</th>" for k, h in enumerate(head)), "</tr></thead><tbody>"]
    for _, row in rows.head(limit).astype(object).iterrows():  # each column keeps its type
        cells = [cell(row.get(c)) for c in lead]
        cells += [cell(row["design"]), *(breakable(cell(row[c], formats.get(c))) if c in worded
                                         else cell(row[c], formats.get(c)) for c in params)]
        cells += [uncertain_cell(row, o, formats.get(o), lows.get(o)) for o in result.objectives]
        cells += [cell(row.get(c), spec) for c, _, spec in tail]
        out.append("<tr>" + "".join(f'<td class="text">{c}</td>' if k in wrap else f"<td>{c}</td>"
                                    for k, c in enumerate(cells)) + "</tr>")
    out.append("</tbody></table></div>")
    if len(rows) > limit:
        out.append(f'<p class="note">(the first {limit} of {len(rows):,} rows)</p>')
    return "".join(out)



def collapsed(table: str, n_rows: int, what: str) -> str:
    """``table`` (of ``n_rows`` rows) as it is, or folded into ``<details>`` whose summary says
    how many ``what`` it holds when there are more than :data:`OPEN_ROWS`."""
    if n_rows <= OPEN_ROWS:
        return table
    return f"<details><summary>{n_rows:,} {html.escape(what)} (show the table)</summary>{table}</details>"


def uncertainty_words(kind: str, level: float, certified: bool, cut: dict) -> str:
    """What the report's intervals and certainties are, in one sentence (the lead and the run
    table say the same): ``kind`` and ``level`` of the intervals (:func:`intervals`), whether each
    class has a certified status (:meth:`Result.certified <mopt.core.result.Result.certified>`),
    and ``cut`` (objective label -> least value) the bounds cut there. No probability is named:
    P(non-dominated) is not a calibrated frequency (the how-sure guide), so no page prints it.

    Examples
    --------
    >>> uncertainty_words("se", 0.95, False, {})
    'each mean ± 1.96 standard errors (≈95%)'
    """
    words = {"ci": f"means with {level:.0%} confidence intervals (the result's own bounds)",
             "se": "each mean ± 1.96 standard errors (≈95%)",
             "": "means without an interval (one replication)"}[kind]
    words += "; each class certified efficient, dominated or undecided at 95 %" if certified else ""
    if cut:
        words += ("; intervals cut at the least value an objective can take ("
                  + ", ".join(f"{o} ≥ {v:g}" for o, v in cut.items()) + ")")
    return words


def versions() -> dict:
    import sys

    import mopt

    found = {"mopt": mopt.__version__, "numpy": np.__version__, "pandas": pd.__version__}
    found["python"] = platform.python_version()
    if "plotly" in sys.modules:
        found["plotly"] = sys.modules["plotly"].__version__
    return found


def run_table(result, problem, fam, uncertainty: str = "") -> str:
    """The run: method, budget, seed, replications, designs, what the intervals are
    (``uncertainty``, :func:`uncertainty_words`) and the uncertainty's level, the method's other
    scalar extras, versions."""
    info = result.info
    budget = info.get("budget")
    rows = [("method", result.method),
            ("budget", f"{budget:,} replications" if isinstance(budget, int) else budget if budget is not None
             else f"none set ({result.n_evals:,} replications spent)"), ("seed", result.seed),
            ("replications spent (n_evals)", f"{result.n_evals:,}"),
            ("designs evaluated", f"{len(result.evaluations):,}"),
            ("on the Pareto front", f"{len(result.front):,}")]
    n_designs = getattr(problem, "n_designs", None) if problem is not None else info.get("n_designs")
    if isinstance(n_designs, int | np.integer) and not isinstance(n_designs, bool):
        rows.append(("designs in the space", f"{int(n_designs):,}"))
    if fam is not None:
        rows.append(("family", f"{fam.name} ({fam.description})"))
    if uncertainty:
        rows.append(("intervals", uncertainty))
    u = info.get("uncertainty")
    if isinstance(u, dict):
        # no P(correct selection) nor the expected designs wrongly on or off the front: posterior
        # figures that are not calibrated frequencies (the how-sure guide); result.json keeps them
        for key, words, spec in (("level", "confidence level", "{:.0%}"), ("resamples", "resamples", "{:,}")):
            if isinstance(u.get(key), int | float):
                rows.append((words, spec.format(u[key])))
    else:
        rows.append(("confidence level and resamples", "not recorded with this result"))
    shown = {"budget", "uncertainty", "family", "title", "n_designs"}
    for key, value in info.items():  # the method's and the command's own scalar extras
        if key not in shown and isinstance(value, str | int | float | bool) and len(str(value)) < 300:
            rows.append((key, value))
    rows += [(f"{name} version", v) for name, v in versions().items()]
    return ("<table class=\"run\"><tbody>"
            + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows)
            + "</tbody></table>")


def decisions_table(result, chosen: dict, labels, formats, lows: dict | None = None) -> str:
    """The rows that utilities chose, with P(best) and the runner-up where given (no ``n_reps``:
    the front's table has them)."""
    rows, missing = [], []
    for label, row in chosen.items():
        if row is None:
            missing.append(label)
            continue
        rows.append({"choice": label, **{k: row[k] for k in row.index}})
    table = html_table(pd.DataFrame(rows), result, labels, formats, lead=("choice",), lows=lows,
                        skip=("n_reps",),
                        extra=(("utility", "utility", None), ("p_best", "P(best)", "{:.2f}"),
                               ("runner_up", "runner-up", None)))
    for label in missing:
        table += f'<p class="note">no evaluated design satisfies {html.escape(label)}.</p>'
    return table



def statics_table(statics: pd.DataFrame, objectives, labels: dict, formats) -> str:
    """The static strategies (baselines not searched): their ``name``, each objective's mean
    (``labels`` head the columns) and any other column of ``statics`` (true/false as yes/no)."""
    head = ["name", *objectives, *(c for c in statics.columns if c != "name" and c not in objectives)]
    out = ['<div class="table"><table class="named"><thead><tr>',
           *(f"<th>{html.escape(labels[c] if c in labels else c.replace('_', ' '))}</th>" for c in head),
           "</tr></thead><tbody>"]
    for _, row in statics.astype(object).iterrows():
        cells = [("yes" if v else "no") if isinstance(v, bool | np.bool_) else v for v in (row[c] for c in head)]
        out.append("<tr>" + "".join(f"<td>{cell(v, formats.get(c))}</td>" for c, v in zip(head, cells, strict=True))
                   + "</tr>")
    return "".join(out) + "</tbody></table></div>"
