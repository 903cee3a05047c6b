"""``mopt koala``: one or more KOALA-C policies over a trace, with the offered load.

Registered through the family's :class:`~mopt.core.family.Family` (:func:`add_parsers`).
"""

from __future__ import annotations

import argparse
import math

__all__ = ["add_parsers", "run"]

POLICIES = ("FF", "RR", "SJF", "SJF-ideal", "HSDF", "TAGS-chain", "TAGS-sets")
ENVIRONMENTS = ("multicluster", "multicloud", "real-world")
#: the largest TAGS limit --limits takes, in minutes (a year; beyond it a limit changes nothing; the
#: same bound as mopt.koala.problem.MAX_LIMIT_MINUTES for a scenario's limits)
MAX_LIMIT_MINUTES = 525_600
COLUMNS = ("policy", "offered_load", "slowdown", "slowdown_short", "slowdown_long", "wait", "public_cost",
           "utilisation", "wasted_node_seconds")
#: the printed headers of the columns that have a unit (the CSV keeps the names of COLUMNS)
PRINTED = {"wait": "wait [s]", "public_cost": "public_cost [$]"}
#: one format per printed column: each column's values alike (they mixed 1, 2.26 and 1.66e+07)
PRINTED_FORMATS = {"offered_load": "{:.3f}", "slowdown": "{:.3f}", "slowdown_short": "{:.3f}",
                   "slowdown_long": "{:.3f}", "wait [s]": "{:,.1f}", "public_cost [$]": "{:,.2f}",
                   "utilisation": "{:.3f}", "wasted_node_seconds": "{:,.0f}"}


