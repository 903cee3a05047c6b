"""SC13 reproduced: the 60-policy portfolio against its constituents on real traces (Figs. 4, 5,
7/8), and its sensitivity to the time budget Δ (Fig. 10), the selection period (Fig. 9) and the
utility's exponents α, β (Fig. 6).

    python experiments/portfolio_sc13.py versus --traces KTH-SP2 SDSC-SP2 LPC-EGEE
    python experiments/portfolio_sc13.py versus --traces KTH-SP2 SDSC-SP2 LPC-EGEE --runtime predicted
    python experiments/portfolio_sc13.py budget --traces KTH-SP2
    python experiments/portfolio_sc13.py period --traces KTH-SP2 [--max-jobs 4000]
    python experiments/portfolio_sc13.py exponents --traces KTH-SP2 [--max-jobs 4000]

Writes figures/portfolio_versus_<trace>[_<runtime>][_first<N>].png/.md and
figures/portfolio_<budget|period|exponents>[_first<N>].png/.md (N = --max-jobs). Traces come from
MOPT_DATA_DIR (or are fetched), cleaned as SC13 did with jobs of at most 64 processors; SC13's
cloud: boot 120 s, 20 s scheduling step, at most 256 VMs, U with κ = 100, α = β = 1. Algorithm 1
draws its Poor policies from seed 1; nothing else is random, so one run per setting is the whole
experiment.
"""

from __future__ import annotations

import argparse
import time

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from _common import FIGURES, markdown_table, report

from mopt.cloud import simulate_portfolio
from mopt.workloads import load_trace
from mopt.cloud.portfolio_report import best_by_provisioning, plot_versus, portfolio_versus
from mopt.plot import save_figure

SEED = 1
#: SC13 §6.1: the portfolio's gain in U over its best constituent, per runtime variant
PAPER_GAIN = {
    "actual": {"KTH-SP2": 8.0, "SDSC-SP2": 11.0, "LPC-EGEE": 30.0},
    "predicted": {"KTH-SP2": 6.87, "SDSC-SP2": 15.6, "LPC-EGEE": 31.0},
    "user": {"KTH-SP2": 7.72, "SDSC-SP2": 18.04, "LPC-EGEE": 30.74},
}
BUDGETS = (1, 2, 5, 10, 15, 20, 30, 40, 60)
PERIODS = (1, 2, 4, 8, 16)
EXPONENTS = ((1, 1), (2, 1), (4, 1), (1, 0.5), (1, 2), (1, 0), (0, 1))


def trace(name: str, max_jobs: int | None) -> pd.DataFrame:
    df = load_trace(name, size_limit=64)
    return df.head(max_jobs).reset_index(drop=True) if max_jobs else df


def scope(name: str, df: pd.DataFrame, max_jobs: int | None) -> str:
    return f"{name}, {'first ' if max_jobs else 'all '}{len(df):,} jobs (<= 64 processors)"


def versus(args) -> None:
    for name in args.traces:
        lines, summary = [], []
        df = trace(name, args.max_jobs)
        t0 = time.perf_counter()
        table, run = portfolio_versus(df, "sc13", budget=args.budget, period=1, seed=SEED,
                                      runtime=args.runtime)
        seconds = time.perf_counter() - t0
        rt = ("" if args.runtime == "actual" else f"_{args.runtime}") + (
            f"_first{args.max_jobs}" if args.max_jobs else "")
        tag = f"portfolio_versus_{name}{rt}"
        plot_versus(table, run, FIGURES / f"{tag}.png",
                    title=f"SC13 Fig. 4/5: {scope(name, df, args.max_jobs)}, {args.runtime} "
                          f"runtimes, Δ = {args.budget}, seed {SEED}")
        best = table.iloc[:-1]["utility"].idxmax()
        gain = 100 * table.loc[best, "gain"]
        paper = PAPER_GAIN[args.runtime].get(name)
        summary.append({"trace": name, "jobs": len(df), "portfolio U": table["utility"].iloc[-1],
                        "best constituent": table.loc[best, "policy"],
                        "its U": table.loc[best, "utility"], "gain %": gain,
                        "SC13 gain %": paper if paper is not None else np.nan,
                        "selections": run.summary["selections"], "seconds": seconds})
        groups = best_by_provisioning(table)
        shares = run.shares().groupby([p.provisioning for p in run.portfolio], sort=False).sum()
        lines += [f"### {scope(name, df, args.max_jobs)}", "",
                  "Best policy of each provisioning group and the portfolio (SC13 Fig. 4):", "",
                  markdown_table(groups.drop(columns=["gain"]).assign(
                      gain_pct=100 * groups["gain"]), {"vm_hours": ",.0f", "gain_pct": "+.1f"}),
                  "", "Share of selections by provisioning policy (SC13 Fig. 5c): " + ", ".join(
                      f"{k} {v:.0%}" for k, v in shares.items()), ""]
        report(tag, _head(args) + "\n" + markdown_table(
            pd.DataFrame(summary), {"gain %": "+.1f", "SC13 gain %": "+.2f", "seconds": ".0f",
                                    "jobs": ",d"}) + "\n\n" + "\n".join(lines))


