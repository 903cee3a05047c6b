"""Tables 2, 3 and 4 of Zhang et al. (IEEE TETC 2014) in shape, with figures like Figs. 9-11.

    PYTHONPATH=$PWD python experiments/vmc_scenarios.py [--seeds 20] [--sample-size 200] [--report-only]

Runs every cell (16, 32, 64, 128 VMs × LFLD, LFHD, HFLD, HFHD) for Scenario 1 (MC, BP, OO) and
Scenario 2 (MC, BP, iOO, eOO; plus eOO + OCBA at 32 VMs for Table 4), seed by seed (seeds outer,
so an interrupted run still covers every cell), appending one row per (cell, seed, method) to
figures/vmc_runs.csv (resumable: rows already there are not run again; split a run over
processes with --first-seed/--seed-step and --runs figures/vmc_runs_<k>.csv).  The report (tables
with 95 % t-intervals over seeds, figures) is built from every figures/<name>_runs*.csv.

Other runs, reported beside the main one: ``--bp-alpha 0.8`` (Blind Pick at the paper's fraction,
figures/vmc_bp_runs.csv), ``--ablation`` (Scenario 2's eOO with splits only / merges only / neither,
figures/vmc_ablation_runs.csv), and ``--name vmc_k2000 --sample-size 2000 --sizes 32`` (a larger
sample, its own report figures/vmc_k2000_*).  ``--scenarios 2 --workloads ... --methods ioo,eoo``
run only those (e.g. ``--name vmc_k27132 --sample-size 27132 --sizes 32 --scenarios 2 --methods
ioo,eoo``, the specification's K; ``--name vmc_k27132 --sample-size 27132 --sizes 16
--no-keep-base-period --runs figures/vmc_k27132_runs_16.csv``, 16 VMs, both scenarios, the whole
space searched).  Each run prints its methods' wall times.

``--report-only`` rebuilds the tables and figures from the committed runs without simulating:
``--report-only`` (the main report), ``--name vmc_k2000 --sample-size 2000 --sizes 32
--report-only`` and ``--name vmc_k27132 --sample-size 27132 --sizes 16,32 --report-only``.
Figures are drawn for the main report only (``--figures`` for a side report's).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullLocator  # noqa: E402
from scipy import stats  # noqa: E402

from mopt.core.result import atomic_write  # noqa: E402
from mopt.vmc.paper_scenarios import SCENARIO_METHODS, compare_methods  # noqa: E402
from mopt.vmc.workload import KINDS  # noqa: E402

FIGURES = Path(__file__).resolve().parent.parent / "figures"
SIZES = (16, 32, 64, 128)
LABEL = {"exhaustive": "MC", "blind_pick": "BP", "ioo": "OO/iOO", "eoo": "eOO", "eoo_ocba": "eOO+OCBA"}
#: the paper's Tables 2-4 (percent)
PAPER2 = {("exhaustive", 16): (6.19, 5.50, 1.19, 0.80), ("exhaustive", 32): (3.18, 3.32, 2.53, 6.48),
          ("exhaustive", 64): (1.29, 3.51, 4.01, 2.96), ("exhaustive", 128): (1.07, 1.60, 0.04, 0.13),
          ("blind_pick", 16): (-1.03, -3.67, -2.97, -4.73), ("blind_pick", 32): (-2.27, -0.83, -3.78, -5.04),
          ("blind_pick", 64): (-2.58, -4.96, -4.78, -2.31), ("blind_pick", 128): (-1.46, -2.07, -0.68, -2.27)}
PAPER3 = {("exhaustive", 16): (-5.88, -12.12, -17.92, -7.12), ("exhaustive", 32): (-8.51, -10.43, -17.71, -10.31),
          ("exhaustive", 64): (-9.56, -12.31, -22.26, -9.63), ("exhaustive", 128): (-16.00, -13.05, -18.68, -29.06),
          ("blind_pick", 16): (0.98, -18.18, -14.41, -7.98), ("blind_pick", 32): (-3.40, -10.43, -12.31, -20.13),
          ("blind_pick", 64): (-5.98, -19.13, -15.09, -16.50), ("blind_pick", 128): (-13.85, -19.48, -18.08, -32.62),
          ("ioo", 16): (-2.94, -8.33, -7.29, -5.56), ("ioo", 32): (-2.13, -3.24, -15.66, -3.18),
          ("ioo", 64): (-2.79, -5.82, -9.48, -7.06), ("ioo", 128): (-2.24, -11.35, -6.06, -14.05)}
PAPER4 = {"exhaustive": (12.64, 18.33, 16.54, 29.68), "blind_pick": (14.28, 16.53, 15.79, 29.65),
          "ioo": (8.52, 11.11, 10.65, 23.73), "eoo": (2.27, 3.63, 2.01, 7.14)}


def plan(seeds, sizes, scenarios=(1, 2), workloads=KINDS, methods=None):
    """Every (seed, theta, workload, scenario, methods) to run, seeds outer.  By default every
    method of each scenario, and eOO + OCBA (Table 4, 32 VMs only) in a second pass, after every
    seed of the others; with ``methods`` only those, all in one pass (eOO + OCBA at 32 VMs only)."""
    for seed in seeds:
        for theta in sizes:
            for kind in workloads:
                for scen in scenarios:
                    ms = SCENARIO_METHODS[scen]
                    if methods is not None:
                        extra = ("eoo_ocba",) if scen == 2 and theta == 32 else ()
                        ms = tuple(m for m in (*ms, *extra) if m in methods)
                    if ms:
                        yield seed, theta, kind, scen, ms
    if 32 in sizes and 2 in scenarios and methods is None:
        for seed in seeds:
            for kind in workloads:
                yield seed, 32, kind, 2, ("eoo_ocba",)


def run_bp(args, path: Path) -> None:
    """The sensitivity run: Blind Pick with the paper's fraction ``--bp-alpha`` in every cell."""
    label = f"blind_pick_{args.bp_alpha:g}"
    done = pd.read_csv(path) if path.exists() else pd.DataFrame()
    have = set(zip(done.seed, done.theta, done.workload, done.scenario, strict=True)) if len(done) else set()
    rows = [done] if len(done) else []
    seeds = range(args.first_seed, args.first_seed + args.seeds * args.seed_step, args.seed_step)
    for seed in seeds:
        for theta in args.sizes:
            for kind in KINDS:
                for scen in (1, 2):
                    if (seed, theta, kind, scen) in have:
                        continue
                    df = compare_methods(theta, kind, scen, [(label, "blind_pick", {"alpha": args.bp_alpha})],
                                         [seed], sample_size=args.sample_size,
                                         keep_base_period=args.keep_base_period)
                    rows.append(df)
                    table = pd.concat(rows, ignore_index=True)
                    atomic_write(path, lambda p, t=table: t.to_csv(p, index=False))
                    print(f"seed {seed} {theta:>3} {kind} S{scen}: {label} {df.throughput.iloc[0]:.4f}", flush=True)


