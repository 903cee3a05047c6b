"""``mopt vmc``: the multi-period comparison (methods × Scenario 1/2 → throughput table).

Registered through the family's :class:`~mopt.core.family.Family` (``add_parsers``), run by :func:`run`; writes ``vmc_runs.csv`` (one row
per cell, seed and method), ``vmc_summary.csv`` (mean throughput and 95 % t-interval per cell and
method) and ``vmc_throughput.png`` (the same, as bars with error bars) atomically into ``--out``; a progress bar of the runs (cell × seed × method) goes to stderr
unless ``--quiet``, so stdout holds only the table.
"""

from __future__ import annotations

import argparse
import math

from mopt.core.errors import InputError

__all__ = ["add_parsers", "run", "write_report"]

def _list(kind):
    def parse(text: str):
        items = [x.strip() for x in text.split(",")]
        if not any(items):
            raise argparse.ArgumentTypeError(f"a comma-separated list of {kind} is required; got {text!r}")
        if not all(items):
            raise argparse.ArgumentTypeError(f"a comma-separated list of {kind} has an empty element; got {text!r}")
        return items
    return parse


def add_parsers(sub, run_options) -> None:
    """Add the family's commands (``vmc``) to ``sub`` (``run_options`` adds --out, --seed, --workers, ...)."""
    p = sub.add_parser(
        "vmc", help="virtual clusters: compare MC, BP, iOO, eOO over many periods (Scenarios 1 and 2)",
        description="Run the multi-period comparison of Zhang et al. (TETC 2014): each method searches a "
                    "VM partition per period of a generated workload; Scenario 1 searches before each period "
                    "(not charged), Scenario 2 while the previous one runs (a method's period lasts its "
                    "search overhead, 3 ms per replication). Prints the mean throughput per cell and method "
                    "with a 95% interval over seeds.",
    )
    run_options(p, "mopt-vmc", seed_default=1,
                seed_help="the first seed of each cell's --seeds (seeds S, S+1, ...)")
    p.add_argument("--vms", type=_list("cluster sizes"), default=["16"], metavar="N1,N2",
                   help="cluster sizes (default 16)")
    p.add_argument("--workloads", type=_list("workloads"), default=["LFLD", "HFHD"], metavar="W1,W2",
                   help="LFLD, LFHD, HFLD, HFHD (default LFLD,HFHD)")
    p.add_argument("--scenarios", type=_list("scenarios"), default=["1", "2"], metavar="S1,S2",
                   help="1 and/or 2 (default both)")
    p.add_argument("--methods", type=_list("methods"), default=None, metavar="M1,M2",
                   help="per-period methods (default: the paper's, exhaustive,blind_pick,ioo[,eoo])")
    p.add_argument("--seeds", type=int, default=3, metavar="K", help="seeds per cell (default 3)")
    p.add_argument("--sample-size", type=int, default=200, metavar="K",
                   help="schedules searched per period in larger spaces (default 200; the paper's scale: 27132)")
    p.add_argument("--noise", default="independent", metavar="{independent,common}",
                   help="each schedule draws its own task times (the paper's, default) or all share common "
                        "random numbers (ours, a sensitivity run)")
    p.add_argument("--cv", type=float, default=0.25, metavar="X",
                   help="σ/μ of the task times in the default profiling table (default 0.25, the paper's row's; "
                        "a sensitivity run: 0.5)")
    p.add_argument("--information", default="lookahead", metavar="{lookahead,stale}",
                   help="what a search knows: the next stage's arrivals (the paper's look-ahead, default) or only "
                        "the arrivals before it starts and the true backlog (stale, ours)")
    p.set_defaults(func=run, memory_hint="fewer or smaller clusters (--vms) or a smaller --sample-size")


#: the most seeds per cell (ours): each seed is a whole multi-period run of every method
MAX_SEEDS = 10_000


def _ints(name: str, items) -> list[int]:
    out = []
    for x in items:
        try:
            out.append(int(x))
        except ValueError:
            raise InputError(f"'{name}' must be integers; got {x!r}.") from None
    return _distinct(name, out)


def _distinct(name: str, items: list) -> list:
    """``items``, refused if one is repeated (a cell would run twice and count its seeds twice)."""
    seen = set()
    for x in items:
        if x in seen:
            raise InputError(f"'{name}' names {x!r} twice; give each once.")
        seen.add(x)
    return items


