"""Plain-text tables of design rows (formatted as each family declares), and the rows that
utilities choose from a result."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.scoring import best_or_none

__all__ = ["format_table", "choose", "chosen_table", "parameter_columns"]


def _fmt_n(n) -> str:
    return "inf" if math.isinf(float(n)) else f"{int(n)}"


def _formatter(name: str, column: pd.Series, spec=None):
    """How one column of a table is printed (missing values as ``-``). ``spec`` is the family's
    format of the column: a format string (``"{:.3f}"``), ``"count"`` (an integer, or ``inf``),
    ``"seconds"`` (whole seconds unless some values are not), or None (4 significant digits for
    numbers, text left-aligned)."""
    if spec == "count":
        f = _fmt_n
    elif spec == "seconds":  # grid values: whole seconds unless some are not
        values = column.dropna().to_numpy(dtype=float)
        f = "{:.0f}".format if np.allclose(values, np.round(values), atol=0.05) else "{:.1f}".format
    elif isinstance(spec, str):
        f = spec.format
    elif name == "design":
        f = "{:.0f}".format
    elif pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        f = "{:.4g}".format
    else:  # text, left-aligned
        width = max(len(name), int(column.astype(str).str.len().max()))

        def f(v):
            return str(v).ljust(width)

    def cell(v):
        return "-" if isinstance(v, float) and math.isnan(v) else f(v)

    return cell


def format_table(df: pd.DataFrame, columns: list[str] | None = None, formats: dict | None = None) -> str:
    """A plain-text table of design rows, each column printed as the family's ``formats`` say
    (column -> format, see :func:`_formatter`; a family declares them in its
    :class:`~mopt.core.family.Family`), text left-aligned, missing values as ``-``.

    Examples
    --------
    >>> print(format_table(pd.DataFrame({"N": [math.inf, 2.0], "T": [0.0, 1500.0],
    ...                                  "cost": [1.23456, math.nan]}),
    ...                    formats={"N": "count", "T": "seconds", "cost": "{:.3f}"}))
      N    T  cost
    inf    0 1.235
      2 1500     -
    """
    if len(df) == 0:
        return "(none)"
    columns = [c for c in (columns or list(df.columns)) if c in df.columns]
    table = df[columns]
    # text columns get left-aligned headers of their own width
    headers = {c: c.ljust(int(table[c].astype(str).str.len().max())) for c in columns
               if not pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c])}
    formats = formats or {}
    formatters = {headers.get(c, c): _formatter(c, table[c], formats.get(c)) for c in columns}
    text = table.rename(columns=headers).to_string(index=False, formatters=formatters, na_rep="-")
    return "\n".join(line.rstrip() for line in text.splitlines())


def choose(result, utilities: dict) -> dict:
    """Label -> chosen row (None when no evaluated design satisfies the utility)."""
    return {label: best_or_none(result, u) for label, u in utilities.items()}


def chosen_table(chosen: dict, columns: list[str], formats: dict | None = None) -> str:
    """:func:`format_table` of the chosen rows, one per label (``-`` where none was chosen)."""
    rows = []
    for label, row in chosen.items():
        if row is None:
            rows.append({"choice": label, **{c: math.nan for c in columns}})
        else:
            rows.append({"choice": label, **{c: math.nan if row.get(c) is None else row[c]
                                             for c in columns}})
    return format_table(pd.DataFrame(rows), ["choice", *columns], formats)


def parameter_columns(result) -> list[str]:
    """The decoded parameters of a result's ``evaluations`` (no design index, counts or statistics)."""
    objectives = list(result.objectives)
    hidden = {"design", "n_reps", "p_nondominated", *objectives,
              *(f"{o}{suffix}" for o in objectives for suffix in ("_se", "_lo", "_hi"))}
    return [c for c in result.evaluations.columns if c not in hidden]


#: how the uncertainty columns print
HOW_SURE_FORMATS = {"p_nondominated": "{:.2f}", "p_best": "{:.2f}", "runner_up": "count"}


def how_sure(result, *, shown: int = 10) -> str:
    """The front's uncertainty in a sentence (:mod:`mopt.core.uncertainty`), or "" without it.

    Examples
    --------
    >>> import mopt
    >>> exact = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6]], sd=0.0)  # no noise: sure
    >>> print(how_sure(mopt.solve(exact, "exhaustive", seed=1)))
    How sure: P(the front is exactly the efficient set) = 1.00; expected 0.00 designs wrongly on it,
    0.00 wrongly off it; 0 uncertain (0.05 < P(non-dominated) < 0.95).
    """
    u = result.info.get("uncertainty")
    if not isinstance(u, dict) or "p_correct_selection" not in u:
        return ""
    ids = list(u.get("uncertain", []))
    listed = ", ".join(str(d) for d in ids[:shown]) + (f", ... ({len(ids) - shown} more)" if len(ids) > shown else "")
    import textwrap

    text = (f"How sure: P(the front is exactly the efficient set) = {u['p_correct_selection']:.2f}; expected "
            f"{u['expected_false_in']:.2f} designs wrongly on it, {u['expected_false_out']:.2f} wrongly off "
            f"it; {len(ids)} uncertain (0.05 < P(non-dominated) < 0.95)" + (f": {listed}." if ids else "."))
    if u.get("warning"):
        text += "\nwarning: " + u["warning"]
    return "\n".join(textwrap.fill(line, width=100) for line in text.split("\n"))

