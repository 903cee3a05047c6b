"""The shared search driver: one loop, one budget, one bookkeeping for every method.

A method is a :class:`Solver` subclass that only decides what to simulate next
(:meth:`Solver._ask`); :func:`run` owns the loop, spends the budget (counted in replications),
ships batches to the executor and builds the :class:`~mopt.Result`.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np

from mopt.core import interrupt
from mopt.core.errors import InputError, MoptError, check_int, check_number
from mopt.core.execute import Runner, make_batches
from mopt.core.inputs import suggest
from mopt.core.names import fold_keys
from mopt.core.problem import MAX_REPS, check_replications, check_reps
from mopt.core.random import resolve_seed
from mopt.core.result import Result
from mopt.solvers.finish import close_search, evaluations_of
from mopt.solvers.utilities import resolve_utility, utility_scores  # noqa: F401 - re-exported

__all__ = ["Solver", "SearchState", "run", "requests", "resolve_utility", "progress_bar"]


class _Column:
    """Read-only view of one statistic of a :class:`SearchState`: ``state.count[indices]``.

    Only indexing works (by a design index or an array of them); whole-space operations such as
    ``state.count != x`` raise instead of silently comparing an object, since the state holds only
    the designs simulated so far (see :meth:`SearchState.sampled`).
    """

    __array_ufunc__ = None  # numpy defers to __eq__/__ne__ below, which refuse
    __hash__ = None

    def __init__(self, state: SearchState, name: str):
        self._state, self._name = state, name

    def __getitem__(self, indices):
        return self._state._get(self._name, indices)

    def _refuse(self, *_):
        raise TypeError(f"SearchState.{self._name} holds only the simulated designs: index it with design "
                        f"indices (e.g. state.{self._name}[state.sampled()]).")

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __array__ = __len__ = __iter__ = _refuse


@dataclass
class SearchState:
    """What a method sees: the problem, the budget, its own Generator and every replication so far.

    Statistics are kept only for the designs simulated so far (never one entry per design of the
    space, which may hold billions): ``count[i]``, ``mean[i]`` and ``var[i]`` (indexed by a design
    index or an array of them; 0 / NaN for designs never simulated, ``var`` with ddof=1 and NaN
    below two replications) are kept up to date by :meth:`record`, so that methods never recompute
    statistics of designs that got nothing new.  A design that gets more replications has its mean
    and variance recomputed from all of its replications when they are next read (ours: a method
    that reads only the means, like OCBA, never pays for the variances), with the values an eager
    recomputation gives.  ``budget_given`` tells whether the user set the
    budget or the method's default was used.
    """

    problem: object
    budget: int
    rng: np.random.Generator
    budget_given: bool = True
    samples: dict[int, np.ndarray] = field(default_factory=dict)
    spent: int = 0

    def __post_init__(self):
        m = self.problem.n_obj
        # the simulated designs in increasing order, and their statistics in the same order
        self._keys = np.empty(0, dtype=np.int64)
        self._stats = {"count": np.empty(0, dtype=np.int64), "mean": np.empty((0, m)), "var": np.empty((0, m))}
        self._stale = {"mean": set(), "var": set()}  # designs whose stored mean / var are out of date
        self.count, self.mean, self.var = _Column(self, "count"), _Column(self, "mean"), _Column(self, "var")

    @property
    def remaining(self) -> int:
        return self.budget - self.spent

    def n_reps(self, i: int) -> int:
        return int(self._get("count", int(i)))

    def _find(self, indices) -> tuple[np.ndarray, np.ndarray]:
        """Positions of ``indices`` (1-D int64) among the simulated designs, and which are there."""
        pos = np.searchsorted(self._keys, indices)
        found = pos < len(self._keys)
        found[found] = self._keys[pos[found]] == indices[found]
        return pos, found

    def _get(self, name: str, indices):
        scalar = np.ndim(indices) == 0
        idx = np.atleast_1d(np.asarray(indices, dtype=np.int64))
        if self._stale.get(name):
            self._refresh(name, idx)
        table = self._stats[name]
        pos, found = self._find(idx)
        out = np.zeros((len(idx), *table.shape[1:]), dtype=table.dtype) if name == "count" else \
            np.full((len(idx), *table.shape[1:]), np.nan)
        out[found] = table[pos[found]]
        return out[0] if scalar else out

    def _set(self, indices: np.ndarray, count, mean, var) -> None:
        """Store the statistics of ``indices`` (unique), adding the designs not simulated before."""
        pos, found = self._find(indices)
        if found.all():
            for name, values in (("count", count), ("mean", mean), ("var", var)):
                self._stats[name][pos] = values
            return
        keys = np.concatenate([self._keys, indices[~found]])
        order = np.argsort(keys, kind="stable")
        self._keys = keys[order]
        for name, values in (("count", count), ("mean", mean), ("var", var)):
            table = self._stats[name]
            values = np.broadcast_to(values, (len(indices), *table.shape[1:]))
            table[pos[found]] = values[found]
            self._stats[name] = np.concatenate([table, values[~found]])[order]

    def _refresh(self, name: str, idx: np.ndarray) -> None:
        """Recompute statistic ``name`` of the designs of ``idx`` that are out of date."""
        stale = self._stale[name]
        todo = np.intersect1d(idx, np.fromiter(stale, dtype=np.int64, count=len(stale)))
        if not len(todo):
            return
        self._stats[name][self._find(todo)[0]] = [_statistic(name, self.samples[i]) for i in todo.tolist()]
        stale.difference_update(todo.tolist())

    def _append(self, i: int, values: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
        """Append ``values`` to design ``i``'s samples; its new count, mean and variance."""
        old = self.samples.get(i)
        s = values if old is None else np.concatenate([old, values])
        self.samples[i] = s
        for stale in self._stale.values():
            stale.discard(i)
        return len(s), _statistic("mean", s), _statistic("var", s)

    def record(self, i: int, values: np.ndarray) -> None:
        """Append replications ``values`` (n, n_obj) of design ``i`` and update its statistics."""
        i = int(i)
        count, mean, var = self._append(i, values)
        self._set(np.array([i], dtype=np.int64), count, mean, var)

    def record_group(self, indices, values: np.ndarray) -> None:
        """Record ``values[k]`` (n, n_obj) for each design ``indices[k]`` (distinct); designs
        simulated for the first time are handled in one vectorised step."""
        indices = np.asarray(indices, dtype=np.int64)
        new = ~self._find(indices)[1]
        if new.any() and values.shape[1] > 0:
            idx, vals = indices[new], values[new]
            for i, v in zip(idx.tolist(), vals, strict=True):
                self.samples[i] = v
            self._set(idx, vals.shape[1], vals.mean(axis=1),
                      vals.var(axis=1, ddof=1) if vals.shape[1] > 1 else np.nan)
        old = np.flatnonzero(~new)
        if len(old):  # more samples: the counts now, the mean and variance when next read
            ids = indices[old].tolist()
            for i, v in zip(ids, values[old], strict=True):
                self.samples[i] = np.concatenate([self.samples[i], v])
            self._stats["count"][self._find(indices[old])[0]] = [len(self.samples[i]) for i in ids]
            for stale in self._stale.values():
                stale.update(ids)

    def sampled(self) -> np.ndarray:
        """Indices of the designs simulated so far (sorted)."""
        return self._keys[self._stats["count"] > 0].copy()

    def means(self, indices) -> np.ndarray:
        """Objective means of ``indices`` (shape (len, n_obj)); NaN for designs never simulated."""
        return self._get("mean", np.asarray(indices, dtype=np.int64).reshape(-1))


