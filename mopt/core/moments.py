"""The designs' means and standard errors from their replications, as a result records them.

One function, :func:`sample_moments`, computes them for every :class:`~mopt.core.result.Result`
(:func:`mopt.core.result.summarise`, :func:`mopt.solvers.finish.evaluations_of`) and for
:func:`mopt.core.replay.replay`, which checks a design's replications against them bit for bit.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sample_moments"]


def sample_moments(samples: list[np.ndarray], m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(means, ses, n_reps)`` of designs with replications ``samples[k]`` (n_k, m): (D, m) means
    and standard errors (NaN below two replications; NaN means without any) and (D,) counts.

    Examples
    --------
    >>> means, ses, n = sample_moments([np.array([[1.0], [3.0]]), np.array([[5.0]])], 1)
    >>> means.tolist(), ses.tolist(), n.tolist()
    ([[2.0], [5.0]], [[1.0], [nan]], [2, 1])
    """
    n = np.array([len(s) for s in samples], dtype=np.int64)
    means = np.full((len(samples), m), np.nan)
    ses = np.full((len(samples), m), np.nan)
    for count in np.unique(n):  # designs with as many replications: one vectorised step
        rows = np.flatnonzero(n == count)
        if count == 0:
            continue
        stack = np.stack([samples[k] for k in rows]).reshape(len(rows), count, m)
        means[rows] = stack.mean(axis=1)
        if count > 1:
            ses[rows] = stack.std(axis=1, ddof=1) / np.sqrt(count)
    return means, ses, n
