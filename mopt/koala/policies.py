"""KOALA-C task-allocation policies (paper §IV, spec ``koala.md`` §2).

Every policy is described to the engine as a list of *queues*: which sites a queue may use, the
runtime limit of a run started from it, the queue a killed job moves to, the order in which the
queue is served and how a site is picked. The engine does not know which policy it runs.

* :class:`FF`, :class:`RR`, :class:`SJF`, :class:`SJFIdeal`, :class:`HSDF` — one global queue over
  every site; never preempt.
* :class:`TagsChain` — chains of sites with increasing limits; a job is killed at a site's limit and
  restarted from scratch at the next site of its chain.
* :class:`TagsSets` — decreasing sets of sites with increasing limits; a job killed at a set's limit
  restarts from scratch in the next set's queue; first fit within a set; queues scanned from set 1.

A queue that finds no room for a job skips it and tries the next one (``blocking=False``, ours, the
default of the global-queue policies and TAGS-sets, where the paper does not say); with
``blocking=True`` the first job that fits nowhere stops the scan of its queue: strict FCFS, the
default of :class:`TagsChain`, whose sites the paper serves "in FCFS fashion" (§IV-B; before issue
#26 its default was ``False`` too, our choice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mopt.core.errors import InputError, check_number
from mopt.koala.environment import Environment

__all__ = ["FF", "RR", "SJF", "SJFIdeal", "HSDF", "TagsChain", "TagsSets", "Policy", "Queues"]

#: queue orders (engine codes)
FCFS, BY_PREDICTED, BY_RUNTIME, BY_SLOWDOWN = 0, 1, 2, 3
#: site selection (engine codes)
FIRST_FIT, ROUND_ROBIN = 0, 1


@dataclass(frozen=True)
class Queues:
    """The engine's view of a policy on one environment.

    ``sites[q]`` are the site indices of queue ``q`` in the order tried; ``limit[q]`` the runtime
    limit of runs from it (``inf``: none); ``next[q]`` the queue of a job killed at that limit
    (-1: none); ``order[q]`` and ``select[q]`` the engine codes above.
    """

    sites: tuple[tuple[int, ...], ...]
    limit: np.ndarray
    next: np.ndarray
    order: np.ndarray
    select: np.ndarray
    blocking: bool = False

    def flat(self):
        """``(pointer, index)`` arrays of the queues' sites (CSR layout for the engine)."""
        ptr = np.zeros(len(self.sites) + 1, dtype=np.int64)
        ptr[1:] = np.cumsum([len(s) for s in self.sites])
        idx = np.array([k for s in self.sites for k in s], dtype=np.int64)
        return ptr, idx


def _check_blocking(blocking) -> bool:
    if not isinstance(blocking, (bool, np.bool_)):
        raise InputError(f"'blocking' must be True or False; got {blocking!r}.")
    return bool(blocking)


@dataclass(frozen=True)
class Policy:
    """Base of the policies: a single global queue over every site (subclasses set the codes)."""

    blocking: bool = field(default=False, kw_only=True)
    name = "policy"
    _order = FCFS
    _select = FIRST_FIT

    def __post_init__(self):
        object.__setattr__(self, "blocking", _check_blocking(self.blocking))

    def queues(self, env: Environment) -> Queues:
        """This policy's queues on ``env``."""
        one = np.ones(1, dtype=np.int64)
        return Queues((tuple(range(len(env))),), np.array([math.inf]), -one, one * self._order,
                      one * self._select, self.blocking)

    def entry(self, n_jobs: int, rng: np.random.Generator | None) -> np.ndarray:
        """The queue each job joins at submission."""
        return np.zeros(n_jobs, dtype=np.int64)

    @property
    def short_limit(self) -> float | None:
        """The limit that splits short from long jobs (TAGS' first limit; None otherwise)."""
        return None


@dataclass(frozen=True)
class FF(Policy):
    """First fit: FCFS queue, each job to the first site (in site order) with room.

    Examples
    --------
    >>> FF().name
    'FF'
    """

    name = "FF"


