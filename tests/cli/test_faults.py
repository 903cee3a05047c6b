"""Faults of a ``mopt`` process: a run killed with SIGKILL at random moments resumes to exactly the
uninterrupted result; SIGTERM and Ctrl-C end in one line, leave whole output sets and resume;
``--workers`` gives the same files as in-process. (Executors and Dask workers: tests/core/test_faults.py.)"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mopt import Result

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "reference.toml"
# OCBA on the paper grid: a first stage, then many rounds, each committed in batches
BUDGET = 6000  # a first stage of 2,890, then 15 rounds of 200
RUN = ["frontier", str(REFERENCE), "--method", "ocba", "--budget", str(BUDGET), "--option", "delta=200",
       "--seed", "4", "--quiet"]
OUTPUTS = ("front.csv", "evaluations.csv")


def mopt_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mopt", *args]


def journal_rows(path: Path) -> int:
    """Replications committed to the journal at ``path`` (0 while it is being created)."""
    if not path.exists():
        return 0
    db = sqlite3.connect(path, timeout=0.1)
    try:
        return db.execute("SELECT COUNT(*) FROM replications").fetchone()[0]
    except sqlite3.OperationalError:  # no table yet, or locked while it is created
        return 0
    finally:
        db.close()


ENV = {**os.environ, "MPLBACKEND": "Agg"}


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> Path:
    """The outputs of RUN, uninterrupted."""
    out = tmp_path_factory.mktemp("plain") / "out"
    subprocess.run(mopt_command(*RUN, "--out", str(out)), check=True, env=ENV, capture_output=True)
    return out


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_result(tmp_path, plain):
    """Each attempt is killed at a random point of the work left (read off the journal while the
    run writes it) plus a random delay; then a last run completes.  The budget is BUDGET."""
    env = ENV

    rng = np.random.default_rng()
    journal, out = tmp_path / "run.sqlite", tmp_path / "resumed"
    args = mopt_command(*RUN, "--out", str(out), "--journal", str(journal))
    kills, rows = [], [0]  # rows: committed replications after each attempt
    for _attempt in range(12):
        if len(kills) >= 4:
            break
        target = rows[-1] + rng.uniform(0.05, 0.6) * (BUDGET - rows[-1])
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while proc.poll() is None and journal_rows(journal) < target and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(rng.uniform(0.0, 0.05))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills.append(journal_rows(journal))
        proc.wait()
        rows.append(journal_rows(journal))
        assert rows[-1] >= rows[-2], (kills, rows)  # nothing committed is ever lost
        for name in OUTPUTS:  # an output is either absent or whole
            if (out / name).exists():
                assert (out / name).read_bytes() == (plain / name).read_bytes(), (name, kills)
    mid_run = [k for k in kills if 0 < k < BUDGET]
    assert len(mid_run) >= 3, f"too few kills while simulating: journal rows at the kills {kills}, after {rows}"

    before = journal_rows(journal)
    subprocess.run(args, check=True, env=env, capture_output=True)
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (plain / name).read_bytes(), (name, kills, rows)
    meta = json.loads((out / "result.json").read_text())
    assert meta["n_evals"] == BUDGET
    # the last run took everything committed from the journal and simulated only the rest
    assert meta["info"]["journal"]["reused"] == before, (kills, rows)
    assert meta["info"]["journal"]["simulated"] == BUDGET - before
    assert journal_rows(journal) == BUDGET  # each replication once (primary key (design, rep))
    assert not list(out.glob(".*.tmp"))  # temporary files of killed writers are gone


def test_cli_workers_gives_the_same_files_as_in_process(tmp_path):
    a, b = tmp_path / "serial", tmp_path / "dask"
    argv = ["frontier", str(REFERENCE), "--method", "nsga2", "--budget", "2000", "--quiet"]
    from mopt.cli import main

    assert main([*argv, "--out", str(a)]) == 0
    assert main([*argv, "--out", str(b), "--workers", "2"]) == 0
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


# -- SIGTERM and SIGINT ------------------------------------------------------------------------
SIDE_FILES = ("-wal", "-shm", "-journal")  # SQLite's files beside an open journal


def assert_whole_set(out: Path, plain: Path) -> None:
    """``out`` holds no temporary file and never a mixed set: while ``result.json`` (the manifest,
    written last) exists, every file it lists is the one it was written with; a new set is the
    uninterrupted run's."""
    assert not list(out.glob(".*.tmp")), sorted(p.name for p in out.iterdir())
    if not (out / "result.json").exists():
        return
    meta = json.loads((out / "result.json").read_text())
    new = {"report.html"} if meta["seed"] == 4 else set()  # the old set (old_set) has no report
    assert set(meta["files"]) == {"evaluations.csv", "front.csv", "front.png", *new}
    for name, digest in meta["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, (name, meta["seed"])
    if meta["seed"] == 4:  # the new set
        for name in OUTPUTS:
            assert (out / name).read_bytes() == (plain / name).read_bytes(), name


def old_set(out: Path) -> None:
    """A whole set of another run (seed 5) in ``out``, which the new run replaces."""
    ev = pd.DataFrame({"design": [0, 1], "makespan": [1.0, 2.0], "cost": [2.0, 1.0], "n_reps": [1, 1]})
    out.mkdir()
    (out / "front.png").write_bytes(b"an older figure")
    Result("ocba", 5, 2, ("makespan", "cost"), ev).to_csv(out, files=["front.png"])


def signal_at(args, journal: Path, target: float, delay: float, sig, *, group: bool = False):
    """Start ``args``, send ``sig`` once the journal holds ``target`` rows (or the run ends) plus
    ``delay`` seconds; return (exit code, stderr lines, rows committed before the signal).  With
    ``group``, the signal goes to the run's whole process group, which must be gone afterwards."""
    proc = subprocess.Popen(args, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=group)
    deadline = time.monotonic() + 180
    while proc.poll() is None and journal_rows(journal) < target and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(delay)
    rows = journal_rows(journal)
    if proc.poll() is None:
        if group:  # a Ctrl-C in a terminal, or `timeout`: the whole process group, Dask workers too
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
    _, err = proc.communicate(timeout=180)
    if group:  # every process of the group (the Dask workers) is gone soon after
        deadline = time.monotonic() + 20
        while group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not group_alive(proc.pid), "processes of the run outlived it"
    return proc.returncode, err.splitlines(), rows


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def test_sigterm_at_random_moments_one_line_no_temporary_files_never_a_mixed_set(tmp_path, plain):
    """Attempts stopped by SIGTERM at a random point of the work left, or while the outputs are
    written (after the last journal row); each ends in one line and exit 143, leaves no temporary
    file and a whole set; a last run gives the uninterrupted outputs, byte for byte."""
    rng = np.random.default_rng()
    out, journal = tmp_path / "out", tmp_path / "run.sqlite"
    old_set(out)
    args = mopt_command(*RUN, "--out", str(out), "--journal", str(journal))
    stopped = []
    for attempt in range(3):
        done = journal_rows(journal)
        if attempt == 2:  # after the last row: simulation over, outputs being written
            target, delay = BUDGET, rng.uniform(0.0, 1.0)
        else:
            target, delay = done + rng.uniform(0.05, 0.5) * (BUDGET - done), rng.uniform(0.0, 0.05)
        code, err, rows = signal_at(args, journal, target, delay, signal.SIGTERM)
        # -SIGTERM: the signal came while the interpreter was still starting, before mopt installed
        # its handler (possible when the journal already held the target rows): killed before
        # anything was opened or written, so the checks below hold all the same
        assert code in (0, 143, -signal.SIGTERM), (code, err)
        if code == -signal.SIGTERM:
            assert err == [], err
        if code == 143:
            stopped.append(rows)
            assert err == ["mopt: terminated (SIGTERM); run the same command again to resume"]
        assert journal_rows(journal) >= done  # nothing committed is lost
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(SIDE_FILES)]  # the journal was closed
        assert_whole_set(out, plain)
    assert [r for r in stopped if r < BUDGET], f"no SIGTERM while simulating: journal rows {stopped}"

    from mopt.cli import main

    assert main([*RUN, "--out", str(out), "--journal", str(journal)]) == 0  # in-process: quicker
    assert_whole_set(out, plain)
    for name in (*OUTPUTS, "front.png"):
        assert (out / name).read_bytes() == (plain / name).read_bytes(), name
    assert json.loads((out / "result.json").read_text())["info"]["journal"]["simulated"] < BUDGET


