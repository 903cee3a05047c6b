"""Figures: a Pareto frontier over the sampled strategies, with decisions and baselines marked;
progress curves of search methods against their budget; plain tick labels on log axes.

The figures are drawn on a bare :class:`matplotlib.figure.Figure` with the Agg canvas, never through
``pyplot``, so plotting works without a display and leaves no global state behind.

Axis labels are words with units: a frontier's come from its problem family
(:meth:`mopt.core.family.Family.label`, e.g. ``"tail-phase makespan [s]"``), and log axes show
plain numbers (``2``, ``10``, ``1,000``, ``0.5``), never ``10^x`` (:func:`plain_log_ticks`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogFormatter, NullFormatter

from mopt.core.outputs import atomic_write

__all__ = ["plot_frontier", "plot_progress", "save_figure", "plain_log_ticks", "plain_number",
           "PlainLogFormatter", "method_label", "label_points"]

_CHOSEN_MARKERS = ("*", "D", "P", "X", "p", "h", "v", "<", ">")
_STATIC_MARKERS = ("s", "^", "v", "<", ">", "d", "p", "h", "8")


def _xy(row, x: str, y: str) -> tuple[float, float]:
    return float(row[x]), float(row[y])


def plain_number(value: float) -> str:
    """A tick value as a person writes it: thousands separated, no exponent, no trailing zeros.

    Examples
    --------
    >>> [plain_number(v) for v in (0.5, 2.0, 10.0, 1000.0, 2.5e6, 0.02, 0.30000000000000004, -40.0)]
    ['0.5', '2', '10', '1,000', '2,500,000', '0.02', '0.3', '-40']
    """
    value = float(f"{float(value):.10g}")  # drop floating-point noise (0.30000000000000004)
    if value == 0:
        return "0"
    if abs(value) >= 1:
        return f"{value:,.10g}"
    return np.format_float_positional(value, trim="-")


class PlainLogFormatter(LogFormatter):
    """Tick labels of a log axis as plain numbers (:func:`plain_number`) instead of ``10^x``.

    Which ticks get a label is :class:`matplotlib.ticker.LogFormatter`'s choice: the decades, and
    the minor ticks too (2, 3, 4, 6 or all) only when the axis spans few decades, so labels never
    crowd.
    """

    def __call__(self, x, pos=None):
        return plain_number(x) if super().__call__(x, pos) else ""


def plain_log_ticks(ax, axis: str = "both") -> None:
    """Give every log-scaled axis of ``ax`` (``"x"``, ``"y"`` or ``"both"``) plain tick labels
    (:class:`PlainLogFormatter`); linear axes are left alone. Call it after setting the scales.

    Examples
    --------
    >>> fig = Figure()
    >>> ax = fig.add_subplot()
    >>> ax.set_yscale("log")
    >>> _ = ax.set_ylim(1, 5000)
    >>> plain_log_ticks(ax)
    >>> ax.yaxis.get_major_formatter().format_ticks([1, 10, 100, 1000])
    ['1', '10', '100', '1,000']
    """
    axes = {"x": (ax.xaxis,), "y": (ax.yaxis,), "both": (ax.xaxis, ax.yaxis)}[axis]
    for a in axes:
        if a.get_scale() in ("log", "symlog"):
            a.set_major_formatter(PlainLogFormatter(labelOnlyBase=False))
            a.set_minor_formatter(PlainLogFormatter(labelOnlyBase=False))


#: offsets (points) tried in turn by :func:`label_points`: beside the point, then further out
_LABEL_OFFSETS = ((6, 3), (6, -3), (-6, 3), (-6, -3), (6, 12), (6, -12), (-6, 12), (-6, -12),
                  (14, 22), (14, -22), (-14, 22), (-14, -22), (0, 32), (0, -32))


def label_points(ax, xs, ys, texts, *, colors=None, fontsize: float = 8, avoid=None) -> list:
    """Write ``texts[i]`` beside the point ``(xs[i], ys[i])`` where it overlaps no label placed
    before it, no other labelled point, none of the points ``avoid`` (an ``(n, 2)`` array of data
    coordinates, e.g. every point drawn) and nothing outside the axes: the first of a few offsets
    that fits (the first one if none does). Call it once the layout is final (after
    ``tight_layout``), as it measures the texts on the canvas.

    Returns the :class:`matplotlib.text.Annotation` objects.
    """
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    points = ax.transData.transform(np.column_stack([np.asarray(xs, float), np.asarray(ys, float)]))
    extra = (ax.transData.transform(np.asarray(avoid, float)) if avoid is not None and len(avoid)
             else np.empty((0, 2)))
    placed, out = [], []
    colors = colors if colors is not None else ["black"] * len(texts)
    for k, (text, color) in enumerate(zip(texts, colors, strict=True)):
        others = np.concatenate([np.delete(points, k, axis=0), extra])
        for attempt, (dx, dy) in enumerate((*_LABEL_OFFSETS, _LABEL_OFFSETS[0])):
            note = ax.annotate(text, (xs[k], ys[k]), xytext=(dx, dy), textcoords="offset points",
                               fontsize=fontsize, color=color, ha="left" if dx >= 0 else "right",
                               va="bottom" if dy >= 0 else "top")
            if attempt == len(_LABEL_OFFSETS):
                break  # nowhere free: the first place
            box = note.get_window_extent(renderer)
            inside = (box.x0 >= frame.x0 and box.x1 <= frame.x1 and box.y0 >= frame.y0
                      and box.y1 <= frame.y1)
            clear = not any(box.overlaps(b) for b in placed) and not any(
                box.x0 - 3 <= px <= box.x1 + 3 and box.y0 - 3 <= py <= box.y1 + 3 for px, py in others)
            if inside and clear:
                break
            note.remove()
        placed.append(note.get_window_extent(renderer))
        out.append(note)
    return out


#: how search methods are named in legends (their ``mopt.solve`` names otherwise)
METHOD_LABELS = {
    "exhaustive": "exhaustive", "blind_pick": "blind pick", "oo": "OO", "ioo": "iOO", "eoo": "eOO",
    "eoo_ocba": "eOO + OCBA", "ocba": "OCBA", "mocba": "MOCBA", "nsga2": "NSGA-II",
}


def method_label(method: str) -> str:
    """A search method's name in a legend (``"nsga2"`` -> ``"NSGA-II"``).

    Examples
    --------
    >>> method_label("blind_pick"), method_label("my_method")
    ('blind pick', 'my_method')
    """
    return METHOD_LABELS.get(str(method), str(method))


def plot_frontier(
    evaluations: pd.DataFrame,
    front: pd.DataFrame,
    *,
    chosen: dict | None = None,
    statics: pd.DataFrame | None = None,
    sampled_alpha: float = 0.25,
    ax=None,
    title: str | None = None,
    caption: str | None = None,
    x: str = "makespan",
    y: str = "cost",
    xlabel: str | None = None,
    ylabel: str | None = None,
    xscale: str = "linear",
    yscale: str = "linear",
    family=None,
) -> Figure:
    """Draw sampled strategies, their Pareto frontier, chosen strategies and static baselines.

    Parameters
    ----------
    evaluations : DataFrame
        Every sampled strategy (columns ``x`` and ``y``), drawn as faint points.
    front : DataFrame
        The Pareto-efficient rows, drawn as a line with markers (the line is for the eye only:
        the frontier is discrete).
    chosen : dict of str to Series, optional
        Label (e.g. a utility) -> the row it chose, each a filled marker named in the legend (a row
        chosen by several labels gets one marker listing them all).
    statics : DataFrame, optional
        Baselines with columns ``name``, ``x`` and ``y``: hollow markers labelled with the name.
    sampled_alpha : float
        Opacity of the sampled strategies.
    ax : matplotlib Axes, optional
        Draw into this Axes (and return its Figure) instead of a new Figure.
    title, caption : str, optional
        Axes title; a small caption under the axes (scenario, seed, provenance of the inputs).
    x, y : str
        Column names of the horizontal and vertical objective.
    xlabel, ylabel : str, optional
        Axis labels; by default the family's label of ``x`` and ``y`` (words and unit, e.g.
        ``"tail-phase makespan [s]"``), or the column name without a family.
    xscale, yscale : str
        ``"linear"`` or ``"log"`` (a log axis gets plain tick labels, :func:`plain_log_ticks`).
    family : str or mopt.core.family.Family, optional
        The problem family whose objective labels name the axes (``"expert"``, ``"cloud"``, ...).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> ev = pd.DataFrame({"makespan": [1.0, 2.0, 3.0, 3.0], "cost": [3.0, 1.0, 0.5, 2.0]})
    >>> fig = plot_frontier(ev, ev.iloc[:3], chosen={"cheapest": ev.iloc[2]}, family="expert")
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('tail-phase makespan [s]', 'cost [cent/task]')
    """
    if family is not None and isinstance(family, str):
        from mopt.core.family import get_family

        family = get_family(family)
    if xlabel is None:
        xlabel = family.label(x) if family is not None else x
    if ylabel is None:
        ylabel = family.label(y) if family is not None else y
    noun = family.noun[0] if family is not None else "designs"  # what the family's designs are called
    if ax is None:
        fig = Figure(figsize=(7.5, 5.0), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)

    if len(evaluations):
        ax.scatter(evaluations[x], evaluations[y], s=12, color="0.45", alpha=sampled_alpha,
                   linewidths=0, label=f"sampled {noun} ({len(evaluations)})", zorder=1)
    if len(front):
        f = front.sort_values([x, y])
        ax.plot(f[x], f[y], "-o", color="C0", markersize=4, linewidth=1.4,
                label=f"Pareto frontier ({len(front)})", zorder=3)

    rows = statics.iterrows() if statics is not None else ()
    baselines = []  # (x, y, name, colour): labelled once the layout is known
    for k, (_, row) in enumerate(rows):  # baselines: hollow markers, labelled in place
        px, py = _xy(row, x, y)
        name, color = str(row["name"]), f"C{(k + 1) % 10}"
        ax.scatter([px], [py], marker=_STATIC_MARKERS[k % len(_STATIC_MARKERS)], s=46,
                   facecolors="none", edgecolors=color, linewidths=1.3, zorder=4)
        baselines.append((px, py, name, color))

    groups: dict[tuple[float, float], list[str]] = {}
    for label, row in (chosen or {}).items():
        groups.setdefault(_xy(row, x, y), []).append(str(label))
    for k, ((px, py), labels) in enumerate(groups.items()):  # decisions: filled markers in the legend
        ax.scatter([px], [py], marker=_CHOSEN_MARKERS[k % len(_CHOSEN_MARKERS)], s=110,
                   color=f"C{(k + 3) % 10}", edgecolors="black", linewidths=0.6, zorder=5,
                   label="; ".join(labels))

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    plain_log_ticks(ax)
    for axis in (ax.xaxis, ax.yaxis):  # linear axes: 10,000 rather than 10000 or 1e4
        if axis.get_scale() == "linear":
            axis.set_major_formatter(FuncFormatter(lambda v, _: plain_number(v)))
    if title:
        ax.set_title(title)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="best", framealpha=0.85)
    if baselines:  # labels placed on the final layout, clear of each other and of the points
        fig.canvas.draw()
        xs, ys, names, colors = zip(*baselines, strict=True)
        avoid = [(float(a), float(b)) for a, b in zip(evaluations[x], evaluations[y], strict=True)]
        label_points(ax, list(xs), list(ys), list(names), colors=list(colors), avoid=avoid)
    return fig


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


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` atomically (format from the suffix, PNG without one).

    A crash while rendering never leaves half a file behind: the figure is written to a temporary
    file in the same directory and moved into place.
    """
    path = Path(path)
    fmt = path.suffix[1:].lower() or "png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi))
    return path
