"""Multi-period scheduling (Scenarios 1 and 2) through mopt.solve."""

from __future__ import annotations

import numpy as np
import pytest

import mopt
from mopt.core.errors import InputError
from mopt.vmc.multiperiod_problem import VMMultiPeriodProblem, ioo_overhead
from mopt.vmc.problem import VMPartitionProblem
from mopt.vmc.workload import generate

FAST = {"n_accurate": 40, "n_rough": 4, "s": 3}  # small N so that the tests stay fast


def _mp(scenario, kind="HFHD", theta=9, horizon=1200.0, **kw):
    w = generate(kind, theta, horizon, 200.0, seed=4)
    kw = {"base_period": 200.0, "split_threshold": 0.9, "merge_threshold": 0.6, "seed": 4,
          "overhead_per_rep": 0.01, **kw}
    return VMMultiPeriodProblem(w, theta, scenario=scenario, horizon=horizon, **kw), w


def test_ioo_overhead_is_the_specs_base_period():
    # (27,132 * 10 + 30 * 1,000) * 3 ms = 903.96 s; Monte Carlo 27,132 * 1,000 * 3 ms = 81,396 s
    assert ioo_overhead(27132) == pytest.approx(903.96)
    assert ioo_overhead(5005) == pytest.approx(240.15)


@pytest.mark.parametrize("method", ["exhaustive", "blind_pick", "ioo", "eoo"])
def test_scenario1_finishes_every_task_and_reports_each_stage(method):
    mp, w = _mp(1)
    r = mopt.solve(mp, method, seed=2, **FAST)
    st = r.stages
    # work is conserved: every task that arrived is finished by the end of the drain
    assert st["finished"].sum() == pytest.approx(w.batches.sum(), rel=1e-9)
    assert st["stage"].iloc[-1] == "drain"
    S = st[[f"theta_{c}" for c in range(1, 8)]].to_numpy()
    assert (S.sum(axis=1) == 9).all() and (S >= 1).all()
    assert r.throughput == pytest.approx(st["finished"].sum() / st["busy_time"].sum())
    if method != "eoo":
        assert len(st) == len(mp.base_grid())  # base periods + drain


def test_same_seed_same_run_and_mc_is_the_exhaustive_choice():
    mp, _ = _mp(1)
    a = mopt.solve(mp, "exhaustive", seed=3, **FAST)
    b = mopt.solve(mp, "exhaustive", seed=3, **FAST)
    assert a.stages.equals(b.stages)
    # the first stage's schedule is the one exhaustive search picks on the first stage's problem
    grid = mp.base_grid()
    prob = mp.stage_problem(grid[0], grid[1], mp.initial_state(), 0)
    assert prob.n_designs == 28  # C(8, 6): 9 VMs over 7 classes
    assert a.stages["n_evals"].iloc[0] == 28 * FAST["n_accurate"]


def test_scenario2_stage_length_is_the_search_overhead():
    mp, w = _mp(2, overhead_per_rep=0.5)
    for method in ("exhaustive", "ioo"):
        st = mopt.solve(mp, method, seed=1, **FAST).stages
        body = st[st["stage"] != "drain"]
        width = (body["end"] - body["start"]).to_numpy()
        assert np.allclose(width, width[0])
        # stage k >= 1 runs the design searched during stage k-1, which took exactly one stage
        assert np.allclose(body["overhead"].to_numpy()[1:], width[0])
        assert body["overhead"].iloc[0] == 0  # the initial schedule, the same for every method
        assert st["finished"].sum() == pytest.approx(w.batches.sum(), rel=1e-9)
    mc = mopt.solve(mp, "exhaustive", seed=1, **FAST).stages
    io = mopt.solve(mp, "ioo", seed=1, **FAST).stages
    assert mc[[f"theta_{c}" for c in range(1, 8)]].iloc[0].tolist() == \
        io[[f"theta_{c}" for c in range(1, 8)]].iloc[0].tolist()
    # MC: 28 designs x 40 reps x 0.5 s = 560 s per stage; iOO: (28 x 4 + 3 x 36) x 0.5 = 110 s
    assert (mc["end"] - mc["start"]).iloc[0] == pytest.approx(560.0)
    assert (io["end"] - io["start"]).iloc[0] == pytest.approx(110.0)


