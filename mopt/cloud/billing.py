"""Hourly VM billing shared by the cloud simulator and KOALA-C (SC13/JSSPP spec §2, KOALA-C spec §1).

A VM leased at ``lease`` is charged per started hour: at time ``t`` it has paid
``billed_hours(t, lease)`` hours (at least one), up to ``paid_until(t, lease)``. An idle VM is
released at a scheduler tick close to that boundary; the two simulators differ only in how close
(:func:`release_due`): the cloud simulator releases a VM whose paid hour ends in ``[t, t + step)``
(JSSPP), KOALA-C one whose boundary is at most one tick away (``boundary - t <= step``; the spec's
"within one tick of its next billed hour", ours). Boot delays are each engine's own parameter (a VM
leased at ``t`` is ready at ``t + boot``). The functions are compiled (Numba) and called from both
engines' loops; the plain-Python reference models in ``benchmarks/`` restate the rules on their own.

Examples
--------
>>> billed_hours(100.0, 100.0), billed_hours(3700.0, 100.0), billed_hours(3701.0, 100.0)
(1.0, 1.0, 2.0)
>>> paid_until(3701.0, 100.0)
7300.0
>>> release_due(3690.0, 100.0, 30.0, True), release_due(3690.0, 100.0, 30.0, False)  # ends at 3700
(True, True)
>>> release_due(3670.0, 100.0, 30.0, True), release_due(3670.0, 100.0, 30.0, False)  # exactly a tick away
(True, False)
"""

from __future__ import annotations

import math

from numba import njit

__all__ = ["HOUR", "billed_hours", "paid_until", "release_due"]

#: seconds in a billed hour
HOUR = 3600.0


@njit(cache=True)
def billed_hours(t: float, lease: float) -> float:
    """Started hours of a VM leased at ``lease``, at time ``t`` (at least 1)."""
    return max(1.0, math.ceil((t - lease) / HOUR))


@njit(cache=True)
def paid_until(t: float, lease: float) -> float:
    """The end of the last started (paid) hour at time ``t``: ``lease + billed_hours · 3600``."""
    return lease + billed_hours(t, lease) * HOUR


@njit(cache=True)
def release_due(t: float, lease: float, step: float, within_tick: bool) -> bool:
    """Whether an idle VM is released at tick ``t``: its paid hour ends in ``[t, t + step)``
    (cloud simulator), or with ``within_tick`` at most ``step`` after ``t`` (KOALA-C)."""
    boundary = paid_until(t, lease)
    if within_tick:
        return boundary - t <= step
    return boundary < t + step
