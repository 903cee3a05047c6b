"""Scaling out on Dask: 1 vs 2 local workers on a CPU-bound ExPERT frontier, and batch sizes.

    python benchmarks/scale.py [--reps 30] [--batch-budget 60000]

Workload: exhaustive search of the WL3-sized high-resolution strategy space
(``NTDMrProblem(wl3_environment(), **high_resolution_grid(env))``, 15,579 strategies) with
``--reps`` replications each, on a ``distributed.LocalCluster`` of 1 and of 2 worker processes,
one single-threaded worker per core.  The cluster is started and warmed up (simulators compiled
in every worker) before the clock starts: the figure is the search itself.  Both results must be
byte-identical (front.csv and evaluations.csv) to the in-process run.

Requirement (DESIGN §8): 2 workers ≥ 1.7× faster than 1, identical results.

Second table: throughput (replications per second) with 2 workers as the batch size (design ×
replication pairs per task) grows, on the first ``--batch-budget`` replications of the same search.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np

import mopt
from mopt.core.execute import local_cluster, make_batches
from mopt.expert import NTDMrProblem, high_resolution_grid, wl3_environment


def problem() -> NTDMrProblem:
    env = wl3_environment()
    return NTDMrProblem(env, **high_resolution_grid(env))


def outputs(result) -> tuple[bytes, bytes]:
    with tempfile.TemporaryDirectory() as d:
        result.to_csv(d)
        return (Path(d, "front.csv").read_bytes(), Path(d, "evaluations.csv").read_bytes())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--batch-budget", type=int, default=60_000)
    args = parser.parse_args()

    prob = problem()
    budget = prob.n_designs * args.reps
    print(f"WL3 high-resolution space: {prob.n_designs} strategies x {args.reps} replications = "
          f"{budget} replications (exhaustive), {os.cpu_count()} cores")

    t = time.perf_counter()
    reference = mopt.solve(prob, "exhaustive", seed=1, n_reps=args.reps)
    t_local = time.perf_counter() - t
    ref_bytes = outputs(reference)
    print(f"in-process (numba threads on every core): {t_local:.1f} s")

    times, same_batches = {}, {}
    one_rep = prob.n_designs  # one replication of every design per batch, for both cluster sizes
    for n in (1, 2):
        with local_cluster(n, threads=1) as client:
            mopt.solve(prob, "exhaustive", seed=2, n_reps=1, executor=client)  # warm-up: compile
            t = time.perf_counter()
            result = mopt.solve(prob, "exhaustive", seed=1, n_reps=args.reps, executor=client)
            times[n] = time.perf_counter() - t
            same = outputs(result) == ref_bytes
            t = time.perf_counter()
            fixed = mopt.solve(prob, "exhaustive", seed=1, n_reps=args.reps, executor=client, batch_size=one_rep)
            same_batches[n] = time.perf_counter() - t
            same = same and outputs(fixed) == ref_bytes
            print(f"{n} Dask worker{'s' if n > 1 else ' '}: {times[n]:6.1f} s default batches "
                  f"({budget / times[n]:6.0f} replications/s), {same_batches[n]:6.1f} s with "
                  f"batches of {one_rep} pairs; identical to in-process: {same}")
            if not same:
                raise SystemExit("results differ")
            if n == 2:
                print(f"\nspeed-up 2 vs 1 workers: {times[1] / times[2]:.2f}x with default batches, "
                      f"{same_batches[1] / same_batches[2]:.2f}x with the same batches (requirement >= 1.7x)")
                if args.batch_budget:
                    sweep(prob, client, args.batch_budget)


def sweep(prob, client, budget: int) -> None:
    """Throughput with 2 workers as the batch size grows (blind pick: one round of budget reps)."""
    n_reps = 10
    alpha = budget / n_reps / prob.n_designs
    print(f"\nthroughput with 2 workers by batch size ({budget} replications: blind pick, "
          f"{n_reps} replications each)")
    print(f"{'pairs/batch':>12} {'batches':>8} {'seconds':>8} {'reps/s':>8}")
    for size in (10, 100, 1_000, 10_000, None):
        t = time.perf_counter()
        mopt.solve(prob, "blind_pick", seed=1, executor=client, batch_size=size, alpha=alpha, n_reps=n_reps)
        dt = time.perf_counter() - t
        label = "default" if size is None else str(size)
        batches = len(make_batches(np.arange(budget // n_reps), np.arange(n_reps), size or -(-budget // 8)))
        print(f"{label:>12} {batches:>8} {dt:8.2f} {budget / dt:8.0f}")


if __name__ == "__main__":
    main()
