"""StochasticProblem: a pymoo ``Problem`` whose objectives are estimated by replications.

A problem has a finite, enumerable design space (``n_designs``, ``design(i)``, ``index(x)``,
``decode(x)``) and one expensive call, :meth:`StochasticProblem.replicate`, which returns raw
replications.  ``_evaluate`` averages ``n_reps`` replications from the problem's own seed, so any
pymoo algorithm runs the problem unchanged.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import numbers
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from pymoo.core.problem import Problem

from mopt.core import interop, space
from mopt.core.errors import InputError, check_int
from mopt.core.moved import moved_names
from mopt.core.random import SeedLike, resolve_seed
from mopt.core.space import ENUMERATION_LIMIT, REPAIR_TABLE_LIMIT

__all__ = ["StochasticProblem", "IndexedProblem", "MAX_REPS", "ENUMERATION_LIMIT",
           "REPAIR_TABLE_LIMIT", "check_reps",
           "check_replications", "replication_bytes"]

#: columns of the ``evaluations`` table besides parameters and objectives (see :func:`mopt.core.result.summarise`)
RESERVED_COLUMNS = ("design", "n_reps", "utility")

_INDEX_CAP = 2**62

#: most replications of one design: replication indices stay below 2**62
#: (see :meth:`StochasticProblem.replicate`)
MAX_REPS = _INDEX_CAP


def check_reps(name: str, value, *, low: int = 1) -> int:
    """A count of replications: an integer >= ``low`` and at most :data:`MAX_REPS`.

    Examples
    --------
    >>> check_reps("n_reps", 10)
    10
    >>> check_reps("n_reps", 10**20)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'n_reps' must be an integer <= 2**62; got 100000000000000000000.
    """
    v = check_int(name, value, low=low)
    if v > MAX_REPS:
        raise InputError(f"'{name}' must be an integer <= 2**62; got {v}.")
    return v


#: bytes a replication of ``m`` objectives costs, held or passing through, at most (measured: 65 and
#: 30 bytes a replication for 2 and 1 objectives, exhaustive search on NormalProblem; the
#: simulator's output, the method's copy, the uncertainty and class tables built from them):
#: ``REPLICATION_BYTES_PER_OBJECTIVE * m + REPLICATION_BYTES``
REPLICATION_BYTES_PER_OBJECTIVE = 32
REPLICATION_BYTES = 16


def replication_bytes(problem) -> int:
    """The memory (bytes) one replication of ``problem`` costs a run, at most (see
    :data:`REPLICATION_BYTES_PER_OBJECTIVE`)."""
    return REPLICATION_BYTES_PER_OBJECTIVE * max(1, int(getattr(problem, "n_obj", 1))) + REPLICATION_BYTES


def check_replications(option: str, value: int, problem, *, per_unit: float = 1, held: int = 0) -> None:
    """Refuse, before anything is simulated, an ``option`` of ``value`` that asks for ``value *
    per_unit`` replications of ``problem`` (on top of ``held`` already kept) when they cannot fit
    in this machine's memory: one :class:`InputError` naming the option and the largest value
    that fits (:func:`mopt.core.inputs.check_memory`).

    Examples
    --------
    >>> import os, mopt
    >>> prob = mopt.NormalProblem([[1, 2], [2, 1]], n_reps=10)
    >>> check_replications("n_reps", 10, prob, per_unit=2)
    >>> os.environ["MOPT_MAX_MEMORY"] = "64M"
    >>> check_replications("n_reps", 10**9, prob, per_unit=2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'n_reps' = 1,000,000,000 needs about 149.0 GiB of memory (2,000,000,000 replications of 2 objectives, 80 bytes each); this machine has 64 MiB (MOPT_MAX_MEMORY): at most 'n_reps' = 419,430.
    >>> del os.environ["MOPT_MAX_MEMORY"]
    """
    from mopt.core.inputs import check_memory

    each = replication_bytes(problem)
    total = value * per_unit
    m = max(1, int(getattr(problem, "n_obj", 1)))
    what = (f" ({total:,.0f} replications of {m} objective{'s' if m > 1 else ''}, {each} bytes each"
            + (f", beside {held:,} held" if held else "") + ")")
    check_memory(option, value, per_unit * each, held * each, what=what)


def _show(value) -> str:
    text = repr(value.tolist()) if isinstance(value, np.ndarray) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _integer_array(name: str, values, *, low: int = 0, high: int | None = None) -> np.ndarray:
    """``values`` (an integer or a sequence of them) as a 1-D int64 array; InputError naming ``name``
    for anything else: non-numbers, non-integral or non-finite numbers, values outside [low, high]
    (``high`` None: below 2**62, so nothing wraps around in int64)."""
    rng = f"in [{low}, {high}]" if high is not None else f">= {low}"
    expected = f"'{name}' must be an integer {rng}"
    top = _INDEX_CAP if high is None else high
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(f"{expected}; got {_show(values)}.") from None
    arr = arr.ravel()
    if arr.size == 0:
        return np.empty(0, dtype=np.int64)
    if arr.dtype.kind in "iuf":
        with np.errstate(invalid="ignore"):
            bad = (arr < low) | (arr > top)
            if arr.dtype.kind == "f":
                bad |= ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            v = arr[np.flatnonzero(bad)[0]]
            raise InputError(f"{expected}; got {v:g}." if arr.dtype.kind == "f" else f"{expected}; got {v}.")
        return arr.astype(np.int64)
    out = np.empty(arr.size, dtype=np.int64)  # object, str, bool, complex: element by element
    for k, v in enumerate(arr.tolist()):
        ok = isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
        if ok:
            f = float(v)
            ok = math.isfinite(f) and f == math.floor(f) and low <= v <= top
        if not ok:
            raise InputError(f"{expected}; got {_show(v)}.")
        out[k] = int(v)
    return out


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
        objectives = _objective_names(objectives, tuple(self.parameter_names))
        super().__init__(n_var=n_var, n_obj=len(objectives), n_ieq_constr=1, xl=xl, xu=xu, vtype=int)
        self.objectives = objectives
        self.n_reps = n_reps
        self.seed = seed
        # no constraint when every in-bounds integer vector is a design (see mopt.core.interop)
        try:
            self.n_ieq_constr = 0 if interop.every_vector_is_a_design(self) else 1
        except Exception:  # noqa: BLE001 - a space not built yet (a subclass sets it up later): keep it
            pass

    def unconstrained(self) -> StochasticProblem:
        """This problem as pymoo sees it without a constraint: a vector that is not a design is
        evaluated as its nearest design (:meth:`repair`).  For pymoo algorithms that refuse
        constraints (MOEA/D); with :func:`mopt.pymoo_operators` every candidate is a design anyway.

        Examples
        --------
        >>> from mopt.core.function_problem import FunctionProblem
        >>> prob = FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["time"])
        >>> prob.unconstrained().evaluate(np.array([[7]])).tolist()  # beyond xu: the nearest, a = 4
        [[4.0]]
        """
        view = copy.copy(self)
        view.n_ieq_constr = 0
        return view

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

    def sample_designs(self, rng: np.random.Generator, n: int, *, replace: bool = False) -> np.ndarray:
        """``n`` design indices drawn uniformly at random (distinct unless ``replace``), in draw order.

        The default never materialises the space (see :func:`mopt.core.space.sample_designs`), so
        it works for any ``n_designs``; families may override it with a cheaper or exact rule, the
        draws depending only on ``rng``.

        Examples
        --------
        >>> from mopt.core.function_problem import FunctionProblem
        >>> prob = FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["time"])
        >>> sorted(prob.sample_designs(np.random.default_rng(1), 3).tolist())
        [0, 1, 2]
        """
        return space.sample_designs(self, rng, n, replace=replace)

    def repair(self, X) -> np.ndarray:
        """Design indices of the vectors ``X``: each row's own design if it is one, else the nearest.

        Search operators (crossover, mutation) propose any vector in [xl, xu]; this maps each to a
        valid design.  A row that is a design's vector (one that :meth:`index` accepts) is that
        design; any other row maps to the design whose vector is nearest in L1 distance (ties: the
        lowest design index).  The table of all design vectors is built once, on first use, from
        :meth:`design`; families with a cheaper rule override.  Above
        :data:`~mopt.core.space.REPAIR_TABLE_LIMIT` designs nothing is tabulated: a row is rounded
        and clipped to ``[xl, xu]``, and one that is still not a design is an error asking the
        family to override ``repair`` (see :func:`mopt.core.space.repair`).

        Parameters
        ----------
        X : array_like, shape (n, n_var) or (n_var,)
            Design vectors (integers, or reals that are rounded to the nearest design).

        Returns
        -------
        ndarray of int64, shape (n,)

        Examples
        --------
        >>> from mopt.core.function_problem import FunctionProblem
        >>> prob = FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["time"])
        >>> prob.repair([[1], [7], [-3]]).tolist()
        [1, 2, 0]
        """
        try:
            X = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"'X' must be a list of design vectors of {self.n_var} numbers; got {_show(X)}.") from None
        if X.ndim == 1 and X.size in (0, self.n_var):
            X = X.reshape(-1, self.n_var)
        if X.ndim != 2 or X.shape[1] != self.n_var or not np.isfinite(X).all():
            raise InputError(f"'X' must be a list of design vectors of {self.n_var} numbers; got {_show(X)}.")
        return space.repair(self, X)

    def decode_pymoo(self, res) -> pd.DataFrame:
        """The designs of a pymoo result: each row of ``res.X`` (floats from pymoo's default
        operators included) mapped to its design as :meth:`repair` does, decoded, with the result's
        objective values ``res.F`` (means of ``n_reps`` replications) beside them.

        Parameters
        ----------
        res : pymoo.core.result.Result or array_like
            What ``pymoo.optimize.minimize`` returned, or design vectors alone.

        Returns
        -------
        pandas.DataFrame
            ``design``, the decoded parameters and, for a result, one column per objective.

        Examples
        --------
        >>> from mopt.core.function_problem import FunctionProblem
        >>> prob = FunctionProblem(lambda p, rng: (p["a"],), [{"a": 1}, {"a": 2}, {"a": 4}], ["time"])
        >>> prob.decode_pymoo([[0.2], [1.7]]).to_dict("list")
        {'design': [0, 2], 'a': [1, 4]}
        """
        X = getattr(res, "X", res)
        F = getattr(res, "F", None)
        if X is None:
            raise InputError("the pymoo result holds no solution ('X' is None).")
        X = np.asarray(X, dtype=float).reshape(-1, self.n_var)
        df = self.designs_frame(self.repair(X))
        if F is not None:
            F = np.asarray(F, dtype=float).reshape(len(X), -1)
            for j, name in enumerate(self.objectives[: F.shape[1]]):
                df[name] = F[:, j]
        return df

    def designs_frame(self, indices) -> pd.DataFrame:
        """Decoded parameters of the designs ``indices``, one row each (column ``design`` first)."""
        indices = self._check_indices(indices)
        rows = [self.decode(self.design(int(i))) for i in indices]
        df = pd.DataFrame(rows, columns=list(self.parameter_names) or None)
        df.insert(0, "design", indices)
        return df

    def _check_index(self, i) -> int:
        """Design index ``i`` as an int (InputError naming 'design index' if it is not one)."""
        if np.ndim(i) != 0:
            raise InputError(f"'design index' must be an integer in [0, {self.n_designs - 1}]; got {_show(i)}.")
        return int(self._check_indices(i)[0])

    def _check_indices(self, indices) -> np.ndarray:
        """Design indices as a 1-D int64 array (InputError naming 'design index' for anything else)."""
        return _integer_array("design index", indices, high=self.n_designs - 1)

    def _design_vector(self, x) -> tuple[int, ...]:
        """Design vector ``x`` as a tuple of ``n_var`` ints (InputError naming 'x' if it is not one)."""
        expected = f"'x' must be a design vector of {self.n_var} integer{'s' if self.n_var > 1 else ''}"
        try:
            arr = np.asarray(x).ravel()
        except (TypeError, ValueError):
            raise InputError(f"{expected}; got {_show(x)}.") from None
        pymoo = "; for what pymoo returns (res.X, floats or several rows) use problem.decode_pymoo(res)"
        if arr.size != self.n_var:
            several = arr.size > self.n_var and arr.size % self.n_var == 0
            raise InputError(f"{expected}; got {_show(x)}{pymoo if several else ''}.")
        try:
            return tuple(int(v) for v in _integer_array("x", arr, low=-_INDEX_CAP))
        except InputError:
            off_grid = arr.dtype.kind == "f" and bool(np.isfinite(arr).all())
            raise InputError(f"{expected}; got {_show(x)}{pymoo if off_grid else ''}.") from None

    # -- replications ----------------------------------------------------------------------
    def replicate(self, indices, reps, seed: SeedLike) -> np.ndarray:
        """Raw replications ``reps`` (replication indices) of the designs ``indices``.

        Returns
        -------
        ndarray, shape (len(indices), len(reps), n_obj)
            Replication ``r`` of design ``i`` depends only on ``(seed, i, r)``.
        """
        entropy = resolve_seed(seed)
        indices = self._check_indices(indices)
        reps = _integer_array("reps", reps, low=0)
        if len(indices) == 0 or len(reps) == 0:
            return np.empty((len(indices), len(reps), self.n_obj))
        values = self._replicate(indices, reps, entropy)
        nan = np.isnan(values)
        if nan.any():  # no search can rank NaN: say where it came from instead of an empty front
            a, b, j = (int(k[0]) for k in np.nonzero(nan))
            raise InputError(f"the simulation of design {int(indices[a])} ({_params(self, indices[a])}), "
                             f"replication {int(reps[b])} gave NaN for objective {self.objectives[j]!r}; "
                             "objective values must be numbers (inf is allowed).")
        return values

    def _replicate(self, indices: np.ndarray, reps: np.ndarray, entropy: int) -> np.ndarray:
        raise NotImplementedError

    def simulate(self, X, n_reps: int, seed: SeedLike, *, rep_offset: int = 0) -> np.ndarray:
        """Replications ``rep_offset .. rep_offset + n_reps - 1`` of the design vectors ``X``.

        Returns an array of shape ``(len(X), n_reps, n_obj)``.
        """
        n_reps = check_int("n_reps", n_reps, low=1)
        rep_offset = check_int("rep_offset", rep_offset, low=0, high=_INDEX_CAP)
        try:
            X = np.atleast_2d(np.asarray(X))
        except (TypeError, ValueError):
            raise InputError(f"'X' must be a list of design vectors; got {_show(X)}.") from None
        if X.ndim != 2:
            raise InputError(f"'X' must be a list of design vectors; got an array of shape {X.shape}.")
        indices = [self.index(x) for x in X]
        return self.replicate(indices, np.arange(rep_offset, rep_offset + n_reps), seed)

    def _evaluate(self, x, out, *args, **kwargs):
        # the constructor only stores n_reps and seed; they are validated here, where they are used
        try:
            n_reps = check_reps("n_reps", self.n_reps)
            entropy = resolve_seed(self.seed)  # resolved once: a Generator seed is drawn from once
            check_replications("n_reps", n_reps, self, per_unit=len(np.atleast_2d(x)))
        except (TypeError, InputError) as exc:
            raise type(exc)(f"the problem's {exc}") from None
        # pymoo proposes any vector in [xl, xu], rounded here; one that is not a design (e.g. T > D)
        # is infeasible (F = inf, G graded: see mopt.core.interop.violation) instead of an error,
        # or, without a constraint, evaluated as its nearest design.
        raw = np.atleast_2d(np.asarray(x, dtype=float))
        indices = np.full(len(raw), -1, dtype=np.int64)
        for k, row in enumerate(np.rint(raw).astype(np.int64)):
            try:
                indices[k] = self.index(row)
            except (ValueError, TypeError):
                pass
        valid = indices >= 0
        if not self.n_ieq_constr and not valid.all():
            indices[~valid] = self.repair(raw[~valid])
            valid[:] = True
        F = np.full((len(raw), self.n_obj), np.inf)
        if valid.any():
            F[valid] = self.replicate(indices[valid], np.arange(n_reps), entropy).mean(axis=1)
        out["F"] = F
        if self.n_ieq_constr:
            out["G"] = interop.violation(self, raw, valid)[:, None]

    def kernels(self) -> tuple:
        """The compiled functions (numba, ``cache=True``) this problem's replications run, so that a
        command says once that they compile on first use
        (:func:`mopt._numba_cache.say_if_compiling`); none by default (a plain Python problem)."""
        return ()

    def fingerprint(self) -> str:
        """A short hash of everything that determines the replications (for journals and results)."""
        return hashlib.sha256(json.dumps(self._identity(), sort_keys=True, default=str).encode()).hexdigest()[:16]

    def _identity(self) -> dict:
        return {"class": type(self).__name__, "objectives": self.objectives, "n_designs": self.n_designs}


class IndexedProblem(StochasticProblem):
    """A problem whose design vector is the design index itself, ``x = [i]`` (designs listed in a table)."""

    def __init__(self, *, objectives: Sequence[str], n_designs: int, n_reps: int = 10, seed: int = 0):
        self._n_designs = int(n_designs)
        super().__init__(objectives=objectives, n_var=1, xl=[0], xu=[self._n_designs - 1], n_reps=n_reps,
                         seed=seed)

    @property
    def n_designs(self) -> int:
        return self._n_designs

    def design(self, i: int) -> np.ndarray:
        return np.array([self._check_index(i)])

    def index(self, x) -> int:
        (i,) = self._design_vector(x)
        return self._check_index(i)


def _params(problem, i) -> str:
    """Design ``i``'s parameters as ``x=1, y='a'`` (for messages)."""
    try:
        params = problem.decode(problem.design(int(i)))
    except Exception:  # noqa: BLE001 - a message helper must not fail
        return "parameters unknown"
    text = ", ".join(f"{k}={v!r}" for k, v in params.items())
    return text if len(text) <= 200 else text[:197] + "..."


