"""``family = "koala"`` scenario files: loading, the CLI's frontier, and bad input (exit 2)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from mopt.cli import main
from mopt.core.errors import InputError
from mopt.koala.scenario import KoalaScenario
from mopt.scenario import load_scenario


def write_trace(path, n=500, days=40, seed=0):
    """A synthetic SWF trace: n jobs over `days` days, 1..32 processors."""
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.integers(0, days * 86400, n))
    lines = ["; MaxProcs: 64"]
    for k in range(n):
        runtime = int(rng.integers(1, 1800) if rng.random() < 0.6 else rng.integers(1800, 40000))
        size = int(rng.integers(1, 33))
        lines.append(f"{k + 1} {submit[k]} 0 {runtime} {size} -1 -1 {size} -1 -1 1 {k % 7} 1 -1 1 -1 -1 -1")
    path.write_text("\n".join(lines) + "\n")


SCENARIO = """\
family = "koala"

[trace]
name = "tiny.swf"

[grid]
limits = [10, 60]
set2 = [["C3", "private", "public"], ["private", "public"]]
public_caps = [0, 64]
private_mins = [8]

[replication]
window_days = [5, 10]

[run]
method = "exhaustive"
n_reps = 2
seed = 3
"""


@pytest.fixture
def scenario_file(tmp_path):
    write_trace(tmp_path / "tiny.swf")
    path = tmp_path / "tiny.toml"
    path.write_text(SCENARIO)
    return path


def test_load(scenario_file):
    sc = load_scenario(scenario_file)
    assert isinstance(sc, KoalaScenario) and sc.family == "koala"
    prob = sc.problem()
    assert prob.n_designs == 2 * 2 * 2 * 1 and prob.n_reps == 2 and prob.seed == 3
    assert prob.objectives == ("slowdown_short", "slowdown_long", "public_cost")


def test_cli_frontier(scenario_file, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["frontier", str(scenario_file), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "8 TAGS-sets configurations" in text and "Pareto frontier" in text
    assert (out / "front.csv").exists() and (out / "evaluations.csv").exists()


@pytest.mark.parametrize("old,new,match", [
    ('name = "tiny.swf"', 'name = "tiny.swf"\nfirts = 3', "\\[trace\\] unknown key 'firts'; did you mean 'first'"),
    ("limits = [10, 60]", "limits = [60, -10]", "\\[grid\\] 'limits' must be in"),
    ('set2 = [["C3", "private", "public"], ["private", "public"]]', 'set2 = [["C1", "C2", "C3", "private", "public"]]',
     "'set2' entries must be proper"),
    ("public_caps = [0, 64]", "public_caps = [-16]", "'public_caps' must be in"),
    ("private_mins = [8]", "private_mins = [70]", "'private_mins' must be <= the private maximum 64"),
    ("window_days = [5, 10]", "window_days = [5]", "'window_days' must be a pair"),
    ('name = "tiny.swf"', 'name = "missing.swf"', "MOPT_DATA_DIR|not found"),
])  # fmt: skip
def test_bad_scenarios_exit_2(scenario_file, capsys, old, new, match):
    scenario_file.write_text(SCENARIO.replace(old, new))
    with pytest.raises(InputError, match=match):
        load_scenario(scenario_file)
    assert main(["frontier", str(scenario_file)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mopt: error:")


def test_cli_koala_command(tmp_path, capsys):
    write_trace(tmp_path / "tiny.swf", n=200, days=5)
    out = tmp_path / "table.csv"
    code = main(["koala", "--trace", str(tmp_path / "tiny.swf"), "--policy", "FF", "--policy", "TAGS-sets", "--limits", "30",
                 "--out", str(out)])
    assert code == 0
    text = capsys.readouterr().out
    assert "200 jobs" in text and "TAGS-sets" in text and "offered_load" in text
    assert out.read_text().splitlines()[0].startswith("policy,offered_load,slowdown")
    # every column printed in one format, the units in the headers (issue #36: the table mixed "1",
    # "2.26" and "1.66e+07", and its cost had no unit)
    table = pd.read_csv(out)
    lines = text.splitlines()
    header = lines[1]
    assert "wait [s]" in header and "public_cost [$]" in header
    for (_, row), line in zip(table.iterrows(), lines[2:4], strict=False):
        cells = line.split()
        assert cells[0] == row["policy"] and "e+" not in line
        assert cells[1:] == [f"{row['offered_load']:.3f}", f"{row['slowdown']:.3f}", f"{row['slowdown_short']:.3f}",
                             f"{row['slowdown_long']:.3f}", f"{row['wait']:,.1f}", f"{row['public_cost']:,.2f}",
                             f"{row['utilisation']:.3f}", f"{row['wasted_node_seconds']:,.0f}"]


@pytest.mark.parametrize("argv,match", [
    (["--policy", "TAGS-sets", "--limits", "60,30"], "'limits' must be strictly increasing"),
    (["--policy", "TAGS-sets", "--limits", "30,60", "--set", "C3,private,public", "--set", "C1"],
     "set 3 \\['C1'\\] must be a proper subset"),
    (["--policy", "TAGS-sets", "--set", "C1,C2,C3,private,public"], "must be a proper subset of set 1"),
    (["--policy", "TAGS-chain"], "TAGS-chain with 1 chain"),
    (["--policy", "LIFO"], "'--policy' must be one of"),
])  # fmt: skip
def test_cli_koala_bad_input_exits_2(tmp_path, capsys, argv, match):
    write_trace(tmp_path / "tiny.swf", n=50, days=2)
    assert main(["koala", "--trace", str(tmp_path / "tiny.swf"), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("mopt: error:")
    assert re.search(match, err[0]), err[0]


def test_three_sets_from_the_file(tmp_path):
    """[grid] limits2 and set3 give the three-set space: L1 {10, 60} x L2 {60, 240} leaves the pairs
    (10, 60), (10, 240), (60, 240); set 3 = private+public is a proper subset of C3+private+public
    only (not of itself, the other set 2); caps {0, 64}; set 3's largest site (the 64-VM private
    cloud) holds every job: 3 L pairs x 1 set pair x 2 caps = 6."""
    write_trace(tmp_path / "tiny.swf")
    path = tmp_path / "three.toml"
    path.write_text(SCENARIO.replace('private_mins = [8]\n', 'private_mins = [8]\nlimits2 = [60, 240]\n'
                                     'set3 = [["private", "public"]]\n'))
    problem = load_scenario(path).problem()
    assert problem.parameter_names == ("L1", "set2", "L2", "set3", "public_cap", "private_min")
    assert problem.n_designs == 6
    bad = tmp_path / "bad.toml"
    bad.write_text(SCENARIO.replace('private_mins = [8]\n', 'private_mins = [8]\nset3 = [["public"]]\n'))
    with pytest.raises(InputError, match="'set3' needs 'limits2'"):
        load_scenario(bad)


@pytest.mark.parametrize("env", ["multicluster", "real-world"])
def test_tags_sets_runs_with_the_default_sets_of_every_environment(env, tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 60 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    assert main(["koala", "--trace", str(swf), "--env", env, "--policy", "TAGS-sets", "--quiet"]) == 0, capsys.readouterr().err