#: eOO with one or both of Algorithms 2 and 3 switched off (threshold 0: never split; 1: never merge)
ABLATION = {"eoo_split_only": {"merge_threshold": 1.0}, "eoo_merge_only": {"split_threshold": 0.0},
            "eoo_neither": {"split_threshold": 0.0, "merge_threshold": 1.0}}


def run_ablation(args, path: Path) -> None:
    """Scenario 2's eOO with only splits, only merges or neither (stages of t, as iOO's), to see what
    each does (ours)."""
    done = pd.read_csv(path) if path.exists() else pd.DataFrame()
    have = set(zip(done.seed, done.theta, done.workload, done.method, strict=True)) if len(done) else set()
    rows = [done] if len(done) else []
    seeds = range(args.first_seed, args.first_seed + args.seeds * args.seed_step, args.seed_step)
    for seed in seeds:
        for theta in args.sizes:
            for kind in KINDS:
                for label, thresholds in ABLATION.items():
                    if (seed, theta, kind, label) in have:
                        continue
                    df = compare_methods(theta, kind, 2, ["eoo"], [seed], sample_size=args.sample_size,
                                         keep_base_period=args.keep_base_period, **thresholds)
                    df["method"] = label
                    rows.append(df)
                    table = pd.concat(rows, ignore_index=True)
                    atomic_write(path, lambda p, t=table: t.to_csv(p, index=False))
                    print(f"seed {seed} {theta:>3} {kind}: {label} {df.throughput.iloc[0]:.4f}", flush=True)


