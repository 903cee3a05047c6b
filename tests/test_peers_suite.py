"""experiments/peers_suite.py: the CI slice of "mopt against its peers" (one instance, one budget,
3 macroreplications, every mopt method and every peer) in under 2 minutes, joined into the table,
the verdicts and the curves; and the intervals of the join, by hand."""

from __future__ import annotations

import doctest
import importlib.util
import math
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def _module(name: str):
    if str(EXPERIMENTS) not in sys.path:
        sys.path.insert(0, str(EXPERIMENTS))  # the scripts import _common by path
    spec = importlib.util.spec_from_file_location(f"{name}_experiment", EXPERIMENTS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_intervals_by_hand():
    report = _module("peers_suite_report")
    assert doctest.testmod(report).failed == 0
    mean, lo, hi, n = report.t_interval([0.5, 0.7, float("nan"), 0.9])  # NaN (no choice) left out
    # mean 0.7, sd 0.2, t(0.975, 2) = 4.302653: half-width 0.2 x 4.302653 / sqrt(3) = 0.496827
    assert n == 3 and mean == pytest.approx(0.7) and hi - mean == pytest.approx(0.496827, abs=1e-6)
    assert report.wilson(0, 30)[0] == 0 and report.wilson(0, 30)[2] == pytest.approx(0.113513, abs=1e-6)
    assert all(math.isnan(v) for v in report.wilson(0, 0))


def test_verdict_needs_non_overlapping_intervals():
    report = _module("peers_suite_report")
    table = pd.DataFrame({
        "instance": "x", "budget_pct": 10.0, "method": ["oo", "exhaustive", "random:1", "optuna-tpe:5"],
        "peer": [False, False, True, True], "runs": 30,
        "hv": [0.9, 0.8, 0.7, 0.85], "hv_lo": [0.88, 0.7, 0.6, 0.8], "hv_hi": [0.92, 0.9, 0.8, 0.89],
        "pcs": [0.5, 0.2, 0.1, 0.9], "pcs_lo": [0.33, 0.1, 0.03, 0.74], "pcs_hi": [0.67, 0.39, 0.26, 0.97]})
    (row,) = report.verdicts(table).to_dict("records")
    assert row["best_hv"].startswith("oo ") and row["not_beaten_hv"] == "optuna-tpe:5"  # 0.89 >= 0.88
    assert row["best_pcs"].startswith("oo ") and row["not_beaten_pcs"] == "optuna-tpe:5"
    assert row["peers_above_pcs"] == "optuna-tpe:5" and row["peers_above_hv"] == "none"


@pytest.mark.slow
def test_the_ci_slice_runs_in_under_two_minutes_and_joins(tmp_path):
    pytest.importorskip("optuna")
    suite = _module("peers_suite")
    start = time.perf_counter()
    df = suite.run_piece("expert", "10%", macroreps=3, runs=tmp_path / "runs")
    seconds = time.perf_counter() - start
    assert seconds < 120, f"the CI slice took {seconds:.0f} s"
    methods = [*suite.MOPT_METHODS, *suite.PEERS]
    main = [m for m in methods if m not in ("optuna-tpe:1", "screen", "auto")]  # those two: their own piece
    assert len(suite.PEERS) == 12 and df["method"].unique().tolist() == main == suite.GROUPS["main"]
    assert len(df) == 3 * len(main)
    assert (df["budget"] == 289).all()          # 10 % of 289 strategies x 10 replications
    ok = df[df["status"] == "ok"]
    assert (ok["n_evals"] <= 289).all() and ok["hv_ratio"].between(0, 1).all() and ok["pcs"].isin([0, 1]).all()
    ex = df[df["method"] == "exhaustive"]       # one replication of every strategy
    assert (ex["status"] == "ok").all() and (ex["n_evals"] == 289).all()
    # too small at 10 %: MOCBA and OCBA run on a sample (ours), so nothing is; NSGA-II runs
    assert set(df[df["status"] != "ok"]["method"]) == set()
    assert df["versions"].str.startswith("mopt ").sum() == 3 * (len(suite.MOPT_METHODS) - 2)
    assert df[df["method"] == "optuna-nsga2:5"]["versions"].str.contains("optuna ").all()
    assert {"regret[min makespan]", "regret[min cost]", "regret[min makespan x cost]"} <= set(df.columns)
    # the TPE group is its own piece; then the join
    suite.run_piece("expert", "10%", group="tpe1", macroreps=3, runs=tmp_path / "runs")
    suite.run_piece("expert", "10%", group="screen", macroreps=3, runs=tmp_path / "runs")
    figures = tmp_path / "figures"
    figures.mkdir()
    table = _module("peers_suite_report").write_report(tmp_path / "runs", figures, suite.PRIMARY)
    assert sorted(p.name for p in figures.iterdir()) == ["peers_suite.md", "peers_suite_expert.png"]
    assert len(table) == len(methods) and (table["runs"] == 3).all()
    text = (figures / "peers_suite.md").read_text()
    assert "## Verdict at budgets ≥ 10 %" in text and "optuna-tpe:1" in text
