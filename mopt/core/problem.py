"""StochasticProblem: a pymoo ``Problem`` whose objectives are estimated by replications.

A problem has a finite, enumerable design space (``n_designs``, ``design(i)``, ``index(x)``,
``decode(x)``) and one expensive call, :meth:`StochasticProblem.replicate`, which returns raw
replications.  ``_evaluate`` averages ``n_reps`` replications from the problem's own seed, so any
pymoo algorithm runs the problem unchanged.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd
from pymoo.core.problem import Problem

from mopt.core.errors import InputError, check_int
from mopt.core.random import SeedLike, replication_rng, resolve_seed

__all__ = ["StochasticProblem", "FunctionProblem"]


class StochasticProblem(Problem):
    """Base class of every mopt problem.

    Subclasses set :attr:`objectives`, the design space and implement :meth:`_replicate`.

    Parameters
    ----------
    objectives : sequence of str
        Names of the objectives, all minimised.
    n_var, xl, xu : int, array_like
        pymoo's description of the design vector (integer-valued here).
    n_reps : int
        Replications averaged by ``_evaluate`` (pymoo's view of the problem).
    seed : int
        Seed of the replications that ``_evaluate`` averages.
    """

    #: names of the parameters that :meth:`decode` returns
    parameter_names: tuple[str, ...] = ()

    def __init__(self, *, objectives: Sequence[str], n_var: int, xl, xu, n_reps: int = 10, seed: int = 0):
        super().__init__(n_var=n_var, n_obj=len(objectives), n_ieq_constr=1, xl=xl, xu=xu, vtype=int)
        self.objectives = tuple(objectives)
        self.n_reps = n_reps
        self.seed = seed

    # -- design space ----------------------------------------------------------------------
    @property
    def n_designs(self) -> int:
        """Number of designs in the (finite) design space."""
        raise NotImplementedError

    def design(self, i: int) -> np.ndarray:
        """The design vector ``x`` of design index ``i``."""
        raise NotImplementedError

    def index(self, x) -> int:
        """The design index of design vector ``x`` (ValueError if ``x`` is not a design)."""
        raise NotImplementedError

    def decode(self, x) -> dict:
        """Named parameters of design vector ``x``."""
        raise NotImplementedError

    def designs_frame(self, indices) -> pd.DataFrame:
        """Decoded parameters of the designs ``indices``, one row each (column ``design`` first)."""
        indices = np.asarray(indices, dtype=np.int64)
        rows = [self.decode(self.design(int(i))) for i in indices]
        df = pd.DataFrame(rows, columns=list(self.parameter_names) or None)
        df.insert(0, "design", indices)
        return df

    def _check_index(self, i) -> int:
        return check_int("design index", i, low=0, high=self.n_designs - 1)

    # -- replications ----------------------------------------------------------------------
    def replicate(self, indices, reps, seed: SeedLike) -> np.ndarray:
        """Raw replications ``reps`` (replication indices) of the designs ``indices``.

        Returns
        -------
        ndarray, shape (len(indices), len(reps), n_obj)
            Replication ``r`` of design ``i`` depends only on ``(seed, i, r)``.
        """
        entropy = resolve_seed(seed)
        indices = np.asarray(indices, dtype=np.int64).ravel()
        reps = np.asarray(reps, dtype=np.int64).ravel()
        if len(indices) and (indices.min() < 0 or indices.max() >= self.n_designs):
            bad = indices[(indices < 0) | (indices >= self.n_designs)][0]
            raise InputError(f"'design index' must be in [0, {self.n_designs - 1}]; got {bad}.")
        if len(reps) and reps.min() < 0:
            raise InputError(f"'reps' must be non-negative replication indices; got {reps.min()}.")
        if len(indices) == 0 or len(reps) == 0:
            return np.empty((len(indices), len(reps), self.n_obj))
        return self._replicate(indices, reps, entropy)

    def _replicate(self, indices: np.ndarray, reps: np.ndarray, entropy: int) -> np.ndarray:
        raise NotImplementedError

    def simulate(self, X, n_reps: int, seed: SeedLike, *, rep_offset: int = 0) -> np.ndarray:
        """Replications ``rep_offset .. rep_offset + n_reps - 1`` of the design vectors ``X``.

        Returns an array of shape ``(len(X), n_reps, n_obj)``.
        """
        n_reps = check_int("n_reps", n_reps, low=1)
        rep_offset = check_int("rep_offset", rep_offset, low=0)
        X = np.atleast_2d(np.asarray(X))
        indices = [self.index(x) for x in X]
        return self.replicate(indices, np.arange(rep_offset, rep_offset + n_reps), seed)

    def _evaluate(self, x, out, *args, **kwargs):
        # pymoo proposes any integer vector in [xl, xu]; one that is not a design (e.g. T > D) is
        # infeasible (G = 1, F = inf) instead of an error, so pymoo algorithms run unchanged.
        X = np.atleast_2d(np.rint(np.asarray(x, dtype=float)).astype(np.int64))
        indices = np.full(len(X), -1, dtype=np.int64)
        for k, row in enumerate(X):
            try:
                indices[k] = self.index(row)
            except (ValueError, TypeError):
                pass
        valid = indices >= 0
        F = np.full((len(X), self.n_obj), np.inf)
        if valid.any():
            F[valid] = self.replicate(indices[valid], np.arange(self.n_reps), self.seed).mean(axis=1)
        out["F"] = F
        out["G"] = np.where(valid, 0.0, 1.0)[:, None]

    def fingerprint(self) -> str:
        """A short hash of everything that determines the replications (for journals and results)."""
        return hashlib.sha256(json.dumps(self._identity(), sort_keys=True, default=str).encode()).hexdigest()[:16]

    def _identity(self) -> dict:
        return {"class": type(self).__name__, "objectives": self.objectives, "n_designs": self.n_designs}


class FunctionProblem(StochasticProblem):
    """A problem around a user's own simulator.

    Parameters
    ----------
    simulate : callable
        ``simulate(params: dict, rng: numpy.random.Generator) -> tuple of objective values``.
        Must be a module-level function to run in worker processes.
    designs : list of dict or pandas.DataFrame
        The design space, one design (named parameters) per entry.
    objectives : sequence of str
        Names of the values ``simulate`` returns, all minimised.
    common_random_numbers : bool
        If True (default) replication ``r`` gets the same Generator for every design.

    Examples
    --------
    >>> def sim(p, rng):
    ...     return (p["a"] + rng.normal(), 1.0 / p["a"])
    >>> prob = FunctionProblem(sim, [{"a": 1}, {"a": 2}], ["time", "cost"])
    >>> prob.n_designs, prob.decode(prob.design(1))
    (2, {'a': 2})
    >>> prob.replicate([0, 1], [0, 1, 2], seed=1).shape
    (2, 3, 2)
    """

    def __init__(
        self,
        simulate: Callable,
        designs,
        objectives: Sequence[str],
        *,
        n_reps: int = 10,
        seed: int = 0,
        common_random_numbers: bool = True,
    ):
        if not callable(simulate):
            raise TypeError(f"'simulate' must be callable; got {type(simulate).__name__}.")
        if isinstance(designs, pd.DataFrame):
            table = designs.reset_index(drop=True)
        else:
            try:
                table = pd.DataFrame(list(designs))
            except (TypeError, ValueError) as exc:
                raise TypeError(f"'designs' must be a list of dicts or a DataFrame; {exc}") from None
        if len(table) == 0:
            raise InputError("'designs' must contain at least one design; got 0.")
        if isinstance(objectives, str) or len(objectives) == 0:
            raise InputError(f"'objectives' must be a non-empty sequence of names; got {objectives!r}.")
        super().__init__(objectives=objectives, n_var=1, xl=[0], xu=[len(table) - 1], n_reps=n_reps, seed=seed)
        self.function = simulate
        self.table = table
        self.parameter_names = tuple(str(c) for c in table.columns)
        self.common_random_numbers = common_random_numbers

    @property
    def n_designs(self) -> int:
        return len(self.table)

    def design(self, i: int) -> np.ndarray:
        return np.array([self._check_index(i)])

    def index(self, x) -> int:
        return self._check_index(np.asarray(x).ravel()[0])

    def decode(self, x) -> dict:
        row = self.table.iloc[self.index(x)]
        return {k: (v.item() if hasattr(v, "item") else v) for k, v in row.items()}

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = np.asarray(indices, dtype=np.int64)
        df = self.table.iloc[indices].reset_index(drop=True)
        df.insert(0, "design", indices)
        return df

    def _replicate(self, indices, reps, entropy):
        out = np.empty((len(indices), len(reps), self.n_obj))
        for a, i in enumerate(indices):
            params = self.decode([i])
            for b, r in enumerate(reps):
                rng = replication_rng(entropy, r, None if self.common_random_numbers else i)
                values = np.asarray(self.function(params, rng), dtype=float).ravel()
                if values.shape != (self.n_obj,):
                    raise InputError(
                        f"'simulate' must return {self.n_obj} values ({', '.join(self.objectives)}); "
                        f"got {values.size} for design {i}."
                    )
                out[a, b] = values
        return out

    def _identity(self) -> dict:
        return {
            **super()._identity(),
            "function": getattr(self.function, "__qualname__", repr(self.function)),
            "designs": self.table.to_json(),
            "crn": self.common_random_numbers,
        }
