"""Calibration of mopt's uncertainty (issue #22; :mod:`mopt.core.uncertainty`), measured.

On problems whose truth is known, over many macroreplications (independent seeds):

* a reliability table of P(non-dominated): designs reported with P in each decile must be truly
  efficient at that rate, within sampling error;
* the front's P(correct selection) against the observed frequency of "the reported front is the
  true efficient set" (mean prediction vs observed rate, and their reliability table).

Problems: ``synthetic`` (:class:`mopt.NormalProblem`, 12 designs on and near a convex front, sd
0.3, exhaustive at 5, 10 and 30 replications each) and ``expert`` (the ExPERT paper grid, 289
strategies, exhaustive at 10 replications; truth: 1,000 replications of each strategy, same
scenario). Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/calibration.py [--macroreps 200] [--problems synthetic,expert]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
import pandas as pd

import mopt
from mopt.core.pareto import pareto_mask
from mopt.core.uncertainty import reliability


def synthetic_problem(n_reps: int) -> tuple[mopt.NormalProblem, np.ndarray]:
    """12 designs: 8 on a convex front (x, 1/x), 4 just behind it; sd 0.3 in both objectives."""
    x = np.linspace(0.5, 4.0, 8)
    front = np.stack([x, 2.0 / x], axis=1)
    behind = front[[1, 3, 5, 6]] + [0.15, 0.1]
    means = np.vstack([front, behind])
    return mopt.NormalProblem(means, sd=0.3, n_reps=n_reps), pareto_mask(means)


def expert_problem(n_reps: int, truth_reps: int = 1000):
    """The ExPERT paper grid on the demo's environment; the truth from ``truth_reps`` replications."""
    from mopt.expert import NTDMrProblem, reference_environment

    env = reference_environment(0.1)
    truth_run = mopt.solve(NTDMrProblem(env, n_reps=truth_reps), "exhaustive", seed=987654)
    ev = truth_run.evaluations.sort_values("design")
    truth = pareto_mask(ev[list(truth_run.objectives)].to_numpy())
    return NTDMrProblem(env, n_reps=n_reps), truth


def calibrate(problem, truth: np.ndarray, macroreps: int, first_seed: int = 1000):
    """(per-design P and truth, per-run P(CS) and outcome) over ``macroreps`` seeds."""
    p_all, t_all, pcs, hit = [], [], [], []
    for m in range(macroreps):
        r = mopt.solve(problem, "exhaustive", seed=first_seed + m)
        ev = r.evaluations.sort_values("design")
        true = truth[ev["design"].to_numpy()]
        p_all.append(ev["p_nondominated"].to_numpy())
        t_all.append(true)
        front = pareto_mask(ev[list(r.objectives)].to_numpy())
        pcs.append(r.info["uncertainty"]["p_correct_selection"])
        hit.append(bool((front == true).all()))
    return np.concatenate(p_all), np.concatenate(t_all), np.array(pcs), np.array(hit)


def report(name: str, problem, truth, macroreps: int) -> dict:
    start = time.perf_counter()
    p, t, pcs, hit = calibrate(problem, truth, macroreps)
    seconds = time.perf_counter() - start
    table = reliability(p, t)
    worst = ((table["observed"] - table["predicted"]).abs() / table["se"].clip(lower=1e-3)).max()
    print(f"\n{name}: {macroreps} macroreplications, {len(truth)} designs, {problem.n_reps} replications "
          f"each ({seconds:.0f} s)")
    print("P(non-dominated), reliability by decile:")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    se = np.sqrt(hit.mean() * (1 - hit.mean()) / len(hit))
    print(f"P(correct selection): mean prediction {pcs.mean():.3f}, observed {hit.mean():.3f} "
          f"(± {se:.3f} s.e.); gap {pcs.mean() - hit.mean():+.3f}")
    return {"problem": name, "n_reps": problem.n_reps, "pcs_predicted": pcs.mean(), "pcs_observed": hit.mean(),
            "pcs_se": se, "worst_decile_z": worst}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--macroreps", type=int, default=200)
    ap.add_argument("--problems", default="synthetic,expert")
    args = ap.parse_args(argv)
    rows = []
    for name in args.problems.split(","):
        if name == "synthetic":
            for n in (5, 10, 30):
                problem, truth = synthetic_problem(n)
                rows.append(report(f"synthetic n={n}", problem, truth, args.macroreps))
        elif name == "expert":
            problem, truth = expert_problem(10)
            rows.append(report("ExPERT paper grid", problem, truth, args.macroreps))
        else:
            raise SystemExit(f"unknown problem {name!r}")
    print("\nsummary:")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
