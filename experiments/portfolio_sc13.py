"""SC13 reproduced: the 60-policy portfolio against its constituents on real traces (Figs. 4, 5,
7/8), and its sensitivity to the time budget Δ (Fig. 10), the selection period (Fig. 9) and the
utility's exponents α, β (Fig. 6).

    python experiments/portfolio_sc13.py versus --traces KTH-SP2 SDSC-SP2 LPC-EGEE
    python experiments/portfolio_sc13.py versus --traces KTH-SP2 SDSC-SP2 LPC-EGEE --runtime predicted
    python experiments/portfolio_sc13.py budget --traces KTH-SP2
    python experiments/portfolio_sc13.py period --traces KTH-SP2 [--max-jobs 4000]
    python experiments/portfolio_sc13.py budget --selection mopt    # (and period) under mopt's rule
    python experiments/portfolio_sc13.py exponents --traces KTH-SP2 [--max-jobs 4000]

Writes figures/portfolio_versus_<trace>[_<runtime>][_first<N>].png/.md/.csv and
figures/portfolio_<budget|period|exponents>[_first<N>][_mopt].png/.md/.csv (N = --max-jobs; _mopt:
``--selection mopt``, the sweep under mopt's rule; the .csv is the
figure's data: every constituent's row and how often the portfolio chose it, or the sweep's table).
``--plot-only`` redraws a figure from its .csv without simulating (a sweep without one: from its .md
table, whose values are rounded to 3 significant digits); ``--values`` runs only some values of a
sweep, keeping the other rows of its .csv (a long sweep in parts). Traces come from
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
from _common import FIGURES, axis_label, markdown_table, report
from matplotlib.ticker import FuncFormatter

from mopt.cloud import simulate_portfolio
from mopt.cloud.portfolio_report import (
    best_by_provisioning,
    plot_versus,
    portfolio_versus,
    with_selections,
)
from mopt.core.result import atomic_write
from mopt.plot import save_figure
from mopt.workloads import load_trace

SEED = 1
#: the sweeps' selection rules (mopt.cloud.selection_rules), as the titles name them
RULE_NAMES = {"sc13": "the papers' selection rule", "mopt": "mopt's selection rule (its defaults)"}
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


def versus_tag(name: str, args) -> str:
    rt = ("" if args.runtime == "actual" else f"_{args.runtime}") + (
        f"_first{args.max_jobs}" if args.max_jobs else "")
    return f"portfolio_versus_{name}{rt}"


def versus_title(name: str, df: pd.DataFrame, args) -> str:
    return (f"SC13 Fig. 4/5: {scope(name, df, args.max_jobs)}, {args.runtime} runtimes, "
            f"Δ = {args.budget}, seed {SEED}")


def versus(args) -> None:
    for name in args.traces:
        lines, summary = [], []
        df = trace(name, args.max_jobs)
        tag = versus_tag(name, args)
        if args.plot_only:
            table = pd.read_csv(FIGURES / f"{tag}.csv")
            plot_versus(table, None, FIGURES / f"{tag}.png", title=versus_title(name, df, args))
            continue
        t0 = time.perf_counter()
        table, run = portfolio_versus(df, "sc13", budget=args.budget, period=1, seed=SEED,
                                      runtime=args.runtime)
        seconds = time.perf_counter() - t0
        data = with_selections(table, run)
        atomic_write(FIGURES / f"{tag}.csv", lambda p, d=data: d.to_csv(p, index=False))
        plot_versus(data, None, FIGURES / f"{tag}.png", title=versus_title(name, df, args))
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
    tag = (f"portfolio_{what}" + (f"_first{args.max_jobs}" if args.max_jobs else "")
           + ("_mopt" if args.selection == "mopt" else ""))
    if args.plot_only:
        sweep_figure(sweep_table(tag), args, what, tag)
        return
    if args.values:
        wanted = {str(v).replace(" ", "") for v in args.values.split(";")}
        values = tuple(v for v in values if str(v).replace(" ", "") in wanted)
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
            run = simulate_portfolio(df, "sc13", seed=SEED, runtime=args.runtime, selection=args.selection, **kw)
            s = run.summary
            rows.append({"trace": name, what: str(v), "utility": s["utility"], "bsd": s["bsd"],
                         "vm_hours": s["vm_hours"], "utilisation": s["utilisation"],
                         "selections": s["selections"], "seconds": time.perf_counter() - t0})
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    if args.values and (FIGURES / f"{tag}.csv").exists():  # the other values' rows are kept
        old = pd.read_csv(FIGURES / f"{tag}.csv", dtype={what: str})
        old = old[~(old["trace"] + "|" + old[what]).isin(table["trace"] + "|" + table[what])]
        order = {str(v): k for k, v in enumerate({"budget": BUDGETS, "period": PERIODS,
                                                   "exponents": EXPONENTS}[what])}
        table = pd.concat([old, table], ignore_index=True)
        table = table.sort_values(what, key=lambda c: c.map(order), kind="stable")
        table = table.sort_values("trace", key=lambda c: c.map({t: k for k, t in enumerate(args.traces)}),
                                  kind="stable").reset_index(drop=True)
    atomic_write(FIGURES / f"{tag}.csv", lambda p: table.to_csv(p, index=False))
    sweep_figure(table, args, what, tag)
    xlabel = {"budget": "Δ (policies simulated per selection)", "period": "selection period (ticks)",
              "exponents": "(α, β)"}[what]
    report(tag, f"# SC13 Fig. {dict(budget=10, period=9, exponents=6)[what]}: "
           f"the portfolio's sensitivity to {xlabel}\n\n"
           f"{', '.join(args.traces)}, {'first ' + str(args.max_jobs) if args.max_jobs else 'all'} "
           f"jobs (<= 64 processors), {args.runtime} runtimes, seed {SEED}, default Δ = {args.budget}, "
           f"{RULE_NAMES[args.selection]}."
           f"\n\n" + markdown_table(table, {"vm_hours": ",.0f", "seconds": ".0f"}))


#: the sweep figure's panels: column, axis label
SWEEP_PANELS = (("utility", "utility U"), ("bsd", axis_label("cloud", "bsd")),
                ("vm_hours", axis_label("cloud", "vm_hours")), ("selections", "policy selections"))


def sweep_table(tag: str) -> pd.DataFrame:
    """A sweep's table: figures/<tag>.csv, or (an older run, without one) the table of <tag>.md."""
    path = FIGURES / f"{tag}.csv"
    if path.exists():
        return pd.read_csv(path, dtype={tag.split("_")[1]: str})
    lines = [line for line in (FIGURES / f"{tag}.md").read_text().splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines if not line.startswith("|---")]
    table = pd.DataFrame(cells[1:], columns=cells[0])
    for col in table.columns[2:]:
        table[col] = pd.to_numeric(table[col].str.replace(",", ""))
    print(f"{tag}: no {path.name}; re-plotting from the table of {tag}.md (3 significant digits)")
    return table


