"""Scenario files: the examples load to the library's own scenarios; bad files name file and key."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mopt import InputError
from mopt.expert import (
    NTDMrProblem,
    TurnaroundModel,
    high_resolution_grid,
    reference_environment,
    wl3_environment,
)
from mopt.scenario import Scenario, load_scenario

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
REFERENCE = EXAMPLES / "reference.toml"
ENV_FIELDS = ("n_tasks", "n_unreliable", "t_ur", "t_r", "c_ur", "c_r", "mr_max", "charging_period_r")


def scenario_file(tmp_path: Path, *replacements: tuple[str, str], text: str | None = None) -> Path:
    """examples/reference.toml with lines replaced (``old`` must occur), written into tmp_path."""
    text = REFERENCE.read_text() if text is None else text
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    return path


def assert_same_environment(a, b):
    for name in ENV_FIELDS:
        assert getattr(a, name) == getattr(b, name), name
        assert type(getattr(a, name)) is type(getattr(b, name)), name
    np.testing.assert_array_equal(a.turnaround.fs_table, b.turnaround.fs_table)
    np.testing.assert_array_equal(a.turnaround.gamma_values, b.turnaround.gamma_values)


def test_reference_example_is_the_library_reference_scenario():
    sc = load_scenario(REFERENCE)
    assert isinstance(sc, Scenario)
    assert_same_environment(sc.env, reference_environment(0.1))
    assert sc.env.c_r == 34 / 3600 and sc.env.c_ur == 1 / 3600  # fraction strings, exactly
    assert (sc.method, sc.n_reps, sc.seed, sc.budget) == ("exhaustive", 10, 1, None)
    assert sc.problem_kwargs == {}  # the paper grid is the problem's default
    assert sc.path == REFERENCE and sc.name == "reference"
    prob, lib = sc.problem(), NTDMrProblem(reference_environment(0.1), n_reps=10, seed=1)
    assert prob.n_designs == lib.n_designs == 289
    for key in ("N", "T", "D", "Mr"):
        np.testing.assert_array_equal(prob.grid[key], lib.grid[key])
    designs = [0, 137, 288]
    np.testing.assert_array_equal(prob.replicate(designs, [0, 1], 7), lib.replicate(designs, [0, 1], 7))


def test_problem_overrides_n_reps_and_seed():
    prob = load_scenario(REFERENCE).problem(n_reps=3, seed=5)
    assert (prob.n_reps, prob.seed) == (3, 5)


def test_wl3_example_is_wl3_on_the_high_resolution_grid():
    sc = load_scenario(EXAMPLES / "wl3.toml")
    env = wl3_environment()
    assert_same_environment(sc.env, env)
    grid = high_resolution_grid(env)
    assert set(sc.problem_kwargs) == {"N", "T", "D", "Mr"}
    for key in grid:
        np.testing.assert_allclose(sc.problem_kwargs[key], grid[key])
    assert len(sc.problem_kwargs["Mr"]) == 10 and sc.problem_kwargs["N"][-1] == math.inf
    assert (sc.n_reps, sc.seed) == (30, 1)


def test_grid_lists_override_and_inf_spellings(tmp_path):
    path = scenario_file(tmp_path, ('preset = "paper"', 'N = [0, 3, "inf", inf]\nT = [0, 1033]\nMr = 0.1'))
    sc = load_scenario(path)
    assert sc.problem_kwargs == {"N": [0, 3, math.inf, math.inf], "T": [0, 1033], "Mr": [0.1]}
    prob = sc.problem()
    assert prob.grid["N"].tolist() == [0, 3, math.inf]
    # 2 finite N x (T, D) pairs with T <= D x 1 Mr  +  the N = inf strategies, one per (T, D)
    assert prob.n_designs == 2 * 10 + 10


def test_optional_keys_default(tmp_path):
    path = scenario_file(tmp_path, ("t_r = 2066 ", "# t_r"), ("sigma = 0.5", ""), ("mr_max = 0.1", ""),
                         ("[grid]", ""), ('preset = "paper"', ""), ("[run]", ""),
                         ('method = "exhaustive"', ""), ("n_reps = 10", ""), ("seed = 1", ""))
    sc = load_scenario(path)
    assert_same_environment(sc.env, reference_environment(0.1))  # t_r = t_ur, sigma 0.5, mr_max 0.1
    assert (sc.method, sc.n_reps, sc.seed, sc.budget) == ("exhaustive", 10, 1, None)


def test_observed_instances(tmp_path):
    rows = ["send_time,turnaround_time,task", "0,1000,1", "10,inf,2", "20,1200,3", "30,,4", "40,1100,5"]
    (tmp_path / "log.csv").write_text("\n".join(rows) + "\n")
    path = scenario_file(
        tmp_path,
        ('kind = "shifted_lognormal"\nmean = 2066\nshift = 1000\nsigma = 0.5\nreliability = 0.827',
         'kind = "instances"\nfile = "log.csv"\ndeadline = 4000\ngroup_size = 2'),
    )
    sc = load_scenario(path)
    expected = TurnaroundModel.from_instances(
        [0, 10, 20, 30, 40], [1000, math.inf, 1200, math.inf, 1100], 4000, group_size=2
    )
    np.testing.assert_array_equal(sc.env.turnaround.fs_table, expected.fs_table)
    np.testing.assert_array_equal(sc.env.turnaround.gamma_values, expected.gamma_values)
    assert sc.env.turnaround.gamma_values[:3].tolist() == [0.5, 0.5, 1.0]
    assert sc.turnaround_kind == "instances"


INSTANCES = ('kind = "shifted_lognormal"\nmean = 2066\nshift = 1000\nsigma = 0.5\nreliability = 0.827',
             'kind = "instances"\nfile = "log.csv"\ndeadline = 4000')


@pytest.mark.parametrize(
    "csv_text, match",
    [
        ("send_time,turnaround_time\n0,1000\n5,soon\n", r"log\.csv, line 3: 'turnaround_time' must be a number, 'inf' or empty; got 'soon'"),
        ("send_time,turnaround_time\n,1000\n", r"log\.csv, line 2: 'send_time' must be a number; got ''"),
        ("send,turnaround_time\n0,1000\n", r"log\.csv: missing column\(s\) \['send_time'\]"),
        ("send_time,turnaround_time\n", r"log\.csv: no instances"),
        (None, r"log\.csv: no such file"),
    ],
)
def test_bad_instances_file(tmp_path, csv_text, match):
    if csv_text is not None:
        (tmp_path / "log.csv").write_text(csv_text)
    path = scenario_file(tmp_path, INSTANCES)
    with pytest.raises(InputError, match=match) as info:
        load_scenario(path)
    assert "scenario.toml: [turnaround]" in str(info.value)


@pytest.mark.parametrize(
    "replacement, error, match",
    [
        (("n_tasks = 150", "n_task = 150"), InputError,
         r"scenario\.toml: \[environment\] unknown key 'n_task'; did you mean 'n_tasks'\?"),
        (("[environment]", "[enviroment]"), InputError,
         r"scenario\.toml: unknown section \[enviroment\]; did you mean \[environment\]\?"),
        (("sigma = 0.5", "sigmaa = 0.5"), InputError, r"\[turnaround\] unknown key 'sigmaa'.*did you mean 'sigma'"),
        (("n_reps = 10", "n_rep = 10"), InputError, r"\[run\] unknown key 'n_rep'; did you mean 'n_reps'"),
        (('preset = "paper"', "M_r = [0.02]"), InputError, r"\[grid\] unknown key 'M_r'; did you mean 'Mr'"),
        (("mean = 2066", "mean = 2066 2066"), InputError, r"scenario\.toml: malformed TOML: .*line 22"),
        (("t_ur = 2066 ", "t_ur = -5 "), InputError, r"scenario\.toml: \[environment\] 't_ur' must be in \(0, inf\); got -5\."),
        (("t_ur = 2066 ", 't_ur = "long" '), TypeError, r"scenario\.toml: \[environment\] 't_ur' must be a number"),
        (("n_tasks = 150", "n_tasks = 150.5"), InputError, r"\[environment\] 'n_tasks' must be an integer"),
        (('c_r = "34/3600"', 'c_r = "34/0"'), InputError, r"\[environment\] 'c_r' fraction must have a non-zero"),
        (('c_r = "34/3600"', 'c_r = "34 cents"'), InputError, r"\[environment\] 'c_r' must be a number or a fraction"),
        (("reliability = 0.827", "reliability = 1.5"), InputError, r"\[turnaround\] 'reliability' must be in \[0, 1\]"),
        (("reliability = 0.827", ""), InputError, r"\[turnaround\] missing key 'reliability'"),
        (('kind = "shifted_lognormal"', 'kind = "lognormal"'), InputError, r"\[turnaround\] 'kind' must be one of .*did you mean 'shifted_lognormal'"),
        (('preset = "paper"', "Mr = [0.02, 0.5]"), InputError, r"scenario\.toml: \[grid\] 'Mr' must be in \[0, mr_max=0\.1\]; got 0\.5\."),
        (('preset = "paper"', 'T = [0, "1033"]'), TypeError, r"scenario\.toml: \[grid\] 'T' must be a number; got '1033'"),
        (('preset = "paper"', 'N = [0, "lots"]'), TypeError, r"\[grid\] 'N' must be an integer >= 0 or math\.inf; got 'lots'"),
        (('preset = "paper"', 'preset = "fine"'), InputError, r"\[grid\] 'preset' must be one of"),
        (('method = "exhaustive"', 'method = "exhaustiv"'), InputError, r"\[run\] 'method' must be one of .*did you mean 'exhaustive'"),
        (("n_reps = 10", "n_reps = 0"), InputError, r"\[run\] 'n_reps' must be an integer >= 1; got 0"),
        (("seed = 1", "seed = -1"), InputError, r"\[run\] 'seed' must be an integer >= 0"),
    ],
)
def test_bad_scenarios_name_file_section_and_key(tmp_path, replacement, error, match):
    path = scenario_file(tmp_path, replacement)
    with pytest.raises(error, match=match):
        load_scenario(path)


def test_missing_section_and_top_level_key(tmp_path):
    with pytest.raises(InputError, match=r"scenario\.toml: missing section \[turnaround\]"):
        load_scenario(scenario_file(tmp_path, text="[environment]\nn_tasks = 1\n"))
    with pytest.raises(InputError, match=r"unknown top-level key 'seed'"):
        load_scenario(scenario_file(tmp_path, text="seed = 1\n" + REFERENCE.read_text()))


def test_missing_or_unreadable_file(tmp_path):
    with pytest.raises(InputError, match=r"nope\.toml: no such scenario file"):
        load_scenario(tmp_path / "nope.toml")
    with pytest.raises(InputError, match="is a directory"):
        load_scenario(tmp_path)


# -- [observed]: online use from a throughput log ----------------------------------------------
ONLINE = EXAMPLES / "online.toml"


def test_online_example_is_the_observed_problem():
    from mopt.expert import ThroughputLog, observe

    sc = load_scenario(ONLINE)
    assert sc.turnaround_kind == "observed"
    tail = observe(ThroughputLog.read_csv(EXAMPLES / "online_log.csv"), 34586, 8264)
    model = tail.turnaround_model(50)
    env = tail.environment(n_unreliable=50, t_r=2066.0, c_ur=1 / 3600, c_r=34 / 3600, mr_max=0.1)
    assert_same_environment(sc.env, env)
    assert sc.env.n_tasks == 500 and sc.env.t_ur == model.mean_success
    assert sc.observed.n_remaining == tail.n_remaining == 49
    np.testing.assert_array_equal(sc.observed.send_times, tail.send_times)
    prob, lib = sc.problem(), NTDMrProblem(env, n_reps=10, seed=1, observed=tail)
    assert prob.observed is sc.observed and prob.n_designs == lib.n_designs
    designs = [0, 100, prob.n_designs - 1]
    np.testing.assert_array_equal(prob.replicate(designs, [0, 1, 2], 7), lib.replicate(designs, [0, 1, 2], 7))


def test_observed_n_tasks_and_t_ur_given(tmp_path):
    text = ONLINE.read_text().replace("[environment]\n", "[environment]\nn_tasks = 500\nt_ur = 2000\n", 1)
    (tmp_path / "online_log.csv").write_text((EXAMPLES / "online_log.csv").read_text())
    sc = load_scenario(scenario_file(tmp_path, text=text))
    assert (sc.env.n_tasks, sc.env.t_ur) == (500, 2000.0)


OBSERVED_LOG = "task,send_time,result_time\n0,0,1000\n1,0,\n2,0,900\n3,900,\n4,1000,\n1,1100,\n"
OBSERVED = "[observed]\nfile = \"log.csv\"\nt_tail = 1200\ndeadline = 1100\ngroup_size = 2\n"


def observed_scenario(tmp_path, log=OBSERVED_LOG, observed=OBSERVED, env_extra="n_unreliable = 3\n"):
    """A small online scenario: five tasks, task 1's first instance timed out and was re-sent."""
    (tmp_path / "log.csv").write_text(log)
    text = (f"[environment]\n{env_extra}t_r = 500\nc_ur = 1\nc_r = 10\nmr_max = 1\n\n{observed}\n"
            "[grid]\nN = [0]\nT = [0]\nD = [1100]\nMr = [1]\n")
    return scenario_file(tmp_path, text=text)


