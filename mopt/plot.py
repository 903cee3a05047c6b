"""Figures: a Pareto frontier over the sampled strategies, with decisions and baselines marked.

The figures are drawn on a bare :class:`matplotlib.figure.Figure` with the Agg canvas, never through
``pyplot``, so plotting works without a display and leaves no global state behind.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from mopt.core.result import atomic_write

__all__ = ["plot_frontier", "save_figure"]

_CHOSEN_MARKERS = ("*", "D", "P", "X", "p", "h", "v", "<", ">")
_STATIC_MARKERS = ("s", "^", "v", "<", ">", "d", "p", "h", "8")


def _xy(row, x: str, y: str) -> tuple[float, float]:
    return float(row[x]), float(row[y])


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
    xlabel: str = "tail-phase makespan [s]",
    ylabel: str = "cost [cent/task]",
    xscale: str = "linear",
    yscale: str = "linear",
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
    xlabel, ylabel, xscale, yscale : str
        Axis labels and scales (``"linear"`` or ``"log"``).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> ev = pd.DataFrame({"makespan": [1.0, 2.0, 3.0, 3.0], "cost": [3.0, 1.0, 0.5, 2.0]})
    >>> fig = plot_frontier(ev, ev.iloc[:3], chosen={"cheapest": ev.iloc[2]})
    >>> fig.axes[0].get_xlabel()
    'tail-phase makespan [s]'
    """
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
                   linewidths=0, label=f"sampled strategies ({len(evaluations)})", zorder=1)
    if len(front):
        f = front.sort_values([x, y])
        ax.plot(f[x], f[y], "-o", color="C0", markersize=4, linewidth=1.4,
                label=f"Pareto frontier ({len(front)})", zorder=3)

    rows = statics.iterrows() if statics is not None else ()
    for k, (_, row) in enumerate(rows):  # baselines: hollow markers, labelled in place
        px, py = _xy(row, x, y)
        name, color = str(row["name"]), f"C{(k + 1) % 10}"
        ax.scatter([px], [py], marker=_STATIC_MARKERS[k % len(_STATIC_MARKERS)], s=46,
                   facecolors="none", edgecolors=color, linewidths=1.3, zorder=4)
        ax.annotate(name, (px, py), xytext=(6, 4 if k % 2 == 0 else -11), textcoords="offset points",
                    fontsize=8, color=color)

    groups: dict[tuple[float, float], list[str]] = {}
    for label, row in (chosen or {}).items():
        groups.setdefault(_xy(row, x, y), []).append(str(label))
    for k, ((px, py), labels) in enumerate(groups.items()):  # decisions: filled markers in the legend
        ax.scatter([px], [py], marker=_CHOSEN_MARKERS[k % len(_CHOSEN_MARKERS)], s=110,
                   color=f"C{(k + 3) % 10}", edgecolors="black", linewidths=0.6, zorder=5,
                   label="; ".join(labels))

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="best", framealpha=0.85)
    return fig


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: int = 150) -> Path:
    """Write ``fig`` to ``path`` atomically (format from the suffix, PNG without one).

    A crash while rendering never leaves half a file behind: the figure is written to a temporary
    file in the same directory and moved into place.
    """
    path = Path(path)
    fmt = path.suffix[1:].lower() or "png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi))
    return path
