"""Cost of mopt's uncertainty (issue #22, :mod:`mopt.core.uncertainty`; targets: <= 10 % of the
demo's search time, <= 1 s for 27,132 designs x 1,000 replications).

* the demo (ExPERT paper grid, 289 strategies x 10 replications, exhaustive): ``mopt.solve`` with
  and without the uncertainty step (median process CPU of ``--repeat`` interleaved pairs);
* 27,132 designs (the virtual-cluster space of 16 VMs, 4 classes) x 1,000 replications, two
  objectives: the annotation alone, from the replications (the multiplier bootstrap), with the
  designs' means on and behind a convex front;
* the same designs from means and standard errors only (independent normals).

Run from the repository root: ``PYTHONPATH=$PWD python benchmarks/uncertainty.py``.
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
from mopt.core import uncertainty
from mopt.core.certified import certified_sets
from mopt.core.classes import class_ids


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def demo(repeat: int) -> None:
    """Interleaved pairs (a search without the step, then one with it), process CPU time, medians:
    the other processes of a shared machine slow both alike."""
    from mopt.expert import NTDMrProblem, reference_environment

    problem = NTDMrProblem(reference_environment(0.1), n_reps=10)
    run = lambda: mopt.solve(problem, "exhaustive", seed=1)  # noqa: E731
    run()  # compile

    def bare():
        mopt.solve(problem, "exhaustive", seed=1, uncertainty=False)

    without, with_it = [], []
    for _ in range(repeat):
        for fn, times in ((bare, without), (run, with_it)):
            start = time.process_time()
            fn()
            times.append(time.process_time() - start)
    a, b = np.median(without) * 1e3, np.median(with_it) * 1e3
    # the classes of equivalent designs run in both (measured alone), the certified sets in neither
    result = run()
    samples = problem.replicate(np.arange(problem.n_designs), np.arange(10), result.seed)
    c = best_of(repeat, lambda: class_ids(samples)) * 1e3
    d = best_of(repeat, lambda: certified_sets(result.evaluations, result.objectives)) * 1e3
    extra = b - a + c + d
    print(f"demo search (289 strategies x 10 replications, median CPU of {repeat} interleaved pairs): "
          f"{a - c:.2f} ms without, +{b - a:.2f} ms the uncertainty, +{c:.2f} ms the classes, +{d:.2f} ms the "
          f"certified sets: +{extra:.2f} ms in all ({extra / (a - c):+.1%}; target <= +10 %)")


def big(repeat: int, designs: int = 27_132, reps: int = 1000) -> None:
    rng = np.random.default_rng(7)
    angle = rng.random(designs) * np.pi / 2
    radius = 1.0 + rng.exponential(0.3, designs)  # most designs well behind the front
    means = np.stack([np.cos(angle), np.sin(angle)], axis=1) * radius[:, None]
    samples = [means[k] + 0.05 * rng.standard_normal((reps, 2)) for k in range(designs)]
    ev = pd.DataFrame({"design": np.arange(designs)})
    ev["f1"] = [s[:, 0].mean() for s in samples]
    ev["f1_se"] = [s[:, 0].std(ddof=1) / np.sqrt(reps) for s in samples]
    ev["f2"] = [s[:, 1].mean() for s in samples]
    ev["f2_se"] = [s[:, 1].std(ddof=1) / np.sqrt(reps) for s in samples]
    ev["n_reps"] = reps
    out = {}
    seconds = best_of(repeat, lambda: out.update(r=uncertainty.annotate(ev, ["f1", "f2"], samples=samples)))
    summary = out["r"][1]
    cand = int((out["r"][0]["p_nondominated"] > 0).sum())
    print(f"{designs:,} designs x {reps:,} replications, from the replications: {seconds:.3f} s (target <= 1 s); "
          f"{cand} designs with P > 0, P(correct selection) {summary['p_correct_selection']:.3f}")
    stacked = np.stack(samples)
    classes = best_of(repeat, lambda: class_ids(stacked))
    certified = best_of(repeat, lambda: certified_sets(out["r"][0], ["f1", "f2"]))
    print(f"  + the classes of equivalent designs {classes:.3f} s, + the certified sets {certified:.3f} s: "
          f"{seconds + classes + certified:.3f} s in all (target <= 1 s)")
    seconds = best_of(repeat, lambda: uncertainty.annotate(ev, ["f1", "f2"]))
    print(f"the same from means and standard errors: {seconds:.3f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    demo(args.repeat)
    big(args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
