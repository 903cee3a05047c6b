"""NTDMrProblem as a pymoo problem: pymoo algorithms run it unchanged."""

from __future__ import annotations

import numpy as np
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.optimize import minimize

from mopt.expert import NTDMrProblem, reference_environment


def test_pymoo_nsga2_runs_unchanged_and_reports_true_means():
    prob = NTDMrProblem(reference_environment(0.1), n_reps=4, seed=3)
    res = minimize(prob, NSGA2(pop_size=16), ("n_gen", 4), seed=1)
    X = np.atleast_2d(res.X)
    assert len(X) >= 1
    for x, f in zip(X, np.atleast_2d(res.F), strict=True):
        i = prob.index(np.rint(x).astype(int))  # a feasible design, not an invalid T > D vector
        means = prob.replicate([i], np.arange(4), 3)[0].mean(axis=0)
        np.testing.assert_allclose(f, means, rtol=1e-12)


def test_invalid_vectors_are_infeasible_not_errors():
    prob = NTDMrProblem(reference_environment(0.1), n_reps=2, seed=0)
    # T index 4 (4·t_ur) with D index 0 (0.75·t_ur): T > D is not a design
    out = prob.evaluate(np.array([[0, 4, 0, 0], [0, 0, 0, 0]]), return_as_dictionary=True)
    assert out["G"][:, 0].tolist() == [1.0, 0.0]
    assert np.isinf(out["F"][0]).all() and np.isfinite(out["F"][1]).all()
