"""Every search method on ExPERT's WL3-sized high-resolution strategy space, budgets 1 % .. 100 %.

Run from the repository root::

    python experiments/methods_expert.py [--macroreps 3] [--truth-reps 200]
    python experiments/methods_expert.py --plot-only   # redraw the figure from the CSV (seconds)

The space: the WL3 environment (3,276 tasks, 200 unreliable machines), N = 0..5 and ∞, T and D at 20
values, 10 values of M_r: 15,579 strategies.  Exhaustive search at 30 replications per strategy
(467,370 replications) is the 100 % budget.  The ground truth is an exhaustive search with
``--truth-reps`` replications on a seed of its own.  Each method runs at 1, 2, 5, 10, 25, 50 and
100 % of that budget over ``--macroreps`` macroreplications (common random numbers across methods),
scored by :func:`mopt.compare.compare`: hypervolume ratio of the observed frontier at its true
means, Type I / II errors, and the regret and correct selection of ExPERT's makespan × cost choice.

Writes ``figures/methods_expert.png`` (progress curves), ``figures/methods_expert.md`` (the summary
table) and ``figures/methods_expert.csv`` (every run), and prints the table. ``--plot-only`` redraws
the figure from the committed CSV without simulating (the table is left as it is).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from _common import FIGURES, Timer, markdown_table, plt, report  # noqa: E402

import mopt  # noqa: E402
from mopt.compare import compare, ground_truth, summary  # noqa: E402
from mopt.core.result import atomic_write  # noqa: E402
from mopt.expert import NTDMrProblem, high_resolution_grid, wl3_environment  # noqa: E402
from mopt.progress_plot import plot_progress  # noqa: E402

SEED = 2012
BUDGETS = ["1%", "2%", "5%", "10%", "25%", "50%", "100%"]
METHODS = ["exhaustive", "blind_pick", "oo", "ocba", "mocba", "nsga2"]
#: options that let every method use its whole budget on this space
OPTIONS = {
    "blind_pick": {"alpha": 1.0},  # as many random strategies as the budget pays for, 30 reps each
    "ocba": {"n0": 2},
    "mocba": {"n0": 2},
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--macroreps", type=int, default=3)
    parser.add_argument("--truth-reps", type=int, default=200)
    parser.add_argument("--budgets", default=",".join(BUDGETS))
    parser.add_argument("--methods", default=",".join(METHODS))
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw figures/methods_expert.png from figures/methods_expert.csv")
    args = parser.parse_args(argv)

    env = wl3_environment()
    prob = NTDMrProblem(env, **high_resolution_grid(env), n_reps=30, seed=0)
    if args.plot_only:
        df = pd.read_csv(FIGURES / "methods_expert.csv")
        macroreps = int(df.groupby(["method", "budget"]).size().max())
        figure(df, caption(prob, args.truth_reps, macroreps))
        return
    clock = Timer()
    truth = ground_truth(prob, n_reps=args.truth_reps, seed=SEED + 1)
    print(f"{prob.n_designs} strategies; ground truth with {args.truth_reps} replications each "
          f"in {clock():.0f} s", flush=True)
    methods = args.methods.split(",")
    clock = Timer()
    df = compare(prob, methods, args.budgets.split(","), args.macroreps, seed=SEED, truth=truth,
                 utility=mopt.utility.product("makespan", "cost"),
                 options={m: o for m, o in OPTIONS.items() if m in methods}, progress=True)
    print(f"{len(df)} runs in {clock():.0f} s", flush=True)
    FIGURES.mkdir(exist_ok=True)
    atomic_write(FIGURES / "methods_expert.csv", lambda p: df.to_csv(p, index=False))
    full = prob.n_designs * prob.n_reps
    text = caption(prob, args.truth_reps, args.macroreps)
    figure(df, text)
    table = summary(df)
    table.insert(2, "budget %", (100 * table["budget"] / full).round(1))
    report("methods_expert", "# Search methods on the ExPERT high-resolution space\n\n" + text + "\n\n"
           + markdown_table(table))


def caption(prob, truth_reps: int, macroreps: int) -> str:
    full = prob.n_designs * prob.n_reps
    return (f"ExPERT WL3 high resolution: {prob.n_designs:,} strategies; 100 % = exhaustive at 30 reps "
            f"({full:,} replications); truth: {truth_reps} reps; {macroreps} macroreplications; "
            f"utility makespan × cost")


def figure(df: pd.DataFrame, text: str) -> None:
    fig = plot_progress(df, FIGURES / "methods_expert.png", title="Search methods under equal budgets",
                        caption=text + f"; seed {SEED}", utility_unit="s·cent/task")
    plt.close(fig)


if __name__ == "__main__":
    main()
