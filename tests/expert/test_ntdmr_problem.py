"""NTDMrProblem as a pymoo problem (pymoo algorithms run it unchanged) and its input validation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.optimize import minimize

from mopt import InputError
from mopt.expert import (
    Environment,
    NTDMrProblem,
    TurnaroundModel,
    high_resolution_grid,
    reference_environment,
)


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
    # graded: the nearest design lowers T to index 1 (1033 s <= D = 1549.5 s), 3 steps (see interop)
    assert out["G"][:, 0] == pytest.approx([3.0, 0.0], abs=1e-6) and out["G"][0, 0] > 3.0
    assert np.isinf(out["F"][0]).all() and np.isfinite(out["F"][1]).all()


# -- input validation ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def prob():
    return NTDMrProblem(reference_environment(0.1), n_reps=2, seed=0)


@pytest.mark.parametrize("x", [[0, 0, 0], [0, 0, 0, 0, 0], [0, 0.5, 0, 0], ["abc", 0, 0, 0], [], "abcd",
                               [0, 0, 0, None]])
def test_vectors_that_are_not_design_vectors_name_x(prob, x):
    for call in (prob.index, prob.decode):
        with pytest.raises(InputError, match=r"'x' must be a design vector of 4 integers"):
            call(x)


@pytest.mark.parametrize("x", [[0, 4, 0, 0], [9, 0, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 99], [2**70, 0, 0, 0]])
def test_grid_vectors_that_are_not_designs(prob, x):
    # T > D, out of range (negative indices used to wrap around), huge
    for call in (prob.index, prob.decode):
        with pytest.raises(InputError, match=r"'x'"):
            call(x)


@pytest.mark.parametrize("indices", [[0.5], [-1], [289], ["abc"], [[0, 1], [2]]])
def test_designs_frame_of_indices_that_are_not_designs(prob, indices):
    assert prob.n_designs == 289
    with pytest.raises(InputError, match=r"'design index' must be an integer in \[0, 288\]"):
        prob.designs_frame(indices)


def test_decode_and_designs_frame_agree(prob):
    df = prob.designs_frame([0, 288])
    for row, i in zip(df.to_dict("records"), [0, 288], strict=True):
        decoded = prob.decode(prob.design(i))
        assert row["design"] == i and {k: row[k] for k in decoded} == decoded


def test_numpy_scalars_are_grid_values_like_python_numbers():
    env = reference_environment(0.1)
    plain = NTDMrProblem(env, N=2, T=0.5 * env.t_ur, D=[env.t_ur, 2 * env.t_ur], Mr=0.02)
    numpy = NTDMrProblem(env, N=np.int64(2), T=np.float64(0.5 * env.t_ur),
                         D=[np.float32(env.t_ur), np.int64(2 * env.t_ur)], Mr=np.float64(0.02))
    assert numpy.grid["N"].tolist() == plain.grid["N"].tolist() == [2.0]
    assert numpy.n_designs == plain.n_designs
    inf_grid = NTDMrProblem(env, N=[np.float64(math.inf), np.int32(0)], T=[0.0], D=[env.t_ur], Mr=[0.02])
    assert inf_grid.grid["N"].tolist() == [0.0, math.inf]
    with pytest.raises(TypeError, match="'T' must be a list of numbers"):
        NTDMrProblem(env, T="0")


def test_high_resolution_grid_matches_its_docstring():
    env = reference_environment(0.1)
    g = high_resolution_grid(env, n_td=20)
    t = env.t_ur
    assert len(g["D"]) == 20 and np.isclose(min(g["D"]), t / 2) and np.isclose(max(g["D"]), 4 * t)
    assert len(g["T"]) == 20 and g["T"][0] == 0.0
    assert np.isclose(g["T"][1], t / 4) and np.isclose(max(g["T"]), 4 * t)


def _with_turnaround(env, model):
    return Environment(n_tasks=env.n_tasks, n_unreliable=env.n_unreliable, t_ur=env.t_ur, t_r=env.t_r,
                       c_ur=env.c_ur, c_r=env.c_r, turnaround=model, mr_max=env.mr_max)


def test_fingerprint_hashes_the_whole_turnaround_model():
    env = reference_environment(0.1)
    m = env.turnaround
    base = NTDMrProblem(env).fingerprint()
    assert NTDMrProblem(_with_turnaround(env, TurnaroundModel(m.fs_table, m.gamma_breaks, m.gamma_values))
                        ).fingerprint() == base
    tail = m.fs_table.copy()
    tail[-1] += 1.0  # past the first 64 hex characters (4 values) that used to be all that counted
    breaks = m.gamma_breaks.copy()
    breaks[-1] += 1.0
    for model in (TurnaroundModel(tail, m.gamma_breaks, m.gamma_values),
                  TurnaroundModel(m.fs_table, breaks, m.gamma_values)):
        assert NTDMrProblem(_with_turnaround(env, model)).fingerprint() != base


def test_hierarchical_front_by_N_equals_the_global_front():
    import mopt
    from mopt.core.pareto import pareto_mask
    from mopt.expert import fronts_by_N

    prob = NTDMrProblem(reference_environment(0.1), n_reps=4)
    res = mopt.solve(prob, "exhaustive", seed=2)
    fronts = fronts_by_N(res.evaluations)
    assert set(fronts) == {0, 1, 2, 3, float("inf"), "merged"}
    merged = sorted(fronts["merged"]["design"].tolist())
    ev = res.evaluations  # every design on the front (Result.front holds one per class)
    assert merged == sorted(ev["design"][pareto_mask(ev[["makespan", "cost"]].to_numpy())].tolist())
    for n, f in fronts.items():
        if n != "merged":
            assert (f["N"] == n).all() and len(f) >= 1