@pytest.mark.parametrize(
    "log, observed, env_extra, match",
    [
        (OBSERVED_LOG, OBSERVED + "\n[turnaround]\nkind = \"shifted_lognormal\"\n", "n_unreliable = 3\n",
         r"scenario\.toml: \[turnaround\] and \[observed\] are alternatives"),
        (OBSERVED_LOG.replace("3,900,", "3,soon,"), OBSERVED, "n_unreliable = 3\n",
         r"scenario\.toml: \[observed\] 'send_time' must be a number at .*log\.csv line 5; got 'soon'"),
        (OBSERVED_LOG, OBSERVED, "n_unreliable = 3\nn_tasks = 150\n",
         r"scenario\.toml: \[environment\] 'n_tasks' = 150 disagrees with the 5 tasks of the \[observed\] log 'log\.csv'"),
        (OBSERVED_LOG, OBSERVED.replace("deadline", "deadlin"), "n_unreliable = 3\n",
         r"scenario\.toml: \[observed\] unknown key 'deadlin'; did you mean 'deadline'\?"),
        (OBSERVED_LOG, OBSERVED.replace("t_tail = 1200\n", ""), "n_unreliable = 3\n",
         r"scenario\.toml: \[observed\] missing key 't_tail'"),
        (OBSERVED_LOG, OBSERVED.replace("log.csv", "nope.csv"), "n_unreliable = 3\n",
         r"scenario\.toml: \[observed\] throughput log '.*nope\.csv' does not exist"),
        ("task,send_time,result_time\n0,0,1\n1,0\n2,0,1,5\n", OBSERVED, "n_unreliable = 3\n",
         r"scenario\.toml: \[observed\] 'file' .*log\.csv: cannot read it \(.*line 4"),
        (OBSERVED_LOG, OBSERVED.replace("1200", "900"), "n_unreliable = 3\n",
         r"\[observed\] 'send_time' must be <= t_tail=900 at .*log\.csv line 6"),
        (OBSERVED_LOG, OBSERVED, "n_unreliable = 1\n",
         r"\[environment\] 'n_unreliable' must be >= the 3 instances running"),
        (OBSERVED_LOG, OBSERVED, "n_unreliable = 3\nt_ur = 1000\nmean = 5\n",
         r"\[environment\] unknown key 'mean'"),
    ],
)
def test_bad_observed_sections(tmp_path, log, observed, env_extra, match):
    with pytest.raises(InputError, match=match):
        load_scenario(observed_scenario(tmp_path, log, observed, env_extra))


