"""``mopt frontier``: runs, options and scenario overrides, online scenarios, journals, Dask, the
progress bar, the front as CSV on stdout; bad scenarios and options end in one line and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.expert import NTDMrProblem
from tests.helpers import EXAMPLES, REFERENCE, assert_one_line_error


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
    assert f"Pareto frontier: {len(front)} of " in out and "289 evaluated strategies" in out


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


def test_frontier_auto_says_what_it_chose(tmp_path, capsys):
    out = tmp_path / "auto"
    assert main(["frontier", str(REFERENCE), "--out", str(out), "--method", "auto", "--budget", "150"]) == 0
    said = capsys.readouterr().out
    assert "auto chose screen: 2 objectives, 0.519 replications per design: one replication on as many " \
           "designs as the budget allows." in said
    result = mopt.Result.read_csv(out)
    assert result.method == "auto" and result.info["auto"]["method"] == "screen" and result.n_evals <= 150
    assert result.info["looks"] >= 120  # ceil(0.8 x 150) first looks


@pytest.mark.parametrize("args, fragments", [
    (["--method", "ocba", "--option", "n0=1"], ["'n0' must be an integer >= 2; got 1"]),
    (["--method", "oo", "--option", "s=1000"], ["'s' must be <= n_designs=289"]),
    (["--method", "blind_pick", "--option", "alpha=1.5"], ["'alpha' must be in (0, 1]"]),
    (["--method", "ocba", "--option", "n_reps=3"], ["unknown option 'n_reps' for method 'ocba'"]),
    (["--method", "screen", "--option", "breadth=2"], ["'breadth' must be in (0, 1]"]),
    (["--method", "ocba", "--option", "n0"], ["'--option' must look like KEY=VALUE"]),
    # a word or a fraction where an integer is needed: named as the bounds are, before any simulation
    (["--method", "ocba", "--option", "n0=abc"], ["'n0' must be an integer; got 'abc'"]),
    (["--method", "ocba", "--option", "delta=1.5"], ["'delta' must be an integer; got 1.5."]),
    (["--method", "mocba", "--option", "n0=2.5"], ["'n0' must be an integer; got 2.5."]),
    (["--method", "oo", "--option", "n_rough=abc"], ["'n_rough' must be an integer; got 'abc'"]),
    (["--method", "nsga2", "--option", "n_reps0=1.5"], ["'n_reps0' must be an integer; got 1.5."]),
    (["--method", "exhaustive", "--option", "n_reps=x"], ["'n_reps' must be an integer; got 'x'"]),
    (["--method", "annealing"], ["'--method' must be one of", "'annealing'"]),
])
def test_bad_method_options_exit_2(tmp_path, capsys, args, fragments):
    code = main(["frontier", str(REFERENCE), "--out", str(tmp_path / "x"), "--quiet", *args])
    assert_one_line_error(capsys, code, *fragments)
    assert not (tmp_path / "x").exists()


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


def test_bad_budget_from_the_scenario_names_the_file(tmp_path, capsys):
    path = _scenario(tmp_path, "seed = 1", "budget = 7")
    code = main(["frontier", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, "bad.toml", "[run]", "'budget'", "got 7")


def test_method_flag_is_checked(capsys):
    code = main(["frontier", str(REFERENCE), "--method", "nsga", "--quiet"])
    assert_one_line_error(capsys, code, "'--method' must be one of", "'nsga'")


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


def test_frontier_prints_each_objective_with_its_standard_error(tmp_path, capsys):
    """The front table and the chosen table show ``mean ± se`` (issue #36): the README stresses the
    standard errors, and the printout showed the means alone."""
    out = tmp_path / "bp"
    assert main(["frontier", str(REFERENCE), "--out", str(out), "--method", "blind_pick", "--budget", "200",
                 "--quiet"]) == 0
    said = capsys.readouterr().out
    assert "objectives: mean ± standard error of the mean" in said
    front = pd.read_csv(out / "front.csv")
    for _, row in front.iterrows():  # makespan "{:.0f}", cost "{:.3f}" (the expert family's formats)
        assert f"{row['makespan']:.0f} ± {row['makespan_se']:.0f}" in said
        assert f"{row['cost']:.3f} ± {row['cost_se']:.3f}" in said
    chosen = said.split("Chosen strategies")[1]
    best = front.loc[front["makespan"].idxmin()]
    assert f"{best['makespan']:.0f} ± {best['makespan_se']:.0f}" in chosen.splitlines()[2]