def run(args) -> int:
    """Run the comparison of ``args`` and print the table; return the exit code."""
    import sys

    import pandas as pd
    from scipy import stats
    from tqdm import tqdm

    from mopt.core.errors import check_int, check_number
    from mopt.core.inputs import canonical
    from mopt.core.output_sets import manifest_with
    from mopt.core.outputs import check_out, executor, write_set
    from mopt.core.space import ENUMERATION_LIMIT
    from mopt.plot import save_figure
    from mopt.solvers.evolutionary_oo import MULTI_PERIOD_METHODS
    from mopt.vmc.multiperiod_problem import INFORMATION
    from mopt.vmc.paper_scenarios import N_CLASSES, SCENARIO_METHODS, compare_methods
    from mopt.vmc.problem import NOISES
    from mopt.vmc.space import MAX_COUNT, MAX_THETA
    from mopt.vmc.workload import KINDS

    sizes = _ints("--vms", args.vms)
    for theta in sizes:
        if theta < N_CLASSES:
            raise InputError(f"'--vms' must be >= {N_CLASSES} (one VM per task class at least); got {theta}.")
        if theta > MAX_THETA or math.comb(theta - 1, N_CLASSES - 1) >= MAX_COUNT:
            raise InputError(f"'--vms' must be at most {MAX_THETA:,} and give at most 2**62 schedules over "
                             f"{N_CLASSES} classes; got {theta}.")
    sample_size = check_int("--sample-size", args.sample_size, low=1, high=ENUMERATION_LIMIT)
    scenarios = _ints("--scenarios", args.scenarios)
    for s in scenarios:
        if s not in (1, 2):
            raise InputError(f"'--scenarios' must be 1 or 2; got {s}.")
    # names matched case-insensitively ("lfld" is LFLD), a near miss refused with a "did you mean"
    args.workloads = _distinct("--workloads", [canonical(w, KINDS, "'--workloads'", among="among")
                                               for w in args.workloads])
    if args.methods:
        args.methods = _distinct("--methods", [canonical(m, MULTI_PERIOD_METHODS, "'--methods'", among="among")
                                               for m in args.methods])
    n_seeds = check_int("--seeds", args.seeds, low=1, high=MAX_SEEDS)
    args.noise = canonical(args.noise, NOISES, "'--noise'")
    cv = check_number("--cv", args.cv, low=0)
    args.information = canonical(args.information, INFORMATION, "'--information'")
    first = 1 if args.seed is None else args.seed
    out = check_out(args.out, command="vmc")  # before anything is simulated; locked until written
    cells = [(theta, kind, scen) for theta in sizes for kind in args.workloads for scen in scenarios]
    total = sum(n_seeds * len(args.methods or SCENARIO_METHODS[scen]) for _, _, scen in cells)
    frames = []
    from mopt._numba_cache import say_if_compiling
    from mopt.vmc.engine import _class_busy, _one

    say_if_compiling("the virtual-cluster simulator", _class_busy, _one, quiet=args.quiet)
    with executor(args) as client:  # a bad --scheduler or --workers is refused before the bar shows
        bar = None if args.quiet else tqdm(total=total, desc="vmc runs", unit="run", file=sys.stderr,
                                           mininterval=1.0, leave=False)
        try:
            for theta, kind, scen in cells:
                if bar is not None:
                    bar.set_description(f"{theta} VMs {kind} scenario {scen}")
                methods = args.methods or SCENARIO_METHODS[scen]
                frames.append(compare_methods(theta, kind, scen, methods, range(first, first + n_seeds),
                                              sample_size=sample_size, executor=client, noise=args.noise,
                                              information=args.information, cv=cv,
                                              progress=None if bar is None else (lambda _row: bar.update(1))))
        finally:
            if bar is not None:
                bar.close()
    runs = pd.concat(frames, ignore_index=True)

    def interval(x):
        n = len(x)
        return stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")

    summary = (runs.groupby(["scenario", "theta", "workload", "method"], sort=False)["throughput"]
               .agg(mean="mean", ci95=interval, seeds="count").reset_index())
    print(f"mean throughput (tasks per busy second) ± 95% interval over {n_seeds} seed{'s' * (n_seeds > 1)}; "
          f"σ/μ {cv:g}, noise {args.noise}, information {args.information}; '-': not run in that "
          "scenario")
    print(summary_table(summary).to_string())
    facts = {"command": "mopt vmc", "seeds": n_seeds, "sample size": args.sample_size, "noise": args.noise,
             "information": args.information, "σ/μ": cv}
    from mopt.report.plotly_asset import plotly_src

    src = plotly_src(args.report_assets, out / "report.html")
    written = write_set(out, {  # one set, swapped in whole (with manifest.json, which keeps the facts)
        "vmc_runs.csv": lambda p: runs.to_csv(p, index=False),
        "vmc_summary.csv": lambda p: summary.to_csv(p, index=False),
        "vmc_throughput.png": lambda p: save_figure(throughput_figure(summary), p, dpi=120),
        "report.html": lambda p: write_report(p, summary, facts, plotly_src=src),
    }, manifest=manifest_with("vmc", facts))
    print(f"wrote {', '.join(str(p) for p in written[:4])}")
    return 0


