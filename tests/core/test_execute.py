"""Batching and executors: results never depend on how replications are shipped."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import mopt
from mopt.core.execute import (
    CALL_SECONDS,
    SLICE_GROWTH,
    CallPacer,
    Runner,
    kernel_threads,
    make_batches,
    n_workers,
)
from tests.helpers import assert_same_result


def pairs(batches):
    return sorted((int(i), int(r)) for idx, reps in batches for i in idx for r in reps)


@pytest.mark.parametrize("n_designs,n_reps,size", [(5, 4, 10), (5, 4, 3), (5, 4, 1), (1, 7, 3), (6, 1, 4),
                                                   (5, 4, 100)])
def test_batches_cover_every_pair_once_within_the_size(n_designs, n_reps, size):
    batches = make_batches(np.arange(n_designs), np.arange(10, 10 + n_reps), size)
    assert pairs(batches) == [(i, r) for i in range(n_designs) for r in range(10, 10 + n_reps)]
    assert all(len(idx) * len(reps) <= max(size, 1) for idx, reps in batches)


def test_replications_are_split_before_designs():
    """All designs of a replication stay together while they fit (a simulator may share work)."""
    assert [(idx.tolist(), reps.tolist()) for idx, reps in make_batches([3, 4, 5], [0, 1, 2, 3], 6)] == [
        ([3, 4, 5], [0, 1]), ([3, 4, 5], [2, 3])]
    assert [(idx.tolist(), reps.tolist()) for idx, reps in make_batches([3, 4, 5], [0, 1], 2)] == [
        ([3, 4], [0]), ([5], [0]), ([3, 4], [1]), ([5], [1])]
    assert make_batches([], [0, 1], 4) == [] and make_batches([1], [], 4) == []


class InOrderExecutor:
    """A duck-typed executor: submit() returns an object with result() (not a concurrent Future)."""

    class _Done:
        def __init__(self, value):
            self.value = value

        def result(self):
            return self.value

        def cancel(self):
            return False

    def submit(self, fn, *args):
        return self._Done(fn(*args))


@pytest.mark.parametrize("executor", [None, "threads", InOrderExecutor()])
@pytest.mark.parametrize("batch_size", [None, 1, 7])
def test_any_executor_and_batch_size_give_the_same_result(executor, batch_size):
    problem = mopt.NormalProblem(np.arange(12.0).reshape(6, 2) % 5, sd=1.0)
    expected = mopt.solve(problem, "ocba", budget=90, seed=4, n0=3, delta=9)
    if executor == "threads":
        with ThreadPoolExecutor(3) as pool:
            got = mopt.solve(problem, "ocba", budget=90, seed=4, executor=pool, batch_size=batch_size, n0=3, delta=9)
    else:
        got = mopt.solve(problem, "ocba", budget=90, seed=4, executor=executor, batch_size=batch_size, n0=3, delta=9)
    assert_same_result(expected, got)


def test_runner_default_batch_sizes():
    problem = mopt.NormalProblem([[1.0], [2.0]])
    assert Runner(problem, 1).batch_size(1000) == 1000  # the whole round in-process (run() slices it)
    assert Runner(problem, 1).batch_size(1000, journal=True) == 63  # ~16 commits per round
    with ThreadPoolExecutor(2) as pool:
        assert n_workers(pool) == 2
        assert Runner(problem, 1, pool).batch_size(1000) == 63  # eight batches per worker
        assert Runner(problem, 1, pool).batch_size(1000, 10) == 10


def test_bad_batch_size_names_the_parameter():
    problem = mopt.NormalProblem([[1.0], [2.0]])
    with pytest.raises(mopt.InputError, match="'batch_size'"):
        mopt.solve(problem, "exhaustive", seed=1, batch_size=0)


def test_kernel_threads_follow_the_environment_at_the_call(monkeypatch):
    import numba

    monkeypatch.setenv("NUMBA_NUM_THREADS", "3")
    assert kernel_threads() == 3
    for bad in ("", "0", "-2", "two"):  # unset or not a positive count: numba's own
        monkeypatch.setenv("NUMBA_NUM_THREADS", bad)
        assert kernel_threads() == max(1, numba.config.NUMBA_NUM_THREADS)


class Recording(mopt.NormalProblem):
    """A NormalProblem that records the pairs of every call and takes ``pair_seconds`` a pair (as the
    Runner's clock sees it)."""

    def __init__(self, *args, clock, pair_seconds, **kwargs):
        super().__init__(*args, **kwargs)
        self.calls, self.clock, self.pair_seconds = [], clock, pair_seconds

    def replicate(self, indices, reps, seed):
        self.calls.append((np.asarray(indices).tolist(), np.asarray(reps).tolist()))
        self.clock[0] += self.pair_seconds * len(indices) * len(reps)
        return super().replicate(indices, reps, seed)


@pytest.mark.parametrize("pair_seconds", [1e-7, 1e-4, 0.01, 1.0])
def test_in_process_calls_last_about_call_seconds_and_give_the_batch_values(monkeypatch, pair_seconds):
    """A batch of 40 designs x 500 replications is simulated in calls that start at one pair, grow
    at most SLICE_GROWTH-fold, then hold about CALL_SECONDS of work; its values are one call's, and
    every pair is simulated once (replications split first, as make_batches does)."""
    clock = [0.0]
    monkeypatch.setattr("mopt.core.execute.time.perf_counter", lambda: clock[0])
    problem = Recording(np.arange(80.0).reshape(40, 2), sd=1.0, clock=clock, pair_seconds=pair_seconds)
    idx, reps = np.arange(40), np.arange(500)
    [(k, values)] = list(Runner(problem, 7).run([(idx, reps)]))
    np.testing.assert_array_equal(values, mopt.NormalProblem(np.arange(80.0).reshape(40, 2), sd=1.0)
                                  .replicate(idx, reps, 7))
    assert k == 0 and pairs([(np.array(i), np.array(r)) for i, r in problem.calls]) == pairs([(idx, reps)])
    sizes = [len(i) * len(r) for i, r in problem.calls]
    assert sizes[0] == 1
    assert all(b <= SLICE_GROWTH * a for a, b in zip(sizes[:-1], sizes[1:], strict=True))
    assert max(sizes) * pair_seconds <= CALL_SECONDS or max(sizes) == 1
    for i, r in problem.calls:  # a call cuts across designs only within one replication
        assert len(i) == 40 or len(r) == 1


def test_the_solvers_see_the_same_batches_however_the_calls_are_sliced():
    """Slicing is inside Runner.run: a solve gives the values of one call per batch, bit for bit."""
    problem = mopt.NormalProblem(np.arange(12.0).reshape(6, 2) % 5, sd=1.0)
    expected = mopt.solve(problem, "exhaustive", seed=3, n_reps=50)
    runner = Runner(problem, expected.seed)
    runner._pacer.first = 5  # odd slices
    [(_, values)] = list(runner.run([(np.arange(6), np.arange(50))]))
    np.testing.assert_array_equal(values, problem.replicate(np.arange(6), np.arange(50), expected.seed))


def test_call_pacer_grows_boundedly_and_follows_the_pace():
    pacer = CallPacer(first=4)
    assert pacer.size() == 4
    pacer.record(4, 1e-9)  # very fast: grow SLICE_GROWTH-fold only
    assert pacer.size() == 4 * SLICE_GROWTH
    pacer.record(32, 32 * 0.05)  # 50 ms a unit: 5 units fill CALL_SECONDS
    assert pacer.size() == int(CALL_SECONDS / 0.05)
    pacer.record(5, 100.0)  # slower than CALL_SECONDS for one unit: one unit at a time
    assert pacer.size() == 1


def test_a_local_dask_cluster_leaves_no_scratch_space(tmp_path):
    """Issue #34: Dask's <tmp>/dask-scratch-space was left behind after every run; the workers'
    scratch space is now the run's own directory, removed when the cluster closes."""
    import os
    import subprocess
    import sys

    code = ("import mopt\nfrom mopt.core.execute import local_cluster\n"
            "with local_cluster(1) as client:\n"
            "    r = mopt.solve(mopt.NormalProblem([[1, 2], [2, 1]], sd=0.1, n_reps=2), 'exhaustive', seed=1,"
            " executor=client)\n"
            "print(r.n_evals)\n")
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "4", out.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("release", [False, True])
def test_an_exit_without_teardown_leaves_no_semaphore_behind_once_released(release):
    # the mopt program exits with os._exit after Ctrl-C (no teardown): a local cluster's nanny
    # queues, not yet collected, left their named semaphores registered and the resource tracker
    # warned of "12 leaked semaphore objects" (test_signals' Dask start case, 1 run in 4)
    import subprocess
    import sys

    code = ("import multiprocessing as mp, os, sys\n"
            "from mopt.core import execute\n"
            "q = mp.get_context('spawn').Queue()\n"
            "execute._STARTED[0] = True\n"
            f"{'execute.release_semaphores()' if release else 'pass'}\n"
            "sys.stderr.flush(); os._exit(0)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert ("leaked semaphore" in done.stderr) is (not release), done.stderr
