"""KOALA-C beyond the paper: the three-objective frontier of TagsProblem (spec §6) on CTC-SP2.

Run from the repository root::

    python experiments/koala_frontier.py [--reps 10] [--budget 0.5]
    python experiments/koala_frontier.py --replot   # redraw the figure from the CSV files

TAGS-sets on the five sites; decisions L1, set 2, public cap, private minimum, and for three sets
also L2 and set 3; objectives mean slowdown of short jobs (<= L1), of long jobs, and the
public-cloud cost. Replications: random 2-4-week windows of the unscaled CTC-SP2 trace with
arrivals rescaled to a drawn offered load of 0.8-1.3 of the three clusters (common random numbers:
the same windows for both subspaces). On a 60-design two-set subspace and a 72-design three-set
subspace, exhaustive search with ``--reps`` replications is the reference; MOCBA and NSGA-II get
``--budget`` of its replications, and their fronts are scored at the exhaustive means (hypervolume
ratio, designs found). Writes ``figures/koala_frontier.png`` / ``.md`` / ``.csv`` (the exhaustive
evaluations) and ``figures/koala_frontier_fronts.csv`` (the designs on each method's front, seed 1).
``--replot`` redraws the figure from those two files without the exhaustive search (if the fronts
file is missing it re-runs MOCBA and NSGA-II at seed 1 only, about a minute, and writes it).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from koala_common import (
    FIGURES,
    axis_label,
    markdown_table,
    plain_log_ticks,
    plt,
    report,
    save_figure,
    trace,
    write_csv,
)

import mopt
from mopt.core.pareto import hypervolume, pareto_mask
from mopt.koala import TagsProblem
from mopt.plot import method_label

SUBSPACES = {
    "two sets": {
        "limits": [10, 20, 40, 80, 160],
        "set2": [["C3", "private", "public"], ["private", "public"], ["C2", "C3", "private", "public"],
                 ["C3", "private"]],
        "public_caps": [0, 32, 128],
        "private_mins": [8],
    },
    "three sets": {
        "limits": [10, 20, 40],
        "set2": [["C3", "private", "public"], ["C2", "C3", "private", "public"]],
        "limits2": [80, 160],
        "set3": [["private", "public"], ["C3", "private"], ["public"]],
        "public_caps": [32, 128],
        "private_mins": [8],
    },
}
OBJ = ["slowdown_short", "slowdown_long", "public_cost"]
SEED = 1
METHODS = (("mocba", {"n0": 3, "delta": 10}), ("nsga2", {"pop_size": 12}))


def frontier(label: str, reps: int, share: float, seeds: int = 1
             ) -> tuple[pd.DataFrame, pd.DataFrame, dict, TagsProblem]:
    """Exhaustive, MOCBA and NSGA-II on one subspace: the score table (each method over ``seeds``
    seeds: the mean and standard error of its scores), the exhaustive evaluations (with the
    decoded parameters) and each method's front (of seed ``SEED``)."""
    problem = TagsProblem(trace("CTC-SP2"), **SUBSPACES[label], n_reps=reps, seed=SEED)
    truth = mopt.solve(problem, "exhaustive", seed=SEED, n_reps=reps)
    means = truth.evaluations.set_index("design")[OBJ]
    true_front = set(truth.front["design"])
    F = means.to_numpy()
    ref = F.max(axis=0) * 1.1 + 1e-9
    hv_true = hypervolume(F[pareto_mask(F)], ref)
    budget = int(share * problem.n_designs * reps)
    rows = [{"subspace": label, "designs": problem.n_designs, "method": "exhaustive", "seeds": 1,
             "replications": truth.n_evals,
             "front size": len(true_front), "true front designs found": len(true_front), "hypervolume ratio": 1.0,
             "seconds": None}]
    fronts = {"exhaustive": truth.front}
    for method, options in METHODS:
        runs = []
        for seed in range(SEED, SEED + seeds):
            t0 = time.perf_counter()
            res = mopt.solve(problem, method, budget=budget, seed=seed, **options)
            found = set(res.front["design"])
            G = means.loc[sorted(found)].to_numpy()
            runs.append({"replications": res.n_evals, "front size": len(found),
                         "true front designs found": len(found & true_front),
                         "hypervolume ratio": hypervolume(G[pareto_mask(G)], ref) / hv_true,
                         "seconds": time.perf_counter() - t0})
            if seed == SEED:
                fronts[method] = res.front
        runs = pd.DataFrame(runs)
        se = runs["hypervolume ratio"].std(ddof=1) / np.sqrt(len(runs)) if len(runs) > 1 else np.nan
        rows.append({"subspace": label, "designs": problem.n_designs, "method": method, "seeds": len(runs),
                     **runs.mean().to_dict(), "HV ratio SE": se, "HV ratio min": runs["hypervolume ratio"].min()})
    return pd.DataFrame(rows), truth.evaluations.assign(subspace=label), fronts, problem


