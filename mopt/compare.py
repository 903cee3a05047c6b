"""Comparing search methods under equal simulation budgets, scored against a ground truth.

:func:`compare` runs every method at every budget over independent macroreplications and scores
what each run returns (:func:`~mopt.scoring.score`: pcs, regret, hv_ratio, Type I/II errors and
alignment, defined in :mod:`mopt.scoring`) against a ground truth (:func:`ground_truth`: exhaustive
search with many replications, or the known means of a synthetic problem); :func:`summary` gives
the rates and quartiles per method and budget.

Macroreplication ``m`` gets one seed, derived from ``(seed, m)``, that every method and budget
share (common random numbers across methods: differences come from the methods, not the draws);
the ground truth gets a seed of its own, independent of every run.
"""

from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import canonical, suggest
from mopt.core.problem import MAX_REPS, check_replications
from mopt.core.random import resolve_seed
from mopt.core.space import ENUMERATION_LIMIT
from mopt.peers import PEERS, is_peer, parse_peer, run_peer
from mopt.peers import versions as peer_versions
from mopt.scoring import REFERENCE, SCORES, _truth_table, hypervolume_ratio, score  # noqa: F401

# score, hypervolume_ratio, SCORES and REFERENCE live in mopt.scoring and stay importable from here

__all__ = ["compare", "summary", "score", "ground_truth", "hypervolume_ratio", "resolve_budgets"]

#: most macroreplications of one comparison (each is a full set of runs)
MAX_MACROREPS = 10**6

