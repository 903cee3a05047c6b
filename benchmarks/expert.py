"""ExPERT estimator speed (DESIGN §8), measured in one process after a warm-up run.

    python benchmarks/expert.py [--repeat 3] [--skip-simpy]

Prints:
1. paper resolution: reference scenario (150 tasks, 50 machines), paper grid, 10 reps — target ≤ 0.3 s;
2. the same replications in a straightforward SimPy model of the same estimator (tests/reference/simpy_expert.py),
   timed on a sample of strategies and scaled to the whole grid — target ≥ 50× slower than mopt;
3. WL3-sized high resolution: 3,276 tasks, 200 machines, N = 0..5 and ∞, T and D at 20 values,
   10 M_r values, 30 reps — target ≤ 15 s.
Times are for ``mopt.solve(problem, "exhaustive")``: the whole search, not just the simulator.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo root: mopt, tests.reference

import numpy as np

import mopt
from mopt.expert import NTDMrProblem, high_resolution_grid, reference_environment, wl3_environment
from mopt.expert.strategy import engine_parameters


def timed_solve(problem, n_reps: int, repeat: int) -> tuple[float, mopt.Result]:
    mopt.solve(problem, "exhaustive", seed=0, n_reps=n_reps)  # warm-up: numba compile / cache load
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = mopt.solve(problem, "exhaustive", seed=1, n_reps=n_reps)
        times.append(time.perf_counter() - t0)
    return min(times), result


def simpy_seconds_per_rep(env, problem, n_sample: int = 12, n_keys: int = 2) -> float:
    from tests.reference import simpy_expert

    rng = np.random.default_rng(0)
    picks = rng.choice(problem.n_designs, size=min(n_sample, problem.n_designs), replace=False)
    params = engine_parameters([problem.strategy(int(i)) for i in picks], env)
    keys = mopt.core.random.replication_keys(1, np.arange(n_keys))
    t0 = time.perf_counter()
    simpy_expert.simulate(**env.engine_arguments(), **params, keys=keys)
    return (time.perf_counter() - t0) / (len(picks) * n_keys)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-simpy", action="store_true")
    ap.add_argument("--skip-wl3", action="store_true")
    args = ap.parse_args(argv)

    env = reference_environment(0.1)
    prob = NTDMrProblem(env, n_reps=10)
    t_paper, res = timed_solve(prob, 10, args.repeat)
    print(f"paper resolution: {prob.n_designs} strategies x 10 reps = {res.n_evals} replications "
          f"in {t_paper:.3f} s (target <= 0.3 s)")
    if not args.skip_simpy:
        per_rep = simpy_seconds_per_rep(env, prob)
        t_simpy = per_rep * res.n_evals
        print(f"SimPy model: {per_rep * 1e3:.2f} ms per replication -> {t_simpy:.1f} s for the grid; "
              f"mopt is {t_simpy / t_paper:.0f}x faster (target >= 50x)")
    if not args.skip_wl3:
        wl3 = wl3_environment()
        prob3 = NTDMrProblem(wl3, **high_resolution_grid(wl3), n_reps=30)
        t_wl3, res3 = timed_solve(prob3, 30, max(1, args.repeat - 2))
        print(f"WL3 high resolution: {prob3.n_designs} strategies x 30 reps = {res3.n_evals} replications "
              f"in {t_wl3:.2f} s (target <= 15 s); {prob3.n_excluded} never-finishing strategies left out")
    print(f"machine: {os.cpu_count()} cores; numba threads: {__import__('numba').get_num_threads()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
