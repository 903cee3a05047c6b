"""VMPartitionProblem: design space, common random numbers, hooks, every solver."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mopt
from mopt.core.errors import InputError
from mopt.vmc.problem import VMPartitionProblem
from mopt.vmc.space import count_partitions


def _problem(theta=12, C=4, **kw):
    rng = np.random.default_rng(0)
    return VMPartitionProblem(theta, [40.0, 30.0, 50.0], rng.poisson(6, (3, C)), **kw)


def test_design_index_is_the_rank():
    p = _problem()
    assert p.n_designs == count_partitions(12, 4) == 165
    for i in (0, 17, 164):
        assert p.index(p.design(i)) == i
    assert p.decode([9, 1, 1, 1]) == {"theta_1": 9, "theta_2": 1, "theta_3": 1, "theta_4": 1}
    with pytest.raises(InputError, match="12 VMs"):
        p.index([1, 1, 1, 1])


def test_a_small_space_is_unranked_once_and_looked_up(monkeypatch):
    import pickle

    import mopt.vmc.problem as P
    from mopt.vmc.space import unrank

    p = _problem()
    idx = np.array([164, 0, 17, 17])
    first = p.schedules(idx)
    np.testing.assert_array_equal(first, unrank(idx, 12, 4).reshape(-1, 4))
    assert p._cand_table.shape == (165, 4)
    calls = []
    monkeypatch.setattr(P, "unrank", lambda *a: calls.append(a) or unrank(*a))  # a lookup must not unrank
    np.testing.assert_array_equal(p.schedules(idx), first)
    assert calls == []
    assert pickle.loads(pickle.dumps(p))._cand_table is None  # not shipped to workers
    monkeypatch.setattr(P, "TABLE_LIMIT", 100)  # above the limit: unranked per call
    q = _problem()
    q.schedules(idx)
    assert len(calls) == 1 and q._cand_table is None


def test_common_random_numbers_and_seed():
    p = _problem()
    a = p.replicate([0, 5, 9], [0, 1, 2], seed=4)
    b = p.replicate([9, 0], [2, 0], seed=4)  # another order and subset: same values
    assert b[0, 0, 0] == a[2, 2, 0] and b[1, 1, 0] == a[0, 0, 0]
    assert not np.array_equal(a, p.replicate([0, 5, 9], [0, 1, 2], seed=5))


def test_more_vms_for_the_only_loaded_class_clears_faster():
    # only class 1 receives work: the schedule with the most VMs there is best in every replication
    # under common random numbers, and on average with each schedule's own draws
    p = VMPartitionProblem(10, [100.0], [[50, 0, 0]], noise="common")
    F = p.replicate(np.arange(p.n_designs), np.arange(20), seed=0)[:, :, 0]
    S = p.schedules(np.arange(p.n_designs))
    assert (S[F.argmin(axis=0)] == [8, 1, 1]).all()
    p = VMPartitionProblem(10, [100.0], [[50, 0, 0]])
    F = p.replicate(np.arange(p.n_designs), np.arange(400), seed=0)[:, :, 0]
    assert (S[F.mean(axis=1).argmin()] == [8, 1, 1]).all()
    assert not (S[F.argmin(axis=0)] == [8, 1, 1]).all()  # [7, 2, 1] sometimes draws faster tasks


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-50, 200, allow_nan=False), min_size=4, max_size=4))
def test_repair_gives_a_valid_composition(row):
    p = _problem()
    s = p.design(p.repair([row])[0])
    assert (s >= 1).all() and s.sum() == 12


def test_repair_keeps_a_valid_design_and_candidates():
    p = _problem()
    assert p.repair([[3, 3, 3, 3]])[0] == p.index([3, 3, 3, 3])
    q = _problem(candidates=[0, 10, 100])
    assert q.n_designs == 3 and q.repair([[3, 3, 3, 3]])[0] in (0, 1, 2)
    with pytest.raises(InputError, match="candidate"):
        q.index([3, 3, 3, 3])


def test_sample_designs_at_128_vms_without_building_the_space():
    p = VMPartitionProblem(128, [10.0], [[1] * 7])
    assert p.n_designs == 5169379425
    idx = np.sort(p.sample_designs(np.random.default_rng(0), 1000))
    assert len(np.unique(idx)) == 1000 and idx.max() < p.n_designs
    S = p.schedules(idx)
    assert (S.sum(axis=1) == 128).all() and (S >= 1).all()
    assert p.replicate(idx[:50], [0, 1], seed=0).shape == (50, 2, 1)


@pytest.mark.parametrize("method, budget, options", [
    ("exhaustive", None, {"n_reps": 3}),
    ("blind_pick", 600, {"alpha": 0.5, "n_reps": 5}),
    ("oo", 600, {"n_rough": 2, "n_accurate": 10}),
    ("ocba", 1200, {}),
    ("nsga2", 800, {}),
])
def test_every_method_runs_and_returns_valid_schedules(method, budget, options):
    p = _problem()
    r = mopt.solve(p, method, budget=budget, seed=2, **options)
    S = r.evaluations[list(p.parameter_names)].to_numpy()
    assert (S.sum(axis=1) == 12).all() and (S >= 1).all()
    assert r.n_evals <= (budget or 10**9)


def test_elastic_total_has_a_vm_objective():
    p = VMPartitionProblem(9, [50.0], [[20, 20, 20]], elastic=True)
    assert p.n_designs == 84 and p.objectives == ("clear_time", "vms")  # C(9, 3)
    r = mopt.solve(p, "exhaustive", seed=0, n_reps=4)
    assert set(r.front["vms"]) > {3.0}  # the frontier trades VMs for time
    assert (r.evaluations[["theta_1", "theta_2", "theta_3"]].sum(axis=1) <= 9).all()


@pytest.mark.parametrize("kwargs, word", [
    ({"theta": 3}, "'theta'"),
    ({"lengths": [-1.0, 1.0, 1.0]}, "'lengths'"),
    ({"arrivals": [[1, 1, 1, np.inf]] * 3}, "'arrivals'"),
    ({"backlog": [1, 1, 1, -1]}, "'backlog'"),
])
def test_bad_input_is_named(kwargs, word):
    args = {"theta": 12, "lengths": [1.0, 1.0, 1.0], "arrivals": [[1, 1, 1, 1]] * 3}
    args.update(kwargs)
    with pytest.raises(InputError, match=word):
        VMPartitionProblem(**args)
