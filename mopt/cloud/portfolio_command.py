"""``mopt portfolio``: the portfolio scheduler against every constituent on a trace (SC13 Fig. 4/5).

Registered through the cloud family's ``add_parsers`` (:mod:`mopt.cloud.commands`).
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["add_parser", "run", "write_report"]

#: offered load (work over what the VMs can do) above which ``mopt portfolio`` warns of a long run
LOAD_WARNING = 0.8
#: SC13's cloud (boot 120 s, 256 VMs) for its portfolio; JSSPP's (boot 4 min, 64 VMs) for its own
DEFAULT_CLOUD = {"sc13": (120.0, 256), "jsspp": (240.0, 64)}
EXAMPLE_MIX = "ODA-FCFS-FirstFit,ODX-LXF-BestFit"


def add_parser(sub, run_options) -> argparse.ArgumentParser:
    """Add the ``portfolio`` subcommand to ``sub`` (an argparse subparsers object)."""
    from mopt.cloud.commands import add_vm_key

    positive_int = run_options.positive_int

    p = sub.add_parser(
        "portfolio", help="the portfolio scheduler against each of its policies on a trace",
        description="Replay a trace with every policy of a portfolio alone and with the portfolio "
                    "scheduler (online selection every PERIOD 20 s ticks, SC13's time-constrained "
                    "Algorithm 1 simulating Δ (--selection-budget) policies per selection); print U, mean "
                    "bounded slowdown, charged VM-hours and utilisation of each, name the best "
                    "constituent, and write portfolio.csv, selections.csv and portfolio.png.")
    p.add_argument("--trace", required=True, metavar="TRACE",
                   help="an archive name (KTH-SP2, SDSC-SP2, LPC-EGEE, ...) or an SWF file")
    p.add_argument("--portfolio", default="sc13", metavar="NAME",
                   help="sc13 (60 policies), jsspp (10) or a comma-separated list of policies "
                        f"like {EXAMPLE_MIX} (default sc13)")
    p.add_argument("--selection", default="mopt", choices=["mopt", "sc13"], type=str.lower,
                   help="selection rule: mopt's own (ours: prorated leases, hysteresis, selections "
                        "on arrivals and completions; the default) or sc13, the papers' rule as "
                        "published (for reproductions)")
    p.add_argument("--selection-budget", type=positive_int, default=20, metavar="Δ", dest="budget",
                   help="policies simulated per selection (default 20; SC13's Δ)")
    run_options.deprecated(p, "--budget", "--selection-budget", dest="budget", type=positive_int, metavar="Δ",
                           note="'--budget' counts replications in frontier and compare")
    p.add_argument("--ratio", type=float, default=0.6, metavar="λ",
                   help="fraction of simulated policies kept as Smart (default 0.6)")
    p.add_argument("--period", type=positive_int, default=1, metavar="K",
                   help="selection period in 20 s ticks (default 1)")
    p.add_argument("--runtime", default="actual", choices=["actual", "user", "predicted"], type=str.lower,
                   help="runtime information the policies see (default actual)")
    add_vm_key(p)
    p.add_argument("--alpha", type=float, default=1.0, help="U's exponent of utilisation (default 1)")
    p.add_argument("--beta", type=float, default=1.0, help="U's exponent of 1/slowdown (default 1)")
    p.add_argument("--size-limit", type=positive_int, default=64, metavar="P",
                   help="keep jobs of at most P processors (default 64, as SC13)")
    p.add_argument("--first", type=positive_int, default=None, metavar="N",
                   help="only the first N records of the trace (before cleaning, as in every command)")
    p.set_defaults(max_jobs=None)
    run_options.deprecated(p, "--max-jobs", "--first", dest="max_jobs", type=positive_int, metavar="N",
                           note="'--max-jobs' counts cleaned jobs, '--first' the trace's records")
    p.add_argument("--boot-delay", type=run_options.non_negative, default=None, metavar="S",
                   help="VM boot delay in s (default 120; 240 for jsspp)")
    p.add_argument("--max-vms", type=positive_int, default=None, metavar="C",
                   help="cap on leased VMs (default 256; 64 for jsspp)")
    run_options(p, "mopt-portfolio", seed_default=1,
                seed_help="seed of Algorithm 1's random draw of Poor policies")
    p.set_defaults(func=run, memory_hint="fewer records (--first N) or a smaller --selection-budget")
    return p


def run(args) -> int:
    """Run ``mopt portfolio`` with parsed ``args``; return the exit code."""
    from mopt.cloud.commands import check_cloud_options, named_policy
    from mopt.cloud.portfolio_report import plot_versus, portfolio_versus
    from mopt.cloud.portfolios import PORTFOLIO_NAMES, portfolio
    from mopt.cloud.simulate import MAX_PERIOD
    from mopt.core.errors import InputError, check_int, check_number
    from mopt.core.inputs import suggest
    from mopt.core.output_sets import manifest_with
    from mopt.core.outputs import check_out, executor, write_set
    from mopt.tables import format_table
    from mopt.workloads import load_jobs, trace_files

    check_cloud_options(args)
    check_number("--ratio", args.ratio, low=0, high=1, low_open=True)
    check_int("--period", args.period, high=MAX_PERIOD)  # >= 1: argparse
    text = args.portfolio.strip()
    name = text.lower()
    if not text.replace(",", "").strip():
        raise InputError(f"'--portfolio' is an empty mix; give sc13, jsspp or a comma-separated "
                         f"list of policies like {EXAMPLE_MIX}; got {args.portfolio!r}.")
    named = name in PORTFOLIO_NAMES or "-" not in text  # a word without '-' is meant as a name
    if named:
        if name not in PORTFOLIO_NAMES:
            raise InputError(f"'--portfolio' must be a portfolio name ({', '.join(PORTFOLIO_NAMES)}) or a "
                             f"comma-separated list of policies PROVISIONING-JOBSELECTION-VMSELECTION like "
                             f"{EXAMPLE_MIX}; got {args.portfolio!r}{suggest(text, PORTFOLIO_NAMES) or '.'}")
        policies = portfolio(text)
    else:
        names = [n.strip() for n in text.split(",")]
        if not all(names):
            raise InputError(f"'--portfolio' has an empty policy name between commas; got "
                             f"{args.portfolio!r}.")
        policies = named_policy("--portfolio", lambda: portfolio(names))
    boot, cap = DEFAULT_CLOUD.get(name, DEFAULT_CLOUD["sc13"])
    cloud = {"boot_delay": boot if args.boot_delay is None else args.boot_delay,
             "max_vms": cap if args.max_vms is None else args.max_vms,
             "runtime": args.runtime, "alpha": args.alpha, "beta": args.beta}
    if args.vm_key != "mod":  # (the default key is not passed: the runs stay as they were)
        cloud["vm_key"] = args.vm_key
    from mopt.cloud.selection import TimeConstrainedSelection
    from mopt.cloud.simulate import utility

    # bad values fail before the trace is read
    TimeConstrainedSelection(len(policies), args.budget, args.ratio)
    utility(1.0, 1.0, 1.0, alpha=args.alpha, beta=args.beta)
    out = check_out(args.out, inputs=trace_files(args.trace), command="portfolio")  # locked until written
    jobs = load_jobs(args.trace, args.size_limit, args.max_jobs, first=args.first)
    wide = int((jobs["n_procs"] > cloud["max_vms"]).sum())
    if wide:  # the library's remedy (drop_wide=True) has no flag here
        raise InputError(f"{wide} jobs of {args.trace} need more than '--max-vms' "
                         f"{cloud['max_vms']} VMs; give '--size-limit' {cloud['max_vms']} (now "
                         f"{args.size_limit}) or a larger '--max-vms'.")
    load = offered_load(jobs, cloud["max_vms"])
    if load > LOAD_WARNING:  # a queue that hardly drains: a selection every period, all trace long
        print(f"mopt: warning: {args.trace} offers {load:.2f} times the work {cloud['max_vms']} VMs can "
              "do (head-of-line blocking and boot delays waste more): the queue hardly ever drains, so "
              "the portfolio selects, simulating every policy, at almost every tick, which can take "
              "hours on a whole trace; give a larger '--max-vms' or fewer records ('--first N').",
              file=sys.stderr)
    bar = None
    from mopt._numba_cache import say_if_compiling
    from mopt.cloud.engine import run_ticks, run_to_end
    from mopt.cloud.online import _online_scores

    say_if_compiling("the cloud simulator and its online simulations", run_ticks, run_to_end, _online_scores,
                     quiet=args.quiet)
    with executor(args) as client:  # a bad --scheduler or --workers is refused before the bar shows
        if not args.quiet:
            from tqdm import tqdm

            bar = tqdm(total=len(policies) + 1, desc="portfolio and constituents", unit="run", file=sys.stderr,
                       mininterval=1.0, leave=False)
        try:
            table, prun = portfolio_versus(
                jobs, policies, budget=args.budget, ratio=args.ratio, period=args.period,
                seed=args.seed, selection=args.selection, progress=(lambda _name: bar.update(1)) if bar is not None else None,
                executor=client, **cloud)
        finally:
            if bar is not None:
                bar.close()
    shown = table.assign(gain=100 * table["gain"]).rename(columns={"gain": "gain_%"})
    print(f"{args.trace}: {len(jobs):,} jobs; portfolio of {len(policies)} policies, "
          f"{args.selection} selection rule, Δ = {args.budget}, λ = {args.ratio}, "
          f"period {args.period} x 20 s, "
          f"{args.runtime} runtimes, α = {args.alpha}, β = {args.beta}, seed {args.seed}"
          f"{'' if args.vm_key == 'mod' else f', VM key {args.vm_key}'}")
    print(format_table(shown, formats={"gain_%": "{:+.1f}"}))
    print("gain_%: the portfolio's gain in utility over the row's policy, 100 x (U(portfolio) / U(policy) - 1)")
    best = table.iloc[:-1]["utility"].idxmax()
    u = table["utility"].iloc[-1]
    print(f"best constituent: {table.loc[best, 'policy']} (U = {table.loc[best, 'utility']:.3f}); "
          f"portfolio U = {u:.3f} ({100 * table.loc[best, 'gain']:+.1f} %), "
          f"{prun.summary['selections']:,} selections, "
          f"{prun.summary['online_simulations']:,} online simulations")
    facts = {"command": "mopt portfolio", "trace": args.trace, "jobs": len(jobs), "runtime": args.runtime,
             "Δ": args.budget, "λ": args.ratio, "period": args.period, "alpha": args.alpha, "beta": args.beta,
             "seed": args.seed}
    from mopt.report.plotly_asset import plotly_src

    src = plotly_src(args.report_assets, out / "report.html")
    written = write_set(out, {  # one set, swapped in whole (with manifest.json, which keeps the facts)
        "portfolio.csv": lambda p: table.to_csv(p, index=False),
        "selections.csv": lambda p: prun.log.to_csv(p, index=False),
        "portfolio.png": lambda p: plot_versus(
            table, prun, p, title=f"{args.trace}: {len(jobs):,} jobs, {args.runtime} runtimes, "
                                  f"{args.selection} rule, Δ = {args.budget}, period {args.period}, seed {args.seed}"),
        "report.html": lambda p: write_report(p, table, facts, plotly_src=src),
    }, manifest=manifest_with("portfolio", facts))
    print(f"wrote {', '.join(str(p) for p in written[:4])}")
    return 0


def write_report(page, table, facts: dict, *, plotly_src: str | None = None) -> None:
    """``mopt portfolio``'s report: constituents and portfolio, mean bounded slowdown against
    charged VM-hours (``table``: ``portfolio.csv``; ``facts``: the run's, as the manifest records
    them; ``mopt report DIR`` draws it again from the directory; ``plotly_src``: as
    :func:`mopt.report.summary_page.write_summary_report` takes it)."""
    from mopt.report.summary_page import Scatter, write_summary_report

    shown = table.assign(gain=100 * table["gain"]).rename(columns={"gain": "portfolio's gain in U [%]"})
    known = ([f"{facts['jobs']:,} jobs"] if isinstance(facts.get("jobs"), int) else []) + \
        ([f"{facts['runtime']} runtimes"] if "runtime" in facts else [])  # all but in an older set
    how = f" (Δ = {facts['Δ']}, period {facts['period']} x 20 s)" if "Δ" in facts and "period" in facts else ""
    lead = f"the portfolio of {len(table) - 1} policies{how} against each of them alone."
    write_summary_report(
        page, title=f"mopt portfolio: {facts.get('trace', 'a trace')}",
        lead=f"{', '.join(known)}; {lead}" if known else lead[0].upper() + lead[1:],
        tables=[("Portfolio and constituents", shown)],
        scatter=Scatter(table, "vm_hours", "bsd", "charged VM-hours [h]", "mean bounded slowdown",
                        label="policy", group="provisioning", hover=("utility",)),
        facts={"command": "mopt portfolio", **{k: v for k, v in facts.items() if k != "jobs"}}, plotly_src=plotly_src)


def offered_load(jobs, max_vms: int) -> float:
    """The work of ``jobs`` (processor-seconds) over what ``max_vms`` VMs can do between the first
    and the last submission: above 1, a queue that never drains.

    Examples
    --------
    >>> import pandas as pd
    >>> offered_load(pd.DataFrame({"submit_time": [0, 3600], "run_time": [3600, 3600],
    ...                            "n_procs": [2, 2]}), 2)
    2.0
    """
    span = float(jobs["submit_time"].max() - jobs["submit_time"].min())
    work = float((jobs["n_procs"] * jobs["run_time"]).sum())
    return work / (max(span, 1.0) * max_vms)

