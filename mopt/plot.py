"""Figures: a Pareto frontier over the sampled designs, with confidence intervals, P(non-dominated),
decisions and baselines marked; progress curves of search methods against their budget; plain tick
labels on log axes. The figures of a whole :class:`~mopt.core.result.Result` (every objective: a
matrix of pairwise panels, parallel coordinates) are in :mod:`mopt.result_plots`
(:func:`~mopt.result_plots.plot_result`, :func:`~mopt.result_plots.plot_parallel`); the progress
curves of a comparison in :mod:`mopt.progress_plot`.

The figures are drawn on a bare :class:`matplotlib.figure.Figure` with the Agg canvas, never through
``pyplot``, so plotting works without a display and leaves no global state behind.

Axis labels are words with units: a frontier's come from its problem family
(:meth:`mopt.core.family.Family.label`, e.g. ``"charged VM-hours [h]"``), or are the column names
without one; no family is assumed. Log axes show plain numbers (``2``, ``10``, ``1,000``, ``0.5``),
never ``10^x`` (:func:`plain_log_ticks`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.ticker import FuncFormatter

from mopt.core.moved import moved_names
from mopt.core.set_writer import atomic_write
from mopt.plot_status import CERTIFIED, STATUS_COLOURS, STATUS_WORDS, objective_lows, with_status  # noqa: F401 - re-exported
from mopt.plot_text import PlainLogFormatter, label_points, plain_log_ticks, plain_number  # noqa: F401 - re-exported

__all__ = ["plot_frontier", "save_figure", "plain_log_ticks", "plain_number", "PlainLogFormatter", "method_label", "label_points",
           "objective_columns", "interval_errors", "P_NONDOMINATED", "p_nondominated_cmap", "CERTIFIED",
           "with_status", "objective_lows"]

#: the column of ``Result.evaluations`` that holds each design's probability of being non-dominated
P_NONDOMINATED = "p_nondominated"
#: its colorbar's label
P_NONDOMINATED_LABEL = "P(non-dominated)"


def p_nondominated_cmap():
    """The colormap of P(non-dominated): pale green for designs surely dominated (still visible on
    white), dark blue for designs surely on the front (the upper three quarters of ``YlGnBu``)."""
    from matplotlib import colormaps
    from matplotlib.colors import ListedColormap

    return ListedColormap(colormaps["YlGnBu"](np.linspace(0.25, 1.0, 256)), name="p_nondominated")


#: the resolution figures are drawn and saved at (dots per inch): one size for layout and file, so the
#: texts are measured once
SAVE_DPI = 150


def settle_layout(fig: Figure) -> None:
    """Lay ``fig`` out once, now, and keep that layout: what is added next (labels placed on the final
    layout, :func:`label_points`) is drawn where it was placed, and saving the figure neither draws it
    an extra time nor moves the axes (the layout engine, e.g. constrained, is run once, not per draw:
    a frontier with labelled baselines is drawn once where it was drawn three times, 1.2 s -> 0.5 s
    on the demo's first figure).

    With ``rcParams["figure.constrained_layout.use"]`` (or ``figure.autolayout``) set, the figure
    keeps that engine and is laid out again when saved."""
    engine = fig.get_layout_engine()
    if engine is not None and not isinstance(engine, PlaceHolderLayoutEngine):
        engine.execute(fig)
    fig.set_layout_engine(None)  # no engine (not 'none'), so savefig draws once, not twice


_CHOSEN_MARKERS = ("*", "D", "P", "X", "p", "h", "v", "<", ">")
_STATIC_MARKERS = ("s", "^", "v", "<", ">", "d", "p", "h", "8")


def _xy(row, x: str, y: str) -> tuple[float, float]:
    return float(row[x]), float(row[y])


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


def resolve_family(family):
    """The :class:`~mopt.core.family.Family` that ``family`` names (a name, a Family, or None)."""
    if family is None or not isinstance(family, str):
        return family
    from mopt.core.family import get_family

    return get_family(family)


def axis_label(family, name: str) -> str:
    """The axis label of column ``name``: the family's words and unit, else the column name."""
    if name == "design":
        return "design (index)"
    return family.label(name) if family is not None else name


def objective_columns(df: pd.DataFrame) -> list[str]:
    """The objectives of an ``evaluations`` table, in order: the columns ``c`` that have a standard
    error column ``c_se`` beside them (how :func:`mopt.core.result.summarise` lays them out).

    Examples
    --------
    >>> objective_columns(pd.DataFrame(columns=["design", "N", "time", "time_se", "vms", "vms_se"]))
    ['time', 'vms']
    """
    return [c for c in df.columns if f"{c}_se" in df.columns]


def interval_errors(df: pd.DataFrame, name: str, z: float = 1.96, low: float | None = None) -> np.ndarray | None:
    """The confidence interval of objective ``name`` in every row of ``df`` as errors below and above
    the mean, shape ``(2, len(df))`` (what ``Axes.errorbar`` takes): from the columns
    ``<name>_lo`` and ``<name>_hi`` when both are present, else mean ± ``z`` standard errors
    (``<name>_se``); None when ``df`` has neither. A missing bound (NaN, e.g. one replication)
    draws no bar; ``low``, the least value the objective can take (:attr:`Objective.low
    <mopt.core.family.Objective.low>`, e.g. 1 for a slowdown), cuts the bar there.

    Examples
    --------
    >>> df = pd.DataFrame({"t": [10.0, 20.0], "t_se": [1.0, 0.5], "t_lo": [9.0, 18.0], "t_hi": [12.0, 21.0]})
    >>> interval_errors(df, "t").tolist()
    [[1.0, 2.0], [2.0, 1.0]]
    >>> interval_errors(df.drop(columns=["t_lo", "t_hi"]), "t", z=2.0).tolist()
    [[2.0, 1.0], [2.0, 1.0]]
    >>> interval_errors(df, "design") is None
    True
    >>> interval_errors(df, "t", low=9.5).tolist()  # nothing below 9.5
    [[0.5, 2.0], [2.0, 1.0]]
    """
    if name not in df.columns:
        return None
    mean = df[name].to_numpy(dtype=float)
    if f"{name}_lo" in df.columns and f"{name}_hi" in df.columns:
        lo, hi = df[f"{name}_lo"].to_numpy(dtype=float), df[f"{name}_hi"].to_numpy(dtype=float)
        below, above = mean - lo, hi - mean
    elif f"{name}_se" in df.columns:
        below = above = z * df[f"{name}_se"].to_numpy(dtype=float)
    else:
        return None
    if low is not None:
        below = np.minimum(below, mean - float(low))
    errors = np.vstack([below, above])
    errors[~np.isfinite(errors)] = 0.0
    return np.clip(errors, 0.0, None)


def _bar_rows(evaluations: pd.DataFrame, front: pd.DataFrame, intervals: str | None, uncertain) -> pd.DataFrame:
    """The rows that get confidence intervals: none, all, or the front and the ``uncertain`` designs."""
    if intervals is None or intervals == "none":
        return evaluations.iloc[:0]
    if intervals == "all":
        return evaluations
    if intervals != "front":
        from mopt.core.errors import InputError

        raise InputError(f"'intervals' must be one of 'front', 'all', None; got {intervals!r}.")
    extra = (evaluations[evaluations["design"].isin(list(uncertain))]
             if len(uncertain) and "design" in evaluations.columns else evaluations.iloc[:0])
    if "design" in front.columns and len(extra):
        extra = extra[~extra["design"].isin(front["design"])]
    return pd.concat([front, extra]) if len(extra) else front


def draw_pair(ax, evaluations: pd.DataFrame, front: pd.DataFrame, x: str, y: str, *,
              line: bool = True, intervals: str | None = "front", uncertain=(),
              sampled_alpha: float = 0.25, noun: str = "designs", legend_labels: bool = True,
              lows: dict | None = None):
    """Draw one panel of objectives ``x`` against ``y`` into ``ax``: every evaluated design
    (coloured by its certified status when ``evaluations`` has the column ``certified``, see
    :func:`with_status`; else shaded by P(non-dominated) when it has that column; faint grey
    otherwise), the front
    (highlighted markers, joined by a line if ``line``: the line is for the eye only, the frontier
    is discrete) and confidence intervals (:func:`interval_errors`) of the rows ``intervals``
    selects (``"front"``: the front and the designs listed in ``uncertain``; ``"all"``; None),
    cut at the objectives' least values ``lows`` (objective -> value; :func:`objective_lows`).

    Returns the scatter of the evaluated designs when it is shaded (for a colorbar), else None.
    """
    by_status = CERTIFIED in evaluations.columns and evaluations[CERTIFIED].notna().any()
    shaded = not by_status and P_NONDOMINATED in evaluations.columns and evaluations[P_NONDOMINATED].notna().any()
    label = (lambda text: text) if legend_labels else (lambda text: "_nolegend_")
    mappable = None
    if len(evaluations):
        if by_status:  # each class by its certified status (95 %): no probability is drawn
            for status, colour in STATUS_COLOURS.items():
                rows = evaluations[evaluations[CERTIFIED] == status]
                if len(rows):
                    ax.scatter(rows[x], rows[y], s=16, color=colour, edgecolors="0.35", linewidths=0.3,
                               zorder=1, label=label(f"{STATUS_WORDS[status]} {noun} ({counted(rows)})"))
        elif shaded:
            mappable = ax.scatter(evaluations[x], evaluations[y], c=evaluations[P_NONDOMINATED],
                                  cmap=p_nondominated_cmap(), vmin=0.0, vmax=1.0, s=16,
                                  edgecolors="0.55", linewidths=0.3, zorder=1,
                                  label=label(f"evaluated {noun} ({counted(evaluations)})"))
        else:
            ax.scatter(evaluations[x], evaluations[y], s=12, color="0.45", alpha=sampled_alpha,
                       linewidths=0, label=label(f"evaluated {noun} ({counted(evaluations)})"), zorder=1)
    color = "black" if shaded or by_status else "C0"  # the front: black rings around coloured points, else blue
    bars = _bar_rows(evaluations, front, intervals, uncertain)
    lows = lows or {}
    xerr, yerr = interval_errors(bars, x, low=lows.get(x)), interval_errors(bars, y, low=lows.get(y))
    if len(bars) and (xerr is not None or yerr is not None):
        ax.errorbar(bars[x], bars[y], xerr=xerr, yerr=yerr, fmt="none", ecolor=color, elinewidth=0.7,
                    alpha=0.4, capsize=0, zorder=2,
                    label=label("95% confidence interval"))
    if len(front):
        f = front.sort_values([x, y])
        ax.plot(f[x], f[y], "-o" if line else "o", color=color, linewidth=1.0 if shaded else 1.4,
                markersize=7 if shaded else 4.5, markerfacecolor="none" if shaded else color,
                markeredgewidth=1.1, label=label(f"Pareto frontier ({len(front)})"), zorder=3)
    return mappable


def style_axes(ax) -> None:
    """Plain tick labels (log axes: :func:`plain_log_ticks`; linear: ``10,000``) and a light grid."""
    plain_log_ticks(ax)
    for axis in (ax.xaxis, ax.yaxis):  # linear axes: 10,000 rather than 10000 or 1e4
        if axis.get_scale() == "linear":
            axis.set_major_formatter(FuncFormatter(lambda v, _: plain_number(v)))
    ax.grid(True, which="major", alpha=0.3)


def counted(rows: pd.DataFrame) -> str:
    """How many designs ``rows`` stand for, as a legend says it: ``"254 in 168 classes"`` when they
    are classes of equivalent designs (an ``n_designs`` column, as
    :func:`mopt.core.classes.representatives` gives), else the number of rows.

    Examples
    --------
    >>> counted(pd.DataFrame({"n_designs": [1, 3]})), counted(pd.DataFrame({"x": [1, 2]}))
    ('4 in 2 classes', '2')
    """
    if "n_designs" in rows.columns and len(rows):
        total = int(rows["n_designs"].sum())
        if total != len(rows):
            return f"{total:,} in {len(rows):,} class{'es' * (len(rows) > 1)}"
    return f"{len(rows):,}"


def draw_chosen(ax, chosen: dict | None, x: str, y: str, *, legend_labels: bool = True) -> None:
    """Filled markers for the rows ``chosen`` (label -> row); a row chosen by several labels gets one
    marker listing them all."""
    groups: dict[tuple[float, float], list[str]] = {}
    for label, row in (chosen or {}).items():
        groups.setdefault(_xy(row, x, y), []).append(str(label))
    for k, ((px, py), labels) in enumerate(groups.items()):  # decisions: filled markers in the legend
        ax.scatter([px], [py], marker=_CHOSEN_MARKERS[k % len(_CHOSEN_MARKERS)], s=110,
                   color=f"C{(k + 3) % 10}", edgecolors="black", linewidths=0.6, zorder=5,
                   label="; ".join(labels) if legend_labels else "_nolegend_")


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
    x: str | None = None,
    y: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    xscale: str = "linear",
    yscale: str = "linear",
    family=None,
    intervals: str | None = "front",
    uncertain=(),
    line: bool = True,
) -> Figure:
    """Draw the evaluated designs, their Pareto frontier with confidence intervals, chosen designs and
    static baselines, on two objectives.

    Parameters
    ----------
    evaluations : DataFrame
        Every sampled design (columns ``x`` and ``y``), drawn as faint points, or shaded by
        P(non-dominated) with a colorbar when the table has the column ``p_nondominated``.
    front : DataFrame
        The Pareto-efficient rows, drawn as a line with markers (the line is for the eye only:
        the frontier is discrete).
    chosen : dict of str to Series, optional
        Label (e.g. a utility) -> the row it chose, each a filled marker named in the legend (a row
        chosen by several labels gets one marker listing them all).
    statics : DataFrame, optional
        Baselines with columns ``name``, ``x`` and ``y``: hollow markers labelled with the name.
    sampled_alpha : float
        Opacity of the sampled designs (when not shaded by P(non-dominated)).
    ax : matplotlib Axes, optional
        Draw into this Axes (and return its Figure) instead of a new Figure.
    title, caption : str, optional
        Axes title; a small caption under the axes (scenario, seed, provenance of the inputs).
    x, y : str, optional
        Column names of the horizontal and vertical objective; by default the first two objectives
        of ``evaluations`` (:func:`objective_columns`).
    xlabel, ylabel : str, optional
        Axis labels; by default the family's label of ``x`` and ``y`` (words and unit, e.g.
        ``"charged VM-hours [h]"``), or the column name without a family.
    xscale, yscale : str
        ``"linear"`` or ``"log"`` (a log axis gets plain tick labels, :func:`plain_log_ticks`).
    family : str or mopt.core.family.Family, optional
        The problem family whose objective labels name the axes (``"cloud"``, ``"koala"``, ...).
    intervals : {"front", "all", None}
        Whose 95% confidence intervals are drawn as error bars (:func:`interval_errors`): the
        front's and those of the designs in ``uncertain``, every design's, or none.
    uncertain : sequence of int
        Design indices (column ``design``) whose intervals are drawn too with ``"front"``.
    line : bool
        Join the front's points by a line (only meaningful when ``front`` is the front on ``x``
        and ``y`` alone, not the projection of a front on more objectives).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import pandas as pd
    >>> ev = pd.DataFrame({"design": range(4), "bsd": [1.0, 2.0, 3.0, 3.0], "bsd_se": 0.1,
    ...                    "vm_hours": [3.0, 1.0, 0.5, 2.0], "vm_hours_se": 0.05})
    >>> fig = plot_frontier(ev, ev.iloc[:3], chosen={"cheapest": ev.iloc[2]}, family="cloud")
    >>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    ('mean bounded slowdown', 'charged VM-hours [h]')
    >>> len(fig.axes[0].containers)  # the front's error bars
    1
    """
    family = resolve_family(family)
    if x is None or y is None:
        found = [c for c in objective_columns(evaluations) if c not in (x, y)]
        if len(found) < (x is None) + (y is None):
            from mopt.core.errors import InputError

            raise InputError("plot_frontier needs 'x' and 'y' (column names): 'evaluations' has fewer "
                             f"than two objective columns (a column c with c_se); got {list(evaluations.columns)}.")
        x = x if x is not None else found.pop(0)
        y = y if y is not None else found.pop(0)
    xlabel = axis_label(family, x) if xlabel is None else xlabel
    ylabel = axis_label(family, y) if ylabel is None else ylabel
    noun = family.noun[0] if family is not None else "designs"  # what the family's designs are called
    if ax is None:
        fig = Figure(figsize=(7.5, 5.0), dpi=SAVE_DPI, layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    ax.set_xscale(xscale)
    ax.set_yscale(yscale)

    mappable = draw_pair(ax, evaluations, front, x, y, line=line, intervals=intervals,
                         uncertain=uncertain, sampled_alpha=sampled_alpha, noun=noun,
                         lows=objective_lows(family, (x, y)))

    rows = statics.iterrows() if statics is not None else ()
    baselines = []  # (x, y, name, colour): labelled once the layout is known
    for k, (_, row) in enumerate(rows):  # baselines: hollow markers, labelled in place
        px, py = _xy(row, x, y)
        name, color = str(row["name"]), f"C{(k + 1) % 10}"
        ax.scatter([px], [py], marker=_STATIC_MARKERS[k % len(_STATIC_MARKERS)], s=46,
                   facecolors="none", edgecolors=color, linewidths=1.3, zorder=4)
        baselines.append((px, py, name, color))
    draw_chosen(ax, chosen, x, y)

    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    style_axes(ax)
    if title:
        ax.set_title(title)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    ax.legend(fontsize=7, loc="best", framealpha=0.85)
    if mappable is not None:
        fig.colorbar(mappable, ax=ax, label=P_NONDOMINATED_LABEL, shrink=0.9)
    if baselines:  # labels placed on the final layout, clear of each other and of the points
        settle_layout(fig)
        xs, ys, names, colors = zip(*baselines, strict=True)
        avoid = [(float(a), float(b)) for a, b in zip(evaluations[x], evaluations[y], strict=True)]
        label_points(ax, list(xs), list(ys), list(names), colors=list(colors), avoid=avoid)
    return fig


def save_figure(fig: Figure, path: str | os.PathLike, *, dpi: int = SAVE_DPI) -> Path:
    """Write ``fig`` to ``path`` atomically (format from the suffix, PNG without one).

    A crash while rendering never leaves half a file behind: the figure is written to a temporary
    file in the same directory and moved into place.
    """
    path = Path(path)
    fmt = path.suffix[1:].lower() or "png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=dpi))
    return path


__getattr__ = moved_names(__name__, {"plot_progress": "mopt.progress_plot.plot_progress"})
