"""Many writers and readers on one journal: no "database is locked", no lost replication.

Starts ``--writers`` processes that open one new journal at the same moment (they race to create
it) and each commit ``--batches`` batches of real replications of a NormalProblem (one design ×
``--reps-per-batch`` replications, one transaction each, as ``mopt frontier --journal J`` does),
and ``--readers`` processes that read it every ``--poll`` seconds the way ``mopt report --watch``
does (:func:`mopt.core.journal_view.read_journal`, read-only).  While they run, ``--kills``
writers, chosen at random, are sent SIGKILL at a random point of their work and started again
(they reopen the journal under load and resume, as a user who runs the command again), and
``--dask-writers`` whole searches run on a one-worker Dask cluster and commit into the same journal
through their client.  Then:

* **lock errors**: every error any writer or reader met (each logs it and goes on); must be 0;
* **lost rows**: the replications of every batch a writer logged *after* its commit returned that
  the journal does not hold; must be 0 (a reader also checks that the count never goes down);
* **resume**: ``mopt.solve(problem, "exhaustive", journal=J)`` over a design space one batch of
  replications larger than the writers covered (so the resume simulates something) must equal,
  bit for bit, the same solve without a journal; so must each Dask writer's result.

    python benchmarks/journal_stress.py --writers 8 --batches 10000 --readers 2 --kills 4

prints the figures (``--json``: one JSON object instead) and exits 1 if any check fails.
``tests/core/test_journal_stress.py`` runs it at a small size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

N_DESIGNS = 100
SEED = 2026


def problem(n_reps: int = 10):
    import mopt

    means = np.random.default_rng(1).uniform(0.0, 10.0, (N_DESIGNS, 2))
    return mopt.NormalProblem(means, sd=1.0, objectives=("time", "cost"), n_reps=n_reps)


def batch(g: int, per: int) -> tuple[int, np.ndarray]:
    """The design and replications of global batch ``g``."""
    return g % N_DESIGNS, np.arange(per * (g // N_DESIGNS), per * (g // N_DESIGNS + 1), dtype=np.int64)


# -- the processes -----------------------------------------------------------------------------
def writer(args) -> int:
    """Commit the batches ``w, w + W, w + 2W, ...`` (skipping those the journal already holds),
    logging each one after its commit returned; log every error and go on."""
    from mopt.core.journal import Journal

    prob = problem()
    log = os.open(args.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    errors = open(args.errors, "a", encoding="utf-8")
    while True:
        try:
            journal = Journal(args.journal, prob, seed=SEED)
            break
        except Exception as exc:  # noqa: BLE001 - counted, then tried again
            errors.write(f"open: {type(exc).__name__}: {exc}\n")
            errors.flush()
            time.sleep(0.05)
    for b in range(args.batches):
        g = b * args.writers + args.index
        design, reps = batch(g, args.reps_per_batch)
        if journal.lookup([design], reps)[0].all():  # committed before this process was killed
            os.write(log, f"{g}\n".encode())
            continue
        values = prob.replicate([design], reps, SEED)
        while True:
            try:
                journal.commit([design], reps, values)
                break
            except Exception as exc:  # noqa: BLE001 - counted, then tried again
                errors.write(f"commit: {type(exc).__name__}: {exc}\n")
                errors.flush()
        os.write(log, f"{g}\n".encode())
    journal.close()
    return 0


def dask_writer(args) -> int:
    """A whole search on a Dask cluster of one worker, committing through its client as
    ``mopt frontier --journal J --workers 1`` does, into the journal the other writers fill; its
    evaluations are saved for the harness to compare with an uninterrupted run."""
    import mopt
    from mopt.core.execute import local_cluster

    errors = open(args.errors, "a", encoding="utf-8")
    try:
        with local_cluster(1, threads=1) as client:
            result = mopt.solve(problem(args.n_reps), "exhaustive", seed=SEED, journal=args.journal,
                                executor=client, batch_size=args.dask_batch)
    except Exception as exc:  # noqa: BLE001 - counted
        errors.write(f"dask: {type(exc).__name__}: {exc}\n")
        return 1
    result.evaluations.to_pickle(args.log)
    return 0


def reader(args) -> int:
    """Read the journal every ``poll`` seconds until the stop file appears; report reads, errors
    and whether the replication count ever went down."""
    from mopt.core.journal_view import read_journal

    reads, errors, decreases, last, slowest = 0, [], 0, 0, 0.0
    while not os.path.exists(args.stop):
        if os.path.exists(args.journal):
            start = time.perf_counter()
            try:
                snap = read_journal(args.journal)
            except Exception as exc:  # noqa: BLE001 - counted
                if "not a mopt journal" not in str(exc):  # a journal still being created by the writers
                    errors.append(f"{type(exc).__name__}: {exc}")
            else:
                reads += 1
                slowest = max(slowest, time.perf_counter() - start)
                decreases += snap.n_replications < last
                last = snap.n_replications
        time.sleep(args.poll)
    Path(args.log).write_text(json.dumps({"reads": reads, "errors": errors, "decreases": decreases,
                                          "slowest_read": slowest}), encoding="utf-8")
    return 0


# -- the harness ---------------------------------------------------------------------------------
def _spawn(role: str, args, work: Path, index: int, extra=()) -> subprocess.Popen:
    command = [sys.executable, __file__, "--role", role, "--journal", str(work / "run.sqlite"),
               "--index", str(index), "--writers", str(args.writers), "--batches", str(args.batches),
               "--reps-per-batch", str(args.reps_per_batch), "--poll", str(args.poll),
               "--log", str(work / f"{role}{index}.log"), "--errors", str(work / f"{role}{index}.errors"),
               "--stop", str(work / "stop"), *extra]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL)


def _logged(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def stress(args) -> dict:
    import mopt
    from mopt.core.journal_view import read_journal

    rng = random.Random(args.kill_seed)
    with tempfile.TemporaryDirectory(prefix="mopt-journal-stress-") as tmp:
        work = Path(tmp)
        start = time.perf_counter()
        n_reps = args.reps_per_batch * (-(-args.writers * args.batches // N_DESIGNS) + 1)
        readers = [_spawn("reader", args, work, k) for k in range(args.readers)]
        writers = {w: _spawn("writer", args, work, w) for w in range(args.writers)}
        daskers = [_spawn("dask", args, work, k, ("--n-reps", str(n_reps), "--dask-batch", str(args.dask_batch)))
                   for k in range(args.dask_writers)]
        victims = rng.sample(range(args.writers), min(args.kills, args.writers))
        plan = {w: rng.uniform(0.1, 0.9) * args.batches for w in victims}  # batches logged before the kill
        kills = 0
        while any(p.poll() is None for p in writers.values()):
            for w in list(plan):
                if _logged(work / f"writer{w}.log") >= plan[w] and writers[w].poll() is None:
                    writers[w].send_signal(signal.SIGKILL)
                    writers[w].wait()
                    kills += 1
                    del plan[w]
                    writers[w] = _spawn("writer", args, work, w)  # the command run again: it resumes
            time.sleep(0.02)
        for p in daskers:
            p.wait()
        write_seconds = time.perf_counter() - start
        (work / "stop").touch()
        for p in readers:
            p.wait()
        codes = [p.returncode for p in writers.values()]
        journal = work / "run.sqlite"
        wal = os.path.getsize(f"{journal}-wal") if os.path.exists(f"{journal}-wal") else 0
        errors = []
        for path in [*(work / f"writer{w}.errors" for w in range(args.writers)),
                     *(work / f"dask{k}.errors" for k in range(args.dask_writers))]:
            errors += path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        reports = [json.loads((work / f"reader{k}.log").read_text(encoding="utf-8")) for k in range(args.readers)]
        errors += [e for r in reports for e in r["errors"]]
        logged = set()
        for w in range(args.writers):
            logged |= {int(x) for x in (work / f"writer{w}.log").read_text().split()}
        import sqlite3

        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        held = set(db.execute("SELECT design, rep FROM replications").fetchall())
        db.close()
        lost = sum(1 for g in logged for d, reps in [batch(g, args.reps_per_batch)] for r in reps
                   if (d, int(r)) not in held)
        snap = read_journal(journal)
        # the resume: one more block of replications than the writers covered
        t = time.perf_counter()
        resumed = mopt.solve(problem(n_reps), "exhaustive", seed=SEED, journal=journal)
        resume_seconds = time.perf_counter() - t
        straight = mopt.solve(problem(n_reps), "exhaustive", seed=SEED)
        same = (resumed.n_evals == straight.n_evals
                and resumed.evaluations.equals(straight.evaluations))
        import pandas as pd

        dask_same = [(work / f"dask{k}.log").exists()
                     and pd.read_pickle(work / f"dask{k}.log").equals(straight.evaluations)
                     for k in range(args.dask_writers)]
    return {
        "writers": args.writers, "batches_per_writer": args.batches, "reps_per_batch": args.reps_per_batch,
        "dask_writers": args.dask_writers, "dask_equal_uninterrupted": sum(dask_same),
        "readers": args.readers, "poll_seconds": args.poll, "kills": kills,
        "writer_exit_codes_nonzero": sum(c != 0 for c in codes) + sum(p.returncode != 0 for p in daskers),
        "elapsed_seconds": round(write_seconds, 2),
        "commits_per_second": round(args.writers * args.batches / write_seconds, 1),
        "batches_logged": len(logged), "rows_in_journal": snap.n_replications, "pairs_in_space": N_DESIGNS * n_reps,
        "lock_errors": sum("locked" in e or "busy" in e.lower() for e in errors), "errors": len(errors),
        "error_examples": errors[:3], "lost_rows": lost,
        "reads": sum(r["reads"] for r in reports), "slowest_read_seconds": round(max((r["slowest_read"] for r in reports), default=0), 3),
        "count_went_down": sum(r["decreases"] for r in reports), "wal_bytes_at_end": wal,
        "resume_reused": resumed.info["journal"]["reused"], "resume_simulated": resumed.info["journal"]["simulated"],
        "resume_seconds": round(resume_seconds, 2), "resume_equals_uninterrupted": bool(same),
    }


def ok(figures: dict) -> bool:
    return (figures["errors"] == 0 and figures["lost_rows"] == 0 and figures["count_went_down"] == 0
            and figures["writer_exit_codes_nonzero"] == 0 and figures["resume_equals_uninterrupted"]
            and figures["dask_equal_uninterrupted"] == figures["dask_writers"]
            and figures["batches_logged"] == figures["writers"] * figures["batches_per_writer"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--writers", type=int, default=8)
    p.add_argument("--batches", type=int, default=10_000, help="batches each writer commits")
    p.add_argument("--reps-per-batch", type=int, default=4)
    p.add_argument("--readers", type=int, default=2)
    p.add_argument("--poll", type=float, default=0.1, help="seconds between a reader's reads")
    p.add_argument("--kills", type=int, default=4, help="writers sent SIGKILL (then started again)")
    p.add_argument("--kill-seed", type=int, default=0)
    p.add_argument("--dask-writers", type=int, default=1,
                   help="whole searches on a one-worker Dask cluster writing the same journal through their client")
    p.add_argument("--dask-batch", type=int, default=400, help="design x replication pairs per Dask batch")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    # the processes' own options
    p.add_argument("--role", choices=("harness", "writer", "reader", "dask"), default="harness", help=argparse.SUPPRESS)
    p.add_argument("--n-reps", type=int, default=10, help=argparse.SUPPRESS)
    for name in ("--journal", "--log", "--errors", "--stop"):
        p.add_argument(name, help=argparse.SUPPRESS)
    p.add_argument("--index", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.role == "writer":
        return writer(args)
    if args.role == "reader":
        return reader(args)
    if args.role == "dask":
        return dask_writer(args)
    figures = stress(args)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>28}  {value}")
        print("PASS" if ok(figures) else "FAIL")
    return 0 if ok(figures) else 1


if __name__ == "__main__":
    sys.exit(main())
