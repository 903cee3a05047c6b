"""Tables 2, 3 and 4 of Zhang et al. (IEEE TETC 2014) at every size, with figures like Figs. 9-11.

    PYTHONPATH=$PWD python experiments/vmc_scenarios.py [--name vmc_ind] [--seeds 20] [--sample-size 27132]
        [--sizes 16,32,64,128] [--noise independent] [--cv 0.25] [--information lookahead] [--periods 40]

Runs every cell (16, 32, 64, 128 VMs × LFLD, LFHD, HFLD, HFHD) for Scenario 1 (MC, BP, OO) and
Scenario 2 (MC, BP, iOO, eOO, eOO + OCBA), seed by seed (seeds outer, so an interrupted run still
covers every cell), appending one row per (cell, seed, method) with its configuration (``noise``,
``cv``, ``information``, ``periods``) and wall time to figures/NAME_runs.csv.  Resumable: rows
already there are not run again.  Pieces: split a run over processes or days with
--first-seed/--seed-step, --sizes, --workloads, --scenarios, --methods and --runs
figures/NAME_runs_<piece>.csv; the report joins every figures/NAME_runs*.csv.

``--noise`` (default ``independent``, the paper's: each schedule its own draws; ``common``: common
random numbers, ours), ``--cv`` (σ/μ, default 0.25) and ``--information`` (``lookahead``, the paper's,
or ``stale``) choose the model; ``--periods P`` shortens Scenario 2's horizon to P base periods where
three Monte Carlo periods are longer (the issue's ≥ 40; a run records P in its rows).  Files written
before these columns existed (the main ``vmc`` runs, K = 200) are read as common / 0.25 / look-ahead.

The report (figures/NAME_scenarios.md, NAME_table2/3/4.csv): Tables 2-4 at every size in the paper's
sign conventions with 95 % t-intervals over seeds, the paper's number and whether the sign agrees
beside each cell, the must-holds per cell, then the same tables for each sensitivity configuration
that ran (noise=common, σ/μ = 0.5, information=stale; "not run" otherwise).  The main
configuration is the one given by --noise/--cv/--information, else the runs' most frequent.

Other runs, reported beside the main one: ``--bp-alpha 0.8`` (Blind Pick at the paper's fraction,
figures/NAME_bp_runs.csv), ``--ablation`` (Scenario 2's eOO with splits only / merges only / neither,
figures/NAME_ablation_runs.csv), and side reports under their own --name (e.g. ``--name vmc_k2000
--sample-size 2000 --sizes 32``).  Each run prints its methods' wall times.

``--report-only`` rebuilds the tables (and figures) from the committed runs without simulating:
``--report-only`` (the K = 200 report, common random numbers), ``--name vmc_ind --sample-size 27132
--sizes 16 --report-only`` (independent draws), ``--name vmc_k2000 --sample-size 2000 --sizes 32
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from vmc_tables import LABEL, against, config_label, must_holds, relative, table_md, tables_md  # noqa: E402

FIGURES = Path(__file__).resolve().parent.parent / "figures"
SIZES = (16, 32, 64, 128)


def plan(seeds, sizes, scenarios=(1, 2), workloads=KINDS, methods=None):
    """Every (seed, theta, workload, scenario, methods) to run, seeds outer (an interrupted run still
    covers every cell): each scenario's methods, Scenario 2's with eOO + OCBA (Table 4) at every
    size; with ``methods`` only those."""
    for seed in seeds:
        for theta in sizes:
            for kind in workloads:
                for scen in scenarios:
                    ms = SCENARIO_METHODS[scen] + (("eoo_ocba",) if scen == 2 else ())
                    ms = tuple(m for m in ms if methods is None or m in methods)
                    if ms:
                        yield seed, theta, kind, scen, ms


#: the configuration columns of a runs file, and their values in files written before they existed
#: (the main runs of 2026-11-23/26: common random numbers, σ/μ = 0.25, look-ahead, 3 MC periods)
CONFIG = {"noise": "common", "cv": 0.25, "information": "lookahead", "periods": float("nan")}


def read_runs(paths) -> pd.DataFrame:
    """Every runs file, each filled with :data:`CONFIG`'s defaults where it lacks a column, one row
    per (cell, seed, method, configuration): split runs may overlap, and a seed gives the same row."""
    frames = [pd.read_csv(p) for p in paths if Path(p).exists()]
    if not frames:
        return pd.DataFrame(columns=["theta", "workload", "scenario", "seed", "method", "throughput",
                                     "makespan", *CONFIG])
    runs = pd.concat([f.assign(**{c: v for c, v in CONFIG.items() if c not in f}) for f in frames],
                     ignore_index=True)
    keys = ["theta", "workload", "scenario", "seed", "method", "noise", "cv", "information", "periods"]
    return runs.drop_duplicates(keys, ignore_index=True)


def horizon_options(args, theta: int, kind: str, scen: int) -> dict:
    """``compare_methods``'s options for one cell: noise, σ/μ, information, K, and Scenario 2's
    horizon: three Monte Carlo periods, or ``--periods`` base periods where that is shorter (ours,
    issue #23: at 16 VMs with the whole space searched, three MC periods are 188 base periods)."""
    from mopt.vmc.paper_scenarios import scenario_problem

    opts = {"sample_size": args.sample_size, "keep_base_period": args.keep_base_period, "noise": args.noise,
            "cv": args.cv, "information": args.information}
    if scen == 2 and args.periods is not None:
        one = scenario_problem(theta, kind, 2, 1, periods=1, **opts)  # horizon = one MC period
        opts["periods"] = min(3.0, args.periods * one.base_period / one.horizon)
    return opts


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
    done = read_runs([path])
    config = (args.noise, args.cv, args.information)
    have = set(zip(done.seed, done.theta, done.workload, done.scenario, done.method, done.noise, done.cv,
                   done.information, strict=True))
    rows = [done] if len(done) else []
    seeds = range(args.first_seed, args.first_seed + args.seeds * args.seed_step, args.seed_step)
    for seed, theta, kind, scen, methods in plan(seeds, args.sizes, args.scenarios, args.workloads, args.methods):
        methods = [m for m in methods if (seed, theta, kind, scen, m, *config) not in have]
        if not methods:
            continue
        clock, took = [time.perf_counter()], []

        def lap(_row, clock=clock, took=took):  # wall seconds of each method's run (printed only)
            now = time.perf_counter()
            took.append(now - clock[0])
            clock[0] = now

        opts = horizon_options(args, theta, kind, scen)
        df = compare_methods(theta, kind, scen, methods, [seed], progress=lap, **opts)
        short = opts.get("periods", 3.0) < 3.0  # the horizon in base periods, where it was shortened
        df = df.assign(noise=args.noise, cv=args.cv, information=args.information,
                       periods=args.periods if short else float("nan"), wall=took)
        rows.append(df)
        table = pd.concat(rows, ignore_index=True)
        atomic_write(path, lambda p, t=table: t.to_csv(p, index=False))
        print(f"seed {seed} {theta:>3} {kind} S{scen}: " + ", ".join(
            f"{LABEL[m]} {v:.4f} ({s:.1f} s)" for m, v, s in zip(df.method, df.throughput, took, strict=True)),
            flush=True)


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
             "MC period (s, in t) | three MC periods (s) |", "|---|---|---|---|---|---|---|"]
    for theta in sorted(args.sizes):
        mp = scenario_problem(theta, "LFLD", 2, 1, sample_size=args.sample_size,
                              keep_base_period=args.keep_base_period)
        mc = mp.u_search * 1000 * mp.overhead_per_rep
        lines.append(f"| {theta} | {count_partitions(theta, 7):,} | {mp.u_search:,} | {mp.overhead_per_rep:.4f} | "
                     f"{mp.base_period:.1f} | {mc:,.0f} ({mc / mp.base_period:.2f} t) | {mp.horizon:,.0f} |")
    return "\n".join(lines)


