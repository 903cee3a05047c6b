"""Search methods behind :func:`mopt.solve`, all sharing the driver in :mod:`mopt.solvers.base`."""

from __future__ import annotations

from mopt.core.errors import InputError
from mopt.core.inputs import canonical
from mopt.core.moved import moved_names
from mopt.solvers.auto import Auto
from mopt.solvers.base import Solver, run
from mopt.solvers.blind_pick import BlindPick
from mopt.solvers.evolutionary_oo import EOO, IOO, EooOcba
from mopt.solvers.exhaustive import Exhaustive
from mopt.solvers.mocba import MOCBA
from mopt.solvers.nsga2 import NSGA2
from mopt.solvers.ocba import OCBA, ocba_allocation
from mopt.solvers.oo import OO
from mopt.solvers.refinement import refine
from mopt.solvers.screen import Screen

__all__ = ["METHODS", "solve", "refine", "Solver", "ocba_allocation"]

#: method name -> Solver class
METHODS: dict[str, type[Solver]] = {cls.name: cls for cls in (Exhaustive, BlindPick, OO, OCBA, MOCBA, NSGA2, Screen)}
METHODS.update({cls.name: cls for cls in (IOO, EOO, EooOcba)})
METHODS[Auto.name] = Auto  # chooses among the others (mopt.solvers.auto)  # iOO/eOO: multi-period (mopt.solvers.evolutionary_oo)


def solve(problem, method: str, *, budget=None, seed=None, executor=None, journal=None, progress=False,
          batch_size=None, uncertainty=True, **options):
    """Search ``problem`` with ``method`` and return a :class:`~mopt.Result`.

    Parameters
    ----------
    problem : StochasticProblem
    method : str
        One of :data:`METHODS`.
    budget : int or None
        Replications to spend at most (None: the method's natural budget).
    seed : int, numpy.random.Generator or None
        Same seed ⇒ same result, whatever the executor or batching.
    executor : concurrent.futures.Executor, distributed.Client or None
        Where replications run (None: in this process).  A Dask ``Client`` (or
        ``client.get_executor()``) gets the problem once and then batches; a worker lost mid-run
        costs time, not results.
    journal : str, PathLike, Journal or None
        An SQLite file that records every finished batch of replications.  Started again with the
        same problem and seed, a killed run resumes: what the journal holds is not simulated again
        and the result equals that of an uninterrupted run.  A journal of another problem or seed
        is refused; with ``seed=None`` the journal's seed is used.  Any method may reuse the
        journal of the same problem and seed.
    progress : bool
        Show a progress bar (stderr) of replications done / budget, with the time left.
    batch_size : int or None
        Design × replication pairs per batch (None: all at once in-process, about eight batches
        per worker on an executor).  Results do not depend on it.
    uncertainty : bool
        Compute how sure the result is (default): ``p_nondominated`` and ``<objective>_lo`` /
        ``_hi`` columns and ``info["uncertainty"]`` (:mod:`mopt.core.uncertainty`).  False leaves
        them out, for searches whose answer is only scored or used inside another search
        (``compare``'s macroreplications, the stages of ``ioo``/``eoo``); the other columns are
        the same either way.
    **options
        Method options (e.g. ``n_reps`` for ``exhaustive``, ``alpha`` for ``blind_pick``).

    Examples
    --------
    >>> import mopt
    >>> def sim(p, rng):
    ...     return (p["x"] + rng.normal(0, 0.1), (3 - p["x"]) ** 2)
    >>> prob = mopt.FunctionProblem(sim, [{"x": x} for x in range(4)], ["time", "cost"])
    >>> res = mopt.solve(prob, "exhaustive", seed=1, n_reps=5)
    >>> res.n_evals, len(res.front)
    (20, 4)
    """
    from mopt.core.multiperiod import MultiPeriodProblem
    from mopt.core.problem import StochasticProblem

    if isinstance(problem, MultiPeriodProblem):  # stage by stage (MultiPeriodResult); no budget or journal
        from mopt.solvers.evolutionary_oo import solve_multiperiod

        if budget is not None or journal is not None:
            raise InputError("a multi-period problem takes no 'budget' or 'journal' (each stage's search has its own).")
        return solve_multiperiod(problem, method, seed=seed, executor=executor, progress=progress, **options)
    if not isinstance(problem, StochasticProblem):
        raise TypeError(f"'problem' must be a mopt StochasticProblem; got {type(problem).__name__}.")
    method = canonical(method, sorted(METHODS), "'method'")  # "OCBA" is 'ocba'; "ocbaa": did you mean
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise TypeError(f"'executor' must be None or have a callable submit() (a concurrent.futures Executor "
                        f"or a dask Client); got {type(executor).__name__}.")
    return run(problem, METHODS[method](**options), budget=budget, seed=seed, executor=executor,
               journal=journal, progress=progress, batch_size=batch_size, uncertainty=uncertainty)


__getattr__ = moved_names(__name__, {"EOOOCBA": "mopt.solvers.evolutionary_oo.EooOcba"})
