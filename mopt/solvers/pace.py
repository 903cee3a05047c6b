"""How long a run will take, told before it starts (ours): a short pilot of the run's own first
replications, timed, and the whole budget projected at that pace.

The memory a run needs follows from its sizes alone (:func:`mopt.core.problem.check_replications`);
its time does not, so it is measured: :func:`pilot` simulates a few of the design × replication
pairs the method asks for first (the same pairs with the same seed, so the run's values do not
change; they are simulated again by the run), once to warm up (a compiled simulator compiles
then) and then in doubling batches until about :data:`PILOT_SECONDS` have passed. The budget at
that pace, over the workers of the executor, is the estimate. It is rough: the first designs
stand for all (a method that moves to slower designs takes longer) and batches of a vectorised
simulator get cheaper per replication as they grow (the estimate then errs long).

``MOPT_MAX_TIME`` (seconds, or with ``s``, ``m``, ``h``, ``d``) bounds a run: one estimated to
take longer is refused before it starts, naming 'budget' (or 'n_reps') and the largest value
that fits. ``mopt frontier SCENARIO --estimate`` prints the estimate and runs nothing; Python:
:func:`mopt.solvers.estimate.estimate`. Without the variable and without ``--estimate`` no pilot runs (it costs
nothing then).
"""

from __future__ import annotations

import math
import os
import time

import numpy as np

from mopt.core.errors import InputError

__all__ = ["TIME_VAR", "PILOT_SECONDS", "max_seconds", "parse_duration", "format_duration", "pilot",
           "check_run_time", "estimated"]

#: the environment variable that bounds a run's time
TIME_VAR = "MOPT_MAX_TIME"
#: seconds of timed simulation in a pilot (after its warm-up call)
PILOT_SECONDS = 0.25
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str, name: str = TIME_VAR) -> float:
    """Seconds of a duration written ``90``, ``90s``, ``30m``, ``2h`` or ``1.5d``.

    Examples
    --------
    >>> parse_duration("90"), parse_duration("30m"), parse_duration("1.5h")
    (90.0, 1800.0, 5400.0)
    >>> parse_duration("soon")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: MOPT_MAX_TIME must be a positive duration (seconds, or with s, m, h or d, e.g. 30m); got 'soon'.
    """
    raw = str(text).strip().lower()
    unit = raw[-1] if raw and raw[-1] in _UNITS else ""
    try:
        value = float(raw[: len(raw) - len(unit)])
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"{name} must be a positive duration (seconds, or with s, m, h or d, e.g. 30m); "
                         f"got {text!r}.")
    return value * _UNITS[unit]


def max_seconds() -> float | None:
    """The seconds a run may take (``MOPT_MAX_TIME``), or None when it is not set."""
    text = os.environ.get(TIME_VAR, "").strip()
    return parse_duration(text) if text else None


def format_duration(seconds: float) -> str:
    """A duration for people: ``under 0.1 s``, ``0.4 s``, ``12 s``, ``3.2 min``, ``5.1 h``, ``2.0 days``.

    Examples
    --------
    >>> format_duration(0.42), format_duration(12.3), format_duration(192), format_duration(18360)
    ('0.4 s', '12 s', '3.2 min', '5.1 h')
    """
    if seconds < 0.05:
        return "under 0.1 s"
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.1f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:,.1f} days"


