"""Batching and executors: results never depend on how replications are shipped."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import mopt
from mopt.core.execute import Runner, kernel_threads, make_batches, n_workers
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
    assert Runner(problem, 1).batch_size(1000) == 1000  # one vectorised call in-process
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
