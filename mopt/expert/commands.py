"""``mopt demo``: ExPERT's reference scenario end to end (frontier, decisions, static strategies, figure).

The ExPERT family's command, registered through its :class:`~mopt.core.family.Family`
(``add_parsers``); it imports the estimator when it runs, never when the parser is built (so
``mopt --help`` does not load numba).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mopt.expert.family import FAMILY

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FS_NOTE", "STRATEGY_COLUMNS", "DEMO_BUDGET", "DEMO_DEADLINE", "DEMO_LOG", "DEMO_TITLE", "DEMO_UTILITIES",
           "add_parsers", "run"]

FS_NOTE = (
    "note: F_s is a stand-in (a shifted lognormal) for the paper's Fig. 5 CDF, which is not "
    "available as data."
)
STRATEGY_COLUMNS = ["N", "T", "D", "Mr"]
DEMO_BUDGET = 1.0  # cent/task
DEMO_DEADLINE = 8000.0  # s
#: the objectives ``mopt demo`` draws on a log axis, in front.png and in report.html alike (the static
#: strategies' costs reach 20 cent/task, the front's lie near 0.6)
DEMO_LOG = ("cost",)
#: the demo's page title (kept in result.json, so that ``mopt report`` draws the same page)
DEMO_TITLE = "ExPERT reference scenario (Experiment 11, M_r^max = 0.1)"
#: the paper's Fig. 7 decisions: label -> utility spec (:func:`mopt.utility_spec.parse_utility`),
#: kept in result.json's ``utilities`` so that ``mopt report`` chooses the same
DEMO_UTILITIES = {
    "min makespan": "minimize(makespan)",
    "min cost": "minimize(cost)",
    "min makespan x cost": "product(makespan, cost)",
    f"budget: cost <= {DEMO_BUDGET:g}, then min makespan": f"within_budget(cost, {DEMO_BUDGET:g}, then=makespan)",
    f"deadline: makespan <= {DEMO_DEADLINE:g} s, then min cost": f"by_deadline(makespan, {DEMO_DEADLINE:g}, then=cost)",
}


def add_parsers(sub, run_options) -> None:
    """Add the family's commands (``demo``) to ``sub`` (an argparse subparsers object)."""
    demo = sub.add_parser(
        "demo", help="ExPERT's reference scenario end to end (frontier, decisions, figure)",
        description="ExPERT's 'Experiment 11' (M_r^max = 0.1): the paper's grid searched exhaustively "
                    "with 10 replications, the Pareto frontier, the strategies that simple utilities "
                    "choose, the static strategies, a figure like the paper's Fig. 7, and report.html "
                    "(the interactive frontier, for a browser).",
    )
    run_options(demo, "mopt-demo", journal=True, seed_default=1)
    demo.set_defaults(func=run)


def _dominated(front: pd.DataFrame, makespan: float, cost: float) -> bool:
    """Whether some frontier row is at least as good in both objectives and better in one."""
    m, c = front["makespan"].to_numpy(), front["cost"].to_numpy()
    return bool((((m <= makespan) & (c <= cost)) & ((m < makespan) | (c < cost))).any())


def run(args) -> int:
    """Run ``mopt demo`` with parsed ``args``; return the exit code."""
    from mopt import figure_process

    painter = figure_process.start()  # before numpy: front.png is drawn beside the simulation
    try:
        return _run(args, painter)
    finally:
        painter.close()


