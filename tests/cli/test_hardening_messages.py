"""Issue 34, item 5: a scenario names only files beside it (or in MOPT_DATA_DIR), never quotes a
file that is not a trace or log, and every bad value ends in one line naming the file, the section
and the key (or the option), exit 2 — before anything is simulated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import mopt
from mopt.cli import main
from mopt.scenario import load_scenario
from tests.helpers import assert_one_line_error, no_simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SECRET = "root:x:0:0:SECRET-FIRST-LINE:/root:/bin/bash"


def run(*argv) -> int:
    with no_simulation():
        return main([str(a) for a in argv])


@pytest.fixture
def place(tmp_path):
    """A scenario directory (with the online example's log) inside ``tmp_path``, and a secret file
    outside it (``tmp_path/outside/secret``)."""
    home = tmp_path / "runs" / "mine"
    home.mkdir(parents=True)
    shutil.copy(EXAMPLES / "online_log.csv", home)
    (tmp_path / "outside").mkdir()
    secret = tmp_path / "outside" / "secret"
    secret.write_text(SECRET + "\nsecond,line,with,commas\n" * 30)
    return home, secret


def scenario(home: Path, example: str, old: str, new: str, name: str = "s.toml") -> Path:
    text = (EXAMPLES / example).read_text()
    assert old in text, old
    path = home / name
    path.write_text(text.replace(old, new, 1))
    return path


def _escapes(secret: Path, home: Path) -> list[str]:
    dots = "../" * len(home.parts) + str(secret).lstrip("/")  # up to / and down again
    return [str(secret), dots, "../../outside/secret"]


ONLINE = ('file = "online_log.csv"', "observed", "file")


@pytest.mark.parametrize("which", [0, 1, 2])
def test_an_observed_log_outside_the_scenario_directory_is_refused_unquoted(place, capsys, which, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    home, secret = place
    target = _escapes(secret, home)[which]
    path = scenario(home, "online.toml", ONLINE[0], f"file = {json.dumps(target)}")
    line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                 str(path), "[observed] 'file'", "leaves the scenario's directory")
    assert "SECRET" not in line and "root:" not in line
    assert not (home / "out").exists()


@pytest.mark.parametrize("example, old, section, key", [
    ("koala_tags_sets.toml", 'name = "KTH-SP2"', "trace", "name"),
    ("portfolio_mix.toml", 'trace = "KTH-SP2"', "workload", "trace"),
])
def test_a_trace_outside_the_scenario_directory_is_refused(place, capsys, example, old, section, key, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    home, secret = place
    for target in _escapes(secret, home):
        path = scenario(home, example, old, f"{key} = {json.dumps(target)}")
        line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                     str(path), f"[{section}] '{key}'", "leaves the scenario's directory")
        assert "SECRET" not in line


def test_a_vmc_profile_and_a_turnaround_file_outside_are_refused(place, capsys, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    home, secret = place
    path = home / "vmc.toml"
    text = (EXAMPLES / "vmc_partition.toml").read_text()
    path.write_text(text.replace("[clusters]", f"[clusters]\nprofile = {json.dumps(str(secret))}", 1))
    line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                 str(path), "[clusters] 'profile'", "leaves the scenario's directory")
    assert "SECRET" not in line
    path = home / "inst.toml"
    path.write_text("[environment]\nn_tasks = 100\nn_unreliable = 50\nt_ur = 2066\nc_ur = 0.001\nc_r = 0.01\n"
                    f"[turnaround]\nkind = \"instances\"\nfile = {json.dumps(str(secret))}\ndeadline = 8264\n")
    line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                 str(path), "[turnaround] 'file'", "leaves the scenario's directory")
    assert "SECRET" not in line


def test_a_file_beside_the_scenario_that_is_not_a_log_is_not_quoted(place, capsys):
    home, secret = place
    shutil.copy(secret, home / "notes.csv")
    path = scenario(home, "online.toml", ONLINE[0], 'file = "notes.csv"')
    line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                 str(path), "[observed] 'file'", "not a throughput log")
    assert "SECRET" not in line and "root:" not in line
    path = home / "inst.toml"
    path.write_text("[environment]\nn_tasks = 100\nn_unreliable = 50\nt_ur = 2066\nc_ur = 0.001\nc_r = 0.01\n"
                    "[turnaround]\nkind = \"instances\"\nfile = \"notes.csv\"\ndeadline = 8264\n")
    line = assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"),
                                 str(path), "[turnaround] 'file'", "not a CSV of observed instances")
    assert "SECRET" not in line and "root:" not in line


def test_files_in_mopt_data_dir_may_be_named_by_any_path(place, monkeypatch):
    """The user's say-so (MOPT_DATA_DIR, outside the scenario file) allows an absolute or '..' path."""
    home, secret = place
    data = secret.parent
    shutil.copy(home / "online_log.csv", data / "log.csv")
    monkeypatch.setenv("MOPT_DATA_DIR", str(data))
    for target in (str(data / "log.csv"), "../../outside/log.csv"):
        path = scenario(home, "online.toml", ONLINE[0], f"file = {json.dumps(target)}")
        assert load_scenario(path).observed.n_tasks == 500
    path = scenario(home, "online.toml", ONLINE[0], 'file = "online_log.csv"')  # beside it, as before
    assert load_scenario(path).observed.n_tasks == 500


@pytest.mark.parametrize("old, new, section, key", [
    ("mr_max = 0.1", "mr_max = 1e308", "environment", "'mr_max'"),
    ("mr_max = 0.1", "mr_max = inf", "environment", "'mr_max'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { n0 = nan }\n', "run", "'options.n0'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { n0 = inf }\n', "run", "'options.n0'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { n0 = { a = 1 } }\n', "run", "'options.n0'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { delta = [1, { a = 1 }] }\n', "run",
     "'options.delta'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { n0 = "abc" }\n', "run", "'options.n0'"),
    ('method = "exhaustive"\n', 'method = "ocba"\noptions = { sample = 0 }\n', "run", "'options.sample'"),
])
def test_each_bad_scenario_value_is_one_line_naming_file_section_and_key(place, capsys, old, new, section, key):
    home, _ = place
    path = scenario(home, "online.toml", old, new)
    assert_one_line_error(capsys, run("frontier", path, "--out", home / "out"), str(path), f"[{section}] {key}")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_a_bad_option_on_the_command_line_names_the_option(place, capsys, value):
    home, _ = place
    path = scenario(home, "online.toml", 'method = "exhaustive"', 'method = "ocba"')
    assert_one_line_error(capsys, run("frontier", path, "--option", f"n0={value}", "--out", home / "out"),
                          "'--option n0'", repr(value))


@pytest.fixture(scope="module")
def result_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("result") / "res"
    problem = mopt.NormalProblem([[1.0, 3.0], [2.0, 2.0], [3.0, 1.0], [3.5, 3.5]], sd=0.5)
    mopt.solve(problem, "exhaustive", seed=1, n_reps=10).to_csv(d)
    return d


@pytest.mark.parametrize("key, value", [("level", "abc"), ("level", 5), ("uncertain", ["x"]),
                                        ("uncertain", "3"), ("p_correct_selection", "high"), ("resamples", -1)])
def test_bad_uncertainty_in_result_json_is_one_line_naming_file_and_key(result_dir, tmp_path, capsys, key, value):
    d = tmp_path / "res"
    shutil.copytree(result_dir, d)
    meta = json.loads((d / "result.json").read_text())
    meta["info"]["uncertainty"][key] = value
    (d / "result.json").write_text(json.dumps(meta))
    assert_one_line_error(capsys, run("report", d, "--out", tmp_path / "r.html"),
                          "result.json", f"'info.uncertainty.{key}'")
    with pytest.raises(mopt.InputError, match=rf"result\.json.*info\.uncertainty\.{key}"):
        mopt.Result.read_csv(d)


def test_report_copies_only_a_scenario_file_of_the_results_family(result_dir, tmp_path, capsys, place):
    """A stranger's result.json naming any file as its scenario: mopt report copies it into the page
    only if it is a scenario of the result's family (never /etc/passwd, a key file, another TOML)."""
    home, secret = place
    other_toml = tmp_path / "credentials.toml"
    other_toml.write_text('[default]\ntoken = "SECRET-TOKEN"\n')
    for named, shown in ((secret, False), (other_toml, False), (EXAMPLES / "online.toml", True)):
        d = tmp_path / f"res-{named.stem}"
        shutil.copytree(result_dir, d)
        meta = json.loads((d / "result.json").read_text())
        meta["info"]["scenario"] = str(named)
        (d / "result.json").write_text(json.dumps(meta))
        assert run("report", d, "--out", d / "r.html") == 0, capsys.readouterr().err
        page = (d / "r.html").read_text()
        assert "SECRET" not in page
        assert ("online_log.csv" in page) == shown
