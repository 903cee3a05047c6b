"""``mopt compare SCENARIO.toml``: search methods under equal budgets against a ground truth."""

from __future__ import annotations

from mopt.cli.options import count_option, method_options

__all__ = ["add_parser", "run"]


def add_parser(sub, run_options) -> None:
    """Add the ``compare`` subcommand to ``sub`` (an argparse subparsers object)."""
    from mopt.method_names import METHOD_NAMES, PEER_NAMES

    compare = sub.add_parser(
        "compare", help="compare search methods under equal budgets against a ground truth",
        description="Run each method at each budget over independent macroreplications (common random "
                    "numbers across methods), score every run against a ground truth (exhaustive search "
                    "with many replications): probability of correct selection and regret for a utility, "
                    "hypervolume ratio and Type I/II errors of the observed Pareto set; regret and correct "
                    "selection also under the family's first three default utilities.  Writes "
                    "compare.csv (one row per run), summary.csv, truth.csv (the ground truth's "
                    "evaluations), progress.png and report.html (the ground truth's front and the "
                    "methods' scores against the budget; 'mopt report DIR' draws it again).",
    )
    compare.add_argument("scenario", metavar="SCENARIO.toml")
    run_options(compare, None)
    compare.add_argument("--methods", required=True, metavar="M1,M2",
                         help=f"comma-separated methods, from {', '.join(METHOD_NAMES)}, or peers "
                              f"<peer>:<k> (each evaluation the mean of k replications) from "
                              f"{', '.join(PEER_NAMES)}; the optuna peers need pip install \"mopt[peers]\"")
    compare.add_argument("--budgets", required=True, metavar="B1,B2",
                         help="comma-separated budgets: replications (2000) or percentages of exhaustive "
                              "search's n_designs x n_reps (10%%)")
    compare.add_argument("--macroreps", required=True, metavar="M",
                         help="independent macroreplications of every method and budget")
    compare.add_argument("--truth-reps", default=None, metavar="N",
                         help="replications per design of the ground truth (default: max(100, 10 x n_reps))")
    compare.add_argument("--utility", default=None, metavar="SPEC",
                         help="utility that scores decisions, e.g. 'product(makespan, cost)' (the default)")
    compare.add_argument("--journal", default=None, metavar="DIR",
                         help="directory of journals (one SQLite file per seed); run the same command "
                              "again to resume a killed comparison without simulating anything twice")
    compare.add_argument("--option", action="append", default=[], metavar="METHOD.KEY=VALUE",
                         help="an option of one method, e.g. --option ocba.n0=5 (repeatable)")
    compare.set_defaults(func=run)


def family_utilities(family: str, objectives) -> dict:
    """The first three of the family's default utilities (``mopt frontier``'s), scored by compare
    besides ``--utility`` (columns ``pcs[<label>]`` and ``regret[<label>]``)."""
    from mopt.core.family import get_family

    return dict(list(get_family(family).default_utilities(tuple(objectives)).items())[:3])


