"""TagsProblem: design space, common random numbers, and every search method on a small grid."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.core.errors import InputError
from mopt.koala import TagsProblem, TagsSets, multicloud, simulate


def synthetic_trace(n=600, days=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "submit": np.sort(rng.uniform(0, days * 86400, n)), "size": rng.integers(1, 33, n),
        "runtime": np.where(rng.random(n) < 0.6, rng.uniform(1, 1800, n), rng.uniform(1800, 40000, n)),
        "user": rng.integers(0, 20, n),
    })  # fmt: skip


@pytest.fixture(scope="module")
def small():
    return TagsProblem(synthetic_trace(), limits=[10, 60], set2=[["C3", "private", "public"], ["public"]],
                       public_caps=[0, 64], private_mins=[8], window_days=(5, 10))


def test_design_space(small):
    # 2 limits x 2 sets x 2 caps x 1 minimum = 8, minus set 2 = {public} with cap 0 (2 limits) = 6
    assert (small.n_designs, small.n_excluded) == (6, 2)
    rows = [small.decode(small.design(i)) for i in range(small.n_designs)]
    assert rows[0] == {"L1": 10.0, "set2": "C3+private+public", "public_cap": 0, "private_min": 8}
    assert all(small.index(small.design(i)) == i for i in range(small.n_designs))
    with pytest.raises(InputError, match="not a design"):
        small.index([0, 1, 0, 0])  # set 2 = public alone with cap 0: left out
    full = TagsProblem(synthetic_trace(), window_days=(5, 10))
    # 48 limits x 30 proper subsets x 5 caps x 3 minimums; public-only set 2 with cap 0 or 16 left out
    assert full.n_designs == 48 * 30 * 5 * 3 - 48 * 2 * 3


def test_replication_is_a_simulation_of_its_window(small):
    """Replication r of a design = simulate() of TAGS-sets on the window that replication r draws."""
    from mopt.core.random import replication_rng, resolve_seed

    entropy = resolve_seed(7)
    jobs = small.window(replication_rng(entropy, 3))
    p = small.decode(small.design(4))
    env = multicloud(private_minimum=p["private_min"], public_maximum=p["public_cap"])
    run = simulate(jobs, TagsSets([env.names, p["set2"].split("+")], [p["L1"] * 60, math.inf]), env)
    got = small.replicate([4], [3], seed=7)[0, 0]
    s = run.summary
    np.testing.assert_allclose(got, [s["slowdown_short"], s["slowdown_long"], s["public_cost"]])


def test_window_load_and_common_random_numbers(small):
    from mopt.core.random import replication_rng

    loads = []
    for r in range(20):
        jobs = small.window(replication_rng(11, r))
        # Σ size x runtime over the rescaled window span, per cluster node, is the drawn load
        work = float((jobs["size"] * jobs["runtime"]).sum())
        assert work / jobs.attrs["span"] / 96 == pytest.approx(jobs.attrs["offered_load"])
        assert 5 * 86400 * 0.1 < jobs.attrs["span"] and jobs["submit"].min() >= 0
        assert jobs["submit"].max() < jobs.attrs["span"]
        loads.append(jobs.attrs["offered_load"])
    assert 0.8 <= min(loads) and max(loads) <= 1.3 and np.ptp(loads) > 0.2
    # common random numbers: a design's replication r does not depend on which designs or
    # replications are asked for with it
    batch = small.replicate(range(small.n_designs), [0, 1, 2], seed=3)
    alone = small.replicate([4], [2], seed=3)
    assert np.array_equal(batch[4, 2], alone[0, 0])
    assert not np.array_equal(batch[:, 0], batch[:, 1])


def test_bad_problem_input():
    trace = synthetic_trace()
    with pytest.raises(InputError, match="'set2' entries must be proper"):
        TagsProblem(trace, set2=[["C1", "C2", "C3", "private", "public"]])
    with pytest.raises(InputError, match="unknown site 'cloud'"):
        TagsProblem(trace, set2=[["cloud"]])
    with pytest.raises(InputError, match="'public_caps' must be in"):
        TagsProblem(trace, public_caps=[-16])
    with pytest.raises(InputError, match="'private_mins' must be <= the private maximum 64"):
        TagsProblem(trace, private_mins=[80])
    with pytest.raises(InputError, match="'window_days' must fit"):
        TagsProblem(trace, window_days=(30, 60))
    with pytest.raises(InputError, match="'load' must be a pair"):
        TagsProblem(trace, load=(1.3, 0.8))


def test_every_method_runs_and_is_reproducible(small, tmp_path):
    budget = 36
    for method, options in [("exhaustive", {"n_reps": 3}), ("blind_pick", {"n_reps": 3, "alpha": 0.5}),
                            ("oo", {"n_rough": 2, "n_accurate": 4, "s": 2}), ("ocba", {"n0": 2, "delta": 4}),
                            ("mocba", {"n0": 2, "delta": 4}), ("nsga2", {"pop_size": 4})]:
        a = mopt.solve(small, method, budget=budget, seed=5, **options)
        b = mopt.solve(small, method, budget=budget, seed=5, **options)
        assert a.n_evals <= budget, method
        pd.testing.assert_frame_equal(a.evaluations, b.evaluations)
    # two Dask workers and a journal give the same result as one process
    from mopt.core.execute import local_cluster

    # (and a three-set problem: 2 L pairs x 2 sets 3 = 4 designs)
    three = TagsProblem(synthetic_trace(), limits=[10, 60], limits2=[240], set2=[["C3", "private", "public"]],
                        set3=[["private", "public"], ["public"]], public_caps=[64], private_mins=[8],
                        window_days=(5, 10))
    serial = [mopt.solve(p, "exhaustive", seed=2, n_reps=2) for p in (small, three)]
    with local_cluster(2, threads=1) as client:
        parallel = [mopt.solve(p, "exhaustive", seed=2, n_reps=2, executor=client) for p in (small, three)]
    for k, p in enumerate((small, three)):
        journal = tmp_path / f"run{k}.sqlite"
        mopt.solve(p, "exhaustive", seed=2, n_reps=2, journal=str(journal))
        resumed = mopt.solve(p, "exhaustive", seed=2, n_reps=2, journal=str(journal))
        pd.testing.assert_frame_equal(serial[k].evaluations, parallel[k].evaluations)
        pd.testing.assert_frame_equal(serial[k].evaluations, resumed.evaluations)
    assert len(serial[1].evaluations) == 4 and "set3" in serial[1].evaluations.columns


@pytest.fixture(scope="module")
def three():
    return TagsProblem(synthetic_trace(), limits=[10, 60], limits2=[60, 240],
                       set2=[["C3", "private", "public"], ["private", "public"]], public_caps=[0, 64],
                       private_mins=[8], window_days=(5, 10))


def test_three_set_design_space(three):
    """L pairs with L2 > L1: (10, 60), (10, 240), (60, 240) = 3. Sets 3 (default: every proper
    subset of the five sites) that are proper subsets of set 2: C3+private+public has 6, private+
    public has 2 = 8 pairs. x 2 caps = 48 grid points that respect the order; set 3 = {public} with
    cap 0 cannot run a 32-processor job: 2 set pairs x 3 L pairs = 6 left out -> 42 designs. The whole
    product is 2 x 2 x 2 x 30 x 2 x 1 = 480 grid points, 438 of them not designs."""
    assert three.n_var == 6 and (three.n_designs, three.n_excluded) == (42, 438)
    rows = [three.decode(three.design(i)) for i in range(three.n_designs)]
    assert all(r["L2"] > r["L1"] for r in rows)
    assert all(set(r["set3"].split("+")) < set(r["set2"].split("+")) for r in rows)
    assert all(three.index(three.design(i)) == i for i in range(three.n_designs))
    assert rows[0] == {"L1": 10.0, "set2": "C3+private+public", "L2": 60.0, "set3": "C3", "public_cap": 0,
                       "private_min": 8}
    with pytest.raises(InputError, match="not a design"):
        three.index([1, 0, 0, 0, 0, 0])  # L1 = 60 with L2 = 60: not increasing


def test_three_set_replication_is_a_simulation(three):
    """Replication r of a three-set design = simulate() of TAGS-sets with three sets and limits
    (L1, L2, inf) on the window that replication r draws; short jobs are those <= L1."""
    from mopt.core.random import replication_rng, resolve_seed

    i = three.n_designs - 1
    p = three.decode(three.design(i))
    jobs = three.window(replication_rng(resolve_seed(4), 1))
    env = multicloud(private_minimum=p["private_min"], public_maximum=p["public_cap"])
    policy = TagsSets([env.names, p["set2"].split("+"), p["set3"].split("+")],
                      [p["L1"] * 60, p["L2"] * 60, math.inf])
    s = simulate(jobs, policy, env).summary
    got = three.replicate([i], [1], seed=4)[0, 0]
    np.testing.assert_allclose(got, [s["slowdown_short"], s["slowdown_long"], s["public_cost"]])


def test_three_set_repair_above_the_table_limit_agrees_with_the_table(three, monkeypatch):
    """The scan used above the base class's table limit gives the same designs as the base k-d tree
    (nearest in L1 distance, lowest index on ties) on random vectors of the box."""
    import mopt.koala.problem as module

    X = np.random.default_rng(3).uniform(three.xl - 0.4, three.xu + 0.4, size=(40, three.n_var))
    X[:5] = np.rint(X[:5])
    tabulated = three.repair(X)
    monkeypatch.setattr(module, "REPAIR_TABLE_LIMIT", 0)
    assert np.array_equal(three.repair(X), tabulated)
    assert three.repair(three.design(7)).tolist() == [7]


def test_three_set_bad_input_and_search():
    trace = synthetic_trace()
    with pytest.raises(InputError, match="'set3' needs 'limits2'"):
        TagsProblem(trace, set3=[["public"]], window_days=(5, 10))
    with pytest.raises(InputError, match="'limits2' must hold a value above"):
        TagsProblem(trace, limits=[40, 60], limits2=[30, 40], window_days=(5, 10))
    with pytest.raises(InputError, match="'set3' names unknown site 'x'"):
        TagsProblem(trace, limits2=[60], set3=[["x"]], window_days=(5, 10))
    with pytest.raises(InputError, match="no design"):
        TagsProblem(trace, set2=[["public"]], limits2=[300], window_days=(5, 10))
    small3 = TagsProblem(trace, limits=[10, 60], limits2=[240], set2=[["C3", "private", "public"]],
                         set3=[["private", "public"], ["public"]], public_caps=[64], private_mins=[8],
                         window_days=(5, 10))
    assert small3.n_designs == 4
    for method, options in (("mocba", {"n0": 2, "delta": 2}), ("nsga2", {"pop_size": 4})):
        a = mopt.solve(small3, method, budget=16, seed=5, **options)
        b = mopt.solve(small3, method, budget=16, seed=5, **options)
        assert 0 < a.n_evals <= 16 and set(a.evaluations["design"]) <= set(range(4))
        pd.testing.assert_frame_equal(a.evaluations, b.evaluations)


def test_absurd_grids_and_environments_are_refused_before_anything_is_built():
    # limits2=range(300, 3000) and a TOML limits = [1..100000] used to build their design tables
    # eagerly and die of memory; --chains 10^9 grew past 1.9 GB
    import time

    import numpy as np
    import pandas as pd

    from mopt import InputError
    from mopt.koala import TagsProblem, multicluster

    n = 400
    jobs = pd.DataFrame({"submit": np.arange(n) * 6000.0, "size": np.full(n, 4), "runtime": np.full(n, 600.0)})
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"grid has 1,749,600,000 points \(48 L1 x 30 set2 x 2700 L2 x 30 set3 "
                                         r"x 5 public_cap x 3 private_min\), more than the 10,000,000"):
        TagsProblem(jobs, limits2=range(300, 3000), window_days=(5, 10))
    with pytest.raises(InputError, match=r"grid has 45,000,000 points"):
        TagsProblem(jobs, limits=list(range(1, 100_001)), window_days=(5, 10))
    assert time.perf_counter() - start < 10
    with pytest.raises(InputError, match=r"'n_chains' must be an integer in \[1, 1024\]; got 1000000000"):
        multicluster(10**9)
