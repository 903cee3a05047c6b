"""Seeding: one ``SeedSequence`` tree per run and common random numbers.

Replication ``r`` of design ``i`` draws from the stream ``SeedSequence(entropy, spawn_key=(r,))``
under common random numbers (the default: every design sees the same random inputs in replication
``r``) or ``SeedSequence(entropy, spawn_key=(i, r))`` without them.  A stream is addressed by its
indices, never by the order in which it was requested, so results depend only on the seed — not on
evaluation order, batch size or the number of workers.
"""

from __future__ import annotations

import numbers

import numpy as np

from mopt.core.errors import InputError

SeedLike = int | np.random.Generator | np.random.SeedSequence | None

__all__ = ["SeedLike", "resolve_seed", "replication_keys", "replication_rng"]


def resolve_seed(seed: SeedLike) -> int:
    """Turn ``seed`` into the integer entropy of the run's seed tree.

    Parameters
    ----------
    seed : int, numpy.random.Generator, numpy.random.SeedSequence or None
        An int is used as it is; a Generator is *used* (one 63-bit integer is drawn from it); a
        SeedSequence gives its entropy; None draws fresh entropy from the operating system.

    Returns
    -------
    int
        Non-negative entropy; record it to rerun the same experiment.

    Examples
    --------
    >>> resolve_seed(7)
    7
    >>> resolve_seed(np.random.default_rng(1)) == resolve_seed(np.random.default_rng(1))
    True
    """
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    if isinstance(seed, np.random.SeedSequence):
        if not isinstance(seed.entropy, numbers.Integral):
            raise TypeError("'seed' SeedSequence must have integer entropy")
        return int(seed.entropy)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(
            f"'seed' must be an int, a numpy Generator, a SeedSequence or None; got {seed!r}."
        )
    if seed < 0:
        raise InputError(f"'seed' must be a non-negative int; got {seed}.")
    return int(seed)


def _sequence(entropy: int, rep: int, design: int | None) -> np.random.SeedSequence:
    key = (int(rep),) if design is None else (int(design), int(rep))
    return np.random.SeedSequence(entropy, spawn_key=key)


def replication_keys(entropy: int, reps, design: int | None = None) -> np.ndarray:
    """64-bit keys, one per replication index in ``reps``, for counter-based simulators.

    Examples
    --------
    >>> k = replication_keys(1, [0, 1, 2])
    >>> k.dtype, len(set(k.tolist()))
    (dtype('uint64'), 3)
    >>> bool(replication_keys(1, [2])[0] == k[2])
    True
    """
    reps = np.asarray(reps, dtype=np.int64).ravel()
    out = np.empty(len(reps), dtype=np.uint64)
    for j, r in enumerate(reps):
        out[j] = _sequence(entropy, r, design).generate_state(1, np.uint64)[0]
    return out


def replication_rng(entropy: int, rep: int, design: int | None = None) -> np.random.Generator:
    """The Generator of replication ``rep`` (of ``design`` when not under common random numbers)."""
    return np.random.Generator(np.random.PCG64(_sequence(entropy, rep, design)))
