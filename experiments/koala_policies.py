"""KOALA-C Figs. 5 and 6: the policies compared on the available traces (Fei et al., §V-C).

Run from the repository root::

    python experiments/koala_policies.py [--fig 5 6] [--traces KTH-SP2 ...]

Fig. 5 (multicluster): N = 1, 2, 4, 6, 8, 10 chains of two 32-node clusters; FF, RR, SJF,
SJF-ideal and HSDF use all 2N clusters as one set, TAGS-chain uses N chains with the paper's
Table III limit of the trace and strict FCFS at each site (``TagsChain``'s default); KTH-SP2, CTC-SP2, SDSC-BLUE (LCG is overloaded at every N: see Fig. 6).
Fig. 6 (five sites: three clusters, a private cloud 8..64 VMs, a public cloud <= 128 VMs at $0.065
per VM-hour): the same five policies and TAGS-sets (limit 40 min, set 2 = C3, private, public).
Mean slowdown (unbounded) and public cost; the offered load with every result. Writes
``figures/koala_fig5.*`` and ``figures/koala_fig6.*``.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import pandas as pd
from koala_common import (
    FIGURES,
    PAPER_TABLE_III,
    TRACES,
    axis_label,
    markdown_table,
    plain_log_ticks,
    plt,
    report,
    save_figure,
    trace,
    write_csv,
)

from mopt.koala import (
    FF,
    HSDF,
    RR,
    SJF,
    SJFIdeal,
    TagsChain,
    TagsSets,
    multicloud,
    multicluster,
    simulate,
)

TRADITIONAL = (("FF", FF()), ("RR", RR()), ("SJF", SJF()), ("SJF-ideal", SJFIdeal()), ("HSDF", HSDF()))
FIG5_CHAINS = (1, 2, 4, 6, 8, 10)
TAGS_SETS_LIMIT = 40 * 60.0


def run(name, label, policy, env, **extra) -> dict:
    begin = time.perf_counter()
    s = simulate(trace(name), policy, env).summary
    row = {"trace": name, "policy": label, **extra, "load": s["offered_load"], "slowdown": s["slowdown"],
           "slowdown_short": s["slowdown_short"], "slowdown_long": s["slowdown_long"], "wait_h": s["wait"] / 3600,
           "public_cost": s["public_cost"], "utilisation": s["utilisation"], "seconds": time.perf_counter() - begin}
    print(f"  {name} {label} {extra}: load {row['load']:.2f}, slowdown {row['slowdown']:.1f}, "
          f"cost {row['public_cost']:.0f} ({row['seconds']:.1f} s)", flush=True)
    return row


def fig5(traces) -> pd.DataFrame:
    rows = []
    for name in traces:
        limit = PAPER_TABLE_III[name][0] * 60.0
        for n in FIG5_CHAINS:
            env = multicluster(n)
            for label, policy in TRADITIONAL:
                rows.append(run(name, label, policy, env, chains=n))
            rows.append(run(name, "TAGS-chain", TagsChain([limit, math.inf], n_chains=n), env, chains=n))
    return pd.DataFrame(rows)


def fig6(traces) -> pd.DataFrame:
    env = multicloud()
    tags = TagsSets([env.names, ["C3", "private", "public"]], [TAGS_SETS_LIMIT, math.inf])
    rows = []
    for name in traces:
        for label, policy in (*TRADITIONAL, ("TAGS-sets", tags)):
            rows.append(run(name, label, policy, env))
    return pd.DataFrame(rows)


def plot5(df: pd.DataFrame) -> None:
    names = list(dict.fromkeys(df["trace"]))
    fig, axes = plt.subplots(1, len(names), figsize=(5 * len(names), 4.6), squeeze=False)
    for ax, name in zip(axes[0], names, strict=True):
        g = df[df["trace"] == name]
        for label in dict.fromkeys(g["policy"]):
            h = g[g["policy"] == label]
            ax.plot(h["chains"] * 64, h["slowdown"], marker="o", label=label)
        ax.set_yscale("log")
        plain_log_ticks(ax)
        ax.set_xlabel("system size [nodes] (2 clusters of 32 per chain)")
        ax.set_ylabel("mean slowdown")
        ax.grid(True, which="major", alpha=0.3)
        loads = g.groupby("chains")["load"].first()
        ax.set_title(f"{name} (load {loads.iloc[0]:.2f} at 64 nodes, {loads.iloc[-1]:.2f} at {64 * loads.index[-1]})",
                     fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, "koala_fig5")


def plot6(df: pd.DataFrame) -> None:
    names = list(dict.fromkeys(df["trace"]))
    labels = list(dict.fromkeys(df["policy"]))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.2))
    width = 0.8 / len(labels)
    x = np.arange(len(names))
    for k, label in enumerate(labels):
        h = df[df["policy"] == label].set_index("trace").loc[names]
        axes[0].bar(x + k * width, h["slowdown"], width, label=label)
        axes[1].bar(x + k * width, h["public_cost"], width, label=label)
    for ax, what in zip(axes, ("mean slowdown", axis_label("koala", "public_cost")), strict=True):
        ax.set_xticks(x + 0.4 - width / 2)
        loads = df.groupby("trace")["load"].first().loc[names]
        ax.set_xticklabels([f"{n}\nload {v:.2f}" for n, v in loads.items()])
        ax.set_ylabel(what)
        ax.set_yscale("log")
        plain_log_ticks(ax, "y")
        ax.grid(True, axis="y", which="major", alpha=0.3)
    axes[0].set_title("Five sites (3 clusters, a private and a public cloud): mean slowdown", fontsize=10)
    axes[1].set_title("public-cloud cost (whole trace)", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    save_figure(fig, "koala_fig6")


def summary6(df: pd.DataFrame) -> list[str]:
    lines = []
    wins = 0
    for name, g in df.groupby("trace", sort=False):
        g = g.set_index("policy")
        t = g.loc["TAGS-sets"]
        better = t["slowdown"] < g.loc["FF", "slowdown"] and t["slowdown"] < g.loc["SJF", "slowdown"]
        dearer = t["public_cost"] > max(g.loc["FF", "public_cost"], g.loc["SJF", "public_cost"])
        wins += bool(better and dearer)
        others = g.drop(index="TAGS-sets")
        ratio = t["public_cost"] / others["public_cost"].replace(0, np.nan)
        lines.append(f"- {name} (load {t['load']:.2f} of the five sites): TAGS-sets slowdown {t['slowdown']:.2f} vs "
                     f"FF {g.loc['FF', 'slowdown']:.2f}, SJF {g.loc['SJF', 'slowdown']:.2f}, "
                     f"SJF-ideal {g.loc['SJF-ideal', 'slowdown']:.2f}, RR {g.loc['RR', 'slowdown']:.2f}; "
                     f"SJF / TAGS-sets = {g.loc['SJF', 'slowdown'] / t['slowdown']:.1f}x; cost ${t['public_cost']:.0f} = "
                     f"{ratio.min():.1f}-{ratio.max():.1f}x the others'.")
    lines.append(f"TAGS-sets has a lower slowdown than FF and SJF at a higher public cost on {wins} of "
                 f"{df['trace'].nunique()} traces (spec: at least 3).")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fig", type=int, nargs="*", default=[6, 5])
    parser.add_argument("--traces", nargs="*", default=None)
    parser.add_argument("--replot", action="store_true", help="redo figures and tables from the CSV files")
    args = parser.parse_args()
    fmt = {"load": ".2f", "slowdown": ",.2f", "slowdown_short": ",.2f", "slowdown_long": ",.2f", "wait_h": ",.2f",
           "public_cost": ",.0f", "utilisation": ".2f", "seconds": ".1f"}
    if 6 in args.fig:
        if args.replot:
            df = pd.read_csv(FIGURES / "koala_fig6.csv")
        else:
            df = fig6(args.traces or TRACES)
            write_csv(df, "koala_fig6")
        plot6(df)
        report("koala_fig6", "\n".join([
            "# KOALA-C Fig. 6: five sites", "",
            "Three 32-node clusters, a private cloud (8..64 VMs, free), a public cloud (<= 128 VMs, $0.065 per "
            "started VM-hour), 120 s boot (ours); TAGS-sets limit 40 min, set 2 = C3 + private + public (ours). "
            "Unscaled traces; load = offered load of the five sites at their maxima (288 nodes).", "",
            markdown_table(df, fmt), "", *summary6(df)]))
    if 5 in args.fig:
        if args.replot:
            df = pd.read_csv(FIGURES / "koala_fig5.csv")
        else:
            df = fig5(args.traces or ("KTH-SP2", "CTC-SP2", "SDSC-BLUE"))
            write_csv(df, "koala_fig5")
        plot5(df)
        best = df.loc[df.groupby(["trace", "chains"])["slowdown"].idxmin(), ["trace", "chains", "load", "policy"]]
        worst = df.loc[df.groupby(["trace", "chains"])["slowdown"].idxmax(), ["trace", "chains", "policy"]]
        report("koala_fig5", "\n".join([
            "# KOALA-C Fig. 5: multicluster", "",
            "N chains of two 32-node clusters; TAGS-chain with the paper's Table III limit of the trace "
            "(KTH-SP2 25, CTC-SP2 125, SDSC-BLUE 55 min; since issue #26 mopt's Table III too) and strict FCFS "
            "at each site; the others on all 2N clusters (a job that fits nowhere is passed). Load = offered load "
            "of the 64N nodes.", "", markdown_table(df, fmt), "", "Best policy per case:", "",
            markdown_table(best.merge(worst.rename(columns={"policy": "worst"}), on=["trace", "chains"]),
                           {"load": ".2f"})]))


if __name__ == "__main__":
    main()
