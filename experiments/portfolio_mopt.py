"""mopt's selection rule against the papers' rule, the walk-forward baseline and the hindsight-best
constituent (issue #24), on whole traces with actual and predicted runtimes.

    python experiments/portfolio_mopt.py run --traces KTH-SP2 [--runtimes actual predicted]
           [--rules mopt walk sc13 constituents] [--max-jobs N | --half]
    python experiments/portfolio_mopt.py table     # figures/portfolio_mopt.md and a figure per trace

``run`` appends one row per run to ``figures/portfolio_mopt[_half].csv`` (a rerun of the same trace,
runtime and rule replaces its row): ``constituents`` runs the 60 SC13 policies alone (the best is
the hindsight-best constituent), ``mopt`` the portfolio under mopt's rule (its defaults, Δ = 20,
seed 1), ``sc13`` under the papers' rule, ``walk`` the walk-forward baseline
(:func:`mopt.cloud.walk_forward`). Each row holds U, mean BSD, VM-hours, selections, online
simulations, wall and CPU seconds and the 1-minute load average. ``--half`` runs the first half of
each trace's jobs (where the rule's parameters were chosen). ``table`` writes the gains against the
best constituent and the walk-forward baseline, and ``figures/portfolio_mopt_<trace>.png``.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import pandas as pd
from _common import FIGURES, markdown_table, plt, report, save_figure

from mopt.cloud import portfolio, simulate, simulate_portfolio
from mopt.cloud.walk_forward import walk_forward
from mopt.workloads import load_trace

SEED = 1
TRACES = ("KTH-SP2", "SDSC-SP2", "CTC-SP2", "LPC-EGEE")
RULES = ("constituents", "walk", "mopt", "sc13")
KEYS = ("utility", "bsd", "vm_hours", "utilisation")


def jobs_of(name: str, args) -> pd.DataFrame:
    df = load_trace(name, size_limit=64)
    if args.half:
        return df.head(len(df) // 2).reset_index(drop=True)
    return df.head(args.max_jobs).reset_index(drop=True) if args.max_jobs else df


def one_run(df: pd.DataFrame, rule: str, runtime: str) -> list[dict]:
    """The rows of one rule's run (``constituents``: one row per policy)."""
    if rule == "constituents":
        return [{"rule": p.name, **{k: simulate(df, p, runtime=runtime).summary[k] for k in KEYS}}
                for p in portfolio("sc13")]
    if rule == "walk":
        run = walk_forward(df, "sc13", runtime=runtime)
        extra = {"selections": len(run.months), "online_simulations": 0,
                 "policies": ";".join(run.months["policy"])}
    else:
        run = simulate_portfolio(df, "sc13", seed=SEED, runtime=runtime, selection=rule)
        extra = {k: run.summary[k] for k in ("selections", "online_simulations")}
    return [{"rule": rule, **{k: run.summary[k] for k in KEYS}, **extra}]


def tag_of(args) -> str:
    return "_half" if args.half else (f"_first{args.max_jobs}" if args.max_jobs else "")


def run(args) -> None:
    path = FIGURES / f"portfolio_mopt{tag_of(args)}.csv"
    for name in args.traces:
        df = jobs_of(name, args)
        for runtime in args.runtimes:
            for rule in args.rules:
                load = os.getloadavg()[0]
                t0, c0 = time.perf_counter(), time.process_time()
                rows = one_run(df, rule, runtime)
                wall, cpu = time.perf_counter() - t0, time.process_time() - c0
                for row in rows:
                    row.update(trace=name, jobs=len(df), runtime=runtime, wall_s=wall, cpu_s=cpu,
                               load=load, group=rule)
                old = pd.read_csv(path) if path.exists() else pd.DataFrame()
                if len(old):
                    old = old[~((old.trace == name) & (old.runtime == runtime) & (old.group == rule))]
                pd.concat([old, pd.DataFrame(rows)]).to_csv(path, index=False)
                print(name, runtime, rule, f"U = {max(r['utility'] for r in rows):.3f}",
                      f"wall {wall:.0f} s, CPU {cpu:.0f} s, load {load:.1f}", flush=True)


