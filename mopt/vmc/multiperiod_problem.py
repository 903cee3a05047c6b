"""Virtual clusters over many periods: Scenarios 1 and 2 of Zhang et al. (2014) as a multi-period problem.

Each stage is searched as a :class:`~mopt.vmc.problem.VMPartitionProblem` over the stage's arrivals
and the backlog at its start (Scenario 2: projected with mean task times from the running schedule).
When the space holds more than ``K`` schedules (default 27,132), a stage searches a uniform sample U′
of K schedules (unranked from uniform ranks), the same U′ for every method in the same base period.

What "really happens" (the truth every method is scored on) draws one z per (arrival interval,
class) from a stream of its own, the same for every method: the task times in force between two
consecutive batch arrivals do not depend on where a method's periods begin.  Defaults (spec §5): O =
3 ms of simulated time per replication; base period t = iOO's overhead (u′·n + s·N)·O.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import canonical
from mopt.core.multiperiod import MultiPeriodProblem, Stage
from mopt.core.random import SeedLike, resolve_seed
from mopt.vmc.period import check_workload, intervals, run_intervals
from mopt.vmc.problem import EPS_FRACTION, VMPartitionProblem, check_noise
from mopt.vmc.profile import check_table, class_tables, default_table
from mopt.vmc.space import check_space, count_partitions, unrank
from mopt.vmc.stages import adaptive_stages, check_threshold, stale_stage_width
from mopt.vmc.workload import Workload

__all__ = ["VMMultiPeriodProblem", "ioo_overhead", "OVERHEAD_PER_REP", "SAMPLE_SIZE", "INFORMATION",
           "check_information"]

#: what a stage's search knows: the target stage's own arrivals (the paper's look-ahead, default)
#: or only those before the search starts (ours, what a real scheduler has)
INFORMATION = ("lookahead", "stale")


def check_information(information) -> str:
    """``information`` if it is one of :data:`INFORMATION` (else an InputError naming it)."""
    return canonical(information, INFORMATION, "'information'")

#: simulated seconds of one replication of one schedule over one period (the paper's 3 s per 1,000)
OVERHEAD_PER_REP = 0.003
#: largest space searched whole; beyond, a uniform sample of this many schedules (G13)
SAMPLE_SIZE = 27132


@functools.lru_cache(maxsize=32)
def _thresholds(theta: int, n_classes: int, base_period: float) -> tuple[float, float]:
    from mopt.vmc.workload import pooled_thresholds

    # batches hold ∝ θ·t tasks, so their similarity (multinomial noise) depends on both
    return pooled_thresholds(theta, seed=0, n_classes=n_classes, base_period=base_period)


def ioo_overhead(u: int, n_rough: int = 10, s: int = 30, n_accurate: int = 1000,
                 overhead_per_rep: float = OVERHEAD_PER_REP) -> float:
    """iOO's search overhead (u·n + s·N)·O in simulated seconds: the base period t.

    Examples
    --------
    >>> round(ioo_overhead(27132), 3)
    903.96
    """
    return (u * n_rough + min(s, u) * n_accurate) * overhead_per_rep


class VMMultiPeriodProblem(MultiPeriodProblem):
    """Virtual clusters run period after period on a workload (see the module's text).

    Parameters
    ----------
    workload : Workload
        Batch arrivals (``times`` sorted, ``batches`` one column per class).
    theta : int
        VMs in all.
    scenario : {1, 2}
    horizon : float or None
        Arrivals after it are dropped (None: the last arrival's time, just past it).
    base_period : float or None
        t (None: iOO's overhead on this space, :func:`ioo_overhead`).
    split_threshold, merge_threshold : float in [0, 1]
        Algorithms 2 and 3's α and β (defaults: :func:`mopt.vmc.workload.pooled_thresholds` for this θ
        and base period, since a batch's size and so its similarity noise depend on both).
    overhead_per_rep : float
        O, seconds (> 0).
    sample_size : int
        K (G13).
    table : DataFrame or None
        Profiling table.
    noise : {"independent", "common"}
        The stage searches' noise model (:class:`~mopt.vmc.problem.VMPartitionProblem`): each
        schedule its own draws (the paper's, default) or common random numbers (ours, a
        sensitivity run).  The truth is the same either way.
    information : {"lookahead", "stale"}
        What a stage's search knows (spec §6).  ``"lookahead"`` (the paper's, default): the target
        stage's own arrivals, and in Scenario 2 the backlog projected with mean task times.
        ``"stale"`` (ours, beyond the paper's experiment; what a real scheduler has, the paper's
        §III.C "at time t_1, workload is used to generate an acceptable schedule at time t_1 + t"):
        a search that starts at a sees only arrivals before a — the last base period's, [a − t, a),
        replayed over the target stage with times and batch sizes scaled by its width / t (ours, so
        that the replay keeps the arrival rate) — and the true backlog at a.  eOO's stages are then decided
        one at a time, each when its search starts, from the arrivals before then
        (:meth:`adaptive_end`, ours), instead of Algorithms 2 and 3 up front on every arrival.
    seed : int, Generator or None
        Seeds the truth stream, the samples U′ and Scenario 2's initial schedule.

    Examples
    --------
    >>> import mopt
    >>> from mopt.vmc.workload import generate
    >>> w = generate("LFLD", 8, 400.0, 100.0, seed=1)
    >>> mp = VMMultiPeriodProblem(w, 8, scenario=1, base_period=100.0, split_threshold=0.9,
    ...                           merge_threshold=0.5, seed=1)
    >>> res = mopt.solve(mp, "ioo", seed=1, n_accurate=20, s=3)
    >>> len(res.stages), res.throughput > 0
    (5, True)
    """

    def __init__(self, workload: Workload, theta: int, *, scenario: int = 1, horizon: float | None = None,
                 base_period: float | None = None, split_threshold: float | None = None,
                 merge_threshold: float | None = None, overhead_per_rep: float = OVERHEAD_PER_REP,
                 sample_size: int = SAMPLE_SIZE, table=None, noise: str = "independent",
                 information: str = "lookahead", seed: SeedLike = 0):
        if not isinstance(workload, Workload):
            raise InputError(f"'workload' must be a mopt.vmc.Workload; got {type(workload).__name__}.")
        times, batches = check_workload(workload.times, workload.batches)
        C = batches.shape[1]
        self.theta, self.n_classes = check_space(theta, C)
        if scenario not in (1, 2):
            raise InputError(f"'scenario' must be 1 or 2; got {scenario!r}.")
        self.scenario = int(scenario)
        self.noise = check_noise(noise)
        self.information = check_information(information)
        self.overhead_per_rep = check_number("overhead_per_rep", overhead_per_rep, low=0, low_open=True)
        self.sample_size = check_int("sample_size", sample_size, low=1)
        self.u = count_partitions(self.theta, C)
        self.u_search = min(self.u, self.sample_size)
        self.base_period = (ioo_overhead(self.u_search, overhead_per_rep=self.overhead_per_rep)
                            if base_period is None else check_number("base_period", base_period, low=0, low_open=True))
        self.start = float(min(0.0, times[0]))
        self.horizon = (float(np.nextafter(times[-1], np.inf)) if horizon is None
                        else check_number("horizon", horizon, low=self.start, low_open=True))
        keep = times < self.horizon
        if not keep.any():
            raise InputError("'workload' has no arrival before the horizon (an empty workload).")
        self.times, self.batches = times[keep], batches[keep]
        if split_threshold is None or merge_threshold is None:
            a, b = _thresholds(self.theta, C, float(self.base_period))
            split_threshold = a if split_threshold is None else split_threshold
            merge_threshold = b if merge_threshold is None else merge_threshold
        self.split_threshold = check_threshold("split_threshold", split_threshold)
        self.merge_threshold = check_threshold("merge_threshold", merge_threshold)
        self.table = default_table(C) if table is None else check_table(table)
        self._mean, self._sd = class_tables(self.table, C, self.theta)
        self.entropy = resolve_seed(seed)
        # truth: one z per (arrival interval, class); interval k starts at times[k-1] (k = 0: before)
        rng = np.random.default_rng([self.entropy, 0x7257])
        self._z_true = rng.standard_normal((len(self.times) + 1, C))
        # Scenario 2's initial schedule, from a stream of its own: drawn after the truth's z it
        # depended on the number of arrivals, i.e. on the future (issue 32)
        initial = np.random.default_rng([self.entropy, 0x1417])
        self._initial = unrank(int(initial.integers(0, self.u)), self.theta, C)

    # -- grids -------------------------------------------------------------------------------------
    def base_grid(self) -> np.ndarray:
        n = max(1, math.ceil((self.horizon - self.start) / self.base_period))
        return self.start + self.base_period * np.arange(n + 1)

    def adaptive_grid(self, start: float | None = None) -> np.ndarray:
        """Algorithms 2 and 3 on base periods of t from ``start`` (None: the base grid's start) to
        the first multiple of t from ``start`` at or after the horizon."""
        a = self.start if start is None else float(start)  # None: the base grid's own span
        b = a + self.base_period * max(1, math.ceil((self.horizon - a) / self.base_period))
        return adaptive_stages(self.times, self.batches, a, b, self.base_period,
                               self.split_threshold, self.merge_threshold)

    def adaptive_end(self, start: float, seen: float) -> float:
        """End of eOO's stage that starts at ``start`` under stale information, its width decided at
        ``seen`` from the arrivals before ``seen`` only (ours: :func:`~mopt.vmc.stages.stale_stage_width`,
        the last base period standing for the stage; 0.5·t, t or 2·t).

        Examples
        --------
        >>> from mopt.vmc.workload import Workload
        >>> w = Workload(np.array([110.0, 160.0, 230.0]), np.array([[4.0, 0.0], [0.0, 4.0], [4.0, 0.0]]))
        >>> mp = VMMultiPeriodProblem(w, 4, base_period=100.0, split_threshold=0.5, merge_threshold=0.5)
        >>> mp.adaptive_end(200.0, seen=200.0), mp.adaptive_end(250.0, seen=200.0)  # [100, 200) split
        (250.0, 300.0)
        """
        return float(start) + stale_stage_width(self.times, self.batches, seen, self.base_period,
                                                 self.split_threshold, self.merge_threshold, start=self.start)

    # -- states and designs --------------------------------------------------------------------------
    def initial_state(self) -> np.ndarray:
        return np.zeros(self.n_classes)

    def initial_design(self) -> np.ndarray:
        return self._initial.copy()

    def describe(self, design) -> dict:
        return {f"theta_{c + 1}": int(v) for c, v in enumerate(np.asarray(design).tolist())}

    def _sample(self, key: int):
        """U′ of base period ``key`` and its schedules (the last few kept: stages share them)."""
        cache = self.__dict__.setdefault("_samples", {})
        if key not in cache:
            rng = np.random.default_rng([self.entropy, 0x5A3, int(key)])
            probe = VMPartitionProblem(self.theta, [1.0], np.zeros((1, self.n_classes)), table=self.table)
            ranks = np.sort(probe.sample_designs(rng, self.sample_size))
            if len(cache) >= 4:
                cache.pop(next(iter(cache)))
            cache[key] = (ranks, unrank(ranks, self.theta, self.n_classes).reshape(-1, self.n_classes))
        return cache[key]

    def _problem(self, L, A, state, sample) -> VMPartitionProblem:
        prob = VMPartitionProblem(self.theta, L, A, state, table=self.table, noise=self.noise,
                                  candidates=None if sample is None else sample[0])
        if sample is not None:
            prob._cand_table = sample[1]
        return prob

    def stage_problem(self, start, end, state, key, seen: float | None = None) -> VMPartitionProblem:
        """The search problem of stage [start, end) from ``state``; with ``seen`` (stale
        information) over the arrivals of [seen − t, seen) replayed on [start, end) instead of its own."""
        if seen is None:
            L, A = intervals(self.times, self.batches, start, end)
        else:
            L, A = self.replayed(seen, start, end)
        # the same U' for every method in base period `key`
        return self._problem(L, A, state, self._sample(int(key)) if self.u > self.sample_size else None)

    def replayed(self, seen: float, start: float, end: float) -> tuple[np.ndarray, np.ndarray]:
        """Sub-intervals of [start, end) with the arrivals of the base period before ``seen``,
        [seen − t, seen), replayed: times mapped onto [start, end) and batches scaled by
        (end − start) / t (ours; stale information, see the class's text).

        Examples
        --------
        >>> from mopt.vmc.workload import Workload
        >>> mp = VMMultiPeriodProblem(Workload(np.array([10.0, 60.0]), np.array([[4.0, 2.0], [2.0, 2.0]])), 4,
        ...                           base_period=100.0, split_threshold=0.5, merge_threshold=0.5)
        >>> L, A = mp.replayed(100.0, 150.0, 350.0)  # 2t: times at 150 + 2·10 and 150 + 2·60
        >>> L.tolist(), A.tolist()
        ([20.0, 100.0, 80.0], [[0.0, 0.0], [8.0, 4.0], [4.0, 4.0]])
        """
        t = self.base_period
        scale = (end - start) / t
        keep = (self.times >= seen - t) & (self.times < seen)
        times = start + (self.times[keep] - (seen - t)) * scale
        return intervals(times, self.batches[keep] * scale, start, end)

    def restrict(self, problem: VMPartitionProblem, indices) -> VMPartitionProblem:
        indices = np.asarray(indices, dtype=np.int64)
        sample = (problem._ranks(indices), problem.schedules(indices))
        return self._problem(problem.lengths, problem.arrivals, problem.backlog, sample)

    # -- execution -------------------------------------------------------------------------------
    def _rates(self, design, starts, mean_only: bool) -> np.ndarray:
        """β_c in sub-intervals beginning at ``starts`` (truth z, or z = 0 for the projection)."""
        v = np.asarray(design, dtype=np.int64)
        c = np.arange(self.n_classes)
        mu, sd = self._mean[c, v], self._sd[c, v]
        if mean_only:
            p = np.broadcast_to(mu, (len(starts), self.n_classes))
        else:
            k = np.searchsorted(self.times, starts, side="right")
            p = np.maximum(EPS_FRACTION * mu, mu + sd * self._z_true[k])
        return v / p

    def _advance(self, state, design, start, end, mean_only):
        L, A = intervals(self.times, self.batches, start, end)
        starts = start + np.concatenate([[0.0], np.cumsum(L)[:-1]])
        eet, done, b = run_intervals(self._rates(design, starts, mean_only), L, A, state)
        return b, Stage(float(done.sum()), float(eet.sum()))

    def run(self, state, design, start, end):
        return self._advance(state, design, start, end, mean_only=False)

    def project(self, state, design, start, end):
        return self._advance(state, design, start, end, mean_only=True)[0]

    def drain(self, state, design, start) -> Stage:
        beta = self._rates(design, np.array([start]), mean_only=False)[0]
        b = np.asarray(state, dtype=float)
        return Stage(float(b.sum()), float((b / beta).max()))
