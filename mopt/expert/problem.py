"""NTDMrProblem: the NTDM_r strategy grid of an environment as a StochasticProblem."""

from __future__ import annotations

import hashlib
import math
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_keys
from mopt.core.space import ENUMERATION_LIMIT
from mopt.expert.environment import Environment
from mopt.expert.estimator import MIN_SUCCESS, simulate_parameters
from mopt.expert.online import ObservedTail
from mopt.expert.strategy import Strategy, check_N, engine_parameters

__all__ = ["NTDMrProblem", "paper_grid", "high_resolution_grid", "fronts_by_N", "MR_LADDER"]

#: M_r values of the paper's Fig. 9 (seven values, 0.02 .. 0.5), cut at M_r^max
MR_LADDER = (0.02, 0.04, 0.06, 0.1, 0.2, 0.3, 0.5)


def paper_grid(env: Environment) -> dict:
    """The paper's sampling (§VI): N = 0..3 and ∞; T and D at 5 values each in [0, 4·t_ur], denser at
    the low end (T ∈ {0, ½, 1, 2, 4}·t_ur, D ∈ {¾, 1, 1½, 2, 4}·t_ur; T ≤ D); M_r ∈ {0.02 .. M_r^max}.

    The paper's knee strategy (N=3, T=t_ur, D=2·t_ur, M_r=0.02) and the static AUR, TRR and TR are
    points of this grid.
    """
    t = env.t_ur
    return {
        "N": [0, 1, 2, 3, math.inf],
        "T": [0.0, 0.5 * t, t, 2 * t, 4 * t],
        "D": [0.75 * t, t, 1.5 * t, 2 * t, 4 * t],
        "Mr": [m for m in MR_LADDER if m <= env.mr_max + 1e-12],
    }


def high_resolution_grid(env: Environment, n_td: int = 20, n_max: int = 5) -> dict:
    """A denser grid: N = 0..n_max and ∞; D at ``n_td`` geometric values (denser at the low end) in
    [t_ur/2, 4·t_ur]; T at 0 and ``n_td - 1`` geometric values in [t_ur/4, 4·t_ur]; ten M_r values in
    0.02 .. M_r^max."""
    t = env.t_ur
    d = np.geomspace(0.5 * t, 4 * t, n_td)
    ladder = (0.02, 0.04, 0.06, 0.08, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)
    return {
        "N": [*range(n_max + 1), math.inf],
        "T": [0.0, *np.geomspace(0.25 * t, 4 * t, n_td - 1)],
        "D": list(d),
        "Mr": [m for m in ladder if m <= env.mr_max + 1e-12],
    }


def _values(name: str, values, *, low=0.0, high=math.inf, low_open=False, high_name=None) -> np.ndarray:
    seq = _listify(name, values)
    arr = np.array([check_number(name, v, low=low, high=high, low_open=low_open, high_name=high_name) for v in seq])
    return np.unique(arr)


