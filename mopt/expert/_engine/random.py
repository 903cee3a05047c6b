"""Counter-based random numbers and the turnaround model lookups of the engine."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_C_TASK = np.uint64(0x9E3779B97F4A7C15)
_C_INSTANCE = np.uint64(0xC2B2AE3D27D4EB4F)
_C_STREAM = np.uint64(0x165667B19E3779F9)
_C_FINAL = np.uint64(0xD6E8FEB86659FD93)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_TWO_POW_M53 = 2.0**-53

# ----------------------------------------------------------------------------- random numbers
@njit(cache=True)
def _splitmix64_mix(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform(key: int, task: int, k: int, stream: int) -> float:
    """Counter-based uniform draw in [0, 1) addressed by ``(key, task, k, stream)``.

    Parameters
    ----------
    key : int
        Replication key (uint64).
    task : int
        Task id.
    k : int
        Instance number (throughput instances ``0, 1, ...``; tail unreliable instances
        ``TAIL_INSTANCE_OFFSET + j``).
    stream : int
        0 for the success draw, 1 for the turnaround draw.

    Returns
    -------
    float
        ``(splitmix64 hash >> 11) * 2**-53``.

    Examples
    --------
    >>> 0.0 <= uniform(7, 3, 0, 1) < 1.0
    True
    >>> uniform(7, 3, 0, 1) == uniform(7, 3, 0, 1)
    True
    """
    x = (
        np.uint64(key)
        ^ (np.uint64(task + 1) * _C_TASK)
        ^ (np.uint64(k + 1) * _C_INSTANCE)
        ^ (np.uint64(stream + 1) * _C_STREAM)
    )
    x = _splitmix64_mix(x)
    x = _splitmix64_mix(x ^ _C_FINAL)
    return np.float64(x >> np.uint64(11)) * _TWO_POW_M53


@njit(cache=True, inline="always")
def _gamma_at(gamma_breaks: np.ndarray, gamma_values: np.ndarray, t_send: float) -> float:
    """Reliability of an instance sent at ``t_send``: value of the last break ``<= t_send``."""
    n = gamma_breaks.shape[0]
    if n == 1 or t_send < gamma_breaks[1]:
        return gamma_values[0]
    lo = 1  # gamma_breaks[lo] <= t_send
    hi = n  # gamma_breaks[hi] > t_send (or hi == n)
    while hi - lo > 1:
        mid = (lo + hi) >> 1
        if gamma_breaks[mid] <= t_send:
            lo = mid
        else:
            hi = mid
    return gamma_values[lo]


@njit(cache=True, inline="always")
def _turnaround(fs_table: np.ndarray, u: float) -> float:
    n = fs_table.shape[0]
    idx = int(u * n)
    if idx >= n:
        idx = n - 1
    return fs_table[idx]


def reliable_run_cost(t_r: float, c_r: float, charging_period_r: float) -> float:
    """Cost of one reliable run: ``c_r * ceil(t_r / period) * period``.

    Examples
    --------
    >>> reliable_run_cost(2066.5, 1.0, 1.0)
    2067.0
    """
    return c_r * math.ceil(t_r / charging_period_r) * charging_period_r

