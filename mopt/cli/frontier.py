"""``mopt frontier SCENARIO.toml``: search a scenario's design space and write its Pareto frontier."""

from __future__ import annotations

import dataclasses
import functools
import sys
from pathlib import Path

from mopt.cli.options import method_options, positive_int
from mopt.core.errors import InputError

__all__ = ["MAX_ROWS", "add_parser", "run"]

MAX_ROWS = 40  # frontier rows printed by `mopt frontier` (all are written to front.csv)


def add_parser(sub, run_options) -> None:
    """Add the ``frontier`` subcommand to ``sub`` (an argparse subparsers object)."""
    from mopt.method_names import METHOD_NAMES

    frontier = sub.add_parser("frontier", help="the Pareto frontier of a scenario file",
                              description="Search the strategy grid of SCENARIO.toml and write "
                                          "front.csv, evaluations.csv, result.json, front.png and "
                                          "report.html (the interactive frontier, for a browser).")
    frontier.add_argument("scenario", metavar="SCENARIO.toml")
    run_options(frontier, None, stdout=True, journal=True)
    frontier.add_argument("--method", default=None,
                          help=f"search method, one of {', '.join(METHOD_NAMES)} (default: the scenario's)")
    frontier.add_argument("--budget", type=positive_int, default=None, metavar="B",
                          help="replications to spend at most (default: the scenario's / the method's)")
    frontier.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                          help="a method option, e.g. --option n0=5 (repeatable)")
    frontier.add_argument("--refine", type=positive_int, default=None, metavar="B",
                          help="then B more replications where they can change the front (MOCBA on "
                               "the designs not surely on or off it); prints the undecided classes "
                               "before and after")
    frontier.add_argument("--refine-target", type=refine_target, default="front", metavar="TARGET",
                          help="with --refine: 'front' (the designs not dominated beyond doubt), "
                               "'undecided' (the classes the certified sets leave undecided at 95%%), or a "
                               "utility with a chance constraint, e.g. 'by_deadline(makespan, 8000, "
                               "then=cost, probability=0.9)' (the designs whose constraint is undecided)")
    frontier.add_argument("--estimate", action="store_true",
                          help="print the run's replications, memory and time (timed on a short pilot "
                               "of its first replications) and stop, simulating nothing else; "
                               "MOPT_MAX_TIME (e.g. 2h) refuses a run estimated to take longer")
    frontier.set_defaults(func=run)


def refine_target(text: str) -> str:
    """``--refine-target``: 'front', 'undecided' or a utility spec with a chance constraint."""
    import argparse

    if text in ("front", "undecided"):
        return text
    from mopt.core.errors import InputError
    from mopt.utility_spec import parse_utility

    try:
        u = parse_utility(text) if "(" in text else None
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc).rstrip(".")) from None
    if u is None or not any(t.probability is not None for t in u.risk):
        raise argparse.ArgumentTypeError(f"must be 'front', 'undecided' or a utility with a chance constraint "
                                         f"(probability=...); got {text!r}")
    return text


