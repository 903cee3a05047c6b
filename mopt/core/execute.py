"""Running replications: in-process or on any ``concurrent.futures``-style executor.

Work is shipped in batches (designs × a range of replications); each batch is one call of
:meth:`StochasticProblem.replicate`.  Because every replication is addressed by ``(seed, design,
replication)``, the values do not depend on the batching or the executor.
"""

from __future__ import annotations

import numpy as np

__all__ = ["run_batches", "make_batches"]


def make_batches(indices, reps, max_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split designs ``indices`` × replications ``reps`` into batches of at most ``max_size`` pairs."""
    indices = np.asarray(indices, dtype=np.int64)
    reps = np.asarray(reps, dtype=np.int64)
    if len(indices) == 0 or len(reps) == 0:
        return []
    per = max(1, max_size // max(1, len(reps)))
    return [(indices[k : k + per], reps) for k in range(0, len(indices), per)]


def run_batches(problem, batches, entropy: int, executor=None, on_done=None) -> list[np.ndarray]:
    """Evaluate ``batches`` of ``(indices, reps)`` and return their arrays in order.

    Parameters
    ----------
    executor : concurrent.futures.Executor or None
        Anything with ``submit(fn, *args) -> future`` whose futures have ``result()``
        (``ProcessPoolExecutor``, a Dask ``Client`` or ``client.get_executor()``).
    on_done : callable or None
        Called with the number of replications of each batch as it finishes (progress bars).
    """
    out = []
    if executor is None:
        for idx, reps in batches:
            out.append(problem.replicate(idx, reps, entropy))
            if on_done:
                on_done(len(idx) * len(reps))
        return out
    futures = [executor.submit(problem.replicate, idx, reps, entropy) for idx, reps in batches]
    for (idx, reps), fut in zip(batches, futures, strict=True):
        out.append(np.asarray(fut.result()))
        if on_done:
            on_done(len(idx) * len(reps))
    return out