class Solver:
    """Base class of the search methods.

    Constructors only store options; :meth:`check_budget` validates them against a problem and
    budget when the search starts.

    The public contract, which :func:`mopt.compare` and users' own drivers rely on:

    - ``name`` and ``defaults`` (option name -> default value);
    - :meth:`min_budget` (``problem``): the smallest budget the method runs with on ``problem``,
      its options validated;
    - :meth:`check_budget` (``problem, budget``): raise :class:`~mopt.InputError` naming the
      option or ``'budget'`` if the method cannot run;
    - :func:`run` (``problem, solver, budget=..., seed=...``) runs it.

    A method implements the hooks :meth:`_default_budget`, :meth:`_ask` (what to simulate next)
    and, if needed, :meth:`min_budget`, :meth:`check_budget` and :meth:`_info`.

    Examples
    --------
    >>> from mopt.solvers import METHODS
    >>> from mopt import NormalProblem
    >>> solver = METHODS["exhaustive"](n_reps=2)
    >>> solver.min_budget(NormalProblem([[1.0], [2.0]], sd=1.0))  # one replication of each design
    2
    """

    name = "solver"
    #: option name -> default value
    defaults: dict = {}

    def __init__(self, **options):
        options = fold_keys(options, self.defaults)  # ``N0=3`` is ``n0=3``
        unknown = sorted(set(options) - set(self.defaults))
        if unknown:
            known = ", ".join(sorted(self.defaults)) or "none"
            raise InputError(f"unknown option {unknown[0]!r} for method {self.name!r}; options are: {known}"
                             f"{suggest(unknown[0], self.defaults) or '.'}")
        self.options = {**self.defaults, **options}
        #: the options the user gave (not defaulted)
        self.given = frozenset(options)

    def _default_budget(self, problem) -> int:
        raise NotImplementedError

    def _reps(self, problem) -> int:
        """Replications per design of a method with an ``n_reps`` option (None: the problem's)."""
        n = self.options["n_reps"]
        return check_reps("n_reps", problem.n_reps if n is None else n)

    def _sample_size(self, problem) -> int:
        """Designs drawn by a method with ``alpha`` and ``sample`` options: ``sample``, or else
        ``ceil(alpha · n_designs)`` (at least 1); giving both is an error."""
        if self.options["sample"] is not None:
            if "alpha" in self.given:
                raise InputError("give 'alpha' (a fraction of the designs) or 'sample' (a number of them), "
                                 "not both.")
            return check_int("sample", self.options["sample"], low=1, high=problem.n_designs)
        alpha = check_number("alpha", self.options["alpha"], low=0, high=1, low_open=True)
        return max(1, math.ceil(alpha * problem.n_designs))

    def min_budget(self, problem) -> int:
        """The smallest budget the method can run with on ``problem`` (its options checked)."""
        return 1

    def check_budget(self, problem, budget: int) -> None:
        """Validate the options for ``problem`` and ``budget`` (raise InputError naming the option).

        The default checks the budget against :meth:`min_budget`, which validates the options.
        """
        low = self.min_budget(problem)
        if budget < low:
            hint = ("; or search a sample of the designs with the option sample=N" if "sample" in self.defaults
                    and self.options.get("sample") is None else "")
            raise InputError(f"'budget' must be >= {low} for method {self.name!r} with these options "
                             f"on this problem; got {budget}{hint}.")

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


