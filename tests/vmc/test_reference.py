"""The compiled period engine against the plain-Python model (benchmarks/vmc_reference.py)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from mopt.vmc.problem import VMPartitionProblem

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks"))
import vmc_reference  # noqa: E402


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