def joint_front(evaluations: pd.DataFrame) -> pd.DataFrame:
    """The frontier of both subspaces together (same replications: common random numbers)."""
    F = evaluations[OBJ].to_numpy()
    return evaluations[pareto_mask(F)]


def plot(evaluations: pd.DataFrame, fronts: dict, reps: int, share: float) -> None:
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    for row, (label, ev) in zip(axes, evaluations.groupby("subspace", sort=False), strict=True):
        means = ev.set_index("design")[OBJ]
        for ax, (x, y) in zip(row, (("slowdown_short", "slowdown_long"), ("slowdown_short", "public_cost")),
                              strict=True):
            ax.scatter(ev[x], ev[y], s=10, color="lightgrey", label="every design (exhaustive means)")
            for method, marker in (("exhaustive", "o"), ("mocba", "x"), ("nsga2", "+")):
                f = means.loc[fronts[label][method]["design"]]
                budget = "" if method == "exhaustive" else f", {share:.0%} of the replications"
                ax.scatter(f[x], f[y], marker=marker, s=40, label=f"{method_label(method)} front{budget}")
            ax.set_xlabel(axis_label("koala", x))
            ax.set_ylabel(axis_label("koala", y))
            ax.set_xscale("log")
            ax.set_title(f"{label} ({len(ev)} designs)", fontsize=10)
            if y == "public_cost":
                ax.set_yscale("symlog", linthresh=10)
                ax.set_ylim(0, ev[y].max() * 1.6)  # room above the dearest design
            else:
                ax.set_yscale("log")
            plain_log_ticks(ax)
            ax.grid(True, which="major", alpha=0.3)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle(f"TagsProblem on CTC-SP2: 2-4-week windows at load 0.8-1.3 of the clusters, {reps} replications "
                 f"per design, seed {SEED}\nfronts scored at the exhaustive means; public-cloud cost per window",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    save_figure(fig, "koala_frontier")


def fronts_frame(fronts: dict) -> pd.DataFrame:
    """The designs on each method's front, one row per (subspace, method, design)."""
    return pd.DataFrame([{"subspace": label, "method": method, "design": int(d)}
                         for label, by_method in fronts.items() for method, front in by_method.items()
                         for d in front["design"]])


def replot(reps: int, share: float) -> None:
    """Redraw the figure from figures/koala_frontier.csv and figures/koala_frontier_fronts.csv; without
    the fronts file, re-run MOCBA and NSGA-II at seed SEED only (as the full run does) and write it."""
    ev = pd.read_csv(FIGURES / "koala_frontier.csv")
    path = FIGURES / "koala_frontier_fronts.csv"
    if path.exists():
        rows = pd.read_csv(path)
        fronts = {label: {m: g for m, g in part.groupby("method", sort=False)}
                  for label, part in rows.groupby("subspace", sort=False)}
    else:
        fronts = {}
        for label in SUBSPACES:
            sub = ev[ev["subspace"] == label]
            problem = TagsProblem(trace("CTC-SP2"), **SUBSPACES[label], n_reps=reps, seed=SEED)
            budget = int(share * problem.n_designs * reps)
            fronts[label] = {"exhaustive": sub[pareto_mask(sub[OBJ].to_numpy())]}
            for method, options in METHODS:
                fronts[label][method] = mopt.solve(problem, method, budget=budget, seed=SEED, **options).front
                print(f"{label}: {method} front of {len(fronts[label][method])} designs", flush=True)
        write_csv(fronts_frame(fronts), "koala_frontier_fronts")
    plot(ev, fronts, reps, share)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--budget", type=float, default=0.5, help="share of exhaustive's replications")
    parser.add_argument("--seeds", type=int, default=5, help="seeds of MOCBA and NSGA-II (from SEED)")
    parser.add_argument("--replot", action="store_true",
                        help="redraw the figure from the CSV files (no exhaustive search; the table is kept)")
    args = parser.parse_args()
    if args.replot:
        replot(args.reps, args.budget)
        return
    begin = time.perf_counter()
    tables, evaluations, fronts = [], [], {}
    for label in SUBSPACES:
        table, ev, fronts[label], problem = frontier(label, args.reps, args.budget, args.seeds)
        tables.append(table)
        evaluations.append(ev)
        print(f"{label}: {problem.n_designs} designs done after {time.perf_counter() - begin:.0f} s", flush=True)
    table, ev = pd.concat(tables, ignore_index=True), pd.concat(evaluations, ignore_index=True)
    write_csv(ev, "koala_frontier")
    write_csv(fronts_frame(fronts), "koala_frontier_fronts")
    plot(ev, fronts, args.reps, args.budget)
    joint = joint_front(ev)
    parameters = ["L1", "set2", "L2", "set3", "public_cap", "private_min"]
    fmt = {"slowdown_short": ".2f", "slowdown_long": ".2f", "public_cost": ",.0f", "L2": ".0f"}
    lines = [
        "# KOALA-C TagsProblem: three-objective frontier on CTC-SP2 (beyond the paper)", "",
        "Replications: random 14-28-day windows of CTC-SP2 (unscaled trace: 0.49 of the five sites) with arrivals "
        "rescaled to a drawn offered load of 0.8-1.3 of the 96 cluster nodes; common random numbers (the same "
        f"windows for every design of both subspaces); seed {SEED}. Exhaustive: {args.reps} replications per "
        f"design; MOCBA and NSGA-II: {100 * args.budget:.0f} % of exhaustive's replications, seeds {SEED}.."
        f"{SEED + args.seeds - 1} (the table: means over the seeds, the hypervolume ratio's standard error and "
        f"minimum; the figure and fronts: seed {SEED}). Fronts scored at the exhaustive means.", "",
    ]
    for label, sub in SUBSPACES.items():
        lines.append(f"- {label}: " + " x ".join(
            f"{k} {['+'.join(v) for v in vals] if k.startswith('set') else vals}" for k, vals in sub.items()))
    lines += ["", markdown_table(table, {"hypervolume ratio": ".3f", "HV ratio SE": ".3f", "HV ratio min": ".3f",
                                         "seconds": ".0f", "replications": ".0f", "front size": ".1f",
                                         "true front designs found": ".1f"}), ""]
    for label in SUBSPACES:
        front = fronts[label]["exhaustive"].sort_values("slowdown_short")
        cols = [c for c in parameters if c in front.columns]
        lines += [f"Exhaustive frontier, {label} (means):", "",
                  markdown_table(front[cols + OBJ], fmt), ""]
    lines += [f"Joint frontier of both subspaces: {len(joint)} designs, {int((joint['subspace'] == 'three sets').sum())} "
              "of them with three sets.", "",
              markdown_table(joint.sort_values("slowdown_short")[["subspace", *parameters, *OBJ]], fmt), "",
              f"{time.perf_counter() - begin:.0f} s in all."]
    report("koala_frontier", "\n".join(lines))


if __name__ == "__main__":
    main()
