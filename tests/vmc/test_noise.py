"""Independent draws per schedule (mopt/vmc/noise.py): the normals, their addresses, the problem's option."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mopt import InputError
from mopt.vmc.noise import independent_normals
from mopt.vmc.problem import VMPartitionProblem


def test_ziggurat_normals_are_standard_normal():
    # 700,000 draws: mean and variance within 4 standard errors, the KS test, and the tails
    # beyond the ziggurat's base strip (|z| > r = 3.4426, the slow path) at their normal rate
    z = independent_normals(5, np.arange(1000), np.arange(100), 1, 7).ravel()
    n = z.size
    assert abs(z.mean()) < 4 / np.sqrt(n)
    assert abs(z.var() - 1) < 4 * np.sqrt(2 / n)
    assert stats.kstest(z, "norm").pvalue > 1e-3
    tail = (np.abs(z) > 3.442620).sum()
    expected = n * 2 * stats.norm.sf(3.442620)
    assert abs(tail - expected) < 4 * np.sqrt(expected)
    assert abs(stats.kurtosis(z)) < 4 * np.sqrt(24 / n)


def test_streams_are_addressed_by_seed_rank_and_replication():
    z = independent_normals(1, [3, 8], [0, 4, 9], 5, 7)
    # the same (seed, rank, r) in another request, order or batch: the same numbers
    assert np.array_equal(independent_normals(1, [8], [9], 5, 7)[0, 0], z[1, 2])
    assert np.array_equal(independent_normals(1, [8, 3], [9, 4, 0], 5, 7)[::-1, ::-1], z)
    # other schedules, replications and seeds: other numbers, uncorrelated
    big = independent_normals(1, np.arange(200), [0], 5, 7)[:, 0].reshape(200, -1)
    assert abs(np.corrcoef(big[:-1].ravel(), big[1:].ravel())[0, 1]) < 4 / np.sqrt(big[1:].size)
    assert not np.array_equal(independent_normals(2, [3], [0], 5, 7)[0, 0], z[0, 0])


def _problem(noise, candidates=None):
    A = np.random.default_rng(4).poisson(6, (4, 5)).astype(float)
    return VMPartitionProblem(14, [40.0, 30.0, 10.0, 60.0], A, [5, 0, 2, 0, 1], noise=noise, candidates=candidates)


def test_independent_is_the_default_and_schedules_do_not_share_draws():
    prob = _problem("independent")
    assert VMPartitionProblem(8, [5.0], [[1, 1, 1]]).noise == "independent"
    F = prob.replicate(np.arange(prob.n_designs), np.arange(200), seed=1)[:, :, 0]
    # under common random numbers two neighbouring schedules move together; here they do not
    G = _problem("common").replicate(np.arange(prob.n_designs), np.arange(200), seed=1)[:, :, 0]
    r_ind = np.mean([np.corrcoef(F[i], F[i + 1])[0, 1] for i in range(0, 200, 7)])
    r_crn = np.mean([np.corrcoef(G[i], G[i + 1])[0, 1] for i in range(0, 200, 7)])
    assert abs(r_ind) < 0.1 < 0.5 < r_crn


def test_a_replication_does_not_depend_on_batch_order_or_candidate_position():
    prob = _problem("independent")
    idx = np.array([0, 17, 100, 250])
    whole = prob.replicate(np.arange(prob.n_designs), np.arange(30), seed=9)  # the parallel kernel
    part = prob.replicate(idx[::-1], np.array([29, 3]), seed=9)  # the serial kernel, reversed
    assert np.array_equal(part, whole[idx[::-1]][:, [29, 3]])
    # a restricted problem (candidates, e.g. iOO's selected set) sees each schedule's own stream
    sub = _problem("independent", candidates=idx)
    assert np.array_equal(sub.replicate([3, 1], np.arange(30), seed=9), whole[[250, 17]])


def test_bad_noise_is_refused_by_name():
    for bad in ("foo", None, 1):
        with pytest.raises(InputError, match=r"'noise' must be one of \['independent', 'common'\]"):
            _problem(bad)
