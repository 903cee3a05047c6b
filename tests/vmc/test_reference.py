"""The compiled period engine against the plain-Python model (tests/reference/vmc_reference.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.vmc.problem import VMPartitionProblem
from tests.reference import vmc_reference


@pytest.mark.parametrize("noise", ["independent", "common"])
@pytest.mark.parametrize("case", range(6))
def test_engine_matches_plain_python_model(case, noise):
    rng = np.random.default_rng(100 + case)
    C = int(rng.integers(1, 6))
    theta = int(rng.integers(C, C + 40))  # up to 45 VMs: crosses the table's 10- and 32-VM rows
    J = int(rng.integers(1, 7))
    lengths = rng.uniform(1, 200, J)
    arrivals = rng.poisson(rng.uniform(0, 40), (J, C)).astype(float)
    backlog = rng.uniform(0, 50, C) if case % 2 else None
    prob = VMPartitionProblem(theta, lengths, arrivals, backlog, noise=noise)
    idx = np.sort(prob.sample_designs(rng, min(prob.n_designs, 15)))
    reps = np.array([0, 3, 7])
    got = prob.replicate(idx, reps, seed=case)[:, :, 0]
    want = np.array(vmc_reference.replicate(prob, idx, reps, case))
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("theta, n_classes", [(9, 3), (11, 4), (13, 7)])
def test_whole_space_walk_equals_the_per_schedule_kernel(theta, n_classes):
    # clear_times_all walks the space depth-first sharing the maxima of fixed classes; it must give
    # exactly what clear_times gives schedule by schedule (the same sums in the same order)
    from mopt.vmc.engine import clear_times, clear_times_all
    from mopt.vmc.problem import EPS_FRACTION, VMPartitionProblem

    A = np.random.default_rng(theta).poisson(4, (3, n_classes)).astype(float)
    prob = VMPartitionProblem(theta, [30.0, 5.0, 40.0], A, np.full(n_classes, 2.0), noise="common")
    Z = prob.normals(np.arange(7), 11)
    args = (prob._mean, prob._sd, Z, EPS_FRACTION, prob.lengths, prob.arrivals, prob.backlog)
    S = prob.schedules(np.arange(prob.n_designs))
    assert np.array_equal(clear_times_all(theta, *args), clear_times(S, *args))


@pytest.mark.parametrize("case", range(4))
def test_independent_draws_agree_with_the_paper_model_in_distribution(case):
    # per schedule, the compiled simulator's mean and variance of the period objective (its own
    # normals, mopt.vmc.noise) against the plain model drawing its own with numpy, 1,500
    # replications each: the means within 4.5 standard errors of their difference, the variance
    # ratio inside the F test's two-sided 1e-4 band (a stated tolerance: ~1e-4 false alarms per
    # schedule, 5 schedules per case)
    from scipy import stats

    rng = np.random.default_rng(300 + case)
    C = int(rng.integers(2, 5))
    theta = int(rng.integers(C, C + 12))
    J = int(rng.integers(1, 5))
    lengths = rng.uniform(5, 60, J)
    arrivals = rng.poisson(rng.uniform(2, 15), (J, C)).astype(float)
    prob = VMPartitionProblem(theta, lengths, arrivals, rng.uniform(0, 5, C))
    idx = np.sort(prob.sample_designs(rng, min(prob.n_designs, 5)))
    n = 1500
    got = prob.replicate(idx, np.arange(n), seed=case)[:, :, 0]
    want = np.array(vmc_reference.replicate_numpy(prob, idx, n, rng))
    se = np.sqrt(got.var(axis=1, ddof=1) / n + want.var(axis=1, ddof=1) / n)
    assert (np.abs(got.mean(axis=1) - want.mean(axis=1)) < 4.5 * se + 1e-12).all()
    lo, hi = stats.f.ppf([5e-5, 1 - 5e-5], n - 1, n - 1)
    ratio = got.var(axis=1, ddof=1) / np.maximum(want.var(axis=1, ddof=1), 1e-300)
    both_zero = (got.var(axis=1) == 0) & (want.var(axis=1) == 0)
    assert (both_zero | ((lo < ratio) & (ratio < hi))).all()
