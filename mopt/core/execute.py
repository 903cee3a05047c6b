"""Running replications: in-process, on a ``concurrent.futures`` executor, or on a Dask cluster.

Work is shipped in batches (designs × a range of replications); on an executor each batch is one
call of :meth:`StochasticProblem.replicate`.  In-process, a batch is cut into slices of about
:data:`CALL_SECONDS` each: a signal handler (Ctrl-C, SIGTERM) runs only when a compiled simulator
returns to Python, so no call may last long.  Because every replication is addressed by ``(seed,
design, replication)``, the values do not depend on the batching, the slicing, the executor or the
order in which batches finish.

A Dask ``distributed.Client`` (or its ``get_executor()``) gets the problem once per run (as the
result of a task, which the scheduler recomputes if the worker holding it dies) and then only
batch descriptions; if a worker dies, Dask runs its batches again elsewhere and the values are the
same.
"""

from __future__ import annotations

import math
import os
import shutil
import signal
import tempfile
import threading
import time
from concurrent.futures import Future, as_completed
from contextlib import ExitStack, contextmanager

import numpy as np

from mopt.core.inputs import check_workers
from mopt.core.interrupt import deferred_signals

__all__ = ["CallPacer", "Runner", "kernel_threads", "local_cluster", "make_batches", "n_workers"]

#: in-process with a journal, batches last at least about this long (seconds)
COMMIT_SECONDS = 0.2
#: in-process, one call of the simulator lasts about this long at most (seconds): a Ctrl-C or
#: SIGTERM is handled when it returns, so a run stops within about this time
CALL_SECONDS = 0.25
#: in-process, a call holds at most this many times the pairs of the one before (the first: one
#: pair), so that a pace measured on a few cheap designs cannot make the next call very long
SLICE_GROWTH = 8
#: on an executor, a round is cut into about this many batches per worker (benchmarks/scale.py:
#: on the WL3 frontier 8 beats 4 by 1.4x with 2 Dask workers, the last batches being shorter)
BATCHES_PER_WORKER = 8