class NTDMrProblem(StochasticProblem):
    """The NTDM_r strategies of a grid, objectives ``("makespan", "cost")``.

    Designs are the grid points with T ≤ D.  With N = ∞ the reliable pool is never used, so M_r is
    irrelevant: each (T, D) appears once, decoded with M_r = 0 (design vector index 0).  Strategies that can never finish
    (no reliable fallback and no unreliable result possible before D) are left out and counted in
    :attr:`n_excluded`.  The design vector is the four grid indices ``(iN, iT, iD, iMr)``.

    Parameters
    ----------
    env : Environment
    N, T, D, Mr : lists of values or None
        Grid values (None: :func:`paper_grid`).  N may contain ``math.inf``.
    n_reps : int
        Replications per design for pymoo's ``_evaluate`` and the default of ``exhaustive``.
    seed : int
        Seed of ``_evaluate``.
    observed : ObservedTail or None
        Start every replication's tail from this observed state (:func:`mopt.expert.observe`)
        instead of a simulated throughput phase.

    Examples
    --------
    >>> from mopt.expert import reference_environment
    >>> prob = NTDMrProblem(reference_environment(0.1))
    >>> prob.n_designs, prob.decode(prob.design(0))
    (289, {'N': 0, 'T': 0.0, 'D': 1549.5, 'Mr': 0.02})
    """

    parameter_names = ("N", "T", "D", "Mr")

    def kernels(self) -> tuple:
        """The ExPERT batch kernels (:meth:`StochasticProblem.kernels`)."""
        from mopt.expert._engine.batch import _tail_blocks, _throughput_range

        return _throughput_range, _tail_blocks

    def __init__(self, env: Environment, *, N=None, T=None, D=None, Mr=None, n_reps: int = 10, seed: int = 0,
                 observed: ObservedTail | None = None):
        if not isinstance(env, Environment):
            raise TypeError(f"'env' must be an Environment; got {type(env).__name__}.")
        if observed is not None:
            if not isinstance(observed, ObservedTail):
                raise TypeError(f"'observed' must be an ObservedTail or None; got {type(observed).__name__}.")
            observed.check_environment(env)
        self.observed = observed
        self._params = None  # simulator parameters of every design, built on first use
        grid = paper_grid(env)
        if Mr is None and not grid["Mr"]:
            raise InputError(f"'mr_max'={env.mr_max:g} is below the smallest M_r of the paper's "
                             f"grid ({MR_LADDER[0]}): give the grid's 'Mr' values (M_r = 0: no "
                             "reliable pool).")
        self.env = env
        self.grid = {
            "N": np.array(sorted({check_N(n) for n in (grid["N"] if N is None else _listify("N", N))}), dtype=float),
            "T": _values("T", grid["T"] if T is None else T),
            "D": _values("D", grid["D"] if D is None else D, low_open=True),
            "Mr": _values("Mr", grid["Mr"] if Mr is None else Mr, high=env.mr_max,
                          high_name=f"mr_max={env.mr_max:g}"),
        }
        self._x, excluded = _enumerate(env, self.grid)
        self._keys = _linear_keys(self._x, self.grid)
        self.n_excluded = excluded
        sizes = [len(self.grid[k]) for k in self.parameter_names]
        super().__init__(objectives=("makespan", "cost"), n_var=4, xl=np.zeros(4, int),
                         xu=np.array(sizes) - 1, n_reps=n_reps, seed=seed)

    @property
    def n_designs(self) -> int:
        return len(self._x)

    def design(self, i: int) -> np.ndarray:
        return self._x[self._check_index(i)].copy()

    def index(self, x) -> int:
        key = self._design_vector(x)
        sizes = [len(self.grid[k]) for k in self.parameter_names]
        if all(0 <= v < n for v, n in zip(key, sizes, strict=True)):
            k = _linear_keys(np.array([key], dtype=np.int64), self.grid)[0]
            pos = int(np.searchsorted(self._keys, k))
            if pos < len(self._keys) and self._keys[pos] == k:
                return pos
        raise InputError(f"'x'={list(key)} is not a design of this grid (an index out of range, T > D, "
                         f"or left out).")

    def decode(self, x) -> dict:
        a, b, c, e = self._x[self.index(x)]
        n = self.grid["N"][a]
        return {"N": math.inf if math.isinf(n) else int(n), "T": float(self.grid["T"][b]),
                "D": float(self.grid["D"][c]), "Mr": 0.0 if math.isinf(n) else float(self.grid["Mr"][e])}

    def strategy(self, i: int) -> Strategy:
        """The Strategy of design ``i``."""
        return Strategy(**self.decode(self.design(i)))

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = self._check_indices(indices)
        x = self._x[indices]
        df = pd.DataFrame({k: self.grid[k][x[:, j]] for j, k in enumerate(self.parameter_names)})
        df.loc[np.isinf(df["N"].to_numpy()), "Mr"] = 0.0  # no reliable pool is used
        df.insert(0, "design", indices)
        return df

    def _replicate(self, indices, reps, entropy):
        # the grid's designs were checked (T <= D, can finish) when it was built: their simulator
        # parameters are computed once and indexed, not rebuilt per call
        if self.n_designs > _PARAMS_CACHED:  # a large grid: the parameters of the designs asked for only
            params = engine_parameters([self.strategy(int(i)) for i in indices], self.env)
        else:
            if self._params is None:
                self._params = engine_parameters([self.strategy(i) for i in range(self.n_designs)], self.env)
            params = {c: v[indices] for c, v in self._params.items()}
        keys = replication_keys(entropy, reps)
        return simulate_parameters(self.env, params, keys, observed=self.observed)[:, :, :2]

    def _identity(self) -> dict:
        env = self.env
        return {
            **super()._identity(),
            "env": {k: getattr(env, k) for k in ("n_tasks", "n_unreliable", "t_ur", "t_r", "c_ur", "c_r",
                                                 "mr_max", "charging_period_r")},
            "turnaround": _table_digest(env.turnaround),
            "grid": {k: v.tolist() for k, v in self.grid.items()},
            **({} if self.observed is None else {"observed": _observed_identity(self.observed)}),
        }


#: most designs whose simulator parameters are computed all at once and kept
_PARAMS_CACHED = 10**5


