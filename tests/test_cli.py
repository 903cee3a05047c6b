"""The ``mopt`` command, run in-process (and once as the installed console script)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.expert import NTDMrProblem, estimate, reference_environment
from mopt.utility_spec import parse_utility

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REFERENCE = EXAMPLES / "reference.toml"


def chosen_line(stdout: str, label: str) -> list[str]:
    """The cells after ``label`` in the row of the chosen-strategies table."""
    for line in stdout.splitlines():
        if re.match(re.escape(label) + r"\s{2,}\S", line):
            return line[len(label):].split()
    raise AssertionError(f"no row {label!r} in:\n{stdout}")


def assert_one_line_error(capsys, code: int, *fragments: str) -> str:
    out = capsys.readouterr()
    assert code == 2
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith("mopt: error: "), lines[0]
    assert "Traceback" not in out.err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# -- demo --------------------------------------------------------------------------------------
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
    cells = chosen_line(captured.out, "min makespan")
    assert cells[-2:] == [f"{fastest['makespan']:.0f}", f"{fastest['cost']:.3f}"]
    cheapest = direct.front.loc[direct.front["cost"].idxmin()]
    assert chosen_line(captured.out, "min cost")[-2:] == [f"{cheapest['makespan']:.0f}", f"{cheapest['cost']:.3f}"]
    knee = direct.best(mopt.utility.product("makespan", "cost"))
    assert chosen_line(captured.out, "min makespan x cost")[-1] == f"{knee['cost']:.3f}"
    in_budget = direct.front[direct.front["cost"] <= 1.0]
    if len(in_budget):
        row = in_budget.loc[in_budget["makespan"].idxmin()]
        assert chosen_line(captured.out, "budget: cost <= 1, then min makespan")[-1] == f"{row['cost']:.3f}"

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


# -- frontier ----------------------------------------------------------------------------------
def test_frontier_with_workers_is_identical_to_in_process(tmp_path, capsys):
    a, b = tmp_path / "serial", tmp_path / "pool"
    assert main(["frontier", str(REFERENCE), "--out", str(a), "--quiet"]) == 0
    assert main(["frontier", str(REFERENCE), "--out", str(b), "--workers", "2", "--quiet"]) == 0
    for name in ("front.csv", "evaluations.csv"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    meta = json.loads((a / "result.json").read_text())
    assert meta["seed"] == 1 and meta["n_evals"] == 2890 and meta["info"]["scenario"] == str(REFERENCE)
    assert (b / "front.png").is_file()
    out = capsys.readouterr().out
    front = pd.read_csv(a / "front.csv")
    assert f"Pareto frontier: {len(front)} of 289" in out


def test_frontier_options_override_the_scenario(tmp_path, capsys):
    out = tmp_path / "bp"
    args = ["frontier", str(REFERENCE), "--out", str(out), "--method", "blind_pick", "--budget", "200",
            "--seed", "3", "--quiet"]
    assert main(args) == 0
    result = mopt.Result.read_csv(out)
    assert (result.method, result.seed) == ("blind_pick", 3)
    assert result.n_evals <= 200 and len(result.evaluations) == 20  # 200 // 10 replications


@pytest.mark.parametrize("method, options", [("ocba", ["n0=3", "delta=50"]), ("oo", ["s=10"]),
                                             ("mocba", ["n0=2"]), ("nsga2", ["pop_size=20"])])
def test_frontier_with_every_method_and_options(tmp_path, capsys, method, options):
    out = tmp_path / method
    args = ["frontier", str(REFERENCE), "--out", str(out), "--method", method, "--budget", "1500",
            "--seed", "2", "--quiet", *[a for o in options for a in ("--option", o)]]
    assert main(args) == 0
    result = mopt.Result.read_csv(out)
    assert result.method == method and result.n_evals <= 1500
    key, value = options[0].split("=")
    assert result.info[{"pop_size": "pop_size"}.get(key, key)] == int(value)


@pytest.mark.parametrize("args, fragments", [
    (["--method", "ocba", "--option", "n0=1"], ["'n0' must be an integer >= 2; got 1"]),
    (["--method", "oo", "--option", "s=1000"], ["'s' must be <= n_designs=289"]),
    (["--method", "blind_pick", "--option", "alpha=1.5"], ["'alpha' must be in (0, 1]"]),
    (["--method", "ocba", "--option", "n_reps=3"], ["unknown option 'n_reps' for method 'ocba'"]),
    (["--method", "ocba", "--option", "n0"], ["'--option' must look like KEY=VALUE"]),
    (["--method", "annealing"], ["'--method' must be one of", "'annealing'"]),
])
def test_bad_method_options_exit_2(tmp_path, capsys, args, fragments):
    code = main(["frontier", str(REFERENCE), "--out", str(tmp_path / "x"), "--quiet", *args])
    assert_one_line_error(capsys, code, *fragments)
    assert not (tmp_path / "x").exists()


# -- decide ------------------------------------------------------------------------------------
@pytest.fixture
def hand_made_result(tmp_path) -> Path:
    """Four designs (makespan, cost): A (10, 5), B (20, 2), C (40, 0.5), D (30, 3) — D is dominated."""
    ev = pd.DataFrame({
        "design": [0, 1, 2, 3], "name": ["A", "B", "C", "D"],
        "makespan": [10.0, 20.0, 40.0, 30.0], "makespan_se": 0.1,
        "cost": [5.0, 2.0, 0.5, 3.0], "cost_se": 0.01, "n_reps": 10,
    })
    result = mopt.Result("exhaustive", 7, 40, ("makespan", "cost"), ev)
    d = tmp_path / "hand"
    result.to_csv(d)
    return d


@pytest.mark.parametrize(
    "spec, name",
    [
        ("minimize(makespan)", "A"),                               # 10 is the least makespan
        ("minimize(cost)", "C"),                                   # 0.5 is the least cost
        ("product(makespan, cost)", "C"),                          # 50, 40, 20, 90
        ("weighted(makespan=1, cost=10)", "B"),                    # 60, 40, 45, 60
        ("within_budget(cost, 2.5, then=makespan)", "B"),          # B and C fit; B is faster
        ("by_deadline(makespan, 25, then=cost)", "B"),             # A and B in time; B is cheaper
        ("by_deadline('makespan', 1e3, then='cost')", "C"),        # quoted names, exponent
    ],
)
def test_decide_picks_the_hand_checked_row(hand_made_result, capsys, spec, name):
    assert main(["decide", str(hand_made_result), "--utility", spec]) == 0
    out = capsys.readouterr().out
    label = parse_utility(spec).name
    assert chosen_line(out, label)[1] == name


def test_decide_several_utilities_and_none_fits(hand_made_result, capsys):
    specs = ["minimize(makespan)", "within_budget(cost, 0.1, then=makespan)"]
    assert main(["decide", str(hand_made_result), *[x for s in specs for x in ("--utility", s)]]) == 0
    out = capsys.readouterr().out
    assert chosen_line(out, "minimize(makespan)")[:2] == ["0", "A"]
    assert chosen_line(out, "within_budget(cost <= 0.1, then=makespan)")[0] == "-"
    assert "no evaluated design satisfies within_budget(cost <= 0.1, then=makespan)" in out


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("__import__('os')", "'__import__' is not a utility"),
        ("__import__('os').system('true')", "is not a utility"),
        ("minimize(makespan) + 1", "must be a call"),
        ("minimize(open('x'))", "arguments must be objective names or numbers"),
        ("minimize(makespan.real)", "arguments must be objective names or numbers"),
        ("weighted(**{'makespan': 1})", "'**' arguments are not allowed"),
        ("product(makespan)", "missing 1 required positional argument"),
        ("minimize(makespan", "is not a call"),
        ("minimize(speed)", "needs column(s) ['speed']"),
    ],
)
def test_bad_utility_specs(hand_made_result, capsys, spec, fragment):
    code = main(["decide", str(hand_made_result), "--utility", spec])
    assert_one_line_error(capsys, code, fragment)


def test_parse_utility_negative_numbers_and_u():
    assert parse_utility("weighted(makespan=1, cost=-2)").name == "weighted(makespan=1, cost=-2)"
    assert parse_utility("U(alpha=1, beta=0.5)").name.startswith("U(alpha=1, beta=0.5")


# -- errors: one line on stderr, exit code 2 ---------------------------------------------------
def _scenario(tmp_path: Path, old: str, new: str) -> Path:
    text = REFERENCE.read_text()
    assert old in text
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(
    "old, new, fragments",
    [
        ("n_tasks = 150", "n_task = 150", ["bad.toml", "[environment]", "'n_task'", "did you mean 'n_tasks'"]),
        ("mean = 2066", "mean = 2066 2066", ["bad.toml", "malformed TOML", "line 22"]),
        ("t_ur = 2066 ", "t_ur = -2066 ", ["bad.toml", "[environment]", "'t_ur'", "got -2066"]),
        ('preset = "paper"', "Mr = [0.02, 0.3]", ["bad.toml", "[grid]", "'Mr'", "mr_max=0.1", "got 0.3"]),
        ('preset = "paper"', 'T = [0, "half"]', ["bad.toml", "[grid]", "'T'", "'half'"]),
    ],
)
def test_bad_scenario_exits_2_with_one_line(tmp_path, capsys, old, new, fragments):
    code = main(["frontier", str(_scenario(tmp_path, old, new)), "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, *fragments)
    assert not (tmp_path / "o").exists()


def test_frontier_of_an_online_scenario(tmp_path, capsys):
    from mopt.expert import ThroughputLog, observe

    out = tmp_path / "online"
    assert main(["frontier", str(EXAMPLES / "online.toml"), "--out", str(out), "--quiet"]) == 0
    stdout = capsys.readouterr().out
    assert "T_tail = 34586 s with 49 of 500 tasks remaining" in stdout
    front = pd.read_csv(out / "front.csv")
    assert len(front) > 0 and (out / "front.png").is_file()
    # the library's own problem from the same log gives the same frontier
    tail = observe(ThroughputLog.read_csv(EXAMPLES / "online_log.csv"), 34586, 8264)
    env = tail.environment(n_unreliable=50, t_r=2066.0, c_ur=1 / 3600, c_r=34 / 3600, mr_max=0.1)
    direct = mopt.solve(NTDMrProblem(env, observed=tail), "exhaustive", seed=1, n_reps=10)
    np.testing.assert_allclose(front[["makespan", "cost"]], direct.front[["makespan", "cost"]])


ONLINE_LOG = "task,send_time,result_time\n0,0,1000\n1,0,\n2,0,900\n3,900,\n4,1000,\n1,1100,\n"
ONLINE_TOML = ('[environment]\n{env}n_unreliable = 3\nt_r = 500\nc_ur = 1\nc_r = 10\nmr_max = 1\n\n'
               '[observed]\nfile = "log.csv"\nt_tail = 1200\ndeadline = 1100\n{observed}\n'
               '[grid]\nN = [0]\nT = [0]\nD = [1100]\nMr = [1]\n{extra}')


@pytest.mark.parametrize(
    "log, env, observed, extra, fragments",
    [
        (ONLINE_LOG, "", "", '[turnaround]\nkind = "shifted_lognormal"\n',
         ["online.toml", "[turnaround] and [observed] are alternatives"]),
        (ONLINE_LOG.replace("3,900,", "3,900,early"), "", "", "",
         ["online.toml", "[observed]", "'result_time'", "log.csv line 5", "'early'"]),
        (ONLINE_LOG, "n_tasks = 150\n", "", "",
         ["online.toml", "[environment]", "'n_tasks' = 150", "the 5 tasks of the [observed] log 'log.csv'"]),
        (ONLINE_LOG, "", "group = 2\n", "",
         ["online.toml", "[observed]", "unknown key 'group'", "did you mean 'group_size'"]),
    ],
)
def test_bad_online_scenario_exits_2_with_one_line(tmp_path, capsys, log, env, observed, extra, fragments):
    (tmp_path / "log.csv").write_text(log)
    path = tmp_path / "online.toml"
    path.write_text(ONLINE_TOML.format(env=env, observed=observed, extra=extra))
    code = main(["frontier", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, *fragments)
    assert not (tmp_path / "o").exists()


def test_small_online_scenario_runs(tmp_path, capsys):
    (tmp_path / "log.csv").write_text(ONLINE_LOG)
    path = tmp_path / "online.toml"
    path.write_text(ONLINE_TOML.format(env="", observed="", extra="[run]\nn_reps = 2\n"))
    assert main(["frontier", str(path), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert "with 3 of 5 tasks remaining" in capsys.readouterr().out
    assert len(pd.read_csv(tmp_path / "o" / "front.csv")) == 1


def test_missing_inputs_exit_2(tmp_path, capsys):
    code = main(["frontier", str(tmp_path / "none.toml")])
    assert_one_line_error(capsys, code, "none.toml", "no such scenario file")
    code = main(["decide", str(tmp_path / "nodir"), "--utility", "minimize(makespan)"])
    assert_one_line_error(capsys, code, "nodir", "not a mopt result directory")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "evaluations.csv").write_text("design,makespan\n0,1\n")
    (tmp_path / "broken" / "result.json").write_text("{not json")
    code = main(["decide", str(tmp_path / "broken"), "--utility", "minimize(makespan)"])
    assert_one_line_error(capsys, code, "broken", "malformed mopt result")


def test_bad_budget_from_the_scenario_names_the_file(tmp_path, capsys):
    path = _scenario(tmp_path, "seed = 1", "budget = 7")
    code = main(["frontier", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, "bad.toml", "[run]", "'budget'", "got 7")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frontier"],
        ["demo", "--workers", "0"],
        ["demo", "--seed", "minus-one"],
        ["decide"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    """Issue 14 finding 10: a usage error is one line naming the command, as the README promises."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mopt: error: ") and err.count("\n") == 1, err
    assert "usage:" not in err and "Traceback" not in err
    if argv and argv[0] in ("frontier", "demo", "decide"):
        assert err.startswith(f"mopt: error: {argv[0]}: "), err