def run(args, path: Path) -> None:
    done = pd.read_csv(path) if path.exists() else pd.DataFrame()
    have = set()
    if len(done):
        have = set(zip(done.seed, done.theta, done.workload, done.scenario, done.method, strict=True))
    rows = [done] if len(done) else []
    seeds = range(args.first_seed, args.first_seed + args.seeds * args.seed_step, args.seed_step)
    for seed, theta, kind, scen, methods in plan(seeds, args.sizes, args.scenarios, args.workloads, args.methods):
        methods = [m for m in methods if (seed, theta, kind, scen, m) not in have]
        if not methods:
            continue
        clock, took = [time.perf_counter()], []

        def lap(_row, clock=clock, took=took):  # wall seconds of each method's run (printed only)
            now = time.perf_counter()
            took.append(now - clock[0])
            clock[0] = now

        df = compare_methods(theta, kind, scen, methods, [seed], sample_size=args.sample_size,
                             keep_base_period=args.keep_base_period, progress=lap)
        rows.append(df)
        table = pd.concat(rows, ignore_index=True)
        atomic_write(path, lambda p, t=table: t.to_csv(p, index=False))
        print(f"seed {seed} {theta:>3} {kind} S{scen}: " + ", ".join(
            f"{LABEL[m]} {v:.4f} ({s:.1f} s)" for m, v, s in zip(df.method, df.throughput, took, strict=True)),
            flush=True)


def relative(runs: pd.DataFrame, scenario: int, ref: str, column: str = "throughput", gain: bool = False):
    """Per cell and method: mean, 95 % half-width and seeds of (x_m − x_ref)/x_ref (``gain``:
    (x_m − x_ref)/x_m, Table 4's OCBA gain with makespans), in percent, over the seeds that ran both."""
    d = runs[runs.scenario == scenario].pivot_table(index=["theta", "workload", "seed"], columns="method",
                                                    values=column)
    out, columns = [], ["method", "theta", "workload", "mean", "hw", "n"]
    if ref not in d.columns:
        return pd.DataFrame(columns=columns)
    for m in d.columns:
        if m == ref:
            continue
        rel = ((d[m] - d[ref]) / (d[m] if gain else d[ref]) * 100).dropna()
        for (theta, kind), x in rel.groupby(level=[0, 1]):
            n = len(x)
            hw = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
            out.append({"method": m, "theta": theta, "workload": kind, "mean": x.mean(), "hw": hw, "n": n})
    return pd.DataFrame(out, columns=columns)  # with its columns when empty (ref ran alone)


def over_seeds(runs: pd.DataFrame, m: str, ref: str, column: str = "throughput", gain: bool = False) -> str:
    """Scenario 2's (x_m − x_ref)/x_ref (``gain``: /x_m) in %, averaged over the cells for each seed
    that ran both methods in every cell, then a 95 % t-interval over those seeds (ours)."""
    d = runs[runs.scenario == 2].pivot_table(index=["theta", "workload", "seed"], columns="method", values=column)
    if not {m, ref} <= set(d.columns):
        return "not run"
    rel = ((d[m] - d[ref]) / (d[m] if gain else d[ref]) * 100).unstack(level=[0, 1]).dropna()
    x = rel.mean(axis=1)
    n = len(x)
    if n < 2:
        return f"{n} complete seed(s), no interval"
    hw = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n)
    return (f"{x.mean():+.2f} ± {hw:.2f} % (mean over {rel.shape[1]} cells, interval over the {n} seeds that ran "
            f"every cell; {int((x > 0).sum())} of {n} seed means > 0)")


