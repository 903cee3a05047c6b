"""The report's HTML tables (:mod:`mopt.report`): numbers as the family formats them, each
objective's mean with its interval, P(non-dominated); the run's description; the decisions."""

from __future__ import annotations

import html
import math
import platform

import numpy as np
import pandas as pd

__all__ = ["TABLE_ROWS", "Z95", "family_of", "objective_labels", "intervals", "parameters", "cell",
           "interval", "uncertain_cell", "html_table", "versions", "run_table", "decisions_table"]

#: rows shown at most in each table of the report (the CSV files hold them all)
TABLE_ROWS = 200
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


def intervals(ev: pd.DataFrame, objectives) -> tuple[dict, str]:
    """Objective -> (lo, hi) columns, and how they were obtained (``"ci"``: the result's own
    confidence bounds; ``"se"``: mean ± 1.96 se; ``""``: neither, NaN)."""
    out, kind = {}, "ci"
    for o in objectives:
        if f"{o}_lo" in ev.columns and f"{o}_hi" in ev.columns:
            out[o] = (ev[f"{o}_lo"], ev[f"{o}_hi"])
            continue
        kind = "se" if f"{o}_se" in ev.columns and kind else ""
        se = ev[f"{o}_se"] if f"{o}_se" in ev.columns else pd.Series(np.nan, index=ev.index)
        out[o] = (ev[o] - Z95 * se, ev[o] + Z95 * se)
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


def interval(row, objective: str) -> tuple[float, float]:
    """A row's interval of ``objective``: its ``_lo``/``_hi`` bounds, else mean ± 1.96 se."""
    if f"{objective}_lo" in row.index and f"{objective}_hi" in row.index:
        return float(row[f"{objective}_lo"]), float(row[f"{objective}_hi"])
    se = float(row[f"{objective}_se"]) if f"{objective}_se" in row.index else math.nan
    return float(row[objective]) - Z95 * se, float(row[objective]) + Z95 * se


def uncertain_cell(row, objective: str, spec=None) -> str:
    """``mean [lo, hi]`` (the interval in a smaller font); the mean alone without an interval."""
    mean, (lo, hi) = row[objective], interval(row, objective)
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return cell(mean, spec)
    return f'{cell(mean, spec)} <span class="ci">[{cell(lo, spec)}, {cell(hi, spec)}]</span>'


def html_table(rows: pd.DataFrame, result, labels: dict, formats, *, lead=(), extra=(),
                limit: int = TABLE_ROWS) -> str:
    """An HTML table of design ``rows``: the ``lead`` columns, the design, its parameters, each
    objective's mean and interval, P(non-dominated), ``n_reps``, then the ``extra`` columns
    (``(column, header, format)`` each)."""
    if len(rows) == 0:
        return '<p class="note">(none)</p>'
    params = [c for c in parameters(result) if c in rows.columns]
    tail = [(c, c, None) for c in ("n_reps",) if c in rows.columns]
    if "p_nondominated" in rows.columns:
        tail.insert(0, ("p_nondominated", "P(non-dominated)", "{:.2f}"))
    if "certified" in rows.columns:
        tail.insert(0, ("certified", "certified (95 %)", None))
    if "n_designs" in rows.columns and (rows["n_designs"] > 1).any():  # classes of equivalent designs
        tail += [("n_designs", "designs in its class", "count")]
        tail += [("varies", "varies in the class", None)] if "varies" in rows.columns else []
    tail += [e for e in extra if e[0] in rows.columns]
    head = [*lead, "design", *params, *(labels[o] for o in result.objectives), *(h for _, h, _ in tail)]
    out = ["<table><thead><tr>", *(f"<th>{html.escape(h)}</th>" for h in head), "</tr></thead><tbody>"]
    for _, row in rows.head(limit).astype(object).iterrows():  # each column keeps its type
        cells = [cell(row.get(c)) for c in lead]
        cells += [cell(row["design"]), *(cell(row[c], formats.get(c)) for c in params)]
        cells += [uncertain_cell(row, o, formats.get(o)) for o in result.objectives]
        cells += [cell(row.get(c), spec) for c, _, spec in tail]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    if len(rows) > limit:
        out.append(f'<p class="note">(the first {limit} of {len(rows):,} rows)</p>')
    return "".join(out)



def versions() -> dict:
    import sys

    import mopt

    found = {"mopt": mopt.__version__, "numpy": np.__version__, "pandas": pd.__version__}
    found["python"] = platform.python_version()
    if "plotly" in sys.modules:
        found["plotly"] = sys.modules["plotly"].__version__
    return found


def run_table(result, problem, fam) -> str:
    """The run: method, budget, seed, replications, designs, the uncertainty summary, the
    method's other scalar extras, versions."""
    info = result.info
    rows = [("method", result.method), ("budget", info.get("budget", "–")), ("seed", result.seed),
            ("replications spent (n_evals)", f"{result.n_evals:,}"),
            ("designs evaluated", f"{len(result.evaluations):,}"),
            ("on the Pareto front", f"{len(result.front):,}")]
    if problem is not None and getattr(problem, "n_designs", None) is not None:
        rows.append(("designs in the space", f"{int(problem.n_designs):,}"))
    if fam is not None:
        rows.append(("family", f"{fam.name} ({fam.description})"))
    u = info.get("uncertainty")
    if isinstance(u, dict):
        for key, words, spec in (("level", "confidence level", "{:.0%}"),
                                 ("p_correct_selection", "P(correct selection of the front)", "{:.3f}"),
                                 ("expected_false_in", "expected designs wrongly on the front", "{:.2f}"),
                                 ("expected_false_out", "expected designs wrongly off the front", "{:.2f}"),
                                 ("resamples", "resamples", "{:,}")):
            if isinstance(u.get(key), int | float):
                rows.append((words, spec.format(u[key])))
    else:
        rows.append(("uncertainty", "means ± 1.96 standard errors (this result carries no "
                                    "P(non-dominated) or confidence bounds)"))
    shown = {"budget", "uncertainty", "family"}
    for key, value in info.items():  # the method's and the command's own scalar extras
        if key not in shown and isinstance(value, str | int | float | bool) and len(str(value)) < 300:
            rows.append((key, value))
    rows += [(f"{name} version", v) for name, v in versions().items()]
    return ("<table class=\"run\"><tbody>"
            + "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>" for k, v in rows)
            + "</tbody></table>")


def decisions_table(result, chosen: dict, labels, formats) -> str:
    """The rows that utilities chose, with P(best) and the runner-up where given."""
    rows, missing = [], []
    for label, row in chosen.items():
        if row is None:
            missing.append(label)
            continue
        rows.append({"choice": label, **{k: row[k] for k in row.index}})
    table = html_table(pd.DataFrame(rows), result, labels, formats, lead=("choice",),
                        extra=(("utility", "utility", None), ("p_best", "P(best)", "{:.2f}"),
                               ("runner_up", "runner-up", None)))
    for label in missing:
        table += f'<p class="note">no evaluated design satisfies {html.escape(label)}.</p>'
    return table

