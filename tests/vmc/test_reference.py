"""The compiled period engine against the plain-Python model (tests/reference/vmc_reference.py)."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.vmc.problem import VMPartitionProblem
from tests.reference import vmc_reference


@pytest.mark.parametrize("case", range(6))
def test_engine_matches_plain_python_model(case):
    rng = np.random.default_rng(100 + case)
    C = int(rng.integers(1, 6))
    theta = int(rng.integers(C, C + 40))  # up to 45 VMs: crosses the table's 10- and 32-VM rows
    J = int(rng.integers(1, 7))
    lengths = rng.uniform(1, 200, J)
    arrivals = rng.poisson(rng.uniform(0, 40), (J, C)).astype(float)
    backlog = rng.uniform(0, 50, C) if case % 2 else None
    prob = VMPartitionProblem(theta, lengths, arrivals, backlog)
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
    prob = VMPartitionProblem(theta, [30.0, 5.0, 40.0], A, np.full(n_classes, 2.0))
    Z = prob.normals(np.arange(7), 11)
    args = (prob._mean, prob._sd, Z, EPS_FRACTION, prob.lengths, prob.arrivals, prob.backlog)
    S = prob.schedules(np.arange(prob.n_designs))
    assert np.array_equal(clear_times_all(theta, *args), clear_times(S, *args))