def main_config(runs: pd.DataFrame, given: dict) -> dict:
    """The report's main configuration: what was given, else the runs' most frequent value."""
    return {c: v if v is not None else (runs[c].mode().iloc[0] if len(runs) else CONFIG[c])
            for c, v in given.items()}


#: the sensitivity runs issue #23 asks for, beside the main ones, and how to make them
SENSITIVITY = ({"noise": "common"}, {"cv": 0.5}, {"information": "stale"})


def mc_note(args, theta: int, periods: float) -> str:
    """What a horizon of ``periods`` base periods shorter than one Monte Carlo period means for MC."""
    from mopt.vmc.paper_scenarios import scenario_problem

    one = scenario_problem(theta, "LFLD", 2, 1, periods=1, sample_size=args.sample_size,
                           keep_base_period=args.keep_base_period)  # horizon = one MC period
    mc = one.horizon / one.base_period
    return "" if mc < periods else (
        f". At {theta} VMs Monte Carlo's search takes {mc:.1f} base periods, longer than the horizon: in "
        "Scenario 2 MC runs the random initial schedule throughout, and its rows measure that schedule")


def report(paths, args) -> str:
    every = read_runs(paths)
    main = main_config(every, args.main)
    is_main = (every.noise == main["noise"]) & (every.cv == main["cv"]) & (every.information == main["information"])
    runs = every[is_main]
    t2 = relative(runs, 1, "ioo")
    t3 = relative(runs, 2, "eoo")
    t4 = relative(runs, 2, "eoo_ocba", column="makespan", gain=True)
    reduced = " (reduced for the machine)" if args.sample_size < 27132 else " (the specification's)"
    short = runs[runs.periods.notna()]
    horizon = ("Scenario 2's horizon: three Monte Carlo periods" if not len(short) else
               "Scenario 2's horizon: " + ", ".join(f"{p:g} base periods at {', '.join(map(str, sorted(g.theta.unique())))} VMs"
                                                    for p, g in short.groupby("periods"))
               + " (where three Monte Carlo periods are longer); three Monte Carlo periods elsewhere"
               + "".join(mc_note(args, theta, p) for p, g in short.groupby("periods") for theta in sorted(g.theta.unique())))
    parts = [f"Main runs: {config_label(main)}; {len(runs)} rows (cells × seeds × methods); searched sample "
             f"K = {args.sample_size} schedules per period{reduced}; {horizon}. 95 % t-intervals over seeds, "
             "paired (every method of a seed faces the same workload and truth); n = seeds. Beside each cell: "
             "[the paper's number] and whether the sign agrees with it (n.s.: our interval includes 0).",
             config_md(args), *tables_md(runs, "")]
    parts.append("### Must-holds per cell (issue #23)\n\n" + must_holds(runs))
    s1 = runs[runs.scenario == 1].groupby("method")["throughput"].mean()
    s2 = runs[runs.scenario == 2].groupby("method")["throughput"].mean()

    def avg(t, m):  # mean over cells of the per-cell mean relative difference (seeds paired), %
        x = t[t.method == m]["mean"]
        return f"{x.mean():+.2f} % over {len(x)} cells, {int((x > 0).sum())} of them > 0"

    checks = ["### Averages over cells", "",
              "Raw throughput means over cells and seeds, then the per-cell relative differences "
              "(seeds paired) averaged over the cells:", ""]
    if len(s1):
        checks.append(f"- Scenario 1: MC {s1.get('exhaustive', np.nan):.4f}, OO {s1.get('ioo', np.nan):.4f}, "
                      f"BP {s1.get('blind_pick', np.nan):.4f}; MC vs OO {avg(t2, 'exhaustive')}; "
                      f"BP vs OO {avg(t2, 'blind_pick')}")
    s2_methods = [m for m in ("eoo", "ioo", "exhaustive", "blind_pick") if m in s2.index]
    if s2_methods:
        checks.append("- Scenario 2: " + ", ".join(f"{LABEL[m]} {s2[m]:.4f}" for m in s2_methods) + "; " + "; ".join(
            f"{LABEL[m]} vs eOO {avg(t3, m)}" for m in ("ioo", "exhaustive") if m in s2_methods))
    checks.append(f"- Scenario 2, eOO+OCBA's makespan gain over eOO (Table 4's row): {avg(t4, 'eoo')}")
    checks.append(f"- Scenario 2, iOO vs eOO in throughput, seed by seed: {over_seeds(runs, 'ioo', 'eoo')}")
    sizes = sorted(runs.theta.unique())
    for theta in sizes if len(sizes) > 1 else ():  # sizes may have run different seeds (ours)
        one = runs[runs.theta == theta]
        for m, ref in (("ioo", "eoo"), ("ioo", "exhaustive")):
            if (text := over_seeds(one, m, ref)) != "not run":
                checks.append(f"- {theta} VMs, Scenario 2, {LABEL[m]} vs {LABEL[ref]}, seed by seed: {text}")
    parts.append("\n".join(checks))
    for change in SENSITIVITY:
        config = {**main, **change}
        if config == main:
            continue
        sens = every[(every.noise == config["noise"]) & (every.cv == config["cv"])
                     & (every.information == config["information"])]
        title = f"Sensitivity: {config_label(config)}"
        if not len(sens):
            option = " ".join(f"--{k} {v}" for k, v in change.items())
            parts.append(f"### {title}\n\nNot run (`{option}` runs it).")
            continue
        parts.append(f"## {title} ({len(sens)} rows)")
        short = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}" for k, v in change.items())
        parts.extend(tables_md(sens, f"{short}: "))
        if set(change) <= {"noise", "information"}:  # the same truth: the change's cost, method by method
            for scen in (1, 2):
                rel = against(sens, runs, scen)
                if len(rel):
                    parts.append(table_md(rel, [m for m in LABEL if m in set(rel.method)], None,
                                          f"{short} against the main runs, Scenario {scen}: (T_{short} − T_main)/T_main "
                                          "in %, the same method and seeds"))
        parts.append(f"### {short}: must-holds per cell\n\n" + must_holds(sens))
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
    ap.add_argument("--noise", choices=("independent", "common"), default=None,
                    help="the searches' noise: each schedule its own draws (the paper's; runs' default) or "
                         "common random numbers (ours); the report's main tables: this one (default: the "
                         "runs' most frequent), the others as sensitivity tables")
    ap.add_argument("--cv", type=float, default=None, help="σ/μ of the profiling table (runs' default 0.25)")
    ap.add_argument("--information", choices=("lookahead", "stale"), default=None,
                    help="what Scenario 2's searches see (runs' default: lookahead, the paper's)")
    ap.add_argument("--periods", type=float, default=None,
                    help="Scenario 2's horizon: this many base periods where three Monte Carlo periods are "
                         "longer (default: three MC periods)")
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
    if args.cv is not None and not (args.cv >= 0 and math.isfinite(args.cv)):
        ap.error(f"--cv must be a number >= 0; got {args.cv}")
    if args.periods is not None and not args.periods > 0:
        ap.error(f"--periods must be > 0; got {args.periods}")
    # the report's main configuration: what was given, else the runs' most frequent (see report)
    args.main = {"noise": args.noise, "cv": args.cv, "information": args.information}
    if not args.report_only:
        args.noise, args.information = args.noise or "independent", args.information or "lookahead"
        args.cv = 0.25 if args.cv is None else args.cv
        run(args, args.runs)
    # the report joins every piece: figures/NAME_runs*.csv (and --runs, wherever it is)
    paths = sorted({*FIGURES.glob(f"{args.name}_runs*.csv"), *([args.runs] if args.runs.exists() else [])})
    print(report(paths, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
