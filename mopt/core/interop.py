"""pymoo interop: the constraint that mopt problems declare, and integer operators for pymoo's own
algorithms.

A mopt problem is a pymoo ``Problem`` over integer design vectors in ``[xl, xu]``.  When every
in-bounds integer vector is a design (e.g. a :class:`~mopt.FunctionProblem`, whose vector is the
design index) it declares no constraint, so algorithms that refuse constraints (MOEA/D) run it.
Otherwise (e.g. ExPERT's grid, where T > D is no strategy) it declares one inequality constraint
whose value is graded: 0 for a design, else the L1 distance from the proposed vector to the nearest
design plus a tie-breaker below 1e-6 that depends only on the vector (:func:`violation`), so that
pymoo never compares two different infeasible vectors as equal and breaks the tie with a
generator it does not seed.

:func:`pymoo_operators` gives pymoo's algorithms operators that only ever propose designs: a
uniform sample of distinct designs, SBX and polynomial mutation rounded to integers, a repair to
the nearest design and duplicate elimination, so ``minimize`` returns integer, distinct designs.
"""

from __future__ import annotations

import math

import numpy as np
from pymoo.core.duplicate import DefaultDuplicateElimination
from pymoo.core.repair import Repair
from pymoo.core.sampling import Sampling
from pymoo.operators.crossover.sbx import SBX
from pymoo.operators.mutation.pm import PM
from pymoo.operators.repair.rounding import RoundingRepair

from mopt.core.errors import InputError

__all__ = ["pymoo_operators", "every_vector_is_a_design", "violation", "DesignSampling", "DesignRepair"]


def every_vector_is_a_design(problem) -> bool:
    """Whether the integer vectors in ``[xl, xu]`` are exactly the problem's designs (their number
    equals ``n_designs``; designs are distinct vectors in the bounds)."""
    xl = np.asarray(problem.xl, dtype=np.int64).ravel()
    xu = np.asarray(problem.xu, dtype=np.int64).ravel()
    return math.prod(int(u - lo + 1) for lo, u in zip(xl, xu, strict=True)) == int(problem.n_designs)


def violation(problem, X: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """The graded constraint value of the rows of ``X`` (as pymoo proposed them): 0 where ``valid``
    (the rounded row is a design), else the L1 distance to the nearest design (1 where the space
    is too large to look it up) plus a tie-breaker in [0, 1e-6) from the rounded row's position in
    the box ``[xl, xu]``.

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["t"])
    >>> g = violation(prob, np.array([[1], [5]]), np.array([True, False]))  # [5]: 3 from [2]
    >>> float(g[0]), bool(3 <= g[1] < 3 + 1e-6)
    (0.0, True)
    """
    X = np.asarray(X, dtype=float)
    G = np.zeros(len(X))
    bad = np.flatnonzero(~valid)
    if bad.size == 0:
        return G
    try:
        nearest = problem.repair(X[bad])
        designs = np.array([problem.design(int(i)) for i in nearest], dtype=float)
        distance = np.abs(X[bad] - designs).sum(axis=1)
    except InputError:  # a space too large to tabulate, without a repair of its own
        distance = np.ones(bad.size)
    xl = np.asarray(problem.xl, dtype=float).ravel()
    size = np.asarray(problem.xu, dtype=float).ravel() - xl + 1
    cell = np.clip(np.rint(X[bad]), xl, xl + size - 1) - xl
    position = np.zeros(bad.size)  # the rounded row's lexicographic position in the box, in [0, 1)
    scale = 1.0
    for j in range(X.shape[1]):
        scale /= size[j]
        position += cell[:, j] * scale
    G[bad] = np.maximum(distance, 1e-9) + 1e-6 * position
    return G


class DesignSampling(Sampling):
    """A uniform sample of distinct designs (with repeats only beyond ``n_designs``), as vectors."""

    def _do(self, problem, n_samples, *args, random_state=None, **kwargs):
        rng = random_state if random_state is not None else np.random.default_rng()
        n = min(int(n_samples), int(problem.n_designs))
        index = problem.sample_designs(rng, n)
        if n < n_samples:
            index = np.concatenate([index, problem.sample_designs(rng, int(n_samples) - n, replace=True)])
        return np.array([problem.design(int(i)) for i in index], dtype=np.int64)


class DesignRepair(Repair):
    """Each proposed vector becomes its nearest design (:meth:`~mopt.StochasticProblem.repair`)."""

    def _do(self, problem, X, **kwargs):
        if len(X) == 0:
            return np.asarray(X, dtype=np.int64).reshape(0, problem.n_var)
        return np.array([problem.design(int(i)) for i in problem.repair(X)], dtype=np.int64)


def pymoo_operators(problem=None, *, eliminate_duplicates: bool = True) -> dict:
    """Operators for pymoo's own algorithms that keep every candidate an integer, distinct design.

    Parameters
    ----------
    problem : StochasticProblem or None
        The problem (checked; the operators work on whichever mopt problem pymoo runs).
    eliminate_duplicates : bool
        Include ``eliminate_duplicates`` (False for MOEA/D, which takes no such argument).

    Returns
    -------
    dict
        ``sampling`` (distinct designs drawn uniformly), ``crossover`` (SBX, rounded),
        ``mutation`` (polynomial mutation, rounded), ``repair`` (to the nearest design) and
        ``eliminate_duplicates``: keyword arguments of pymoo's algorithms (NSGA2, NSGA3, SMS-EMOA,
        AGE-MOEA; MOEA/D with ``eliminate_duplicates=False``).

    Examples
    --------
    >>> import mopt
    >>> from pymoo.algorithms.moo.nsga2 import NSGA2
    >>> from pymoo.optimize import minimize
    >>> def sim(p, rng):
    ...     return (p["x"] + rng.normal(0, 0.1), (9 - p["x"]) ** 2)
    >>> prob = mopt.FunctionProblem(sim, [{"x": x} for x in range(10)], ["time", "cost"], n_reps=2)
    >>> res = minimize(prob, NSGA2(pop_size=6, **mopt.pymoo_operators(prob)), ("n_gen", 3), seed=1)
    >>> res.X.dtype.kind, len({tuple(x) for x in res.X}) == len(res.X)
    ('i', True)
    """
    if problem is not None and not hasattr(problem, "repair"):
        raise InputError(f"'problem' must be a mopt StochasticProblem; got {type(problem).__name__}.")
    operators = {
        "sampling": DesignSampling(),
        "crossover": SBX(prob=0.9, eta=15, vtype=float, repair=RoundingRepair()),
        "mutation": PM(eta=20, vtype=float, repair=RoundingRepair()),
        "repair": DesignRepair(),
    }
    if eliminate_duplicates:
        operators["eliminate_duplicates"] = DefaultDuplicateElimination()
    return operators