#: columns of :func:`compare`'s frame
COLUMNS = ("method", "budget", "macrorep", "seed", "status", "n_evals", *SCORES, "selected", "versions")
OK, TOO_SMALL = "ok", "budget too small"


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
    if problem.n_designs > ENUMERATION_LIMIT:  # say why exhaustive search is needed, not how to sample
        raise InputError(f"the ground truth is exhaustive search over every design: {problem.n_designs:,} "
                         f"designs are above the limit of {ENUMERATION_LIMIT:,} (mopt.core.space."
                         "ENUMERATION_LIMIT); compare methods on a smaller space.")
    result = solve(problem, "exhaustive", seed=seed, executor=executor, journal=journal, progress=progress,
                   n_reps=n_reps)
    table = result.evaluations.copy()
    table.attrs = {"n_reps": n_reps, "seed": result.seed}
    return table



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

    expected = (f"'{name}' must be a non-empty list of method names from {sorted(METHODS)} or peers "
                f"<peer>:<k> from {sorted(PEERS)}")
    methods = _entries(methods, expected)
    for k, m in enumerate(methods):
        if is_peer(m):
            parse_peer(m, option=name)  # k checked; Optuna's peers need Optuna
            continue
        try:
            methods[k] = canonical(m, sorted(METHODS), f"'{name}'")  # "OCBA" is 'ocba'
        except InputError:
            raise InputError(f"'{name}' must name methods from {sorted(METHODS)} or peers <peer>:<k> from "
                             f"{sorted(PEERS)}; got {m!r}{suggest(m, METHODS) or '.'}") from None
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
                             f"{list(methods)}{suggest(key, methods) or '.'}")
        if not isinstance(value, dict):
            raise InputError(f"'options' for method {key!r} must be a dict of options; got {value!r}.")
    out = {}
    for m in methods:
        opts = dict(options.get(m, {}))
        if is_peer(m):  # peers run with their libraries' defaults
            if opts:
                raise InputError(f"'options' for peer {m!r}: peers take no options (they run with their "
                                 f"libraries' defaults); got {sorted(opts)}.")
            out[m] = opts
            continue
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
    if is_peer(method):  # one evaluation of k replications
        return budget >= parse_peer(method)[1]
    solver = _solver(method, options)
    try:
        if budget < solver.min_budget(problem):
            return False
        solver.check_budget(problem, budget)
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
            truth_reps=None, executor=None, journal=None, progress=False, utilities=None) -> pd.DataFrame:
    """Run each method at each budget over independent macroreplications and score every run.

    Parameters
    ----------
    problem : StochasticProblem
    methods : list of str
        Names in :data:`mopt.METHODS`, or peers ``<peer>:<k>`` (:mod:`mopt.peers`: ``random``,
        ``pymoo-nsga2``, ``optuna-tpe``, ``optuna-nsga2``, each evaluation the mean of k
        replications; the Optuna peers need the extra ``peers``).  Peers take no options and run
        in this process (no executor, no journal).
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
    utilities : dict or None
        More utilities to score every run's decision with: label -> utility (a callable or an
        objective name).  Each adds the columns ``pcs[<label>]`` and ``regret[<label>]`` after the others
        (e.g. a family's :meth:`~mopt.core.family.Family.default_utilities`).
    journal : str, PathLike or None
        A directory of journals, one per seed (``seed-<seed>.sqlite``; the ground truth's has its
        own seed): every method of a macroreplication shares its seed and so its journal, and a
        killed comparison started again resumes without simulating anything twice.

    Returns
    -------
    pandas.DataFrame
        One row per run: ``method, budget, macrorep, seed, status, n_evals``, the scores of
        :func:`score`, ``selected``, ``versions`` (what ran: ``mopt <version>``, or a peer's libraries
        as ``numpy 2.4.0; pymoo 0.6.1``) and, with ``utilities``, their ``pcs[...]`` and
        ``regret[...]``.  ``status`` is ``"ok"``, or ``"budget too small"`` (with NaN
        scores and ``n_evals`` 0) when the method cannot run with that budget.  ``attrs`` records
        the seed, the utility and the truth's replications (and, with peers, ``versions``: peer
        name -> the versions of the libraries it ran).

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
    blind_pick       8         0     ok        8
    blind_pick       8         1     ok        8
    blind_pick      16         0     ok       16
    blind_pick      16         1     ok       16
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
    more = _check_utilities(problem, utilities)
    per_method = _method_options(methods, options, utility)
    fits = {(m, b): _budget_fits(problem, m, per_method[m], b) for m in methods for b in budget_list}
    table = None
    if truth is not None:
        table = _truth_table(truth, problem.objectives)
        if not np.array_equal(table["design"].to_numpy(), np.arange(problem.n_designs)):
            raise InputError(f"'truth' must hold every design 0..{problem.n_designs - 1} of the problem "
                             f"once; got {len(table)} rows.")
    entropy = resolve_seed(seed)

    if table is None:  # the ground truth's replications must fit, before anything is simulated
        if truth_reps is not None:
            check_replications("truth_reps", truth_reps, problem, per_unit=problem.n_designs)
        elif 10 * check_int("problem.n_reps", problem.n_reps, low=1) > 100:  # the default: 10 x n_reps each
            check_replications("n_reps", problem.n_reps, problem, per_unit=10 * problem.n_designs)
    if table is None:
        truth_seed = _derived_seed(entropy, 1)
        table = ground_truth(problem, truth_reps, seed=truth_seed, executor=executor,
                             journal=_journal_file(journal, truth_seed), progress=progress)
        truth_reps = table.attrs["n_reps"]
    seeds = [_derived_seed(entropy, 0, m) for m in range(macroreps)]
    ran = {m: _versions(m) for m in methods}
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
                        if is_peer(method):
                            result = run_peer(problem, method, budget=budget, seed=run_seed, uncertainty=False)
                        else:  # scored against the truth: no uncertainty needed
                            result = solve(problem, method, budget=budget, seed=run_seed, executor=executor,
                                           journal=_journal_file(journal, run_seed), uncertainty=False,
                                           **per_method[method])
                        row.update(status=OK, **score(result, table, u))
                        for label, other in more.items():
                            scored = score(result, table, other)
                            row.update({f"pcs[{label}]": scored["pcs"], f"regret[{label}]": scored["regret"]})
                    else:
                        row.update(status=TOO_SMALL, n_evals=0, **dict.fromkeys(SCORES, math.nan),
                                   selected=None)
                        for label in more:
                            row.update({f"pcs[{label}]": math.nan, f"regret[{label}]": math.nan})
                    row["versions"] = ran[method]
                    rows.append(row)
                    if bar is not None and fits[method, budget]:
                        bar.update(budget)
    finally:
        if bar is not None:
            bar.close()
    extra = [f"{score_}[{label}]" for label in more for score_ in ("pcs", "regret")]
    df = pd.DataFrame(rows, columns=[*COLUMNS, *extra])
    df = df.astype({"budget": np.int64, "macrorep": np.int64, "seed": np.int64, "n_evals": np.int64,
                    **{c: float for c in (*SCORES, *extra)}})
    df["selected"] = pd.array([None if v is None or v != v else int(v) for v in df["selected"]],
                              dtype="Int64")
    df.attrs = {"seed": entropy, "utility": str(u), "truth_reps": truth_reps}
    if more:
        df.attrs["utilities"] = {label: str(other) for label, other in more.items()}
    if any(is_peer(m) for m in methods):  # the peers' libraries, as they ran
        df.attrs["versions"] = {m: peer_versions(m) for m in methods if is_peer(m)}
    return df


def _versions(method: str) -> str:
    """What ``method`` runs, as ``lib version`` pairs: mopt's, or the peer's libraries."""
    if is_peer(method):
        return "; ".join(f"{lib} {v}" for lib, v in peer_versions(method).items())
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"mopt {version('mopt')}"
    except PackageNotFoundError:
        return "mopt (not installed)"


def _check_utilities(problem, utilities) -> dict:
    """``utilities`` (label -> utility or spec) resolved for ``problem``; InputError naming it else."""
    from mopt.solvers.base import resolve_utility, utility_scores

    if utilities is None:
        return {}
    if not isinstance(utilities, dict) or not utilities:
        raise InputError(f"'utilities' must be a non-empty dict of label -> utility (or None); got {utilities!r}.")
    out = {}
    for label, u in utilities.items():
        if not isinstance(label, str) or not label.strip():
            raise InputError(f"'utilities' labels must be non-empty strings; got {label!r}.")
        try:
            out[label] = resolve_utility(problem, u)
            utility_scores(problem, out[label], np.ones((1, problem.n_obj)))
        except InputError as exc:
            raise InputError(f"'utilities' {label!r}: {exc}") from None
    return out


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