def test_method_flag_is_checked(capsys):
    code = main(["frontier", str(REFERENCE), "--method", "nsga", "--quiet"])
    assert_one_line_error(capsys, code, "'--method' must be one of", "'nsga'")


def test_installed_console_script_exits_2_without_traceback(tmp_path):
    script = Path(sys.executable).with_name("mopt")
    exe = str(script) if script.exists() else shutil.which("mopt")
    assert exe, "the 'mopt' console script is not installed (pip install -e .)"
    proc = subprocess.run([exe, "decide", str(tmp_path / "missing"), "--utility", "minimize(makespan)"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"mopt: error: '{tmp_path / 'missing'}' is not a mopt result directory: evaluations.csv is missing."
    ]


# -- compare -----------------------------------------------------------------------------------
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
    assert list(rows.columns) == list(COLUMNS)
    assert len(rows) == 3 * 2 * 2
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
    assert sorted(p.name for p in out.iterdir()) == ["compare.csv", "progress.png", "summary.csv"]
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


# -- journal, Dask, progress, CSV on stdout ------------------------------------------------------
def test_journal_resumes_and_refuses_another_seed(tmp_path, capsys):
    journal = tmp_path / "run.sqlite"
    argv = ["frontier", str(REFERENCE), "--method", "ocba", "--budget", "1500", "--quiet", "--journal", str(journal)]
    assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert main([*argv, "--out", str(tmp_path / "b")]) == 0
    for name in ("front.csv", "evaluations.csv"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    info = json.loads((tmp_path / "b" / "result.json").read_text())["info"]["journal"]
    assert (info["reused"], info["simulated"]) == (1500, 0)
    capsys.readouterr()
    code = main([*argv, "--out", str(tmp_path / "c"), "--seed", "2"])
    assert_one_line_error(capsys, code, "run.sqlite", "seed 1, not 2")
    assert not (tmp_path / "c").exists()


def test_journal_of_another_scenario_is_refused(tmp_path, capsys):
    journal = tmp_path / "run.sqlite"
    assert main(["demo", "--out", str(tmp_path / "d"), "--quiet", "--journal", str(journal)]) == 0
    other = tmp_path / "other.toml"
    text = REFERENCE.read_text()
    assert "mr_max = 0.1" in text
    other.write_text(text.replace("mr_max = 0.1", "mr_max = 0.2"))
    capsys.readouterr()
    code = main(["frontier", str(other), "--out", str(tmp_path / "o"), "--quiet", "--journal", str(journal)])
    assert_one_line_error(capsys, code, "run.sqlite", "another problem")


def test_scheduler_address_runs_on_that_cluster(tmp_path, capsys):
    from mopt.core.execute import local_cluster

    with local_cluster(1) as client:
        address = client.scheduler.address
        assert main(["frontier", str(REFERENCE), "--out", str(tmp_path / "dask"), "--quiet",
                     "--scheduler", address]) == 0
    assert main(["frontier", str(REFERENCE), "--out", str(tmp_path / "local"), "--quiet"]) == 0
    for name in ("front.csv", "evaluations.csv"):
        assert (tmp_path / "dask" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()


@pytest.mark.parametrize("extra,fragment", [
    (["--scheduler", "no-port-here"], "'--scheduler'"),
    (["--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"], "'--scheduler'"),
])
def test_bad_scheduler_is_one_line_error(tmp_path, capsys, extra, fragment):
    code = main(["frontier", str(REFERENCE), "--out", str(tmp_path / "o"), "--quiet", *extra])
    assert_one_line_error(capsys, code, fragment)


def test_out_dash_writes_the_front_as_csv_on_stdout(tmp_path, capsys):
    assert main(["frontier", str(REFERENCE), "--out", "-"]) == 0
    captured = capsys.readouterr()
    assert main(["frontier", str(REFERENCE), "--out", str(tmp_path / "files"), "--quiet"]) == 0
    assert captured.out.encode() == (tmp_path / "files" / "front.csv").read_bytes()  # nothing else
    assert "/2890" in captured.err and "Pareto frontier" in captured.err  # progress, messages
    assert not Path("-").exists()


def test_quiet_silences_the_progress_bar(tmp_path, capsys):
    assert main(["frontier", str(REFERENCE), "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# -- traces ------------------------------------------------------------------------------------
GOOD_RECORD = "1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1"


def test_traces_describe_counts_the_real_kth_trace(capsys):
    import os

    if not os.path.isfile(os.path.join(os.environ.get("MOPT_DATA_DIR", ""), "KTH-SP2-1996-2.1-cln.swf.gz")):
        pytest.skip("MOPT_DATA_DIR does not hold KTH-SP2")
    assert main(["traces", "describe", "KTH-SP2-1996-2.1-cln.swf.gz"]) == 0
    out = capsys.readouterr().out
    assert ": 28476 job records" in out and "MaxProcs: 100" in out
    assert "after cleaning (run time > 0, 1 .. MaxProcs processors): 28467 jobs" in out
    assert main(["traces", "list"]) == 0
    assert "KTH-SP2-1996-2.1-cln.swf.gz" in capsys.readouterr().out


def test_traces_describe_a_bad_record_names_file_and_line(tmp_path, capsys):
    from conftest import count_bad_input, fuzz
    from hypothesis import given
    from hypothesis import strategies as st

    bad_tokens = st.sampled_from(["abc", "nan", "inf", "1e999", "1,5", "--3", "0x10", "\u00e9", "7e"])

    @fuzz(60)
    @given(n_good=st.integers(0, 5), field=st.integers(0, 17), token=bad_tokens, drop=st.booleans())
    def check(n_good, field, token, drop):
        fields = GOOD_RECORD.split()
        if drop:
            del fields[field]
        else:
            fields[field] = token
        path = tmp_path / "trace.swf"
        path.write_text("; MaxProcs: 4\n" + f"{GOOD_RECORD}\n" * n_good + " ".join(fields) + "\n", encoding="utf-8")
        capsys.readouterr()
        code = main(["traces", "describe", str(path)])
        assert_one_line_error(capsys, code, "trace.swf", f"line {n_good + 2}")
        count_bad_input("cli")

    check()


def test_an_unexpected_error_is_one_line_with_exit_1(tmp_path, capsys, monkeypatch):
    """A bug (here: a KeyError raised inside the search) gives one line and exit code 1."""
    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(mopt, "solve", broken)
    code = main(["demo", "--out", str(tmp_path / "d"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines() == ["mopt: error: KeyError: 'boom' (MOPT_DEBUG=1 shows the traceback)"]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), ConnectionResetError("lost"),
                                   TimeoutError("scheduler gone")])
def test_failures_that_are_not_bad_input_exit_1(tmp_path, capsys, monkeypatch, error):
    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(mopt, "solve", broken)
    code = main(["demo", "--out", str(tmp_path / "d"), "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("mopt: error: ")


def test_version_and_the_installed_families_in_help(capsys):
    import mopt

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mopt {mopt.__version__}"
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for name in ("expert", "vmc", "cloud", "koala"):
        assert f"\n  {name} " in text


def test_demo_prints_the_F_s_note_once(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo"), "--quiet"]) == 0
    assert capsys.readouterr().out.count("F_s is a stand-in") == 1


def test_trace_names_go_through_one_resolver(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    assert main(["traces", "list"]) == 2
    assert "MOPT_DATA_DIR is not set; set it to the folder" in capsys.readouterr().err
    assert main(["koala", "/dev/zero", "--quiet"]) == 2
    assert "'/dev/zero' is not a regular file" in capsys.readouterr().err
    # offline (nothing listens on port 9): one line saying where to put the file
    monkeypatch.setenv("MOPT_TRACE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("MOPT_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["traces", "fetch", "KTH-SP2"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot download trace KTH-SP2 (no network): put KTH-SP2-1996-2.1-cln.swf.gz in " \
                              "MOPT_DATA_DIR" in err[0], err


def test_archive_names_and_file_names_work_in_every_trace_command(capsys):
    from conftest import paper_trace

    paper_trace("KTH-SP2")  # skips without the traces
    assert main(["traces", "describe", "KTH-SP2"]) == 0
    assert "28476 job records" in capsys.readouterr().out
    assert main(["traces", "fetch", "kth-sp2"]) == 0  # already there: nothing downloaded
    assert "already in MOPT_DATA_DIR" in capsys.readouterr().out
    assert main(["koala", "SDSC-SP2", "--first", "500", "--policy", "FF", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("SDSC-SP2: ")


@pytest.mark.parametrize("argv, message", [
    (["vmc", "--vms", "16,,32"], "a comma-separated list of cluster sizes has an empty element"),
    (["vmc", "--vms", "128", "--sample-size", "1000000000"], "'--sample-size' must be an integer in [1, 10000000]"),
    (["koala", "TRACE", "--chains", "3"], "'--chains' applies to '--env multicluster' only"),
    (["koala", "TRACE", "--policy", "TAGS-sets", "--limits", "1e308"], "'--limits' must be minutes in (0, 525,600]"),
])
def test_option_messages_name_the_option(argv, message, tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 60 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    argv = [str(swf) if a == "TRACE" else a for a in argv]
    assert main([*argv, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("env", ["multicluster", "real-world"])
def test_tags_sets_runs_with_the_default_sets_of_every_environment(env, tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 60 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert main(["koala", str(swf), "--env", env, "--policy", "TAGS-sets", "--quiet"]) == 0, capsys.readouterr().err


def test_out_of_memory_hints_name_the_commands_own_options(monkeypatch, capsys, tmp_path):
    import mopt.vmc.commands as vmc_commands

    def no_memory(args):
        raise MemoryError()

    monkeypatch.setattr(vmc_commands, "run", no_memory)
    assert main(["vmc", "--out", str(tmp_path / "o")]) == 2
    assert "ask for fewer or smaller clusters (--vms) or a smaller --sample-size" in capsys.readouterr().err
