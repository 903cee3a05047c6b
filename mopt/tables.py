"""Plain-text tables of design rows (formatted as each family declares), and the rows that
utilities choose from a result."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.core.certified import certified_status  # noqa: F401 - re-exported (its home: mopt.core.certified)
from mopt.scoring import best_or_none

__all__ = ["format_table", "choose", "chosen_table", "parameter_columns", "front_rows", "front_heading",
           "with_errors", "errors_note"]


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


def _with_se(column: pd.Series, se: pd.Series, cell) -> pd.Series:
    """``column``'s cells as ``mean ± se`` text (each printed by ``cell``), the means right-aligned
    and the ``±`` signs in one column."""
    means = [cell(m) for m in column]
    errs = ["" if isinstance(v, float) and math.isnan(v) else cell(v) for v in se]
    wide_mean, wide_err = max(map(len, means)), max(map(len, errs))
    text = [f"{m.rjust(wide_mean)} ± {e.ljust(wide_err)}" if e else m.rjust(wide_mean).ljust(wide_mean + 3 + wide_err)
            for m, e in zip(means, errs, strict=True)]
    width = max(len(column.name), *(len(t) for t in text))
    return pd.Series([t.rjust(width) for t in text], index=column.index, name=column.name)


def format_table(df: pd.DataFrame, columns: list[str] | None = None, formats: dict | None = None,
                 *, errors=()) -> str:
    """A plain-text table of design rows, each column printed as the family's ``formats`` say
    (column -> format, see :func:`_formatter`; a family declares them in its
    :class:`~mopt.core.family.Family`), text left-aligned, missing values as ``-``. A column
    named in ``errors`` (an objective) that has a ``<column>_se`` column is printed as
    ``mean ± standard error``, both in the column's format.

    Examples
    --------
    >>> print(format_table(pd.DataFrame({"N": [math.inf, 2.0], "T": [0.0, 1500.0],
    ...                                  "cost": [1.23456, math.nan]}),
    ...                    formats={"N": "count", "T": "seconds", "cost": "{:.3f}"}))
      N    T  cost
    inf    0 1.235
      2 1500     -
    >>> print(format_table(pd.DataFrame({"makespan": [4301.2, 12653.0], "makespan_se": [35.4, 1297.0],
    ...                                  "cost": [0.76, 0.57]}),
    ...                    ["makespan", "cost"], {"makespan": "{:.0f}"}, errors=["makespan"]))
        makespan cost
     4301 ± 35   0.76
    12653 ± 1297 0.57
    """
    if len(df) == 0:
        return "(none)"
    columns = [c for c in (columns or list(df.columns)) if c in df.columns]
    table = df[columns]
    formats = formats or {}
    with_se = [c for c in errors if c in columns and f"{c}_se" in df.columns]
    if with_se:  # mean ± se, already text (right-aligned): printed as it is
        table = table.assign(**{c: _with_se(df[c], df[f"{c}_se"], _formatter(c, df[c], formats.get(c)))
                                for c in with_se})
        formats = {**formats, **{c: "{}" for c in with_se}}
    # text columns get left-aligned headers of their own width
    headers = {c: c.ljust(int(table[c].astype(str).str.len().max())) for c in columns if c not in with_se
               and (not pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c]))}
    formatters = {headers.get(c, c): _formatter(c, table[c], formats.get(c)) for c in columns}
    text = table.rename(columns=headers).to_string(index=False, formatters=formatters, na_rep="-")
    return "\n".join(line.rstrip() for line in text.splitlines())


def choose(result, utilities: dict) -> dict:
    """Label -> chosen row (None when no evaluated design satisfies the utility)."""
    return {label: best_or_none(result, u) for label, u in utilities.items()}


def chosen_table(chosen: dict, columns: list[str], formats: dict | None = None, *, errors=()) -> str:
    """:func:`format_table` of the chosen rows, one per label (``-`` where none was chosen);
    ``errors``: the columns printed as ``mean ± standard error``."""
    rows, kept = [], [*columns, *(f"{c}_se" for c in errors)]
    for label, row in chosen.items():
        if row is None:
            rows.append({"choice": label, **{c: math.nan for c in kept}})
        else:
            rows.append({"choice": label, **{c: math.nan if row.get(c) is None else row[c]
                                             for c in kept}})
    return format_table(pd.DataFrame(rows), ["choice", *columns], formats, errors=errors)


def parameter_columns(result) -> list[str]:
    """The decoded parameters of a result's ``evaluations`` (no design index, counts or
    statistics): :attr:`Result.parameters <mopt.core.result.Result.parameters>`."""
    return result.parameters


#: how the uncertainty columns print
HOW_SURE_FORMATS = {"p_nondominated": "{:.2f}", "p_best": "{:.2f}", "runner_up": "count", "n_designs": "count"}
#: P(non-dominated) and P(correct selection) are not printed: measured, they are not calibrated
#: frequencies at any replication count from 3 to 100 (benchmarks/calibration.py, the how-sure guide)


#: ``status`` not given: :func:`front_rows` and :func:`how_sure` certify the result themselves
_CERTIFY = object()


def front_rows(result, *, status=_CERTIFY) -> tuple[pd.DataFrame, list[str]]:
    """``(front, extra)``: the front, one row per class of equivalent designs, and the columns to
    print after the objectives: ``certified`` (its status at 95 %, :meth:`Result.certified`, when
    the result has standard errors), then ``n_designs`` and ``varies`` (the parameters that vary
    inside a class) when some class holds more than one design.  ``status``: the result's
    :func:`certified_status` when the caller has it (a printout certifies the result once)."""
    front, extra = result.front, []
    status = certified_status(result) if status is _CERTIFY else status
    if status is not None and len(front):
        key = "class" if "class" in front.columns else "design"
        front = front.assign(certified=status.reindex(front[key].to_numpy()).to_numpy())
        extra.append("certified")
    if "n_designs" not in front.columns or not (front["n_designs"] > 1).any():
        return front, extra
    text = result.classes.set_index("class")["varies"]
    front = front.assign(varies=text.reindex(front["class"].to_numpy()).fillna("").to_numpy())
    return front, [*extra, "n_designs", "varies"]


def unsure_notes(result, chosen: dict, utilities: dict, *, below: float = 0.5, target: float = 0.9) -> str:
    """For each decision whose ``p_best`` is below ``below``: its runner-up and the replications
    of each of the two that :func:`mopt.core.choice_certainty.replications_needed` expects to bring
    ``p_best`` to ``target`` (``mopt frontier --refine`` / :func:`mopt.refine` spend them)."""
    from mopt.core.choice_certainty import replications_needed

    ev = result.evaluations
    position = {int(d): k for k, d in enumerate(ev["design"].tolist())}
    lines = []
    for label, row in chosen.items():
        if row is None or row.get("p_best") is None or not row["p_best"] < below or row.get("runner_up") is None:
            continue
        runner = int(row["runner_up"])
        from mopt.core.risk import resampled

        columns = resampled(ev, result.objectives, utilities[label])
        if columns is None:
            continue
        more = replications_needed(ev, columns, utilities[label], position[int(row["design"])], position[runner],
                                   target=target)
        pair = ev.iloc[[position[int(row["design"])], position[runner]]]
        tied = np.ptp(np.asarray(utilities[label](pair), dtype=float)) == 0
        need = ("the two tie at the current means (the tie-break chose); more replications of the two may "
                "never part them under common random numbers" if tied
                else "how many more replications would settle it cannot be estimated: a constraint is in doubt "
                     "for one of the two (it holds in some resamples, not in others)" if np.isnan(more)
                else "the runner-up does not trail at the current means" if not np.isfinite(more)
                else f"about {int(more)} more replications of each of the two are expected to bring p_best to {target:g} "
                     "(a two-design estimate: a lower bound when others compete)")
        lines.append(f"{label}: p_best {row['p_best']:.2f} < {below:g}; runner-up design {runner}; {need}.")
    return "\n".join(lines)


def with_errors(result) -> list[str]:
    """The objectives of ``result`` that have standard errors (printed as ``mean ± se``)."""
    return [o for o in result.objectives if f"{o}_se" in result.evaluations.columns]


def errors_note(result) -> str:
    """What the ``±`` of a printed table is, or "" when nothing is printed with one."""
    return "; objectives: mean ± standard error of the mean" if with_errors(result) else ""


def front_heading(result, noun: str, front: pd.DataFrame) -> str:
    """How many of the evaluated designs (in classes of equivalent designs, when there are any)
    are on the front.

    Examples
    --------
    >>> import mopt
    >>> same = mopt.NormalProblem([[1, 5], [1, 5], [5, 1], [6, 6]], sd=0.0)
    >>> result = mopt.solve(same, "exhaustive", seed=1)
    >>> print(front_heading(result, "designs", result.front))
    Pareto frontier: 2 of 3 classes of equivalent designs (3 of 4 evaluated designs; a class: identical in every replication)
    """
    ev = result.evaluations
    n_classes = int(ev["class"].nunique()) if "class" in ev.columns else len(ev)
    if n_classes == len(ev):
        return f"Pareto frontier: {len(front)} of {len(ev)} evaluated {noun}"
    on = int(front["n_designs"].sum()) if "n_designs" in front.columns else len(front)
    return (f"Pareto frontier: {len(front)} of {n_classes} classes of equivalent {noun} ({on} of {len(ev)} "
            f"evaluated {noun}; a class: identical in every replication)")


def how_sure(result, *, shown: int = 10, status=_CERTIFY) -> str:
    """How sure the front is, in a sentence: the certified sets (:meth:`Result.certified`, at
    95 %; ``status``: the result's :func:`certified_status` when the caller has it), or "" for a
    result without standard errors. (The posterior probabilities ``p_nondominated`` and
    ``p_correct_selection`` stay in the result's files: measured, they are not calibrated
    frequencies, so they are not printed.)

    Examples
    --------
    >>> import mopt
    >>> exact = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6]], sd=0.0)  # no noise: sure
    >>> print(how_sure(mopt.solve(exact, "exhaustive", seed=1)))
    How sure (certified at 95 % for all designs at once, and still valid when you look again after more
    replications): 3 efficient, 1 dominated, 0 undecided.
    """
    import textwrap

    status = certified_status(result) if status is _CERTIFY else status
    if status is None:
        return ""
    counts = status.value_counts()
    unit = "classes" if "class" in result.evaluations.columns and result.evaluations["class"].nunique() < len(
        result.evaluations) else "designs"
    undecided = status.index[status.to_numpy() == "undecided"]
    reps = result.evaluations.set_index("class" if "class" in result.evaluations.columns else "design")
    listed = ", ".join(str(int(reps.loc[[c], "design"].min())) for c in undecided[:shown])
    listed += f", ... ({len(undecided) - shown} more)" if len(undecided) > shown else ""
    text = (f"How sure (certified at 95 % for all {unit} at once, and still valid when you look again after "
            f"more replications): {int(counts.get('efficient', 0))} efficient, {int(counts.get('dominated', 0))} "
            f"dominated, {len(undecided)} undecided" + (f": {listed}" if len(undecided) else "")
            + (" (mopt frontier --refine B, or mopt.refine(..., target='undecided'), spends replications on "
               "them)." if len(undecided) else "."))
    return "\n".join(textwrap.fill(line, width=100) for line in text.split("\n"))