def _enumerate(env: Environment, grid: dict) -> tuple[np.ndarray, int]:
    """The design vectors ``(iN, iT, iD, iMr)`` of the grid points with T <= D that can finish, in
    lexicographic order, and how many were left out as unable to finish: counted first and
    refused above :data:`~mopt.core.space.ENUMERATION_LIMIT` before any table is built, then
    built in arrays (a few tens of bytes a design)."""
    n_N, n_T, n_D, n_M = (len(grid[k]) for k in NTDMrProblem.parameter_names)
    first = np.searchsorted(grid["D"], grid["T"], side="left")  # the first D >= T, per T
    per_t = (n_D - first).astype(np.int64)
    n_pairs = int(per_t.sum())
    finite = ~np.isinf(grid["N"])
    points = n_pairs * (int(finite.sum()) * n_M + (int((~finite).sum()) if n_M else 0))
    if points > ENUMERATION_LIMIT:
        raise InputError(f"the strategy grid has {points:,} strategies with T <= D ({n_N:,} N x {n_pairs:,} "
                         f"(T, D) pairs x {n_M:,} Mr), more than the {ENUMERATION_LIMIT:,} designs mopt "
                         "enumerates (mopt.core.space.ENUMERATION_LIMIT); give fewer values.")
    b = np.repeat(np.arange(n_T, dtype=np.int64), per_t)
    c = np.arange(n_pairs, dtype=np.int64) - np.repeat(np.cumsum(per_t) - per_t, per_t) + np.repeat(first, per_t)
    reliable = np.array([env.n_reliable(float(m)) > 0 for m in grid["Mr"]], dtype=bool)
    reach = np.array([env.p_result_before(float(d)) >= MIN_SUCCESS for d in grid["D"]], dtype=bool)
    blocks, excluded = [], 0
    for a in range(n_N):
        if not n_M:
            continue
        if finite[a]:
            bb, cc = np.repeat(b, n_M), np.repeat(c, n_M)
            ee = np.tile(np.arange(n_M, dtype=np.int64), n_pairs)
            ok = reliable[ee] | reach[cc]
        else:  # no reliable pool is used: each (T, D) once, with M_r index 0
            bb, cc, ee = b, c, np.zeros(n_pairs, dtype=np.int64)
            ok = reach[cc]
        excluded += int(len(ok) - ok.sum())
        blocks.append(np.column_stack([np.full(len(bb), a, dtype=np.int64), bb, cc, ee])[ok])
    x = np.concatenate(blocks) if blocks else np.empty((0, 4), dtype=np.int64)
    if not len(x):
        raise InputError("the strategy grid has no design with T <= D that can finish.")
    return x, excluded


def _linear_keys(x: np.ndarray, grid: dict) -> np.ndarray:
    """One sortable key a design vector (lexicographic order of ``(iN, iT, iD, iMr)``); exact in
    Python integers when the grid's size exceeds int64."""
    sizes = [max(1, len(grid[k])) for k in NTDMrProblem.parameter_names]
    if math.prod(sizes) < 2**62:
        return ((x[:, 0] * sizes[1] + x[:, 1]) * sizes[2] + x[:, 2]) * sizes[3] + x[:, 3]
    out = np.empty(len(x), dtype=object)
    out[:] = [((int(a) * sizes[1] + int(b)) * sizes[2] + int(c)) * sizes[3] + int(e) for a, b, c, e in x]
    return out


def _table_digest(model) -> str:
    """sha256 of the whole turnaround model: F_s table, γ breaks and γ values (shapes included)."""
    h = hashlib.sha256()
    for table in (model.fs_table, model.gamma_breaks, model.gamma_values):
        arr = np.ascontiguousarray(table, dtype=np.float64)
        h.update(repr(arr.shape).encode())
        h.update(arr.tobytes())
    return h.hexdigest()


def _listify(name, values):
    """Grid values as a list: one number (Python or numpy scalar) or an iterable of them."""
    if isinstance(values, numbers.Real) or (isinstance(values, np.ndarray) and values.ndim == 0):
        return [values.item() if isinstance(values, np.ndarray) else values]
    if isinstance(values, (str, bytes, Mapping)):
        raise TypeError(f"'{name}' must be a list of numbers; got {values!r}.")
    try:
        seq = list(values)
    except TypeError:
        raise TypeError(f"'{name}' must be a list of values; got {values!r}.") from None
    if not seq:
        raise InputError(f"'{name}' must list at least one value; got [].")
    return seq


def _observed_identity(observed: ObservedTail) -> dict:
    return {"t_tail": observed.t_tail, "deadline": observed.deadline, "tasks": observed.tasks.tolist(),
            "send_times": observed.send_times.tolist(), "result_seconds": observed.result_seconds}


def fronts_by_N(evaluations: pd.DataFrame, objectives=("makespan", "cost")) -> dict:
    """ExPERT's hierarchical frontier: the Pareto front of each N, then their merge.

    The paper divides strategies by N ("distinct separate conceptual solutions"), builds one front
    per N and merges them; the merged front is the same set as the front of all strategies (a
    strategy dominated within its N is dominated overall).  Returns ``{N: front of that N}`` plus
    the key ``"merged"``, each sorted by the objectives.

    Examples
    --------
    >>> ev = pd.DataFrame({"N": [0, 0, 1], "makespan": [1.0, 2.0, 1.5], "cost": [2.0, 3.0, 1.0]})
    >>> {k: len(v) for k, v in fronts_by_N(ev).items()}
    {0: 1, 1: 1, 'merged': 2}
    """
    from mopt.core.pareto import pareto_mask

    cols = list(objectives)
    missing = [c for c in ["N", *cols] if c not in evaluations.columns]
    if missing:
        raise InputError(f"'evaluations' must have the column(s) {missing}; got {list(evaluations.columns)}.")

    def front(df: pd.DataFrame) -> pd.DataFrame:
        return df[pareto_mask(df[cols].to_numpy(dtype=float))].sort_values(cols)

    out = {}
    for n, group in evaluations.groupby("N", sort=True):
        key = math.inf if math.isinf(n) else int(n)
        out[key] = front(group)
    out["merged"] = front(pd.concat(out.values())) if out else evaluations.iloc[:0]
    return out