@pytest.mark.slow
def test_ctrl_c_and_sigterm_with_dask_workers_end_in_one_line_and_resume(tmp_path, plain):
    """Ctrl-C (SIGINT) and SIGTERM sent to the whole process group of a run on two Dask workers:
    exit 130 / 143 with one line (no worker tracebacks), no worker left (see signal_at), and the run
    resumes."""
    out, journal = tmp_path / "out", tmp_path / "run.sqlite"
    args = mopt_command(*RUN, "--out", str(out), "--journal", str(journal), "--workers", "2")
    for sig, code, line in [(signal.SIGINT, 130, "mopt: interrupted (Ctrl-C); run the same command again to resume"),
                            (signal.SIGTERM, 143, "mopt: terminated (SIGTERM); run the same command again to resume")]:
        done = journal_rows(journal)
        got, err, rows = signal_at(args, journal, done + 1000, 0.0, sig, group=True)
        assert (got, err) == (code, [line]), f"after {rows} rows:\n" + "\n".join(err[:30])
        assert journal_rows(journal) > done
        assert not list(out.glob(".*.tmp")) and not (out / "result.json").exists()
    from mopt.cli import main

    assert main([*RUN, "--out", str(out), "--journal", str(journal)]) == 0
    for name in (*OUTPUTS, "front.png"):
        assert (out / name).read_bytes() == (plain / name).read_bytes(), name