def sweep_figure(table: pd.DataFrame, args, what: str, tag: str) -> None:
    """Draw figures/<tag>.png from a sweep's table."""
    xlabel = {"budget": "Δ [policies simulated per selection]", "period": "selection period [20 s ticks]",
              "exponents": "utility exponents (α, β)"}[what]
    traces = list(dict.fromkeys(table["trace"]))
    fig, axes = plt.subplots(1, 4, figsize=(15, 3.8))
    for name, part in table.groupby("trace", sort=False):
        x = np.arange(len(part))
        base = part.iloc[0]
        for ax, (col, label) in zip(axes, SWEEP_PANELS, strict=True):
            y = 100 * (part[col] / base[col] - 1) if what == "period" else part[col]
            ax.plot(x, y, "o" if what == "exponents" else "o-", label=name)  # exponents: no order
            ax.set_xticks(x, part[what], fontsize=8, rotation=30 if what == "exponents" else 0)
            if what == "period":
                ax.set_ylabel(f"{label.split(' [')[0]}:\nchange from period 1 [%]", fontsize=9)
                ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:+,.4g}" if v else "0"))
            else:
                ax.set_ylabel(label, fontsize=9)
                ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
            ax.grid(True, alpha=0.3)
    if len(traces) > 1:
        axes[0].legend(fontsize=7)
    for ax in axes:
        ax.set_xlabel(xlabel, fontsize=9)
    fig.suptitle(f"SC13 Fig. {dict(budget=10, period=9, exponents=6)[what]}: the portfolio on "
                 f"{', '.join(traces)}, {'first ' + format(args.max_jobs, ',') if args.max_jobs else 'all'}"
                 f" jobs, {args.runtime} runtimes, Δ = {args.budget} unless swept, seed {SEED}, "
                 f"{RULE_NAMES[args.selection]}", fontsize=10)
    fig.tight_layout()
    save_figure(fig, FIGURES / f"{tag}.png")
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiment", choices=["versus", "budget", "period", "exponents"])
    parser.add_argument("--traces", nargs="+", default=["KTH-SP2"])
    parser.add_argument("--max-jobs", type=int, default=None, help="only the first jobs of each trace")
    parser.add_argument("--runtime", default="actual", choices=["actual", "user", "predicted"])
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--selection", default="sc13", choices=sorted(RULE_NAMES),
                        help="the selection rule of a sweep (mopt: figures/portfolio_<sweep>_mopt.*)")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw the figure from figures/<name>.csv (a sweep without one: its .md table)")
    parser.add_argument("--values", default=None,
                        help="a sweep's values to run, ';'-separated (e.g. '1;2;5' or '(1, 0)'); "
                             "the CSV keeps the other values' rows")
    args = parser.parse_args()
    if args.experiment == "versus" and args.selection != "sc13":
        parser.error("--selection applies to the sweeps; experiments/portfolio_mopt.py compares mopt's rule")
    if args.experiment == "versus":
        versus(args)
    else:
        sweep(args, args.experiment)


if __name__ == "__main__":
    main()
