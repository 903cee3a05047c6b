"""What a figure marks on each design beside its means: its class's certified status (the
colours of :func:`mopt.plot.draw_pair` and the parallel coordinates) and the least value of each
objective (where intervals stop). Re-exported by :mod:`mopt.plot`."""

from __future__ import annotations

import pandas as pd

__all__ = ["CERTIFIED", "STATUS_COLOURS", "STATUS_WORDS", "with_status", "objective_lows"]

P_NONDOMINATED = "p_nondominated"
#: the column of a class's certified status (:meth:`Result.certified <mopt.core.result.Result.certified>`)
CERTIFIED = "certified"
#: status -> the colour of its designs in a figure, and the words of the legend
STATUS_COLOURS = {"efficient": "#1a9850", "undecided": "#4292c6", "dominated": "#bdbdbd"}
STATUS_WORDS = {"efficient": "certified efficient", "undecided": "undecided", "dominated": "certified dominated"}


def with_status(evaluations: pd.DataFrame, status) -> pd.DataFrame:
    """``evaluations`` with each design's certified status (``status``: a Series by class, or by
    design without a ``class`` column, as :func:`mopt.tables.certified_status` gives it) in a
    ``certified`` column and without ``p_nondominated``: a figure drawn from it colours the
    designs by their status (a guarantee) rather than by a probability that is not a calibrated
    frequency (the how-sure guide). ``status`` None: ``evaluations`` unchanged.

    Examples
    --------
    >>> ev = pd.DataFrame({"design": [0, 1], "p_nondominated": [0.9, 0.2]})
    >>> with_status(ev, pd.Series(["efficient", "undecided"], index=[0, 1])).columns.tolist()
    ['design', 'certified']
    """
    if status is None:
        return evaluations
    key = "class" if "class" in evaluations.columns else "design"
    out = evaluations.drop(columns=[P_NONDOMINATED], errors="ignore")
    return out.assign(**{CERTIFIED: status.reindex(out[key].to_numpy()).to_numpy()})


def objective_lows(family, objectives) -> dict:
    """Objective -> the least value it can take, for those of ``objectives`` whose ``family``
    (a :class:`~mopt.core.family.Family` or None) declares one (:attr:`Objective.low
    <mopt.core.family.Objective.low>`): intervals are cut there.

    Examples
    --------
    >>> from mopt.core.family import get_family
    >>> objective_lows(get_family("cloud"), ["bsd", "vm_hours", "x"])
    {'bsd': 1.0, 'vm_hours': 0.0}
    """
    if family is None:
        return {}
    found = {o: family.low(o) for o in objectives}
    return {o: float(v) for o, v in found.items() if v is not None}