def _plan(state: SearchState, requests) -> list[tuple[np.ndarray, np.ndarray]]:
    """The replications a round asks for, as groups ``(designs, replication indices)``: each design
    continues from the replications it has (a design named in several requests gets their sum;
    groups ordered by (replications it has, replications to add), designs sorted in each)."""
    ids, adds = [], []
    for idx, n in requests:
        u = np.unique(np.asarray(idx, dtype=np.int64))  # a design named twice in one request: once
        ids.append(u)
        adds.append(np.full(len(u), int(n), dtype=np.int64))
    if not ids:
        return []
    designs, inverse = np.unique(np.concatenate(ids), return_inverse=True)
    add = np.zeros(len(designs), dtype=np.int64)
    np.add.at(add, inverse.reshape(-1), np.concatenate(adds))
    keep = add > 0
    designs, add = designs[keep], add[keep]
    have = state.count[designs]
    order = np.lexsort((designs, add, have))
    designs, add, have = designs[order], add[order], have[order]
    cut = np.flatnonzero((np.diff(have) != 0) | (np.diff(add) != 0)) + 1
    return [(group, np.arange(h[0], h[0] + a[0], dtype=np.int64))
            for group, h, a in zip(np.split(designs, cut), np.split(have, cut), np.split(add, cut), strict=True)
            if len(group)]


