"""Virtual-cluster engine speed (DESIGN §8), measured in one process after a warm-up run.

    PYTHONPATH=$PWD python benchmarks/vmc.py [--repeat 3]

Prints:
1. all 27,132 schedules (θ = 20, C = 7) × 1,000 replications × 5 sub-intervals: the simulator
   alone (``problem.replicate``) under both noise models (each schedule its own draws, the default,
   and common random numbers) and the whole ``mopt.solve(problem, "exhaustive")`` — target ≤ 3 s;
2. one eOO stage at 128 VMs (5,169,379,425 schedules): a sample U′ of 27,132 schedules, iOO's
   rough pass (n = 10) and the top s = 30 at N = 1,000 — the time of the search;
3. the plain-Python reference model (tests/reference/vmc_reference.py) on a few schedules, scaled to (1).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo root: mopt, tests.reference

import numpy as np

import mopt
from mopt.vmc.multiperiod_problem import VMMultiPeriodProblem
from mopt.vmc.problem import VMPartitionProblem
from mopt.vmc.workload import generate
from tests.reference import vmc_reference


def period_problem(theta: int, noise: str = "independent") -> VMPartitionProblem:
    """A period of 5 sub-intervals (4 batches after the start) of an HFHD workload at 0.8 load."""
    w = generate("HFHD", theta, 2000.0, 1000.0, seed=7)
    start = w.times[0]
    end = w.times[4] + 60.0
    from mopt.vmc.period import intervals

    L, A = intervals(w.times, w.batches, start, end)
    return VMPartitionProblem(theta, L[:5], A[:5], noise=noise)


def best_of(fn, repeat):
    """(least wall-clock time, least CPU time of this process, output) over ``repeat`` runs; the
    CPU time (all threads) tells what a quiet 2-core machine would need when the wall clock is
    inflated by other jobs: wall ≈ CPU / 2 with both cores free."""
    times, cpus = [], []
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return min(times), min(cpus), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} (2 cores)")
    for noise in ("independent", "common"):
        prob = period_problem(20, noise)
        assert prob.n_designs == 27132 and len(prob.lengths) == 5
        idx, reps = np.arange(prob.n_designs), np.arange(1000)
        prob.replicate(idx[:100], reps[:10], seed=0)  # warm-up (numba cache load)
        prob.replicate(idx, reps[:10], seed=0)  # the parallel kernels too
        t_sim, c_sim, F = best_of(lambda p=prob, i=idx, r=reps: p.replicate(i, r, seed=1), args.repeat)
        print(f"1. simulator, noise={noise!r}: 27,132 schedules x 1,000 reps x 5 sub-intervals: {t_sim:.2f} s "
              f"wall, {c_sim:.2f} s CPU (target <= 3 s)")
    t_solve, c_solve, res = best_of(lambda: mopt.solve(prob, "exhaustive", seed=1, n_reps=1000), 1)
    print(f"   mopt.solve(exhaustive, n_reps=1000), noise={prob.noise!r}: {t_solve:.2f} s wall, {c_solve:.2f} s CPU, "
          f"n_evals {res.n_evals:,}")
    # 2. one eOO stage at 128 VMs
    w = generate("HFHD", 128, 4000.0, 904.0, seed=3)
    mp = VMMultiPeriodProblem(w, 128, scenario=2, base_period=904.0, split_threshold=0.95,
                              merge_threshold=0.7, seed=3)
    mp.stage_problem(0.0, 904.0, np.zeros(7), 0)  # warm-up on another base period (U' is cached per period)
    t0 = time.perf_counter()
    stage = mp.stage_problem(904.0, 1808.0, np.zeros(7), 1)
    t_u = time.perf_counter() - t0
    t_oo, c_oo, r = best_of(lambda: mopt.solve(stage, "ioo", seed=1), 1)
    print(f"2. eOO stage at 128 VMs: sample U' of {stage.n_designs:,} of {mp.u:,} schedules {t_u:.2f} s; "
          f"iOO search (n=10, s=30, N=1000; {r.n_evals:,} reps, {len(stage.lengths)} sub-intervals) {t_oo:.2f} s "
          f"wall, {c_oo:.2f} s CPU")
    # 3. reference model
    k = 3
    t0 = time.perf_counter()
    vmc_reference.replicate(prob, idx[:k], reps[:100], 1)
    t_ref = (time.perf_counter() - t0) / (k * 100) * prob.n_designs * 1000
    print(f"3. plain-Python reference: {t_ref:,.0f} s estimated for (1) ({t_ref / t_sim:,.0f}x slower)")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