def gains(table: pd.DataFrame) -> pd.DataFrame:
    """One row per trace and runtime: the best constituent and each rule's gain against it."""
    out = []
    for (name, runtime), g in table.groupby(["trace", "runtime"], sort=False):
        alone = g[g.group == "constituents"]
        if alone.empty:
            continue
        best = alone.loc[alone.utility.idxmax()]
        row = {"trace": name, "runtime": runtime, "jobs": int(g.jobs.iloc[0]),
               "best constituent": best.rule, "its U": best.utility}
        for rule in ("sc13", "walk", "mopt"):
            r = g[g.group == rule]
            row[f"{rule} U"] = r.utility.iloc[0] if len(r) else np.nan
            row[f"{rule} gain %"] = 100 * (row[f"{rule} U"] / best.utility - 1)
        row["mopt vs walk %"] = 100 * (row["mopt U"] / row["walk U"] - 1)
        r = g[g.group == "mopt"]
        row["mopt wall s"] = r.wall_s.iloc[0] if len(r) else np.nan
        out.append(row)
    return pd.DataFrame(out)


def figure(table: pd.DataFrame, name: str, tag: str) -> None:
    """U of the best constituent, the walk-forward baseline and both rules, per runtime variant."""
    g = table[table.trace == name]
    runtimes = list(dict.fromkeys(g.runtime))
    labels = ("best constituent", "walk-forward", "papers' rule (sc13)", "mopt's rule")
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    width = 0.8 / len(labels)
    for i, label in enumerate(labels):
        values = []
        for runtime in runtimes:
            h = g[g.runtime == runtime]
            if i == 0:
                alone = h[h.group == "constituents"]
                values.append(alone.utility.max() if len(alone) else np.nan)
            else:
                r = h[h.group == ("walk", "sc13", "mopt")[i - 1]]
                values.append(r.utility.iloc[0] if len(r) else np.nan)
        ax.bar(np.arange(len(runtimes)) + (i - 1.5) * width, values, width, label=label)
    ax.set_xticks(range(len(runtimes)), [f"{r} runtimes" for r in runtimes])
    ax.set_ylabel("utility U (κ = 100, α = β = 1)")
    ax.set_title(f"{name}{' (' + tag[1:] + ')' if tag else ''}: Δ = 20, seed {SEED}; missing bar: not run",
                 fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    lo = np.nanmin(g.groupby(["runtime", "group"]).utility.max().to_numpy())
    ax.set_ylim(max(0.0, 0.9 * lo), None)
    save_figure(fig, f"portfolio_mopt_{name}{tag}")


def tables(args) -> None:
    tag = tag_of(args)
    table = pd.read_csv(FIGURES / f"portfolio_mopt{tag}.csv")
    out = gains(table)
    head = (f"### mopt's selection rule (issue #24): gain in U against the hindsight-best constituent"
            f"{', ' + tag[1:].replace('_', ' ') if tag else ', whole traces'}\n\n"
            "60 SC13 policies, Δ = 20, λ = 0.6, seed 1; boot 120 s, cap 256 VMs, U with κ = 100, "
            "α = β = 1. walk = the walk-forward baseline (30-day months, month 0 runs the "
            "portfolio's first policy). Empty: not run.\n")
    report(f"portfolio_mopt{tag}", head + "\n" + markdown_table(out, {
        "its U": ".3f", "sc13 U": ".3f", "walk U": ".3f", "mopt U": ".3f", "sc13 gain %": "+.2f",
        "walk gain %": "+.2f", "mopt gain %": "+.2f", "mopt vs walk %": "+.2f", "mopt wall s": ".0f"}))
    for name in dict.fromkeys(table.trace):
        figure(table, name, tag)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["run", "table"])
    parser.add_argument("--traces", nargs="+", default=list(TRACES))
    parser.add_argument("--runtimes", nargs="+", default=["actual", "predicted"])
    parser.add_argument("--rules", nargs="+", default=list(RULES), choices=RULES)
    parser.add_argument("--max-jobs", type=int, default=None)
    parser.add_argument("--half", action="store_true")
    args = parser.parse_args()
    (run if args.what == "run" else tables)(args)


if __name__ == "__main__":
    main()