def test_eoo_budget_is_the_previous_stage_width():
    mp, _ = _mp(2, overhead_per_rep=0.2)
    for method in ("eoo", "eoo_ocba"):
        st = mopt.solve(mp, method, seed=1, **FAST).stages
        body = st[st["stage"] != "drain"]
        width = (body["end"] - body["start"]).to_numpy()
        spent = body["n_evals"].to_numpy()
        assert (spent[1:] <= np.floor(width[:-1] / 0.2 + 1e-9)).all()
        # stage 0 is the initial schedule (iOO's first stage, see below); then the adaptive stages
        assert set(np.round(width[1:] / 200.0, 9)) <= {0.5, 1.0, 1.5, 2.0}


@pytest.mark.parametrize("method", ["eoo", "eoo_ocba"])
def test_scenario2_initial_schedule_runs_as_long_for_eoo_as_for_ioo(method):
    # merge_threshold 0 merges every pair of stages with batches: eOO's first adaptive stage is 2t,
    # over which the random initial schedule used to run (iOO's runs one stage of its own)
    mp, w = _mp(2, overhead_per_rep=0.2, merge_threshold=0.0)
    assert np.diff(mp.adaptive_grid())[0] == pytest.approx(400.0)  # 2t from the start
    io = mopt.solve(mp, "ioo", seed=1, **FAST).stages
    eo = mopt.solve(mp, method, seed=1, **FAST).stages
    # iOO's stage on 28 designs: (28 x 4 rough + 3 x (40 - 4) more) x 0.2 s = 220 x 0.2 = 44 s
    assert io["end"].iloc[0] == pytest.approx(44.0)
    # the same initial stage for both: same span, schedule, work and busy time, no search charged
    first = ["start", "end", *[f"theta_{c}" for c in range(1, 8)], "finished", "busy_time", "overhead"]
    assert eo[first].iloc[0].tolist() == io[first].iloc[0].tolist()
    # eOO's adaptive stages begin at 44 s, base periods of t = 200 s merged: 44, 444, 844, 1244
    assert eo["start"].iloc[1] == pytest.approx(44.0)
    assert eo[eo["stage"] != "drain"]["end"].iloc[-1] == pytest.approx(1244.0)
    # stage 1 was searched during the initial stage with its width / O = 220 replications: eOO's
    # plan on 28 designs spends n = 4 on all and 36 more on s = (220 - 112) // 36 = 3, as iOO does
    assert eo["n_evals"].iloc[1] == io["n_evals"].iloc[1] == 220
    assert eo["finished"].sum() == pytest.approx(w.batches.sum(), rel=1e-9)


def test_huge_space_is_sampled_the_same_for_every_method():
    mp, _ = _mp(1, theta=128, horizon=600.0, sample_size=50)
    p1 = mp.stage_problem(0.0, 200.0, mp.initial_state(), 0)
    p2 = mp.stage_problem(0.0, 100.0, mp.initial_state(), 0)
    assert p1.n_designs == 50 and np.array_equal(p1.candidates, p2.candidates)
    r = mopt.solve(mp, "ioo", seed=1, n_accurate=10, n_rough=2, s=3)
    assert r.throughput > 0


def test_errors():
    mp, _ = _mp(1)
    with pytest.raises(InputError, match="budget"):
        mopt.solve(mp, "ioo", budget=10)
    with pytest.raises(InputError, match="method"):
        mopt.solve(mp, "nsga2")
    # on one period, eoo is a stage's search: iOO, its s and N shrunk to fit a small budget
    r = mopt.solve(VMPartitionProblem(8, [10.0], [[3, 1]]), "eoo", budget=50, seed=1)
    assert r.n_evals <= 50
    with pytest.raises(InputError, match="scenario"):
        _mp(3)
    with pytest.raises(InputError, match="overhead_per_rep"):
        _mp(1, overhead_per_rep=0)
    with pytest.raises(InputError, match="split_threshold"):
        _mp(1, split_threshold=1.2)


