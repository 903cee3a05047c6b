"""experiments/vmc_scenarios.py on a tiny grid (issue #23 item 5's CI slice): one size, one workload,
2 seeds, a small sample and a short horizon, in two pieces (one per seed) that the report joins, and
a σ/μ = 0.5 piece and a stale-information piece reported as sensitivity tables; the tables' rows,
columns and signs are checked against the runs. The real grid takes CPU-hours (figures/README.md)."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pytest

_PATH = Path(__file__).resolve().parents[2] / "experiments" / "vmc_scenarios.py"
TINY = ["--name", "tiny", "--sizes", "16", "--workloads", "HFHD", "--sample-size", "200", "--periods", "2",
        "--seeds", "1", "--seed-step", "1"]


def _experiment(figures: Path):
    spec = importlib.util.spec_from_file_location("vmc_scenarios_experiment", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.FIGURES = figures
    return module


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    out = tmp_path_factory.mktemp("figures")
    module = _experiment(out)
    for first in (1, 2):  # two pieces, joined by the report
        assert module.main([*TINY, "--first-seed", str(first), "--runs", str(out / f"tiny_runs_{first}.csv"),
                            "--no-figures"]) == 0
    assert module.main([*TINY, "--first-seed", "1", "--seeds", "2", "--cv", "0.5", "--scenarios", "2",
                        "--methods", "ioo,eoo,eoo_ocba", "--runs", str(out / "tiny_runs_cv05.csv"),
                        "--no-figures"]) == 0
    assert module.main([*TINY, "--first-seed", "1", "--seeds", "2", "--information", "stale", "--scenarios", "2",
                        "--methods", "ioo,eoo", "--runs", str(out / "tiny_runs_stale.csv"), "--no-figures"]) == 0
    assert module.main(["--name", "tiny", "--sizes", "16", "--sample-size", "200", "--report-only",
                        "--no-figures"]) == 0
    runs = pd.concat([pd.read_csv(p) for p in sorted(out.glob("tiny_runs_*.csv"))], ignore_index=True)
    return out, runs, (out / "tiny_scenarios.md").read_text()


@pytest.mark.slow
def test_runs_record_their_configuration(tiny):
    _, runs, _ = tiny
    main = runs[(runs.cv == 0.25) & (runs.information == "lookahead")]
    assert set(main.seed) == {1, 2} and set(main.noise) == {"independent"} and set(main.information) == {"lookahead"}
    assert set(main[main.scenario == 1].method) == {"exhaustive", "blind_pick", "ioo"}
    assert set(main[main.scenario == 2].method) == {"exhaustive", "blind_pick", "ioo", "eoo", "eoo_ocba"}
    # the shortened horizon is recorded on Scenario 2's rows only
    assert (main[main.scenario == 2].periods == 2).all() and main[main.scenario == 1].periods.isna().all()
    assert set(runs[runs.cv == 0.5].method) == {"ioo", "eoo", "eoo_ocba"}
    assert set(runs[runs.information == "stale"].method) == {"ioo", "eoo"}


@pytest.mark.slow
def test_tables_are_the_paired_differences_of_the_runs_in_the_papers_signs(tiny):
    out, runs, _ = tiny
    main = runs[(runs.cv == 0.25) & (runs.information == "lookahead")].set_index(["scenario", "method", "seed"])
    for table, scen, ref, column, gain, methods in (
            ("table2", 1, "ioo", "throughput", False, {"exhaustive", "blind_pick"}),
            ("table3", 2, "eoo", "throughput", False, {"exhaustive", "blind_pick", "ioo", "eoo_ocba"}),
            ("table4", 2, "eoo_ocba", "makespan", True, {"exhaustive", "blind_pick", "ioo", "eoo"})):
        t = pd.read_csv(out / f"tiny_{table}.csv")
        assert list(t.columns) == ["method", "theta", "workload", "mean", "hw", "n"]
        assert set(t.method) == methods and set(t.theta) == {16} and set(t.workload) == {"HFHD"}
        assert (t.n == 2).all()
        for _, r in t.iterrows():
            x = [main.loc[(scen, r["method"], s), column] for s in (1, 2)]
            y = [main.loc[(scen, ref, s), column] for s in (1, 2)]
            rel = [(a - b) / (a if gain else b) * 100 for a, b in zip(x, y, strict=True)]
            assert r["mean"] == pytest.approx(sum(rel) / 2)


@pytest.mark.slow
def test_report_puts_the_papers_numbers_and_the_sign_agreement_beside_each_cell(tiny):
    out, _, text = tiny
    t3 = pd.read_csv(out / "tiny_table3.csv").set_index("method")
    mc = t3.loc["exhaustive"]
    # Table 3 at 16 VMs, HFHD: the paper's MC is −7.12 (worse than eOO)
    line = next(x for x in text.splitlines() if x.startswith("| 16 | MC |") and "paper -7.12" in x)
    cell = line.split("|")[-2]
    assert f"{mc['mean']:+.2f} ± {mc['hw']:.2f} (n=2) [paper -7.12]" in cell
    if abs(mc["mean"]) < 1e-9:
        word = "tie"
    else:
        word = "agrees" if mc["mean"] < 0 else "opposite"
    assert re.search(rf"\[paper -7.12\] {word}", cell)
    assert "Must-holds per cell" in text and "| 16 | HFHD |" in text
    # the σ/μ = 0.5 piece is a sensitivity table; the two not run say how to run them
    assert "## Sensitivity: noise=independent, σ/μ=0.5, information=lookahead (6 rows)" in text
    assert "Not run (`--noise common` runs it)" in text and "Not run (`--information stale` runs it)" not in text


@pytest.mark.slow
def test_a_search_only_change_is_also_set_against_the_main_runs_seed_by_seed(tiny):
    # information="stale" leaves the truth as it is: each method's cost is its paired throughput change
    # (two seeds: the half-width is t(0.975, 1) · |x1 − x2| / 2)
    _, runs, text = tiny
    t = runs[(runs.scenario == 2) & (runs.cv == 0.25)].set_index(["information", "method", "seed"])["throughput"]
    lines = text.split("### information=stale against the main runs, Scenario 2")[1].splitlines()
    for method, label in (("ioo", "OO/iOO"), ("eoo", "eOO")):
        rel = [(t[("stale", method, s)] - t[("lookahead", method, s)]) / t[("lookahead", method, s)] * 100
               for s in (1, 2)]
        row = next(x for x in lines if x.startswith(f"| 16 | {label} |"))
        assert row.split("|")[-2].strip() == f"{sum(rel) / 2:+.2f} ± {abs(rel[0] - rel[1]) / 2 * 12.7062047:.2f} (n=2)"


def test_bad_options_give_one_clear_error(capsys, tmp_path):
    module = _experiment(tmp_path)
    for argv, word in ((["--noise", "foo"], "--noise"), (["--information", "x"], "--information"),
                       (["--cv", "-1"], "--cv")):
        with pytest.raises(SystemExit):
            module.main([*argv, "--report-only"])
        assert word in capsys.readouterr().err
