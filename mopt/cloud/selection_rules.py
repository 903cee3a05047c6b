"""Selection rules of the portfolio scheduler: the papers' (``"sc13"``) and mopt's own (``"mopt"``).

A rule decides, at a tick where a selection is due (spec §6), whether to select at all, which
policies to score besides those SC13's Algorithm 1 plans, how to score them, and which one to
apply. :func:`mopt.cloud.portfolio_scheduler.simulate_portfolio` takes ``selection="sc13"`` or
``"mopt"`` (or a rule object); the event loop never knows which rule runs.

``"sc13"`` (:class:`Sc13Rule`): the papers' rule exactly (spec §6): select on every due tick, score
Algorithm 1's planned policies with the window utility (no arrivals, every VM charged up to its
next hourly boundary), apply the best.

``"mopt"`` (:class:`MoptRule`, ours, beyond the papers; spec §6 says why the papers' rule loses):

- *prorated lease charge*: a window charges each VM still leased at its end only up to that end,
  not to its next hourly boundary (later jobs would use the rest of the hour);
- *forecast* (``samples`` > 0): each window also receives sampled future arrivals, the jobs
  submitted over the last ``lookback`` seconds resampled (:func:`sample_futures`); the score is
  the mean U over the samples, the same samples for every candidate (common random numbers);
- *hysteresis*: the incumbent is always scored (one simulation over Δ when Algorithm 1 did not
  plan it) and kept unless the best challenger's score exceeds its score by more than
  ``hysteresis`` (a fraction);
- *selections on events only*: a due tick selects only if a job arrived or finished since the last
  selection. Between such events the candidates' windows hold the same jobs and differ only by the
  time elapsed (booting VMs becoming ready, waits growing, paid hours running out), so the
  choice seldom changes, but it can: this is a saving, not an exact shortcut. Measured on the
  first halves with a shortlist of 5 over 30 d (``figures/portfolio_mopt_tuning.md``): KTH-SP2
  −1.07 % against −1.34 % when selecting on every due tick, SDSC-SP2 −0.36 % against −0.33 %,
  for a third and a quarter of the selections;
- *shortlist by shadow runs* (SC13's "reflection"): every constituent also runs alone beside the
  real run (:class:`~mopt.cloud.shadows.Shadows`); a selection simulates only the ``shortlist``
  constituents whose own runs had the highest U over the last ``reflect`` seconds, and the
  incumbent.
"""

from __future__ import annotations

import numpy as np

from mopt.cloud import engine as E
from mopt.cloud.online import forecast_scores, online_scores
from mopt.cloud.shadows import Shadows
from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import suggest
from mopt.core.random import resolve_seed

__all__ = ["SELECTION_RULES", "Sc13Rule", "MoptRule", "selection_rule", "sample_futures",
           "keep_incumbent"]

#: the named selection rules
SELECTION_RULES = ("sc13", "mopt")


def keep_incumbent(scores: dict[int, float], best: int, incumbent: int | None,
                   hysteresis: float) -> int:
    """The policy to apply: ``best`` unless the incumbent's score is within the margin (ours).

    ``best`` replaces ``incumbent`` only if ``scores[best] > (1 + hysteresis) · scores[incumbent]``
    (scores are utilities: higher is better, non-negative).

    Examples
    --------
    >>> keep_incumbent({0: 1.0, 1: 1.05}, best=1, incumbent=0, hysteresis=0.1)
    0
    >>> keep_incumbent({0: 1.0, 1: 1.15}, best=1, incumbent=0, hysteresis=0.1)
    1
    """
    if incumbent is None or incumbent not in scores or incumbent == best:
        return best
    held = scores[incumbent]
    if not np.isfinite(held):
        return best
    return best if scores[best] > (1.0 + hysteresis) * held else incumbent


