"""``VMPartitionProblem``: choosing a VM partition for one scheduling period, as a StochasticProblem.

Designs are schedules θ = (θ_1, ..., θ_C) ranked lexicographically (:mod:`mopt.vmc.space`); design
index = rank, so nothing tabulates the space (5.2·10⁹ schedules at 128 VMs).  With ``candidates``
the designs are only those ranks (a uniform sample U′ of a huge space, spec §5, G13), design index
= position in ``candidates``.

The objective (ours, G4 of the specification) is the time to clear the period's work,
Σ_j EET_j + max_c backlog_c(end) / β_c (``clear_time``, minimised): it equals the paper's makespan
whenever everything finishes and does not tie all saturated schedules at the period length.  With
an elastic total (Σθ_c ≤ θ_max, ours) the number of VMs is a second objective (``vms``).

Randomness (spec §3), ``noise``:

- ``"independent"`` (the default, the paper's): Algorithm 1 (lines 8–10) simulates the task times
  "N times" for each schedule, so every schedule draws its own z ~ N(0, 1) per (replication,
  sub-interval, class), independent of every other schedule's.  Replication r of a schedule is
  addressed by (seed, the schedule's rank, r) (:mod:`mopt.vmc.noise`), never by its position in a
  batch or in ``candidates``: results do not depend on the worker count or the executor.
- ``"common"`` (ours, a variance reduction the paper does not use; a sensitivity run): in
  replication r, one z per (sub-interval, class) is shared by every schedule
  (:meth:`VMPartitionProblem.normals`).  With it a rough pass of 10 replications already ranks
  as well as 1,000, so neither eOO's stage budgets nor OCBA can matter.

Either way p = max(ε·μ, μ + σ·z) with μ, σ from the profiling table for the cluster's size (the
truncation at ε = 1 % of μ is ours).  The estimator of a schedule is the mean over replications of
the objective; the paper instead averages p first and simulates once, which hides the variance
that OCBA needs and biases a non-linear objective (the objective is convex in p: a max of sums).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_array
from mopt.core.inputs import canonical
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_rng
from mopt.vmc.engine import clear_times, clear_times_all, clear_times_independent
from mopt.vmc.profile import check_table, class_tables, default_table
from mopt.vmc.space import (
    check_space,
    count_elastic,
    count_partitions,
    rank,
    rank_elastic,
    unrank,
    unrank_elastic,
)

__all__ = ["VMPartitionProblem", "EPS_FRACTION", "TABLE_LIMIT", "NOISES", "check_noise"]

#: spaces of at most this many schedules are unranked once, in full, on first use (27,132 at 20
#: VMs over 7 classes: 1.5 MB); larger ones are unranked per call
TABLE_LIMIT = 100_000

#: truncation of a drawn task time at this fraction of its mean (ours)
EPS_FRACTION = 0.01
_BLOCK = 1024  # replications per random block (see VMPartitionProblem.normals)

#: the noise models: each schedule its own draws (the paper's, the default), or common random numbers (ours)
NOISES = ("independent", "common")


def check_noise(noise) -> str:
    """``noise`` if it is one of :data:`NOISES` (else an InputError naming it)."""
    return canonical(noise, NOISES, "'noise'")


class VMPartitionProblem(StochasticProblem):
    """One period of a virtual-cluster system: which schedule clears the period's work fastest.

    Parameters
    ----------
    theta : int
        VMs in all (the fixed total), or θ_max with ``elastic=True``.
    lengths : sequence of float
        Sub-interval lengths of the period (s): from the period's start to the first arrival (or
        the arrival at the start), between arrivals, and from the last arrival to the period's end.
    arrivals : 2-D array (len(lengths), C)
        Tasks arriving at the start of each sub-interval.
    backlog : sequence of float or None
        Tasks waiting when the period starts.
    table : DataFrame or None
        Profiling table (:mod:`mopt.vmc.profile`; None: the default).
    elastic : bool
        Σθ_c ≤ θ instead of = θ, with the VM count as a second objective.
    candidates : sequence of int or None
        Restrict the designs to these schedule ranks (a sample of a huge space).
    noise : {"independent", "common"}
        Each schedule draws its own task times (the paper's, default) or all share one draw per
        (replication, sub-interval, class) (common random numbers, ours); see the module's text.
    n_reps, seed : int
        pymoo's view (see :class:`~mopt.core.problem.StochasticProblem`).

    Examples
    --------
    >>> prob = VMPartitionProblem(8, [50.0, 50.0], [[10, 5, 2], [0, 5, 2]])
    >>> prob.n_designs, prob.decode(prob.design(0))
    (21, {'theta_1': 1, 'theta_2': 1, 'theta_3': 6})
    >>> prob.replicate([0, 20], [0, 1], seed=1).shape
    (2, 2, 1)
    """

    def kernels(self) -> tuple:
        """The virtual-cluster kernels a replication runs (:meth:`StochasticProblem.kernels`)."""
        from mopt.vmc.engine import _independent_serial
        from mopt.vmc.space_kernel import unrank_kernel

        return _independent_serial, unrank_kernel

    def __init__(self, theta: int, lengths, arrivals, backlog=None, *, table=None, elastic: bool = False,
                 candidates=None, noise: str = "independent", n_reps: int = 1000, seed: int = 0):
        self.noise = check_noise(noise)
        L = check_array("lengths", lengths, ndim=1, nonnegative=True)
        A = check_array("arrivals", arrivals, ndim=2, nonnegative=True)
        if len(A) != len(L):
            raise InputError(f"'arrivals' must have one row per sub-interval ({len(L)}); got {len(A)}.")
        C = A.shape[1]
        theta, C = check_space(theta, C)
        b0 = np.zeros(C) if backlog is None else check_array("backlog", backlog, ndim=1, shape=(C,),
                                                            nonnegative=True)
        self.theta, self.n_classes, self.elastic = theta, C, bool(elastic)
        self.lengths, self.arrivals, self.backlog = L, A, b0
        self.table = default_table(C) if table is None else check_table(table)
        self._mean, self._sd = class_tables(self.table, C, theta)
        self.space_size = count_elastic(theta, C) if self.elastic else count_partitions(theta, C)
        if candidates is None:
            self.candidates = None
        else:
            cand = np.asarray(candidates)
            if cand.ndim != 1 or cand.size == 0 or cand.dtype.kind not in "iu":
                raise InputError("'candidates' must be a non-empty sequence of schedule ranks.")
            cand = cand.astype(np.int64)
            if cand.min() < 0 or cand.max() >= self.space_size or len(np.unique(cand)) != len(cand):
                raise InputError(f"'candidates' must be distinct ranks in [0, {self.space_size - 1}].")
            self.candidates = cand
            self._sorted = bool((np.diff(cand) > 0).all())
        self._cand_table = None  # the candidates' schedules, unranked once on first use
        self.parameter_names = tuple(f"theta_{c + 1}" for c in range(C))
        top = theta - C + 1
        objectives = ("clear_time", "vms") if self.elastic else ("clear_time",)
        super().__init__(objectives=objectives, n_var=C, xl=np.ones(C), xu=np.full(C, top), n_reps=n_reps,
                         seed=seed)

    # -- design space --------------------------------------------------------------------------
    @property
    def n_designs(self) -> int:
        return self.space_size if self.candidates is None else len(self.candidates)

    def _ranks(self, indices) -> np.ndarray:
        idx = np.asarray(indices, dtype=np.int64)
        return idx if self.candidates is None else self.candidates[idx]

    def schedules(self, indices) -> np.ndarray:
        """Schedules (rows of VM counts) of design ``indices``, vectorised.

        The candidates' schedules, or on a space of at most :data:`TABLE_LIMIT` designs every
        schedule, are unranked once on first use and looked up after (ours, for speed: a
        sequential method asks for the same designs round after round; the values are unrank's).
        """
        indices = self._check_indices(indices)
        if self.candidates is None and self.space_size > TABLE_LIMIT:
            return self._unrank(indices)
        if self._cand_table is None:
            ranks = np.arange(self.space_size) if self.candidates is None else self.candidates
            self._cand_table = self._unrank(ranks)
        return self._cand_table[np.asarray(indices, dtype=np.int64)].reshape(-1, self.n_classes)

    def __getstate__(self):
        state = self.__dict__.copy()
        if self.candidates is None:
            state["_cand_table"] = None  # the whole space's table is rebuilt where it is used
        return state

    def _unrank(self, ranks) -> np.ndarray:
        if self.elastic:
            return unrank_elastic(ranks, self.theta, self.n_classes).reshape(-1, self.n_classes)
        return unrank(ranks, self.theta, self.n_classes).reshape(-1, self.n_classes)

    def design(self, i: int) -> np.ndarray:
        return self.schedules([self._check_index(i)])[0]

    def index(self, x) -> int:
        s = np.asarray(self._design_vector(x), dtype=np.int64)
        if (s < 1).any():
            raise InputError(f"'x' must give every class at least one VM; got {s.tolist()}.")
        if self.elastic:
            if s.sum() > self.theta:
                raise InputError(f"'x' must use at most {self.theta} VMs; got {int(s.sum())}.")
            r = rank_elastic(s, self.theta)
        else:
            if s.sum() != self.theta:
                raise InputError(f"'x' must use {self.theta} VMs in all; got {int(s.sum())}.")
            r = rank(s)
        if self.candidates is None:
            return r
        pos = int(np.searchsorted(self.candidates, r)) if self._sorted else -1
        if pos < 0:
            pos = next((k for k, c in enumerate(self.candidates.tolist()) if c == r), len(self.candidates))
        if pos >= len(self.candidates) or self.candidates[pos] != r:
            raise InputError(f"'x' {s.tolist()} is not one of the problem's candidate schedules.")
        return pos

    def decode(self, x) -> dict:
        s = self.design(self.index(x))
        return {name: int(v) for name, v in zip(self.parameter_names, s, strict=True)}

    def designs_frame(self, indices) -> pd.DataFrame:
        indices = self._check_indices(indices)
        df = pd.DataFrame(self.schedules(indices), columns=list(self.parameter_names))
        df.insert(0, "design", indices)
        return df

    def repair(self, X) -> np.ndarray:
        """Design indices of the nearest valid schedules of the vectors ``X`` (any reals).

        Each row is rounded and clipped to ≥ 1 VM per class; with the fixed total, VMs are then
        added to the classes furthest below their share (or taken from those furthest above, never
        below 1) until the row sums to θ; with the elastic total a row over θ_max is scaled down the
        same way.  A schedule outside ``candidates`` maps to the candidate nearest in L1 distance.
        """
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.ndim != 2 or X.shape[1] != self.n_classes or not np.isfinite(X).all():
            raise InputError(f"'X' must be a list of design vectors of {self.n_classes} numbers.")
        out = np.empty(len(X), dtype=np.int64)
        for k, row in enumerate(X):
            s = _fix_total(np.maximum(row, 1.0), self.theta, exact=not self.elastic)
            out[k] = self._nearest(s)
        return out

    def _nearest(self, s: np.ndarray) -> int:
        try:
            return self.index(s)
        except InputError:
            S = self.schedules(np.arange(self.n_designs))  # only with candidates: a small table
            return int(np.argmin(np.abs(S - s).sum(axis=1)))

    # -- replications --------------------------------------------------------------------------
    def normals(self, reps, entropy: int) -> np.ndarray:
        """z of replications ``reps`` under ``noise="common"``: shape (len(reps), sub-intervals,
        classes), shared by all designs.

        Replication r's z is row r mod 1024 of block r // 1024, drawn from the stream of replication
        index ``r // 1024`` (:func:`mopt.core.random.replication_rng`): it depends only on (seed, r).
        """
        J, C = self.arrivals.shape
        reps = np.asarray(reps, dtype=np.int64)
        cache = getattr(self, "_z_cache", None)
        if cache is None or cache[0] != entropy:
            cache = self._z_cache = (entropy, {})
        blocks = cache[1]
        out = np.empty((len(reps), J, C))
        for blk in np.unique(reps // _BLOCK).tolist():
            if blk not in blocks:
                blocks[blk] = replication_rng(entropy, blk).standard_normal((_BLOCK, J, C))
            k = reps // _BLOCK == blk
            out[k] = blocks[blk][reps[k] % _BLOCK]
        return out

    def tabulate(self, n_reps: int) -> None:
        """Simulate every design's first ``n_reps`` replications in one call when first asked, and
        answer later requests from that table (the same values: a replication is addressed by
        (seed, schedule, r) under either noise model; for methods that
        ask for many small groups, such as OCBA's rounds).  Needs n_designs·n_reps ≤ 10⁷."""
        if self.n_designs * n_reps > 10**7:
            raise InputError(f"'n_reps' too large to tabulate {self.n_designs} designs; got {n_reps}.")
        self._tab = (int(n_reps), None, None)

    def _clear(self, indices, reps, entropy):
        tab = getattr(self, "_tab", None)
        reps = np.asarray(reps, dtype=np.int64)
        if tab is not None and len(reps) and reps.max() < tab[0]:
            if tab[1] != entropy:
                tab = self._tab = (tab[0], entropy, self._clear_now(np.arange(self.n_designs), np.arange(tab[0]),
                                                                     entropy))
            return tab[2][np.ix_(np.asarray(indices, dtype=np.int64), reps)]
        return self._clear_now(indices, reps, entropy)

    def _clear_now(self, indices, reps, entropy):
        if self.noise == "independent":
            idx = np.asarray(indices, dtype=np.int64).reshape(-1)
            return clear_times_independent(self.schedules(idx), self._ranks(idx), self._mean, self._sd, entropy,
                                           reps, EPS_FRACTION, self.lengths, self.arrivals, self.backlog)
        Z = self.normals(reps, entropy)
        args = (self._mean, self._sd, Z, EPS_FRACTION, self.lengths, self.arrivals, self.backlog)
        idx = np.asarray(indices, dtype=np.int64).reshape(-1)
        if (self.candidates is None and not self.elastic and self.n_classes >= 3 and len(idx) == self.n_designs
                and len(idx) > 1000 and (np.diff(idx) == 1).all() and idx[0] == 0):
            return clear_times_all(self.theta, *args)  # the whole space in rank order: the faster walk
        return clear_times(self.schedules(idx), *args)

    def _replicate(self, indices, reps, entropy):
        clear = self._clear(indices, reps, entropy)
        if not self.elastic:
            return clear[:, :, None]
        vms = np.broadcast_to(self.schedules(indices).sum(axis=1)[:, None].astype(float), clear.shape)
        return np.stack([clear, vms], axis=2)

    def _identity(self) -> dict:
        h = hashlib.sha256()
        for a in (self.lengths, self.arrivals, self.backlog, self._mean, self._sd):
            h.update(np.ascontiguousarray(a, dtype=float).tobytes())
        if self.candidates is not None:
            h.update(self.candidates.tobytes())
        return {**super()._identity(), "theta": self.theta, "elastic": self.elastic, "noise": self.noise,
                "data": h.hexdigest()}


def _fix_total(row: np.ndarray, total: int, *, exact: bool) -> np.ndarray:
    """Integer VM counts ≥ 1 near ``row`` summing to ``total`` (``exact``) or at most ``total``."""
    s = np.maximum(np.rint(row), 1).astype(np.int64)
    if not exact and s.sum() <= total:
        return s
    share = 1 + (row - 1) * (total - len(row)) / max(float((row - 1).sum()), 1e-12)
    while s.sum() < total:  # add to the class furthest below its share
        s[int(np.argmax(share - s))] += 1
    while s.sum() > total:  # take from the class furthest above its share that can give one
        gap = np.where(s > 1, s - share, -np.inf)
        s[int(np.argmax(gap))] -= 1
    return s
