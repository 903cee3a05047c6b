"""mopt.peers: other libraries' searches on k-replication means, as methods of mopt.compare.

The Optuna peers need the optional extra ``peers``; CI installs ``.[test]`` only, so their tests
skip there (``pytest.importorskip("optuna")``)."""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest

import mopt
import mopt.peers
from mopt import InputError
from mopt.compare import TOO_SMALL, compare
from mopt.peers import run_peer
from tests.known_means import MEANS

OPTUNA = {"optuna-tpe", "optuna-nsga2"}


def _needs(peer: str) -> None:
    if peer in OPTUNA:
        pytest.importorskip("optuna")


@pytest.fixture
def prob():
    """20 bi-objective designs with known means, noisy."""
    means = np.random.default_rng(7).uniform(1, 10, (20, 2))
    return mopt.NormalProblem(means, sd=1.0)


def test_doctests():
    assert doctest.testmod(mopt.peers, optionflags=doctest.ELLIPSIS).failed == 0


@pytest.mark.parametrize("k", [1, 3])
@pytest.mark.parametrize("peer", list(mopt.peers.PEERS))
def test_a_peer_spends_at_most_its_budget_on_the_problems_designs(prob, peer, k):
    _needs(peer)
    budget = 131  # not a multiple of 3: the last 2 replications cannot make an evaluation
    res = run_peer(prob, f"{peer}:{k}", budget=budget, seed=5)
    ev = res.evaluations
    assert res.method == f"{peer}:{k}" and res.info["k"] == k
    assert res.n_evals <= budget and res.n_evals % k == 0
    assert ev["n_reps"].sum() == res.n_evals and (ev["n_reps"] % k == 0).all()
    assert ev["design"].between(0, prob.n_designs - 1).all() and ev["design"].is_unique
    # each design's mean is over replications 0 .. n_reps - 1 of the run's seed (common random numbers)
    for row in ev.itertuples():
        reps = prob.replicate([row.design], np.arange(row.n_reps), res.seed)[0]
        np.testing.assert_allclose([row.f1, row.f2], reps.mean(axis=0))
    assert set(res.info.get("selected", ev["design"])) <= set(ev["design"])
    assert mopt.peers.PEERS[peer] in res.info["versions"]


def test_random_1_with_a_budget_of_every_design_evaluates_each_once(prob):
    res = run_peer(prob, "random:1", budget=prob.n_designs, seed=2)
    assert sorted(res.evaluations["design"]) == list(range(prob.n_designs))
    assert (res.evaluations["n_reps"] == 1).all() and res.n_evals == prob.n_designs
    more = run_peer(prob, "random:2", budget=10 * prob.n_designs, seed=2)  # without replacement
    assert (more.evaluations["n_reps"] == 2).all() and more.n_evals == 2 * prob.n_designs


def test_pymoo_re_evaluates_a_design_with_new_replications():
    """pymoo's default operators propose floats; two that round to one design are two evaluations."""
    prob = mopt.NormalProblem(np.random.default_rng(1).uniform(1, 10, (6, 2)), sd=1.0)
    res = run_peer(prob, "pymoo-nsga2:2", budget=600, seed=3)
    assert res.n_evals == 600 and len(res.evaluations) <= 6
    assert res.evaluations["n_reps"].max() > 2  # evaluated again: 2 more replications each time


@pytest.mark.parametrize("peer", list(mopt.peers.PEERS))
def test_same_seed_same_result(prob, peer):
    _needs(peer)
    a, b = (run_peer(prob, f"{peer}:2", budget=120, seed=11) for _ in range(2))
    assert a == b
    assert run_peer(prob, f"{peer}:2", budget=120, seed=12) != a