def cell(r, paper=None) -> str:
    s = f"{r['mean']:+.2f} ± {r['hw']:.2f} (n={r['n']})"
    return s if paper is None else f"{s} [paper {paper:+.2f}]"


def table_md(rel: pd.DataFrame, methods, paper, title: str) -> str:
    lines = [f"### {title}", "", "| VMs | method | " + " | ".join(KINDS) + " |", "|---|---|" + "---|" * len(KINDS)]
    for m in methods:
        for theta in sorted(rel.theta.unique()):
            cells = []
            for k, kind in enumerate(KINDS):
                x = rel[(rel.method == m) & (rel.theta == theta) & (rel.workload == kind)]
                p = paper.get((m, theta)) if paper else None
                cells.append(cell(x.iloc[0], None if p is None else p[k]) if len(x) else "—")
            lines.append(f"| {theta} | {LABEL.get(m, m)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def figure(runs: pd.DataFrame, scenario: int, methods, name: str, title: str) -> None:
    d = runs[runs.scenario == scenario]
    sizes = sorted(d.theta.unique())
    means = d.pivot_table(index=["workload", "theta", "seed"], columns="method", values="throughput")
    label = {}
    for k, m in enumerate(methods):  # a method equal to a later one in every run is drawn under it
        same = [o for o in methods[k + 1:] if means[m].equals(means[o])]
        label[m] = f"{LABEL[m]} (= {LABEL[same[-1]]} in every run, hidden)" if same else LABEL[m]
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.9), sharey=False)
    for ax, kind in zip(axes, KINDS, strict=True):
        for m in methods:
            x = d[(d.workload == kind) & (d.method == m)].groupby("theta")["throughput"]
            mean, se = x.mean(), x.std(ddof=1) / np.sqrt(x.count())
            ax.errorbar(mean.index, mean.values, yerr=1.96 * se.values, marker="o", capsize=3, label=label[m])
        ax.set_xscale("log", base=2)
        ax.set_xticks(sizes, [str(t) for t in sizes])  # the cluster sizes, as plain numbers
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_title(f"workload {kind}")
        ax.set_xlabel("cluster size [VMs]")
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("throughput [tasks per busy second]")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    atomic_write(FIGURES / f"{name}.png", lambda p: fig.savefig(p, format="png", dpi=110))
    plt.close(fig)


def config_md(args) -> str:
    """The configuration of each cluster size: K, O, t and Monte Carlo's period."""
    from mopt.vmc.paper_scenarios import scenario_problem
    from mopt.vmc.space import count_partitions

    lines = ["| VMs | schedules u | searched K | O (s per replication) | t = iOO's overhead (s) | "
             "MC period (s, in t) | Scenario 2 horizon (s) |", "|---|---|---|---|---|---|---|"]
    for theta in sorted(args.sizes):
        mp = scenario_problem(theta, "LFLD", 2, 1, sample_size=args.sample_size,
                              keep_base_period=args.keep_base_period)
        mc = mp.u_search * 1000 * mp.overhead_per_rep
        lines.append(f"| {theta} | {count_partitions(theta, 7):,} | {mp.u_search:,} | {mp.overhead_per_rep:.4f} | "
                     f"{mp.base_period:.1f} | {mc:,.0f} ({mc / mp.base_period:.2f} t) | {mp.horizon:,.0f} |")
    return "\n".join(lines)


