"""The progress figure of a comparison (:func:`mopt.compare`): each score of each method against
the replications it was given (probability of correct selection, regret, hypervolume ratio, Type I
+ II errors), on a bare Agg
:class:`~matplotlib.figure.Figure` (no ``pyplot``; see :mod:`mopt.plot`)."""

from __future__ import annotations

import math
import os

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from mopt.plot import method_label, plain_number, save_figure

__all__ = ["plot_progress"]

#: the panels of :func:`plot_progress`: (column, statistic, y label)
_PROGRESS_PANELS = (
    ("pcs", "mean", "P(correct selection)"),
    ("regret", "median", "regret (true utility)"),
    ("hv_ratio", "median", "hypervolume ratio"),
    ("type12", "mean", "P(Type I) + P(Type II)"),
)
#: the panels whose metric has a fixed range, drawn whole
_PROGRESS_RANGES = {"pcs": (0.0, 1.0), "type12": (0.0, 2.0)}
_PROGRESS_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">")


def plot_progress(
    df: pd.DataFrame,
    path: str | os.PathLike | None = None,
    *,
    title: str | None = None,
    caption: str | None = None,
    utility_unit: str | None = None,
) -> Figure:
    """Progress curves of search methods: one panel per metric against the budget.

    Panels: probability of correct selection (the mean over macroreplications), regret and
    hypervolume ratio (the median, with the interquartile range as a band), and P(Type I) +
    P(Type II) of the observed Pareto set (the mean of the two error indicators).  The budget
    axis (replications) is logarithmic; runs whose status is not ``"ok"`` are left out.

    Parameters
    ----------
    df : DataFrame
        Rows of :func:`mopt.compare.compare` (columns ``method``, ``budget``, ``status``, ``pcs``,
        ``regret``, ``hv_ratio``, ``type1``, ``type2``).
    path : path, optional
        Also save the figure there, atomically (see :func:`save_figure`).
    title, caption : str, optional
        Figure title; a small caption under the panels (problem, seed, ground truth).
    utility_unit : str, optional
        Unit of the utility, shown in the regret panel's label (e.g. ``"s·cent/task"``).

    The legend names the methods in words (:func:`method_label`: ``nsga2`` -> ``NSGA-II``); the
    lines keep the method names as their labels.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"method": ["a", "a", "b", "b"], "budget": [10, 100, 10, 100],
    ...                    "status": "ok", "pcs": [0.0, 1.0, 1.0, 1.0], "regret": [2.0, 0.0, 0.0, 0.0],
    ...                    "hv_ratio": [0.5, 0.9, 0.8, 1.0], "type1": 0.0, "type2": [1.0, 0.0, 0.0, 0.0]})
    >>> fig = plot_progress(df)
    >>> [ax.get_ylabel() for ax in fig.axes]
    ['P(correct selection)', 'regret (true utility)', 'hypervolume ratio', 'P(Type I) + P(Type II)']
    """
    from mopt.core.errors import InputError

    needed = ["method", "budget", "pcs", "regret", "hv_ratio", "type1", "type2"]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise InputError(f"'df' must be a frame from mopt.compare(); column {missing[0]!r} is missing.")
    ok = df[df["status"] == "ok"] if "status" in df.columns else df
    ok = ok.assign(type12=ok["type1"] + ok["type2"])
    fig = Figure(figsize=(10.0, 7.0), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(2, 2).ravel()
    for k, method in enumerate(pd.unique(df["method"])):
        runs = ok[ok["method"] == method]
        color, marker = f"C{k % 10}", _PROGRESS_MARKERS[k % len(_PROGRESS_MARKERS)]
        for ax, (column, statistic, _) in zip(axes, _PROGRESS_PANELS, strict=True):
            by_budget = runs.groupby("budget")[column]
            if statistic == "mean":
                centre = by_budget.mean().dropna()
            else:
                centre = by_budget.median().dropna()
                q1, q3 = by_budget.quantile(0.25).dropna(), by_budget.quantile(0.75).dropna()
                if len(q1):
                    ax.fill_between(q1.index, q1.to_numpy(), q3.to_numpy(), color=color, alpha=0.2,
                                    linewidth=0)
            if len(centre):
                ax.plot(centre.index, centre.to_numpy(), "-", marker=marker, color=color, markersize=5,
                        linewidth=1.4, label=str(method))
    budgets = sorted(int(b) for b in pd.unique(df["budget"]))
    for ax, (column, statistic, label) in zip(axes, _PROGRESS_PANELS, strict=True):
        ax.set_xscale("log")
        if budgets:  # the budgets themselves as ticks, as plain numbers (close ones unlabelled)
            ax.set_xticks(budgets, _budget_labels(budgets))
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("budget [replications]")
        ax.set_ylabel(f"{label} [{utility_unit}]" if column == "regret" and utility_unit else label)
        if column in _PROGRESS_RANGES:  # a probability (or a sum of two) on its whole range
            low, high = _PROGRESS_RANGES[column]
            ax.set_ylim(low - 0.03 * (high - low), high + 0.03 * (high - low))
        ax.grid(True, which="major", alpha=0.3)
        ax.set_title("mean over macroreplications" if statistic == "mean"
                     else "median and interquartile range over macroreplications", fontsize=8)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        axes[0].legend(handles, [method_label(m) for m in labels], fontsize=7, loc="best",
                       framealpha=0.85)
    if title:
        fig.suptitle(title)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    if path is not None:
        save_figure(fig, path)
    return fig


def _budget_labels(budgets: list[int], gap: float = 0.12) -> list[str]:
    """Tick labels of ascending budgets on a log axis, short plain numbers (``4,673``, ``23.4k``,
    ``467k``); a budget within ``gap`` decades of the last labelled one gets no label, so labels
    never overlap.

    Examples
    --------
    >>> _budget_labels([10, 11, 100, 4673, 23368, 467370, 2500000])
    ['10', '', '100', '4,673', '23.4k', '467k', '2.5M']
    """
    labels, last = [], None
    for b in budgets:
        if last is None or b <= 0 or math.log10(b) - math.log10(last) >= gap:
            labels.append(_short_number(b))
            last = b if b > 0 else last
        else:
            labels.append("")
    return labels


def _short_number(value: float) -> str:
    """A count in at most about five characters: plain below 10,000, then thousands (k) or
    millions (M) to three significant digits."""
    if abs(value) >= 1e6:
        return f"{float(f'{value / 1e6:.3g}'):g}M"
    if abs(value) >= 1e4:
        return f"{float(f'{value / 1e3:.3g}'):g}k"
    return plain_number(value)