def _head(args) -> str:
    return (f"# SC13: the 60-policy portfolio against its constituents ({args.runtime} runtimes)\n\n"
            f"Δ = {args.budget} simulated policies per selection, λ = 0.6, selection every 20 s "
            f"tick with a queue, seed {SEED}; boot 120 s, cap 256 VMs, U with κ = 100, α = β = 1.\n"
            f"DAS2-fs0 (SC13: +45 %) is not in the Parallel Workloads Archive: not run.\n")


def sweep(args, what: str) -> None:
    values = {"budget": BUDGETS, "period": PERIODS, "exponents": EXPONENTS}[what]
    rows = []
    for name in args.traces:
        df = trace(name, args.max_jobs)
        for v in values:
            kw = {"budget": args.budget, "period": 1}
            if what == "budget":
                kw["budget"] = v
            elif what == "period":
                kw["period"] = v
            else:
                kw["alpha"], kw["beta"] = v
            t0 = time.perf_counter()
            run = simulate_portfolio(df, "sc13", seed=SEED, runtime=args.runtime, **kw)
            s = run.summary
            rows.append({"trace": name, what: str(v), "utility": s["utility"], "bsd": s["bsd"],
                         "vm_hours": s["vm_hours"], "utilisation": s["utilisation"],
                         "selections": s["selections"], "seconds": time.perf_counter() - t0})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.4))
    for name, part in table.groupby("trace", sort=False):
        x = np.arange(len(part))
        base = part.iloc[0]
        for ax, col in zip(axes, ("utility", "bsd", "vm_hours", "selections"), strict=True):
            y = part[col] / base[col] if what == "period" else part[col]
            ax.plot(x, y, "o-", label=name)
            ax.set_xticks(x, part[what], fontsize=7, rotation=30 if what == "exponents" else 0)
            ax.set_title(col + (" (÷ period 1)" if what == "period" else ""), fontsize=9)
    axes[0].legend(fontsize=7)
    xlabel = {"budget": "Δ (policies simulated per selection)", "period": "selection period (ticks)",
              "exponents": "(α, β)"}[what]
    for ax in axes:
        ax.set_xlabel(xlabel, fontsize=8)
    fig.suptitle(f"SC13 Fig. {dict(budget=10, period=9, exponents=6)[what]}: "
                 f"{', '.join(args.traces)}, {'first ' + str(args.max_jobs) if args.max_jobs else 'all'}"
                 f" jobs, {args.runtime} runtimes, seed {SEED}", fontsize=10)
    fig.tight_layout()
    tag = f"portfolio_{what}" + (f"_first{args.max_jobs}" if args.max_jobs else "")
    save_figure(fig, FIGURES / f"{tag}.png")
    plt.close(fig)
    report(tag, f"# SC13 Fig. {dict(budget=10, period=9, exponents=6)[what]}: "
           f"the portfolio's sensitivity to {xlabel}\n\n"
           f"{', '.join(args.traces)}, {'first ' + str(args.max_jobs) if args.max_jobs else 'all'} "
           f"jobs (<= 64 processors), {args.runtime} runtimes, seed {SEED}, default Δ = {args.budget}."
           f"\n\n" + markdown_table(table, {"vm_hours": ",.0f", "seconds": ".0f"}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=["versus", "budget", "period", "exponents"])
    parser.add_argument("--traces", nargs="+", default=["KTH-SP2"])
    parser.add_argument("--max-jobs", type=int, default=None, help="only the first jobs of each trace")
    parser.add_argument("--runtime", default="actual", choices=["actual", "user", "predicted"])
    parser.add_argument("--budget", type=int, default=20)
    args = parser.parse_args()
    if args.experiment == "versus":
        versus(args)
    else:
        sweep(args, args.experiment)


if __name__ == "__main__":
    main()