def test_compare_scores_the_peers_against_the_truth():
    # deterministic known means (tests/known_means.py): designs 0-5 efficient, 5 the best product
    prob = mopt.NormalProblem(MEANS, sd=0.0)
    methods = ["exhaustive", "random:1", "random:4", "pymoo-nsga2:1"]
    df = compare(prob, methods, [8, 200], 2, seed=1, truth=MEANS)
    assert list(df["method"].unique()) == methods
    assert (df["status"] == "ok").all() and (df["n_evals"] <= df["budget"]).all()
    every = df[(df["method"] == "random:1")]  # 8 designs, budget >= 8: each seen once, exact means
    assert every["n_evals"].tolist() == [8, 8, 8, 8]
    assert (every[["pcs", "hv_ratio"]] == 1).all().all() and (every[["type1", "type2", "regret"]] == 0).all().all()
    four = df[(df["method"] == "random:4") & (df["budget"] == 8)]  # 2 designs of 8
    assert four["n_evals"].tolist() == [8, 8]
    assert set(df.attrs["versions"]) == {"random:1", "random:4", "pymoo-nsga2:1"}
    assert df.attrs["versions"]["pymoo-nsga2:1"]["pymoo"]
    again = compare(prob, methods, [8, 200], 2, seed=1, truth=MEANS)
    assert again.equals(df)


def test_compare_with_optuna_peers(prob):
    pytest.importorskip("optuna")
    df = compare(prob, ["optuna-tpe:2", "optuna-nsga2:2"], [40], 2, seed=3, truth=prob.means)
    assert (df["n_evals"] == 40).all() and df["hv_ratio"].between(0, 1).all()
    assert df.attrs["versions"]["optuna-tpe:2"]["optuna"]


def test_a_budget_below_k_is_too_small(prob):
    df = compare(prob, ["random:10"], [5, 10], 1, seed=1, truth=prob.means)
    assert df["status"].tolist() == [TOO_SMALL, "ok"] and df["n_evals"].tolist() == [0, 10]


@pytest.mark.parametrize(
    "method, fragment",
    [
        ("random", "as <peer>:<k>"),
        ("random:0", "k an integer in [1, 1000]"),
        ("random:1001", "got 'random:1001'"),
        ("pymoo-nsga2:two", "got 'pymoo-nsga2:two'"),
        ("nsga3:5", "or peers <peer>:<k>"),
    ],
)
def test_bad_peer_names_are_refused(prob, method, fragment):
    with pytest.raises(InputError, match="'methods'") as info:
        compare(prob, [method], [10], 1, seed=1, truth=prob.means)
    assert fragment in str(info.value)


def test_peers_take_no_options(prob):
    with pytest.raises(InputError, match="peers take no options"):
        compare(prob, ["random:1"], [10], 1, seed=1, truth=prob.means, options={"random:1": {"n0": 2}})


def test_optuna_missing_names_the_extra(prob, monkeypatch):
    monkeypatch.setitem(sys.modules, "optuna", None)  # import optuna fails
    with pytest.raises(InputError, match=r'pip install "mopt\[peers\]"'):
        compare(prob, ["optuna-tpe:5"], [10], 1, seed=1, truth=prob.means)


def test_the_cli_refuses_a_bad_peer(tmp_path, capsys):
    from mopt.cli import main
    from tests.helpers import REFERENCE, assert_one_line_error

    code = main(["compare", str(REFERENCE), "--methods", "random:0", "--budgets", "10%", "--macroreps", "1",
                 "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, "'--methods'", "random:0")


def test_the_cli_runs_peers_and_records_their_versions(tmp_path, capsys):
    import pandas as pd

    from mopt.cli import main
    from tests.helpers import REFERENCE

    out = tmp_path / "o"
    argv = ["compare", str(REFERENCE), "--methods", "blind_pick,random:2", "--budgets", "10%", "--macroreps", "1",
            "--truth-reps", "2", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    assert "peers random:2 run numpy " in capsys.readouterr().out
    df = pd.read_csv(out / "compare.csv")
    assert df["method"].tolist() == ["blind_pick", "random:2"]
    assert (df["n_evals"] <= df["budget"]).all() and df.loc[1, "n_evals"] % 2 == 0