def sample_futures(jobs: np.ndarray, now: float, arrived: int, *, lookback: float, horizon: float,
                   samples: int, rng: np.random.Generator, known_run=None):
    """Sampled future arrivals for mopt's rule (ours): rate-scaled resampling of recent jobs.

    The jobs submitted in ``(now - lookback, now]`` (``k`` of them; rows of ``jobs[:arrived]``)
    give the rate ``k / lookback``. Each sample draws ``n ~ Poisson(k · horizon / lookback)``
    jobs, each a copy of a recent job drawn uniformly with replacement (its processors, runtime
    and request), submitted at a uniform time in ``(now, now + horizon]``, sorted; their users are
    unknown (-1), so they leave no runtime history.

    Parameters
    ----------
    jobs : numpy.ndarray
        The trace table (:func:`mopt.cloud.engine.job_table`'s columns).
    now : float
    arrived : int
        How many jobs have been submitted by ``now`` (the state's next arrival).
    lookback, horizon : float
        Seconds of the past to resample and of the future to forecast.
    samples : int
    rng : numpy.random.Generator
    known_run : callable, optional
        ``known_run(first, arrived)``: the runtimes of the recent jobs ``first:arrived`` as the
        scheduler knows them (with predicted or user runtimes: the actual one if the job has
        finished, else its request); default their actual runtimes (known with actual runtimes).

    Returns
    -------
    futures : numpy.ndarray
        The samples' jobs, sample after sample.
    bounds : numpy.ndarray
        ``samples + 1`` offsets: sample ``m`` is ``futures[bounds[m]:bounds[m + 1]]``.

    Examples
    --------
    >>> table = E.job_table([0, 100, 200, 300], [10, 20, 30, 40], [50] * 4, [1, 2, 3, 4],
    ...                     [0] * 4, [10, 20, 30, 40])
    >>> futures, bounds = sample_futures(table, 300.0, 4, lookback=200.0, horizon=400.0,
    ...                                  samples=2, rng=np.random.default_rng(0))
    >>> bool(np.all(futures[:, E.J_SUB] > 300)), bool(np.all(futures[:, E.J_SUB] <= 700))
    (True, True)
    >>> bool(np.all(futures[:, E.J_USER] == -1)), len(bounds)
    (True, 3)
    """
    first = int(np.searchsorted(jobs[:arrived, E.J_SUB], now - lookback, side="right"))
    recent = jobs[first:arrived]
    mean = len(recent) * horizon / lookback
    parts, bounds = [], [0]
    for _ in range(samples):
        n = int(rng.poisson(mean)) if len(recent) else 0
        pick = rng.integers(0, len(recent), size=n) if n else np.empty(0, np.int64)
        sample = recent[pick].copy()
        if known_run is not None and n:
            sample[:, E.J_RUN] = known_run(first, arrived)[pick]
            sample[:, E.J_EST] = sample[:, E.J_RUN]
        sample[:, E.J_SUB] = np.sort(now + horizon * (1.0 - rng.random(n)))
        sample[:, E.J_USER] = -1.0
        parts.append(sample)
        bounds.append(bounds[-1] + n)
    futures = np.vstack(parts) if parts else jobs[:0].copy()
    return np.ascontiguousarray(futures), np.asarray(bounds, dtype=np.int64)


class Sc13Rule:
    """The papers' rule (spec §6): select on every due tick, apply the best of Algorithm 1's plan.

    ``score(planned)`` gives the utility of each planned policy; by default (when bound to a
    run) the spec's window utility (:func:`mopt.cloud.online.online_scores`); the diagnostics in
    ``experiments/portfolio_diagnose.py`` pass other readings.
    """

    name = "sc13"

    def __init__(self, score=None):
        self.score = score

    def bind(self, state, jobs, codes, seed, cloud, start) -> None:
        if self.score is None:
            self.score = lambda planned: online_scores(state, jobs, codes[planned], **cloud)[:, 0]

    def due(self) -> bool:
        return True

    def choose(self, selection, active: int | None) -> tuple[int, float, int]:
        """Run one call of Algorithm 1; returns (policy, its score, simulations)."""
        planned = selection.plan()
        scores = np.asarray(self.score(planned), dtype=np.float64)
        chosen = selection.update(dict(zip(planned, scores.tolist(), strict=True)))
        return chosen, selection.last_scores[chosen], len(planned)


