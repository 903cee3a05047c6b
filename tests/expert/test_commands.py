"""ExPERT's commands: ``mopt demo`` writes its outputs and chooses from the frontier."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.expert import NTDMrProblem, estimate, reference_environment
from tests.helpers import chosen_line


def test_demo_writes_outputs_and_chooses_from_the_frontier(tmp_path, capsys):
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    # the progress bar (replications done / budget) goes to stderr, never into stdout
    assert "exhaustive" in captured.err and "/2890" in captured.err and "rep" in captured.err
    assert "rep/s" not in captured.out and "\r" not in captured.out
    for name in ("front.csv", "evaluations.csv", "result.json", "statics.csv", "front.png"):
        assert (out / name).is_file(), name
    assert (out / "front.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "stand-in" in captured.out and "Fig. 5" in captured.out

    # the saved result is the library's own exhaustive search with seed 1
    saved = mopt.Result.read_csv(out)
    direct = mopt.solve(NTDMrProblem(reference_environment(0.1)), "exhaustive", seed=1, n_reps=10)
    assert (saved.method, saved.seed, saved.n_evals) == ("exhaustive", 1, 289 * 10)
    np.testing.assert_allclose(saved.front[["makespan", "cost"]], direct.front[["makespan", "cost"]])

    fastest = direct.front.loc[direct.front["makespan"].idxmin()]
    cells = chosen_line(captured.out, "min makespan")  # ... makespan, cost, p_best, runner_up
    assert cells[-4:-2] == [f"{fastest['makespan']:.0f}", f"{fastest['cost']:.3f}"]
    assert 0 <= float(cells[-2]) <= 1
    # the front and the chosen rows show each objective's standard error beside its mean (issue #36)
    assert "objectives: mean ± standard error of the mean" in captured.out
    shown = f"{fastest['makespan']:.0f} ± {fastest['makespan_se']:.0f}"
    assert captured.out.count(shown) >= 2 and f"{fastest['cost']:.3f} ± {fastest['cost_se']:.3f}" in captured.out
    cheapest = direct.front.loc[direct.front["cost"].idxmin()]
    assert chosen_line(captured.out, "min cost")[-4:-2] == [f"{cheapest['makespan']:.0f}", f"{cheapest['cost']:.3f}"]
    knee = direct.best(mopt.utility.product("makespan", "cost"))
    assert chosen_line(captured.out, "min makespan x cost")[-3] == f"{knee['cost']:.3f}"
    in_budget = direct.front[direct.front["cost"] <= 1.0]
    if len(in_budget):
        row = in_budget.loc[in_budget["makespan"].idxmin()]
        assert chosen_line(captured.out, "budget: cost <= 1, then min makespan")[-3] == f"{row['cost']:.3f}"

    statics = pd.read_csv(out / "statics.csv")
    assert statics["name"].tolist() == ["AR", "TRR", "TR", "AUR", "B", "CN_inf", "CN1T0"]
    aur = estimate(reference_environment(0.1), "AUR", 10, 1)[["makespan", "cost"]].mean()
    row = statics.set_index("name").loc["AUR"]
    assert row["makespan"] == pytest.approx(aur["makespan"]) and row["cost"] == pytest.approx(aur["cost"])
    f = direct.front
    for _, s in statics.iterrows():
        dominated = bool(((f["makespan"] <= s["makespan"]) & (f["cost"] <= s["cost"])
                          & ((f["makespan"] < s["makespan"]) | (f["cost"] < s["cost"]))).any())
        assert bool(s["dominated_by_frontier"]) == dominated, s["name"]
    assert f"wrote {out / 'front.csv'}" in captured.out


def test_demo_prints_the_F_s_note_once(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo"), "--quiet"]) == 0
    assert capsys.readouterr().out.count("F_s is a stand-in") == 1
