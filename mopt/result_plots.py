"""Figures of a whole :class:`~mopt.core.result.Result`, every objective labelled by its family.

:func:`plot_result` (also :meth:`Result.plot <mopt.core.result.Result.plot>`) draws one panel for
two objectives and, for three or more, a matrix of pairwise panels (the lower triangle): every
evaluated design, coloured by its class's certified status (:meth:`Result.certified
<mopt.core.result.Result.certified>`) when the result has standard errors, the Pareto front
highlighted in every panel, and 95% confidence intervals as error bars. :func:`plot_parallel` draws
parallel coordinates: each design a line over its objectives, normalised to the range seen.

Objective names come from the result; labels and units from the problem's family (the ``family``
argument, else ``result.info["family"]``), or the names themselves when no family is known. Both
functions are re-exported by :mod:`mopt.plot`.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from mopt.core.classes import representatives
from mopt.core.errors import InputError
from mopt.plot import (
    CERTIFIED,
    P_NONDOMINATED,
    P_NONDOMINATED_LABEL,
    STATUS_COLOURS,
    STATUS_WORDS,
    axis_label,
    draw_chosen,
    draw_pair,
    interval_errors,
    objective_lows,
    p_nondominated_cmap,
    plain_number,
    plot_frontier,
    resolve_family,
    style_axes,
    with_status,
)

__all__ = ["plot_result", "plot_parallel"]


def _prepare(result, family, objectives, caption):
    """``(family, objectives, caption, evaluations, front)`` of a figure of ``result``: the
    family (argument or ``result.info``), the objectives drawn, the caption (default: the run's)."""
    from mopt.core.certified import certified_status

    caption = _caption(result) if caption is None else caption
    return (_family_of(result, family), _objectives(result, objectives), caption,
            with_status(representatives(result.evaluations), certified_status(result)), result.front)


def _family_of(result, family):
    """The family named by ``family``, else by ``result.info["family"]`` if installed, else None."""
    if family is not None:
        return resolve_family(family)
    name = (result.info or {}).get("family")
    if not isinstance(name, str):
        return None
    try:
        return resolve_family(name)
    except InputError:  # a result written by a family that is not installed here: plain names
        return None


def _objectives(result, objectives) -> list[str]:
    """The objectives to draw: ``objectives`` (checked against the result's), else all of them."""
    if objectives is None:
        return list(result.objectives)
    chosen = list(objectives)
    unknown = [o for o in chosen if o not in result.objectives]
    if unknown or not chosen or len(set(chosen)) != len(chosen):
        raise InputError(f"'objectives' must be distinct objectives of the result, one of "
                         f"{list(result.objectives)}; got {chosen!r}.")
    return chosen


def _uncertain(result) -> list:
    """The designs whose membership of the front is in doubt (``info["uncertainty"]["uncertain"]``)."""
    found = ((result.info or {}).get("uncertainty") or {}).get("uncertain") or []
    return list(found) if isinstance(found, list | tuple) else []


def _caption(result) -> str:
    return f"method {result.method}, {result.n_evals:,} replications, seed {result.seed}"


def plot_result(
    result,
    *,
    family=None,
    chosen: dict | None = None,
    ax=None,
    objectives: Sequence[str] | None = None,
    statics: pd.DataFrame | None = None,
    log: Sequence[str] = (),
    intervals: str | None = "front",
    title: str | None = None,
    caption: str | None = None,
) -> Figure:
    """The Pareto front of ``result`` among every evaluated design, with confidence intervals.

    Two objectives: one panel (:func:`mopt.plot.plot_frontier`). Three or more: a matrix of pairwise
    panels, the lower triangle (objective ``j`` across, objective ``i`` up, ``j < i``), axes shared by
    column and row and labelled once, at the left and at the bottom; the legend sits in the empty
    upper triangle. One objective: against the design index.

    In every panel: the evaluated designs, coloured by their class's certified status at 95 %
    (:meth:`Result.certified <mopt.core.result.Result.certified>`: certified efficient, undecided,
    certified dominated) when the result has standard errors (faint grey otherwise; no
    P(non-dominated), which is not a calibrated frequency); the front,
    highlighted (joined by a line when the result has two objectives only: a front on more
    objectives, seen on two, is no line); 95% confidence intervals as error bars, from
    ``<objective>_lo``/``<objective>_hi`` when present, else ±1.96 standard errors; the ``chosen``
    rows as filled markers named in the legend.

    Parameters
    ----------
    result : mopt.Result
    family : str or mopt.core.family.Family, optional
        The family whose labels and units name the axes; default ``result.info["family"]`` (when it
        is installed), else the objective names.
    chosen : dict of str to Series, optional
        Label (e.g. a utility) -> the row it chose (:meth:`Result.best <mopt.core.result.Result.best>`).
    ax : matplotlib Axes, optional
        Draw into this Axes (two objectives only, or one).
    objectives : sequence of str, optional
        The objectives to draw, in order (default: all of the result's).
    statics : DataFrame, optional
        Baselines (two objectives only): columns ``name`` and the objectives.
    log : sequence of str
        Objectives drawn on a log axis.
    intervals : {"front", "all", None}
        Whose intervals are drawn: the front's and those of the designs listed in
        ``result.info["uncertainty"]["uncertain"]``, every design's, or none.
    title, caption : str, optional
        A title; a small caption under the figure (default: the method, budget spent and seed).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import mopt
    >>> result = mopt.solve(mopt.NormalProblem([[1, 5, 2], [2, 2, 2], [5, 1, 3]], sd=0.5),
    ...                     "exhaustive", seed=1)
    >>> fig = plot_result(result)
    >>> [(ax.get_xlabel(), ax.get_ylabel()) for ax in fig.axes if ax.get_label() == "pair"]
    [('', 'f2'), ('f1', 'f3'), ('f2', '')]
    """
    fam, names, caption, ev, front = _prepare(result, family, objectives, caption)
    if len(names) <= 2:
        x, y = (names[0], names[1]) if len(names) == 2 else ("design", names[0])
        fig = plot_frontier(ev, front, chosen=chosen, statics=statics, ax=ax, title=title,
                            caption=caption or None, x=x, y=y, family=fam, intervals=intervals,
                            uncertain=_uncertain(result), line=len(result.objectives) <= 2,
                            xscale="log" if x in log else "linear",
                            yscale="log" if y in log else "linear")
        for panel in fig.axes:
            if panel.get_xlabel() or panel.get_ylabel():
                panel.set_label("pair")
                break
        return fig
    if ax is not None:
        raise InputError(f"'ax' draws one panel: pass 'objectives' (two of {names}) or no 'ax'; "
                         f"got {len(names)} objectives.")
    return _plot_matrix(result, fam, names, chosen=chosen, log=log, intervals=intervals,
                        title=title, caption=caption)


def _plot_matrix(result, family, names, *, chosen, log, intervals, title, caption) -> Figure:
    """The lower triangle of pairwise panels (see :func:`plot_result`)."""
    from mopt.core.certified import certified_status

    # a point per class of equivalent designs, coloured by its certified status
    ev = with_status(representatives(result.evaluations), certified_status(result))
    front = result.front
    n = len(names) - 1
    side = 2.9 * n + 1.4
    fig = Figure(figsize=(side + 0.9, side), layout="constrained")
    FigureCanvasAgg(fig)
    grid = fig.subplots(n, n, sharex="col", sharey="row", squeeze=False)
    noun = family.noun[0] if family is not None else "designs"
    mappable = None
    for i in range(n):
        for j in range(n):
            ax = grid[i, j]
            if j > i:
                ax.set_axis_off()
                ax.set_label("legend" if (i, j) == (0, n - 1) else "empty")
                continue
            x, y = names[j], names[i + 1]
            ax.set_label("pair")
            ax.set_xscale("log" if x in log else "linear")
            ax.set_yscale("log" if y in log else "linear")
            first = (i, j) == (0, 0)
            found = draw_pair(ax, ev, front, x, y, line=False, intervals=intervals,
                              uncertain=_uncertain(result), noun=noun, legend_labels=first,
                              lows=objective_lows(family, (x, y)))
            mappable = mappable if found is None else found
            draw_chosen(ax, chosen, x, y, legend_labels=first)
            style_axes(ax)
            ax.tick_params(labelsize=8)
            ax.set_xlabel(_wrap(axis_label(family, x)) if i == n - 1 else "")
            ax.set_ylabel(_wrap(axis_label(family, y)) if j == 0 else "")
    handles, labels = grid[0, 0].get_legend_handles_labels()
    if n > 1:  # the legend in the empty upper-right cell
        grid[0, n - 1].legend(handles, labels, loc="center", fontsize=8, frameon=False)
    else:
        grid[0, 0].legend(handles, labels, fontsize=7, loc="best", framealpha=0.85)
    if mappable is not None:
        fig.colorbar(mappable, ax=grid.ravel().tolist(), label=P_NONDOMINATED_LABEL, shrink=0.6)
    fig.align_labels()
    if title:
        fig.suptitle(title)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    return fig


def _wrap(label: str, width: int = 28) -> str:
    """An axis label on lines of at most ``width`` characters (long family labels, narrow panels)."""
    return textwrap.fill(label, width)


def plot_parallel(
    result,
    *,
    family=None,
    chosen: dict | None = None,
    ax=None,
    objectives: Sequence[str] | None = None,
    title: str | None = None,
    caption: str | None = None,
) -> Figure:
    """Parallel coordinates of ``result``: one vertical axis per objective, each evaluated design a
    line through its means, normalised per objective to the range seen (0 the lowest, i.e. the best,
    1 the highest; each axis is annotated with the real values at both ends). The front is drawn
    in colour over the other designs, with its 95% confidence intervals as error bars; every
    design's line is coloured by its class's certified status at 95 % when the result has
    standard errors (faint grey otherwise).

    Parameters are those of :func:`plot_result` (any number of objectives, two or more).

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import mopt
    >>> result = mopt.solve(mopt.NormalProblem([[1, 5, 2], [2, 2, 2], [5, 1, 3]], sd=0.5),
    ...                     "exhaustive", seed=1)
    >>> fig = plot_parallel(result)
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['f1', 'f2', 'f3']
    """
    fam, names, caption, ev, front = _prepare(result, family, objectives, caption)
    if len(names) < 2:
        raise InputError(f"plot_parallel needs two objectives or more; got {names!r}.")
    noun = fam.noun[0] if fam is not None else "designs"
    if ax is None:
        fig = Figure(figsize=(max(6.0, 2.3 * len(names) + 1.5), 4.8), layout="constrained")
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    values = ev[names].to_numpy(dtype=float)
    errors = [interval_errors(front, o) for o in names]  # the front's intervals, drawn as bars
    if len(ev):  # the range seen: every mean and the front's intervals
        low, high = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
        for k, err in enumerate(errors):
            if err is not None and len(front):
                means = front[names[k]].to_numpy(dtype=float)
                low[k] = min(low[k], np.nanmin(means - err[0]))
                high[k] = max(high[k], np.nanmax(means + err[1]))
    else:
        low, high = np.zeros(len(names)), np.ones(len(names))
    span = np.where(high > low, high - low, 1.0)

    def scaled(means):  # 0 the lowest seen, 1 the highest; an objective that never varies at 0.5
        return (np.asarray(means, dtype=float) - low) / span + np.where(high > low, 0.0, 0.5)

    xs = np.arange(len(names), dtype=float)
    by_status = CERTIFIED in ev.columns and ev[CERTIFIED].notna().any()
    shaded = not by_status and P_NONDOMINATED in ev.columns and ev[P_NONDOMINATED].notna().any()
    handles = []
    if len(ev):
        segments = [np.column_stack([xs, row]) for row in scaled(values)]
        lines = LineCollection(segments, linewidths=0.8, zorder=1)
        if by_status:  # each class by its certified status: no probability is drawn
            status = ev[CERTIFIED].to_numpy()
            lines.set_color([STATUS_COLOURS.get(v, "0.45") for v in status])
            lines.set_alpha(0.6)
            handles = [Line2D([], [], color=STATUS_COLOURS[v], lw=0.8, label=f"{STATUS_WORDS[v]} {noun} ({k})")
                       for v in STATUS_COLOURS if (k := int((status == v).sum()))]
        elif shaded:
            lines.set_array(ev[P_NONDOMINATED].to_numpy(dtype=float))
            lines.set_cmap(p_nondominated_cmap())
            lines.set_clim(0.0, 1.0)
        else:
            lines.set_color("0.45")
            lines.set_alpha(0.25)
        ax.add_collection(lines)
        if shaded:
            fig.colorbar(lines, ax=ax, label=P_NONDOMINATED_LABEL, shrink=0.9)
    handles = handles or [Line2D([], [], color="0.45" if not shaded else p_nondominated_cmap()(0.5), lw=0.8,
                                 label=f"evaluated {noun} ({len(ev)})")]
    if len(front):
        pts = scaled(front[names])
        for row in pts:
            ax.plot(xs, row, "-o", color="C0", lw=1.6, markersize=3.5, zorder=3)
        handles.append(Line2D([], [], color="C0", lw=1.6, marker="o", markersize=3.5,
                              label=f"Pareto frontier ({len(front)})"))
        for k, err in enumerate(errors):
            if err is not None:
                ax.errorbar(np.full(len(front), xs[k]), pts[:, k], yerr=err / span[k], fmt="none",
                            ecolor="C0", elinewidth=3.0, alpha=0.35, capsize=0, zorder=2)
        handles.append(Line2D([], [], color="C0", lw=3.0, alpha=0.35, label="95% confidence interval"))
    for k, (label, row) in enumerate((chosen or {}).items()):
        point = scaled([float(row[o]) for o in names])
        ax.plot(xs, point, "--", color=f"C{(k + 3) % 10}", lw=1.6, zorder=4)
        handles.append(Line2D([], [], color=f"C{(k + 3) % 10}", lw=1.6, ls="--", label=str(label)))
    for k in range(len(names)):  # the axes and their real values at both ends
        ax.axvline(xs[k], color="0.2", lw=0.8, zorder=0)
        for end, value, va in ((0.0, low[k], "top"), (1.0, high[k], "bottom")):
            ax.annotate(plain_number(float(f"{value:.4g}")), (xs[k], end), xytext=(0, -5 if end == 0 else 5),
                        textcoords="offset points", ha="center", va=va, fontsize=7, color="0.2",
                        bbox={"fc": "white", "ec": "none", "pad": 0.6}, zorder=6)
    ax.set_xlim(xs[0] - 0.25, xs[-1] + 0.25)
    ax.set_ylim(-0.1, 1.1)
    ax.set_xticks(xs, [_wrap(axis_label(fam, o), 22) for o in names], fontsize=8)
    ax.set_yticks([0.0, 0.5, 1.0], ["0 (lowest)", "0.5", "1 (highest)"], fontsize=8)
    ax.set_ylabel("objective, scaled to the range seen")
    ax.tick_params(axis="x", length=0)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if title:  # the axes' title, under the legend (a figure title would sit on it)
        ax.set_title(title)
    fig.legend(handles=handles, fontsize=7, loc="outside upper center", ncols=min(4, len(handles)),
               frameon=False)
    if caption:
        fig.supxlabel(caption, fontsize=7, color="0.3", wrap=True)
    return fig
