"""mopt.core.problem: FunctionProblem's design space, replications, seeding and pymoo conformance."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from pymoo.core.evaluator import Evaluator
from pymoo.core.population import Population
from pymoo.core.problem import Problem

from mopt import FunctionProblem, InputError, StochasticProblem
from tests.helpers import noisy_quadratic, pure_noise


def two_draws(params, rng):
    return (params["a"] + rng.normal(), rng.uniform())


def wrong_arity(params, rng):
    return (1.0, 2.0, 3.0)


@pytest.fixture
def prob():
    designs = [{"a": 1, "kind": "x"}, {"a": 2, "kind": "y"}, {"a": 5, "kind": "z"}]
    return FunctionProblem(two_draws, designs, ["time", "cost"], n_reps=4, seed=9)


class TestDesignSpace:
    def test_decode_design_index(self, prob):
        assert isinstance(prob, StochasticProblem) and isinstance(prob, Problem)
        assert prob.n_designs == 3 and prob.n_var == 1 and prob.n_obj == 2
        assert prob.design(2).tolist() == [2]
        assert prob.index([1]) == 1 and prob.index(np.array([2])) == 2
        assert prob.decode(prob.design(2)) == {"a": 5, "kind": "z"}
        assert type(prob.decode([0])["a"]) is int  # numpy scalars come back as Python values
        assert prob.parameter_names == ("a", "kind")
        assert prob.xl.tolist() == [0] and prob.xu.tolist() == [2]

    def test_designs_frame(self, prob):
        df = prob.designs_frame([2, 0])
        assert df.to_dict("list") == {"design": [2, 0], "a": [5, 1], "kind": ["z", "x"]}

    def test_dataframe_designs(self):
        table = pd.DataFrame({"x": [3, 4]}, index=[10, 20])
        p = FunctionProblem(noisy_quadratic, table, ["t", "c"])
        assert p.decode([1]) == {"x": 4}

    @pytest.mark.parametrize("bad", [-1, 3, 1.5])
    def test_bad_design_index_raises(self, prob, bad):
        with pytest.raises(InputError, match="'design index'"):
            prob.design(bad)

    def test_bad_design_vector_raises(self, prob):
        with pytest.raises(InputError, match="'design index'"):
            prob.index([7])
        with pytest.raises(InputError, match="'design index'"):
            prob.replicate([0, 3], [0], seed=1)


class TestConstructor:
    def test_no_designs(self):
        with pytest.raises(InputError, match="'designs'"):
            FunctionProblem(noisy_quadratic, [], ["t", "c"])

    def test_designs_not_dicts(self):
        with pytest.raises(TypeError, match="'designs'"):
            FunctionProblem(noisy_quadratic, 5, ["t", "c"])

    @pytest.mark.parametrize("bad", [[], (), "time"])
    def test_bad_objectives(self, bad):
        with pytest.raises(InputError, match="'objectives'"):
            FunctionProblem(noisy_quadratic, [{"x": 1}], bad)

    def test_simulate_not_callable(self):
        with pytest.raises(TypeError, match="'simulate'"):
            FunctionProblem("sim", [{"x": 1}], ["t"])

    def test_simulate_returning_the_wrong_number_of_values(self):
        p = FunctionProblem(wrong_arity, [{"x": 1}], ["t", "c"])
        with pytest.raises(
            InputError, match="'simulate' must return 2 values .*got 3 for design 0"
        ):
            p.replicate([0], [0], seed=1)


class TestReplicate:
    def test_shape(self, prob):
        assert prob.replicate([0, 2], [0, 1, 2], seed=1).shape == (2, 3, 2)
        assert prob.replicate([], [0, 1], seed=1).shape == (0, 2, 2)
        assert prob.replicate([1], [], seed=1).shape == (1, 0, 2)

    def test_values_are_the_simulators_with_the_replication_stream(self, prob):
        from mopt.core.random import replication_rng

        out = prob.replicate([2], [3], seed=1)
        rng = replication_rng(1, 3)
        assert out[0, 0].tolist() == [5 + rng.normal(), rng.uniform()]

    def test_common_random_numbers(self):
        p = FunctionProblem(pure_noise, [{"x": 0}, {"x": 1}], ["a", "b"])
        out = p.replicate([0, 1], [0, 1, 2, 3], seed=2)
        assert np.array_equal(out[0], out[1])  # same draws for both designs in replication r
        assert len(np.unique(out[0, :, 0])) == 4  # but different draws across replications

    def test_without_common_random_numbers_designs_differ(self):
        p = FunctionProblem(
            pure_noise, [{"x": 0}, {"x": 1}], ["a", "b"], common_random_numbers=False
        )
        out = p.replicate([0, 1], [0, 1], seed=2)
        assert not np.any(out[0] == out[1])
        # still addressed by (seed, design, rep): order and batching do not matter
        assert np.array_equal(p.replicate([1], [1], seed=2)[0, 0], out[1, 1])

    def test_same_seed_same_values_whatever_the_order(self, prob):
        a = prob.replicate([0, 1, 2], [0, 1, 2, 3], seed=5)
        b = prob.replicate([2, 0], [3, 1], seed=5)
        assert np.array_equal(b[0, 0], a[2, 3]) and np.array_equal(b[1, 1], a[0, 1])
        assert np.array_equal(prob.replicate([0, 1, 2], [0, 1, 2, 3], seed=5), a)
        g = prob.replicate([0], [0], seed=np.random.SeedSequence(5))
        assert np.array_equal(g[0, 0], a[0, 0])

    def test_different_seeds_differ(self, prob):
        a = prob.replicate([0, 1], [0, 1], seed=5)
        b = prob.replicate([0, 1], [0, 1], seed=6)
        assert not np.any(a == b)

    def test_negative_replication_raises(self, prob):
        with pytest.raises(InputError, match="'reps'"):
            prob.replicate([0], [-1], seed=1)

    def test_simulate_by_design_vectors(self, prob):
        out = prob.simulate([[2], [0]], n_reps=3, seed=4, rep_offset=2)
        assert np.array_equal(out, prob.replicate([2, 0], [2, 3, 4], seed=4))
        with pytest.raises(InputError, match="'n_reps'"):
            prob.simulate([[0]], n_reps=0, seed=4)
        with pytest.raises(InputError, match="'rep_offset'"):
            prob.simulate([[0]], n_reps=1, seed=4, rep_offset=-1)


class TestPymoo:
    def test_evaluate_returns_the_mean_of_n_reps_replications(self, prob):
        F = prob.evaluate(np.array([[0], [2]]), return_values_of=["F"])
        expected = prob.replicate([0, 2], np.arange(4), seed=9).mean(axis=1)
        assert F.shape == (2, 2)
        assert np.array_equal(F, expected)

    def test_evaluator_on_a_population(self, prob):
        pop = Population.new(X=np.array([[0], [1], [2]]))
        Evaluator().eval(prob, pop)
        assert np.array_equal(
            pop.get("F"), prob.replicate([0, 1, 2], np.arange(4), seed=9).mean(axis=1)
        )

    def test_float_design_vectors_are_rounded(self, prob):
        F = prob.evaluate(np.array([[0.2], [1.7]]), return_values_of=["F"])
        assert np.array_equal(F, prob.replicate([0, 2], np.arange(4), seed=9).mean(axis=1))

    def test_a_pymoo_algorithm_runs_it(self):
        from pymoo.algorithms.moo.nsga2 import NSGA2
        from pymoo.operators.crossover.sbx import SBX
        from pymoo.operators.mutation.pm import PM
        from pymoo.operators.repair.rounding import RoundingRepair
        from pymoo.operators.sampling.rnd import IntegerRandomSampling
        from pymoo.optimize import minimize

        p = FunctionProblem(
            noisy_quadratic, [{"x": x} for x in range(6)], ["t", "c"], n_reps=3, seed=1
        )
        algorithm = NSGA2(
            pop_size=6,
            sampling=IntegerRandomSampling(),
            crossover=SBX(prob=1.0, eta=3.0, vtype=float, repair=RoundingRepair()),
            mutation=PM(prob=1.0, eta=3.0, vtype=float, repair=RoundingRepair()),
            eliminate_duplicates=True,
        )
        res = minimize(p, algorithm, ("n_gen", 3), seed=1)
        # every returned F is exactly the mean of the n_reps replications of its design
        X = np.atleast_2d(res.X).astype(int)
        assert np.array_equal(
            np.atleast_2d(res.F), p.replicate(X[:, 0], np.arange(3), seed=1).mean(axis=1)
        )
        # x and (3 - x)² conflict for x <= 3: the front holds only such designs
        assert set(X[:, 0].tolist()) <= {0, 1, 2, 3}


def test_fingerprint_depends_on_the_design_space():
    a = FunctionProblem(noisy_quadratic, [{"x": 1}], ["t", "c"])
    b = FunctionProblem(noisy_quadratic, [{"x": 1}], ["t", "c"])
    c = FunctionProblem(noisy_quadratic, [{"x": 2}], ["t", "c"])
    assert a.fingerprint() == b.fingerprint() != c.fingerprint()
    assert len(a.fingerprint()) == 16


# -- input validation ------------------------------------------------------------------------------
class TestObjectiveNames:
    @pytest.mark.parametrize("bad", [None, 5, {"time", "cost"}])
    def test_not_a_sequence_is_a_type_error(self, bad):
        with pytest.raises(TypeError, match="'objectives'"):
            FunctionProblem(noisy_quadratic, [{"x": 1}], bad)

    @pytest.mark.parametrize(
        ("bad", "match"),
        [
            (["t", "t"], "be unique; got 't' twice"),
            (["", "c"], "hold non-empty strings; got ''"),
            (["t", 3], "hold non-empty strings; got 3"),
            (["design", "c"], "not use the reserved column names .*; got 'design'"),
            (["t", "n_reps"], "not use the reserved column names .*; got 'n_reps'"),
            (["utility", "c"], "not use the reserved column names .*; got 'utility'"),
            (["time_se", "c"], "not end with '_se'"),
            (["x", "c"], r"differ from the parameter names \['x'\]; got 'x'"),
        ],
    )
    def test_names_that_clash_with_the_evaluations_table(self, bad, match):
        with pytest.raises(InputError, match=f"'objectives' (must )?{match}"):
            FunctionProblem(noisy_quadratic, [{"x": 1}], bad)

    def test_any_ordered_sequence_of_strings(self):
        p = FunctionProblem(noisy_quadratic, [{"x": 1}], np.array(["t", "c"]))
        assert p.objectives == ("t", "c") and all(type(o) is str for o in p.objectives)


class TestDesignValidation:
    @pytest.mark.parametrize("bad", [[], [0, 1], ["abc"], [0.5], [None], np.zeros((0,))])
    def test_index_of_a_vector_that_is_not_a_design(self, prob, bad):
        with pytest.raises(InputError, match="'x' must be a design vector of 1 integer"):
            prob.index(bad)
        with pytest.raises(InputError, match="'x'"):
            prob.decode(bad)

    def test_index_accepts_integral_numbers(self, prob):
        assert prob.index([2.0]) == prob.index(np.array([np.int64(2)])) == prob.index(2) == 2

    @pytest.mark.parametrize("bad", [[0.5], [1e20], ["a"], [-1], [3], [True], [np.nan]])
    def test_replicate_rejects_indices_that_are_not_designs(self, prob, bad):
        # 0.5 used to be truncated to design 0 silently
        with pytest.raises(InputError, match=r"'design index' must be an integer in \[0, 2\]"):
            prob.replicate(bad, [0], seed=1)
        with pytest.raises(InputError, match="'design index'"):
            prob.designs_frame(bad)

    @pytest.mark.parametrize("bad", [[0.5], [-1], ["r"], [2**63]])
    def test_replicate_rejects_bad_replication_indices(self, prob, bad):
        with pytest.raises(InputError, match="'reps' must be an integer >= 0"):
            prob.replicate([0], bad, seed=1)

    def test_simulate_rejects_vectors_that_are_not_designs(self, prob):
        with pytest.raises(InputError, match="'x'"):
            prob.simulate([[0.5]], 2, seed=1)
        with pytest.raises(InputError, match="'x'"):
            prob.simulate([0, 1], 2, seed=1)  # one vector of length 2, not two designs
        with pytest.raises(InputError, match="'rep_offset'"):
            prob.simulate([[0]], 2, seed=1, rep_offset=2**70)
        assert prob.simulate([[0], [1.0]], 2, seed=1).shape == (2, 2, 2)

    @pytest.mark.parametrize("bad", [2.5, "one", [1]])
    def test_design_rejects_non_indices(self, prob, bad):
        with pytest.raises(InputError, match="'design index'"):
            prob.design(bad)


class TestEvaluateValidatesAtUse:
    @pytest.mark.parametrize(
        ("attrs", "error", "match"),
        [
            ({"n_reps": 0}, InputError, r"the problem's 'n_reps' must be an integer >= 1; got 0"),
            ({"n_reps": 2.5}, InputError, r"the problem's 'n_reps' must be an integer"),
            ({"n_reps": "3"}, TypeError, r"the problem's 'n_reps'"),
            ({"seed": -1}, InputError, r"the problem's 'seed' must be a non-negative int"),
            ({"seed": "s"}, TypeError, r"the problem's 'seed' must be an int"),
        ],
    )
    def test_bad_n_reps_or_seed(self, attrs, error, match):
        # the constructor only stores them; pymoo's evaluate is where they are used
        p = FunctionProblem(two_draws, [{"a": 1}], ["t", "c"], **attrs)
        with pytest.raises(error, match=match):
            p.evaluate(np.array([[0]]), return_as_dictionary=True)

    def test_generator_seed_is_drawn_from_once_per_evaluation(self):
        seeded = FunctionProblem(two_draws, [{"a": 1}], ["t", "c"], n_reps=3,
                                 seed=np.random.default_rng(5))
        entropy = int(np.random.default_rng(5).integers(0, 2**63 - 1))
        plain = FunctionProblem(two_draws, [{"a": 1}], ["t", "c"], n_reps=3, seed=entropy)
        a = seeded.evaluate(np.array([[0]]), return_as_dictionary=True)["F"]
        b = plain.evaluate(np.array([[0]]), return_as_dictionary=True)["F"]
        np.testing.assert_array_equal(a, b)
