"""ExPERT vs. static scheduling strategies (Agmon Ben-Yehuda et al., §VI, Figs. 8a and 8b).

Run from the repository root::

    python experiments/expert_static.py

Writes ``figures/expert_static.png`` / ``.md`` (Fig. 8a: sampled strategies, Pareto frontier and
the seven static strategies for M_r^max = 0.1) and ``figures/expert_product.png`` / ``.md``
(Fig. 8b: makespan × cost of ExPERT's recommendation and the static strategies for
M_r^max = 0.1, 0.3, 0.5), and prints the tables and the comparison with the paper's numbers.

The default grid (``paper_grid``) samples N = 0..3 *and* N = ∞; the paper's text samples
N = 0..3 only, so every result is also given for the frontier restricted to N = 0..3.
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
    PAPER_KNEE,
    SEED,
    STATICS,
    Timer,
    axis_label,
    dominated,
    markdown_table,
    plain_log_ticks,
    plt,
    product,
    report,
    save_figure,
    scenario,
    search,
    static_table,
    strategy_label,
)
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter  # noqa: E402

from mopt.expert import Strategy, estimate, reference_environment  # noqa: E402

MR_MAX_VALUES = (0.1, 0.3, 0.5)
FINITE_N = [0, 1, 2, 3]
STATIC_MARKERS = {
    "AR": "X",
    "TRR": "s",
    "TR": "D",
    "AUR": "^",
    "B": "P",
    "CN_inf": "v",
    "CN1T0": "*",
}
STATIC_LABELS = {"CN_inf": "CN∞", "CN1T0": "CN1T0"}
#: label offsets in points (TRR, TR and B sit close together)
LABEL_OFFSETS = {"TRR": (-34, 6), "TR": (9, -3), "B": (-16, -14)}


def pct(new: float, old: float) -> float:
    """Change of ``new`` relative to ``old``, in %."""
    return 100.0 * (new / old - 1.0)


def best_by_product(front: pd.DataFrame) -> pd.Series:
    f = front.assign(product=product(front))
    return f.loc[f["product"].idxmin()]


def knee_estimate(mr_max: float) -> dict:
    env = reference_environment(mr_max)
    n, t, d, mr = PAPER_KNEE
    df = estimate(env, Strategy(n, t * env.t_ur, d * env.t_ur, mr), N_REPS, seed=SEED)
    return {"makespan": df["makespan"].mean(), "cost": df["cost"].mean()}


# ----------------------------------------------------------------------------------------- Fig. 8a
def fig8a(res, res_fin, statics: pd.DataFrame, knee: dict) -> None:
    ev, front, front_fin = res.evaluations, res.front, res_fin.front
    fig, ax = plt.subplots(figsize=(9.5, 6.2))
    ax.scatter(
        ev["makespan"],
        ev["cost"],
        s=9,
        c="0.72",
        label=f"sampled NTDM_r strategies ({len(ev)})",
        zorder=1,
    )
    ax.step(front["makespan"], front["cost"], where="post", c="tab:blue", lw=1.2, zorder=2)
    ax.scatter(
        front["makespan"],
        front["cost"],
        s=30,
        c="tab:blue",
        zorder=3,
        label=f"Pareto frontier, N ∈ {{0..3, ∞}} ({len(front)} strategies)",
    )
    ax.step(
        front_fin["makespan"],
        front_fin["cost"],
        where="post",
        c="tab:orange",
        ls="--",
        lw=1.2,
        zorder=2,
    )
    ax.scatter(
        front_fin["makespan"],
        front_fin["cost"],
        s=22,
        facecolors="none",
        edgecolors="tab:orange",
        zorder=3,
        label=f"Pareto frontier, N ∈ {{0..3}} only ({len(front_fin)} strategies)",
    )
    ax.scatter(
        [knee["makespan"]],
        [knee["cost"]],
        s=90,
        marker="o",
        facecolors="none",
        edgecolors="k",
        lw=1.5,
        zorder=4,
        label="paper's knee N=3, T=t_ur, D=2·t_ur, M_r=0.02",
    )
    xmax = max(statics.loc[statics.strategy != "AR", "makespan"].max(), ev["makespan"].max()) * 1.08
    for _, s in statics.iterrows():
        name = s["strategy"]
        label = STATIC_LABELS.get(name, name)
        if s["makespan"] > xmax:  # AR: off-scale, annotated as in the paper
            ax.annotate(
                f"AR at ({s['makespan']:,.0f} s, {s['cost']:.1f} ¢/task)\nnot shown →",
                xy=(0.985, 0.97),
                xycoords="axes fraction",
                ha="right",
                va="top",
                fontsize=9,
                bbox={"boxstyle": "round", "fc": "w", "ec": "0.6"},
            )
            continue
        ax.scatter(
            [s["makespan"]],
            [s["cost"]],
            s=85,
            marker=STATIC_MARKERS[name],
            c="tab:red",
            edgecolors="k",
            lw=0.6,
            zorder=5,
        )
        ax.annotate(
            label,
            (s["makespan"], s["cost"]),
            xytext=LABEL_OFFSETS.get(name, (7, 4)),
            textcoords="offset points",
            fontsize=10,
            color="tab:red",
            weight="bold",
        )
    ax.scatter([], [], s=60, marker="s", c="tab:red", edgecolors="k", label="static strategies")
    ax.set_xlim(0, xmax)
    ax.set_yscale("log")
    ax.yaxis.set_major_locator(FixedLocator([0.5, 0.75, 1, 1.5, 2, 3, 4, 6, 8]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    ax.set_xlabel(axis_label("expert", "makespan"))
    ax.set_ylabel(axis_label("expert", "cost") + " (log scale)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="center right", fontsize=8.5, framealpha=0.95)
    ax.set_title(f"Fig. 8a: Pareto frontier vs. static strategies\n{scenario(0.1)}", fontsize=10)
    fig.text(0.01, 0.005, FS_NOTE, fontsize=8, style="italic")
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    save_figure(fig, "expert_static")


def table8a(res, res_fin, statics: pd.DataFrame, knee: dict) -> str:
    front, front_fin = res.front, res_fin.front
    rows = []
    for _, s in statics.iterrows():
        rows.append(
            {
                "strategy": STATIC_LABELS.get(s["strategy"], s["strategy"]),
                "makespan [s]": s["makespan"],
                "cost [¢/task]": s["cost"],
                "makespan×cost": s["product"],
                "dominated by frontier (N∈{0..3,∞})": dominated(front, s["makespan"], s["cost"]),
                "dominated by frontier (N∈{0..3})": dominated(front_fin, s["makespan"], s["cost"]),
            }
        )
    best, best_fin = best_by_product(front), best_by_product(front_fin)
    extra = [
        ("ExPERT best by product (N∈{0..3,∞}): " + strategy_label(best), best),
        ("ExPERT best by product (N∈{0..3}): " + strategy_label(best_fin), best_fin),
        ("paper's knee N=3 T=1·t_ur D=2·t_ur M_r=0.02", pd.Series(knee)),
    ]
    for label, r in extra:
        rows.append(
            {
                "strategy": label,
                "makespan [s]": r["makespan"],
                "cost [¢/task]": r["cost"],
                "makespan×cost": r["makespan"] * r["cost"],
                "dominated by frontier (N∈{0..3,∞})": dominated(front, r["makespan"], r["cost"]),
                "dominated by frontier (N∈{0..3})": dominated(front_fin, r["makespan"], r["cost"]),
            }
        )
    df = pd.DataFrame(rows)
    fmt = {"makespan [s]": ",.0f", "cost [¢/task]": ".3f", "makespan×cost": ",.0f"}
    return markdown_table(df, fmt)


def comparisons(res, res_fin, statics: pd.DataFrame, knee: dict) -> str:
    cn = statics.set_index("strategy").loc["CN_inf"]
    lines = ["Paper comparison (M_r^max = 0.1):", ""]
    cand = [
        ("ExPERT best by product, N∈{0..3,∞}", best_by_product(res.front)),
        ("ExPERT best by product, N∈{0..3}", best_by_product(res_fin.front)),
        ("paper's knee (N=3, T=t_ur, D=2·t_ur, M_r=0.02) as estimated", pd.Series(knee)),
    ]
    lines.append(
        "vs CN∞ (paper: knee at 15,640 s and 0.78 ¢/task, i.e. −72 % cost and −33 % makespan):"
    )
    for label, r in cand:
        lines.append(
            f"- {label}: {r['makespan']:,.0f} s, {r['cost']:.3f} ¢/task; cost "
            f"{pct(r['cost'], cn['cost']):+.0f} %, makespan {pct(r['makespan'], cn['makespan']):+.0f} % "
            f"(CN∞: {cn['makespan']:,.0f} s, {cn['cost']:.3f} ¢/task)"
        )
    order = statics.sort_values("product").reset_index(drop=True)
    best_static = order.iloc[0]
    lines += [
        "",
        "makespan×cost ranking of the static strategies: "
        + ", ".join(
            f"{STATIC_LABELS.get(n, n)} {p:,.0f}"
            for n, p in zip(order.strategy, order["product"], strict=True)
        ),
        f"vs the best static by makespan×cost, {STATIC_LABELS.get(best_static.strategy, best_static.strategy)} "
        "(paper: ExPERT recommended 25 % better than AUR, the second-best performer):",
    ]
    for label, r in cand:
        p = r["makespan"] * r["cost"]
        lines.append(
            f"- {label}: {p:,.0f} → {100 * (1 - p / best_static['product']):.0f} % better "
            f"(lower) than {best_static.strategy}"
        )
    front = res.front
    dom = [
        s
        for s in STATICS
        if dominated(front, *statics.set_index("strategy").loc[s, ["makespan", "cost"]])
    ]
    dom_fin = [
        s
        for s in STATICS
        if dominated(res_fin.front, *statics.set_index("strategy").loc[s, ["makespan", "cost"]])
    ]
    lines += [
        "",
        "Paper: the frontier dominates every static strategy except AUR.",
        f"- frontier N∈{{0..3,∞}} dominates: {', '.join(dom)}; not: "
        f"{', '.join(s for s in STATICS if s not in dom) or 'none'}",
        f"- frontier N∈{{0..3}} dominates: {', '.join(dom_fin)}; not: "
        f"{', '.join(s for s in STATICS if s not in dom_fin) or 'none'}",
        f"- composition of the N∈{{0..3,∞}} frontier: {int(np.isinf(front['N']).sum())} of {len(front)} "
        "strategies have N=∞",
        f"- paper's knee on the N∈{{0..3,∞}} frontier: "
        f"{'no (dominated)' if dominated(front, knee['makespan'], knee['cost']) else 'yes'}; "
        f"on the N∈{{0..3}} frontier: "
        f"{'no (dominated)' if dominated(res_fin.front, knee['makespan'], knee['cost']) else 'yes'}",
    ]
    return "\n".join(lines)


# ----------------------------------------------------------------------------------------- Fig. 8b
def products_by_mr_max(first=None) -> tuple[pd.DataFrame, dict]:
    """Rows: strategies; columns: M_r^max; values: makespan × cost.  Also the recommended strategies."""
    table, recommended = {}, {}
    for mr_max in MR_MAX_VALUES:
        if first is not None and mr_max == 0.1:
            res, res_fin, statics = first
        else:
            res, _ = search(mr_max)
            res_fin, _ = search(mr_max, N=FINITE_N)
            statics = static_table(mr_max)
        best, best_fin = best_by_product(res.front), best_by_product(res_fin.front)
        recommended[mr_max] = (best, best_fin)
        col = {
            "ExPERT recommended": best["makespan"] * best["cost"],
            "ExPERT (N≤3)": best_fin["makespan"] * best_fin["cost"],
        }
        col.update(
            {
                STATIC_LABELS.get(n, n): p
                for n, p in zip(statics.strategy, statics["product"], strict=True)
            }
        )
        table[mr_max] = col
    return pd.DataFrame(table), recommended


def fig8b(prod: pd.DataFrame) -> None:
    names = list(prod.index)
    x = np.arange(len(names))
    width = 0.26
    colors = ["#4c72b0", "#dd8452", "#55a868"]
    fig, ax = plt.subplots(figsize=(10.5, 5.6))
    for j, mr_max in enumerate(prod.columns):
        vals = prod[mr_max].to_numpy()
        bars = ax.bar(
            x + (j - 1) * width,
            vals,
            width,
            color=colors[j],
            edgecolor="k",
            lw=0.4,
            label=f"$M_r^{{max}}$ = {mr_max:g}",
        )
        for b, v in zip(bars, vals, strict=True):
            ax.text(
                b.get_x() + b.get_width() / 2,
                v * 1.08,
                f"{v / 1000:,.1f}k",
                ha="center",
                va="bottom",
                fontsize=7,
                rotation=90,
            )
    ax.set_yscale("log")
    plain_log_ticks(ax, "y")
    ax.set_ylim(prod.to_numpy().min() / 2, prod.to_numpy().max() * 6)
    ax.set_xticks(x, [n.replace("ExPERT ", "ExPERT\n") for n in names], fontsize=9)
    ax.set_ylabel("tail-phase makespan × cost [s·cent/task]\n(log scale; smaller is better)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(loc="upper left", fontsize=9)
    fig.suptitle(
        "Fig. 8b: makespan × cost, ExPERT recommended (frontier's best by product) vs. static strategies\n"
        + scenario(0.1).replace("M_r^max=0.1; ", "M_r^max ∈ {0.1, 0.3, 0.5}; "),
        fontsize=10,
    )
    fig.text(
        0.01, 0.005, FS_NOTE + ". Bar labels: values in thousands.", fontsize=8, style="italic"
    )
    fig.tight_layout(rect=(0, 0.02, 1, 1))
    save_figure(fig, "expert_product")


def frontier_table(front: pd.DataFrame) -> str:
    df = front.assign(
        N=front["N"].map(lambda n: "∞" if math.isinf(n) else str(int(n))), product=product(front)
    )[["N", "T", "D", "Mr", "makespan", "cost", "product"]]
    return markdown_table(
        df,
        {"T": ",.0f", "D": ",.0f", "Mr": "g", "makespan": ",.0f", "cost": ".3f", "product": ",.0f"},
    )


def main() -> None:
    timer = Timer()
    res, prob = search(0.1)
    res_fin, _ = search(0.1, N=FINITE_N)
    statics = static_table(0.1)
    knee = knee_estimate(0.1)
    fig8a(res, res_fin, statics, knee)
    text = "\n\n".join(
        [
            f"## Fig. 8a — static strategies vs. the NTDM_r Pareto frontier\n\n{scenario(0.1)}. "
            f"{FS_NOTE}. Paper grid: {prob.n_designs} strategies (N ∈ {{0..3, ∞}}), "
            f"{res_fin.evaluations.shape[0]} with N ∈ {{0..3}}; exhaustive search; statics estimated with the same "
            "seed (common random numbers). Means of 10 replications; makespan = tail-phase makespan (whole bag for AR).",
            table8a(res, res_fin, statics, knee),
            comparisons(res, res_fin, statics, knee),
            "### Pareto frontier (N ∈ {0..3, ∞})\n\n"
            + frontier_table(res.front)
            + "\n\n(M_r is irrelevant when N = ∞: the reliable pool is never used.)",
            "### Pareto frontier (N ∈ {0..3}, the paper's stated sampling)\n\n"
            + frontier_table(res_fin.front),
        ]
    )
    report("expert_static", text)

    prod, recommended = products_by_mr_max(first=(res, res_fin, statics))
    fig8b(prod)
    lines = [
        f"## Fig. 8b — makespan × cost [s·cent/task], smaller is better\n\n"
        f"{scenario(0.1).replace('M_r^max=0.1; ', 'M_r^max ∈ {0.1, 0.3, 0.5}; ')}. {FS_NOTE}. "
        "ExPERT recommended = the Pareto frontier's strategy with the smallest makespan × cost "
        "(N ∈ {0..3, ∞}; 'ExPERT (N≤3)': the same over N ∈ {0..3}, the paper's stated sampling).",
        markdown_table(
            prod.rename(columns=lambda c: f"M_r^max={c:g}").reset_index(names="strategy"),
            {f"M_r^max={c:g}": ",.0f" for c in prod.columns},
        ),
        "Recommended strategies:",
    ]
    for mr_max, (b, bf) in recommended.items():
        lines.append(
            f"- M_r^max={mr_max:g}: {strategy_label(b)} ({b['makespan']:,.0f} s, {b['cost']:.3f} ¢/task); "
            f"N≤3: {strategy_label(bf)} ({bf['makespan']:,.0f} s, {bf['cost']:.3f} ¢/task)"
        )
    lines.append("")
    lines.append(
        "ExPERT recommended vs the best static strategy (paper, M_r^max = 0.1: 25 % better than AUR):"
    )
    for mr_max in prod.columns:
        col = prod[mr_max]
        st = col.drop(["ExPERT recommended", "ExPERT (N≤3)"])
        ranking = col.sort_values()
        lines.append(
            f"- M_r^max={mr_max:g}: best static {st.idxmin()} {st.min():,.0f}; ExPERT recommended "
            f"{100 * (1 - col['ExPERT recommended'] / st.min()):.0f} % better, ExPERT (N≤3) "
            f"{100 * (1 - col['ExPERT (N≤3)'] / st.min()):.0f} % better; ranking: "
            + " < ".join(ranking.index)
        )
    report("expert_product", "\n\n".join(lines[:3]) + "\n" + "\n".join(lines[3:]))
    print(f"\n[expert_static.py: seed={SEED}, n_reps={N_REPS}, run time {timer():.1f} s]")


if __name__ == "__main__":
    main()