@dataclass(frozen=True)
class RR(Policy):
    """Round robin: FCFS queue, sites taken cyclically, skipping sites without room.

    Examples
    --------
    >>> RR().name
    'RR'
    """

    name = "RR"
    _select = ROUND_ROBIN


@dataclass(frozen=True)
class SJF(Policy):
    """Shortest job first by predicted runtime (mean of the user's last two finished jobs), first fit.

    Examples
    --------
    >>> SJF().name
    'SJF'
    """

    name = "SJF"
    _order = BY_PREDICTED


@dataclass(frozen=True)
class SJFIdeal(Policy):
    """Shortest job first by actual runtime (perfect prediction), first fit.

    Examples
    --------
    >>> SJFIdeal().name
    'SJF-ideal'
    """

    name = "SJF-ideal"
    _order = BY_RUNTIME


@dataclass(frozen=True)
class HSDF(Policy):
    """Highest estimated slowdown first, first fit. Ours: slowdown (now - submit + r) / r with r >= 1 s
    the predicted runtime; ties FCFS.

    Examples
    --------
    >>> HSDF().name
    'HSDF'
    """

    name = "HSDF"
    _order = BY_SLOWDOWN


def _check_limits(limits) -> tuple[float, ...]:
    if isinstance(limits, (str, bytes)) or np.ndim(limits) != 1:
        raise InputError(f"'limits' must be a list of seconds ending with math.inf; got {limits!r}.")
    values = tuple(check_number("limits", v, low=0, low_open=True, allow_inf=True) for v in limits)
    if len(values) < 2:
        raise InputError(f"'limits' must hold at least two limits (the last math.inf); got {list(values)}.")
    if not math.isinf(values[-1]):
        raise InputError(f"'limits' must end with math.inf (the last queue is unlimited); got {values[-1]:g}.")
    for a, b in zip(values, values[1:], strict=False):
        if not b > a:
            raise InputError(f"'limits' must be strictly increasing; got {b:g} after {a:g}.")
    return values


@dataclass(frozen=True)
class TagsChain(Policy):
    """TAGS-chain: chains of sites with increasing runtime limits (the last unlimited).

    The environment's sites form ``n_chains`` consecutive chains of ``len(limits)`` sites each. A job
    is bound to a chain at submission (``dispatch="RR"``: cyclically in submission order;
    ``"RND"``: uniformly at random, seeded), joins the queue of its chain's first site, and a run
    that reaches its site's limit is killed and restarted from scratch at the next site. A run
    whose runtime equals the limit completes.

    Each site serves its queue in strict FCFS order by default (``blocking=True``): a head job that
    does not fit blocks the jobs behind it, as in the paper's "Within each site, jobs are served in
    FCFS fashion" (§IV-B); this is what reproduces its Table III (spec ``koala.md`` §5). Until issue
    #26 the default was ``blocking=False`` (later jobs pass a head job that does not fit), our
    choice; pass it to get that behaviour.

    Examples
    --------
    >>> from mopt.koala.environment import multicluster
    >>> q = TagsChain([1500, math.inf], n_chains=2).queues(multicluster(2))
    >>> q.sites, q.limit.tolist(), q.next.tolist(), q.blocking
    (((0,), (1,), (2,), (3,)), [1500.0, inf, 1500.0, inf], [1, -1, 3, -1], True)
    >>> TagsChain([1500, math.inf], blocking=False).blocking
    False
    >>> TagsChain([600, 300, math.inf])
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'limits' must be strictly increasing; got 300 after 600.
    """

    limits: tuple = (1500.0, math.inf)
    n_chains: int = 1
    dispatch: str = "RR"
    blocking: bool = field(default=True, kw_only=True)  # strict FCFS at each site (the paper's §IV-B)
    name = "TAGS-chain"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "limits", _check_limits(self.limits))
        from mopt.core.errors import check_int

        object.__setattr__(self, "n_chains", check_int("n_chains", self.n_chains, low=1))
        if self.dispatch not in ("RR", "RND"):
            raise InputError(f"'dispatch' must be 'RR' or 'RND'; got {self.dispatch!r}.")

    def queues(self, env: Environment) -> Queues:
        k = len(self.limits)
        if len(env) != k * self.n_chains:
            raise InputError(f"TAGS-chain with {self.n_chains} chain(s) of {k} limits needs "
                             f"{k * self.n_chains} sites; the environment has {len(env)}.")
        n = len(env)
        nxt = np.array([q + 1 if (q % k) < k - 1 else -1 for q in range(n)], dtype=np.int64)
        zeros = np.zeros(n, dtype=np.int64)
        return Queues(tuple((q,) for q in range(n)), np.tile(np.array(self.limits), self.n_chains), nxt,
                      zeros + FCFS, zeros + FIRST_FIT, self.blocking)

    def entry(self, n_jobs: int, rng: np.random.Generator | None) -> np.ndarray:
        k = len(self.limits)
        if self.dispatch == "RR":
            return (np.arange(n_jobs, dtype=np.int64) % self.n_chains) * k
        if rng is None:
            rng = np.random.default_rng()
        return rng.integers(0, self.n_chains, size=n_jobs).astype(np.int64) * k

    @property
    def short_limit(self) -> float:
        return self.limits[0]