def _objective_names(objectives, parameters: tuple[str, ...]) -> tuple[str, ...]:
    """Validate objective names: unique non-empty strings that cannot be confused with the other
    columns of the ``evaluations`` table (parameters, ``design``, ``n_reps``, ``utility``, ``*_se``)."""
    if isinstance(objectives, (str, bytes)):
        raise InputError(f"'objectives' must be a non-empty sequence of names, not one string; got {objectives!r}.")
    expected = "'objectives' must be a sequence of names (e.g. ['time', 'cost'])"
    if isinstance(objectives, (set, frozenset, Mapping)):
        raise TypeError(f"{expected}, in order; got a {type(objectives).__name__}.")
    try:
        names = tuple(objectives)
    except TypeError:
        raise TypeError(f"{expected}; got {_show(objectives)} ({type(objectives).__name__}).") from None
    if not names:
        raise InputError(f"'objectives' must be a non-empty sequence of names; got {objectives!r}.")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"'objectives' must hold non-empty strings; got {name!r}.")
        if name in RESERVED_COLUMNS:
            raise InputError(f"'objectives' must not use the reserved column names {list(RESERVED_COLUMNS)}; "
                             f"got {name!r}.")
        if name.endswith("_se"):
            raise InputError(f"'objectives' must not end with '_se' (the standard-error columns); got {name!r}.")
        if name in parameters:
            raise InputError(f"'objectives' must differ from the parameter names {list(parameters)}; got {name!r}.")
    dup = next((n for k, n in enumerate(names) if n in names[:k]), None)
    if dup is not None:
        raise InputError(f"'objectives' must be unique; got {dup!r} twice.")
    return tuple(str(n) for n in names)




__getattr__ = moved_names(__name__, {"FunctionProblem": "mopt.core.function_problem.FunctionProblem"})
