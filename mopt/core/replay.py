"""Replaying one replication of one design of a run, and checking it against the record.

A replication is addressed by ``(seed, design, replication)`` and depends on nothing else
(:mod:`mopt.core.random`), so it can be simulated again, alone, long after the search.
:func:`replay` does so and compares what it simulates with what the run recorded, bit for bit:

* with a journal (``journal=PATH``), the replication's objective values against the journal's row
  of that design and replication (the journal must have been written for this problem and seed);
* without one, against the result, which keeps no replication but each design's mean and standard
  error over its ``n`` replications, ``0 .. n-1`` (every method gives a design its replications in
  index order): the replay simulates all ``n`` and computes their mean and standard error as
  :func:`mopt.core.moments.sample_moments` computed them for the result.

What happened in the replication is told where the problem can say: a
:class:`~mopt.core.function_problem.FunctionProblem`'s function is called again with the same
Generator; a family's problem is told by the family's ``replay`` hook
(:class:`mopt.core.family.Family`), asked only about problems defined in the family's package;
otherwise the objective values are all there is to show, and :attr:`Replay.detail` says so.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mopt.core.errors import InputError
from mopt.core.moments import sample_moments
from mopt.core.random import replication_rng, resolve_seed
from mopt.core.risk import check_run_problem

__all__ = ["Replay", "replay", "journal_values"]

#: how messages name the arguments of :func:`replay` (the command line passes its options instead)
NAMES = {"design": "'design'", "rep": "'rep'", "journal": "'journal'", "problem": "'problem'"}


@dataclass(frozen=True, eq=False)
class Replay:
    """One replication simulated again, and how it compares with the record.

    Attributes
    ----------
    design, rep, seed : int
        The replication's address: design index, replication index, the run's seed (entropy).
    parameters : str
        The design's decoded parameters, in words.
    objectives : tuple of str
    values : ndarray (n_obj,)
        The replayed replication's objective values.
    checked : tuple of str
        What was compared: the objectives (with a journal), or each objective's mean and
        ``<objective>_se`` (with the result alone).
    replayed, recorded : ndarray (len(checked),)
        Those quantities as the replay computed them and as the record holds them.
    source : str
        Where ``recorded`` comes from, in words.
    detail : tuple of str
        What happened in the replication, line by line, where the problem can say.
    """

    design: int
    rep: int
    seed: int
    parameters: str
    objectives: tuple[str, ...]
    values: np.ndarray
    checked: tuple[str, ...]
    replayed: np.ndarray
    recorded: np.ndarray
    source: str
    detail: tuple[str, ...] = ()

    @property
    def differing(self) -> tuple[str, ...]:
        """The checked quantities whose replayed and recorded bits differ (NaN equals NaN)."""
        a = np.ascontiguousarray(self.replayed, dtype=np.float64)
        b = np.ascontiguousarray(self.recorded, dtype=np.float64)
        if a.shape != b.shape:
            return tuple(self.checked)
        same = (a.view(np.uint64) == b.view(np.uint64)) | (np.isnan(a) & np.isnan(b))
        return tuple(name for name, ok in zip(self.checked, same.tolist(), strict=True) if not ok)

    @property
    def equal(self) -> bool:
        """Whether the replay equals the record bit for bit."""
        return not self.differing

    def lines(self) -> list[str]:
        """The replay in words: its values, whether they equal the record, then the detail."""
        shown = ", ".join(f"{o} = {v!r}" for o, v in zip(self.objectives, self.values.tolist(), strict=True))
        out = [f"design {self.design} ({self.parameters}), replication {self.rep}, seed {self.seed}: {shown}"]
        if self.equal:
            out.append(f"equal bit for bit to {self.source} ({', '.join(self.checked)}).")
        else:
            pairs = dict(zip(self.checked, zip(self.recorded.tolist(), self.replayed.tolist(), strict=True),
                             strict=True))
            diff = "; ".join(f"{name} recorded {pairs[name][0]!r}, replayed {pairs[name][1]!r}"
                             for name in self.differing)
            out.append(f"DIFFERS from {self.source}: {diff}.")
        return out + list(self.detail)


def replay(problem, result, design: int, rep: int, *, journal=None, names=None) -> Replay:
    """Simulate replication ``rep`` of ``design`` of ``result``'s run again and check it.

    Parameters
    ----------
    problem : StochasticProblem
        The problem the run searched (a Result does not hold it; checked against the
        ``fingerprint`` its ``info`` records, when it records one).
    result : Result
        The run: its seed, and the design's row of ``evaluations``.
    design : int
        A design index the run evaluated.
    rep : int
        A replication index in ``[0, n_reps)`` of that design.
    journal : path, optional
        The run's journal: compare with its row of ``(design, rep)``; otherwise with the result's
        mean and standard error, for which every replication of the design is simulated again
        (see the module's docstring).
    names : mapping, optional
        How messages name ``design``, ``rep``, ``journal`` and ``problem`` (the command line
        passes its options, e.g. ``{"design": "'--design'"}``).

    Returns
    -------
    Replay

    Raises
    ------
    InputError
        A design the run did not evaluate, a replication beyond the design's, a problem other
        than the run's, a journal of another problem or seed or without that replication: one
        line naming the argument.

    Examples
    --------
    >>> import mopt
    >>> p = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0]], sd=1.0)
    >>> res = mopt.solve(p, "exhaustive", n_reps=3, seed=5)
    >>> r = replay(p, res, 1, 2)
    >>> r.equal, r.checked
    (True, ('f1', 'f1_se', 'f2', 'f2_se'))
    >>> replay(p, res, 1, 3)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'rep' must be in [0, 2] (design 1 has 3 replications); got 3.
    """
    from mopt.core.problem import StochasticProblem, _params

    names = {**NAMES, **(names or {})}
    if problem is None:
        raise InputError(f"{names['problem']} is required: a Result does not hold the problem it searched; "
                         "give that problem.")
    if not isinstance(problem, StochasticProblem):
        raise TypeError(f"{names['problem']} must be a mopt StochasticProblem; got {type(problem).__name__}.")
    check_run_problem(problem, result, names["problem"])
    design, rep = _index(names["design"], design), _index(names["rep"], rep)
    ev = result.evaluations
    rows = np.flatnonzero(ev["design"].to_numpy() == design)
    if len(rows) == 0:
        raise InputError(f"{names['design']} must be a design the run evaluated (one of the {len(ev)} in its "
                         f"evaluations); got {design}.")
    row = ev.iloc[int(rows[0])]
    if "n_reps" in ev.columns:
        n_reps = int(row["n_reps"])
        if rep >= n_reps:
            raise InputError(f"{names['rep']} must be in [0, {n_reps - 1}] (design {design} has {n_reps} "
                             f"replications); got {rep}.")
    elif journal is None:
        raise InputError("the result records no 'n_reps' column (written by an earlier release): its "
                         f"replications cannot be told; give {names['journal']}.")
    seed = resolve_seed(result.seed)
    objectives = tuple(result.objectives)
    if journal is not None:
        recorded = journal_values(journal, problem, seed, design, rep, names=names)
        values = problem.replicate([design], [rep], seed)[0, 0]
        checked, replayed, source = objectives, values, f"the journal {str(journal)!r}"
    else:
        every = problem.replicate([design], np.arange(n_reps), seed)[0]
        values = every[rep]
        means, ses, _ = sample_moments([every], len(objectives))
        with_se = all(f"{o}_se" in ev.columns for o in objectives)
        checked = tuple(c for o in objectives for c in ((o, f"{o}_se") if with_se else (o,)))
        replayed = np.column_stack([means[0], ses[0]]).ravel() if with_se else means[0]
        recorded = row[list(checked)].to_numpy(dtype=float)
        source = (f"the mean{' and standard error' if with_se else ''} of replications 0..{n_reps - 1} "
                  "in the result")
    return Replay(design=design, rep=rep, seed=seed, parameters=_params(problem, design), objectives=objectives,
                  values=np.asarray(values, dtype=float), checked=checked,
                  replayed=np.asarray(replayed, dtype=float), recorded=np.asarray(recorded, dtype=float),
                  source=source, detail=tuple(_detail(problem, design, rep, seed)))


def journal_values(path, problem, seed: int, design: int, rep: int, *, names=None) -> np.ndarray:
    """The objective values of ``(design, rep)`` in the journal ``path``, read-only.

    Raises
    ------
    InputError
        Not a journal, a journal of another problem or seed, or one without that replication.

    Examples
    --------
    >>> import tempfile, os, mopt
    >>> from mopt.core.journal import Journal
    >>> p = mopt.NormalProblem([[1.0], [2.0]], sd=0.0)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.sqlite")
    >>> with Journal(path, p, seed=7) as j:
    ...     j.commit([1], [0], p.replicate([1], [0], 7))
    >>> journal_values(path, p, 7, 1, 0).tolist()
    [2.0]
    """
    from mopt.core.journal import BUSY_SECONDS, _quote
    from mopt.core.journal_view import _uri, is_journal

    names = {**NAMES, **(names or {})}
    path = Path(path)
    where = f"{names['journal']} {str(path)!r}"
    if not path.is_file():
        raise InputError(f"{where} is {'a directory' if path.is_dir() else 'missing'}; give the run's journal file.")
    if not is_journal(path):
        raise InputError(f"{where} is not a mopt journal.")
    try:
        db = sqlite3.connect(_uri(path), uri=True, isolation_level=None, timeout=BUSY_SECONDS)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            columns = ", ".join(_quote(o) for o in json.loads(meta["objectives"]))  # the journal's own
            found = db.execute(f"SELECT {columns} FROM replications WHERE design = ? AND rep = ?",
                               (int(design), int(rep))).fetchone()
        finally:
            db.close()
    except (sqlite3.Error, KeyError, ValueError) as exc:
        raise InputError(f"{where} cannot be read ({type(exc).__name__}: {exc}).") from None
    if meta.get("fingerprint") != problem.fingerprint():
        raise InputError(f"{where} was written for another problem (fingerprint {meta.get('fingerprint')}; "
                         f"the run's problem is {problem.fingerprint()}).")
    if meta.get("seed") != str(int(seed)):
        raise InputError(f"{where} was written with seed {meta.get('seed')}; the run's seed is {seed}.")
    if found is None:
        raise InputError(f"{names['rep']} {rep}: {where} holds no replication {rep} of design {design}.")
    return np.array([np.nan if v is None else v for v in found], dtype=float)


def _index(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"{name} must be an integer >= 0; got {value!r}.")
    return int(value)


def _detail(problem, design: int, rep: int, seed: int) -> list[str]:
    """What happened in the replication: a FunctionProblem's function called again, the ``replay``
    hook of the family whose package defines the problem, or a line saying that the objective
    values are all there is (a :class:`~mopt.core.subset.SubsetProblem` is told as its problem)."""
    from mopt.core.function_problem import FunctionProblem
    from mopt.core.subset import SubsetProblem

    while isinstance(problem, SubsetProblem):
        problem, design = problem.problem, int(problem.designs[design])
    if isinstance(problem, FunctionProblem):
        crn = problem.common_random_numbers
        rng = replication_rng(seed, rep, None if crn else design)
        params = problem.decode([design])
        raw = problem.function(params, rng)
        name = getattr(problem.function, "__qualname__", repr(problem.function))
        return [f"{name}({params!r}, rng) returned {raw!r}, rng the Generator of replication {rep}"
                f"{' (common random numbers: every design gets it)' if crn else f' of design {design}'}."]
    from mopt.core.family import families

    module = type(problem).__module__
    for family in families().values():
        if module.startswith(family.package_name + "."):
            lines = family.replay_lines(problem, design, rep, seed)
            if lines is not None:
                return list(lines)
    return [f"({type(problem).__name__} tells nothing of a replication but its objective values.)"]