@dataclass(frozen=True)
class TagsSets(Policy):
    """TAGS-sets: decreasing sets of sites with increasing runtime limits (the last unlimited).

    Set 1 must be the whole system and each later set a proper subset of the one before (sites by
    name or index). A job killed at a set's limit restarts from scratch in the next set's queue,
    even on a site that is also in that set; first fit within a set; every tick scans the queues
    from set 1 upwards.

    Examples
    --------
    >>> from mopt.koala.environment import multicloud
    >>> env = multicloud()
    >>> policy = TagsSets([env.names, ["C3", "private", "public"]], [2400, math.inf])
    >>> policy.queues(env).sites
    ((0, 1, 2, 3, 4), (2, 3, 4))
    >>> TagsSets([["C1", "C2"], ["C3"]], [2400, math.inf]).queues(env)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: TAGS-sets: set 1 must be the whole system ['C1', 'C2', 'C3', 'private', 'public']; got ['C1', 'C2'].
    """

    sets: tuple = field(default=())
    limits: tuple = (2400.0, math.inf)
    name = "TAGS-sets"

    def __post_init__(self):
        super().__post_init__()
        object.__setattr__(self, "limits", _check_limits(self.limits))
        if isinstance(self.sets, (str, bytes)):
            raise InputError(f"'sets' must be a list of sets of sites; got {self.sets!r}.")
        sets = []
        for k, s in enumerate(self.sets):
            if isinstance(s, (str, bytes)):
                raise InputError(f"'sets' entry {k + 1} must be a list of sites; got {s!r}.")
            sets.append(tuple(s))
        if len(sets) != len(self.limits):
            raise InputError(f"'sets' must hold one set per limit ({len(self.limits)}); got {len(sets)}.")
        object.__setattr__(self, "sets", tuple(sets))

    def queues(self, env: Environment) -> Queues:
        resolved = []
        for k, s in enumerate(self.sets):
            idx = sorted({env.position(site) for site in s})
            if not idx:
                raise InputError(f"TAGS-sets: set {k + 1} is empty.")
            if len(idx) != len(s):
                raise InputError(f"TAGS-sets: set {k + 1} names a site twice; got {list(s)}.")
            resolved.append(tuple(idx))
        if resolved[0] != tuple(range(len(env))):
            raise InputError(f"TAGS-sets: set 1 must be the whole system {list(env.names)}; got "
                             f"{[env.names[i] for i in resolved[0]]}.")
        for k in range(1, len(resolved)):
            if not (set(resolved[k]) < set(resolved[k - 1])):
                raise InputError(f"TAGS-sets: set {k + 1} {[env.names[i] for i in resolved[k]]} must be a "
                                 f"proper subset of set {k} {[env.names[i] for i in resolved[k - 1]]}.")
        n = len(resolved)
        zeros = np.zeros(n, dtype=np.int64)
        nxt = np.array([q + 1 if q < n - 1 else -1 for q in range(n)], dtype=np.int64)
        return Queues(tuple(resolved), np.array(self.limits), nxt, zeros + FCFS, zeros + FIRST_FIT,
                      self.blocking)

    @property
    def short_limit(self) -> float:
        return self.limits[0]
