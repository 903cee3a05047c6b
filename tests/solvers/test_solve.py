"""mopt.solve and the solvers: a conformance suite parametrised over every method."""

from __future__ import annotations

import concurrent.futures as cf
import math
import multiprocessing
import re

import numpy as np
import pytest

import mopt
from mopt import METHODS, FunctionProblem, InputError, solve
from tests.helpers import assert_same_result, noisy_quadratic

N_DESIGNS = 10


def designs():
    return [{"x": x % 6, "shift": x // 6} for x in range(N_DESIGNS)]


@pytest.fixture
def prob():
    return FunctionProblem(noisy_quadratic, designs(), ["time", "cost"], n_reps=3)


#: per method, options that make it simulate several designs
OPTIONS = {
    "exhaustive": {"n_reps": 4},
    "blind_pick": {"alpha": 0.5, "n_reps": 4},
    "oo": {"n_rough": 2, "n_accurate": 4, "s": 3},
    "ocba": {"n0": 2, "delta": 3},
    "mocba": {"n0": 2, "delta": 3},
    "nsga2": {"pop_size": 4, "n_reps0": 1, "n_reps_max": 3},
    "ioo": {"n_rough": 2, "n_accurate": 4, "s": 3},
    "eoo": {"n_rough": 2, "n_accurate": 4, "s": 3},
    "eoo_ocba": {"n0": 2, "delta": 3},
    "screen": {"breadth": 0.5},
    "auto": {},
}

#: per method, an invalid option and the name the error must give
BAD_OPTIONS = {
    "exhaustive": ({"n_reps": 0}, "n_reps"),
    "blind_pick": ({"alpha": 1.5}, "alpha"),
    "oo": ({"s": N_DESIGNS + 1}, "s"),
    "ocba": ({"n0": 1}, "n0"),
    "mocba": ({"delta": 0}, "delta"),
    "nsga2": ({"pop_size": N_DESIGNS + 1}, "pop_size"),
    "ioo": ({"n_rough": 0}, "n_rough"),
    "eoo": ({"alpha": 2.0}, "alpha"),
    "eoo_ocba": ({"n0": 1}, "n0"),
    "screen": ({"breadth": 1.5}, "breadth"),
    "auto": ({"utility": "nope"}, "utility"),
}


def test_every_method_is_covered():
    assert set(METHODS) == set(OPTIONS) == set(BAD_OPTIONS)
    assert set(METHODS) == {"exhaustive", "blind_pick", "oo", "ocba", "mocba", "nsga2", "ioo", "eoo", "eoo_ocba",
                            "screen", "auto"}


@pytest.mark.parametrize("method", sorted(OPTIONS))
class TestConformance:
    def test_same_seed_same_result(self, prob, method):
        a = solve(prob, method, seed=11, **OPTIONS[method])
        b = solve(prob, method, seed=11, **OPTIONS[method])
        assert a.seed == 11
        assert_same_result(a, b)

    def test_different_seeds_differ(self, prob, method):
        a = solve(prob, method, seed=11, **OPTIONS[method])
        b = solve(prob, method, seed=12, **OPTIONS[method])
        assert a.seed != b.seed
        assert not np.array_equal(a.evaluations["time"], b.evaluations["time"])

    def test_a_passed_in_generator_is_used(self, prob, method):
        rng = np.random.default_rng(3)
        a = solve(prob, method, seed=rng, **OPTIONS[method])
        b = solve(prob, method, seed=rng, **OPTIONS[method])
        assert a.seed != b.seed  # the Generator advanced between the two solves
        assert not np.array_equal(a.evaluations["time"], b.evaluations["time"])
        c = solve(prob, method, seed=np.random.default_rng(3), **OPTIONS[method])
        d = solve(prob, method, seed=np.random.default_rng(3), **OPTIONS[method])
        assert_same_result(a, c)
        assert_same_result(c, d)
        # and the recorded seed reruns it
        assert_same_result(solve(prob, method, seed=a.seed, **OPTIONS[method]), a)

    def test_budget_respected(self, prob, method):
        low = METHODS[method](**OPTIONS[method]).min_budget(prob)
        for budget in (1, 4, N_DESIGNS, 13, 25, 61, 1000):
            if budget < low:
                with pytest.raises(InputError, match=f"'budget' must be >= (n_designs=|n_reps=)?{low}"):
                    solve(prob, method, seed=1, budget=budget, **OPTIONS[method])
                continue
            res = solve(prob, method, seed=1, budget=budget, **OPTIONS[method])
            assert res.n_evals <= budget
            assert res.evaluations["n_reps"].sum() == res.n_evals
            assert res.info["budget"] == budget

    def test_same_result_on_two_worker_processes(self, prob, method):
        a = solve(prob, method, seed=5, **OPTIONS[method])
        with cf.ProcessPoolExecutor(2) as ex:
            b = solve(prob, method, seed=5, executor=ex, **OPTIONS[method])
        assert_same_result(a, b)

    def test_unknown_option(self, prob, method):
        with pytest.raises(InputError, match=f"unknown option 'n_rep' for method '{method}'"):
            solve(prob, method, n_rep=3)

    def test_invalid_option_is_named(self, prob, method):
        options, name = BAD_OPTIONS[method]
        with pytest.raises(InputError, match=f"'{name}'"):
            solve(prob, method, seed=1, **{**OPTIONS[method], **options})

    @pytest.mark.parametrize("budget", [-1, 0, 2.5])
    def test_bad_budget(self, prob, method, budget):
        with pytest.raises(InputError, match="'budget'"):
            solve(prob, method, budget=budget)

    def test_bad_n_reps(self, prob, method):
        with pytest.raises(InputError, match="'n_reps'"):
            solve(prob, method, n_reps=0)

    def test_bad_seed(self, prob, method):
        with pytest.raises(ValueError, match="'seed'"):
            solve(prob, method, seed=-3)

    def test_result_table(self, prob, method):
        res = solve(prob, method, seed=2, **OPTIONS[method])
        ev = res.evaluations
        assert list(ev.columns) == [
            "design",
            "x",
            "shift",
            "time",
            "time_se",
            "cost",
            "cost_se",
            "n_reps",
            "class",  # classes of equivalent designs (issue #33)
            # how sure (issue #22), appended after the columns of earlier releases
            "p_nondominated",
            "time_lo",
            "time_hi",
            "cost_lo",
            "cost_hi",
        ]
        assert ev["design"].is_monotonic_increasing and ev["design"].is_unique
        # the means are those of the replications the problem gives for the run's seed
        for _, row in ev.iterrows():
            reps = prob.replicate([int(row["design"])], np.arange(int(row["n_reps"])), res.seed)[0]
            assert row["time"] == pytest.approx(reps[:, 0].mean(), rel=1e-12)
            if len(reps) == 1:  # one replication: no standard error
                assert math.isnan(row["cost_se"])
                continue
            assert row["cost_se"] == pytest.approx(
                reps[:, 1].std(ddof=1) / math.sqrt(len(reps)), rel=1e-9
            )


class TestExhaustive:
    def test_spends_n_designs_times_n_reps(self, prob):
        res = solve(prob, "exhaustive", seed=1, n_reps=4)
        assert res.n_evals == N_DESIGNS * 4
        assert res.evaluations["design"].tolist() == list(range(N_DESIGNS))
        assert res.evaluations["n_reps"].tolist() == [4] * N_DESIGNS
        assert res.method == "exhaustive" and res.objectives == ("time", "cost")

    def test_default_n_reps_is_the_problems(self, prob):
        assert solve(prob, "exhaustive", seed=1).n_evals == N_DESIGNS * 3

    def test_small_budget_spreads_evenly(self, prob):
        # 25 // 10 designs = 2 replications each, 20 spent
        res = solve(prob, "exhaustive", seed=1, budget=25, n_reps=4)
        assert res.n_evals == 20
        assert res.evaluations["n_reps"].tolist() == [2] * N_DESIGNS

    def test_budget_below_n_designs_raises(self, prob):
        with pytest.raises(InputError, match="'budget' must be >= n_designs=10"):
            solve(prob, "exhaustive", budget=9)

    def test_budget_changes_nothing_but_the_replication_count(self, prob):
        full = solve(prob, "exhaustive", seed=1, n_reps=4)
        cut = solve(prob, "exhaustive", seed=1, budget=20, n_reps=4)
        # replications 0 and 1 are the same whatever the budget
        for i in range(N_DESIGNS):
            assert cut.evaluations["time"][i] == pytest.approx(
                prob.replicate([i], [0, 1], 1)[0, :, 0].mean(), rel=1e-12
            )
        assert full.n_evals == 40


class TestBlindPick:
    @pytest.mark.parametrize(
        "alpha, expected", [(0.05, 1), (0.1, 1), (0.25, 3), (0.5, 5), (1.0, 10)]
    )
    def test_alpha_fraction(self, prob, alpha, expected):
        # ceil(alpha · 10) designs, n_reps each, distinct
        res = solve(prob, "blind_pick", seed=4, alpha=alpha, n_reps=2)
        assert len(res.evaluations) == expected
        assert res.evaluations["design"].is_unique
        assert res.n_evals == 2 * expected
        assert (res.evaluations["n_reps"] == 2).all()

    def test_budget_cuts_the_number_of_designs(self, prob):
        # ceil(0.5 · 10) = 5 designs wanted, but a budget of 7 affords 7 // 2 = 3
        res = solve(prob, "blind_pick", seed=4, alpha=0.5, n_reps=2, budget=7)
        assert len(res.evaluations) == 3 and res.n_evals == 6

    def test_picks_vary_with_the_seed(self, prob):
        picks = {
            tuple(solve(prob, "blind_pick", seed=s, alpha=0.3, n_reps=1).evaluations["design"])
            for s in range(8)
        }
        assert len(picks) > 1

    @pytest.mark.parametrize("alpha", [0, -0.1, 1.01, math.nan])
    def test_alpha_outside_0_1_raises(self, prob, alpha):
        with pytest.raises(InputError, match="'alpha' must be in \\(0, 1\\]"):
            solve(prob, "blind_pick", alpha=alpha)

    def test_budget_below_n_reps_raises(self, prob):
        with pytest.raises(InputError, match="'budget' must be >= n_reps=4"):
            solve(prob, "blind_pick", budget=3, n_reps=4)


class TestSolveEntry:
    def test_unknown_method(self, prob):
        with pytest.raises(InputError, match=re.escape(f"'method' must be one of {sorted(METHODS)}")):
            solve(prob, "grid")

    def test_not_a_problem(self):
        with pytest.raises(TypeError, match="'problem'"):
            solve(object(), "exhaustive")

    def test_result_repr_and_front(self, prob):
        res = mopt.solve(prob, "exhaustive", seed=1, n_reps=2)
        assert repr(res).startswith("Result(method='exhaustive', seed=1, n_evals=20, designs=10")


# -- the ExPERT strategy grid -------------------------------------------------------------------
def small_ntdmr_problem():
    from mopt.expert import NTDMrProblem, reference_environment

    env = reference_environment(0.1)
    t = env.t_ur
    return NTDMrProblem(
        env, N=[0, 2, math.inf], T=[0.0, t], D=[2 * t, 4 * t], Mr=[0.02, 0.1], n_reps=3
    )


class TestNTDMr:
    def test_same_seed_same_result_different_seed_differs(self):
        prob = small_ntdmr_problem()
        # N ∈ {0, 2}: 2 T·D pairs... T ≤ D always here: 2·2·2 Mr = 8 each; N = inf: 4 (M_r irrelevant)
        assert prob.n_designs == 2 * 8 + 4
        a = solve(prob, "exhaustive", seed=3)
        assert a.n_evals == prob.n_designs * 3
        assert_same_result(a, solve(prob, "exhaustive", seed=3))
        assert not np.array_equal(
            a.evaluations["makespan"], solve(prob, "exhaustive", seed=4).evaluations["makespan"]
        )

    def test_generator_is_used(self):
        prob = small_ntdmr_problem()
        rng = np.random.default_rng(8)
        a = solve(prob, "blind_pick", seed=rng, alpha=0.5)
        b = solve(prob, "blind_pick", seed=rng, alpha=0.5)
        assert a.seed != b.seed
        assert_same_result(a, solve(prob, "blind_pick", seed=np.random.default_rng(8), alpha=0.5))

    def test_two_worker_processes_give_the_in_process_result(self):
        # a fresh interpreter per worker ("forkserver"): nothing inherited from this process
        prob = small_ntdmr_problem()
        a = solve(prob, "exhaustive", seed=3)
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["mopt.expert"])  # import numba once, in the server
        with cf.ProcessPoolExecutor(2, mp_context=ctx) as ex:
            b = solve(prob, "exhaustive", seed=3, executor=ex)
        assert_same_result(a, b)

    def test_two_forked_worker_processes_give_the_in_process_result(self):
        # the default ProcessPoolExecutor forks; the engine has already run in this process, so this
        # also checks that its numba threading layer survives fork (GNU OpenMP would kill the workers)
        prob = small_ntdmr_problem()
        a = solve(prob, "exhaustive", seed=3)
        picked = solve(prob, "blind_pick", seed=3, alpha=0.5)
        with cf.ProcessPoolExecutor(2) as ex:
            b = solve(prob, "exhaustive", seed=3, executor=ex)
            c = solve(prob, "blind_pick", seed=3, alpha=0.5, executor=ex)
        assert_same_result(a, b)
        assert_same_result(picked, c)


# -- solve's own arguments -----------------------------------------------------------------------
@pytest.mark.parametrize("method", [["exhaustive"], None, 3, {"exhaustive": 1}])
def test_method_must_be_a_name(prob, method):
    # every registered method is listed (the families may register more, e.g. vmc's ioo/eoo)
    with pytest.raises(InputError, match=re.escape(f"'method' must be one of {sorted(METHODS)}; got ")):
        solve(prob, method)


@pytest.mark.parametrize("executor", [4, "processes", object()])
def test_executor_must_have_submit(prob, executor):
    with pytest.raises(TypeError, match=r"'executor' must be None or have a callable submit\(\)"):
        solve(prob, "exhaustive", executor=executor, n_reps=2)