def kernel_threads() -> int:
    """How many threads a compiled simulator may use in this process, read at the call.

    ``NUMBA_NUM_THREADS`` as the environment says *now*, else numba's own count; at least 1.
    Read at the call, not from ``numba.config``: a Dask nanny sets the variable in its worker only
    after the worker has unpickled its task's modules, by which time numba has read its default
    (every core), so a one-thread worker would run its kernels on every core and two workers on
    two cores would fight over them (``benchmarks/scale.py`` measured 1.08x instead of ≥ 1.7x).
    """
    value = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if value.isdigit() and int(value) > 0:
        return int(value)
    import numba

    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def make_batches(indices, reps, max_size: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Split designs ``indices`` × replications ``reps`` into batches of at most ``max_size`` pairs
    (at least one pair each).

    Replications are split first: a batch holds every design for a range of replications while
    the designs fit in ``max_size``, and one replication of a range of designs otherwise.  Under
    common random numbers a simulator may share work between the designs of one replication (the
    ExPERT estimator simulates the throughput phase once per replication), so cutting across
    designs would repeat it.
    """
    indices = np.asarray(indices, dtype=np.int64)
    reps = np.asarray(reps, dtype=np.int64)
    if len(indices) == 0 or len(reps) == 0:
        return []
    max_size = max(1, int(max_size))
    if len(indices) <= max_size:
        per = max_size // len(indices)
        return [(indices, reps[k : k + per]) for k in range(0, len(reps), per)]
    return [(indices[k : k + max_size], reps[r : r + 1]) for r in range(len(reps))
            for k in range(0, len(indices), max_size)]


class CallPacer:
    """How much work the next call of a compiled simulator may take, so that it returns to Python
    within about :data:`CALL_SECONDS`: at the pace of the last call, and at most
    :data:`SLICE_GROWTH` times its work (``first`` units for the first call).

    A signal handler (Ctrl-C, SIGTERM) runs only when compiled code returns to Python: a long
    simulation is made of many calls, each asking :meth:`size` and telling :meth:`record`.

    Examples
    --------
    >>> pacer = CallPacer()
    >>> pacer.size()
    1
    >>> pacer.record(1, 0.001)  # one unit took 1 ms: grow, but at most 8 times
    >>> pacer.size()
    8
    >>> pacer.record(8, 0.2)  # 25 ms a unit: 10 units fill CALL_SECONDS
    >>> pacer.size()
    10
    """

    def __init__(self, first: int = 1):
        self.first = first
        self.units = 0  # work of the last call (0: none yet)
        self.seconds_per_unit = 0.0  # its pace

    def size(self) -> int:
        if self.units == 0:
            return max(1, int(self.first))
        limit = SLICE_GROWTH * self.units
        if self.seconds_per_unit > 0:
            limit = min(limit, int(CALL_SECONDS / self.seconds_per_unit))
        return max(1, limit)

    def record(self, units: int, seconds: float) -> None:
        self.units = max(1, int(units))
        self.seconds_per_unit = seconds / self.units


def _slices(indices, reps, size):
    """Yield ``(rows, columns)``: slices of the designs ``indices`` × replications ``reps``, in
    order, the rule of :func:`make_batches` applied to each slice with ``size()`` pairs, asked
    before each slice (so that it may change as slices finish)."""
    n_designs, n_reps = len(indices), len(reps)
    r = 0
    while r < n_reps:
        pairs = max(1, int(size()))
        if n_designs <= pairs:  # every design, a range of replications
            per = min(pairs // n_designs, n_reps - r)
            yield slice(0, n_designs), slice(r, r + per)
            r += per
            continue
        d = 0  # one replication, a range of designs
        while d < n_designs:
            yield slice(d, min(d + pairs, n_designs)), slice(r, r + 1)
            d += pairs
            if d < n_designs:
                pairs = max(1, int(size()))
        r += 1


def _dask_client(executor):
    """The ``distributed.Client`` behind ``executor`` (a Client or a ClientExecutor), else None."""
    module = type(executor).__module__ or ""
    if not module.startswith("distributed"):
        return None
    if hasattr(executor, "scatter") and hasattr(executor, "gather"):
        return executor
    return getattr(executor, "_client", None)


def n_workers(executor) -> int:
    """How many batches ``executor`` runs at once (1 in-process; 4 if it does not say)."""
    if executor is None:
        return 1
    client = _dask_client(executor)
    if client is not None:
        try:
            return max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - a client that cannot answer yet
            return 1
    for attr in ("_max_workers", "n_workers"):
        n = getattr(executor, attr, None)
        if isinstance(n, int) and n > 0:
            return n
    return 4


def _same(value):
    return value


def _replicate(problem, indices, reps, entropy):
    return problem.replicate(indices, reps, entropy)


class Runner:
    """Ships batches of one problem and seed to an executor and yields them as they finish.

    Parameters
    ----------
    problem : StochasticProblem
    entropy : int
        The run's seed.
    executor : None, concurrent.futures.Executor, distributed.Client or ClientExecutor
        Anything else with ``submit(fn, *args) -> future`` whose futures have ``result()`` works
        too (results are then collected in submission order).
    """

    def __init__(self, problem, entropy: int, executor=None):
        self.problem = problem
        self.entropy = int(entropy)
        self.executor = executor
        self._client = None if executor is None else _dask_client(executor)
        self._shipped = None  # the Dask future whose result is the problem
        self._pacer = CallPacer()  # in-process: design x replication pairs per call

    @property
    def workers(self) -> int:
        return n_workers(self.executor)

    def batch_size(self, pairs: int, batch_size: int | None = None, *, journal: bool = False) -> int:
        """Design × replication pairs per batch of a round of ``pairs``: ``batch_size`` if given;
        in-process, the whole round (which :meth:`run` simulates in calls of about
        :data:`CALL_SECONDS`; with a journal, about 16 batches of at least :data:`COMMIT_SECONDS`
        each, so that work is committed as it goes); on an executor, about
        :data:`BATCHES_PER_WORKER` batches per worker, so that work spreads and stragglers are
        short."""
        if batch_size is not None:
            return int(batch_size)
        if self.executor is None:
            if not journal:
                return max(1, pairs)
            # but no batch shorter than about COMMIT_SECONDS: commits stay cheap next to the work
            per = math.ceil(pairs / 16)
            if self._pacer.seconds_per_unit > 0:
                per = max(per, int(COMMIT_SECONDS / self._pacer.seconds_per_unit))
            return max(1, per)
        return max(1, math.ceil(pairs / (BATCHES_PER_WORKER * self.workers)))

    def run(self, batches):
        """Yield ``(k, values)`` for each of ``batches`` (a list of ``(indices, reps)``) as it finishes;
        ``values`` has shape (len(indices), len(reps), n_obj)."""
        if self.executor is None:
            for k, (idx, reps) in enumerate(batches):
                yield k, self._sliced(np.asarray(idx), np.asarray(reps))
            return
        if self._client is not None:
            yield from self._run_dask(batches)
            return
        futures = {self.executor.submit(_replicate, self.problem, idx, reps, self.entropy): k
                   for k, (idx, reps) in enumerate(batches)}
        try:
            if all(isinstance(f, Future) for f in futures):
                for fut in as_completed(futures):
                    yield futures[fut], np.asarray(fut.result())
            else:  # a duck-typed executor: collect in order
                for fut, k in futures.items():
                    yield k, np.asarray(fut.result())
        finally:
            for fut in futures:
                fut.cancel()

    def _sliced(self, idx, reps) -> np.ndarray:
        """The values of one batch, simulated in calls of about :data:`CALL_SECONDS` each (the same
        values as one call: replications are addressed by ``(seed, design, replication)``)."""
        if len(idx) == 0 or len(reps) == 0:
            return self.problem.replicate(idx, reps, self.entropy)
        values = None
        for rows, cols in _slices(idx, reps, self._pacer.size):
            start = time.perf_counter()
            part = self.problem.replicate(idx[rows], reps[cols], self.entropy)
            self._pacer.record(part.shape[0] * part.shape[1], time.perf_counter() - start)
            if rows == slice(0, len(idx)) and cols == slice(0, len(reps)):
                return part  # the whole batch in one call
            if values is None:
                values = np.empty((len(idx), len(reps), *part.shape[2:]), dtype=part.dtype)
            values[rows, cols] = part
        return values

    def _run_dask(self, batches):
        from distributed import as_completed as dask_completed

        client = self._client
        if self._shipped is None:
            # a task whose result is the problem, not scattered data: if the worker holding it
            # dies, the scheduler recomputes it from the task (scattered data would be lost)
            self._shipped = client.submit(_same, self.problem, pure=False)
        futures = [client.submit(_replicate, self._shipped, idx, reps, self.entropy, pure=False)
                   for idx, reps in batches]
        order = {fut.key: k for k, fut in enumerate(futures)}
        try:
            for fut in dask_completed(futures):
                yield order[fut.key], np.asarray(fut.result())
        finally:
            try:
                client.cancel([f for f in futures if not f.done()])
            except Exception:  # noqa: BLE001 - a client already closed: keep the original error
                pass

    def close(self) -> None:
        if self._shipped is not None:
            try:
                self._client.cancel(self._shipped)
            except Exception:  # noqa: BLE001 - a cluster already gone
                pass
            self._shipped = None


@contextmanager
def local_cluster(n_workers: int, *, threads: int | None = None, log_level: int | None = None):
    """A ``distributed.Client`` of a local Dask cluster of ``n_workers`` processes (closed on exit).

    Each worker runs one task at a time and gives its compiled simulators ``threads`` threads
    (default: the cores divided among the workers), so that workers do not fight over cores.
    ``log_level`` is the level below which Dask's own log messages are silenced (default: ERROR).

    Examples
    --------
    >>> import mopt
    >>> from mopt.core.execute import local_cluster
    >>> with local_cluster(2) as client:                                   # doctest: +SKIP
    ...     result = mopt.solve(problem, "exhaustive", seed=1, executor=client)
    """
    import logging

    import dask
    from distributed import Client, LocalCluster

    # at most MOPT_MAX_WORKERS (default 4 x CPUs): more processes only cost memory
    n_workers = check_workers("n_workers", n_workers)
    threads = threads or max(1, (os.cpu_count() or 1) // n_workers)
    # numba reads its thread count when a worker imports it: the nanny sets it in the worker
    # process before the worker starts (not as a "pre-spawn" variable, which Dask also writes into
    # this process's environment, where numba then refuses a thread count other than its own);
    # the scheduler's HTTP server (dashboard) takes any free port
    # Ctrl-C in a terminal reaches the whole process group: the workers ignore SIGINT (blocked
    # while they are spawned, so they inherit it, and ignored by their preload) and this process,
    # which handles it, shuts them down quietly.  A Ctrl-C or SIGTERM during the start is held
    # (deferred_signals: blocking SIGINT in this thread does not stop another thread from taking
    # it and this one from raising it) and delivered once the cluster and its client are
    # registered for closing: raised inside LocalCluster(), it left the cluster half-built and
    # unclosed, and the resource tracker warned of 12 leaked semaphores at exit (issue #34)
    # the workers' scratch space is a directory of this run's own, removed when the cluster closes
    # (Dask's default, <tmp>/dask-scratch-space, was left behind after every run: issue #34)
    scratch = tempfile.mkdtemp(prefix="mopt-dask-")
    _SCRATCH.add(scratch)
    _STARTED[0] = True
    logging_disabled = logging.root.manager.disable  # restored once the cluster is closed
    try:
        with ExitStack() as opened:
            with deferred_signals(), _sigint_blocked(), dask.config.set({
                    "distributed.worker.preload": ["mopt.core.interrupt"], "temporary-directory": scratch}):
                cluster = opened.enter_context(LocalCluster(
                    n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                    silence_logs=log_level or logging.ERROR, env={"NUMBA_NUM_THREADS": str(threads)},
                    local_directory=scratch))
                client = opened.enter_context(Client(cluster))
            try:
                yield client
            except BaseException:
                # interrupted or failed: the workers' results are not wanted; a worker deep in a
                # compiled simulation answers the nanny's close only when its task ends (portfolio's
                # online simulations: ~4 s), so end the worker processes before the cluster closes
                # the scheduler, seeing its workers gone, logs CRITICAL "Closed comm ..." lines by
                # the dozen while it closes (78 under CI's load): nothing a user can act on, and
                # the one line the interrupt prints is then lost among them
                logging.disable(logging.CRITICAL)
                _end_workers(cluster)
                raise
    finally:
        logging.disable(logging_disabled)
        shutil.rmtree(scratch, ignore_errors=True)
        _SCRATCH.discard(scratch)


def _end_workers(cluster) -> None:
    """SIGKILL the worker processes of a local ``cluster`` (its nannies then close at once)."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        pid = getattr(getattr(getattr(nanny, "process", None), "process", None), "pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


#: the scratch folders of the local clusters open in this process
_SCRATCH: set[str] = set()
#: whether a local cluster was started in this process
_STARTED = [False]


def remove_scratch() -> None:
    """Remove the scratch folders of the local clusters still open (for an exit that skips their
    clean-up: :func:`mopt.core.interrupt.exit_while_compiling`), and release the named semaphores
    of their nannies' queues (:func:`release_semaphores`)."""
    for scratch in list(_SCRATCH):
        shutil.rmtree(scratch, ignore_errors=True)
        _SCRATCH.discard(scratch)
    release_semaphores()


def release_semaphores() -> None:
    """Unlink and unregister every named multiprocessing semaphore of this process, as each one's
    finalizer would at a normal exit (``multiprocessing.synchronize.SemLock._cleanup``), when a
    local cluster was started in it: for an exit without the interpreter's teardown (the ``mopt``
    program after Ctrl-C, :func:`mopt.cli.program`), which otherwise leaves the nannies' queues
    registered when they are not yet collected, and the resource tracker warned of "12 leaked
    semaphore objects" (a Ctrl-C just as the workers start: 1 run in 4)."""
    if not _STARTED[0]:
        return
    import gc
    import multiprocessing.synchronize as synchronize

    for obj in gc.get_objects():
        if isinstance(obj, synchronize.SemLock):
            name = getattr(getattr(obj, "_semlock", None), "name", None)
            if name:
                try:
                    synchronize.SemLock._cleanup(name)
                except Exception:  # noqa: BLE001 - already unlinked, or no tracker: nothing left to do
                    pass


@contextmanager
def _sigint_blocked():
    """SIGINT blocked in this thread (and the threads and processes it starts) within the block;
    one that arrives meanwhile is delivered when the block ends."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)
