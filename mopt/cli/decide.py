"""``mopt decide DIR --utility SPEC``: the rows of a result directory that utilities choose."""

from __future__ import annotations

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``decide`` subcommand to ``sub`` (an argparse subparsers object)."""
    decide = sub.add_parser(
        "decide", help="choose from a result directory by utility",
        description="Print the row of a result directory (written by 'frontier' or 'demo') that each "
                    "utility prefers.  SPEC is a call such as 'minimize(makespan)', "
                    "'product(makespan, cost)', 'weighted(makespan=1, cost=3600)', "
                    "'within_budget(cost, 1.0, then=makespan)', 'by_deadline(makespan, 20000, then=cost)'; "
                    "under risk, estimated from each design's replications: "
                    "'by_deadline(makespan, 8000, then=cost, probability=0.9)' (a chance constraint; "
                    "confidence=0.95 reads it at that confidence), 'quantile(makespan, 0.95)', "
                    "'cvar(makespan, 0.9)'.",
    )
    decide.add_argument("directory", metavar="DIR")
    decide.add_argument("--utility", action="append", default=[], metavar="SPEC",
                        help="a utility (repeat for several; default: those of the result's problem "
                             "family, e.g. min of each objective and their product)")
    decide.add_argument("--journal", default=None, metavar="FILE",
                        help="the run's journal: a utility under risk reads each design's replications "
                             "from it (default: simulate them again from the run's scenario and seed)")
    decide.add_argument("--scenario", default=None, metavar="SCENARIO.toml",
                        help="the run's scenario file, to simulate the replications again (default: the "
                             "one DIR/result.json names)")
    decide.set_defaults(func=run)


def run(args) -> int:
    """Run ``mopt decide`` with parsed ``args``; return the exit code."""
    from mopt.core.family import get_family
    from mopt.core.result import Result
    from mopt.scenario import DEFAULT_FAMILY
    from mopt.tables import (
        choose,
        chosen_table,
        front_heading,
        how_sure,
        parameter_columns,
        unsure_notes,
        with_errors,
    )
    from mopt.utility_spec import parse_utility

    result = Result.read_csv(args.directory)
    objectives = list(result.objectives)
    family = get_family(result.info.get("family", DEFAULT_FAMILY), f"{args.directory}/result.json")
    if args.utility:
        utilities = {}
        for spec in args.utility:
            u = parse_utility(spec)
            utilities[u.name] = u
    else:  # the defaults of the family that wrote the result (any objectives)
        utilities = family.default_utilities(objectives)
    risky = [u for u in utilities.values() if getattr(u, "risk", ())]
    shown_risk = []
    if risky:  # the quantities under risk, from each design's replications
        from mopt.cli.replay import _problem
        from mopt.core.risk import risk_terms, with_risk

        problem = None if args.journal is not None and args.scenario is None else _problem(args, result)[0]
        result = with_risk(result, risky, problem=problem, journal=args.journal)
        # the estimates and, at a confidence, the bound; not the posterior certainty (kept in the
        # evaluations): a posterior is not a calibrated frequency, and no printout shows one as such
        shown_risk = [c for t in risk_terms(risky) for c in (t.column, *(
            [t.lower_column] if t.confidence is not None else []))]
        shown_risk = list(dict.fromkeys(shown_risk))
    chosen = choose(result, utilities)
    heading = front_heading(result, "designs", result.front).removeprefix("Pareto frontier: ")
    print(f"{args.directory}: {heading} on the Pareto frontier (method {result.method}, seed {result.seed}).")
    certainty = how_sure(result)
    if certainty:
        print(certainty)
    sure = ["p_best", "runner_up"] if all(r is None or "p_best" in r for r in chosen.values()) else []
    print(chosen_table(chosen, ["design", *parameter_columns(result), *objectives, *shown_risk, *sure],
                       {"p_best": "{:.2f}", "runner_up": "count", **family.formats,
                        **{c: "{:.3f}" for c in shown_risk if c.startswith("P(")}},
                       errors=[*with_errors(result), *(c for c in shown_risk if f"{c}_se" in result.evaluations)]))
    if shown_risk:
        source = "read from the journal" if args.journal else "simulated again from the run's seed"
        print(f"Under risk, from each design's replications ({source}): P(x <= b) the fraction of "
              "replications within b; a quantile the inverted-CDF sample quantile; cvar the mean of the "
              "worst 1 - q; 'lower C' the one-sided Clopper-Pearson bound at confidence C.")
    if sure:
        print("p_best: the probability that the design is the utility's true best, from the designs' "
              "means and standard errors (a posterior probability, not a calibrated frequency); "
              "runner_up: the design most often best instead.")
        if unsure_notes(result, chosen, utilities):
            print(unsure_notes(result, chosen, utilities))
    for label, row in chosen.items():
        if row is None:
            print(f"no evaluated design satisfies {label}.")
    return 0
