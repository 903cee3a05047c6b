"""Fluctuating workloads (LFLD, LFHD, HFLD, HFHD), workload similarity and the pooled thresholds.

The paper gives no generator; this one is ours.  Seven task classes by default.  Batches arrive as a
Poisson process: low frequency (LF) 2 batches per base period on average, high frequency (HF) 8, at
the same offered load (HF batches are a quarter of the size).  The offered load is ``load`` (0.8) of
the capacity θ / p̄ tasks per second, p̄ the mean of the class means at one VM (so it scales with the
cluster size).  Class mix: low difference (LD) draws each batch's mix from Dirichlet(200·w) around
one base mix w; high difference (HD) jumps, with probability 0.5 per batch, to a new base mix
w ~ Dirichlet(1, ..., 1).  A batch holds Poisson(size) tasks split multinomially by its mix.

Similarity (Eq. 4 of the paper) is a cosine in [0, 1].  The paper computes it over δ, the total
workload with the backlog; ours is over the batch **arrival** vectors Δδ, because the backlog depends
on the schedule being searched.  Two zero vectors have similarity 1, one zero vector 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import canonical
from mopt.core.random import SeedLike, resolve_seed

__all__ = ["KINDS", "Workload", "generate", "similarity", "pooled_thresholds"]

KINDS = ("LFLD", "LFHD", "HFLD", "HFHD")
#: batches per base period (ours)
BATCHES_PER_PERIOD = {"LF": 2.0, "HF": 8.0}


@dataclass(frozen=True)
class Workload:
    """Batch arrivals: sorted ``times`` (s) and ``batches`` (one row per batch, one column per class)."""

    times: np.ndarray
    batches: np.ndarray
    kind: str = ""

    @property
    def n_classes(self) -> int:
        return self.batches.shape[1]

    def window(self, start: float, end: float) -> Workload:
        """The batches arriving in [start, end)."""
        k = (self.times >= start) & (self.times < end)
        return Workload(self.times[k], self.batches[k], self.kind)


def generate(kind: str, theta: int, horizon: float, base_period: float, seed: SeedLike = None, *,
             n_classes: int = 7, mean_p: float = 25.0, load: float = 0.8) -> Workload:
    """A seeded workload of type ``kind`` over [0, ``horizon``).

    Parameters
    ----------
    kind : {"LFLD", "LFHD", "HFLD", "HFHD"}
    theta : int
        Cluster size in VMs (the offered load scales with it).
    horizon, base_period : float
        Length of the workload and of the base period (s).
    seed : int, Generator or None
    n_classes : int
    mean_p : float
        p̄, the mean seconds per task on one VM (default: the default profiling table's 25 s).
    load : float
        Offered load as a fraction of the capacity θ / p̄.

    Examples
    --------
    >>> w = generate("HFHD", 20, 1000.0, 100.0, seed=1)
    >>> w.batches.shape[1], bool((np.diff(w.times) > 0).all())
    (7, True)
    """
    kind = canonical(kind, KINDS, "'workload'")  # "lfld" is LFLD
    theta = check_int("theta", theta, low=1)
    horizon = check_number("horizon", horizon, low=0, low_open=True)
    base_period = check_number("base_period", base_period, low=0, low_open=True)
    n_classes = check_int("n_classes", n_classes, low=1)
    mean_p = check_number("mean_p", mean_p, low=0, low_open=True)
    load = check_number("load", load, low=0, low_open=True)
    rng = np.random.default_rng(resolve_seed(seed))
    per_period = BATCHES_PER_PERIOD[kind[:2]]
    gap = base_period / per_period
    n_max = int(horizon / gap * 2 + 50)
    times = np.cumsum(rng.exponential(gap, n_max))
    while times[-1] < horizon:  # (almost never) more arrivals needed
        times = np.concatenate([times, times[-1] + np.cumsum(rng.exponential(gap, n_max))])
    times = times[times < horizon]
    size = load * theta / mean_p * gap  # tasks per batch on average
    w = rng.dirichlet(np.ones(n_classes))
    batches = np.empty((len(times), n_classes))
    for k in range(len(times)):
        if kind[2:] == "HD" and rng.random() < 0.5:
            w = rng.dirichlet(np.ones(n_classes))
        mix = rng.dirichlet(200.0 * w + 1e-9) if kind[2:] == "LD" else w
        batches[k] = rng.multinomial(rng.poisson(size), mix / mix.sum())
    return Workload(times, batches, kind)


def _rescaled(v: np.ndarray) -> np.ndarray:
    """``v`` with each vector divided by its largest entry when its squares would overflow or
    underflow (the cosine does not depend on scale); otherwise ``v`` itself, bit for bit."""
    top = v.max(axis=-1, keepdims=True, initial=0.0)
    if not ((top > 1e150).any() or ((top > 0) & (top < 1e-150)).any()):
        return v
    return v / np.where(top > 0, top, 1.0)


def similarity(a, b) -> np.ndarray | float:
    """Cosine similarity of arrival vectors (rows of ``a`` and ``b``, broadcast), in [0, 1].

    Two zero vectors have similarity 1; a zero vector and a non-zero one 0.

    Examples
    --------
    >>> similarity([1, 0], [0, 1]), similarity([0, 0], [0, 0]), similarity([0, 0], [1, 2])
    (0.0, 1.0, 0.0)
    >>> round(similarity([1, 1], [1, 0]), 6)
    0.707107
    """
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"'batches' must be vectors of numbers of tasks; got {a!r} and {b!r}.") from None
    if (a < 0).any() or (b < 0).any() or not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise InputError("'batches' must hold non-negative finite numbers of tasks.")
    if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[-1]:
        raise InputError(f"'batches' must be vectors of the same number of classes; got shapes {a.shape} "
                         f"and {b.shape}.")
    try:
        np.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        raise InputError(f"'batches' must be rows that broadcast together; got shapes {a.shape} and "
                         f"{b.shape}.") from None
    a, b = _rescaled(a), _rescaled(b)
    na, nb = np.linalg.norm(a, axis=-1), np.linalg.norm(b, axis=-1)
    dot = (a * b).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        cos = np.clip(dot / (na * nb), 0.0, 1.0)
    out = np.where((na == 0) & (nb == 0), 1.0, np.where((na == 0) | (nb == 0), 0.0, cos))
    return float(out) if out.ndim == 0 else out


def pooled_thresholds(theta: int = 20, *, n_pairs: int = 10_000, seed: SeedLike = 0, n_classes: int = 7,
                      base_period: float = 1000.0) -> tuple[float, float]:
    """``(split_threshold, merge_threshold)``: the 2/3 and 1/3 quantiles of similarity over random
    batch pairs, pooled over the four workload types (the paper's α and β; ours: pooled, because
    per-type quantiles would split LD and HD workloads equally often).

    Examples
    --------
    >>> a, b = pooled_thresholds(n_pairs=2000, seed=1)
    >>> 0 <= b < a <= 1
    True
    """
    n_pairs = check_int("n_pairs", n_pairs, low=1)
    rng = np.random.default_rng(resolve_seed(seed))
    sims = []
    per = -(-n_pairs // len(KINDS))
    for kind in KINDS:
        # enough batches for `per` pairs of consecutive-or-random batches of one workload
        horizon = base_period * max(4.0, 2 * per / BATCHES_PER_PERIOD[kind[:2]])
        w = generate(kind, theta, horizon, base_period, rng, n_classes=n_classes)
        i = rng.integers(0, len(w.times), per)
        j = rng.integers(0, len(w.times), per)
        sims.append(similarity(w.batches[i], w.batches[j]))
    s = np.concatenate(sims)[:n_pairs]
    return float(np.quantile(s, 2 / 3)), float(np.quantile(s, 1 / 3))
