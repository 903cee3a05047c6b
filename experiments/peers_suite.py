"""mopt against its peers: every mopt method and every peer on the benchmark suite, equal budgets.

Run from the repository root, in pieces (one instance and one budget each) that are then joined::

    python experiments/peers_suite.py run expert 10%      # one piece: figures/peers_suite_runs/expert_10_main.csv
    python experiments/peers_suite.py all                 # every missing piece (GROUPS in order), then join
    python experiments/peers_suite.py join                # the table and the curves from the pieces

The instances are :func:`mopt.suite`'s, scored against their stored references (every design's
means at a high replication count).  Budgets are 2, 5, 10, 25 and 50 % of exhaustive search's
(``n_designs × n_reps``); every method and peer runs ``--macroreps`` times (30 by default) with
the macroreplication seeds of :func:`mopt.compare.compare` (seed ``SEED``: common random numbers
across methods, budgets and pieces).  mopt's methods: exhaustive, OCBA and MOCBA (``n0 = 2``; when
the budget cannot pay for two replications of every design, a uniform sample of ``budget // 4``
designs, ours), ordinal optimisation, NSGA-II, screen and ``auto`` (issue #35; given the
instance's primary utility, as every method with a ``utility`` option), each with its defaults otherwise; a method that
cannot run with a budget is recorded as "budget too small".  Peers: random search, pymoo's
NSGA-II and Optuna's TPE and NSGA-II samplers on means of k = 1, 5, 10 replications
(:mod:`mopt.peers`), run with their libraries' defaults.

The pieces (``figures/peers_suite_runs/<instance>_<budget>_<group>.csv``, every run's row, and a
``.json`` record of the piece's command, seconds and finish time) are the data; ``join`` writes
``figures/peers_suite.md`` (the summary
table: mean and 95 % interval of the hypervolume ratio, P(correct selection) and regret, and the
verdict per budget) and ``figures/peers_suite_<instance>.png`` (progress curves).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from _common import FIGURES  # noqa: E402
from peers_suite_report import write_report  # noqa: E402

import mopt  # noqa: E402
from mopt.compare import compare, resolve_budgets  # noqa: E402
from mopt.peers import peer_names  # noqa: E402

SEED = 2525
BUDGETS = ("2%", "5%", "10%", "25%", "50%")
MOPT_METHODS = ("exhaustive", "ocba", "mocba", "oo", "nsga2", "screen", "auto")
PEERS = tuple(peer_names())
#: the utility of each instance's P(correct selection) and regret (one of its three utilities)
PRIMARY = {"expert": "min makespan x cost", "vmc": "min clear_time x vms", "koala": "min slowdown_long",
           "portfolio": "min bsd x vm_hours"}
RUNS = FIGURES / "peers_suite_runs"


def options(problem, budget: int, methods) -> dict:
    """Per-method options at ``budget``: OCBA and MOCBA with n0 = 2, on a sample of budget // 4
    designs when two replications of every design do not fit (ours)."""
    out = {}
    for m in ("ocba", "mocba"):
        if m in methods:
            out[m] = {"n0": 2}
            if budget < 2 * problem.n_designs + 2:
                out[m]["sample"] = max(2, budget // 4)
    return out


#: the pieces of ``all``, in order: Optuna's TPE on single replications (its cost per trial grows
#: with the trials: most of the run's time) last, on its own
#: ``screen`` and ``auto`` (issue #35) run as a piece of their own, joined with the others
GROUPS = {"main": [m for m in (*MOPT_METHODS, *PEERS) if m not in ("optuna-tpe:1", "screen", "auto")],
          "tpe1": ["optuna-tpe:1"], "screen": ["screen", "auto"]}


def piece_path(runs: Path, name: str, budget: str, group: str) -> Path:
    return runs / f"{name}_{budget.rstrip('%')}_{group}.csv"


def run_piece(name: str, budget: str, *, group: str = "main", macroreps: int = 30, methods=None,
              seed: int = SEED, runs: Path = RUNS, progress: bool = False) -> pd.DataFrame:
    """Run the methods of ``group`` (or ``methods``) at one budget of one instance; write the piece
    and its ``.json`` record."""
    inst = mopt.suite()[name]
    prob = inst.problem
    methods = list(methods or GROUPS[group])
    (replications,) = resolve_budgets([budget], prob)
    utilities = inst.utilities
    start = time.perf_counter()
    df = compare(prob, methods, [replications], macroreps, seed=seed, truth=inst.reference,
                 utility=utilities[PRIMARY[name]], utilities=utilities,
                 options=options(prob, replications, methods), progress=progress)
    seconds = time.perf_counter() - start
    df.insert(0, "instance", name)
    df.insert(2, "budget_pct", float(budget.rstrip("%")))
    runs.mkdir(parents=True, exist_ok=True)
    path = piece_path(runs, name, budget, group)
    df.to_csv(path, index=False)
    record = {"instance": name, "budget": budget, "replications": replications, "macroreps": macroreps,
              "seed": seed, "seconds": round(seconds, 1), "utility": PRIMARY[name],
              "group": group, "methods": ",".join(methods),
              "command": f"python experiments/peers_suite.py run {name} {budget} --group {group} "
                         f"--macroreps {macroreps}" + (f" --methods {','.join(methods)}" if methods != GROUPS.get(group) else ""),
              "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    path.with_suffix(".json").write_text(json.dumps(record, indent=1) + "\n")
    print(f"{name} {budget} ({replications} replications): {len(df)} runs in {seconds:.0f} s -> {path}",
          flush=True)
    return df


def auto_choices() -> dict:
    """(instance, budget %) -> what ``method="auto"`` chooses there (:func:`mopt.solvers.auto.choose`)."""
    from mopt.solvers.auto import choose

    out = {}
    for name, inst in mopt.suite().items():
        if name not in PRIMARY:
            continue
        prob = inst.problem
        for budget in BUDGETS:
            (replications,) = resolve_budgets([budget], prob)
            method, opts, _ = choose(prob.n_designs, prob.n_obj, replications, utility="primary")
            shown = ", ".join(f"{k}={v}" for k, v in opts.items() if k != "utility")
            out[(name, float(budget.rstrip("%")))] = method + (f" ({shown})" if shown else "")
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("run", help="one piece: an instance at one budget")
    one.add_argument("instance")
    one.add_argument("budget", help="a percentage of exhaustive search's budget, e.g. 10%%")
    one.add_argument("--group", default="main", help=f"methods {', '.join(GROUPS)} (see GROUPS), or a name for --methods")
    every = sub.add_parser("all", help="every piece not yet written, then join")
    every.add_argument("--instances", default="expert,vmc,koala,portfolio")
    every.add_argument("--budgets", default=",".join(BUDGETS))
    every.add_argument("--groups", default=",".join(GROUPS))
    for p in (one, every):
        p.add_argument("--macroreps", type=int, default=30)
        p.add_argument("--methods", default=None, help="comma-separated (default: every mopt method and peer)")
        p.add_argument("--runs", type=Path, default=RUNS)
    join = sub.add_parser("join", help="the table and the curves from the pieces")
    join.add_argument("--runs", type=Path, default=RUNS)
    args = parser.parse_args(argv)
    methods = None if getattr(args, "methods", None) is None else args.methods.split(",")
    if args.command == "run":
        run_piece(args.instance, args.budget, group=args.group, macroreps=args.macroreps, methods=methods,
                  runs=args.runs, progress=True)
    elif args.command == "all":
        for group in args.groups.split(","):
            for name in args.instances.split(","):
                for budget in args.budgets.split(","):
                    if not piece_path(args.runs, name, budget, group).exists():
                        run_piece(name, budget, group=group, macroreps=args.macroreps, methods=methods,
                                  runs=args.runs)
        write_report(args.runs, FIGURES, PRIMARY, auto_choices())
    else:
        write_report(args.runs, FIGURES, PRIMARY, auto_choices())


if __name__ == "__main__":
    main()
