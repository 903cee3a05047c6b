"""How NSGA-II does on the ExPERT WL3-sized high-resolution strategy space (DESIGN §3).

    python benchmarks/nsga2_expert.py [--seeds 5] [--truth-reps 200]

Problem: ``NTDMrProblem(wl3_environment(), **high_resolution_grid(env), n_reps=30)`` — 15,579
strategies; exhaustive search spends 15,579 × 30 = 467,370 replications.

Ground truth: exhaustive search with ``--truth-reps`` replications per design (seed 999, cached in
the temp directory by problem fingerprint).  Score of a run = hypervolume ratio
(:func:`mopt.compare.hypervolume_ratio`): the designs of ``result.front`` (the observed Pareto set)
at their TRUE means, normalised by the true front's ideal and nadir, reference point 1.1, over the
hypervolume of the true front.  Also shown: the ratio for ``info["selected"]`` (the final
population's first front, which is what ``mopt.compare`` scores for NSGA-II), blind pick at the same
budget, and exhaustive search itself (30 replications per design).

Requirement: NSGA-II reaches ≥ 0.95 of the exhaustive frontier's hypervolume with ≤ 25 % of
exhaustive's budget.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

import mopt
from mopt.compare import hypervolume_ratio
from mopt.expert import NTDMrProblem, high_resolution_grid, wl3_environment

FRACTIONS = (0.05, 0.10, 0.25)
OBJECTIVES = ["makespan", "cost"]


def true_means(prob, n_reps: int) -> np.ndarray:
    """Objective means of every design from ``n_reps`` replications (seed 999), cached on disk."""
    path = os.path.join(tempfile.gettempdir(), f"mopt_nsga2_truth_{prob.fingerprint()}_{n_reps}.npy")
    if os.path.exists(path):
        return np.load(path)
    t0 = time.perf_counter()
    res = mopt.solve(prob, "exhaustive", seed=999, n_reps=n_reps)
    F = res.evaluations[OBJECTIVES].to_numpy()
    print(f"ground truth: exhaustive, {n_reps} reps per design, {time.perf_counter() - t0:.0f} s "
          f"(cached in {path})")
    np.save(path, F)
    return F


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5, help="macroreplications (seeds 0..N-1)")
    ap.add_argument("--truth-reps", type=int, default=200)
    args = ap.parse_args(argv)

    env = wl3_environment()
    prob = NTDMrProblem(env, **high_resolution_grid(env), n_reps=30, seed=0)
    full = prob.n_designs * prob.n_reps
    print(f"WL3-sized high-resolution space: {prob.n_designs} designs; exhaustive = {full} replications")
    truth = true_means(prob, args.truth_reps)
    true_front = truth[mopt.pareto_mask(truth)]
    print(f"true Pareto front: {len(true_front)} designs")

    def score(designs) -> float:
        return hypervolume_ratio(truth[np.asarray(designs, dtype=np.int64)], true_front)

    seeds = range(args.seeds)
    exhaustive = {}
    t0 = time.perf_counter()
    for s in seeds:
        exhaustive[s] = score(mopt.solve(prob, "exhaustive", seed=s).front["design"])
    t_exh = (time.perf_counter() - t0) / len(seeds)
    ex = np.array(list(exhaustive.values()))
    print(f"\nexhaustive (30 reps, budget 100 %): HV ratio mean {ex.mean():.4f}, min {ex.min():.4f}; "
          f"{t_exh:.1f} s per run\n")

    header = (f"{'budget':>7} {'reps':>7} | {'NSGA-II front HV':>17} {'min':>6} | {'selected HV':>11} "
              f"{'min':>6} | {'÷ exhaustive':>12} {'min':>6} | {'blind pick':>10} | {'gens':>4} {'s/run':>6}")
    print(header)
    print("-" * len(header))
    worst_at_25 = np.inf
    for frac in FRACTIONS:
        budget = int(frac * full)
        front_hv, selected_hv, relative, blind, gens, times = [], [], [], [], [], []
        for s in seeds:
            t0 = time.perf_counter()
            res = mopt.solve(prob, "nsga2", seed=s, budget=budget)
            times.append(time.perf_counter() - t0)
            assert res.n_evals <= budget
            front_hv.append(score(res.front["design"]))
            selected_hv.append(score(res.info["selected"]))
            relative.append(front_hv[-1] / exhaustive[s])
            gens.append(res.info["generations"])
            blind.append(score(mopt.solve(prob, "blind_pick", seed=s, budget=budget, alpha=1.0).front["design"]))
        if frac == 0.25:
            worst_at_25 = min(relative)
        print(f"{frac:>6.0%} {budget:>7} | {np.mean(front_hv):>17.4f} {min(front_hv):>6.4f} | "
              f"{np.mean(selected_hv):>11.4f} {min(selected_hv):>6.4f} | {np.mean(relative):>12.4f} "
              f"{min(relative):>6.4f} | {np.mean(blind):>10.4f} | {np.mean(gens):>4.0f} {np.mean(times):>6.1f}")
        print(f"{'':>16}per seed: {' '.join(f'{v:.4f}' for v in front_hv)}")
    ok = worst_at_25 >= 0.95
    print(f"\nrequirement (≥ 0.95 of exhaustive's hypervolume with 25 % of its budget, every seed): "
          f"{'met' if ok else 'NOT met'} (worst seed {worst_at_25:.4f})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