def run(args) -> int:
    """Run ``mopt frontier`` with parsed ``args``; return the exit code."""
    import numpy as np

    import mopt
    from mopt.core.inputs import canonical
    from mopt.core.outputs import check_journal, check_out, executor, progress, write_outputs
    from mopt.scenario import default_utilities, load_scenario
    from mopt.tables import (
        HOW_SURE_FORMATS,
        certified_status,
        choose,
        chosen_table,
        errors_note,
        format_table,
        front_heading,
        front_rows,
        how_sure,
        parameter_columns,
        unsure_notes,
        with_errors,
    )

    scenario = load_scenario(args.scenario)
    method = scenario.method if args.method is None else args.method
    method = canonical(method, sorted(mopt.METHODS), "'--method'")  # "OCBA" is 'ocba'; a typo: did you mean
    budget = args.budget if args.budget is not None else scenario.budget
    seed = scenario.seed if args.seed is None else args.seed
    # the scenario's [run] options belong to its method; --option adds to / overrides them
    options = {**(scenario.options if method == scenario.method else {}), **method_options(args.option)}
    to_stdout = args.out == "-"  # front.csv on stdout, everything else on stderr
    if to_stdout and args.report_assets is not None:
        raise InputError("'--report-assets' goes with a report; '--out -' writes none.")
    say = functools.partial(print, file=sys.stderr) if to_stdout else print
    out = Path(f"mopt-{scenario.name}" if args.out is None else args.out)
    if not to_stdout and not args.estimate:
        out = check_out(args.out if args.out is not None else out, inputs=[scenario.path], command="frontier",
                        journal=args.journal)
        check_journal(args.journal, out, "frontier")
    problem = scenario.problem(seed=seed)
    if budget is not None:  # a budget the method cannot run with: refused before anything is printed
        try:
            mopt.METHODS[method](**options).check_budget(problem, budget)
        except InputError as exc:
            if args.budget is None and str(exc).startswith("'budget'"):  # the scenario's budget
                raise InputError(f"{scenario.path}: [run] {exc}") from None
            raise
    from mopt.core.problem import check_replications
    from mopt.solvers.base import check_run_memory

    check_run_memory(problem, mopt.METHODS[method](**options), budget)  # replications that cannot fit in memory,
    if args.refine is not None:  # and --refine's: refused before anything is printed or simulated
        check_replications("--refine", args.refine, problem)
    say(f"{scenario.path}: {problem.n_designs:,} {scenario.noun}; method {method}, "
        f"{replication_plan(method, options, scenario.n_reps)}, seed {seed}"
        + (f", budget {budget}" if budget is not None else "") + ".")
    from mopt._numba_cache import say_if_problem_compiles

    say_if_problem_compiles(problem, quiet=args.quiet or to_stdout)
    if args.estimate:
        from mopt.solvers.estimate import describe, estimate

        workers = 1 if args.scheduler is not None else args.workers  # a cluster's size is not known here
        say(describe(estimate(problem, method, budget=budget, seed=seed, workers=workers, **options)))
        if args.scheduler is not None:
            say("(on one worker: divide by the cluster's worker threads)")
        return 0
    for line in scenario.intro(problem):
        say(line)
    if method == "auto":
        from mopt.solvers.auto import choose as choose_method

        chosen, chosen_options, why = choose_method(problem.n_designs, problem.n_obj, budget,
                                             utility=options.get("utility"))
        shown = ", ".join(f"{k}={v}" for k, v in chosen_options.items() if k != "utility")
        say(f"auto chose {chosen}{f' ({shown})' if shown else ''}: {why}.")
    try:
        with executor(args) as client:
            # the problem carries the scenario's n_reps (every method's default)
            result = mopt.solve(problem, method, budget=budget, seed=seed, executor=client,
                                journal=args.journal, progress=progress(args), **options)
            if args.refine is not None:
                result = mopt.refine(result, problem, args.refine, executor=client, journal=args.journal,
                                     progress=progress(args), target=args.refine_target)
                r = result.info["refine"]
                say(f"refined: {r['spent']} more replications on {r['designs']} designs ({r['classes']} classes, "
                    f"target {r['target']}); undecided classes {r['undecided_before']} -> {r['undecided_after']}"
                    + (f"; designs whose chance constraint is undecided {r['constraint_undecided_before']} -> "
                       f"{r['constraint_undecided_after']}" if "constraint_undecided_before" in r else ""))
    except InputError as exc:
        if args.budget is None and str(exc).startswith("'budget'"):  # the scenario's budget
            raise InputError(f"{scenario.path}: [run] {exc}") from None
        raise
    result = dataclasses.replace(result, info={**result.info, "scenario": str(scenario.path),
                                               "family": scenario.family, "fingerprint": problem.fingerprint(),
                                               **scenario.result_info(problem)})
    status = certified_status(result)  # certified once: the front's column and the how-sure line
    front, extra = front_rows(result, status=status)
    legend = f" ({scenario.legend})" if scenario.legend else ""
    say(f"\n{front_heading(result, scenario.noun, front)}, {result.n_evals:,} replications{legend}"
        f"{errors_note(result)}")
    shown = front
    if len(front) > MAX_ROWS:  # evenly spaced rows, both extremes included
        shown = front.iloc[np.unique(np.linspace(0, len(front) - 1, MAX_ROWS).round().astype(int))]
    columns = [*parameter_columns(result), *result.objectives]
    formats = {**HOW_SURE_FORMATS, **scenario.family_object.formats}
    say(format_table(shown, [*columns, *extra], formats, errors=with_errors(result)))
    if len(shown) < len(front):
        say(f"(showing {len(shown)} of {len(front)} frontier rows, evenly spaced; all are in "
            f"{out / 'front.csv'})")
    sure = how_sure(result, status=status)
    if sure:
        say(sure)
    utilities = default_utilities(scenario.family, result.objectives)
    chosen = choose(result, utilities)
    if chosen:
        say(f"\nChosen {scenario.noun} (mopt decide DIR --utility SPEC for others):")
        say(chosen_table(chosen, [*columns, "p_best", "runner_up"], formats, errors=with_errors(result)))
        if unsure_notes(result, chosen, utilities):
            say(unsure_notes(result, chosen, utilities))
    extra = scenario.report(result)
    if extra:
        say(extra)
    if to_stdout:
        result.front.to_csv(sys.stdout, index=False)
        return 0
    from mopt.report.plotly_asset import plotly_src

    report = functools.partial(_write_report, result, problem=problem, family=scenario.family,
                               scenario=scenario.path, chosen=chosen, title=f"{scenario.name}: {method}",
                               figure="front.png", plotly_src=plotly_src(args.report_assets, out / "report.html"))
    written = write_outputs(result, out, functools.partial(scenario.figure, result), {"report.html": report})
    say(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0


def _write_report(result, path, **kwargs) -> None:
    """Write the HTML report of ``result`` to ``path`` (:func:`mopt.report.render_report`)."""
    from mopt.report import render_report

    Path(path).write_text(render_report(result, **kwargs), encoding="utf-8")


def replication_plan(method: str, options: dict, n_reps: int) -> str:
    """The replications ``method`` spends per design with ``options``, in words (the scenario's
    ``n_reps`` where the method takes it as its default), for the header of a run.

    Examples
    --------
    >>> replication_plan("exhaustive", {}, 20)
    '20 replications each'
    >>> replication_plan("oo", {"n_rough": 3}, 20)
    '3 replications each (option n_rough), 20 for the selected ([run] n_reps)'
    >>> replication_plan("oo", {}, 20)
    '2 replications each (option n_rough, default 2), 20 for the selected ([run] n_reps)'
    >>> replication_plan("ocba", {"n0": 5}, 20)
    '5 replications each, more where OCBA allocates them'
    """
    from mopt.solvers import METHODS

    o = {**METHODS[method].defaults, **options}
    if method == "screen":
        return "one replication on as many strategies as the budget allows, then elimination"
    if method == "auto":
        return "the method chosen from the budget (below)"
    if "n_rough" in o:  # the scenario's n_reps is for the selected only: say where each count comes from
        rough = "option n_rough" if "n_rough" in options else f"option n_rough, default {o['n_rough']}"
        accurate = "option n_accurate" if o["n_accurate"] else "[run] n_reps"
        return f"{o['n_rough']} replications each ({rough}), {o['n_accurate'] or n_reps} for the selected ({accurate})"
    if "n0" in o:
        first = "n0 set by the budget" if o["n0"] is None else f"{o['n0']} replications each"
        return f"{first}, more where {method.upper().replace('EOO_', 'eOO + ')} allocates them"
    if "n_reps0" in o:
        return f"{o['n_reps0']} to {o['n_reps_max'] or n_reps} replications each"
    return f"{o.get('n_reps') or n_reps} replications each"
