"""The utility a method searches by: resolved from what the user gives (None, an objective name,
a spec, a callable) and scored on rows of objective values."""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError

__all__ = ["resolve_utility", "utility_scores"]


def resolve_utility(problem, utility, *, risk: bool = False):
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
                       lambda df: np.prod([np.asarray(df[c], dtype=float) for c in objectives], axis=0),
                       arrays=True)
    if isinstance(utility, str) and "(" in utility:  # a spec, as mopt decide takes it (scenario files: [run] options)
        from mopt.utility_spec import parse_utility

        utility = parse_utility(utility)
        unknown = [c for c in (*utility.columns, *(t.objective for t in utility.risk))
                   if c not in objectives and not any(c in t.columns() for t in utility.risk)]
        if unknown:
            raise InputError(f"'utility' {utility.name} reads {unknown[0]!r}, which is not an objective of the "
                             f"problem ({', '.join(objectives)}).")
    elif isinstance(utility, str):
        if utility not in objectives:
            raise InputError(f"'utility' must be an objective name {list(objectives)}, a utility such as "
                             f"'product(a, b)', or a callable; got {utility!r}.")
        return minimize(utility)
    if not callable(utility):
        raise InputError(f"'utility' must be None, an objective name or a callable (DataFrame -> Series); "
                         f"got {utility!r}.")
    if getattr(utility, "risk", ()) and not risk:
        raise InputError(f"'utility' {utility.name} reads estimates from each design's replications (a "
                         "chance constraint, a quantile or a CVaR); of the search methods only 'ocba' takes one: "
                         "search with it, or with a utility of the means (e.g. the same constraint on the mean) "
                         "and then choose under risk (mopt decide, mopt.core.risk.with_risk).")
    return utility


def utility_scores(problem, utility, values: np.ndarray) -> np.ndarray:
    """``utility`` of each row of ``values`` (shape (n, n_obj)), as a float array."""
    import pandas as pd

    from mopt.core.utility import Utility

    values = np.asarray(values, dtype=float).reshape(-1, problem.n_obj)
    objectives = list(problem.objectives)
    if isinstance(utility, Utility) and utility.arrays and set(utility.columns) <= set(objectives):
        # a mopt utility scores arrays: no DataFrame (contiguous columns, as a DataFrame's are)
        scores = utility.score_arrays({c: np.ascontiguousarray(values[:, j]) for j, c in enumerate(objectives)})
    else:
        scores = np.asarray(utility(pd.DataFrame(values, columns=objectives)), dtype=float)
    if scores.shape != (len(values),):
        raise InputError(f"'utility' must return one score per row; got shape {scores.shape} for "
                         f"{len(values)} rows.")
    bad = np.isnan(scores) & np.isfinite(values).all(axis=1)
    if bad.any():  # e.g. U's power of a negative objective: say so, not a NaN mean later (a NaN
        # from an infinite objective, e.g. inf × 0, stays: it counts as the worst score)
        row = dict(zip(objectives, values[int(np.flatnonzero(bad)[0])].tolist(), strict=True))
        raise InputError(f"'utility' {utility} is undefined (NaN) for the objectives {row}; choose a "
                         f"utility defined on this problem's objective values.")
    return scores