def test_eoo_stage_plan_selection_set_is_what_the_time_left_pays_for():
    from types import SimpleNamespace

    from mopt.solvers.evolutionary_oo import DEFAULTS, _stage_plan

    prob, o = SimpleNamespace(n_designs=200), dict(DEFAULTS)
    # iOO's budget on 200 designs: 200 x 10 rough + 30 x (1,000 - 10) more = 31,700 replications
    assert _stage_plan(prob, o, 31_700) == (10, 1000, 30, 200)
    # a merged stage of 2t: the 31,700 extra pay 31,700 // 990 = 32 more selected designs (paper
    # §III.B: the selection set is determined by the time left after the rough pass)
    assert _stage_plan(prob, o, 63_400) == (10, 1000, 62, 200)
    # a split stage of t/2 (15,850): the rough pass still orders all 200 designs (the paper's
    # rough model orders all of U) and s = (15,850 - 2,000) // 990 = 13
    assert _stage_plan(prob, o, 15_850) == (10, 1000, 13, 200)
    # the specification's K = 27,132 at t/2 = 150,510: n = (150,510 - 1,000) // 27,132 = 5 rough
    # replications, s = (150,510 - 135,660) // 995 = 14
    assert _stage_plan(SimpleNamespace(n_designs=27132), o, 150_510) == (5, 1000, 14, 27132)
    # too small for n = 1 and N = 1,000: one rough replication each, N = 600 - 200 = 400, s = 1
    assert _stage_plan(prob, o, 600) == (1, 400, 1, 200)
    # too small to order every design once: N = 25, a sample of 50 - 25 + 1 = 26 (26 + 24 = 50)
    assert _stage_plan(prob, o, 50) == (1, 25, 1, 26)


def test_serial_and_parallel_combine_kernels_agree():
    from mopt.vmc import engine

    rng = np.random.default_rng(5)
    cet, tail = rng.random((3, 4, 6, 9)), rng.random((3, 4, 9))
    S = rng.integers(0, 4, (50, 3))
    # out[s, r] = sum_j max_c cet[c, S[s, c], j, r] + max_c tail[c, S[s, c], r], by numpy
    c = np.arange(3)
    want = cet[c, S].max(axis=1).sum(axis=1) + tail[c, S].max(axis=1)
    assert np.allclose(engine._combine_serial(S, cet, tail), want, rtol=1e-12)
    assert np.allclose(engine._combine(S, cet, tail), want, rtol=1e-12)


def test_multiperiod_result_round_trips_and_refuses_a_bad_directory(tmp_path):
    from mopt.core.multiperiod import MultiPeriodResult

    mp, _ = _mp(1)
    r = mopt.solve(mp, "ioo", seed=2, **FAST)
    assert r.n_evals == int(r.stages["n_evals"].sum()) > 0
    frame = r.to_frame()
    assert frame[["method", "seed", "scenario"]].iloc[0].tolist() == ["ioo", r.seed, 1]
    back = MultiPeriodResult.read_csv(r.to_csv(tmp_path / "run"))
    assert back == r and back.throughput == r.throughput
    assert back != mopt.solve(mp, "exhaustive", seed=2, **FAST)
    (tmp_path / "run" / "stages.csv").unlink()
    with pytest.raises(InputError, match="stages.csv is missing"):
        MultiPeriodResult.read_csv(tmp_path / "run")
    with pytest.raises(InputError, match="journal"):
        mopt.solve(mp, "ioo", journal=tmp_path / "j.sqlite")


def test_stale_information_searches_what_is_known_when_the_search_starts():
    from unittest import mock

    from mopt.solvers import evolutionary_oo

    mp, w = _mp(2, information="stale", overhead_per_rep=0.2)
    calls = []
    real = evolutionary_oo._search

    def spy(mp_, method, o, start, end, state, budget, seed, kw, seen=None):
        calls.append((start, seen))
        return real(mp_, method, o, start, end, state, budget, seed, kw, seen=seen)

    with mock.patch.object(evolutionary_oo, "_search", spy):
        r = mopt.solve(mp, "ioo", seed=1, **FAST)
    st = r.stages[r.stages["stage"] != "drain"]
    # the search for stage k+1 runs during stage k, [a, b): it knows the arrivals before a only
    assert [s for _, s in calls] == st["start"].tolist()[: len(calls)]
    assert [b for b, _ in calls] == st["end"].tolist()[: len(calls)]
    assert r.stages["finished"].sum() == pytest.approx(w.batches.sum(), rel=1e-9)
    # the replay: the base period before a, its times and batches scaled to the target's width
    L, A = mp.replayed(400.0, 450.0, 550.0)
    keep = (w.times >= 200.0) & (w.times < 400.0)
    assert L.sum() == pytest.approx(100.0) and A.sum() == pytest.approx(w.batches[keep].sum() / 2)
    # look-ahead (the default) and stale pick differently on this workload
    look = mopt.solve(_mp(2, overhead_per_rep=0.2)[0], "ioo", seed=1, **FAST)
    assert mp.information == "stale" and _mp(2)[0].information == "lookahead"
    assert not look.stages.equals(r.stages)


def test_bad_information_is_refused_by_name():
    with pytest.raises(InputError, match=r"'information' must be one of \['lookahead', 'stale'\]; got 'x'"):
        _mp(2, information="x")