def write_report(page, summary, facts: dict, *, plotly_src: str | None = None) -> None:
    """``mopt vmc``'s report: each method's mean throughput per cell with its 95 % interval
    (``summary``: ``vmc_summary.csv``; ``facts``: the run's, as the manifest records them; ``mopt
    report DIR`` draws it again from the directory; ``plotly_src``: as
    :func:`mopt.report.summary_page.write_summary_report` takes it)."""
    from mopt.report.summary_page import Scatter, write_summary_report

    points = summary.assign(cell=[f"{t} VMs {w} S{s}" for t, w, s in
                                  zip(summary["theta"], summary["workload"], summary["scenario"], strict=True)])
    n_seeds = facts.get("seeds", int(summary["seeds"].max()) if len(summary) else 0)
    known = [f"{key} {facts[key]:g}" if isinstance(facts[key], float) else f"{key} {facts[key]}"
             for key in ("σ/μ", "noise", "information") if key in facts]  # all three, but in an old set
    write_summary_report(
        page, title="mopt vmc: virtual-cluster methods per period",
        lead=f"Mean throughput (tasks per busy second) over {n_seeds} seed{'s' * (n_seeds > 1)} with its 95 % "
             f"interval{'; ' + ', '.join(known) if known else ''}.",
        tables=[("Throughput", summary_table(summary).reset_index().rename_axis(columns=None)),
                ("Per cell and method", summary.rename(columns={"theta": "VMs"}))],  # what --vms sets
        scatter=Scatter(points, "cell", "mean", "cell (cluster size, workload, scenario)",
                        "mean throughput [tasks / busy s]", label="method", group="method", error_y="ci95",
                        hover=("seeds",)),
        facts={"command": "mopt vmc", **facts}, plotly_src=plotly_src)


def summary_table(summary):
    """One row per cell, one column per method: "mean ± half-width", or "-" where the method was
    not run in that cell (Scenario 1 compares MC, BP and OO only: the paper's Table 2); the cells
    by scenario, ``VMs`` (the cluster size θ that ``--vms`` sets) and workload."""
    cells = ["scenario", "theta", "workload"]
    methods = list(dict.fromkeys(summary["method"]))

    def text(row):
        ci = "" if row["ci95"] != row["ci95"] else f" ± {row['ci95']:.4f}"  # NaN: one seed
        return f"{row['mean']:.4f}{ci}"

    shown = summary.assign(text=summary.apply(text, axis=1))
    table = shown.pivot(index=cells, columns="method", values="text").reindex(columns=methods)
    order = list(dict.fromkeys(map(tuple, summary[cells].itertuples(index=False))))
    return table.reindex(order).fillna("-").rename_axis(index={"theta": "VMs"})  # what --vms sets


def throughput_figure(summary):
    """Mean throughput per cell and method with 95 % intervals as error bars (a Figure)."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from mopt.plot import method_label

    cells = list(dict.fromkeys(map(tuple, summary[["scenario", "theta", "workload"]].itertuples(index=False))))
    methods = list(dict.fromkeys(summary["method"]))
    fig = Figure(figsize=(max(5.0, 1.2 * len(cells) * max(1, len(methods)) / 3 + 2), 3.6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(methods))
    for k, m in enumerate(methods):
        rows = summary[summary["method"] == m]
        where = {tuple(r[:3]): (r[3], r[4]) for r in rows[["scenario", "theta", "workload", "mean", "ci95"]]
                 .itertuples(index=False)}
        xs = [i + (k - (len(methods) - 1) / 2) * width for i, c in enumerate(cells) if c in where]
        ys = [where[c][0] for c in cells if c in where]
        es = [np.nan_to_num(where[c][1]) for c in cells if c in where]
        ax.bar(xs, ys, width, yerr=es, capsize=2, label=method_label(m))
    ax.set_xticks(range(len(cells)), [f"S{s} {t} VMs\n{w}" for s, t, w in cells], fontsize=8)
    ax.set_ylabel("throughput [tasks per busy second]")
    ax.set_title("mean over seeds, 95 % intervals", fontsize=9)
    ax.legend(fontsize=8, ncols=min(len(methods), 5), loc="upper center", bbox_to_anchor=(0.5, -0.2),
              frameon=False)
    fig.tight_layout()
    return fig
