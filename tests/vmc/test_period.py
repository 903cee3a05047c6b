"""The corrected period model (spec §2) on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.core.errors import InputError
from mopt.vmc.period import execute


def test_two_periods_with_carry_over_and_a_busy_last_subinterval():
    # schedule (1, 2), p = (2, 4) s per task per VM  =>  beta = (1/2, 2/4) = (0.5, 0.5) tasks/s
    # batches: t=0 (3, 1), t=4 (2, 2), t=10 (0, 0.5); periods [0, 8) and [8, 12)
    # period 0, sub-interval [0, 4), L=4: delta=(3, 1), need=(6, 2): class 1 busy, CET=4,
    #   backlog 3-0.5*4=1; class 2 CET=2, backlog 0; EET=4; finished 2+1=3
    # period 0, last sub-interval [4, 8), L=4 (the printed algorithm drops it): delta=(1+2, 2)=(3, 2),
    #   need=(6, 4): class 1 busy again, CET=4, backlog 1; class 2 CET=4; EET=4; finished 2+2=4
    # => period 0: busy 8, finished 7, throughput 7/8, backlog (1, 0) carried over
    # period 1, [8, 10), L=2: delta=(1, 0), need=(2, 0): CET=2 (not > L), backlog 0; finished 1
    # period 1, [10, 12), L=2: delta=(0, 0.5), need=(0, 1): EET=1; finished 0.5
    # => period 1: busy 3, finished 1.5, throughput 0.5
    df = execute([1, 2], [2.0, 4.0], [0.0, 4.0, 10.0], [[3, 1], [2, 2], [0, 0.5]], [8.0, 12.0])
    assert df["busy_time"].tolist() == [8.0, 3.0]
    assert df["finished"].tolist() == [7.0, 1.5]
    assert df["throughput"].tolist() == [0.875, 0.5]
    assert df[["backlog_1", "backlog_2"]].to_numpy().tolist() == [[1.0, 0.0], [0.0, 0.0]]


def test_initial_backlog_and_batch_at_period_end_belongs_to_next():
    # beta = 1 task/s; backlog 2 at start; batch at t=5 exactly at the end of period [0, 5)
    # period 0: [0, 5) delta=2+3=5 (batch at 0) need 5 = L, CET 5, finished 5
    # period 1: [5, 9) delta=4 need 4 = L: CET 4
    df = execute([1], [1.0], [0.0, 5.0], [[3], [4]], [5.0, 9.0], backlog=[2.0])
    assert df["busy_time"].tolist() == [5.0, 4.0] and df["finished"].tolist() == [5.0, 4.0]


def test_idle_period_has_nan_throughput():
    df = execute([1], [1.0], [0.0], [[0.0]], [1.0])
    assert df["busy_time"].iloc[0] == 0 and np.isnan(df["throughput"].iloc[0])


@pytest.mark.parametrize("kwargs, word", [
    ({"schedule": [0, 2]}, "schedule"),
    ({"p": [1.0, -1.0]}, "'p'"),
    ({"p": [1.0, np.inf]}, "'p'"),
    ({"times": [1.0, 0.0]}, "sorted"),
    ({"batches": [[1, -1], [1, 1]]}, "'batches'"),
    ({"batches": [[1, np.nan], [1, 1]]}, "'batches'"),
    ({"times": [], "batches": np.empty((0, 2))}, "'times'"),
    ({"period_ends": [5.0, 4.0]}, "period_ends"),
])
def test_bad_input_is_named(kwargs, word):
    args = {"schedule": [1, 1], "p": [1.0, 1.0], "times": [0.0, 1.0], "batches": [[1, 1], [1, 1]],
            "period_ends": [2.0, 4.0]}
    args.update(kwargs)
    with pytest.raises(InputError, match=word):
        execute(**args)


@pytest.mark.parametrize("times, batches", [([], []), (np.empty(0), np.empty((0, 2)))])
def test_an_empty_workload_is_named(times, batches):
    with pytest.raises(InputError, match="the workload is empty"):
        execute([1, 1], [1.0, 1.0], times, batches, [2.0])


@pytest.mark.parametrize("p", [[1.0, -1.0], [1.0, 0.0]])
def test_p_must_be_positive_whatever_its_sign(p):
    # a negative p used to be reported as "must hold non-negative numbers" although 0 is refused too
    with pytest.raises(InputError, match=r"'p' must hold finite numbers > 0 .* at position 1"):
        execute([1, 1], p, [0.0], [[1, 1]], [2.0])
