"""Effective pool size from the throughput phase (mopt/expert/pool.py)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mopt.expert.pool import estimate_n_unreliable, throughput_results
from mopt.expert.turnaround import TurnaroundModel


def _deterministic(gamma=1.0):
    return TurnaroundModel.parametric(stats.uniform(1000, 1e-6), gamma)


def test_a_failed_task_waits_for_its_deadline_before_it_is_re_queued():
    # 1 task, 2 machines, γ = 0.5, turnaround 1000 s, deadline 4000 s: by 1500 s the task has a
    # result only if its first instance succeeded (the retry waits until 4000 s), so E = 0.5.
    model = _deterministic(0.5)
    r = [throughput_results(model, 1, 2, 1500, 4000, np.random.default_rng(i)) for i in range(4000)]
    se = np.sqrt(0.25 / len(r))
    assert abs(np.mean(r) - 0.5) < 4 * se


def test_results_by_time_with_deterministic_turnaround():
    # 50 machines each return one result every 1000 s: 150 results by 3000 s (of 1000 tasks)
    rng = np.random.default_rng(0)
    assert throughput_results(_deterministic(), 1000, 50, 3000.5, 4000, rng) == 150


@pytest.mark.parametrize("n_ur", [7, 40, 130])
def test_estimate_recovers_the_pool_size(n_ur):
    # with a deterministic pool, #ur machines return 2·#ur results by 2500 s
    model = _deterministic()
    got = estimate_n_unreliable(model, n_tasks=1000, n_results=2 * n_ur, elapsed=2500,
                                throughput_deadline=4000, seed=1)
    assert got == n_ur


def test_too_many_results_is_an_input_error():
    with pytest.raises(ValueError, match="n_results"):
        estimate_n_unreliable(_deterministic(), n_tasks=100, n_results=100, elapsed=500,
                              throughput_deadline=4000, seed=1)
