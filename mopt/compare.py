"""Comparing search methods under equal simulation budgets, scored against a ground truth.

:func:`compare` runs every method at every budget over independent macroreplications and scores
what each run returns (:func:`score`) against a ground truth (:func:`ground_truth`: exhaustive
search with many replications, or the known means of a synthetic problem):

* **pcs** — probability of correct selection: 1 if the design a utility picks from the run's
  estimates is truly best (ties in the truth count as correct);
* **regret** — the true utility of that design minus the true best;
* **hv_ratio** — hypervolume of the run's observed Pareto set, at its *true* means, over that of
  the true Pareto front (:func:`hypervolume_ratio`);
* **type1 / type2** — the observed Pareto set holds a design that is not truly Pareto-optimal
  (Type I) / misses a truly Pareto-optimal one (Type II), as in multi-objective OCBA;
* **alignment** — for methods that select a set (``info["selected"]``, e.g. ordinal
  optimisation): how many of the selected designs are among the truly best as many.

A method that selects a set answers with it: the choice, the observed Pareto set and the
hypervolume are then taken over the selected designs only (OO's rough-only estimates, or the
designs NSGA-II discarded, are not part of its answer).

Macroreplication ``m`` gets one seed, derived from ``(seed, m)``, that every method and budget
share (common random numbers across methods: differences come from the methods, not the draws);
the ground truth gets a seed of its own, independent of every run.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.pareto import hypervolume, pareto_mask
from mopt.core.problem import MAX_REPS
from mopt.core.random import resolve_seed
from mopt.core.result import Result

__all__ = ["compare", "summary", "score", "ground_truth", "hypervolume_ratio", "resolve_budgets"]

#: most macroreplications of one comparison (each is a full set of runs)
MAX_MACROREPS = 10**6

#: the score columns of :func:`score` (and of :func:`compare`'s rows)
SCORES = ("pcs", "regret", "hv_ratio", "type1", "type2", "n_false", "n_missed", "alignment")
#: columns of :func:`compare`'s frame
COLUMNS = ("method", "budget", "macrorep", "seed", "status", "n_evals", *SCORES, "selected")
OK, TOO_SMALL = "ok", "budget too small"
#: the reference point of :func:`hypervolume_ratio`, in normalised objectives
REFERENCE = 1.1


# -- scoring -------------------------------------------------------------------------------------
def hypervolume_ratio(selected_F, true_front_F) -> float:
    """Hypervolume of ``selected_F`` over that of the true Pareto front ``true_front_F``.

    Every objective is normalised by the true front's ideal and nadir points,
    ``(f - ideal) / (nadir - ideal)`` (a zero range counts as 1), and the reference point is 1.1 in
    every objective.  Dominated rows of either argument add nothing; selected points beyond the
    reference point contribute nothing.  1 means the selection covers the true front; a selection
    evaluated at its true means can never exceed 1.

    Parameters
    ----------
    selected_F : array_like, shape (n, n_obj)
        Objective values (true means) of the selected designs; may be empty.
    true_front_F : array_like, shape (m, n_obj)
        Objective values of the true Pareto front (m >= 1).

    Examples
    --------
    A true front (1, 3), (2, 2), (3, 1) normalises to (0, 1), (0.5, 0.5), (1, 0), whose
    hypervolume up to (1.1, 1.1) is 0.5·0.1 + 0.5·0.6 + 0.1·1.1 = 0.46.  The middle point alone
    covers 0.6·0.6 = 0.36:

    >>> front = [[1, 3], [2, 2], [3, 1]]
    >>> round(hypervolume_ratio([[2, 2]], front), 4)  # 0.36 / 0.46
    0.7826
    >>> round(hypervolume_ratio([[1, 3], [3, 1], [3, 3]], front), 4)  # (0.1 + 0.11) / 0.46
    0.4565
    >>> hypervolume_ratio(front, front), hypervolume_ratio([[4, 4]], front)
    (1.0, 0.0)
    """
    true_F = _objective_array("true_front_F", true_front_F)
    if len(true_F) == 0:
        raise InputError("'true_front_F' must hold at least one point; got none.")
    n_obj = true_F.shape[1]
    sel = _objective_array("selected_F", selected_F, n_obj=n_obj)
    true_F = true_F[pareto_mask(true_F)]
    ideal, nadir = true_F.min(axis=0), true_F.max(axis=0)
    span = np.where(nadir > ideal, nadir - ideal, 1.0)
    ref = np.full(n_obj, REFERENCE)
    true_hv = hypervolume((true_F - ideal) / span, ref)
    if len(sel) == 0:
        return 0.0
    sel = (sel[pareto_mask(sel)] - ideal) / span
    sel = sel[(sel < ref).all(axis=1)]
    return hypervolume(sel, ref) / true_hv if len(sel) else 0.0


def _objective_array(name: str, values, *, n_obj: int | None = None) -> np.ndarray:
    try:
        F = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be a 2-d array of objective values; got {values!r}.") from None
    if F.size == 0 and n_obj is not None:
        return F.reshape(0, n_obj)
    if F.ndim != 2 or (n_obj is not None and F.shape[1] != n_obj):
        what = f"shape (n, {n_obj})" if n_obj is not None else "a 2-d array of objective values"
        raise InputError(f"'{name}' must be {what}; got shape {F.shape}.")
    if not np.isfinite(F).all():
        raise InputError(f"'{name}' must hold finite numbers; got {F[~np.isfinite(F)][0]!r}.")
    return F


class _Objectives:
    """The part of a problem that :func:`~mopt.solvers.base.resolve_utility` reads."""

    def __init__(self, objectives):
        self.objectives = tuple(objectives)
        self.n_obj = len(self.objectives)


def _resolve_utility(objectives, utility):
    from mopt.solvers.base import resolve_utility

    return resolve_utility(_Objectives(objectives), utility)


def _truth_table(truth, objectives) -> pd.DataFrame:
    """``truth`` as a DataFrame with a ``design`` column (sorted, unique) and the objective columns."""
    objectives = list(objectives)
    if isinstance(truth, Result):
        missing = [o for o in objectives if o not in truth.objectives]
        if missing:
            raise InputError(f"'truth' must be a Result with the objectives {objectives}; it has "
                             f"{list(truth.objectives)}.")
        table = truth.evaluations
    elif isinstance(truth, pd.DataFrame):
        table = truth
    elif isinstance(truth, (np.ndarray, list, tuple)):
        try:
            F = np.asarray(truth, dtype=float)
        except (TypeError, ValueError):
            raise InputError("'truth' must be a DataFrame, a Result or an array of objective means "
                             "(n_designs, n_obj); got an array that is not numeric.") from None
        if F.ndim == 1 and len(objectives) == 1:  # one objective: a plain vector of means
            F = F[:, None]
        if F.ndim != 2 or F.shape[1] != len(objectives) or len(F) == 0:
            raise InputError(f"'truth' as an array must have shape (n_designs, {len(objectives)}) "
                             f"(objectives {objectives}); got shape {F.shape}.")
        table = pd.DataFrame(F, columns=objectives)
        table.insert(0, "design", np.arange(len(F)))
    else:
        raise InputError("'truth' must be a DataFrame (columns 'design' and the objectives), a Result or "
                         f"an array of objective means; got {type(truth).__name__}.")
    missing = [c for c in ("design", *objectives) if c not in table.columns]
    if missing:
        raise InputError(f"'truth' must have the columns 'design' and {objectives}; column "
                         f"{missing[0]!r} is missing.")
    if len(table) == 0:
        raise InputError("'truth' must hold at least one design; got none.")
    design = pd.to_numeric(table["design"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(design) | (design < 0) | (design != np.floor(design))
    if bad.any():
        raise InputError(f"'truth' column 'design' must hold non-negative integers; got "
                         f"{table['design'].iloc[int(np.flatnonzero(bad)[0])]!r}.")
    design = design.astype(np.int64)
    if len(np.unique(design)) != len(design):
        dup = pd.Series(design)[pd.Series(design).duplicated()].iloc[0]
        raise InputError(f"'truth' must have one row per design; design {dup} appears twice.")
    for name in objectives:
        values = pd.to_numeric(table[name], errors="coerce").to_numpy(dtype=float)
        if not np.isfinite(values).all():
            k = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InputError(f"'truth' column {name!r} must hold finite numbers; got "
                             f"{table[name].iloc[k]!r} for design {design[k]}.")
    out = table.copy()
    out["design"] = design
    out[objectives] = out[objectives].astype(float)
    return out.sort_values("design").reset_index(drop=True)


def _true_utility(table: pd.DataFrame, utility) -> np.ndarray:
    scores = np.asarray(utility(table), dtype=float)
    if scores.shape != (len(table),):
        raise InputError(f"'utility' must return one score per row; got shape {scores.shape} for "
                         f"{len(table)} rows.")
    scores = np.where(np.isnan(scores), np.inf, scores)
    if not np.isfinite(scores).any():
        raise InputError(f"'utility' {utility!r}: no design of the truth satisfies it (every score is "
                         "inf or NaN).")
    return scores


def ground_truth(problem, n_reps=None, seed=0, executor=None, journal=None, progress=False) -> pd.DataFrame:
    """The objective means of every design, estimated by exhaustive search with many replications.

    Parameters
    ----------
    problem : StochasticProblem
    n_reps : int or None
        Replications per design (None: ``max(100, 10 * problem.n_reps)``).
    seed, executor, journal, progress
        As for :func:`mopt.solve`.

    Returns
    -------
    pandas.DataFrame
        Exhaustive search's ``evaluations``: ``design``, parameters, objective means and standard
        errors, ``n_reps``; ``attrs`` records ``n_reps`` and ``seed``.

    Examples
    --------
    >>> import mopt
    >>> def sim(p, rng):
    ...     return (p["x"] + rng.normal(0, 0.1), (3 - p["x"]) ** 2)
    >>> prob = mopt.FunctionProblem(sim, [{"x": x} for x in range(4)], ["time", "cost"], n_reps=2)
    >>> truth = ground_truth(prob, n_reps=50)
    >>> truth["design"].tolist(), truth["n_reps"].tolist(), truth["cost"].tolist()
    ([0, 1, 2, 3], [50, 50, 50, 50], [9.0, 4.0, 1.0, 0.0])
    """
    from mopt.solvers import solve

    if n_reps is None:
        n_reps = max(100, 10 * check_int("problem.n_reps", problem.n_reps, low=1))
    n_reps = check_int("n_reps", n_reps, low=1)
    result = solve(problem, "exhaustive", seed=seed, executor=executor, journal=journal, progress=progress,
                   n_reps=n_reps)
    table = result.evaluations.copy()
    table.attrs = {"n_reps": n_reps, "seed": result.seed}
    return table


def score(result: Result, truth, utility=None) -> dict:
    """Score one search ``result`` against the ``truth``.

    Parameters
    ----------
    result : Result
    truth : DataFrame, Result or array_like
        The true objective means of (at least) every design ``result`` evaluated: a DataFrame with
        a ``design`` column and the objective columns (e.g. :func:`ground_truth`), a Result, or an
        array of shape (n_designs, n_obj) whose row ``i`` is design ``i``.  The true Pareto set is
        :func:`mopt.pareto_mask` over all its rows (weakly tied duplicates are all kept).
    utility : callable, str or None
        Lower is better; None: the objective, or the product of all objectives.

    Returns
    -------
    dict
        ``pcs``, ``regret``, ``hv_ratio``, ``type1``, ``type2``, ``n_false``, ``n_missed``,
        ``n_evals``, ``alignment`` (NaN without ``info["selected"]``) and ``selected`` (the design
        the utility picks from the result's estimates; None if it picks none, and then pcs is 0 and
        regret NaN).

    Examples
    --------
    >>> import pandas as pd, mopt
    >>> ev = pd.DataFrame({"design": [0, 2], "time": [1.0, 3.1], "cost": [2.0, 0.9], "n_reps": 5})
    >>> res = mopt.Result("blind_pick", 1, 10, ("time", "cost"), ev)
    >>> s = score(res, [[1, 2], [2, 0.5], [3, 1]], utility="time")
    >>> s["pcs"], s["regret"], s["type1"], s["n_false"], s["n_missed"]
    (1.0, 0.0, 1.0, 1, 1)
    """
    if not isinstance(result, Result):
        raise InputError(f"'result' must be a mopt Result; got {type(result).__name__}.")
    objectives = list(result.objectives)
    table = _truth_table(truth, objectives)
    u = _resolve_utility(objectives, utility)
    true_u = _true_utility(table, u)
    designs = table["design"].to_numpy()
    position = pd.Series(np.arange(len(designs)), index=designs)
    evaluated = result.evaluations["design"].to_numpy(dtype=np.int64)
    unknown = np.setdiff1d(evaluated, designs)
    if len(unknown):
        raise InputError(f"'truth' has no row for design {unknown[0]}, which the result evaluated.")

    # a method that selects a set (OO's accurately re-estimated designs, NSGA-II's final front)
    # answers with that set: rough or discarded estimates are not its answer
    selected = result.info.get("selected")
    if selected is not None:
        keep = result.evaluations["design"].isin([int(i) for i in np.ravel(selected)])
        result = dataclasses.replace(result, evaluations=result.evaluations[keep].reset_index(drop=True))

    best = float(true_u.min())
    try:
        chosen = int(result.best(u)["design"])
    except InputError as exc:
        if "no evaluated design satisfies" not in str(exc):
            raise
        chosen = None
    if chosen is None:
        pcs, regret = 0.0, math.nan
    else:
        value = float(true_u[position[chosen]])
        pcs = 1.0 if value <= best + 1e-12 * max(1.0, abs(best)) else 0.0
        regret = value - best

    F = table[objectives].to_numpy(dtype=float)
    true_mask = pareto_mask(F)
    true_set = set(designs[true_mask].tolist())
    front = result.front["design"].to_numpy(dtype=np.int64)
    observed_set = set(front.tolist())
    n_false = len(observed_set - true_set)
    n_missed = len(true_set - observed_set)
    hv = hypervolume_ratio(F[position[front].to_numpy()], F[true_mask])

    alignment = math.nan
    if selected is not None:
        chosen_set = {int(i) for i in np.ravel(selected)}
        order = np.lexsort((designs, true_u))
        top = set(designs[order[: len(chosen_set)]].tolist())
        alignment = float(len(chosen_set & top))
    return {
        "pcs": pcs, "regret": regret, "hv_ratio": hv,
        "type1": float(n_false > 0), "type2": float(n_missed > 0),
        "n_false": n_false, "n_missed": n_missed, "n_evals": int(result.n_evals),
        "alignment": alignment, "selected": chosen,
    }


# -- validation ----------------------------------------------------------------------------------
def _entries(values, expected: str) -> list:
    """``values`` as a non-empty list (not one string or number); InputError ``expected`` otherwise."""
    if isinstance(values, (str, bytes, numbers.Number)) or values is None:
        raise InputError(f"{expected}; got {values!r}.")
    try:
        entries = list(values)
    except TypeError:
        raise InputError(f"{expected}; got {values!r}.") from None
    if not entries:
        raise InputError(f"{expected}; got none.")
    return entries


def resolve_budgets(budgets, problem, *, name: str = "budgets") -> list[int]:
    """Budgets in replications, ascending and without duplicates.

    Entries are integers (replications) or percentages of exhaustive search's budget
    ``n_designs × problem.n_reps`` such as ``"10%"`` (rounded down, at least 1); strings of digits
    count as integers.  ``name`` is the parameter named in errors.

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.FunctionProblem(lambda p, rng: (p["x"],), [{"x": x} for x in range(30)], ["t"])
    >>> resolve_budgets(["10%", 500, "0.1%", "2.5%", "300"], prob)  # of 30 × 10 = 300
    [1, 7, 30, 300, 500]
    """
    full = problem.n_designs * check_int("problem.n_reps", problem.n_reps, low=1)
    expected = f"'{name}' must be a non-empty list of replications (integers >= 1) or percentages such as '10%'"
    entries = _entries(budgets, expected)
    out = []
    for entry in entries:
        text = entry.strip() if isinstance(entry, str) else None
        try:
            if text is not None and text.endswith("%"):
                pct = check_number(name, float(text[:-1]), low=0, low_open=True)
                out.append(max(1, math.floor(full * pct / 100 + 1e-9)))
            else:
                out.append(check_int(name, int(text) if text is not None else entry, low=1, high=MAX_REPS))
        except (InputError, TypeError, ValueError):
            raise InputError(f"{expected}; got {entry!r}.") from None
    return sorted(set(out))


def _check_methods(methods, *, name: str = "methods") -> list[str]:
    from mopt.solvers import METHODS

    expected = f"'{name}' must be a non-empty list of method names from {sorted(METHODS)}"
    methods = _entries(methods, expected)
    for m in methods:
        if not isinstance(m, str) or m not in METHODS:
            raise InputError(f"'{name}' must name methods from {sorted(METHODS)}; got {m!r}.")
    dup = next((m for k, m in enumerate(methods) if m in methods[:k]), None)
    if dup is not None:
        raise InputError(f"'{name}' must not repeat a method; got {dup!r} twice.")
    return methods


def _method_options(methods, options, utility) -> dict[str, dict]:
    """Per method, the options to run it with (compare's ``utility`` passed on to methods that take
    one and were not given their own)."""
    from mopt.solvers import METHODS

    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise InputError(f"'options' must be a dict of method name -> dict of options; got {options!r}.")
    for key, value in options.items():
        if key not in methods:
            raise InputError(f"'options' has options for method {key!r}, which is not in 'methods' "
                             f"{list(methods)}.")
        if not isinstance(value, dict):
            raise InputError(f"'options' for method {key!r} must be a dict of options; got {value!r}.")
    out = {}
    for m in methods:
        opts = dict(options.get(m, {}))
        if utility is not None and "utility" in METHODS[m].defaults and "utility" not in opts:
            opts["utility"] = utility
        out[m] = opts
    return out


def _solver(method: str, options: dict):
    from mopt.solvers import METHODS

    try:
        return METHODS[method](**options)
    except (InputError, TypeError) as exc:
        raise type(exc)(f"'options' for method {method!r}: {exc}") from None


def _budget_fits(problem, method: str, options: dict, budget: int) -> bool:
    """Whether ``method`` can run with ``budget`` on ``problem`` (bad options raise, naming them)."""
    solver = _solver(method, options)
    try:
        if budget < solver._min_budget(problem):
            return False
        solver._check(problem, budget)
    except InputError as exc:
        if str(exc).startswith("'budget'"):
            return False
        raise InputError(f"'options' for method {method!r}: {exc}") from None
    except TypeError as exc:
        raise TypeError(f"'options' for method {method!r}: {exc}") from None
    return True


def _derived_seed(entropy: int, *key: int) -> int:
    """A non-negative 63-bit seed from the stream ``key`` of the seed tree ``entropy``."""
    state = np.random.SeedSequence(entropy, spawn_key=key).generate_state(1, np.uint64)[0]
    return int(state >> np.uint64(1))


# -- compare -------------------------------------------------------------------------------------
def compare(problem, methods, budgets, macroreps, seed=None, truth=None, *, utility=None, options=None,
            truth_reps=None, executor=None, journal=None, progress=False) -> pd.DataFrame:
    """Run each method at each budget over independent macroreplications and score every run.

    Parameters
    ----------
    problem : StochasticProblem
    methods : list of str
        Names in :data:`mopt.METHODS`.
    budgets : list of int or str
        Replications, or percentages of exhaustive search's budget (``"10%"``); see
        :func:`resolve_budgets`.  Each run spends up to its budget (``n_evals`` says how much):
        exhaustive search's replications follow it (``budget // n_designs`` each, unless its
        options fix ``n_reps``).
    macroreps : int
        Independent repetitions of every (method, budget) run.
    seed : int, numpy.random.Generator or None
        Same seed ⇒ identical frame.  Macroreplication ``m`` runs every method and budget with the
        same seed (the frame's ``seed`` column), derived from ``(seed, m)``.
    truth : DataFrame, Result, array_like or None
        The true means of every design (see :func:`score`); None: :func:`ground_truth` with
        ``truth_reps`` replications per design and a seed independent of the runs'.
    utility : callable, str or None
        Scores decisions (pcs, regret, alignment); None: the objective, or the product of all
        objectives.  Also passed to methods that take a ``utility`` option and were not given one.
    options : dict or None
        Method name -> dict of that method's options.
    truth_reps : int or None
        Replications per design of the ground truth (None: ``max(100, 10 * problem.n_reps)``).
    executor, progress
        As for :func:`mopt.solve` (progress: one bar over the runs).
    journal : str, PathLike or None
        A directory of journals, one per seed (``seed-<seed>.sqlite``; the ground truth's has its
        own seed): every method of a macroreplication shares its seed and so its journal, and a
        killed comparison started again resumes without simulating anything twice.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``method, budget, macrorep, seed, status, n_evals``, the scores of
        :func:`score` and ``selected``.  ``status`` is ``"ok"``, or ``"budget too small"`` (with NaN
        scores and ``n_evals`` 0) when the method cannot run with that budget.  ``attrs`` records
        the seed, the utility and the truth's replications.

    Examples
    --------
    >>> import mopt
    >>> def sim(p, rng):
    ...     return (p["x"] + rng.normal(0, 0.5), (3 - p["x"]) ** 2 + rng.normal(0, 0.5))
    >>> prob = mopt.FunctionProblem(sim, [{"x": x} for x in range(4)], ["time", "cost"], n_reps=4)
    >>> df = compare(prob, ["exhaustive", "blind_pick"], ["50%", 16], 2, seed=1, truth_reps=20)
    >>> print(df[["method", "budget", "macrorep", "status", "n_evals"]].to_string(index=False))
        method  budget  macrorep status  n_evals
    exhaustive       8         0     ok        8
    exhaustive       8         1     ok        8
    exhaustive      16         0     ok       16
    exhaustive      16         1     ok       16
    blind_pick       8         0     ok        4
    blind_pick       8         1     ok        4
    blind_pick      16         0     ok        4
    blind_pick      16         1     ok        4
    """
    from mopt.core.problem import StochasticProblem
    from mopt.solvers import solve
    from mopt.solvers.base import progress_bar, resolve_utility, utility_scores

    # -- validate everything before simulating anything --
    if not isinstance(problem, StochasticProblem):
        raise TypeError(f"'problem' must be a mopt StochasticProblem; got {type(problem).__name__}.")
    methods = _check_methods(methods)
    budget_list = resolve_budgets(budgets, problem)
    macroreps = check_int("macroreps", macroreps, low=1, high=MAX_MACROREPS)
    if truth_reps is not None:
        if truth is not None:
            raise InputError("'truth_reps' is for computing the ground truth; give either 'truth' or "
                             f"'truth_reps', not both (got truth_reps={truth_reps!r}).")
        truth_reps = check_int("truth_reps", truth_reps, low=1)
    u = resolve_utility(problem, utility)
    utility_scores(problem, u, np.ones((1, problem.n_obj)))  # a utility naming other columns fails here
    per_method = _method_options(methods, options, utility)
    fits = {(m, b): _budget_fits(problem, m, per_method[m], b) for m in methods for b in budget_list}
    table = None
    if truth is not None:
        table = _truth_table(truth, problem.objectives)
        if not np.array_equal(table["design"].to_numpy(), np.arange(problem.n_designs)):
            raise InputError(f"'truth' must hold every design 0..{problem.n_designs - 1} of the problem "
                             f"once; got {len(table)} rows.")
    entropy = resolve_seed(seed)

    if table is None:
        truth_seed = _derived_seed(entropy, 1)
        table = ground_truth(problem, truth_reps, seed=truth_seed, executor=executor,
                             journal=_journal_file(journal, truth_seed), progress=progress)
        truth_reps = table.attrs["n_reps"]
    seeds = [_derived_seed(entropy, 0, m) for m in range(macroreps)]
    # replications allotted to the runs (a run may spend less than its budget)
    bar = progress_bar(progress, macroreps * sum(b for m in methods for b in budget_list if fits[m, b]),
                        "compare")
    rows = []
    try:
        for method in methods:
            for budget in budget_list:
                for m, run_seed in enumerate(seeds):
                    row = {"method": method, "budget": budget, "macrorep": m, "seed": run_seed}
                    if fits[method, budget]:
                        result = solve(problem, method, budget=budget, seed=run_seed, executor=executor,
                                       journal=_journal_file(journal, run_seed), **per_method[method])
                        row.update(status=OK, **score(result, table, u))
                    else:
                        row.update(status=TOO_SMALL, n_evals=0, **dict.fromkeys(SCORES, math.nan),
                                   selected=None)
                    rows.append(row)
                    if bar is not None and fits[method, budget]:
                        bar.update(budget)
    finally:
        if bar is not None:
            bar.close()
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    df = df.astype({"budget": np.int64, "macrorep": np.int64, "seed": np.int64, "n_evals": np.int64,
                    **{c: float for c in SCORES}})
    df["selected"] = pd.array([None if v is None or v != v else int(v) for v in df["selected"]],
                              dtype="Int64")
    df.attrs = {"seed": entropy, "utility": str(u), "truth_reps": truth_reps}
    return df


def _journal_file(directory, seed: int):
    """The journal of ``seed`` in the journal ``directory`` (None without one)."""
    if directory is None:
        return None
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(f"'journal' must be a directory path or None; got {type(directory).__name__}.")
    path = Path(directory)
    if path.exists() and not path.is_dir():
        raise InputError(f"'journal' must be a directory for compare (one journal per seed); "
                         f"{str(path)!r} is a file.")
    return path / f"seed-{int(seed)}.sqlite"


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per method × budget: runs, ``n_evals`` (the replications a run spent, averaged over the runs:
    how much of its budget each method used), mean pcs, quartiles of hv_ratio and regret, Type I/II
    rates (over the runs with status ``"ok"``; a budget too small for every run has NaN scores).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"method": "m", "budget": 10, "status": "ok", "pcs": [1.0, 0.0, 1.0, 1.0],
    ...                    "regret": [0.0, 2.0, 0.0, 0.0], "hv_ratio": [1.0, 0.5, 0.9, 0.8],
    ...                    "type1": [0.0, 1.0, 0.0, 0.0], "type2": 0.0, "n_evals": 10})
    >>> print(summary(df)[["runs", "n_evals", "pcs", "hv_ratio_median", "regret_q3", "type1"]].to_string(index=False))
     runs  n_evals  pcs  hv_ratio_median  regret_q3  type1
        4     10.0 0.75             0.85        0.5   0.25
    """
    needed = ["method", "budget", "status", "pcs", "regret", "hv_ratio", "type1", "type2", "n_evals"]
    missing = [c for c in needed if c not in df.columns]
    if missing:
        raise InputError(f"'df' must be a frame from mopt.compare(); column {missing[0]!r} is missing.")
    rows = []
    for (method, budget), group in df.groupby(["method", "budget"], sort=False):
        ok = group[group["status"] == OK]
        row = {"method": method, "budget": int(budget), "runs": len(ok), "n_evals": ok["n_evals"].mean(),
               "status": OK if len(ok) else TOO_SMALL, "pcs": ok["pcs"].mean()}
        for metric in ("hv_ratio", "regret"):
            q = ok[metric].quantile([0.25, 0.5, 0.75]) if len(ok) else pd.Series([math.nan] * 3)
            row.update({f"{metric}_q1": float(q.iloc[0]), f"{metric}_median": float(q.iloc[1]),
                        f"{metric}_q3": float(q.iloc[2])})
        row.update(type1=ok["type1"].mean(), type2=ok["type2"].mean())
        rows.append(row)
    return pd.DataFrame(rows)
