"""mopt.core.interop: the constraint mopt problems declare to pymoo, and pymoo's own algorithms
(NSGA-II, NSGA-III, MOEA/D, SMS-EMOA, AGE-MOEA) running mopt problems with mopt's operators."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from pymoo.algorithms.moo.age import AGEMOEA
from pymoo.algorithms.moo.moead import MOEAD
from pymoo.algorithms.moo.nsga2 import NSGA2
from pymoo.algorithms.moo.nsga3 import NSGA3
from pymoo.algorithms.moo.sms import SMSEMOA
from pymoo.optimize import minimize
from pymoo.util.ref_dirs import get_reference_directions

import mopt
from mopt import InputError
from mopt.core.interop import every_vector_is_a_design, violation
from mopt.expert import NTDMrProblem, reference_environment

REF_DIRS = get_reference_directions("das-dennis", 2, n_partitions=7)  # 8 directions


def quadratic(p, rng):
    return (p["x"] + rng.normal(0, 0.1), (12 - p["x"]) ** 2 + rng.normal(0, 0.1))


@pytest.fixture(scope="module")
def ntdmr():
    return NTDMrProblem(reference_environment(0.1), n_reps=2)


@pytest.fixture(scope="module")
def function_problem():
    return mopt.FunctionProblem(quadratic, [{"x": x} for x in range(20)], ["time", "cost"], n_reps=2)


# -- the constraint ----------------------------------------------------------------------------
def test_a_problem_whose_every_vector_is_a_design_declares_no_constraint(ntdmr, function_problem):
    # FunctionProblem / NormalProblem: x = [design index] in [0, n - 1]: n vectors, n designs
    assert function_problem.n_ieq_constr == 0 and every_vector_is_a_design(function_problem)
    assert mopt.NormalProblem([1.0, 2.0, 3.0]).n_ieq_constr == 0
    # ExPERT's grid: 5 N x 5 T x 5 D x 5 Mr = 625 vectors, 289 designs (T <= D, N = inf once)
    assert ntdmr.n_ieq_constr == 1 and not every_vector_is_a_design(ntdmr)
    assert ntdmr.unconstrained().n_ieq_constr == 0 and ntdmr.n_ieq_constr == 1  # a view, not a change


def test_the_violation_is_the_distance_to_the_nearest_design(ntdmr):
    # T values 0, 1033, 2066, 4132, 8264 and D values 1549.5, 2066, 3099, 4132, 8264 (indices 0..4):
    # [0, 4, 3, 0] has T = 8264 > D = 4132; one step down in T gives [0, 3, 3, 0] (4132 <= 4132): 1.
    # [0, 4, 0, 0] has T = 8264 > D = 1549.5; the nearest T <= 1549.5 is index 1 (1033): 3 steps.
    g = violation(ntdmr, np.array([[0, 4, 3, 0], [0, 4, 0, 0], [0, 0, 0, 0]]), np.array([False, False, True]))
    assert g[0] == pytest.approx(1.0, abs=1e-6) and g[1] == pytest.approx(3.0, abs=1e-6) and g[2] == 0.0
    # every vector of the box: G = 0 exactly for designs; else > 0 and, up to the tie-breaker, the
    # brute-force L1 distance to the nearest design; distinct vectors never tie
    box = np.array(list(itertools.product(*[range(int(u) + 1) for u in ntdmr.xu])))
    designs = np.array([ntdmr.design(i) for i in range(ntdmr.n_designs)])
    valid = np.array([tuple(x) in {tuple(d) for d in designs.tolist()} for x in box.tolist()])
    g = violation(ntdmr, box, valid)
    brute = np.abs(box[:, None, :] - designs[None, :, :]).sum(axis=2).min(axis=1)
    assert (g[valid] == 0).all() and (g[~valid] > 0).all()
    np.testing.assert_allclose(g, brute, atol=1e-6)
    assert len(np.unique(g[~valid])) == (~valid).sum()


def test_pymoo_sees_the_graded_constraint_and_the_unconstrained_view_the_nearest_design(ntdmr):
    X = np.array([[0, 4, 3, 0], [0, 3, 3, 0]])
    out = {}
    ntdmr._evaluate(X, out)
    assert np.isinf(out["F"][0]).all() and np.isfinite(out["F"][1]).all()
    assert out["G"][:, 0] == pytest.approx([1.0, 0.0], abs=1e-6)
    view = {}
    ntdmr.unconstrained()._evaluate(X, view)  # [0, 4, 3, 0] is evaluated as [0, 3, 3, 0]
    assert "G" not in view and np.array_equal(view["F"][0], view["F"][1])
    np.testing.assert_array_equal(view["F"][1], out["F"][1])


def test_pymoo_operators_checks_its_problem():
    with pytest.raises(InputError, match="'problem' must be a mopt StochasticProblem"):
        mopt.pymoo_operators("ntdmr")
    assert "eliminate_duplicates" not in mopt.pymoo_operators(eliminate_duplicates=False)


# -- pymoo's algorithms ------------------------------------------------------------------------
ALGORITHMS = {
    "NSGA2": lambda ops: NSGA2(pop_size=10, **ops),
    "NSGA3": lambda ops: NSGA3(REF_DIRS, **ops),
    "MOEAD": lambda ops: MOEAD(REF_DIRS, n_neighbors=4, **ops),
    "SMS-EMOA": lambda ops: SMSEMOA(pop_size=10, **ops),
    "AGE-MOEA": lambda ops: AGEMOEA(pop_size=10, **ops),
}


@pytest.mark.parametrize("name", list(ALGORITHMS))
@pytest.mark.parametrize("which", ["ntdmr", "function_problem"])
def test_pymoo_algorithms_with_mopt_operators_return_distinct_integer_designs(name, which, request):
    problem = request.getfixturevalue(which)
    ops = mopt.pymoo_operators(problem, eliminate_duplicates=name != "MOEAD")
    target = problem.unconstrained() if name == "MOEAD" and problem.n_ieq_constr else problem
    res = minimize(target, ALGORITHMS[name](ops), ("n_gen", 4), seed=5)
    X = np.atleast_2d(res.X)
    assert X.dtype.kind == "i" and len(X) >= 1
    if name != "MOEAD":  # MOEA/D keeps one solution per direction, and takes no duplicate elimination
        assert len({tuple(x) for x in X.tolist()}) == len(X)  # distinct
    index = [problem.index(x) for x in X]  # every row a design (index raises otherwise)
    # F is the mean of the problem's own n_reps replications of those designs
    expected = problem.replicate(index, np.arange(problem.n_reps), problem.seed).mean(axis=1)
    np.testing.assert_allclose(np.atleast_2d(res.F), expected)
    again = minimize(target, ALGORITHMS[name](mopt.pymoo_operators(problem, eliminate_duplicates=name != "MOEAD")),
                     ("n_gen", 4), seed=5)
    np.testing.assert_array_equal(np.atleast_2d(again.X), X)  # same seed, same designs


def test_nsga3_with_pymoo_default_operators_is_reproducible_for_a_seed(ntdmr):
    # issue 14: every non-design had G = 1, and pymoo broke the ties between such vectors with a
    # generator it does not seed (3 of 6 seeds gave different fronts over 15 generations)
    ref = get_reference_directions("das-dennis", 2, n_partitions=12)
    for seed in (0, 3):
        fronts = [minimize(ntdmr, NSGA3(ref), ("n_gen", 15), seed=seed).F for _ in range(3)]
        for F in fronts[1:]:
            np.testing.assert_array_equal(F, fronts[0])


def test_moead_runs_an_unconstrained_problem_with_pymoo_defaults(function_problem):
    # a FunctionProblem declares no constraint: MOEA/D (which refuses constraints) takes it as is
    res = minimize(function_problem, MOEAD(REF_DIRS, n_neighbors=4), ("n_gen", 3), seed=1)
    assert np.isfinite(res.F).all()


def test_a_pymoo_result_from_default_operators_decodes_to_designs():
    from mopt import FunctionProblem
    from tests.helpers import noisy_quadratic

    prob = FunctionProblem(noisy_quadratic, [{"x": x} for x in range(8)], ["time", "cost"], n_reps=2, seed=3)
    res = minimize(prob, NSGA2(pop_size=6), ("n_gen", 3), seed=1, verbose=False)  # float X
    decoded = prob.decode_pymoo(res)
    assert list(decoded.columns) == ["design", "x", "time", "cost"]
    assert len(decoded) == len(res.F) and decoded["x"].between(0, 7).all()
    assert (decoded["design"] == decoded["x"]).all()  # design i is {"x": i}
    np.testing.assert_array_equal(decoded[["time", "cost"]].to_numpy(), res.F)


def test_decode_points_to_decode_pymoo_for_what_pymoo_returns():
    # issue #36: decode(res.X) failed on pymoo's float vectors and on several rows without a word
    from mopt.expert import NTDMrProblem, reference_environment

    problem = NTDMrProblem(reference_environment(0.1), n_reps=2)
    for x in ([1.2, 0.0, 2.0, 1.0], [[1, 0, 2, 1], [0, 0, 0, 0]]):
        with pytest.raises(mopt.InputError, match=r"use problem\.decode_pymoo\(res\)"):
            problem.decode(np.array(x))
    with pytest.raises(mopt.InputError) as info:  # a vector of the wrong length is not pymoo's: no hint
        problem.decode([1, 0])
    assert "decode_pymoo" not in str(info.value)
    assert problem.decode(np.array([1.0, 0.0, 2.0, 1.0])) == problem.decode([1, 0, 2, 1])
    got = problem.decode_pymoo([[1.2, 0.1, 1.9, 1.0]])
    assert got["design"].tolist() == [problem.index([1, 0, 2, 1])]
