"""Multi-period problems: a system run over consecutive stages, a design chosen for each by search.

This module knows nothing about any scheduling family.  A :class:`MultiPeriodProblem` says what a
stage is (its search problem, a :class:`~mopt.core.problem.StochasticProblem`), how a chosen design
really runs over a stage (the "truth", the same for every method), and what the search of one
replication costs in simulated time (``overhead_per_rep``).  The driver in
:mod:`mopt.solvers.evolutionary_oo` runs it through :func:`mopt.solve`, in one of two scenarios
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

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError

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

    def adaptive_grid(self, start: float | None = None) -> np.ndarray:
        """Stage boundaries of adaptive methods (eOO) from ``start`` (None: the problem's ``start``)
        to at least the horizon; default: the base grid's boundaries after ``start``."""
        grid = self.base_grid()
        return grid if start is None else np.concatenate([[float(start)], grid[grid > start]])

    def adaptive_end(self, start: float, seen: float) -> float:
        """End of the adaptive stage that starts at ``start`` when its width is decided at ``seen``
        from the inputs before ``seen`` only (stale information: the driver builds the adaptive
        stages one at a time with it); default: the next boundary of the base grid after ``start``
        (past the grid's end, one more of its last width)."""
        grid = self.base_grid()
        later = grid[grid > start]
        return float(later[0]) if len(later) else float(start + (grid[-1] - grid[-2]))

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

    Notes
    -----
    Like a :class:`~mopt.Result` where it makes sense: ``method``, ``seed`` (rerun with it for the
    same run), ``n_evals`` (replications spent by every stage's search: the budget used),
    :meth:`to_frame`, :meth:`to_csv` / :meth:`read_csv` and ``==``.  It has no ``evaluations`` or
    ``front``: each stage searches a different problem (its own arrivals and starting state), so
    the designs of two stages are not comparable rows.  For the same reason :func:`mopt.solve`
    takes no ``journal=`` for a multi-period problem (a journal holds one problem and seed); an
    ``executor=`` is passed to every stage's search.

    Examples
    --------
    >>> r = MultiPeriodResult("ioo", 1, 1, pd.DataFrame({"stage": [0, "drain"], "finished": [6.0, 2.0],
    ...                       "busy_time": [3.0, 1.0], "overhead": [0.5, 0.0], "n_evals": [10, 0]}))
    >>> r.throughput, r.makespan, r.n_evals
    (2.0, 4.0, 10)
    """

    method: str
    seed: int
    scenario: int
    stages: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        """A copy of ``stages`` with the run's ``method``, ``seed`` and ``scenario`` as columns."""
        df = self.stages.copy()
        for k, (name, value) in enumerate((("method", self.method), ("seed", self.seed), ("scenario", self.scenario))):
            df.insert(k, name, value)
        return df

    def to_csv(self, directory: str | os.PathLike) -> Path:
        """Write ``stages.csv`` and ``result.json`` (last, the manifest) into ``directory``, as one
        set (:func:`mopt.core.set_writer.replace_files`: a failure leaves the old set as it was)."""
        from mopt.core.set_writer import replace_files

        d = Path(directory)
        meta = {"kind": "multi-period", "method": self.method, "seed": self.seed, "scenario": self.scenario,
                "n_evals": self.n_evals, "throughput": self.throughput}
        replace_files(d, {"stages.csv": lambda p: self.stages.to_csv(p, index=False)},
                      manifest=("result.json", lambda _files: json.dumps(meta, indent=2)))
        return d

    @classmethod
    def read_csv(cls, directory: str | os.PathLike) -> MultiPeriodResult:
        """Read a result written by :meth:`to_csv` (errors name the file and the field)."""
        from mopt.core.inputs import read_json, read_text

        d = Path(directory)
        for name in ("stages.csv", "result.json"):
            if not os.path.lexists(d / name):
                raise InputError(f"'{d}' is not a mopt multi-period result directory: {name} is missing.")
        meta = read_json(d / "result.json", "mopt multi-period result metadata")
        if not isinstance(meta, dict) or meta.get("kind") != "multi-period":
            raise InputError(f"'{d / 'result.json'}': not a multi-period result (key 'kind').")
        for key, typ in (("method", str), ("seed", int), ("scenario", int)):
            if not isinstance(meta.get(key), typ) or isinstance(meta.get(key), bool):
                raise InputError(f"'{d / 'result.json'}': key '{key}' must be a {typ.__name__}.")
        try:
            stages = pd.read_csv(io.StringIO(read_text(d / "stages.csv", "mopt multi-period stages")))
        except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
            raise InputError(f"'{d / 'stages.csv'}': malformed stages ({exc}).") from None
        missing = {"stage", "finished", "busy_time", "overhead", "n_evals"} - set(stages.columns)
        if missing:
            raise InputError(f"'{d / 'stages.csv'}': column {sorted(missing)[0]!r} is missing.")
        return cls(meta["method"], meta["seed"], meta["scenario"], stages)

    def __eq__(self, other) -> bool:
        if not isinstance(other, MultiPeriodResult):
            return NotImplemented
        return ((self.method, self.seed, self.scenario) == (other.method, other.seed, other.scenario)
                and self.stages.shape == other.stages.shape
                and self.stages.astype(str).reset_index(drop=True).equals(other.stages.astype(str).reset_index(drop=True)))

    __hash__ = None

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
        """Replications spent by all the stages' searches."""
        return int(self.stages["n_evals"].sum())

    def __repr__(self) -> str:
        return (f"MultiPeriodResult(method={self.method!r}, scenario={self.scenario}, stages={len(self.stages)}, "
                f"throughput={self.throughput:.6g})")