class MoptRule:
    """mopt's selection rule (ours; module docstring). Constructors only store parameters.

    Parameters
    ----------
    hysteresis : float, default 0.1
        Keep the incumbent unless a challenger scores more than this fraction above it (>= 0).
    prorate : bool, default True
        Charge VMs still leased at a window's end only up to it.
    samples : int, default 0
        Sampled futures per selection (0: no forecast).
    lookback, horizon : float, default 3600
        Seconds of the past resampled, and of the future forecast (> 0).
    events_only : bool, default True
        Select only if a job arrived or finished since the last selection.
    shortlist : int, default 5
        With ``k`` > 0, simulate at a selection only the ``k`` constituents whose own runs
        (:class:`~mopt.cloud.shadows.Shadows`) did best over the last ``reflect`` seconds, and the
        incumbent, instead of Algorithm 1's plan (which still runs while the shadows hold no
        span of at least one refresh with charged VM-hours in it).
    reflect, refresh : float, default 14 days, 1 day
        The span of the shadows' recent U, and how often it is updated (> 0).
    """

    name = "mopt"

    def __init__(self, hysteresis: float = 0.1, prorate: bool = True, samples: int = 0,
                 lookback: float = 3600.0, horizon: float = 3600.0, events_only: bool = True,
                 shortlist: int = 5, reflect: float = 14 * 86400.0, refresh: float = 86400.0):
        self.hysteresis = hysteresis
        self.prorate = prorate
        self.samples = samples
        self.lookback = lookback
        self.horizon = horizon
        self.events_only = events_only
        self.shortlist = shortlist
        self.reflect = reflect
        self.refresh = refresh

    def check(self) -> MoptRule:
        """Validate the parameters (one message shape, naming the parameter)."""
        check_number("hysteresis", self.hysteresis, low=0.0)
        check_int("samples", self.samples, low=0)
        check_number("lookback", self.lookback, low=0.0, low_open=True)
        check_number("horizon", self.horizon, low=0.0, low_open=True)
        check_int("shortlist", self.shortlist, low=0)
        check_number("reflect", self.reflect, low=0.0, low_open=True)
        check_number("refresh", self.refresh, low=0.0, low_open=True)
        return self

    def bind(self, state, jobs, codes, seed, cloud, start) -> None:
        self.check()
        self.state, self.jobs, self.codes, self.cloud, self.start = state, jobs, codes, cloud, start
        # the forecast's own stream: Algorithm 1's draw stays that of the same seed under sc13
        self._rng = np.random.default_rng(np.random.SeedSequence(resolve_seed(seed)).spawn(1)[0])
        self._seen: tuple | None = None
        self._shadows = Shadows(state, jobs, codes, lookback=self.reflect, refresh=self.refresh,
                                start=start, **cloud) if self.shortlist and len(codes) > 1 else None

    def _events(self) -> tuple:
        sc = self.state.scalars
        return (sc[E.S_NEXT], sc[E.S_STARTED] - sc[E.S_NRUN])  # arrivals, completions

    def due(self) -> bool:
        return not self.events_only or self._events() != self._seen

    def _known_run(self, first: int, arrived: int) -> np.ndarray:
        """Without actual runtimes, a recent job's runtime is known only if it has finished (else
        its request)."""
        jobs = self.jobs[first:arrived]
        done = self.start[first:arrived] + jobs[:, E.J_RUN] <= self.state.clock  # NaN: False
        return np.where(done, jobs[:, E.J_RUN], jobs[:, E.J_REQ])

    def scores(self, planned: list[int]) -> np.ndarray:
        state = self.state
        if self.samples:
            futures, bounds = sample_futures(
                self.jobs, state.clock, int(state.scalars[E.S_NEXT]), lookback=self.lookback,
                horizon=self.horizon, samples=self.samples, rng=self._rng,
                known_run=self._known_run if state.scalars[E.S_MODE] != E.ACTUAL else None)
        else:
            futures, bounds = self.jobs[:0], np.zeros(1, np.int64)
        return forecast_scores(state, self.jobs, self.codes[planned], futures, bounds,
                               prorate=self.prorate, **self.cloud)[:, 0]

    def choose(self, selection, active: int | None) -> tuple[int, float, int]:
        self._seen = self._events()
        short = None if self._shadows is None else self._shadows.shortlist(self.state.clock,
                                                                           self.shortlist)
        planned = selection.plan() if short is None else short
        scored = planned + ([active] if active is not None and active not in planned else [])
        scores = dict(zip(scored, self.scores(scored).tolist(), strict=True))
        if short is None:
            best = selection.update(scores)
        else:  # the best of the shortlist, ties in its order
            best = max(scored, key=lambda p: (scores[p], -scored.index(p)))
        chosen = keep_incumbent(scores, best, active, self.hysteresis)
        return chosen, scores[chosen], len(scored)

    def __repr__(self) -> str:
        return (f"MoptRule(hysteresis={self.hysteresis}, prorate={self.prorate}, "
                f"samples={self.samples}, lookback={self.lookback}, horizon={self.horizon}, "
                f"events_only={self.events_only}, shortlist={self.shortlist}, "
                f"reflect={self.reflect}, refresh={self.refresh})")


def selection_rule(selection) -> Sc13Rule | MoptRule:
    """The rule named ``selection`` ("sc13" or "mopt"), or ``selection`` itself if it is one.

    Examples
    --------
    >>> rule = selection_rule("mopt")
    >>> rule.hysteresis, rule.prorate, rule.samples, rule.shortlist, rule.reflect / 86400
    (0.1, True, 0, 5, 14.0)
    """
    if isinstance(selection, (Sc13Rule, MoptRule)):
        return selection
    if isinstance(selection, str) and selection.strip().lower() in SELECTION_RULES:
        return Sc13Rule() if selection.strip().lower() == "sc13" else MoptRule()
    raise InputError(f"'selection' must be one of {', '.join(SELECTION_RULES)} (or a MoptRule); "
                     f"got {selection!r}{suggest(selection, SELECTION_RULES) or '.'}")
