"""Faults under the executors: outputs are byte-identical in-process, on processes, on Dask and
resumed from a journal; a Dask worker killed mid-run changes nothing; a one-thread worker runs its
kernels on one thread. (Faults of the ``mopt`` process: tests/cli/test_faults.py.)"""

from __future__ import annotations

import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

import mopt
from mopt.core.execute import kernel_threads, local_cluster
from mopt.expert import NTDMrProblem, reference_environment
from tests.helpers import assert_same_result

OUTPUTS = ("front.csv", "evaluations.csv")


@pytest.fixture(scope="module")
def dask_client():
    """One local cluster of two single-threaded workers for the module (workers warmed up)."""
    with local_cluster(2, threads=1) as client:
        mopt.solve(NTDMrProblem(reference_environment(0.1)), "exhaustive", seed=1, n_reps=2, executor=client)
        yield client


def test_a_one_thread_worker_runs_its_kernels_on_one_thread(dask_client):
    # the nanny sets NUMBA_NUM_THREADS=1 in each worker after numba has read its default (every
    # core): the kernels must follow the variable, or 2 workers on 2 cores run 4 kernel threads
    assert set(dask_client.run(kernel_threads).values()) == {1}


def _outputs(result, directory: Path) -> dict[str, bytes]:
    result.to_csv(directory)
    return {name: (directory / name).read_bytes() for name in OUTPUTS}


@pytest.mark.parametrize("method,options", [("ocba", {"budget": 4000, "delta": 100}),
                                            ("nsga2", {"budget": 3000}), ("screen", {"budget": 3000}),
                                            ("auto", {"budget": 300})])
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
