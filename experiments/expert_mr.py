"""Impact of M_r on ExPERT's performance (Agmon Ben-Yehuda et al., §VI, Figs. 9 and 10).

Run from the repository root::

    python experiments/expert_mr.py

Writes ``figures/expert_mr_fronts.png`` / ``.md`` (Fig. 9: the Pareto frontier for each fixed M_r of
the paper's ladder, M_r^max = 0.5) and ``figures/expert_mr_use.png`` / ``.md`` (Fig. 10: M_r, used
M_r and the maximal reliable queue of every Pareto-efficient strategy), and prints the tables and
the check of the paper's claims.

The default grid (``paper_grid``) samples N = 0..3 *and* N = ∞; N = ∞ strategies never use the
reliable pool (M_r is irrelevant to them, so they appear in every fixed-M_r frontier).  The paper's
text samples N = 0..3 only, so every result is also given for N = 0..3.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from _common import (  # noqa: E402
    FS_NOTE,
    N_REPS,
    SEED,
    Timer,
    axis_label,
    fmt_n,
    markdown_table,
    plt,
    report,
    save_figure,
    scenario,
    search,
)
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # noqa: E402

from mopt.expert import estimate, reference_environment  # noqa: E402
from mopt.expert.problem import MR_LADDER  # noqa: E402

MR_MAX = 0.5
FINITE_N = [0, 1, 2, 3]
VARIANTS = {"N ∈ {0..3, ∞}": None, "N ∈ {0..3}": FINITE_N}


# ------------------------------------------------------------------------------------------ Fig. 9
def fronts_by_mr() -> dict:
    """{variant: {M_r: frontier DataFrame sorted by makespan}}."""
    out = {}
    for variant, n_values in VARIANTS.items():
        grid = {} if n_values is None else {"N": n_values}
        out[variant] = {m: search(MR_MAX, Mr=[m], **grid)[0].front for m in MR_LADDER}
    return out


def topmost(front: pd.DataFrame) -> pd.Series:
    """The topmost efficient point: the most expensive one, i.e. the one with the smallest makespan."""
    return front.loc[front["cost"].idxmax()]


def attained_cost(front: pd.DataFrame, x: np.ndarray) -> np.ndarray:
    """Smallest frontier cost with makespan <= x (inf where none)."""
    m, c = front["makespan"].to_numpy(), front["cost"].to_numpy()
    return np.array([c[m <= xi].min() if np.any(m <= xi) else np.inf for xi in x])


def cost_at_equal_makespan(fa: pd.DataFrame, fb: pd.DataFrame) -> tuple[int, int, int]:
    """Compare the attainment curves of two frontiers where both are defined (makespans at which
    both have a point at or below): (#makespans, #where fa is cheaper or equal, #strictly cheaper)."""
    lo = max(fa["makespan"].min(), fb["makespan"].min())
    x = np.unique(np.concatenate([fa["makespan"], fb["makespan"]]))
    x = x[x >= lo]
    ca, cb = attained_cost(fa, x), attained_cost(fb, x)
    tol = 1e-9 * np.maximum(1.0, np.abs(cb))
    return len(x), int(np.sum(ca <= cb + tol)), int(np.sum(ca < cb - tol))


def fig9(fronts: dict) -> None:
    colors = plt.cm.viridis(np.linspace(0.0, 0.9, len(MR_LADDER)))
    fig, axes = plt.subplots(1, 2, figsize=(13, 5.8), sharey=True)
    for ax, (variant, by_mr) in zip(axes, fronts.items(), strict=True):
        for color, (m, f) in zip(colors, by_mr.items(), strict=True):
            ax.step(f["makespan"], f["cost"], where="post", color=color, lw=1.3)
            ax.scatter(f["makespan"], f["cost"], s=14, color=color, label=f"$M_r$ = {m:g}")
            top = topmost(f)
            ax.scatter(
                [top["makespan"]],
                [top["cost"]],
                s=130,
                marker="*",
                color=color,
                edgecolors="k",
                lw=0.8,
                zorder=5,
            )
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(FixedLocator([0.5, 0.75, 1, 1.5, 2, 3, 4, 5]))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_xlim(left=0)
        ax.set_xlabel(axis_label("expert", "makespan"))
        ax.grid(True, which="both", alpha=0.3)
        ax.set_title(f"grid {variant}", fontsize=10)
        same = [
            m
            for m in by_mr
            if by_mr[m][["makespan", "cost"]].equals(by_mr[MR_LADDER[0]][["makespan", "cost"]])
        ]
        if len(same) > 1:
            ax.text(
                0.97,
                0.55,
                f"$M_r$ = {same[0]:g}–{same[-1]:g}: identical frontiers\n"
                f"({'all N = ∞' if np.isinf(by_mr[same[0]]['N']).all() else 'same strategies'}), drawn "
                "under the others",
                transform=ax.transAxes,
                ha="right",
                fontsize=9,
                bbox={"boxstyle": "round", "fc": "w", "ec": "0.6"},
            )
    axes[0].set_ylabel(axis_label("expert", "cost") + " (log scale)")
    axes[1].scatter(
        [], [], s=130, marker="*", color="w", edgecolors="k", label="topmost efficient point"
    )
    axes[1].legend(loc="upper right", fontsize=9, title="fixed $M_r$")
    fig.suptitle(
        "Fig. 9: Pareto frontiers for fixed $M_r$ (topmost efficient point of each: ★)\n"
        + scenario(MR_MAX),
        fontsize=10,
    )
    fig.text(
        0.01,
        0.005,
        FS_NOTE + ". With N = ∞ in the grid, every fixed-M_r frontier shares the "
        "N = ∞ strategies (they never use the reliable pool).",
        fontsize=8,
        style="italic",
    )
    fig.tight_layout(rect=(0, 0.025, 1, 1))
    save_figure(fig, "expert_mr_fronts")


def report9(fronts: dict) -> str:
    parts = [
        f"## Fig. 9 — Pareto frontiers for fixed M_r\n\n{scenario(MR_MAX)}. {FS_NOTE}. "
        "One exhaustive search of the paper grid per M_r (same seed: common random numbers). "
        "Topmost efficient point = the frontier's most expensive (fastest) strategy."
    ]
    for variant, by_mr in fronts.items():
        rows = []
        for m, f in by_mr.items():
            top = topmost(f)
            rows.append(
                {
                    "M_r": f"{m:g}",
                    "#efficient": len(f),
                    "min makespan [s]": f["makespan"].min(),
                    "min cost [¢/task]": f["cost"].min(),
                    "max makespan [s]": f["makespan"].max(),
                    "topmost point (cost)": top["cost"],
                    "topmost strategy": f"N={fmt_n(top['N'])} T={top['T'] / 2066:g}·t_ur "
                    f"D={top['D'] / 2066:g}·t_ur",
                }
            )
        parts.append(
            f"### grid {variant}\n\n"
            + markdown_table(
                pd.DataFrame(rows),
                {
                    "min makespan [s]": ",.0f",
                    "max makespan [s]": ",.0f",
                    "min cost [¢/task]": ".3f",
                    "topmost point (cost)": ".3f",
                },
            )
        )
    parts.append(claims9(fronts))
    return "\n\n".join(parts)


def claims9(fronts: dict) -> str:
    lines = [
        "### Paper claims (Fig. 9)",
        "",
        "1. High M_r → wider makespan range; the M_r = 0.02 frontier starts at a tail makespan over "
        "5,500 s, 25 % larger than achievable with M_r ≥ 0.3.",
    ]
    for variant, by_mr in fronts.items():
        mins = pd.Series({m: f["makespan"].min() for m, f in by_mr.items()})
        high = mins[mins.index >= 0.3 - 1e-12].min()
        ratio = 100 * (mins[0.02] / high - 1)
        mono = bool(np.all(np.diff(mins.to_numpy()) <= 1e-9))
        lines.append(
            f"   - {variant}: min makespan by M_r: "
            + ", ".join(f"{m:g}: {v:,.0f}" for m, v in mins.items())
            + f". M_r = 0.02 starts at {mins[0.02]:,.0f} s, {ratio:+.0f} % vs the best with M_r ≥ 0.3 "
            f"({high:,.0f} s) → {'holds' if ratio >= 25 - 1e-9 else 'does not hold'} (≥ 25 %); "
            f"min makespan non-increasing in M_r: {'yes' if mono else 'no'}."
        )
    lines += [
        "",
        "2. For the same achieved makespan, lower M_r gives (in general) lower cost. Test: the "
        "attainment curves (cheapest frontier cost at makespan ≤ x), compared at every frontier "
        "makespan x where both frontiers of a pair are defined.",
    ]
    for variant, by_mr in fronts.items():
        ms = list(by_mr)
        tot = le = lt = 0
        adj = []
        for i in range(len(ms)):
            for j in range(i + 1, len(ms)):
                n, a, b = cost_at_equal_makespan(by_mr[ms[i]], by_mr[ms[j]])
                tot, le, lt = tot + n, le + a, lt + b
                if j == i + 1:
                    adj.append(f"{ms[i]:g}<{ms[j]:g}: {a}/{n} (strictly {b})")
        share = 100 * le / tot if tot else float("nan")
        lines.append(
            f"   - {variant}: all pairs M_r < M_r': lower M_r cheaper or equal at {le}/{tot} "
            f"makespans ({share:.0f} %), strictly cheaper at {lt}/{tot} ({100 * lt / tot:.0f} %); "
            f"adjacent pairs: "
            + "; ".join(adj)
            + f" → {'holds' if share >= 75 else 'does not hold'} "
            "in general (threshold: ≥ 75 % cheaper or equal)."
        )
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------- Fig. 10
def distinct_points(front: pd.DataFrame) -> pd.DataFrame:
    """One row per distinct (makespan, cost) point: among efficient strategies with identical
    estimates, the one with the smallest M_r (then T, then D); ``n_tied`` counts them."""
    f = front.assign(_m=front["makespan"].round(6), _c=front["cost"].round(9))
    f = f.sort_values(["_m", "_c", "Mr", "T", "D"])
    n_tied = f.groupby(["_m", "_c"]).size().rename("n_tied")
    f = f.drop_duplicates(["_m", "_c"]).join(n_tied, on=["_m", "_c"])
    return f.drop(columns=["_m", "_c"]).reset_index(drop=True)


def waits(reps: pd.DataFrame, n_rel: int) -> dict:
    """Replications in which the reliable queue was used.

    The estimator counts an instance in the reliable queue from the moment it is enqueued, even when
    an idle reliable machine takes it at the same instant, so ``max_reliable_queue = 1`` does not show
    that a task waited.  A task certainly waited when the maximum is >= 2 (the timers enqueue one task
    per event); it possibly waited when the maximum is 1 and all ⌈M_r·#ur⌉ machines were busy at once.
    """
    q, busy = reps["max_reliable_queue"], reps["max_reliable_busy"]
    return {
        "reps queue≥1": int((q >= 1).sum()),
        "reps waited (certain)": int((q >= 2).sum()),
        "reps waited (possible)": int(
            ((q >= 2) | ((q >= 1) & (busy >= n_rel) & (n_rel > 0))).sum()
        ),
    }


def reliable_use(n_values=None, collapse_ties: bool = False) -> pd.DataFrame:
    """Per efficient strategy of the M_r^max = 0.5 search (sorted by makespan): M_r, used M_r and the
    maximal reliable queue, mean and max over the replications of the search's seed."""
    res, prob = search(MR_MAX, **({} if n_values is None else {"N": n_values}))
    env = reference_environment(MR_MAX)
    front = distinct_points(res.front) if collapse_ties else res.front.assign(n_tied=1)
    rows = []
    for _, r in front.iterrows():
        strategy = prob.strategy(int(r["design"]))
        reps = estimate(env, strategy, N_REPS, seed=SEED)
        finite = not math.isinf(strategy.N)
        rows.append(
            {
                "N": fmt_n(strategy.N),
                "T/t_ur": strategy.T / env.t_ur,
                "D/t_ur": strategy.D / env.t_ur,
                "M_r": strategy.Mr if finite else np.nan,
                "makespan [s]": r["makespan"],
                "cost [¢/task]": r["cost"],
                "used M_r (mean)": reps["used_mr"].mean(),
                "used M_r (max)": reps["used_mr"].max(),
                "max rel. queue (mean)": reps["max_reliable_queue"].mean(),
                "max rel. queue (max)": reps["max_reliable_queue"].max(),
                **waits(reps, env.n_reliable(strategy.Mr) if finite else 0),
                "#tied": int(r["n_tied"]),
                "nominal": env.n_reliable(strategy.Mr) / env.n_unreliable if finite else 0.0,
            }
        )
    return pd.DataFrame(rows)


def fig10(uses: dict) -> None:
    fig, axes = plt.subplots(1, 2, figsize=(13, 6.0), gridspec_kw={"width_ratios": [1.25, 1]})
    for ax, (variant, df) in zip(axes, uses.items(), strict=True):
        x = np.arange(1, len(df) + 1)
        inf = (df["N"] == "∞").to_numpy()
        for k in np.flatnonzero(inf):
            ax.axvspan(x[k] - 0.5, x[k] + 0.5, color="0.9", lw=0)
        ax.plot(x, df["M_r"], "o-", color="tab:blue", label="$M_r$ (strategy parameter)", ms=6)
        ax.plot(
            x,
            df["used M_r (mean)"],
            "s--",
            color="tab:orange",
            mfc="none",
            ms=8,
            label="used $M_r$ (mean over reps)",
        )
        ax.plot(
            x, df["used M_r (max)"], "x", color="tab:red", ms=6, label="used $M_r$ (max over reps)"
        )
        ax.set_xlabel("Pareto-efficient strategy, sorted by makespan (fastest first)")
        ax.set_ylabel("$M_r$ / used $M_r$ (reliable machines / #ur)")
        ax.set_ylim(-0.02, 0.55)
        ax.set_xlim(0.5, len(df) + 0.5)
        ax.grid(True, alpha=0.3)
        ax2 = ax.twinx()
        ax2.plot(
            x,
            df["max rel. queue (mean)"],
            "^:",
            color="tab:green",
            ms=6,
            label="max reliable queue (mean over reps)",
        )
        ax2.set_ylabel("max reliable queue length [tasks]", color="tab:green")
        ax2.tick_params(axis="y", colors="tab:green")
        ax2.set_ylim(bottom=-1, top=max(5.0, df["max rel. queue (mean)"].max() * 1.15))
        if inf.any():
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            h1.append(plt.Rectangle((0, 0), 1, 1, color="0.9"))
            l1.append("N = ∞ (reliable pool unused; M_r irrelevant)")
        what = "distinct points" if (df["#tied"] > 1).any() else "strategies"
        ax.set_title(f"frontier of the grid {variant} ({len(df)} {what})", fontsize=10)
    fig.legend(
        h1 + h2, l1 + l2, loc="lower center", ncol=5, fontsize=8.5, bbox_to_anchor=(0.5, 0.025)
    )
    fig.suptitle(
        "Fig. 10: reliable pool use by Pareto-efficient strategies\n" + scenario(MR_MAX),
        fontsize=10,
    )
    fig.text(0.01, 0.005, FS_NOTE, fontsize=8, style="italic")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    save_figure(fig, "expert_mr_use")


def claims10(uses: dict) -> str:
    lines = [
        "### Paper claims (Fig. 10)",
        "",
        "Paper: for most Pareto-efficient strategies used M_r = M_r (all the allowed reliable machines are "
        "busy at some moment), because the maximal reliable queue is almost never zero; the exception is "
        "the right-most (slowest) strategy. Here used M_r = max reliable machines busy / #ur; "
        "'= M_r' means = ⌈M_r·#ur⌉/#ur; max queue ≥ 1 is the estimator's metric, but it counts an instance at the moment it is "
        "enqueued even when an idle machine takes it at once; 'waited (certain)' = max queue ≥ 2, "
        "'waited (possible)' = also max queue 1 with all reliable machines busy at some moment.",
    ]
    for variant, df in uses.items():
        fin = df[df["N"] != "∞"]
        n_inf = len(df) - len(fin)
        eq_mean = int(np.isclose(fin["used M_r (mean)"], fin["nominal"]).sum())
        eq_max = int(np.isclose(fin["used M_r (max)"], fin["nominal"]).sum())
        q_any = int((fin["reps queue≥1"] > 0).sum())
        q_all = int((fin["reps queue≥1"] == N_REPS).sum())
        w_cert = int((fin["reps waited (certain)"] > 0).sum())
        w_poss = int((fin["reps waited (possible)"] > 0).sum())
        what = (
            f"{len(df)} distinct points ({int(df['#tied'].sum())} strategies with ties)"
            if (df["#tied"] > 1).any()
            else f"{len(df)} strategies"
        )
        lines.append(
            f"- frontier of grid {variant}: {what}, {n_inf} with N = ∞ (never use the "
            f"reliable pool: used M_r = 0, queue 0)."
        )
        if len(fin):
            lines.append(
                f"  - finite N ({len(fin)}): used M_r = M_r in every rep (mean = M_r) for {eq_mean}/{len(fin)}, "
                f"in at least one rep (max = M_r) for {eq_max}/{len(fin)}; max reliable queue ≥ 1 in at "
                f"least one rep for {q_any}/{len(fin)} (in every rep for {q_all}/{len(fin)}); a task "
                f"waited in the reliable queue in at least one rep for {w_cert}/{len(fin)} certainly, "
                f"for at most {w_poss}/{len(fin)}."
            )
            lines.append(
                f"  - all {len(df)} efficient points (N = ∞ counted as not using the queue): used M_r = "
                f"M_r (max over reps) for {eq_max}/{len(df)}, max queue ≥ 1 for {q_any}/{len(df)}, "
                f"a task waited for {w_cert}–{w_poss}/{len(df)}."
            )
            diff = fin[~np.isclose(fin["used M_r (max)"], fin["nominal"])]
            if len(diff):
                lines.append(
                    "  - finite-N strategies with used M_r < M_r (max over reps): "
                    + "; ".join(
                        f"#{i + 1} N={r['N']} M_r={r['M_r']:g} used {r['used M_r (max)']:g}"
                        for i, r in diff.iterrows()
                    )
                )
    return "\n".join(lines)


def report10(uses: dict) -> str:
    parts = [
        f"## Fig. 10 — reliable pool use by Pareto-efficient strategies\n\n{scenario(MR_MAX)}. {FS_NOTE}. "
        "Efficient strategies of the exhaustive search, sorted by makespan; each re-estimated with the "
        f"same seed ({N_REPS} reps, common random numbers, so makespan and cost equal the search's). "
        "used M_r = max reliable machines busy at once / #ur; both the mean and the max over the "
        "replications are shown (the figure plots the mean, with the max as crosses). M_r is blank for "
        "N = ∞ (irrelevant: the reliable pool is never used)."
    ]
    fmt = {
        "T/t_ur": "g",
        "D/t_ur": "g",
        "M_r": "g",
        "makespan [s]": ",.0f",
        "cost [¢/task]": ".3f",
        "used M_r (mean)": ".3g",
        "used M_r (max)": ".3g",
        "max rel. queue (mean)": ".1f",
        "max rel. queue (max)": ".0f",
    }
    for variant, df in uses.items():
        table = df.drop(columns="nominal")
        table.insert(0, "#", np.arange(1, len(df) + 1))
        if (df["#tied"] > 1).any():
            note = (
                f"{len(df)} distinct points of {int(df['#tied'].sum())} efficient strategies: strategies "
                "with identical estimates are listed once, with the smallest M_r (#tied: how many)."
            )
        else:
            table = table.drop(columns="#tied")
            note = f"All {len(df)} efficient strategies."
        parts.append(
            f"### frontier of the grid {variant}\n\n{note}\n\n" + markdown_table(table, fmt)
        )
    parts.append(claims10(uses))
    return "\n\n".join(parts)


def main() -> None:
    timer = Timer()
    fronts = fronts_by_mr()
    fig9(fronts)
    report("expert_mr_fronts", report9(fronts))
    t9 = timer()
    print()
    # the N ∈ {0..3} frontier holds many strategies with identical estimates (a larger M_r that is never
    # reached changes nothing): list each distinct point once, with its smallest M_r
    uses = {
        variant: reliable_use(n_values, collapse_ties=n_values is not None)
        for variant, n_values in VARIANTS.items()
    }
    fig10(uses)
    report("expert_mr_use", report10(uses))
    print(
        f"\n[expert_mr.py: seed={SEED}, n_reps={N_REPS}, run time {timer():.1f} s "
        f"(Fig. 9: {t9:.1f} s)]"
    )


if __name__ == "__main__":
    main()