def report(paths, args) -> str:
    runs = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    # split runs may overlap: one row per (cell, seed, method); the same seed gives the same row
    runs = runs.drop_duplicates(["theta", "workload", "scenario", "seed", "method"], ignore_index=True)
    t2 = relative(runs, 1, "ioo")
    t3 = relative(runs, 2, "eoo")
    t4 = relative(runs[runs.theta == 32], 2, "eoo_ocba", column="makespan", gain=True)
    reduced = " (reduced for the machine)" if args.sample_size < 27132 else " (the specification's)"
    parts = [f"Runs: {len(runs)} (cells × seeds × methods); searched sample K = {args.sample_size} schedules "
             f"per period{reduced}; 95 % t-intervals over seeds; n = seeds.", config_md(args)]
    if len(t2):  # the tables of what ran only (a run may select scenarios and methods)
        parts.append(table_md(t2, [m for m in ("exhaustive", "blind_pick") if m in set(t2.method)], PAPER2,
                              "Table 2 (Scenario 1): (T_m − T_OO)/T_OO in %, + = better than OO"))
    if len(t3):
        parts.append(table_md(t3, [m for m in ("exhaustive", "blind_pick", "ioo") if m in set(t3.method)], PAPER3,
                              "Table 3 (Scenario 2): (T_m − T_eOO)/T_eOO in %, − = worse than eOO"))
    lines = ["### Table 4 (Scenario 2, 32 VMs): (M_m − M_OCBA)/M_m with makespans, in %, + = OCBA better", "",
             "| method | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
    for m in ("exhaustive", "blind_pick", "ioo", "eoo"):
        cells = []
        for k, kind in enumerate(KINDS):
            x = t4[(t4.method == m) & (t4.workload == kind)]
            cells.append(cell(x.iloc[0], PAPER4[m][k]) if len(x) else "—")
        lines.append(f"| {LABEL[m]} | " + " | ".join(cells) + " |")
    if len(t4):
        parts.append("\n".join(lines))
    s1 = runs[runs.scenario == 1].groupby("method")["throughput"].mean()
    s2 = runs[runs.scenario == 2].groupby("method")["throughput"].mean()
    def avg(t, m):  # mean over cells of the per-cell mean relative difference (seeds paired), %
        x = t[t.method == m]["mean"]
        return f"{x.mean():+.2f} % over {len(x)} cells, {int((x > 0).sum())} of them > 0"

    checks = ["### Must-hold orders", "",
              "Raw throughput means over cells and seeds, then the per-cell relative differences "
              "(seeds paired) averaged over the cells:", ""]
    if len(s1):
        checks.append(f"- Scenario 1: MC {s1.get('exhaustive', np.nan):.4f}, OO {s1.get('ioo', np.nan):.4f}, "
                      f"BP {s1.get('blind_pick', np.nan):.4f}; MC vs OO {avg(t2, 'exhaustive')}; "
                      f"BP vs OO {avg(t2, 'blind_pick')}")
    s2_methods = [m for m in ("eoo", "ioo", "exhaustive", "blind_pick") if m in s2.index]
    checks.append("- Scenario 2: " + ", ".join(f"{LABEL[m]} {s2[m]:.4f}" for m in s2_methods) + "; " + "; ".join(
        f"{LABEL[m]} vs eOO {avg(t3, m)}" for m in ("ioo", "exhaustive") if m in s2_methods))
    io = runs[runs.scenario == 2].pivot_table(index=["theta", "workload", "seed"], columns="method",
                                              values="throughput")
    if {"ioo", "exhaustive"} <= set(io.columns):
        r = ((io["ioo"] - io["exhaustive"]) / io["exhaustive"] * 100).dropna().groupby(level=[0, 1]).mean()
        checks.append(f"- Scenario 2, iOO vs MC: {r.mean():+.2f} % over {len(r)} cells, {int((r > 0).sum())} "
                      "of them > 0")
    checks.append(f"- 32 VMs, Scenario 2, eOO+OCBA's makespan gain over eOO (Table 4's row): {avg(t4, 'eoo')}")
    checks.append(f"- Scenario 2, iOO vs eOO in throughput, seed by seed: {over_seeds(runs, 'ioo', 'eoo')}")
    sizes = sorted(runs.theta.unique())
    for theta in sizes if len(sizes) > 1 else ():  # sizes may have run different seeds (ours)
        one = runs[runs.theta == theta]
        for m, ref in (("ioo", "eoo"), ("ioo", "exhaustive")):
            if (text := over_seeds(one, m, ref)) != "not run":
                checks.append(f"- {theta} VMs, Scenario 2, {LABEL[m]} vs {LABEL[ref]}, seed by seed: {text}")
    checks.append("- 32 VMs, Scenario 2, eOO+OCBA's makespan gain over eOO, seed by seed: "
                  f"{over_seeds(runs[runs.theta == 32], 'eoo', 'eoo_ocba', 'makespan', gain=True)}")
    parts.append("\n".join(checks))
    bp_files = sorted(FIGURES.glob(f"{args.name}_bp_runs*.csv"))
    if bp_files:
        bp = pd.concat([pd.read_csv(p) for p in bp_files], ignore_index=True)
        label = str(bp.method.iloc[0])
        both = pd.concat([runs, bp], ignore_index=True)
        b1 = relative(both[both.method.isin(["ioo", label])], 1, "ioo")
        b2 = relative(both[both.method.isin(["eoo", label])], 2, "eoo")
        parts.append(table_md(b1, [label], None, f"Sensitivity: {label} in Scenario 1, (T − T_OO)/T_OO in %"))
        parts.append(table_md(b2, [label], None, f"Sensitivity: {label} in Scenario 2, (T − T_eOO)/T_eOO in %"))
        parts.append(f"Means over cells: Scenario 1 {b1['mean'].mean():+.2f} %, Scenario 2 {b2['mean'].mean():+.2f} % "
                     f"(default BP: {t2[t2.method == 'blind_pick']['mean'].mean():+.2f} %, "
                     f"{t3[t3.method == 'blind_pick']['mean'].mean():+.2f} %).")
    abl_files = sorted(FIGURES.glob(f"{args.name}_ablation_runs*.csv"))
    if abl_files:
        abl = pd.concat([pd.read_csv(p) for p in abl_files], ignore_index=True)
        both = pd.concat([runs[runs.scenario == 2], abl], ignore_index=True)
        methods = [m for m in ["ioo", *ABLATION] if m in set(both.method)]
        a = relative(both[both.method.isin(["eoo", *methods])], 2, "eoo")
        parts.append(table_md(a, methods, None, "Ablation (Scenario 2): iOO and eOO with splits only / merges "
                                                "only / neither, (T − T_eOO)/T_eOO in %"))
        parts.append("Means over cells: " + ", ".join(f"{LABEL.get(m, m)} {a[a.method == m]['mean'].mean():+.2f} %"
                                                      for m in methods) + ".")
    text = "\n\n".join(parts) + "\n"
    for name, tab in ((f"{args.name}_table2", t2), (f"{args.name}_table3", t3), (f"{args.name}_table4", t4)):
        atomic_write(FIGURES / f"{name}.csv", lambda p, t=tab: t.to_csv(p, index=False))
    atomic_write(FIGURES / f"{args.name}_scenarios.md", lambda p: Path(p).write_text(text))
    if not args.figures:
        return text
    seeds = f"K = {args.sample_size:,}, mean and 95 % interval over the seeds"
    for scen, fig_title in ((1, "Scenario 1 (like Fig. 9)"), (2, "Scenario 2 (like Fig. 10)")):
        methods = [m for m in SCENARIO_METHODS[scen] if m in set(runs[runs.scenario == scen].method)]
        if methods:
            figure(runs, scen, methods, f"{args.name}_scenario{scen}",
                   f"{fig_title}: throughput per cluster size; {seeds}")
    d = runs[(runs.scenario == 2) & (runs.theta == 32)]
    if len(d):
        fig, ax = plt.subplots(figsize=(7.5, 3.9))
        methods = [m for m in ("exhaustive", "blind_pick", "ioo", "eoo", "eoo_ocba") if m in set(d.method)]
        for j, m in enumerate(methods):
            g = d[d.method == m].groupby("workload")["makespan"]
            mean, se = g.mean().reindex(KINDS), (g.std(ddof=1) / np.sqrt(g.count())).reindex(KINDS)
            ax.bar(np.arange(4) + 0.16 * j, mean.values, 0.16, yerr=1.96 * se.values, label=LABEL[m])
        ax.set_xticks(np.arange(4) + 0.16 * (len(methods) - 1) / 2, [f"workload {k}" for k in KINDS])
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_ylabel("makespan: total busy time [s]")
        ax.set_title(f"32 VMs, Scenario 2 (like Fig. 11); K = {args.sample_size:,}, 95 % intervals", fontsize=10)
        ax.legend(fontsize=8, ncol=len(methods), loc="lower center", bbox_to_anchor=(0.5, -0.28), frameon=False)
        ax.grid(True, axis="y", alpha=0.3)
        fig.tight_layout()
        atomic_write(FIGURES / f"{args.name}_ocba.png", lambda p: fig.savefig(p, format="png", dpi=110))
        plt.close(fig)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--sample-size", type=int, default=200)
    ap.add_argument("--sizes", type=lambda s: tuple(int(x) for x in s.split(",")), default=SIZES)
    ap.add_argument("--keep-base-period", action=argparse.BooleanOptionalAction, default=True,
                    help="scale O so that t is the specification's whatever --sample-size (see scenario_problem)")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--seed-step", type=int, default=1, help="run seeds first, first+step, ... (split runs)")
    ap.add_argument("--name", default="vmc", help="prefix of the report's files: figures/NAME_runs*.csv, ...")
    ap.add_argument("--runs", type=Path, default=None, help="runs file (default figures/NAME_runs.csv)")
    ap.add_argument("--report-only", action="store_true", help="report every figures/NAME_runs*.csv")
    ap.add_argument("--figures", action=argparse.BooleanOptionalAction, default=None,
                    help="draw the report's figures (default: for the main report, --name vmc, only; "
                         "the side reports' figures are not shown in the docs, so not kept)")
    ap.add_argument("--ablation", action="store_true",
                    help="instead: Scenario 2's eOO with splits only / merges only / neither "
                         "(figures/vmc_ablation_runs.csv)")
    ap.add_argument("--bp-alpha", type=float, default=None,
                    help="instead: the Blind Pick sensitivity run at this fraction (figures/vmc_bp_runs*.csv)")
    ap.add_argument("--scenarios", type=lambda s: tuple(int(x) for x in s.split(",")), default=(1, 2),
                    help="run only these scenarios, e.g. 2")
    ap.add_argument("--workloads", type=lambda s: tuple(s.split(",")), default=KINDS,
                    help="run only these workloads, e.g. LFLD,HFHD")
    ap.add_argument("--methods", type=lambda s: tuple(s.split(",")), default=None,
                    help="run only these methods, all in one pass, e.g. ioo,eoo,eoo_ocba")
    args = ap.parse_args(argv)
    if args.figures is None:
        args.figures = args.name == "vmc"
    for what, given, known in (("workload", args.workloads, KINDS), ("method", args.methods or (), LABEL),
                               ("scenario", args.scenarios, (1, 2))):
        if bad := [x for x in given if x not in known]:
            ap.error(f"unknown {what}: {', '.join(map(str, bad))} (known: {', '.join(map(str, known))})")
    # the side runs default to their own files: the main report reads every figures/NAME_runs*.csv
    kind = "_bp" if args.bp_alpha is not None else "_ablation" if args.ablation else ""
    args.runs = args.runs or FIGURES / f"{args.name}{kind}_runs.csv"
    if args.bp_alpha is not None:
        run_bp(args, args.runs)
        return 0
    if args.ablation:
        run_ablation(args, args.runs)
        return 0
    if not args.report_only:
        run(args, args.runs)
        paths = [args.runs]
    else:
        paths = sorted(FIGURES.glob(f"{args.name}_runs*.csv"))
    print(report(paths, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
