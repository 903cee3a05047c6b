"""The shared search driver: one loop, one budget, one bookkeeping for every method.

A method is a :class:`Solver` subclass that only decides what to simulate next
(:meth:`Solver._ask`); :func:`run` owns the loop, spends the budget (counted in replications),
ships batches to the executor and builds the :class:`~mopt.Result`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mopt.core.errors import InputError, MoptError, check_int
from mopt.core.execute import make_batches, run_batches
from mopt.core.random import resolve_seed
from mopt.core.result import Result, summarise

__all__ = ["Solver", "SearchState", "run", "requests", "resolve_utility"]


@dataclass
class SearchState:
    """What a method sees: the problem, the budget, its own Generator and every replication so far.

    ``count``, ``mean`` and ``var`` (per design; NaN where not simulated, ``var`` with ddof=1 and NaN
    below two replications) are kept up to date by :meth:`record`, so that methods never recompute
    statistics of designs that got nothing new.  ``budget_given`` tells whether the user set the
    budget or the method's default was used.
    """

    problem: object
    budget: int
    rng: np.random.Generator
    budget_given: bool = True
    samples: dict[int, np.ndarray] = field(default_factory=dict)
    spent: int = 0

    def __post_init__(self):
        k, m = self.problem.n_designs, self.problem.n_obj
        self.count = np.zeros(k, dtype=np.int64)
        self.mean = np.full((k, m), np.nan)
        self.var = np.full((k, m), np.nan)

    @property
    def remaining(self) -> int:
        return self.budget - self.spent

    def n_reps(self, i: int) -> int:
        return int(self.count[int(i)])

    def record(self, i: int, values: np.ndarray) -> None:
        """Append replications ``values`` (n, n_obj) of design ``i`` and update its statistics."""
        i = int(i)
        old = self.samples.get(i)
        s = values if old is None else np.concatenate([old, values])
        self.samples[i] = s
        self.count[i] = len(s)
        self.mean[i] = s.mean(axis=0)
        self.var[i] = s.var(axis=0, ddof=1) if len(s) > 1 else np.nan

    def sampled(self) -> np.ndarray:
        """Indices of the designs simulated so far (sorted)."""
        return np.flatnonzero(self.count)

    def means(self, indices) -> np.ndarray:
        """Objective means of ``indices`` (shape (len, n_obj)); NaN for designs never simulated."""
        return self.mean[np.asarray(indices, dtype=np.int64)]


class Solver:
    """Base class of the search methods.

    Constructors only store options; :meth:`_check` validates them against a problem and budget
    when the search starts.  Subclasses implement :meth:`_default_budget`, :meth:`_check` and
    :meth:`_ask`.
    """

    name = "solver"
    #: option name -> default value
    defaults: dict = {}

    def __init__(self, **options):
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            known = ", ".join(sorted(self.defaults)) or "none"
            raise InputError(f"unknown option {unknown[0]!r} for method {self.name!r}; options are: {known}.")
        self.options = {**self.defaults, **options}

    def _default_budget(self, problem) -> int:
        raise NotImplementedError

    def _min_budget(self, problem) -> int:
        """The smallest budget the method can run with on ``problem`` (its options checked)."""
        return 1

    def _check(self, problem, budget: int) -> None:
        """Validate the options for ``problem`` and ``budget`` (raise InputError naming the option).

        The default checks the budget against :meth:`_min_budget`, which validates the options.
        """
        low = self._min_budget(problem)
        if budget < low:
            raise InputError(f"'budget' must be >= {low} for method {self.name!r} with these options "
                             f"on this problem; got {budget}.")

    def _ask(self, state: SearchState) -> list[tuple[np.ndarray, int]]:
        """Next replications to run: a list of ``(design indices, replications to add to each)``.

        An empty list ends the search.
        """
        raise NotImplementedError

    def _info(self, state: SearchState) -> dict:
        return {}


def requests(indices, add) -> list[tuple[np.ndarray, int]]:
    """Group ``add[k]`` replications of design ``indices[k]`` into ``(designs, replications each)``
    requests, the shape :meth:`Solver._ask` returns."""
    indices = np.asarray(indices, dtype=np.int64)
    add = np.asarray(add, dtype=np.int64)
    return [(indices[add == n], int(n)) for n in np.unique(add[add > 0])]


def _workers(executor) -> int:
    for attr in ("_max_workers", "n_workers"):
        n = getattr(executor, attr, None)
        if isinstance(n, int) and n > 0:
            return n
    try:  # a dask Client
        return max(1, sum(executor.nthreads().values()))
    except Exception:  # noqa: BLE001 - anything that is not a Client
        return 4


def _batch_size(pairs: int, executor) -> int:
    """Design × replication pairs per batch: all in one (vectorised) call in-process; about four
    batches per worker on an executor, so that work spreads and stragglers stay short."""
    if executor is None:
        return max(1, pairs)
    return max(1, math.ceil(pairs / (4 * _workers(executor))))


def run(problem, solver: Solver, *, budget=None, seed=None, executor=None, progress=False) -> Result:
    """Run ``solver`` on ``problem`` (the template method behind :func:`mopt.solve`)."""
    entropy = resolve_seed(seed)
    given = budget is not None
    budget = check_int("budget", budget, low=1) if given else solver._default_budget(problem)
    solver._check(problem, budget)
    state = SearchState(problem, budget, np.random.default_rng([entropy, 0x5EED]), budget_given=given)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=budget, unit="rep", desc=solver.name, leave=False)
    try:
        while True:
            requests = solver._ask(state)
            if not requests:
                break
            total = sum(len(np.atleast_1d(idx)) * int(n) for idx, n in requests)
            if total == 0:
                break
            if total > state.remaining:
                raise MoptError(
                    f"method {solver.name!r} asked for {total} replications with {state.remaining} left "
                    "(a bug in the method: please report it)."
                )
            batches = []
            for idx, n in requests:
                idx = np.unique(np.asarray(idx, dtype=np.int64))
                by_count: dict[int, list[int]] = {}
                for i in idx:
                    by_count.setdefault(state.n_reps(i), []).append(int(i))
                for have, group in sorted(by_count.items()):
                    reps = np.arange(have, have + int(n))
                    batches += make_batches(group, reps, _batch_size(len(group) * len(reps), executor))
            arrays = run_batches(problem, batches, entropy, executor, bar.update if bar else None)
            for (idx, _reps), arr in zip(batches, arrays, strict=True):
                for k, i in enumerate(idx):
                    state.record(i, arr[k])
            state.spent += total
    finally:
        if bar is not None:
            bar.close()
    order = state.sampled()
    evaluations = summarise(
        problem.designs_frame(order), [state.samples[int(i)] for i in order], problem.objectives
    )
    return Result(
        method=solver.name,
        seed=entropy,
        n_evals=int(state.spent),
        objectives=tuple(problem.objectives),
        evaluations=evaluations,
        info={"budget": int(budget), **solver._info(state)},
    )


def resolve_utility(problem, utility):
    """The utility that reduces ``problem``'s objectives to one score (lower is better).

    None means: the objective itself for one objective, the product of all objectives for several
    (ExPERT's makespan × cost; scale-free for positive objectives).  Strings name one objective.
    """
    from mopt.core.utility import Utility, minimize

    objectives = tuple(problem.objectives)
    if utility is None:
        if len(objectives) == 1:
            return minimize(objectives[0])
        return Utility("product(" + ", ".join(objectives) + ")", objectives,
                       lambda df: np.prod([df[c].to_numpy(dtype=float) for c in objectives], axis=0))
    if isinstance(utility, str):
        if utility not in objectives:
            raise InputError(f"'utility' must be an objective name {list(objectives)} or a callable; "
                             f"got {utility!r}.")
        return minimize(utility)
    if not callable(utility):
        raise InputError(f"'utility' must be None, an objective name or a callable (DataFrame -> Series); "
                         f"got {utility!r}.")
    return utility


def utility_scores(problem, utility, values: np.ndarray) -> np.ndarray:
    """``utility`` of each row of ``values`` (shape (n, n_obj)), as a float array."""
    import pandas as pd

    values = np.asarray(values, dtype=float).reshape(-1, problem.n_obj)
    scores = np.asarray(utility(pd.DataFrame(values, columns=list(problem.objectives))), dtype=float)
    if scores.shape != (len(values),):
        raise InputError(f"'utility' must return one score per row; got shape {scores.shape} for "
                         f"{len(values)} rows.")
    return scores