def _run(args, painter) -> int:
    import pandas as pd

    import mopt
    from mopt.core.classes import representatives
    from mopt.core.outputs import check_journal, check_out, executor, progress, write_outputs
    from mopt.expert import STATIC_STRATEGIES, NTDMrProblem, estimate, reference_environment
    from mopt.plot_status import with_status
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
        unsure_notes,
        with_errors,
    )

    seed = 1 if args.seed is None else args.seed
    out = check_out(args.out, command="demo", journal=args.journal)
    check_journal(args.journal, out, "demo")
    env = reference_environment(0.1)
    problem = NTDMrProblem(env, n_reps=10, seed=seed)
    print(
        f"ExPERT reference scenario (\"Experiment 11\"): {env.n_tasks} tasks, {env.n_unreliable} "
        f"unreliable machines, t_ur = t_r = {env.t_ur:g} s, gamma = {env.turnaround.gamma_values[0]:g}, "
        f"c_ur = 1/3600, c_r = 34/3600 cent/s, M_r^max = {env.mr_max:g}.\nPaper grid: {problem.n_designs} strategies x 10 replications "
        f"(exhaustive), seed {seed}."
    )
    print(FS_NOTE)
    from mopt.expert.estimator import needs_compilation

    if needs_compilation():
        print("mopt: compiling the simulator on first use (once per install; later runs load it from "
              "numba's cache)...", file=sys.stderr, flush=True)
    with executor(args) as client:
        result = mopt.solve(problem, "exhaustive", seed=seed, executor=client, journal=args.journal,
                            progress=progress(args), n_reps=10)
    # the packaged examples/reference.toml is this problem (the same fingerprint): `mopt replay` reads it
    result = dataclasses.replace(result, info={**result.info, "scenario": str(FAMILY.example_paths()[0]),
                                               "family": FAMILY.name, "fingerprint": problem.fingerprint(),
                                               "note": FS_NOTE, "log_objectives": list(DEMO_LOG),
                                               "title": DEMO_TITLE, "n_designs": int(problem.n_designs),
                                               "utilities": DEMO_UTILITIES})
    status = certified_status(result)  # certified once: the front's column and the how-sure line
    front, extra = front_rows(result, status=status)
    columns = [*STRATEGY_COLUMNS, "makespan", "cost"]
    print(f"\n{front_heading(result, 'strategies', front)} (makespan = tail phase [s], cost [cent/task]"
          f"{errors_note(result)})")
    formats = {**HOW_SURE_FORMATS, **FAMILY.formats}
    print(format_table(front, [*columns, *extra], formats, errors=with_errors(result)))
    print(how_sure(result, status=status))

    from mopt.utility_spec import parse_utility

    utilities = {label: parse_utility(spec) for label, spec in DEMO_UTILITIES.items()}
    chosen = choose(result, utilities)
    print("\nChosen strategies (the paper's Fig. 7 decisions):")
    print(chosen_table(chosen, [*columns, "p_best", "runner_up"], formats, errors=with_errors(result)))
    if unsure_notes(result, chosen, utilities):
        print(unsure_notes(result, chosen, utilities))

    rows = []
    for name in STATIC_STRATEGIES:
        means = estimate(env, name, 10, seed)[["makespan", "cost"]].mean()
        rows.append({"name": name, "makespan": float(means["makespan"]), "cost": float(means["cost"]),
                     "dominated_by_frontier": _dominated(front, means["makespan"], means["cost"])})
    statics = pd.DataFrame(rows)
    print("\nStatic strategies (10 replications, same seed; AR's makespan is the whole bag's):")
    shown = statics.assign(dominated_by_frontier=statics["dominated_by_frontier"].map({True: "yes", False: "no"}))
    print(format_table(shown, ["name", "makespan", "cost", "dominated_by_frontier"], FAMILY.formats))

    figure = painter.submit(
        "mopt.plot:plot_frontier", with_status(representatives(result.evaluations), status), front,
        chosen={k: v for k, v in chosen.items() if v is not None}, statics=statics,
        xscale="log" if "makespan" in DEMO_LOG else "linear", yscale="log" if "cost" in DEMO_LOG else "linear",
        family="expert",
        # Unicode, not mathtext ($M_r^{max}$): mathtext's parser costs ~0.15 s of a 2.5 s warm demo
        title="ExPERT reference scenario (Experiment 11, M\u1d63\u1d50\u1d43\u02e3 = 0.1)",
        caption=f"paper grid, {problem.n_designs} strategies x 10 replications, seed {seed}. "
                "F_s is a stand-in (shifted lognormal) for the paper's Fig. 5 CDF.",
    )
    from mopt.report.plotly_asset import plotly_src

    src = plotly_src(args.report_assets, out / "report.html")

    from mopt.report import render_report

    # rendered while the figure is drawn; written with the set
    text = render_report(result, problem=problem, family=FAMILY, chosen=chosen, statics=statics,
                         figure="front.png", plotly_src=src,
                         scenario=f"ExPERT reference scenario (Experiment 11): reference_environment(0.1)\n"
                                  f"paper grid, {problem.n_designs} strategies x 10 replications, seed {seed}\n"
                                  f"{FS_NOTE}",
                         title=DEMO_TITLE)
    written = write_outputs(result, out, figure.save,
                            {"statics.csv": lambda p: statics.to_csv(p, index=False),
                             "report.html": lambda p: Path(p).write_text(text, encoding="utf-8")})
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0
