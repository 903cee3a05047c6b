"""How long a run will take and how much memory it needs, before it runs: :func:`estimate`
(``mopt frontier --estimate``), from a pilot of the method's first replications
(:mod:`mopt.solvers.pace`)."""

from __future__ import annotations

import numpy as np

from mopt.solvers.pace import _pace, estimated, format_duration

__all__ = ["estimate", "describe"]


def estimate(problem, method: str, *, budget=None, seed=None, workers: int = 1, **options) -> dict:
    """How long ``mopt.solve(problem, method, budget=budget, seed=seed, **options)`` will take on
    ``workers`` workers, and how much memory its replications need, before it runs: a pilot of
    the method's first replications (module docstring). Returns ``replications``,
    ``memory_bytes``, ``seconds``, ``seconds_per_replication``, ``timed`` (pairs timed) and
    ``workers``.

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.NormalProblem([[1, 2], [2, 1]], n_reps=10)
    >>> e = estimate(prob, "exhaustive")
    >>> e["replications"], e["memory_bytes"], e["seconds"] < 1
    (20, 1600, True)
    """
    from mopt.core.errors import check_int
    from mopt.core.problem import MAX_REPS, replication_bytes
    from mopt.core.random import resolve_seed
    from mopt.solvers import METHODS
    from mopt.solvers.base import SearchState, _plan, check_run_memory

    if method not in METHODS:
        from mopt.core.inputs import canonical

        method = canonical(method, sorted(METHODS), "'method'")
    solver = METHODS[method](**options)
    given = budget is not None
    budget = check_int("budget", budget, low=1, high=MAX_REPS) if given else solver._default_budget(problem)
    solver.check_budget(problem, budget)
    check_run_memory(problem, solver, budget if given else None)
    entropy = resolve_seed(seed)
    state = SearchState(problem, budget, np.random.default_rng([entropy, 0x5EED]), budget_given=given)
    plan = _plan(state, solver._ask(state))
    figures = (estimated(problem, budget, plan, entropy, workers) if plan else
               {"replications": int(budget), "seconds_per_replication": 0.0, "timed": 0,
                "workers": max(1, int(workers)), "seconds": 0.0})
    figures["memory_bytes"] = int(budget * replication_bytes(problem))
    return figures


def describe(figures: dict) -> str:
    """One line for :func:`estimate`'s figures (``mopt frontier --estimate``)."""
    n = figures["memory_bytes"]
    memory = (f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.1f} MiB" if n >= 2**20
              else f"{n / 2**10:,.1f} KiB")
    return (f"estimate: {figures['replications']:,} replications, about {memory} of "
            f"memory and {format_duration(figures['seconds'])} ({_pace(figures)}).")
