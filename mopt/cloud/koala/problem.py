"""TAGS-sets configurations as a search problem (spec ``koala.md`` §6, beyond the paper).

Decisions, on the five-site environment of :func:`~mopt.cloud.koala.multicloud`: the first limit
``L1`` (minutes, default 5, 10, ..., 240), set 2 (a proper non-empty subset of the five sites; set
1 is always the whole system), the public-cloud cap and the private cloud's minimum. Objectives:
mean slowdown of short jobs (runtime <= L1), of long jobs, and the public-cloud cost in $.

A replication is a random window of the trace (2-4 weeks by default) whose arrivals are stretched
or compressed to a drawn offered load (0.8-1.3 of the three clusters by default); replication ``r``
draws the same window and load for every design (common random numbers). Ours: a class with no
job in a window counts as slowdown 1; designs whose set 2 cannot hold the trace's largest job
(e.g. set 2 = the public cloud alone with a cap below it) are left out (:attr:`n_excluded`).
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np
import pandas as pd

from mopt.cloud.koala.environment import multicloud
from mopt.cloud.koala.policies import TagsSets
from mopt.cloud.koala.simulate import job_table, run_table
from mopt.core.errors import InputError, check_number
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_rng

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


def _proper_subsets() -> list[tuple[str, ...]]:
    return [c for k in range(1, len(SITES)) for c in itertools.combinations(SITES, k)]


def _values(name: str, values, *, low: float, integer: bool) -> tuple:
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1 or len(values) == 0:
        raise InputError(f"'{name}' must be a non-empty list of numbers; got {values!r}.")
    out = []
    for v in values:
        x = check_number(name, v, low=low)
        if integer and x != int(x):
            raise InputError(f"'{name}' must hold integers; got {v!r}.")
        out.append(int(x) if integer else x)
    if len(set(out)) != len(out):
        raise InputError(f"'{name}' must not repeat a value; got {list(values)}.")
    return tuple(sorted(out))


def _range(name: str, value, *, low: float) -> tuple[float, float]:
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != 2:
        raise InputError(f"'{name}' must be a pair [low, high]; got {value!r}.")
    a, b = (check_number(name, v, low=low, low_open=True) for v in value)
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
    """

    parameter_names = ("L1", "set2", "public_cap", "private_min")

    def __init__(self, jobs, *, limits=None, set2=None, public_caps=None, private_mins=None,
                 window_days=(14.0, 28.0), load=(0.8, 1.3), step: float = 30.0, n_reps: int = 10,
                 seed: int = 0):
        self.table = job_table(jobs)
        self.grid = {
            "L1": _values("limits", DEFAULT_LIMITS if limits is None else limits, low=0, integer=False),
            "set2": self._sets(set2),
            "public_cap": _values("public_caps", DEFAULT_PUBLIC_CAPS if public_caps is None else public_caps,
                                  low=0, integer=True),
            "private_min": _values("private_mins", DEFAULT_PRIVATE_MINS if private_mins is None else private_mins,
                                   low=0, integer=True),
        }
        if self.grid["L1"][0] <= 0:
            raise InputError(f"'limits' must be > 0 minutes; got {self.grid['L1'][0]:g}.")
        if self.grid["private_min"][-1] > 64:
            raise InputError(f"'private_mins' must be <= the private maximum 64; got {self.grid['private_min'][-1]}.")
        self.window_days = _range("window_days", window_days, low=0)
        self.load = _range("load", load, low=0)
        self.step = check_number("step", step, low=0, high=3600, low_open=True, high_open=True)
        span = self.table["submit"].iloc[-1] - self.table["submit"].iloc[0]
        if span < self.window_days[1] * DAY:
            raise InputError(f"'window_days' must fit in the trace's span of {span / DAY:.1f} days; got "
                             f"{list(self.window_days)}.")
        largest = int(self.table["size"].max())
        if largest > 64:
            raise InputError(f"'jobs' must hold jobs of at most 64 processors for the five sites; got {largest} "
                             "(use koala_trace, which keeps <= 32).")
        rows, excluded = [], 0
        g = self.grid
        for x in itertools.product(*(range(len(g[k])) for k in self.parameter_names)):
            if self._set2_capacity(g["set2"][x[1]], g["public_cap"][x[2]]) < largest:
                excluded += 1
                continue
            rows.append(x)
        if not rows:
            raise InputError("no design of the grid can run the trace's largest job in set 2.")
        self._x = np.array(rows, dtype=np.int64)
        sizes = [len(g[k]) for k in self.parameter_names]
        self._dense = np.full(sizes, -1, dtype=np.int64)  # grid position -> design index (-1: left out)
        self._dense[tuple(self._x.T)] = np.arange(len(rows))
        self.n_excluded = excluded
        super().__init__(objectives=("slowdown_short", "slowdown_long", "public_cost"), n_var=4,
                         xl=np.zeros(4, int), xu=np.array(sizes) - 1, n_reps=n_reps, seed=seed)

    @staticmethod
    def _sets(set2) -> tuple[tuple[str, ...], ...]:
        if set2 is None:
            return tuple(_proper_subsets())
        if isinstance(set2, (str, bytes)) or not len(set2):
            raise InputError(f"'set2' must be a non-empty list of sets of site names; got {set2!r}.")
        out = []
        for s in set2:
            if isinstance(s, (str, bytes)):
                raise InputError(f"'set2' entries must be lists of site names; got {s!r}.")
            names = tuple(n for n in SITES if n in set(s))
            unknown = [n for n in s if n not in SITES]
            if unknown:
                raise InputError(f"'set2' names unknown site {unknown[0]!r}; the sites are {list(SITES)}.")
            if not names or len(names) == len(SITES) or len(names) != len(s):
                raise InputError(f"'set2' entries must be proper non-empty subsets of {list(SITES)} without "
                                 f"repeats; got {list(s)}.")
            out.append(names)
        if len(set(out)) != len(out):
            raise InputError("'set2' must not repeat a set.")
        return tuple(out)

    @staticmethod
    def _set2_capacity(names, public_cap: int) -> int:
        caps = {"C1": 32, "C2": 32, "C3": 32, "private": 64, "public": public_cap}
        return max(caps[n] for n in names)

    # -- design space ------------------------------------------------------------------------
    n_designs = property(lambda self: len(self._x), doc="Number of designs (grid points not left out).")

    def design(self, i: int) -> np.ndarray:
        """The grid positions ``(iL1, iset2, icap, imin)`` of design ``i``."""
        return self._x[self._check_index(i)].copy()

    def index(self, x) -> int:
        key = self._design_vector(x)
        inside = all(0 <= k < n for k, n in zip(key, self._dense.shape, strict=True))
        i = int(self._dense[key]) if inside else -1
        if i < 0:
            raise InputError(f"'x'={list(key)} is not a design of this grid (an index out of range, or a set 2 "
                             "that cannot run the largest job).")
        return i

    def decode(self, x) -> dict:
        a, b, c, d = self._x[self.index(x)]
        g = self.grid
        return {"L1": float(g["L1"][a]), "set2": "+".join(g["set2"][b]), "public_cap": int(g["public_cap"][c]),
                "private_min": int(g["private_min"][d])}

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = self._check_indices(indices)
        rows = [self.decode(self._x[i]) for i in indices]
        df = pd.DataFrame(rows, columns=list(self.parameter_names))
        df.insert(0, "design", indices)
        return df

    # -- replications ------------------------------------------------------------------------
    def window(self, rep_rng: np.random.Generator) -> pd.DataFrame:
        """The jobs of one replication: a random window, arrivals rescaled to a drawn load.

        ``attrs`` holds the drawn ``offered_load`` (of the 96 cluster nodes) and the rescaled
        window's ``span`` in seconds.
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
        jobs.attrs = {"offered_load": target, "span": length * factor}
        return jobs

    def _replicate(self, indices, reps, entropy):
        out = np.empty((len(indices), len(reps), 3))
        for b, r in enumerate(reps):
            jobs = self.window(replication_rng(entropy, int(r)))
            runtime = jobs["runtime"].to_numpy()
            for a, i in enumerate(indices):
                out[a, b] = self._objectives(jobs, runtime, self.decode(self._x[i]))
        return out

    def _objectives(self, jobs: pd.DataFrame, runtime: np.ndarray, p: dict) -> tuple[float, float, float]:
        env = multicloud(private_minimum=p["private_min"], public_maximum=p["public_cap"])
        limit = p["L1"] * 60.0
        policy = TagsSets([env.names, p["set2"].split("+")], [limit, math.inf])
        queues = policy.queues(env)
        site, start, end, *_, totals, status = run_table(jobs, queues, env, np.zeros(len(jobs), np.int64),
                                                         self.step)
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