def _pairs(plan, count: int):
    """The first ``count`` design × replication pairs of ``plan`` as (indices, reps) of one batch:
    a block of the largest group, designs first."""
    idx, reps = max(plan, key=lambda g: len(g[0]) * len(g[1]))
    n_designs = min(len(idx), count)
    n_reps = min(len(reps), max(1, count // n_designs))
    return np.asarray(idx[:n_designs]), np.asarray(reps[:n_reps])


def pilot(problem, plan, entropy: int, *, seconds: float = PILOT_SECONDS) -> tuple[float, int]:
    """Seconds per design × replication pair of ``problem``, timed on the first pairs of ``plan``
    (a list of ``(indices, reps)``, as a method asks for them); returns (seconds, pairs timed)."""
    available = max(len(i) * len(r) for i, r in plan)
    problem.replicate(*_pairs(plan, 1), entropy)  # warm-up: a compiled simulator compiles here
    count, spent, timed, discarded = 1, 0.0, 0, 0
    with _Compilations() as compilations:
        while True:
            idx, reps = _pairs(plan, count)
            before = compilations.count
            start = time.perf_counter()
            problem.replicate(idx, reps, entropy)
            took = time.perf_counter() - start
            if compilations.count > before and discarded < MAX_DISCARDED:
                discarded += 1  # a kernel compiled in this call (one the warm-up did not reach):
                continue  # its time is not the simulation's; the same call again
            spent += took
            timed += len(idx) * len(reps)
            if spent >= seconds or count >= available:
                return spent / timed, timed
            count = min(available, count * 2)


#: timed calls of a pilot discarded at most because a kernel compiled during them
MAX_DISCARDED = 8


class _Compilations:
    """Counts numba's compilations while open (none counted, and nothing imported, where numba is
    not loaded): a pilot call during which a kernel compiled — a simulator's later kernels, e.g.
    the portfolio's online simulations, compile on their first use, after the warm-up — is timed
    again (on a cold cache one such call made an estimate 4x too long: 99.6 min for 23 s)."""

    def __init__(self):
        self.count = 0
        self._installed = None

    def __enter__(self):
        import sys

        numba = sys.modules.get("numba")
        if numba is not None:
            from numba.core import event

            outer = self

            class _Counter(event.Listener):
                def on_start(self, ev):
                    outer.count += 1

                def on_end(self, ev):
                    pass

            self._installed = event.install_listener("numba:compile", _Counter())
            self._installed.__enter__()
        return self

    def __exit__(self, *exc):
        if self._installed is not None:
            self._installed.__exit__(*exc)
            self._installed = None


def _option(solver, problem, budget: int, given: bool) -> tuple[str, int, float]:
    """(the option that sets the budget, its value, replications per unit of it)."""
    n_reps = solver.options.get("n_reps") if isinstance(getattr(solver, "options", None), dict) else None
    n_reps = getattr(problem, "n_reps", None) if n_reps is None else n_reps
    if given or not isinstance(n_reps, (int, np.integer)) or isinstance(n_reps, bool) or n_reps < 1:
        return "budget", int(budget), 1.0
    return "n_reps", int(n_reps), budget / int(n_reps)


def check_run_time(problem, solver, budget: int, given: bool, plan, entropy: int, workers: int = 1, *,
                   held: int = 0, limit: float | None = None) -> dict | None:
    """With ``MOPT_MAX_TIME`` set (or ``limit`` given), time a pilot of ``plan`` and refuse a run of
    ``budget`` replications (``held`` of them already in its journal) projected to take longer,
    naming the option that sets the budget and its largest value that fits; returns the estimate
    (None when nothing bounds the time)."""
    limit = max_seconds() if limit is None else limit
    if limit is None or not plan:
        return None
    held = min(max(0, int(held)), budget)
    figures = estimated(problem, budget - held, plan, entropy, workers)
    if figures["seconds"] <= limit:
        return figures
    option, value, per_unit = _option(solver, problem, budget, given)
    fits = held + limit * max(1, workers) / figures["seconds_per_replication"]
    largest = max(0, int(fits // per_unit))
    source = TIME_VAR if os.environ.get(TIME_VAR, "").strip() else "the limit"
    raise InputError(f"'{option}' = {value:,} would take about {format_duration(figures['seconds'])} "
                     f"({_pace(figures)}); {source} is {format_duration(limit)}: at most '{option}' = {largest:,}.")


def _pace(figures: dict) -> str:
    per = figures["seconds_per_replication"]
    each = f"{per * 1e3:.3g} ms" if per < 1 else f"{per:.3g} s"
    w = figures["workers"]
    return (f"{each} a replication, timed on {figures['timed']:,} of them"
            + (f", over {w} workers" if w > 1 else ""))


def estimated(problem, budget: int, plan, entropy: int, workers: int) -> dict:
    per, timed = pilot(problem, plan, entropy)
    workers = max(1, int(workers))
    return {"replications": int(budget), "seconds_per_replication": per, "timed": int(timed),
            "workers": workers, "seconds": budget * per / workers}
