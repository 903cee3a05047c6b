"""``mopt compare``: tidy rows, the summary and the figure; bad arguments end in one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mopt.cli import main
from tests.helpers import REFERENCE, assert_one_line_error


# -- errors: one line on stderr, exit code 2 ---------------------------------------------------
def _scenario(tmp_path: Path, old: str, new: str) -> Path:
    text = REFERENCE.read_text()
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1))
    return path


def test_compare_writes_tidy_rows_summary_and_figure(tmp_path, capsys):
    from mopt.compare import COLUMNS, compare
    from mopt.scenario import load_scenario

    out = tmp_path / "cmp"
    argv = ["compare", str(REFERENCE), "--methods", "exhaustive,blind_pick,ocba", "--budgets", "10%,2890",
            "--macroreps", "2", "--truth-reps", "20", "--seed", "5", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    rows = pd.read_csv(out / "compare.csv")
    # ExPERT's default utilities (the generic ones): min makespan, min cost, their product
    labels = ["min makespan", "min cost", "min makespan x cost"]
    assert list(rows.columns) == [*COLUMNS, *(f"{s}[{u}]" for u in labels for s in ("pcs", "regret"))]
    assert len(rows) == 3 * 2 * 2
    assert rows["versions"].str.fullmatch(r"mopt \d+\.\d+\.\d+.*").all()
    # the product is also compare's default utility: the same regret and correct selection
    np.testing.assert_array_equal(rows["regret[min makespan x cost]"], rows["regret"])
    np.testing.assert_array_equal(rows["pcs[min makespan x cost]"], rows["pcs"])
    # exhaustive at 10 reps of every strategy (2890): its choice of the cheapest has no regret
    # beyond noise in the ground truth's order; regrets are never negative
    assert (rows[rows["status"] == "ok"][[f"regret[{u}]" for u in labels]] >= 0).all().all()
    assert sorted(rows["budget"].unique()) == [289, 2890]              # 10% of 289 x 10
    # OCBA needs n0 replications of all 289 designs: at 289 it cannot run, and says so
    small = rows[(rows["method"] == "ocba") & (rows["budget"] == 289)]
    assert (small["status"] == "budget too small").all() and small["pcs"].isna().all()
    assert "budget too small: ocba cannot run with 289 replications" in captured.out
    ok = rows[rows["status"] == "ok"]
    assert ok["pcs"].isin([0.0, 1.0]).all() and ((ok["hv_ratio"] > 0) & (ok["hv_ratio"] <= 1 + 1e-9)).all()
    assert (ok["regret"] >= 0).all() and (ok["n_evals"] <= ok["budget"]).all()
    # the same macroreplication seed for every method and budget
    assert rows.groupby("macrorep")["seed"].nunique().tolist() == [1, 1]

    # the file holds the library's own comparison of the scenario's problem
    problem = load_scenario(REFERENCE).problem(seed=5)
    direct = compare(problem, ["exhaustive", "blind_pick", "ocba"], ["10%", 2890], 2, seed=5, truth_reps=20)
    for column in ("seed", "n_evals", "pcs", "regret", "hv_ratio", "n_false", "n_missed"):
        np.testing.assert_allclose(rows[column].to_numpy(dtype=float), direct[column].to_numpy(dtype=float),
                                   rtol=1e-12, err_msg=column)

    summary = pd.read_csv(out / "summary.csv")
    assert summary[["method", "budget"]].values.tolist() == [
        ["exhaustive", 289], ["exhaustive", 2890], ["blind_pick", 289], ["blind_pick", 2890],
        ["ocba", 289], ["ocba", 2890]]
    ex = summary.set_index(["method", "budget"]).loc[("exhaustive", 2890)]
    assert ex["runs"] == 2 and ex["pcs"] == rows[(rows["method"] == "exhaustive") & (rows["budget"] == 2890)]["pcs"].mean()
    assert (out / "progress.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == ["compare.csv", "manifest.json", "progress.png", "report.html",
                                                       "summary.csv", "truth.csv"]  # truth.csv: for mopt report
    assert "utility: product(makespan, cost)" in captured.out
    assert "ground truth: exhaustive search with 20 replications per strategy" in captured.out
    assert f"wrote {out / 'compare.csv'}" in captured.out


def test_compare_with_a_utility_on_a_small_scenario(tmp_path, capsys):
    path = _scenario(tmp_path, 'preset = "paper"', "N = [0, 1]\nT = [0, 2066]\nD = [2066, 4132]\nMr = [0.02, 0.1]")
    out = tmp_path / "small"
    argv = ["compare", str(path), "--methods", "blind_pick,exhaustive", "--budgets", "50%", "--macroreps", "3",
            "--truth-reps", "10", "--utility", "minimize(makespan)", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    rows = pd.read_csv(out / "compare.csv")
    assert rows["method"].tolist() == ["blind_pick"] * 3 + ["exhaustive"] * 3
    assert "utility: minimize(makespan)" in capsys.readouterr().out
    again = tmp_path / "again"
    assert main(argv[:-3] + ["--out", str(again), "--quiet"]) == 0                  # deterministic
    assert (out / "compare.csv").read_bytes() == (again / "compare.csv").read_bytes()


@pytest.mark.parametrize(
    "change, fragments",
    [
        (["--methods", "exhaustive,nope"], ["'--methods'", "'nope'"]),
        (["--methods", ""], ["'--methods'"]),
        (["--budgets", "0"], ["'--budgets'", "got '0'"]),
        (["--budgets", "10%,x%"], ["'--budgets'", "got 'x%'"]),
        (["--budgets", "10%,,20%"], ["'--budgets'", "got ''"]),
        (["--budgets=-5%"], ["'--budgets'", "got '-5%'"]),
        (["--macroreps", "0"], ["'--macroreps'", "got 0"]),
        (["--macroreps", "two"], ["'--macroreps'", "got 'two'"]),
        (["--truth-reps", "0"], ["'--truth-reps'", "got 0"]),
        (["--utility", "minimize(speed)"], ["speed"]),
        (["--utility", "__import__('os')"], ["is not a utility"]),
        (["--methods", "ocba", "--option", "ocba.n0=1"], ["'n0' must be an integer >= 2; got 1"]),
        (["--option", "ocba.n0=3"], ["options for method 'ocba', which is not in"]),
        (["--option", "n0=1"], ["'--option' must look like METHOD.KEY=VALUE"]),
    ],
)
def test_compare_bad_input_exits_2_with_one_line(tmp_path, capsys, change, fragments):
    out = tmp_path / "o"
    argv = ["compare", str(REFERENCE), "--methods", "exhaustive", "--budgets", "10%", "--macroreps", "1",
            "--truth-reps", "2", *change, "--out", str(out), "--quiet"]  # the last of a repeated option wins
    code = main(argv)
    assert_one_line_error(capsys, code, *fragments)
    assert not out.exists()


def test_compare_requires_methods_budgets_and_macroreps(capsys):
    assert main(["compare", str(REFERENCE), "--methods", "exhaustive", "--budgets", "10%"]) == 2
    err = capsys.readouterr().err
    assert "--macroreps" in err and "Traceback" not in err