def _open_journal(journal, problem, seed):
    """(Journal or None, seed entropy, whether to close the journal at the end)."""
    if journal is None:  # before the import: a run without a journal loads no sqlite3
        return None, resolve_seed(seed), False
    from mopt.core.journal import Journal

    if isinstance(journal, Journal):
        journal.index_commits()  # what an earlier run committed through this object is found too
        if journal.fingerprint != problem.fingerprint():
            raise InputError(f"journal {str(journal.path)!r} was written for another problem (fingerprint "
                             f"{journal.fingerprint}, this problem {problem.fingerprint()}).")
        if seed is not None and resolve_seed(seed) != journal.seed:
            raise InputError(f"'seed' {resolve_seed(seed)} differs from the journal's seed {journal.seed}.")
        return journal, journal.seed, False
    if not isinstance(journal, (str, os.PathLike)):
        raise TypeError(f"'journal' must be a file path or None; got {type(journal).__name__}.")
    j = Journal(journal, problem, None if seed is None else resolve_seed(seed))
    return j, j.seed, True


def check_run_memory(problem, solver, budget: int | None) -> None:
    """Refuse a run of ``solver`` on ``problem`` whose replications cannot fit in memory, before
    simulating: naming 'budget' if it is given, else 'n_reps' (the method's or the problem's, which
    set the method's default budget); see :func:`mopt.core.problem.check_replications`."""
    given = budget is not None
    if not given:
        budget = solver._default_budget(problem)
    n_reps = solver.options.get("n_reps") if isinstance(getattr(solver, "options", None), dict) else None
    n_reps = getattr(problem, "n_reps", None) if n_reps is None else n_reps
    if given or not isinstance(n_reps, (int, np.integer)) or isinstance(n_reps, bool) or n_reps < 1:
        check_replications("budget", budget, problem)
    else:
        check_replications("n_reps", int(n_reps), problem, per_unit=budget / int(n_reps))


def run(problem, solver: Solver, *, budget=None, seed=None, executor=None, journal=None, progress=False,
        batch_size=None, uncertainty=True) -> Result:
    """Run ``solver`` on ``problem`` (the template method behind :func:`mopt.solve`)."""
    if not isinstance(uncertainty, (bool, np.bool_)):
        raise InputError(f"'uncertainty' must be True or False; got {uncertainty!r}.")
    given = budget is not None
    budget = check_int("budget", budget, low=1, high=MAX_REPS) if given else solver._default_budget(problem)
    if batch_size is not None:
        batch_size = check_int("batch_size", batch_size, low=1)
    solver.check_budget(problem, budget)
    check_run_memory(problem, solver, budget if given else None)
    jr, entropy, own = _open_journal(journal, problem, seed)
    runner = Runner(problem, entropy, executor)
    state = SearchState(problem, budget, np.random.default_rng([entropy, 0x5EED]), budget_given=given)
    bar = progress_bar(progress, budget, solver.name)
    reused = 0
    try:
        while True:
            plan = _plan(state, solver._ask(state))
            total = sum(len(idx) * len(reps) for idx, reps in plan)
            if total == 0:
                break
            if state.spent == 0:  # MOPT_MAX_TIME: a pilot of the first round, before anything else runs
                from mopt.solvers.pace import check_run_time

                check_run_time(problem, solver, budget, given, plan, entropy, runner.workers,
                               held=len(jr) if jr is not None else 0)
            if total > state.remaining:
                raise MoptError(
                    f"method {solver.name!r} asked for {total:,} replications with {state.remaining} left "
                    "(a bug in the method: please report it)."
                )
            reused += _round(state, plan, runner, jr, bar, batch_size)
            state.spent += total
    finally:
        close_search(runner, bar, jr if own else None)
    order = state.sampled()
    evaluations, how_sure = evaluations_of(problem, order, [state.samples[int(i)] for i in order], entropy,
                                           uncertainty=uncertainty)
    info = {"budget": int(budget), **solver._info(state)}
    if how_sure is not None:
        info["uncertainty"] = how_sure
    if jr is not None:
        info["journal"] = {"path": str(jr.path), "reused": int(reused), "simulated": int(state.spent - reused)}
    return Result(
        method=solver.name,
        seed=entropy,
        n_evals=int(state.spent),
        objectives=tuple(problem.objectives),
        evaluations=evaluations,
        info=info,
    )


