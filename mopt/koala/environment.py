"""KOALA-C sites and environments (spec ``koala.md`` §1).

A site is a cluster (its nodes are always there), a private cloud or a public cloud (VMs leased on
demand, "OD"). An :class:`Environment` is an ordered tuple of sites; the order is the order in
which first-fit policies try them. The three environments of the paper's experiments are ready
made: :func:`multicluster`, :func:`multicloud` and :func:`real_world`; any other layout is built
from :func:`cluster`, :func:`private_cloud` and :func:`public_cloud`.

Choices the paper leaves open (ours, spec §1): a leased VM boots for 120 s before a job can use it;
the private cloud keeps its minimum of VMs up from the first submission and releases any other VM
that has been idle for 300 s; the public cloud releases an idle VM within one scheduling tick of
its next billed hour and charges ``price`` per started VM-hour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import suggest

__all__ = [
    "Site", "Environment", "cluster", "private_cloud", "public_cloud", "multicluster", "multicloud",
    "real_world", "offered_load", "KINDS",
]  # fmt: skip

#: site kinds, in the engine's codes 0, 1, 2
KINDS = ("cluster", "private", "public")
#: the public cloud's price per started VM-hour in the paper's simulations (§V-A)
PAPER_PRICE = 0.065


@dataclass(frozen=True)
class Site:
    """One KOALA-C site.

    Parameters
    ----------
    name : str
        Unique name within an environment.
    kind : {"cluster", "private", "public"}
    size : int
        Nodes of a cluster, or the most VMs a cloud may lease (the cap; 0 allowed: a closed cloud).
    minimum : int
        VMs a private cloud keeps leased at all times (clusters and public clouds: 0).
    price : float
        Cost per started VM-hour (public cloud; clusters and private clouds are free).
    boot : float
        Seconds between leasing a VM and a job being able to use it (ours: 120 s).
    idle_release : float
        A private-cloud VM above the minimum is released after this many idle seconds (ours: 300 s).

    Examples
    --------
    >>> Site("C1", "cluster", 32)
    Site(name='C1', kind='cluster', size=32, minimum=0, price=0.0, boot=120.0, idle_release=300.0)
    """

    name: str
    kind: str
    size: int
    minimum: int = 0
    price: float = 0.0
    boot: float = 120.0
    idle_release: float = 300.0

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name.strip():
            raise InputError(f"site 'name' must be a non-empty string; got {self.name!r}.")
        if self.kind not in KINDS:
            raise InputError(f"site {self.name!r}: 'kind' must be one of {list(KINDS)}; got {self.kind!r}"
                             f"{suggest(self.kind, KINDS) or '.'}")
        where = f"site {self.name!r}: "
        try:
            size = check_int("size", self.size, low=1 if self.kind == "cluster" else 0)
            minimum = check_int("minimum", self.minimum, low=0)
            price = check_number("price", self.price, low=0)
            boot = check_number("boot", self.boot, low=0)
            idle_release = check_number("idle_release", self.idle_release, low=0)
        except InputError as exc:
            raise InputError(where + str(exc)) from None
        if minimum > size:
            raise InputError(f"{where}the private minimum must be <= its maximum 'size'={size}; got "
                             f"minimum={minimum}.")
        if self.kind != "private" and minimum:
            raise InputError(f"{where}only a private cloud has a 'minimum'; got minimum={minimum}.")
        if self.kind != "public" and price:
            raise InputError(f"{where}only a public cloud has a 'price'; got price={price:g}.")
        for key, value in (("size", size), ("minimum", minimum), ("price", price), ("boot", boot),
                           ("idle_release", idle_release)):
            object.__setattr__(self, key, value)

    @property
    def is_cloud(self) -> bool:
        """True for a private or public cloud (VMs leased on demand)."""
        return self.kind != "cluster"


def cluster(name: str, nodes: int = 32) -> Site:
    """A cluster site of ``nodes`` identical nodes (always available, free).

    Examples
    --------
    >>> cluster("C1").size
    32
    """
    return Site(name, "cluster", nodes)


def private_cloud(name: str = "private", *, minimum: int = 8, maximum: int = 64, boot: float = 120.0,
                  idle_release: float = 300.0) -> Site:
    """A free private cloud keeping ``minimum`` VMs up and leasing up to ``maximum`` on demand.

    Examples
    --------
    >>> private_cloud().minimum, private_cloud().size
    (8, 64)
    >>> private_cloud(minimum=70)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: site 'private': the private minimum must be <= its maximum 'size'=64; got minimum=70.
    """
    return Site(name, "private", maximum, minimum=minimum, boot=boot, idle_release=idle_release)


def public_cloud(name: str = "public", *, maximum: int = 128, price: float = PAPER_PRICE,
                 boot: float = 120.0) -> Site:
    """A public cloud leasing up to ``maximum`` VMs at ``price`` per started VM-hour.

    Examples
    --------
    >>> public_cloud().price
    0.065
    """
    return Site(name, "public", maximum, price=price, boot=boot)


@dataclass(frozen=True)
class Environment:
    """An ordered, non-empty tuple of sites with unique names.

    Examples
    --------
    >>> env = Environment((cluster("A", 16), public_cloud(maximum=8)))
    >>> env.names, env.capacity("cluster")
    (('A', 'public'), 16)
    >>> Environment(())
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'sites' must hold at least one site; got an empty set of sites.
    """

    sites: tuple[Site, ...]

    def __post_init__(self):
        sites = tuple(self.sites) if not isinstance(self.sites, (str, bytes)) else None
        if sites is None:
            raise InputError(f"'sites' must be a sequence of Site; got {self.sites!r}.")
        if not sites:
            raise InputError("'sites' must hold at least one site; got an empty set of sites.")
        for k, site in enumerate(sites):
            if not isinstance(site, Site):
                raise InputError(f"'sites' must hold Site objects; got {site!r} at position {k}.")
        names = [s.name for s in sites]
        dup = next((n for k, n in enumerate(names) if n in names[:k]), None)
        if dup is not None:
            raise InputError(f"'sites' names must be unique; got {dup!r} twice.")
        object.__setattr__(self, "sites", sites)

    @property
    def names(self) -> tuple[str, ...]:
        """Site names in site order."""
        return tuple(s.name for s in self.sites)

    def __len__(self) -> int:
        return len(self.sites)

    def position(self, site: str | int) -> int:
        """Index of ``site`` (a name or an index) in site order; InputError for an unknown site."""
        if isinstance(site, str):
            if site not in self.names:
                raise InputError(f"unknown site {site!r}; the sites are {list(self.names)}.")
            return self.names.index(site)
        k = check_int("site", site, low=0, high=len(self.sites) - 1)
        return k

    def capacity(self, kind: str | None = None) -> int:
        """Nodes plus most VMs of the sites of ``kind`` (None: every site)."""
        return sum(s.size for s in self.sites if kind is None or s.kind == kind)


#: the most chains of a multicluster (ours: 2,048 clusters; the paper uses 1 to 4)
MAX_CHAINS = 1024


def multicluster(n_chains: int = 1, nodes: int = 32) -> Environment:
    """``n_chains`` chains of two clusters of ``nodes`` nodes (§V-A1): clusters ``C1 .. C{2N}``.

    Traditional policies use all clusters as one set; chain ``c`` of TAGS-chain is the clusters
    ``C{2c+1}, C{2c+2}``.

    Examples
    --------
    >>> multicluster(2).names
    ('C1', 'C2', 'C3', 'C4')
    """
    n = check_int("n_chains", n_chains, low=1, high=MAX_CHAINS)
    return Environment(tuple(cluster(f"C{k + 1}", nodes) for k in range(2 * n)))


def multicloud(*, private_minimum: int = 8, private_maximum: int = 64, public_maximum: int = 128,
               price: float = PAPER_PRICE, boot: float = 120.0) -> Environment:
    """Three clusters of 32 nodes, a private cloud (8..64 VMs) and a public cloud (128 VMs), §V-A2.

    Site order (the order first fit tries): clusters, private cloud, public cloud.

    Examples
    --------
    >>> env = multicloud()
    >>> env.names, env.capacity()
    (('C1', 'C2', 'C3', 'private', 'public'), 288)
    """
    return Environment((
        cluster("C1"), cluster("C2"), cluster("C3"),
        private_cloud(minimum=private_minimum, maximum=private_maximum, boot=boot),
        public_cloud(maximum=public_maximum, price=price, boot=boot),
    ))  # fmt: skip


def real_world() -> Environment:
    """The real-world layout of §V-D (shape only): 2 clusters of 32, a private cloud <= 32 VMs and a
    public cloud <= 64 VMs. The paper does not give the private minimum; ours keeps 8.

    Examples
    --------
    >>> real_world().capacity("public")
    64
    """
    return Environment((cluster("C1"), cluster("C2"), private_cloud(maximum=32), public_cloud(maximum=64)))


def offered_load(submit, size, runtime, capacity: int) -> float:
    """Offered load of a trace: Σ size·runtime / trace span / ``capacity`` (spec §4).

    Examples
    --------
    >>> offered_load([0, 100], [2, 2], [50, 50], capacity=4)
    0.5
    """
    import numpy as np

    submit, size, runtime = (np.asarray(a, dtype=float) for a in (submit, size, runtime))
    span = float(submit.max() - submit.min()) if submit.size else 0.0
    if span <= 0 or capacity <= 0:
        return math.inf
    return float((size * runtime).sum() / span / capacity)
