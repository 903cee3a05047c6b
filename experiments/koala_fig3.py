"""KOALA-C Fig. 3: TAGS-chain's limit sweep on KTH-SP2 (Fei et al., §V-C1).

Run from the repository root (after ``koala_tables.py``, whose RR sweep it reuses if present)::

    python experiments/koala_fig3.py [--seeds 10]
    python experiments/koala_fig3.py --replot   # redraw the figure from figures/koala_fig3.csv

Mean slowdown against the limit for N = 1..10 chains of two 32-node clusters: RR dispatch (one run
each, limits 5..240 min by 5) and RND dispatch (``--seeds`` seeds, mean and standard error, limits
10..240 by 10); and, with 4 chains, the mean wait of short and of long jobs. Each site serves its
queue in strict FCFS order (``TagsChain``'s default: the paper's "served in FCFS fashion"). Writes
``figures/koala_fig3.png`` / ``.md`` / ``.csv``. Paper: slowdown lowest near 25 min with RR; RND
the same with more variance; with 4 chains short jobs wait less than long ones.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from koala_common import (
    FIGURES,
    LIMITS,
    markdown_table,
    plain_log_ticks,
    plt,
    report,
    save_figure,
    sweep,
    write_csv,
)

CHAINS = tuple(range(1, 11))


def plot(rr: pd.DataFrame, rnd: pd.DataFrame, chains, seeds: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Draw figures/koala_fig3.png; returns RND's mean and standard error per (N, limit) and the
    RR rows of the wait panel (N = 4 chains, or the first N)."""
    rnd_mean = rnd.groupby(["chains", "limit_min"])["slowdown"].agg(["mean", "sem"]).reset_index()
    fig, axes = plt.subplots(1, 3, figsize=(15, 5.2))
    colors = plt.cm.viridis(np.linspace(0, 0.9, len(chains)))
    for c, n in zip(colors, chains, strict=True):
        g = rr[rr["chains"] == n]
        axes[0].plot(g["limit_min"], g["slowdown"], color=c, label=f"N = {n} chain{'s' if n > 1 else ''} (load {g['load'].iloc[0]:.2f})")
        h = rnd_mean[rnd_mean["chains"] == n]
        axes[1].errorbar(h["limit_min"], h["mean"], yerr=h["sem"], color=c, capsize=2)
    for ax, title in zip(axes[:2], ("RR dispatch", f"RND dispatch ({seeds} seeds, ± standard error)"), strict=True):
        ax.set_yscale("log")
        ax.set_xlabel("TAGS-chain limit [min]")
        ax.set_ylabel("mean slowdown")
        ax.set_title(f"KTH-SP2, {title}", fontsize=10)
        ax.axvline(25, color="grey", ls=":", label="the paper's best limit (25 min)" if ax is axes[0] else None)
        ax.grid(True, which="major", alpha=0.3)
    four = rr[rr["chains"] == 4] if 4 in chains else rr[rr["chains"] == chains[0]]
    axes[2].plot(four["limit_min"], four["wait_short"] / 60, label="short jobs")
    axes[2].plot(four["limit_min"], four["wait_long"] / 60, label="long jobs")
    axes[2].set_yscale("log")
    axes[2].set_xlabel("TAGS-chain limit [min]")
    axes[2].set_ylabel("mean wait [min]")
    axes[2].set_title(f"KTH-SP2, N = {int(four['chains'].iloc[0])} chains, RR: wait by job class", fontsize=10)
    axes[2].legend(fontsize=8, loc="lower right")
    axes[2].grid(True, which="major", alpha=0.3)
    for ax in axes:
        plain_log_ticks(ax)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    save_figure(fig, "koala_fig3")
    return rnd_mean, four


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--chains", type=int, nargs="*", default=list(CHAINS))
    parser.add_argument("--replot", action="store_true",
                        help="redraw the figure from figures/koala_fig3.csv (no simulation; the table is kept)")
    args = parser.parse_args()
    if args.replot:
        df = pd.read_csv(FIGURES / "koala_fig3.csv")
        df = df[df["chains"].isin(args.chains)]
        rnd = df[df["dispatch"] == "RND"]
        plot(df[df["dispatch"] == "RR"], rnd, args.chains, rnd["seed"].nunique())
        return
    begin = time.perf_counter()
    cached = FIGURES / "koala_sweep.csv"
    rr = pd.read_csv(cached) if cached.exists() else None
    if rr is not None:
        if "blocking" not in rr.columns:  # a sweep from before strict FCFS: not reused
            rr = rr.iloc[:0]
        rr = rr[(rr["trace"] == "KTH-SP2") & (rr["dispatch"] == "RR") & rr["chains"].isin(args.chains)]
        rr = rr[rr["blocking"].astype(bool)] if len(rr) else rr
    if rr is None or rr.empty:
        rr = sweep("KTH-SP2", args.chains, LIMITS)
    rnd = sweep("KTH-SP2", args.chains, LIMITS[1::2], dispatch="RND", seeds=tuple(range(1, args.seeds + 1)))
    write_csv(pd.concat([rr, rnd], ignore_index=True), "koala_fig3")
    rnd_mean, four = plot(rr, rnd, args.chains, args.seeds)

    best_rr = rr.loc[rr.groupby("chains")["slowdown"].idxmin(), ["chains", "load", "limit_min", "slowdown"]]
    best_rnd = rnd_mean.loc[rnd_mean.groupby("chains")["mean"].idxmin()]
    table = best_rr.merge(best_rnd.rename(columns={"limit_min": "RND best limit", "mean": "RND slowdown",
                                                   "sem": "RND s.e."}), on="chains")
    table = table.rename(columns={"limit_min": "RR best limit", "slowdown": "RR slowdown"})
    four_short = (four["wait_short"] < four["wait_long"]).mean()
    text = "\n".join([
        "# KOALA-C Fig. 3: TAGS-chain limit sweep on KTH-SP2",
        "",
        f"Chains of two 32-node clusters, N = {args.chains}, strict FCFS at each site; RR: limits 5..240 min "
        f"by 5; RND: 10..240 by 10, seeds 1..{args.seeds}. Offered load per N in the table (KTH-SP2 is 0.82 "
        "of one chain).",
        "",
        markdown_table(table, {"load": ".2f", "RR best limit": ".0f", "RND best limit": ".0f", "RR slowdown": ".2f",
                               "RND slowdown": ".2f", "RND s.e.": ".2f"}),
        "",
        f"RR best limit at N = 4 (Table III's chain count): "
        f"{best_rr.set_index('chains')['limit_min'].get(4, np.nan):.0f} min (paper: 25 min); median over N: "
        f"{np.median(best_rr['limit_min']):.0f} min.",
        f"With {int(four['chains'].iloc[0])} chains short jobs wait less than long ones at "
        f"{100 * four_short:.0f} % of the limits.",
        f"{len(rr) + len(rnd)} simulations, {time.perf_counter() - begin:.0f} s.",
    ])  # fmt: skip
    report("koala_fig3", text)


if __name__ == "__main__":
    main()
