"""Certified sets (issue #33 part 3; :mod:`mopt.core.certified`), measured: coverage at every look.

For each problem of ``benchmarks/truths.py`` (truth known) and each of ``--macroreps`` seeds: 100
replications of every design, once; then a look at every prefix n = 3, 4, ..., 100 of them (nested
replications of one seed, as a user who adds replications and looks again would see):
:func:`mopt.core.certified.certified_sets` at ``--level`` on the prefix's means, standard errors and
classes (designs whose replications are identical so far, :func:`mopt.core.classes.class_ids`).

A look misclassifies if some design's class is called ``"efficient"`` although the design is truly
dominated, or ``"dominated"`` although it is truly efficient (each design is checked against its
own truth). Printed per truth: the fraction of macroreplications in which *any* look misclassifies
(the guarantee: at most 1 - level, within 2 standard errors, when the assumptions hold), and the
mean numbers of undecided classes at n = 10, 30 and 100 (the power); then a markdown table. Two
more truths test robustness to skewed noise where decisions are made: ``lognormal-wide`` and
``lognormal-heavy`` (:func:`wide_lognormal`).
First the cost (best of 5): the demo's 289 strategies (10 replications, classes from
:func:`mopt.core.classes.class_ids`) and a 27,132-design table (two objectives, 1,000 replications).
Run from the repository root::

    PYTHONPATH=$PWD nice python benchmarks/certified.py [--macroreps 200] [--truths synthetic,expert]
    PYTHONPATH=$PWD nice python benchmarks/certified.py --timing   # the cost only
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
from benchmarks.truths import TRUTHS, LognormalProblem, front_layout
from benchmarks.uncertainty import best_of
from mopt.core.certified import certified_sets
from mopt.core.classes import class_ids
from mopt.core.pareto import pareto_mask


def wide_lognormal(n_reps: int, sigma: float):
    """Robustness: 10 designs (5 on the front (x, 2/x), 5 behind by 0.5 .. 8), each objective
    lognormal with that mean and ``sigma`` the sd of its log (0.5: skewness 1.75; 1.0: 6.2); far
    enough apart that designs get decided by n = 30 .. 100 (the ``lognormal`` truth's are not)."""
    means = front_layout(k_front=5, offsets=(0.5, 1.0, 2.0, 4.0, 8.0))
    return LognormalProblem(means, sigma=sigma, n_reps=n_reps), pareto_mask(means)


TRUTHS = {**TRUTHS, "lognormal-wide": lambda n: wide_lognormal(n, 0.5),
          "lognormal-heavy": lambda n: wide_lognormal(n, 1.0)}
LOOKS = np.arange(3, 101)
REPORT_AT = (10, 30, 100)


def prefix_moments(values: np.ndarray):
    """``(means, ses)`` (L, D, m) of the prefixes n in :data:`LOOKS` of ``values`` (D, R, m)."""
    n = LOOKS[:, None, None].astype(float)
    c1 = np.cumsum(values, axis=1).transpose(1, 0, 2)[LOOKS - 1]
    means = c1 / n
    ses = np.empty_like(means)
    for k, count in enumerate(LOOKS):  # two-pass variance (a cumulative sum of squares loses digits)
        ses[k] = values[:, :count].std(axis=1, ddof=1) / np.sqrt(count)
    return means, ses


def macroreplication(problem, truth, seed: int, level: float, crn: bool):
    """``(any_wrong, undecided at REPORT_AT, efficient at REPORT_AT, dominated at REPORT_AT, seconds)``."""
    D = problem.n_designs
    values = problem.replicate(np.arange(D), np.arange(LOOKS[-1]), seed)
    means, ses = prefix_moments(values)
    objectives = list(problem.objectives)
    wrong = False
    counts = {}
    seconds = 0.0
    for k, n in enumerate(LOOKS):
        frame = {"design": np.arange(D)}
        for j, o in enumerate(objectives):
            frame[o] = means[k, :, j]
            frame[f"{o}_se"] = ses[k, :, j]
        frame["n_reps"] = np.full(D, n)
        if crn:
            frame["class"] = class_ids(values[:, :n])
        ev = pd.DataFrame(frame)
        start = time.perf_counter()
        cert = certified_sets(ev, objectives, level=level)
        seconds += time.perf_counter() - start
        cls = frame["class"] if crn else np.arange(D)
        status = cert["status"].to_numpy()[cls]  # each design's class's status (classes numbered 0..K-1)
        wrong |= bool(((status == "efficient") & ~truth).any() or ((status == "dominated") & truth).any())
        if n in REPORT_AT:
            s = cert["status"].to_numpy()
            counts[int(n)] = (int((s == "undecided").sum()), int((s == "efficient").sum()),
                              int((s == "dominated").sum()), len(s))
    return wrong, counts, seconds


def run(name: str, macroreps: int, level: float, first_seed: int = 5000) -> dict:
    problem, truth = TRUTHS[name](int(LOOKS[-1]))
    truth = np.asarray(truth, dtype=bool)
    crn = name == "expert"
    start = time.perf_counter()
    wrong, per_n, cert_seconds = [], {n: [] for n in REPORT_AT}, 0.0
    for r in range(macroreps):
        w, counts, s = macroreplication(problem, truth, first_seed + r, level, crn)
        wrong.append(w)
        cert_seconds += s
        for n in REPORT_AT:
            per_n[n].append(counts[n])
    wrong = np.array(wrong)
    rate = wrong.mean()
    se = np.sqrt(max(rate * (1 - rate), 1.0 / macroreps) / macroreps)  # at least 1/M: no zero se at 0
    out = {"truth": name, "designs": problem.n_designs, "efficient": int(truth.sum()), "macroreps": macroreps,
           "wrong": rate, "wrong_se": se, "ok": bool(rate <= 1 - level + 2 * se),
           "seconds": time.perf_counter() - start, "ms_per_look": 1e3 * cert_seconds / (macroreps * len(LOOKS))}
    for n in REPORT_AT:
        a = np.array(per_n[n], dtype=float)
        out[f"undecided@{n}"], out[f"efficient@{n}"], out[f"dominated@{n}"], out[f"classes@{n}"] = a.mean(axis=0)
    print(f"\n{name}: {out['designs']} designs ({out['efficient']} efficient), {macroreps} macroreplications, "
          f"looks n = {LOOKS[0]}..{LOOKS[-1]} ({out['seconds']:.0f} s; certified_sets {out['ms_per_look']:.2f} ms a look)")
    print(f"  any look misclassifies: {rate:.3f} +- {se:.3f} (guarantee <= {1 - level:.2f}: "
          f"{'holds' if out['ok'] else 'FAILS'})")
    for n in REPORT_AT:
        print(f"  n = {n:3d}: classes {out[f'classes@{n}']:.1f}, undecided {out[f'undecided@{n}']:.1f}, "
              f"efficient {out[f'efficient@{n}']:.1f}, dominated {out[f'dominated@{n}']:.1f}")
    return out


def timing(repeat: int = 5) -> None:
    from mopt.expert import NTDMrProblem, reference_environment

    problem = NTDMrProblem(reference_environment(0.1), n_reps=10)
    values = problem.replicate(np.arange(problem.n_designs), np.arange(10), 1)
    result = mopt.solve(problem, "exhaustive", seed=1, uncertainty=False)
    ev = result.evaluations.assign(**{"class": class_ids(values)})
    seconds = best_of(repeat, lambda: certified_sets(ev, result.objectives))
    print(f"demo, 289 strategies ({ev['class'].nunique()} classes) x 10 replications: {1e3 * seconds:.2f} ms")
    rng = np.random.default_rng(7)
    designs, reps = 27_132, 1000
    angle = rng.random(designs) * np.pi / 2
    radius = 1.0 + rng.exponential(0.3, designs)
    means = np.stack([np.cos(angle), np.sin(angle)], axis=1) * radius[:, None]
    ses = 0.05 / np.sqrt(reps) * np.sqrt(rng.chisquare(reps - 1, (designs, 2)) / (reps - 1))
    big = pd.DataFrame({"design": np.arange(designs), "f1": means[:, 0] + ses[:, 0] * rng.standard_normal(designs),
                        "f1_se": ses[:, 0], "f2": means[:, 1] + ses[:, 1] * rng.standard_normal(designs),
                        "f2_se": ses[:, 1], "n_reps": reps})
    out = {}
    seconds = best_of(repeat, lambda: out.update(c=certified_sets(big, ["f1", "f2"])))
    counts = out["c"]["status"].value_counts().to_dict()
    print(f"{designs:,} designs x {reps:,} replications: {1e3 * seconds:.2f} ms ({counts})")


def markdown(rows: list, level: float) -> str:
    head = ("| truth | designs (efficient) | P(any look misclassifies) ± se | undecided at n = 10 | 30 | 100 |\n"
            "|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        und = " | ".join(f"{r[f'undecided@{n}']:.1f} / {r[f'classes@{n}']:.0f}" for n in REPORT_AT)
        lines.append(f"| {r['truth']} | {r['designs']} ({r['efficient']}) | {r['wrong']:.3f} ± {r['wrong_se']:.3f}"
                     f"{'' if r['ok'] else ' (above ' + format(1 - level, '.2f') + ')'} | {und} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--macroreps", type=int, default=200)
    parser.add_argument("--level", type=float, default=0.95)
    parser.add_argument("--truths", default=",".join(TRUTHS))
    parser.add_argument("--timing", action="store_true", help="the cost only")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    timing()
    if args.timing:
        return 0
    rows = [run(name, args.macroreps, args.level) for name in args.truths.split(",")]
    print(f"\nlevel {args.level}; undecided: mean classes undecided / classes")
    print(markdown(rows, args.level))
    return 0


if __name__ == "__main__":
    sys.exit(main())
