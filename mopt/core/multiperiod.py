"""Multi-period problems: a system run over consecutive stages, a design chosen for each by search.

This module knows nothing about any scheduling family.  A :class:`MultiPeriodProblem` says what a
stage is (its search problem, a :class:`~mopt.core.problem.StochasticProblem`), how a chosen design
really runs over a stage (the "truth", the same for every method), and what the search of one
replication costs in simulated time (``overhead_per_rep``).  The driver in
:mod:`mopt.solvers.multiperiod` runs it through :func:`mopt.solve`, in one of two scenarios
(Zhang et al., IEEE TETC 2014):

- **Scenario 1** (simulation before execution): stages on a common grid; each stage's search runs
  before the stage and is not charged.
- **Scenario 2** (simulation during execution): the search for the next stage runs while the
  current stage executes, on the next stage's inputs and a state projected to its start; each
  method's stage length is its own search overhead, so a slow method runs stale designs longer.

A run's output is a :class:`MultiPeriodResult`: one row per stage (its design, finished work, busy
time, throughput and search overhead) and the run's throughput, Σ finished / Σ busy time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

__all__ = ["MultiPeriodProblem", "MultiPeriodResult", "Stage"]


@dataclass(frozen=True)
class Stage:
    """What really happened in one stage: work finished and busy time (and anything else to report)."""

    finished: float
    busy_time: float
    extra: dict = field(default_factory=dict)


class MultiPeriodProblem:
    """Interface of a multi-period problem (subclass it; every method below but the last is required).

    Attributes
    ----------
    scenario : int
        1 or 2 (see the module's description).
    overhead_per_rep : float
        Simulated seconds that one replication of one design costs the search (O).
    start, horizon : float
        The inputs (e.g. arrivals) span [start, horizon); after the horizon, the last design drains
        what is left.
    """

    scenario: int = 1
    overhead_per_rep: float = 0.0
    start: float = 0.0
    horizon: float = 0.0

    def base_grid(self) -> np.ndarray:
        """Stage boundaries of the common grid (start, ..., horizon)."""
        raise NotImplementedError

    def adaptive_grid(self) -> np.ndarray:
        """Stage boundaries of adaptive methods (eOO); default: the base grid."""
        return self.base_grid()

    def initial_state(self):
        """The system's state at ``start``."""
        raise NotImplementedError

    def initial_design(self) -> np.ndarray:
        """The design that runs first in Scenario 2 (the same for every method)."""
        raise NotImplementedError

    def stage_problem(self, start: float, end: float, state, key: int):
        """The StochasticProblem that searches the design of stage [start, end) from ``state``.

        ``key`` numbers the stage on the base grid (so that every method searching a stage in the
        same base period sees the same sampled designs, if the space is sampled).
        """
        raise NotImplementedError

    def restrict(self, problem, indices):
        """``problem`` restricted to its designs ``indices`` (for a method that can afford fewer)."""
        raise NotImplementedError

    def run(self, state, design, start: float, end: float) -> tuple[object, Stage]:
        """Really run ``design`` over [start, end) from ``state``: (state at ``end``, what happened)."""
        raise NotImplementedError

    def project(self, state, design, start: float, end: float):
        """The state at ``end`` expected from running ``design`` (Scenario 2's look-ahead)."""
        raise NotImplementedError

    def drain(self, state, design, start: float) -> Stage:
        """Run ``design`` from ``start`` (after the horizon) until ``state``'s work is done."""
        raise NotImplementedError

    def describe(self, design) -> dict:
        """Named parameters of a design, for the result's table (default: ``design_<k>`` columns)."""
        return {f"design_{k}": v for k, v in enumerate(np.asarray(design).tolist())}


@dataclass(frozen=True)
class MultiPeriodResult:
    """The outcome of one multi-period run.

    Attributes
    ----------
    method : str
    seed : int
    scenario : int
    stages : DataFrame
        One row per stage: ``stage``, ``start``, ``end``, the design's parameters, ``finished``,
        ``busy_time``, ``throughput`` (finished / busy time), ``overhead`` (simulated seconds the search
        of this stage's design cost; 0 for the initial design and the drain) and ``n_evals``.  The
        last row (``drain``) is the work left after the horizon.
    """

    method: str
    seed: int
    scenario: int
    stages: pd.DataFrame

    @property
    def throughput(self) -> float:
        """Σ finished / Σ busy time over the whole run (a ratio of sums, never a mean of ratios)."""
        busy = float(self.stages["busy_time"].sum())
        return float(self.stages["finished"].sum()) / busy if busy > 0 else float("nan")

    @property
    def makespan(self) -> float:
        """Σ busy time: the time the clusters worked to finish everything."""
        return float(self.stages["busy_time"].sum())

    @property
    def overhead(self) -> float:
        """Σ search overhead (simulated seconds)."""
        return float(self.stages["overhead"].sum())

    @property
    def n_evals(self) -> int:
        return int(self.stages["n_evals"].sum())

    def __repr__(self) -> str:
        return (f"MultiPeriodResult(method={self.method!r}, scenario={self.scenario}, stages={len(self.stages)}, "
                f"throughput={self.throughput:.6g})")
