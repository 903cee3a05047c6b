"""Faults: a run killed with SIGKILL at random moments resumes to exactly the uninterrupted result;
a Dask worker killed mid-run changes nothing; outputs are byte-identical across executors."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same_result

import mopt
from mopt.core.execute import local_cluster
from mopt.expert import NTDMrProblem, reference_environment

REFERENCE = Path(__file__).resolve().parents[1] / "examples" / "reference.toml"
# OCBA on the paper grid: a first stage, then many rounds, each committed in batches
RUN = ["frontier", str(REFERENCE), "--method", "ocba", "--budget", "12000", "--option", "delta=200",
       "--seed", "4", "--quiet"]
OUTPUTS = ("front.csv", "evaluations.csv")


def mopt_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "mopt.cli", *args]


@pytest.fixture(scope="module")
def dask_client():
    """One local cluster of two single-threaded workers for the module (workers warmed up)."""
    with local_cluster(2, threads=1) as client:
        mopt.solve(NTDMrProblem(reference_environment(0.1)), "exhaustive", seed=1, n_reps=2, executor=client)
        yield client


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


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_result(tmp_path):
    """Each attempt is killed at a random point of the work left (read off the journal while the
    run writes it) plus a random delay; then a last run completes.  The budget is 12,000."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    plain = tmp_path / "plain"
    subprocess.run(mopt_command(*RUN, "--out", str(plain)), check=True, env=env, capture_output=True)

    rng = np.random.default_rng()
    journal, out = tmp_path / "run.sqlite", tmp_path / "resumed"
    args = mopt_command(*RUN, "--out", str(out), "--journal", str(journal))
    kills, rows = [], [0]  # rows: committed replications after each attempt
    for _attempt in range(12):
        if len(kills) >= 4:
            break
        target = rows[-1] + rng.uniform(0.05, 0.6) * (12000 - rows[-1])
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
    mid_run = [k for k in kills if 0 < k < 12000]
    assert len(mid_run) >= 3, f"too few kills while simulating: journal rows at the kills {kills}, after {rows}"

    before = journal_rows(journal)
    subprocess.run(args, check=True, env=env, capture_output=True)
    for name in OUTPUTS:
        assert (out / name).read_bytes() == (plain / name).read_bytes(), (name, kills, rows)
    meta = json.loads((out / "result.json").read_text())
    assert meta["n_evals"] == 12000
    # the last run took everything committed from the journal and simulated only the rest
    assert meta["info"]["journal"]["reused"] == before, (kills, rows)
    assert meta["info"]["journal"]["simulated"] == 12000 - before
    assert journal_rows(journal) == 12000  # each replication once (primary key (design, rep))
    assert not list(out.glob(".*.tmp"))  # temporary files of killed writers are gone


def _outputs(result, directory: Path) -> dict[str, bytes]:
    result.to_csv(directory)
    return {name: (directory / name).read_bytes() for name in OUTPUTS}


@pytest.mark.parametrize("method,options", [("ocba", {"budget": 4000, "delta": 100}),
                                            ("nsga2", {"budget": 3000})])
def test_outputs_are_byte_identical_in_process_on_processes_on_dask_and_resumed(tmp_path, method, options,
                                                                                 dask_client):
    problem = NTDMrProblem(reference_environment(0.1), n_reps=10)
    base = _outputs(mopt.solve(problem, method, seed=8, **options), tmp_path / "serial")
    with ProcessPoolExecutor(2) as pool:
        assert _outputs(mopt.solve(problem, method, seed=8, executor=pool, **options), tmp_path / "pool") == base
    dask = mopt.solve(problem, method, seed=8, executor=dask_client, **options)
    assert _outputs(dask, tmp_path / "dask") == base
    # interrupted: a journal holding the first part of the run, then resumed to the end
    journal = tmp_path / "j.sqlite"
    budget = options["budget"]
    mopt.solve(problem, method, seed=8, journal=journal, **{**options, "budget": budget // 3})
    resumed = mopt.solve(problem, method, seed=8, journal=journal, **options)
    assert resumed.info["journal"]["reused"] > 0
    assert _outputs(resumed, tmp_path / "resumed") == base


def test_cli_workers_gives_the_same_files_as_in_process(tmp_path):
    a, b = tmp_path / "serial", tmp_path / "dask"
    argv = ["frontier", str(REFERENCE), "--method", "nsga2", "--budget", "2000", "--quiet"]
    from mopt.cli import main

    assert main([*argv, "--out", str(a)]) == 0
    assert main([*argv, "--out", str(b), "--workers", "2"]) == 0
    for name in OUTPUTS:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_dask_worker_killed_mid_run_gives_the_identical_result(dask_client):
    problem = NTDMrProblem(reference_environment(0.1), n_reps=10)
    expected = mopt.solve(problem, "exhaustive", seed=6, n_reps=300)
    client = dask_client
    pids = client.run(os.getpid)  # worker address -> process id
    box = {}

    def work():  # 300 batches of one replication of every design
        box["result"] = mopt.solve(problem, "exhaustive", seed=6, n_reps=300, executor=client, batch_size=289)

    thread = threading.Thread(target=work)
    thread.start()
    busy = []
    deadline = time.monotonic() + 60
    while not busy and time.monotonic() < deadline:
        time.sleep(0.05)
        busy = [addr for addr, tasks in client.processing().items() if tasks and addr in pids]
    assert busy, "no worker ever had a batch"
    # the worst case: every worker holding the problem itself dies (with the batches it runs)
    holders = {w for key, ws in client.who_has().items() if str(key).startswith(("_same", "NTDMrProblem"))
               for w in ws}
    victims = sorted(holders & set(pids)) or busy[:1]
    for victim in victims:
        os.kill(pids[victim], signal.SIGKILL)
    assert thread.is_alive(), "the run ended before the kill"
    thread.join(timeout=300)
    assert not thread.is_alive()
    alive = set(client.run(os.getpid).values())
    assert not alive & {pids[v] for v in victims}  # they really died (the nannies replaced them)
    assert_same_result(expected, box["result"])
