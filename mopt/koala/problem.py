"""TAGS-sets configurations as a search problem (spec ``koala.md`` §6, beyond the paper).

Decisions, on the five-site environment of :func:`~mopt.koala.multicloud`: the first limit
``L1`` (minutes, default 5, 10, ..., 240), set 2 (a proper non-empty subset of the five sites; set
1 is always the whole system), the public-cloud cap and the private cloud's minimum. With
``limits2`` (spec §6's optional second limit) there are three sets: a second limit ``L2 > L1`` and
set 3, a proper non-empty subset of set 2, are two more decisions (ours: set 3 is searched like
set 2, from ``set3`` or every proper subset). Objectives: mean slowdown of short jobs (runtime <=
L1), of long jobs, and the public-cloud cost in $.

A replication is a random window of the trace (2-4 weeks by default) whose arrivals are stretched
or compressed to a drawn offered load (0.8-1.3 of the three clusters by default); replication ``r``
draws the same window and load for every design (common random numbers). Ours: a class with no
job in a window counts as slowdown 1; designs whose set 2 cannot hold the trace's largest job
(e.g. set 2 = the public cloud alone with a cap below it) are left out (:attr:`n_excluded`), and
with three sets so are grid points with L2 <= L1 or a set 3 that is not a proper subset of set 2.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_rng
from mopt.core.space import ENUMERATION_LIMIT, REPAIR_TABLE_LIMIT
from mopt.koala.environment import multicloud
from mopt.koala.policies import TagsSets
from mopt.koala.simulation import job_table, run_table

__all__ = ["TagsProblem", "SITES", "DEFAULT_LIMITS", "DEFAULT_PUBLIC_CAPS", "DEFAULT_PRIVATE_MINS"]

#: the five sites, in first-fit order
SITES = ("C1", "C2", "C3", "private", "public")
#: L1 grid in minutes: 5, 10, ..., 240 (spec §6)
DEFAULT_LIMITS = tuple(range(5, 241, 5))
DEFAULT_PUBLIC_CAPS = (0, 16, 32, 64, 128)
DEFAULT_PRIVATE_MINS = (0, 8, 16)
DAY = 86400.0
#: nodes of the three clusters: the reference of the drawn load
CLUSTER_NODES = 96
#: the largest L1 or L2 in minutes (a year, as ``mopt koala --limits``; beyond it a limit changes nothing)
MAX_LIMIT_MINUTES = 525_600
#: the largest public-cloud cap (ours): the simulator holds a slot per VM
MAX_PUBLIC_CAP = 100_000
#: the lowest offered load drawn (ours): a lower one stretches a window's arrivals past where 30 s
#: ticks can be told apart
MIN_LOAD = 1e-3


def _proper_subsets() -> list[tuple[str, ...]]:
    return [c for k in range(1, len(SITES)) for c in itertools.combinations(SITES, k)]


def _flat(values) -> bool:
    """Whether ``values`` is a flat list (numpy refuses a ragged one with a ValueError)."""
    try:
        return np.ndim(values) == 1
    except ValueError:
        return False


def _values(name: str, values, *, low: float, integer: bool, high: float = math.inf) -> tuple:
    if isinstance(values, (str, bytes)) or not _flat(values) or len(values) == 0:
        raise InputError(f"'{name}' must be a non-empty list of numbers; got {values!r}.")
    out = []
    for v in values:
        x = check_number(name, v, low=low, high=high)
        if integer and x != int(x):
            raise InputError(f"'{name}' must hold integers; got {v!r}.")
        out.append(int(x) if integer else x)
    if len(set(out)) != len(out):
        raise InputError(f"'{name}' must not repeat a value; got {list(values)}.")
    return tuple(sorted(out))


def _range(name: str, value, *, low: float, low_open: bool = True) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or not _flat(value) or len(value) != 2:
        raise InputError(f"'{name}' must be a pair [low, high]; got {value!r}.")
    a, b = (check_number(name, v, low=low, low_open=low_open) for v in value)
    if a > b:
        raise InputError(f"'{name}' must be a pair [low, high] with low <= high; got {list(value)}.")
    return a, b


class TagsProblem(StochasticProblem):
    """TAGS-sets limit, set 2, public cap and private minimum -> short and long slowdown, public cost.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The trace (e.g. ``koala_trace("CTC-SP2")``).
    limits : list of float, optional
        L1 values in minutes (default 5..240 by 5).
    set2 : list of lists of site names, optional
        Candidate sets 2 (default every proper non-empty subset of the five sites: 30).
    public_caps, private_mins : list of int, optional
        Default (0, 16, 32, 64, 128) and (0, 8, 16).
    limits2 : list of float, optional
        L2 values in minutes: three sets (default None: two sets, L2 = infinity).
    set3 : list of lists of site names, optional
        Candidate sets 3, with ``limits2`` only (default every proper non-empty subset; a design
        keeps those that are proper subsets of its set 2).
    window_days : (float, float)
        Range of the replication's window length in days (default 14-28).
    load : (float, float)
        Range of the drawn offered load, relative to the three clusters' 96 nodes (default 0.8-1.3).
    step : float
        Scheduler period (30 s).
    n_reps, seed : int
        pymoo's view: replications averaged by ``_evaluate``, and their seed.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> jobs = pd.DataFrame({"submit": np.sort(rng.uniform(0, 40 * 86400, 400)),
    ...                      "size": rng.integers(1, 33, 400), "runtime": rng.uniform(60, 20000, 400)})
    >>> prob = TagsProblem(jobs, limits=[20, 40], set2=[["C3", "private", "public"], ["public"]])
    >>> prob.n_designs, prob.n_excluded
    (48, 12)
    >>> prob.decode(prob.design(0))
    {'L1': 20.0, 'set2': 'C3+private+public', 'public_cap': 0, 'private_min': 0}
    >>> prob.replicate([0, 1], [0, 1], seed=1).shape
    (2, 2, 3)
    >>> three = TagsProblem(jobs, limits=[20, 40], set2=[["C3", "private", "public"]], limits2=[40, 120],
    ...                     set3=[["private", "public"], ["C1", "public"]], public_caps=[64], private_mins=[8])
    >>> three.n_designs  # (20, 40), (20, 120), (40, 120) x set 3 = private+public only
    3
    >>> three.decode(three.design(2))
    {'L1': 40.0, 'set2': 'C3+private+public', 'L2': 120.0, 'set3': 'private+public', 'public_cap': 64, 'private_min': 8}
    """

    parameter_names = ("L1", "set2", "public_cap", "private_min")

    def kernels(self) -> tuple:
        """The KOALA-C engine's loop (:meth:`StochasticProblem.kernels`)."""
        from mopt.koala.engine import advance, finish

        return advance, finish

    def __init__(self, jobs, *, limits=None, set2=None, public_caps=None, private_mins=None, limits2=None,
                 set3=None, window_days=(14.0, 28.0), load=(0.8, 1.3), step: float = 30.0, n_reps: int = 10,
                 seed: int = 0):
        self.table = job_table(jobs)
        self.grid = {
            "L1": _values("limits", DEFAULT_LIMITS if limits is None else limits, low=0, integer=False,
                          high=MAX_LIMIT_MINUTES),
            "set2": self._sets(set2, "set2"),
        }
        if limits2 is not None:
            self.parameter_names = ("L1", "set2", "L2", "set3", "public_cap", "private_min")
            self.grid["L2"] = _values("limits2", limits2, low=0, integer=False, high=MAX_LIMIT_MINUTES)
            self.grid["set3"] = self._sets(set3, "set3")
        elif set3 is not None:
            raise InputError("'set3' needs 'limits2' (a third set needs its limit L2).")
        self.grid["public_cap"] = _values("public_caps", DEFAULT_PUBLIC_CAPS if public_caps is None else public_caps,
                                          low=0, integer=True, high=MAX_PUBLIC_CAP)
        self.grid["private_min"] = _values("private_mins",
                                           DEFAULT_PRIVATE_MINS if private_mins is None else private_mins,
                                           low=0, integer=True)
        if self.grid["L1"][0] <= 0:
            raise InputError(f"'limits' must be > 0 minutes; got {self.grid['L1'][0]:g}.")
        if limits2 is not None and self.grid["L2"][0] <= 0:
            raise InputError(f"'limits2' must be > 0 minutes; got {self.grid['L2'][0]:g}.")
        if limits2 is not None and self.grid["L2"][-1] <= self.grid["L1"][0]:
            raise InputError(f"'limits2' must hold a value above the smallest L1 ({self.grid['L1'][0]:g} min); "
                             f"got {list(self.grid['L2'])}.")
        if self.grid["private_min"][-1] > 64:
            raise InputError(f"'private_mins' must be <= the private maximum 64; got {self.grid['private_min'][-1]}.")
        self.window_days = _range("window_days", window_days, low=0)
        self.load = _range("load", load, low=MIN_LOAD, low_open=False)
        self.step = check_number("step", step, low=0, high=3600, low_open=True, high_open=True)
        span = self.table["submit"].iloc[-1] - self.table["submit"].iloc[0]
        if span < self.window_days[1] * DAY:
            raise InputError(f"'window_days' must fit in the trace's span of {span / DAY:.1f} days; got "
                             f"{list(self.window_days)}.")
        largest = int(self.table["size"].max())
        if largest > 64:
            raise InputError(f"'jobs' must hold jobs of at most 64 processors for the five sites; got {largest} "
                             "(use koala_trace, which keeps <= 32).")
        sizes = [len(self.grid[k]) for k in self.parameter_names]
        points = math.prod(sizes)
        if points > ENUMERATION_LIMIT:  # the table of designs is built now: refuse before allocating it
            listing = " x ".join(f"{n} {k}" for n, k in zip(sizes, self.parameter_names, strict=True))
            raise InputError(f"the TAGS-sets grid has {points:,} points ({listing}), more than the "
                             f"{ENUMERATION_LIMIT:,} designs mopt enumerates; give fewer values.")
        self._x = self._enumerate(largest)
        if not len(self._x):
            raise InputError("no design of the grid can run the trace's largest job in its last set"
                             + (" with L2 > L1 and set 3 a proper subset of set 2." if limits2 is not None else "."))
        self._sizes = np.array(sizes, dtype=np.int64)
        self._keys = np.ravel_multi_index(tuple(self._x.T.astype(np.int64)), sizes)  # sorted: lexicographic rows
        self.n_excluded = int(np.prod(sizes)) - len(self._x)
        n_var = len(sizes)
        super().__init__(objectives=("slowdown_short", "slowdown_long", "public_cost"), n_var=n_var,
                         xl=np.zeros(n_var, int), xu=self._sizes - 1, n_reps=n_reps, seed=seed)

    def _enumerate(self, largest: int) -> np.ndarray:
        """Design vectors in lexicographic order: the grid points whose last set can hold the largest
        job (and, with three sets, L2 > L1 and set 3 a proper subset of set 2)."""
        g = self.grid
        cm = np.array(list(itertools.product(range(len(g["public_cap"])), range(len(g["private_min"])))))
        if "L2" not in g:
            first = np.array(list(itertools.product(range(len(g["L1"])), range(len(g["set2"])))))
            last_set = first[:, 1]
        else:
            lp = [(a, b) for a, la in enumerate(g["L1"]) for b, lb in enumerate(g["L2"]) if lb > la]
            sp = [(a, b) for a, s2 in enumerate(g["set2"]) for b, s3 in enumerate(g["set3"]) if set(s3) < set(s2)]
            if not sp:
                return np.empty((0, 6), dtype=np.int16)
            lp, sp = np.array(lp), np.array(sp)
            i, j = np.repeat(np.arange(len(lp)), len(sp)), np.tile(np.arange(len(sp)), len(lp))
            first = np.column_stack([lp[i, 0], sp[j, 0], lp[i, 1], sp[j, 1]])
            last_set = first[:, 3]
        k, m = np.repeat(np.arange(len(first)), len(cm)), np.tile(np.arange(len(cm)), len(first))
        x = np.column_stack([first[k], cm[m]])
        sets = g["set3"] if "L2" in g else g["set2"]
        capacity = np.array([[self._set2_capacity(s, c) for c in g["public_cap"]] for s in sets])
        x = x[capacity[last_set[k], x[:, -2]] >= largest]
        return x[np.lexsort(x.T[::-1])].astype(np.int16)

    @staticmethod
    def _sets(sets, key: str) -> tuple[tuple[str, ...], ...]:
        if sets is None:
            return tuple(_proper_subsets())
        if not isinstance(sets, (list, tuple)) or not len(sets):
            raise InputError(f"'{key}' must be a non-empty list of sets of site names; got {sets!r}.")
        out = []
        for s in sets:
            if not isinstance(s, (list, tuple, set, frozenset)):
                raise InputError(f"'{key}' entries must be lists of site names; got {s!r}.")
            unknown = [n for n in s if not isinstance(n, str) or n not in SITES]
            if unknown:
                raise InputError(f"'{key}' names unknown site {unknown[0]!r}; the sites are {list(SITES)}.")
            names = tuple(n for n in SITES if n in set(s))
            if not names or len(names) == len(SITES) or len(names) != len(s):
                raise InputError(f"'{key}' entries must be proper non-empty subsets of {list(SITES)} without "
                                 f"repeats; got {list(s)}.")
            out.append(names)
        if len(set(out)) != len(out):
            raise InputError(f"'{key}' must not repeat a set.")
        return tuple(out)

    @staticmethod
    def _set2_capacity(names, public_cap: int) -> int:
        caps = {"C1": 32, "C2": 32, "C3": 32, "private": 64, "public": public_cap}
        return max(caps[n] for n in names)

    # -- design space ------------------------------------------------------------------------
    n_designs = property(lambda self: len(self._x), doc="Number of designs (grid points not left out).")

    def design(self, i: int) -> np.ndarray:
        """The grid positions of design ``i``: ``(iL1, iset2, icap, imin)``, with three sets
        ``(iL1, iset2, iL2, iset3, icap, imin)``."""
        return self._x[self._check_index(i)].astype(np.int64)

    def index(self, x) -> int:
        key = self._design_vector(x)
        i = -1
        if all(0 <= k < n for k, n in zip(key, self._sizes, strict=True)):
            flat = np.ravel_multi_index(key, tuple(self._sizes))
            pos = int(np.searchsorted(self._keys, flat))
            i = pos if pos < len(self._keys) and self._keys[pos] == flat else -1
        if i < 0:
            raise InputError(f"'x'={list(key)} is not a design of this grid (an index out of range, a last set "
                             "that cannot run the largest job, or with three sets L2 <= L1 or a set 3 that is not "
                             "a proper subset of set 2).")
        return i

    def decode(self, x) -> dict:
        g = self.grid
        row = dict(zip(self.parameter_names, self._x[self.index(x)].tolist(), strict=True))
        out = {}
        for name, k in row.items():
            value = g[name][k]
            out[name] = ("+".join(value) if name.startswith("set") else float(value) if name.startswith("L")
                         else int(value))
        return out

    def repair(self, X) -> np.ndarray:
        """As :meth:`StochasticProblem.repair`; above the base class's table limit (three-set grids),
        each row is its own design or the nearest in L1 distance (ties: the lowest index), found by
        a vectorised scan of the design table."""
        if self.n_designs <= REPAIR_TABLE_LIMIT:
            return super().repair(X)
        X = np.asarray(X, dtype=float).reshape(-1, self.n_var)
        if not np.isfinite(X).all():
            raise InputError(f"'X' must be a list of design vectors of {self.n_var} finite numbers.")
        return np.array([int(np.argmin(np.abs(self._x - row).sum(axis=1))) for row in X], dtype=np.int64)

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = self._check_indices(indices)
        rows = [self.decode(self._x[i]) for i in indices]
        df = pd.DataFrame(rows, columns=list(self.parameter_names))
        df.insert(0, "design", indices)
        return df

    # -- replications ------------------------------------------------------------------------
    def window(self, rep_rng: np.random.Generator) -> pd.DataFrame:
        """The jobs of one replication: a random window, arrivals rescaled to a drawn load.

        ``attrs`` holds the drawn ``offered_load`` (of the 96 cluster nodes), the window's
        ``begin`` and ``length`` in the trace's seconds, and the rescaled window's ``span``.
        """
        submit = self.table["submit"].to_numpy()
        first, last = submit[0], submit[-1]
        for _ in range(100):
            length = rep_rng.uniform(*self.window_days) * DAY
            begin = first + rep_rng.uniform(0.0, last - first - length)
            target = rep_rng.uniform(*self.load)
            mask = (submit >= begin) & (submit < begin + length)
            if mask.sum() >= 2:
                break
        else:
            raise InputError("the trace is too sparse: 100 windows in a row held fewer than 2 jobs.")
        jobs = self.table[mask].reset_index(drop=True)
        work = float((jobs["size"] * jobs["runtime"]).sum())
        factor = (work / length / CLUSTER_NODES) / target  # > 1 stretches the arrivals
        jobs["submit"] = (jobs["submit"] - begin) * factor
        jobs.attrs = {"offered_load": target, "begin": begin, "length": length, "span": length * factor}
        return jobs

    def _replicate(self, indices, reps, entropy):
        out = np.empty((len(indices), len(reps), 3))
        for b, r in enumerate(reps):
            jobs = self.window(replication_rng(entropy, int(r)))
            runtime = jobs["runtime"].to_numpy()
            for a, i in enumerate(indices):
                out[a, b] = self._objectives(jobs, runtime, self.decode(self._x[i]))
        return out

    def run(self, jobs: pd.DataFrame, p: dict) -> tuple:
        """The engine's run of the design of parameters ``p`` on a replication's ``jobs``
        (:meth:`window`): ``(site names, site, start, end, totals)``, per job its site's index in
        the names and its start and end (s), ``totals[0]`` the public-cloud cost."""
        env = multicloud(private_minimum=p["private_min"], public_maximum=p["public_cap"])
        limit = p["L1"] * 60.0
        if "L2" in p:
            policy = TagsSets([env.names, p["set2"].split("+"), p["set3"].split("+")],
                              [limit, p["L2"] * 60.0, math.inf])
        else:
            policy = TagsSets([env.names, p["set2"].split("+")], [limit, math.inf])
        queues = policy.queues(env)
        site, start, end, *_, totals, status = run_table(jobs, queues, env, np.zeros(len(jobs), np.int64),
                                                         self.step)
        return env.names, site, start, end, totals

    def _objectives(self, jobs: pd.DataFrame, runtime: np.ndarray, p: dict) -> tuple[float, float, float]:
        limit = p["L1"] * 60.0
        _, _, _, end, totals = self.run(jobs, p)
        slowdown = (end - jobs["submit"].to_numpy()) / runtime
        short = runtime <= limit
        s_short = float(slowdown[short].mean()) if short.any() else 1.0
        s_long = float(slowdown[~short].mean()) if (~short).any() else 1.0
        return s_short, s_long, float(totals[0])

    def _identity(self) -> dict:
        digest = hashlib.sha256(pd.util.hash_pandas_object(self.table, index=False).to_numpy().tobytes())
        return {**super()._identity(), "grid": {k: list(v) for k, v in self.grid.items()},
                "window_days": self.window_days, "load": self.load, "step": self.step,
                "jobs": digest.hexdigest()[:16]}