def run(args) -> int:
    """Run ``mopt compare`` with parsed ``args``; return the exit code."""
    import numpy as np

    from mopt.compare import (
        MAX_MACROREPS,
        TOO_SMALL,
        _budget_fits,
        _check_methods,
        _derived_seed,
        _journal_file,
        _method_options,
        compare,
        ground_truth,
        resolve_budgets,
        summary,
    )
    from mopt.core.output_sets import manifest_with
    from mopt.core.outputs import check_journal, check_out, executor, progress
    from mopt.core.problem import MAX_REPS, check_replications
    from mopt.core.random import resolve_seed
    from mopt.core.set_writer import write_set
    from mopt.peers import is_peer
    from mopt.peers import versions as peer_versions
    from mopt.progress_plot import plot_progress
    from mopt.report.plotly_asset import plotly_src
    from mopt.scenario import load_scenario
    from mopt.solvers.base import resolve_utility, utility_scores
    from mopt.tables import format_table
    from mopt.utility_spec import parse_utility

    methods = _check_methods([m.strip() for m in args.methods.split(",")], name="--methods")
    macroreps = count_option("--macroreps", args.macroreps, MAX_MACROREPS)
    truth_reps = None if args.truth_reps is None else count_option("--truth-reps", args.truth_reps, MAX_REPS)
    utility = None if args.utility is None else parse_utility(args.utility)
    scenario = load_scenario(args.scenario)
    seed = scenario.seed if args.seed is None else args.seed
    out = check_out(f"mopt-{scenario.name}" if args.out is None else args.out, inputs=[scenario.path],
                    command="compare", journal=args.journal)
    check_journal(args.journal, out, "compare")
    problem = scenario.problem(seed=seed)
    budgets = resolve_budgets(args.budgets.split(","), problem, name="--budgets")
    if utility is not None:  # a utility naming other columns fails here, before anything is printed
        utility_scores(problem, resolve_utility(problem, utility), np.ones((1, problem.n_obj)))
    truth_n = truth_reps or max(100, 10 * problem.n_reps)
    if truth_reps is not None:  # refused before anything is printed (the default is checked by compare)
        check_replications("--truth-reps", truth_reps, problem, per_unit=problem.n_designs)
    print(f"{scenario.path}: {problem.n_designs:,} {scenario.noun}, {scenario.n_reps} replications each for "
          f"exhaustive search ({problem.n_designs * scenario.n_reps:,} in all); methods {', '.join(methods)}; "
          f"budgets {', '.join(f'{b:,}' for b in budgets)} replications; {macroreps} macroreplication"
          f"{'s' if macroreps > 1 else ''}; seed {seed}.\nground truth: exhaustive search with {truth_n:,} "
          f"replications per {scenario.noun_singular}.")
    from mopt._numba_cache import say_if_problem_compiles

    say_if_problem_compiles(problem, quiet=args.quiet)
    peers = [m for m in methods if is_peer(m)]
    ran = ""
    if peers:  # what the peers run, as installed (printed, and in the figure's caption)
        libs = {lib: v for m in peers for lib, v in peer_versions(m).items()}
        ran = f"peers {', '.join(peers)} run {', '.join(f'{lib} {v}' for lib, v in libs.items())}."
        print(ran)
    options = method_options(args.option, per_method=True)
    if scenario.options and scenario.method in methods:  # [run] options belong to its method
        options[scenario.method] = {**scenario.options, **options.get(scenario.method, {})}
    per_method = _method_options(methods, options, utility)  # bad options: refused before simulating
    for m in methods:
        for b in budgets:
            _budget_fits(problem, m, per_method[m], b)
    with executor(args) as client:
        # the ground truth as compare() would compute it (its own seed), kept for the report
        truth_seed = _derived_seed(resolve_seed(seed), 1)
        truth = ground_truth(problem, truth_n, seed=truth_seed, executor=client,
                             journal=_journal_file(args.journal, truth_seed), progress=progress(args))
        df = compare(problem, methods, budgets, macroreps, seed=seed, utility=utility, truth=truth,
                     executor=client, journal=args.journal, progress=progress(args), options=options,
                     utilities=family_utilities(scenario.family, problem.objectives))
        df.attrs["truth_reps"] = truth_n
    table = summary(df)
    print(f"\nutility: {df.attrs['utility']}; pcs, type1, type2 are rates over macroreplications; "
          "regret and hv_ratio quartiles (q1, median, q3).")
    print(format_table(table))
    small = table[table["status"] == TOO_SMALL]
    for _, row in small.iterrows():
        print(f"budget too small: {row['method']} cannot run with {row['budget']} replications on this "
              "problem (scores are NaN).")
    caption = (f"{scenario.path}; {macroreps} macroreplications, seed {seed}; ground truth: exhaustive "
               f"search, {truth_n:,} replications per {scenario.noun_singular}; utility {df.attrs['utility']}."
               + (f" {ran[0].upper()}{ran[1:]}" if ran else ""))
    facts = {"name": scenario.name, "scenario": str(scenario.path), "family": scenario.family, "seed": seed,
             "truth_reps": truth_n, "truth_seed": truth_seed, "objectives": list(problem.objectives)}
    src = plotly_src(args.report_assets, out / "report.html")
    written = write_set(out, {  # the files are written whole, as a set (with manifest.json, which keeps the facts)
        "compare.csv": lambda p: df.to_csv(p, index=False),
        "summary.csv": lambda p: table.to_csv(p, index=False),
        "truth.csv": lambda p: truth.to_csv(p, index=False),  # the ground truth: mopt report draws the page again
        "progress.png": lambda p: plot_progress(df, p, title=f"{scenario.name}: search methods under equal "
                                                "budgets", caption=caption),
        "report.html": lambda p: write_compare_report(p, df, truth, facts, scenario=scenario.path, plotly_src=src),
    }, manifest=manifest_with("compare", facts))
    print(f"\nwrote {', '.join(str(p) for p in written)}")  # every file of the set, manifest.json included
    return 0


def write_compare_report(page, df, truth, facts: dict, scenario=None, plotly_src=None) -> None:
    """``mopt compare``'s report: the ground truth's front (``truth``, its evaluations) with its
    uncertainty and the methods' mean scores (of ``df``, ``compare.csv``) against the budget;
    ``facts`` as the manifest records them, ``scenario`` the scenario file (or its text) if known,
    ``plotly_src`` as :func:`mopt.report.write_report` takes it. ``mopt report DIR`` draws it
    again from the directory. The run's seed is the one given (``facts["seed"]``; a set written
    before it was recorded: the ground truth's own), the ground truth's derived seed a detail."""
    from mopt.core.result import Result
    from mopt.report import write_report
    from mopt.scoring import SCORES

    n_evals = int(truth["n_reps"].sum())
    seed = facts.get("seed")
    budgets = sorted({int(b) for b in df["budget"]})
    info = {"family": facts["family"], "scenario": facts["scenario"], "budget": n_evals,
            "compared": f"{', '.join(dict.fromkeys(df['method'].astype(str)))} at budgets "
                        f"{', '.join(f'{b:,}' for b in budgets)} replications"
                        + (f", {df['macrorep'].nunique()} macroreplications each" if "macrorep" in df.columns else ""),
            "ground truth's seed": f"{facts['truth_seed']} (its own stream, derived from seed {seed})"
            if seed is not None else f"{facts['truth_seed']} (this set does not record the run's --seed)"}
    truth_result = Result(method=f"exhaustive, {facts['truth_reps']} replications each (the ground truth)",
                          seed=seed if seed is not None else facts["truth_seed"], n_evals=n_evals,
                          objectives=tuple(facts["objectives"]), evaluations=truth, info=info)
    curves = df[df["status"] == "ok"].groupby(["method", "budget"], as_index=False).mean(numeric_only=True)
    write_report(truth_result, page, family=facts["family"], scenario=scenario,
                 progress=curves[["method", "budget", *SCORES]], plotly_src=plotly_src,
                 title=f"{facts['name']}: search methods under equal budgets (the ground truth's front)")