def add_parsers(sub, run_options) -> argparse.ArgumentParser:
    """Add the family's commands (``koala``) to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "koala", help="KOALA-C policies (FF, RR, SJF, HSDF, TAGS-chain, TAGS-sets) over a trace",
        description="Simulate KOALA-C policies over a trace (jobs of at most 32 processors) and print, "
                    "per policy, the offered load, mean slowdown overall and of short and long jobs, "
                    "mean wait (s), public-cloud cost ($), utilisation and wasted node-seconds.")
    p.add_argument("--trace", metavar="TRACE", default=None,
                   help="an archive name (KTH-SP2, SDSC-SP2, CTC-SP2, SDSC-BLUE, LPC-EGEE, LCG), an SWF "
                        "file, or a file name in MOPT_DATA_DIR (required)")
    p.add_argument("old_trace", nargs="?", metavar="TRACE", default=None,
                   help="deprecated: the trace as a positional argument (use --trace)")
    p.add_argument("--policy", action="append", default=None, metavar="NAME",
                   help=f"one of {', '.join(POLICIES)} (repeatable; default all but TAGS-chain)")
    p.add_argument("--env", default="multicloud", choices=ENVIRONMENTS, type=str.lower,
                   help="multicluster (2N clusters), multicloud (the five sites, default), real-world")
    p.add_argument("--chains", type=int, default=None, metavar="N",
                   help="chains of the multicluster (--env multicluster only; default 1)")
    p.add_argument("--limits", default="40", metavar="MIN[,MIN...]",
                   help="TAGS limits in minutes before the last, unlimited one (default 40)")
    p.add_argument("--set", action="append", default=None, metavar="SITE[,SITE...]", dest="sets",
                   help="TAGS-sets: a set after the first (the whole system), repeatable "
                        "(default: the last three sites, C3,private,public of the multicloud)")
    p.add_argument("--dispatch", default="RR", choices=["RR", "RND"], type=str.upper, help="TAGS-chain dispatch (default RR)")
    p.add_argument("--blocking", action="store_const", const=True, default=None,
                   help="a waiting job that fits nowhere holds back the jobs behind it (strict FCFS; "
                        "TAGS-chain's default: the paper's 'within each site, jobs are served in FCFS "
                        "fashion')")
    p.add_argument("--no-blocking", action="store_const", const=False, dest="blocking",
                   help="later jobs pass a waiting job that fits nowhere (the default of the other "
                        "policies, ours; TAGS-chain's before issue #26)")
    p.add_argument("--first", type=int, default=None, metavar="N", help="only the first N records of the trace")
    run_options(p, None, out_help="also write the table to this CSV file and its report beside it (NAME.report.html)",
                out_file=True, seed_default=1,
                seed_help="seed of RND dispatch", parallel=False)
    p.set_defaults(func=run, memory_hint="fewer records (--first N)")
    return p


def _trace_option(args) -> None:
    """``--trace``, or the positional TRACE of earlier releases (with a deprecation note)."""
    import sys

    from mopt.core.errors import InputError

    if args.old_trace is not None and args.trace is not None:
        raise InputError(f"give the trace once, as '--trace'; got --trace {args.trace!r} and "
                         f"{args.old_trace!r}.")
    if args.old_trace is not None:
        print(f"mopt: note: 'mopt koala TRACE' is deprecated, use 'mopt koala --trace {args.old_trace}' "
              f"(as simulate and portfolio take it); the old spelling goes in the next release.",
              file=sys.stderr)
        args.trace = args.old_trace
    if args.trace is None:
        raise InputError("'--trace' is required: an archive name (KTH-SP2, SDSC-SP2, CTC-SP2, "
                         "SDSC-BLUE, LPC-EGEE, LCG), an SWF file, or a file name in MOPT_DATA_DIR.")


def _limits(text: str) -> list[float]:
    from mopt.core.errors import InputError

    items = [v.strip() for v in text.split(",")]
    if not any(items):
        raise InputError(f"'--limits' must be minutes separated by commas, like 25 or 10,60; got {text!r}.")
    if not all(items):
        raise InputError(f"'--limits' has an empty value between commas; got {text!r}.")
    try:
        minutes = [float(v) for v in items]
    except ValueError:
        raise InputError(f"'--limits' must be minutes separated by commas, like 25 or 10,60; got {text!r}.") from None
    for m in minutes:
        if not 0 < m <= MAX_LIMIT_MINUTES:
            raise InputError(f"'--limits' must be minutes in (0, {MAX_LIMIT_MINUTES:,}] (the last set is "
                             f"unlimited already); got {m:g}.")
    return [m * 60.0 for m in minutes] + [math.inf]


def default_second_set(env) -> list[str]:
    """TAGS-sets' second set when ``--set`` is not given (ours): the last three sites of the
    environment (``C3, private, public`` of the multicloud), or all but the first when it has fewer
    than four sites.

    Examples
    --------
    >>> from mopt.koala import multicloud, multicluster
    >>> default_second_set(multicloud()), default_second_set(multicluster(1))
    (['C3', 'private', 'public'], ['C2'])
    """
    names = list(env.names)
    return names[max(1, len(names) - 3):]


def _policy(name: str, args, env):
    from mopt.core.errors import InputError
    from mopt.koala import FF, HSDF, RR, SJF, SJFIdeal, TagsChain, TagsSets

    blocking = {} if args.blocking is None else {"blocking": args.blocking}  # None: each policy's default
    simple = {"FF": FF, "RR": RR, "SJF": SJF, "SJF-ideal": SJFIdeal, "HSDF": HSDF}
    if name in simple:
        return simple[name](**blocking)
    if name == "TAGS-chain":
        given = f"--limits {args.limits!r}, --chains {args.chains or 1} and --env {args.env}"
        return _tags(name, given, env, lambda: TagsChain(_limits(args.limits), n_chains=args.chains or 1,
                                                         dispatch=args.dispatch, **blocking))
    if name == "TAGS-sets":
        sets = [[site.strip() for site in s.split(",")] for s in args.sets] if args.sets else [default_second_set(env)]
        given = f"--limits {args.limits!r}" + (f" and --set {', '.join(map(repr, args.sets))}" if args.sets else "")
        return _tags(name, given, env, lambda: TagsSets([env.names, *sets], _limits(args.limits), **blocking))
    raise InputError(f"'--policy' must be one of {list(POLICIES)}; got {name!r}.")


def _tags(name: str, given: str, env, make):
    """The TAGS policy ``make()``, its limits, chains and sets checked against ``env`` before anything
    runs; an error names the options that gave them."""
    from mopt.core.errors import InputError

    try:
        policy = make()
        policy.queues(env)
    except InputError as exc:
        text = str(exc)
        if text.startswith("'--"):  # _limits: names its option already
            raise
        raise InputError(f"--policy {name} with {given}: {text}") from None
    return policy


def run(args) -> int:
    """Run the ``koala`` subcommand (``args`` from :func:`add_parser`'s parser)."""
    import sys

    import pandas as pd
    from tqdm import tqdm

    from mopt.core.errors import InputError, check_int
    from mopt.core.inputs import canonical
    from mopt.core.outputs import atomic_write, check_out_file
    from mopt.koala import koala_trace, multicloud, multicluster, real_world, simulate
    from mopt.tables import format_table
    from mopt.workloads import trace_files

    _trace_option(args)
    if args.chains is not None and args.env != "multicluster":
        raise InputError(f"'--chains' applies to '--env multicluster' only; got --env {args.env}.")
    if args.chains is not None:
        from mopt.koala.environment import MAX_CHAINS

        check_int("--chains", args.chains, low=1, high=MAX_CHAINS)
    if args.first is not None:
        check_int("--first", args.first, low=1)
    _limits(args.limits)  # refused even when no TAGS policy reads it
    env = {"multicluster": lambda: multicluster(args.chains or 1), "multicloud": multicloud,
           "real-world": real_world}[args.env]()
    # "ff" is FF, "tags-sets" TAGS-sets; a near miss ("F") is refused with a "did you mean"
    names = [canonical(n, POLICIES, "'--policy'") for n in args.policy or [p for p in POLICIES if p != "TAGS-chain"]]
    if args.sets and "TAGS-sets" not in names:
        raise InputError(f"'--set' applies to '--policy TAGS-sets' only; got --policy {', '.join(names)}.")
    policies = [_policy(name, args, env) for name in names]  # every input checked before simulating
    if args.out is None and args.report_assets is not None:
        raise InputError("'--report-assets' goes with '--out FILE' (the report is written beside it).")
    out = None if args.out is None else check_out_file(args.out, inputs=trace_files(args.trace))
    page = None if out is None else check_out_file(out.with_name(f"{out.stem}.report.html"), "--out (its report)",
                                                   inputs=(out, *trace_files(args.trace)))
    jobs = koala_trace(args.trace, first=args.first, option="--trace")
    from mopt.workloads.traces import archive_name

    args.trace = archive_name(args.trace) or args.trace  # "kth-sp2" is shown as the archive spells it
    from mopt._numba_cache import say_if_compiling
    from mopt.koala.engine import advance, finish

    say_if_compiling("the KOALA-C simulator", advance, finish, quiet=args.quiet)
    rows = []
    for policy in tqdm(policies, desc="koala policies", unit="policy", file=sys.stderr, disable=args.quiet, leave=False, delay=1.0):
        summary = simulate(jobs, policy, env, seed=args.seed).summary
        rows.append({k: summary[k] for k in COLUMNS})
    table = pd.DataFrame(rows)
    print(f"{args.trace}: {len(jobs):,} jobs of <= 32 processors on {args.env} {list(env.names)}")
    print(format_table(table.rename(columns=PRINTED), formats=PRINTED_FORMATS))
    if out is not None:
        atomic_write(out, lambda p: table.to_csv(p, index=False))
        _report(page, args, table, len(jobs), list(env.names))
        print(f"wrote {out}, {page}")
    return 0


def _report(page, args, table, n_jobs: int, sites: list) -> None:
    """``mopt koala``'s report: the policies' mean slowdown against their public-cloud cost, the table."""
    from mopt.report.plotly_asset import plotly_src
    from mopt.report.summary_page import Scatter, write_summary_report

    write_summary_report(
        page, title=f"mopt koala: {args.trace} on {args.env}", plotly_src=plotly_src(args.report_assets, page),
        lead=f"{n_jobs:,} jobs of at most 32 processors on {args.env} {sites}; {len(table)} policies.",
        tables=[("Policies", table)],
        scatter=Scatter(table, "public_cost", "slowdown", "public-cloud cost [$]", "mean job slowdown",
                        label="policy", hover=("wait", "utilisation")),
        facts={"command": "mopt koala", "trace": args.trace, "environment": args.env, "seed": args.seed})
