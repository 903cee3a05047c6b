"""The words and numbers on a figure: tick labels as a person writes numbers (``1,000``, ``0.5``,
never ``10^x``: :func:`plain_number`, :func:`plain_log_ticks`) and labels placed beside their
points, clear of each other and of the points drawn (:func:`label_points`). Used by every figure of
:mod:`mopt.plot` and its siblings."""

from __future__ import annotations

import numpy as np
from matplotlib.ticker import LogFormatter

__all__ = ["plain_number", "PlainLogFormatter", "plain_log_ticks", "label_points"]


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
    >>> from matplotlib.figure import Figure
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
    that fits (the first one if none does). Call it once the layout is final
    (:func:`mopt.plot.settle_layout`), as it measures the texts on the canvas.

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