def test_small_observed_scenario_loads(tmp_path):
    sc = load_scenario(observed_scenario(tmp_path))
    assert sc.env.n_tasks == 5 and sc.observed.tasks.tolist() == [1, 3, 4]
    assert sc.problem(n_reps=2).n_designs == 1


def test_missing_turnaround_and_observed(tmp_path):
    text = REFERENCE.read_text().split("[turnaround]")[0]
    with pytest.raises(InputError, match=r"missing section \[turnaround\] \(or \[observed\]"):
        load_scenario(scenario_file(tmp_path, text=text))


def test_fs_note_names_the_paper_only_for_the_reference_scenario(tmp_path):
    """The F_s note printed by ``mopt frontier`` says what F_s is for this scenario (issue #36:
    ``wl3.toml``'s run said "for the reference scenario, a stand-in…")."""
    wl3 = load_scenario(EXAMPLES / "wl3.toml")
    [note] = [line for line in wl3.intro(wl3.problem()) if line.startswith("note: F_s")]
    assert "reference scenario" not in note and "Fig. 5" not in note
    assert "this scenario's parametric shifted lognormal (mean 1911 s, from 1484 s, sigma 0.5)" in note
    ref = load_scenario(REFERENCE)
    [note] = [line for line in ref.intro(ref.problem()) if line.startswith("note: F_s")]
    assert "for the reference scenario, a stand-in for the paper's Fig. 5 CDF" in note
    other = load_scenario(scenario_file(tmp_path, ("shift = 1000", "shift = 900")))
    assert not any("reference scenario" in line for line in other.intro(other.problem()))
    online = load_scenario(EXAMPLES / "online.toml")  # an observed log: no F_s note
    assert not any(line.startswith("note: F_s") for line in online.intro(online.problem()))
