"""Design spaces of any size: the enumeration limit, uniform sampling and repair without a table.

A problem's design space may be far too large to list (128 VMs over 7 virtual clusters:
5,169,379,425 schedules).  Nothing here allocates per design of the space: methods that must touch
every design refuse a space above :data:`ENUMERATION_LIMIT` (see :func:`check_enumerable`), the
others draw designs with :func:`sample_designs`, and :func:`repair` tabulates design vectors only
for spaces of at most :data:`REPAIR_TABLE_LIMIT` designs.
"""

from __future__ import annotations

import numpy as np

from mopt.core.errors import InputError, check_int

__all__ = ["ENUMERATION_LIMIT", "REPAIR_TABLE_LIMIT", "check_enumerable", "sample_designs", "repair"]

#: most designs a method may simulate one by one: ``exhaustive``, OO over every design, and OCBA
#: and MOCBA without a budget or a sample refuse a larger space; no method samples more designs
#: than this (its state is kept per simulated design).  Larger spaces are searched by sampling.
ENUMERATION_LIMIT = 10**7

#: largest space whose design vectors the default :func:`repair` tabulates
REPAIR_TABLE_LIMIT = 10**6

#: how to search a space above the limit (named in the errors)
SAMPLING_HINT = ("search it by sampling: 'blind_pick', 'ocba', 'mocba' or 'nsga2' with a budget, or 'oo', "
                 "'ocba' or 'mocba' with the option 'sample' (a number of designs drawn uniformly)")


def check_enumerable(method: str, n: int, what: str = "simulates every design") -> None:
    """Refuse ``n`` designs for ``method`` above :data:`ENUMERATION_LIMIT`.

    Examples
    --------
    >>> check_enumerable("exhaustive", 10**3)
    >>> check_enumerable("exhaustive", 5169379425)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: method 'exhaustive' simulates every design: 5,169,379,425 designs are above \
the limit of 10,000,000 (mopt.core.space.ENUMERATION_LIMIT); search it by sampling: 'blind_pick', 'ocba', \
'mocba' or 'nsga2' with a budget, or 'oo', 'ocba' or 'mocba' with the option 'sample' (a number of designs \
drawn uniformly).
    """
    if n > ENUMERATION_LIMIT:
        raise InputError(f"method {method!r} {what}: {n:,} designs are above the limit of {ENUMERATION_LIMIT:,} "
                         f"(mopt.core.space.ENUMERATION_LIMIT); {SAMPLING_HINT}.")


def sample_designs(problem, rng: np.random.Generator, n: int, *, replace: bool = False) -> np.ndarray:
    """``n`` design indices of ``problem`` drawn uniformly (distinct unless ``replace``), in draw order.

    ``rng.choice`` for spaces of at most :data:`ENUMERATION_LIMIT` designs or samples of at most 2 %
    of the space (numpy's own rules then take O(n) memory); otherwise integers are drawn and
    repeats dropped, keeping the first draw.  Memory is O(n) for any space up to 2**62 designs.

    Examples
    --------
    >>> class Huge:
    ...     n_designs = 10**15
    >>> len(set(sample_designs(Huge(), np.random.default_rng(1), 1000).tolist()))
    1000
    """
    size = int(problem.n_designs)
    n = check_int("n", n, low=0, high=None if replace else size)
    if replace:
        return rng.integers(0, size, size=n, dtype=np.int64)
    if n > ENUMERATION_LIMIT:
        raise InputError(f"'n' must be <= {ENUMERATION_LIMIT:,} designs to sample (mopt.core.space."
                         f"ENUMERATION_LIMIT); got {n:,}.")
    if size <= ENUMERATION_LIMIT or n <= size // 50:
        return rng.choice(size, size=n, replace=False).astype(np.int64, copy=False)
    picked = np.empty(0, dtype=np.int64)  # a large share of a huge space: draw, drop repeats
    while len(picked) < n:
        draw = np.concatenate([picked, rng.integers(0, size, size=2 * (n - len(picked)) + 16, dtype=np.int64)])
        _, first = np.unique(draw, return_index=True)
        picked = draw[np.sort(first)][:n]
    return picked


def repair(problem, X: np.ndarray) -> np.ndarray:
    """Design indices of the checked vectors ``X`` (n, n_var): see :meth:`StochasticProblem.repair`.

    Up to :data:`REPAIR_TABLE_LIMIT` designs: a row that is a design's vector is that design, any
    other the nearest design in L1 distance (ties: the lowest index), from a table built once.
    Above: rows are rounded and clipped to ``[xl, xu]`` and looked up with ``problem.index``; a row
    that is still not a design is an error (the problem must override ``repair``).

    Examples
    --------
    >>> from mopt.core.function_problem import FunctionProblem
    >>> prob = FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["time"])
    >>> repair(prob, np.array([[1.0], [7.0]])).tolist()
    [1, 2]
    """
    if problem.n_designs > REPAIR_TABLE_LIMIT:
        return _repair_untabulated(problem, X)
    if getattr(problem, "_design_tree", None) is None:  # built once: a lookup and an L1 k-d tree
        from scipy.spatial import cKDTree

        table = np.array([problem.design(i) for i in range(problem.n_designs)], dtype=np.int64)
        problem._design_lookup = {tuple(row): i for i, row in enumerate(table.tolist())}
        problem._design_tree = cKDTree(table.astype(float))
    out = np.full(len(X), -1, dtype=np.int64)
    for k in np.flatnonzero((X == np.rint(X)).all(axis=1)):
        out[k] = problem._design_lookup.get(tuple(X[k].astype(np.int64).tolist()), -1)
    missing = np.flatnonzero(out < 0)
    if missing.size:
        tree = problem._design_tree
        dist, _ = tree.query(X[missing], k=1, p=1)
        # every design at the nearest distance (a hair of slack for rounding), then the lowest index
        ties = tree.query_ball_point(X[missing], dist * (1 + 1e-9) + 1e-9, p=1)
        out[missing] = [min(t) for t in ties]
    return out


def _repair_untabulated(problem, X: np.ndarray) -> np.ndarray:
    X = np.clip(np.rint(X), np.asarray(problem.xl, dtype=float), np.asarray(problem.xu, dtype=float))
    out = np.empty(len(X), dtype=np.int64)
    for k, row in enumerate(X.astype(np.int64)):
        try:
            out[k] = problem.index(row)
        except (ValueError, TypeError):
            raise InputError(
                f"{type(problem).__name__} has {problem.n_designs:,} designs, too many to tabulate for "
                f"repair (limit {REPAIR_TABLE_LIMIT:,}), and {row.tolist()} is not a design: the problem "
                "must override repair()."
            ) from None
    return out
