"""``mopt replay DIR --design I --rep R``: a replication of a ``frontier`` (or ``demo``) run replays
equal to the result and to the journal (exit 0), an altered journal differs (exit 1, DIFFERS), and
bad input is one line naming the option (exit 2)."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3

import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.core.journal import Journal
from mopt.scenario import load_scenario
from tests.helpers import EXAMPLES, REFERENCE, assert_one_line_error


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """``mopt frontier examples/reference.toml`` on two strategies of ten replications, with a journal."""
    root = tmp_path_factory.mktemp("replay")
    out, journal = root / "reference", root / "reference.sqlite"
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["frontier", str(REFERENCE), "--method", "blind_pick", "--budget", "20", "--out", str(out),
                     "--journal", str(journal), "--quiet"])
    assert code == 0
    return out, journal, pd.read_csv(out / "evaluations.csv")


def _journal_row(journal, design: int, rep: int) -> tuple[float, float]:
    with contextlib.closing(sqlite3.connect(journal)) as db:
        return db.execute("SELECT makespan, cost FROM replications WHERE design = ? AND rep = ?",
                          (design, rep)).fetchone()


def test_a_frontier_run_replays_equal_to_its_result_and_its_journal(run, capsys):
    out, journal, ev = run
    design = int(ev["design"].iloc[1])
    makespan, cost = _journal_row(journal, design, 7)
    for extra, source in (([], "the mean and standard error of replications 0..9 in the result (makespan, "
                               "makespan_se, cost, cost_se)."),
                          (["--journal", str(journal)], f"the journal {str(journal)!r} (makespan, cost).")):
        assert main(["replay", str(out), "--design", str(design), "--rep", "7", *extra]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].endswith(f"replication 7, seed 1: makespan = {makespan!r}, cost = {cost!r}"), lines[0]
        assert lines[0].startswith(f"design {design} (N=")
        assert lines[1] == f"equal bit for bit to {source}"
        assert lines[3].startswith("throughput phase: T_tail = ")  # ExPERT's detail: each task's instances
        assert lines[6].split()[:3] == ["task", "sent", "ends"]


def test_an_altered_journal_differs_with_exit_code_1(run, tmp_path, capsys):
    out, journal, ev = run
    design = int(ev["design"].iloc[0])
    altered = tmp_path / "altered.sqlite"
    shutil.copy(journal, altered)
    with contextlib.closing(sqlite3.connect(altered)) as db:
        db.execute("UPDATE replications SET cost = cost * (1 + 1e-15) WHERE design = ? AND rep = 4", (design,))
        db.commit()
    assert main(["replay", str(out), "--design", str(design), "--rep", "4", "--journal", str(altered)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith(f"DIFFERS from the journal {str(altered)!r}: cost recorded "), lines[1]
    assert main(["replay", str(out), "--design", str(design), "--rep", "3", "--journal", str(altered)]) == 0


def test_bad_input_is_one_line_naming_the_option(run, tmp_path, capsys):
    out, journal, ev = run
    design = int(ev["design"].iloc[0])
    missing = min(set(range(289)) - set(ev["design"].tolist()))
    problem = load_scenario(REFERENCE).problem(seed=1)
    other_seed = tmp_path / "seed2.sqlite"
    Journal(other_seed, problem, seed=2).close()
    other_problem = tmp_path / "normal.sqlite"
    Journal(other_problem, mopt.NormalProblem([[1.0, 2.0]], sd=1.0), seed=1).close()
    cases = [
        (["--rep", "10"], ["'--rep' must be in [0, 9] (design", "has 10 replications); got 10."]),
        (["--rep", "-1"], ["argument --rep: must be >= 0; got -1"]),
        (["--design", str(missing), "--rep", "0"], [f"'--design' must be a design the run evaluated (one of the 2 "
                                                     f"in its evaluations); got {missing}."]),
        (["--rep", "0", "--journal", str(other_seed)], [f"'--journal' {str(other_seed)!r} was written with seed 2; "
                                                         "the run's seed is 1."]),
        (["--rep", "0", "--journal", str(other_problem)], [f"'--journal' {str(other_problem)!r} was written for "
                                                            "another problem"]),
        (["--rep", "0", "--scenario", str(EXAMPLES / "wl3.toml")], ["'--scenario'", "is not the problem the run "
                                                                    "searched (fingerprint"]),
        (["--rep", "0", "--scenario", str(EXAMPLES / "vmc_partition.toml")], ["is a scenario of the family 'vmc'; "
                                                                              "the run's is 'expert'."]),
    ]
    for options, fragments in cases:
        argv = ["replay", str(out), *(["--design", str(design)] if "--design" not in options else []), *options]
        assert_one_line_error(capsys, main(argv), *fragments)
    assert_one_line_error(capsys, main(["replay", str(tmp_path), "--design", "0", "--rep", "0"]),
                          "is not a mopt result directory")


def test_a_scenario_file_gone_is_named_and_can_be_given(run, tmp_path, capsys):
    out, _, ev = run
    moved = tmp_path / "moved"
    shutil.copytree(out, moved)
    meta = json.loads((moved / "result.json").read_text())
    meta["info"]["scenario"] = str(tmp_path / "gone.toml")
    (moved / "result.json").write_text(json.dumps(meta))
    design = str(int(ev["design"].iloc[0]))
    assert_one_line_error(capsys, main(["replay", str(moved), "--design", design, "--rep", "2"]),
                          f"names the scenario file {str(tmp_path / 'gone.toml')!r}, which is not there",
                          "give it with '--scenario FILE'")
    assert main(["replay", str(moved), "--design", design, "--rep", "2", "--scenario", str(REFERENCE)]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("equal bit for bit to the mean")


def test_a_demo_run_replays_equal(tmp_path, capsys):
    """``mopt demo`` records the packaged reference scenario, which is its problem (its fingerprint)."""
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    meta = json.loads((out / "result.json").read_text())["info"]
    assert meta["family"] == "expert" and meta["fingerprint"] == load_scenario(meta["scenario"]).problem().fingerprint()
    for design, rep in ((0, 0), (280, 9)):
        assert main(["replay", str(out), "--design", str(design), "--rep", str(rep)]) == 0
        assert capsys.readouterr().out.splitlines()[1].startswith("equal bit for bit to the mean and standard error")