def _round(state, groups, runner, journal, bar, batch_size) -> int:
    """Run one round's ``groups`` (taking what the journal holds) and record them; return the
    number of replications taken from the journal."""
    m = state.problem.n_obj
    values = [np.full((len(idx), len(reps), m), np.nan) for idx, reps in groups]
    batches, where = [], []  # where[b] = (group, rows of the group, columns of the group)
    reused = 0
    pairs = sum(len(idx) * len(reps) for idx, reps in groups)
    size = runner.batch_size(pairs, batch_size, journal=journal is not None)
    for g, (idx, reps) in enumerate(groups):
        missing = [(np.arange(len(idx)), np.arange(len(reps)))]  # (rows, columns) of the group
        if journal is not None:
            found, known = journal.lookup(idx, reps)
            values[g][found] = known[found]
            reused += int(found.sum())
            if found.any():  # designs missing the same replications are batched together
                patterns: dict[bytes, list[int]] = {}
                for row in np.flatnonzero(~found.all(axis=1)):
                    patterns.setdefault(found[row].tobytes(), []).append(int(row))
                missing = [(rows, np.flatnonzero(~found[rows[0]])) for rows in patterns.values()]
        for rows, cols in missing:
            for sub_rows, sub_cols in make_batches(rows, cols, size):  # positions in the group
                batches.append((idx[sub_rows], reps[sub_cols]))
                where.append((g, sub_rows, sub_cols))
    if bar is not None and reused:
        bar.update(reused)
    for b, arr in runner.run(batches):
        interrupt.check()  # a Ctrl-C / SIGTERM whose exception a weakref callback swallowed
        g, rows, cols = where[b]
        if arr.shape == values[g].shape and arr.dtype == float and arr.base is None and arr.flags.writeable:
            values[g] = arr  # the whole group in one batch, in an array of its own (in-process): no copy
        else:
            values[g][np.ix_(rows, cols)] = arr
        if journal is not None:
            journal.commit(*batches[b], arr)
        if bar is not None:
            bar.update(arr.shape[0] * arr.shape[1])
    for (idx, _reps), vals in zip(groups, values, strict=True):
        state.record_group(idx, vals)
    return reused


def _statistic(name: str, s: np.ndarray) -> np.ndarray:
    """The mean, or the variance (ddof=1; NaN below two rows), of samples ``s`` (n, n_obj)."""
    if name == "mean":
        return s.mean(axis=0)
    return s.var(axis=0, ddof=1) if len(s) > 1 else np.full(s.shape[1], np.nan)


def progress_bar(progress, budget: int, name: str):
    """A tqdm bar of replications done / budget with the time left, on stderr (never stdout);
    None when ``progress`` is false."""
    if not progress:
        return None
    import sys

    from mopt.core.bars import tqdm_class

    tqdm = tqdm_class()

    tty = sys.stderr.isatty()
    return tqdm(total=budget, unit="rep", desc=name, leave=False, file=sys.stderr, dynamic_ncols=True,
                mininterval=0.1 if tty else 10.0)
