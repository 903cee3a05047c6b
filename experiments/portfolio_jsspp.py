"""JSSPP reproduced: the 10-policy periodic portfolio against its constituents and the StartUp
baselines (UF, US) on the five synthetic arrival patterns (JSSPP Figs. 5-9).

    python experiments/portfolio_jsspp.py [--donor KTH-SP2]

JSSPP took the runtimes of the first 1,000 jobs of ANL-Intrepid, which is not available here: the
runtimes (and user estimates) of the first 1,000 jobs of the donor trace (default KTH-SP2, jobs of
at most 64 processors) stand in; every job is 1 VM wide (ours, spec §1). JSSPP's cloud: boot 240 s,
at most 64 VMs, 20 s ticks, selection every tick with a queue, every policy simulated (Δ = 10),
U with κ = 100, α = β = 1. Nothing is random (Δ = N), seed 1 for form's sake.
Writes figures/portfolio_jsspp.png and .md.
"""

from __future__ import annotations

import argparse

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from _common import FIGURES, markdown_table, report

from mopt.cloud import simulate
from mopt.cloud.portfolio_report import portfolio_versus
from mopt.cloud.portfolios import JSSPP_BASELINES, jsspp_code
from mopt.plot import save_figure
from mopt.workloads import PATTERNS, load_trace, synthetic

SEED = 1
CLOUD = {"boot_delay": 240, "max_vms": 64}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--donor", default="KTH-SP2", help="trace whose runtimes stand in for ANL-Intrepid")
    args = parser.parse_args()
    donor = load_trace(args.donor, size_limit=64)
    rows, wins = [], []
    for pattern in PATTERNS:
        jobs = synthetic(pattern, 1000, runtimes=donor)
        table, run = portfolio_versus(jobs, "jsspp", budget=10, seed=SEED, **CLOUD)
        table.insert(1, "code", [jsspp_code(p) for p in table["policy"][:-1]] + ["PO"])
        for name in JSSPP_BASELINES:
            s = simulate(jobs, name, **CLOUD).summary
            table.loc[len(table)] = {"policy": name, "code": jsspp_code(name), "provisioning": "StartUp",
                                     "utility": s["utility"], "bsd": s["bsd"], "vm_hours": s["vm_hours"],
                                     "utilisation": s["utilisation"], "gain": table["utility"].iloc[-1]}
        po = table.loc[table["code"] == "PO", "utility"].item()
        table["gain"] = po / table["utility"] - 1.0
        table.insert(0, "pattern", pattern)
        rows.append(table)
        others = table[table["code"] != "PO"]
        best = others.loc[others["utility"].idxmax()]
        shares = run.shares()
        top = shares.idxmax()
        wins.append({"pattern": pattern, "portfolio U": po, "best other": best["code"],
                     "its U": best["utility"], "portfolio gain %": 100 * (po / best["utility"] - 1),
                     "lowest BSD": others.loc[others["bsd"].idxmin(), "code"],
                     "most selected": f"{jsspp_code(top)} ({shares.max():.0%})",
                     "UF/US utilisation": f"{others.loc[others.code == 'UF', 'utilisation'].item():.0%}"
                                          f" / {others.loc[others.code == 'US', 'utilisation'].item():.0%}",
                     "ODS utilisation": f"{others.loc[others.code == 'SF', 'utilisation'].item():.0%}"
                                        f" / {others.loc[others.code == 'SS', 'utilisation'].item():.0%}"})
        print(wins[-1], flush=True)
    full = pd.concat(rows, ignore_index=True)
    fig, axes = plt.subplots(1, len(PATTERNS), figsize=(16, 3.6), sharey=False)
    for ax, (pattern, part) in zip(axes, full.groupby("pattern", sort=False), strict=True):
        colours = ["k" if c == "PO" else ("0.6" if c in ("UF", "US") else "C0") for c in part["code"]]
        ax.bar(np.arange(len(part)), part["utility"], color=colours)
        ax.set_xticks(np.arange(len(part)), part["code"], fontsize=7)
        ax.set_xlabel("policy (JSSPP's code)", fontsize=8)
        ax.set_title(f"{pattern} pattern", fontsize=9)
        ax.grid(True, axis="y", alpha=0.3)
    axes[0].set_ylabel("utility U")
    fig.suptitle(f"JSSPP Fig. 9: utility per policy (black: PO, the portfolio; grey: the StartUp baselines UF, US); "
                 f"runtimes of the first 1,000 {args.donor} jobs stand in for ANL-Intrepid; boot 240 s, 64 VMs, "
                 f"Δ = 10, seed {SEED}", fontsize=9)
    fig.tight_layout()
    save_figure(fig, FIGURES / "portfolio_jsspp.png")
    plt.close(fig)
    report("portfolio_jsspp",
           "# JSSPP: the periodic portfolio on five synthetic arrival patterns\n\n"
           f"1,000 jobs per pattern, 1 VM each, runtimes and user estimates of the first 1,000 "
           f"{args.donor} jobs (<= 64 processors) standing in for ANL-Intrepid's; boot 240 s, 64 VMs, "
           "every policy simulated at every selection (Δ = 10), U with κ = 100, α = β = 1.\n\n"
           + markdown_table(pd.DataFrame(wins), {"portfolio gain %": "+.1f"}) + "\n\nEvery policy:\n\n"
           + markdown_table(full.drop(columns=["gain", "provisioning"]), {"vm_hours": ",.0f"}))


if __name__ == "__main__":
    main()
