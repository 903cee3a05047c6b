"""PortfolioProblem: the design space of mixes x beta/alpha, common random numbers, reduction to one
policy, reproducibility in-process, on 2 Dask workers and through a journal; the cloud scenario file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cloud import simulate
from mopt.cloud.portfolio_problem import RATIOS, PortfolioProblem
from mopt.core.errors import InputError
from mopt.core.random import resolve_seed
from mopt.scenario import load_scenario


def jobs_table(n: int = 80, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"submit_time": np.sort(rng.uniform(0, 40_000, n)).round(),
                         "run_time": rng.integers(30, 5000, n), "n_procs": rng.integers(1, 9, n),
                         "req_time": rng.integers(5000, 9000, n), "user_id": rng.integers(1, 4, n)})


@pytest.fixture(scope="module")
def problem():
    return PortfolioProblem(jobs_table(), window=12, n_reps=2, seed=3)


def test_design_space_round_trip(problem):
    assert problem.n_designs == 1023 * 5
    seen = set()
    for i in range(problem.n_designs):
        x = problem.design(i)
        assert problem.index(x) == i and 1 <= x[:10].sum() <= 10
        seen.add(tuple(x))
    assert len(seen) == problem.n_designs
    # mask 1 (ODS+FCFS, code SF) with ratio index 2 (beta/alpha = 1) is design 2;
    # mask 1023 (all ten) with ratio 4 is the last design
    assert problem.decode(problem.design(2)) == {"mix": "SF", "beta_over_alpha": 1.0}
    assert problem.decode(problem.design(problem.n_designs - 1)) == {
        "mix": "SF+SS+GF+GS+EF+ES+WF+WS+XF+XS", "beta_over_alpha": RATIOS[-1]}
    assert problem.repair([[0] * 10 + [9], [0.2] * 5 + [0.9] + [0] * 4 + [0]]).tolist() == [4, 31 * 5]


@pytest.mark.parametrize("x, match", [
    ([0] * 10 + [1], "empty mix"), ([2] + [0] * 9 + [1], "ten 0/1 entries"),
    ([1] + [0] * 9 + [5], "ratio index in \\[0, 4\\]"), ([1, 0], "design vector of 11 integers")])
def test_bad_design_vectors(problem, x, match):
    with pytest.raises(InputError, match=match):
        problem.index(x)


def test_one_policy_mix_is_that_policy_on_the_replications_window(problem):
    # common random numbers: replication r's window does not depend on the design
    entropy = resolve_seed(5)
    window, _ = problem.workload_of(1, entropy)
    assert window.equals(problem.workload_of(1, entropy)[0]) and len(window) == 12
    mask = 1 << 8  # the 9th JSSPP policy: ODX-FCFS-FirstFit (code XF)
    designs = [(mask - 1) * 5 + r for r in range(5)]
    out = problem.replicate(designs, [1], seed=5)
    alone = simulate(window, "ODX-FCFS-FirstFit").summary
    # one policy: nothing to select, so beta/alpha cannot matter and the run is the policy's own
    assert np.allclose(out[:, 0, :], [alone["bsd"], alone["vm_hours"]])


def test_crn_and_reproducibility(problem):
    a = problem.replicate([0, 77, 5114], [0, 1], seed=9)
    assert np.array_equal(a, problem.replicate([5114, 0, 77], [1, 0], seed=9)[[1, 2, 0]][:, ::-1])
    assert not np.array_equal(a, problem.replicate([0, 77, 5114], [0, 1], seed=10))
    assert (a[..., 0] >= 1).all() and (a[..., 1] > 0).all()


@pytest.mark.slow
def test_same_result_on_two_dask_workers_and_through_a_journal(problem, tmp_path):
    from mopt.core.execute import local_cluster

    serial = mopt.solve(problem, "blind_pick", budget=24, seed=4, n_reps=2)
    with local_cluster(2, threads=1) as client:
        dask = mopt.solve(problem, "blind_pick", budget=24, seed=4, n_reps=2, executor=client)
    pd.testing.assert_frame_equal(serial.evaluations, dask.evaluations)
    journal = tmp_path / "run.sqlite"
    first = mopt.solve(problem, "blind_pick", budget=24, seed=4, n_reps=2, journal=journal)
    again = mopt.solve(problem, "blind_pick", budget=24, seed=4, n_reps=2, journal=journal)
    pd.testing.assert_frame_equal(first.evaluations, serial.evaluations)
    pd.testing.assert_frame_equal(again.evaluations, serial.evaluations)


@pytest.mark.parametrize("kwargs, match", [
    ({"window": 0}, r"'window' must be an integer in \[1, 1000000\]"),
    ({"window": 10_000}, "'window' must be at most the trace's 80 jobs"),
    ({"workload": "random"}, "'workload' must be one of trace, synthetic"),
    ({"workload": "synthetic", "patterns": ["Wavy"]}, "'patterns' must be a non-empty list"),
    ({"period": 0}, "'period' must be an integer >= 1"),
    ({"vm_key": "foo"}, "'vm_key' must be one of 'mod', 'binpack'; got 'foo'"),
])
def test_bad_problem_arguments(kwargs, match):
    with pytest.raises(InputError, match=match):
        PortfolioProblem(jobs_table(), **({"window": 10} | kwargs))


def test_synthetic_workload_uses_the_patterns():
    prob = PortfolioProblem(jobs_table(), workload="synthetic", window=30, patterns=["bursty"])
    jobs, _ = prob.workload_of(0, 1)
    # Bursty: 100-job bursts 5 s apart, so 30 jobs arrive every 5 s from 0; runtimes from the trace
    assert jobs["submit_time"].tolist() == list(range(0, 150, 5))
    assert set(jobs["run_time"]) <= set(jobs_table()["run_time"])


def test_cloud_scenario_file(tmp_path, monkeypatch):
    path = tmp_path / "mix.toml"
    path.write_text('family = "cloud"\n[workload]\ntrace = "KTH-SP2"\nwindow = 30\n'
                    '[cloud]\nmax_vms = 128\n[run]\nmethod = "nsga2"\nn_reps = 2\nseed = 5\n')
    calls = []

    def fake_load(name, size_limit=None, **_):
        calls.append((name, size_limit))
        return jobs_table()

    monkeypatch.setattr("mopt.workloads.traces.load_trace", fake_load)
    sc = load_scenario(path)
    assert (sc.family, sc.method, sc.n_reps, sc.seed) == ("cloud", "nsga2", 2, 5)
    prob = sc.problem()
    assert isinstance(prob, PortfolioProblem) and prob.window == 30 and prob.max_vms == 128
    assert calls[0] == ("KTH-SP2", 128)
    path.write_text('family = "cloud"\n[workload]\ntrace = "KTH-SP2"\nwindw = 30\n')
    with pytest.raises(InputError, match=r"\[workload\] unknown key 'windw'; did you mean 'window'"):
        load_scenario(path)
    path.write_text('family = "cloud"\n[workload]\ntrace = "KTH-SP2"\n[cloud]\nperiod = 0\n')
    with pytest.raises(InputError, match=r"\[cloud\] 'period' must be an integer >= 1"):
        load_scenario(path)
    path.write_text('family = "cloud"\n[workload]\ntrace = "KTH-SP2"\n[cloud]\nvm_key = "foo"\n')
    with pytest.raises(InputError, match=r"\[cloud\] 'vm_key' must be one of 'mod', 'binpack'"):
        load_scenario(path)
    path.write_text('family = "cloud"\n[workload]\ntrace = "KTH-SP2"\nwindow = 30\n'
                    '[cloud]\nvm_key = "binpack"\n')
    prob = load_scenario(path).problem()
    assert prob.vm_key == "binpack" and prob._identity()["vm_key"] == "binpack"
    assert "vm_key" not in PortfolioProblem(jobs_table(), window=10)._identity()


def test_the_example_scenario_file_runs_with_mopt_frontier(tmp_path, monkeypatch, capsys):
    # examples/portfolio_mix.toml as the README runs it; its [run] section (method, budget,
    # options) is what is checked, so the trace is a small table and a replication a stand-in
    from pathlib import Path

    from mopt.cli import main

    example = Path(__file__).resolve().parents[2] / "examples" / "portfolio_mix.toml"
    monkeypatch.setattr("mopt.workloads.traces.load_trace", lambda name, size_limit=None, **_: jobs_table(300))

    def stand_in(self, indices, reps, entropy):
        i = np.asarray(indices, dtype=float)[:, None]
        r = np.asarray(reps, dtype=float)[None, :]
        return np.stack([1 + (i % 7) + r / 10, 100 - (i % 7) * (1 + i % 3) + r], axis=-1)

    monkeypatch.setattr(PortfolioProblem, "_replicate", stand_in)
    assert main(["frontier", str(example), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert (tmp_path / "o" / "front.csv").exists()
    assert "Pareto frontier" in capsys.readouterr().out


def test_a_window_no_run_can_use_is_refused():
    from mopt.cloud.portfolio_problem import MAX_WINDOW

    with pytest.raises(InputError, match=r"'window' must be an integer in \[1, 1000000\]; got 100000000"):
        PortfolioProblem(jobs_table(), workload="synthetic", window=100_000_000)
    assert MAX_WINDOW == 1_000_000
