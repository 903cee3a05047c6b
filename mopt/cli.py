"""The ``mopt`` command: ``demo``, ``frontier SCENARIO.toml``, ``decide DIR --utility SPEC`` and
``compare SCENARIO.toml --methods ... --budgets ... --macroreps M``.

Bad input (a malformed or mistyped scenario file, an out-of-range value, a missing file, a bad
utility spec) ends with one line on stderr, ``mopt: error: <message>``, and exit code 2 — never a
traceback (set ``MOPT_DEBUG=1`` to see one).  Outputs are written atomically.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import math
import os
import sys
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, MoptError
from mopt.core.interrupt import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    deferred_signals,
    sigterm_raises,
)

__all__ = ["main", "build_parser"]

FS_NOTE = (
    "note: F_s is a stand-in (a shifted lognormal) for the paper's Fig. 5 CDF, which is not "
    "available as data."
)
STRATEGY_COLUMNS = ["N", "T", "D", "Mr"]
DEMO_BUDGET = 1.0  # cent/task
DEMO_DEADLINE = 8000.0  # s
MAX_ROWS = 40  # frontier rows printed by `mopt frontier` (all are written to front.csv)
#: errors that mean bad input (exit code 2); anything else is exit code 1
BAD_INPUT = (InputError, TypeError, ValueError, FileNotFoundError, PermissionError, IsADirectoryError,
             NotADirectoryError, FileExistsError)


# -- argument parsing --------------------------------------------------------------------------
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1; got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer; got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer; got {value}")
    return value


def _workers(text: str) -> int:
    """``--workers``: an integer from 1 to MOPT_MAX_WORKERS (default 4 x the CPUs)."""
    from mopt.core.inputs import check_workers

    value = _positive_int(text)
    try:
        return check_workers("--workers", value)
    except InputError as exc:  # argparse shows an ArgumentTypeError's own message
        raise argparse.ArgumentTypeError(str(exc).replace("'--workers' ", "", 1).rstrip(".")) from None


class _Parser(argparse.ArgumentParser):
    """A usage error is one line, ``mopt: error: [COMMAND: ]MESSAGE (see ... --help)``, exit 2
    (argparse's own prints the usage block first)."""

    def error(self, message: str):
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        text = " ".join(f"{command + ': ' if command else ''}{message}".split())
        self.exit(2, f"mopt: error: {text} (see '{self.prog} --help').\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``mopt`` command."""
    parser = _Parser(
        prog="mopt",
        description="Multi-objective search over scheduling strategies estimated by simulation.",
        epilog="Bad input exits with code 2 and one line on stderr (MOPT_DEBUG=1 shows a traceback).",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(p, out_default: str | None, stdout: bool = False):
        dash = "; '-' writes front.csv to stdout, messages and progress to stderr" if stdout else ""
        p.add_argument("--out", metavar="DIR", default=out_default,
                       help=f"output directory (default: {out_default or './mopt-<scenario name>'}{dash})")
        p.add_argument("--seed", type=_seed, default=None, metavar="S",
                       help="seed of the run (default: 1, or the scenario's [run] seed)")
        p.add_argument("--workers", type=_workers, default=1, metavar="W",
                       help="worker processes for the replications (>= 2: a local Dask cluster; "
                            "same results; at most MOPT_MAX_WORKERS, default 4 x the CPUs)")
        p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="run the replications on a running Dask cluster, e.g. tcp://host:8786 "
                            "(same results)")
        p.add_argument("--quiet", action="store_true",
                       help="no progress bar (it goes to stderr, never to stdout)")

    def journal(p):
        p.add_argument("--journal", default=None, metavar="FILE",
                       help="SQLite file recording every finished batch of replications; run the "
                            "same command again to resume a killed run without simulating anything "
                            "twice (refused if written for another scenario or seed)")

    demo = sub.add_parser(
        "demo", help="ExPERT's reference scenario end to end (frontier, decisions, figure)",
        description="ExPERT's 'Experiment 11' (M_r^max = 0.1): the paper's grid searched exhaustively "
                    "with 10 replications, the Pareto frontier, the strategies that simple utilities "
                    "choose, the static strategies, and a figure like the paper's Fig. 7.",
    )
    common(demo, "mopt-demo")
    journal(demo)
    demo.set_defaults(func=_demo)

    frontier = sub.add_parser("frontier", help="the Pareto frontier of a scenario file",
                              description="Search the strategy grid of SCENARIO.toml and write "
                                          "front.csv, evaluations.csv, result.json and front.png.")
    frontier.add_argument("scenario", metavar="SCENARIO.toml")
    common(frontier, None, stdout=True)
    journal(frontier)
    from mopt.solvers import METHODS

    frontier.add_argument("--method", default=None,
                          help=f"search method, one of {', '.join(sorted(METHODS))} (default: the scenario's)")
    frontier.add_argument("--budget", type=_positive_int, default=None, metavar="B",
                          help="replications to spend at most (default: the scenario's / the method's)")
    frontier.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                          help="a method option, e.g. --option n0=5 (repeatable)")
    frontier.set_defaults(func=_frontier)

    decide = sub.add_parser(
        "decide", help="choose from a result directory by utility",
        description="Print the row of a result directory (written by 'frontier' or 'demo') that each "
                    "utility prefers.  SPEC is a call such as 'minimize(makespan)', "
                    "'product(makespan, cost)', 'weighted(makespan=1, cost=3600)', "
                    "'within_budget(cost, 1.0, then=makespan)', 'by_deadline(makespan, 20000, then=cost)'.",
    )
    decide.add_argument("directory", metavar="DIR")
    decide.add_argument("--utility", action="append", default=[], metavar="SPEC",
                        help="a utility (repeat for several; default: those of the result's problem "
                             "family, e.g. min of each objective and their product)")
    decide.set_defaults(func=_decide)

    compare = sub.add_parser(
        "compare", help="compare search methods under equal budgets against a ground truth",
        description="Run each method at each budget over independent macroreplications (common random "
                    "numbers across methods), score every run against a ground truth (exhaustive search "
                    "with many replications): probability of correct selection and regret for a utility, "
                    "hypervolume ratio and Type I/II errors of the observed Pareto set.  Writes "
                    "compare.csv (one row per run), summary.csv and progress.png.",
    )
    compare.add_argument("scenario", metavar="SCENARIO.toml")
    common(compare, None)
    compare.add_argument("--methods", required=True, metavar="M1,M2",
                         help=f"comma-separated methods, from {', '.join(sorted(METHODS))}")
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
    compare.set_defaults(func=_compare)

    traces = sub.add_parser(
        "traces", help="workload traces (SWF): list those in MOPT_DATA_DIR, describe or fetch one",
        description="'traces list' shows the SWF traces in the directory named by MOPT_DATA_DIR; "
                    "'traces describe TRACE' reads one (a path, or a file name in MOPT_DATA_DIR) and "
                    "prints its header, job counts before and after cleaning, and job statistics; "
                    "'traces fetch NAME' downloads an archive trace (KTH-SP2, SDSC-SP2, CTC-SP2, "
                    "SDSC-BLUE, LPC-EGEE, LCG) into the cache, checking its sha256.",
    )
    traces.add_argument("action", choices=["list", "describe", "fetch"])
    traces.add_argument("trace", nargs="?", metavar="TRACE", help="for describe: a path or a trace name; for fetch: an archive name")
    traces.add_argument("--size-limit", type=_positive_int, default=None, metavar="P",
                        help="for describe: also count jobs of at most P processors (64 in SC13)")
    traces.set_defaults(func=_traces)

    from mopt.cloud import commands as cloud_commands  # cheap: imports its family lazily

    cloud_commands.add_parser(sub)

    from mopt.cloud.portfolio_commands import add_parser as add_portfolio  # the family's own module

    add_portfolio(sub, _positive_int, _seed)

    from mopt.cloud.koala.commands import add_parser as add_koala  # the family's own module

    add_koala(sub)

    from mopt.vmc.commands import add_parser as add_vmc  # `mopt vmc` (the family's own module)

    add_vmc(sub, common)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``mopt`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (code 2) and --help (code 0)
        return int(exc.code or 0)
    try:
        with sigterm_raises():  # SIGTERM (timeout, systemd, SLURM) cleans up like Ctrl-C
            return args.func(args)
    except BrokenPipeError:  # e.g. `mopt demo | head`: stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except (InputError, TypeError, ValueError, OSError, MoptError) as exc:
        if _interrupt(exc) is not None:
            return _stopped(_interrupt(exc), args)
        if os.environ.get("MOPT_DEBUG"):
            raise
        code = 2 if isinstance(exc, BAD_INPUT) else 1  # other OSErrors: a full disk, a lost cluster
        print(f"mopt: error: {_message(exc)}", file=sys.stderr)
        return code
    except MemoryError as exc:
        if os.environ.get("MOPT_DEBUG"):
            raise
        print(f"mopt: error: out of memory ({_message(exc)}); ask for fewer replications (n_reps, "
              "--budget) or designs", file=sys.stderr)
        return 2
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (Terminated)
        return _stopped(exc, args)
    except Exception as exc:  # noqa: BLE001 - a bug, or a failure outside mopt (e.g. a Dask cluster)
        if _interrupt(exc) is not None:
            return _stopped(_interrupt(exc), args)
        if os.environ.get("MOPT_DEBUG"):
            raise
        print(f"mopt: error: {type(exc).__name__}: {_message(exc)} (MOPT_DEBUG=1 shows the traceback)",
              file=sys.stderr)
        return 1


def _interrupt(exc: BaseException) -> KeyboardInterrupt | None:
    """The Ctrl-C or SIGTERM behind ``exc``, if any (a signal that arrives inside compiled code can
    surface as a SystemError whose context is the KeyboardInterrupt)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _stopped(exc: KeyboardInterrupt, args) -> int:
    """One line for a run stopped by Ctrl-C (exit 130) or SIGTERM (exit 143)."""
    what = "terminated (SIGTERM)" if isinstance(exc, Terminated) else "interrupted (Ctrl-C)"
    journal = getattr(args, "journal", False)  # False: a command without --journal
    resume = ("" if journal is False else "; run the same command again to resume" if journal
              else "; give --journal to make a run resumable")
    print(f"mopt: {what}{resume}", file=sys.stderr)
    return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED


def _message(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: '{exc.filename}'" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


# -- shared pieces -----------------------------------------------------------------------------
@contextmanager
def _executor(args):
    """None (in-process), a running Dask cluster (``--scheduler``) or a local one (``--workers``
    >= 2, one single-threaded worker process each, the cores shared between them).  Results are
    identical in every case."""
    if args.scheduler is not None and args.workers > 1:
        raise InputError("give '--scheduler' (a running Dask cluster) or '--workers' (a local one), not both.")
    if args.scheduler is None and args.workers < 2:
        yield None
        return
    import logging

    from distributed import Client

    from mopt.core.execute import local_cluster

    quiet = logging.ERROR if os.environ.get("MOPT_DEBUG") else logging.CRITICAL
    logging.getLogger("distributed").setLevel(quiet)  # mopt reports failures in one line

    if args.scheduler is not None:
        try:
            client = Client(args.scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise InputError(f"'--scheduler': cannot connect to a Dask scheduler at {args.scheduler!r} "
                             f"({_message(exc)}).") from None
        with client:
            yield client
        return
    with local_cluster(args.workers, log_level=quiet) as client:
        yield client


def _check_out(out: Path) -> Path:
    """Refuse an output directory that cannot be made, before any simulation is spent on it."""
    if out.exists():
        if not out.is_dir():
            raise InputError(f"'--out' must be a directory; {str(out)!r} is a file.")
        if not os.access(out, os.W_OK):
            raise InputError(f"'--out': cannot write into {str(out)!r} (permission denied).")
        return out
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"'--out': cannot make {str(out)!r}: {str(parent)!r} is a file.")
    if not os.access(parent, os.W_OK):
        raise InputError(f"'--out': cannot make {str(out)!r}: {str(parent)!r} is not writable.")
    return out


#: the files each command writes into --out (a journal must not be one of them)
OUTPUT_FILES = {
    "demo": ("front.csv", "evaluations.csv", "result.json", "front.png", "statics.csv"),
    "frontier": ("front.csv", "evaluations.csv", "result.json", "front.png"),
    "compare": ("compare.csv", "summary.csv", "progress.png"),
}


def _check_journal(journal: str | None, out: Path, command: str) -> None:
    """Refuse a ``--journal`` that the outputs would overwrite (``--out`` itself or one of the files
    written into it): the journal would be lost at the end of the run.  Any other place, inside
    ``--out`` too, is fine."""
    if journal is None:
        return
    target = Path(journal).resolve()
    outputs = [out, *(out / name for name in OUTPUT_FILES[command])]
    for path in outputs:
        if target == path.resolve():
            what = "the output directory" if path == out else f"the output file {path.name}"
            raise InputError(f"'--journal' {journal!r} is {what} of '--out' {str(out)!r}, which the run "
                             "would overwrite; give the journal another name.")


def _progress(args) -> bool:
    """A progress bar on stderr unless ``--quiet`` (updated every 10 s when stderr is not a TTY)."""
    return not args.quiet


def _fmt_n(n) -> str:
    return "inf" if math.isinf(float(n)) else f"{int(n)}"


def _formatter(name: str, column: pd.Series):
    """How one column of a table is printed (missing values as ``-``)."""
    if name == "N":
        f = _fmt_n
    elif name in ("T", "D"):  # grid values: whole seconds unless some are not
        values = column.dropna().to_numpy(dtype=float)
        f = "{:.0f}".format if np.allclose(values, np.round(values), atol=0.05) else "{:.1f}".format
    elif name in ("makespan", "design"):
        f = "{:.0f}".format
    elif name == "Mr":
        f = "{:.2f}".format
    elif name == "cost":
        f = "{:.3f}".format
    elif pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        f = "{:.4g}".format
    else:  # text, left-aligned
        width = max(len(name), int(column.astype(str).str.len().max()))

        def f(v):
            return str(v).ljust(width)

    def cell(v):
        return "-" if isinstance(v, float) and math.isnan(v) else f(v)

    return cell


def format_table(df: pd.DataFrame, columns: list[str] | None = None) -> str:
    """A plain-text table of strategy rows: N as ``inf`` or an integer, seconds rounded to 1 s,
    text left-aligned, missing values as ``-``."""
    if len(df) == 0:
        return "(none)"
    columns = [c for c in (columns or list(df.columns)) if c in df.columns]
    table = df[columns]
    # text columns get left-aligned headers of their own width
    headers = {c: c.ljust(int(table[c].astype(str).str.len().max())) for c in columns
               if not pd.api.types.is_numeric_dtype(table[c]) or pd.api.types.is_bool_dtype(table[c])}
    formatters = {headers.get(c, c): _formatter(c, table[c]) for c in columns}
    text = table.rename(columns=headers).to_string(index=False, formatters=formatters, na_rep="-")
    return "\n".join(line.rstrip() for line in text.splitlines())


def _choose(result, utilities: dict) -> dict:
    """Label -> chosen row (None when no evaluated design satisfies the utility)."""
    out = {}
    for label, u in utilities.items():
        try:
            out[label] = result.best(u)
        except InputError as exc:
            if "no evaluated design satisfies" not in str(exc):
                raise
            out[label] = None
    return out


def _chosen_table(chosen: dict, columns: list[str]) -> str:
    rows = []
    for label, row in chosen.items():
        if row is None:
            rows.append({"choice": label, **{c: math.nan for c in columns}})
        else:
            rows.append({"choice": label, **{c: row[c] for c in columns}})
    return format_table(pd.DataFrame(rows), ["choice", *columns])


def _dominated(front: pd.DataFrame, makespan: float, cost: float) -> bool:
    """Whether some frontier row is at least as good in both objectives and better in one."""
    m, c = front["makespan"].to_numpy(), front["cost"].to_numpy()
    return bool((((m <= makespan) & (c <= cost)) & ((m < makespan) | (c < cost))).any())


def _write_outputs(result, out: Path, figure, extra: dict | None = None) -> list[Path]:
    """Write a result's set of files (``figure``: writes ``front.png`` to the path it is given;
    ``extra``: more files, name -> writer of a path) so that a reader never takes a half-replaced
    set for a result: SIGINT and SIGTERM wait until the set is written, the old ``result.json``
    goes first and the new one, the manifest listing the sha256 of every file, comes last."""
    from mopt.core.result import atomic_write

    extra = extra or {}
    with deferred_signals():
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.json").unlink(missing_ok=True)
        figure(out / "front.png")
        for name, write in extra.items():
            atomic_write(out / name, write)
        result.to_csv(out, files=["front.png", *extra])
    return [out / n for n in ("front.csv", "evaluations.csv", "result.json", "front.png", *extra)]


# -- demo --------------------------------------------------------------------------------------
def _demo(args) -> int:
    import mopt
    from mopt.expert import STATIC_STRATEGIES, NTDMrProblem, estimate, reference_environment
    from mopt.plot import plot_frontier, save_figure

    seed = 1 if args.seed is None else args.seed
    out = _check_out(Path(args.out))
    _check_journal(args.journal, out, "demo")
    env = reference_environment(0.1)
    problem = NTDMrProblem(env, n_reps=10, seed=seed)
    print(
        f"ExPERT reference scenario (\"Experiment 11\"): {env.n_tasks} tasks, {env.n_unreliable} "
        f"unreliable machines, t_ur = t_r = {env.t_ur:g} s, gamma = {env.turnaround.gamma_values[0]:g}, "
        f"c_ur = 1/3600, c_r = 34/3600 cent/s, M_r^max = {env.mr_max:g}.\nPaper grid: {problem.n_designs} strategies x 10 replications "
        f"(exhaustive), seed {seed}."
    )
    print(FS_NOTE)
    from mopt.expert._engine import needs_compilation

    if needs_compilation():
        print("mopt: compiling the simulator on first use (once per install; later runs load it from "
              "numba's cache)...", file=sys.stderr, flush=True)
    with _executor(args) as executor:
        result = mopt.solve(problem, "exhaustive", seed=seed, executor=executor, journal=args.journal,
                            progress=_progress(args), n_reps=10)
    result = dataclasses.replace(result, info={**result.info, "scenario": "reference_environment(0.1)",
                                               "note": FS_NOTE})
    front = result.front
    columns = [*STRATEGY_COLUMNS, "makespan", "cost"]
    print(f"\nPareto frontier: {len(front)} of {len(result.evaluations)} strategies "
          "(makespan = tail phase [s], cost [cent/task])")
    print(format_table(front, columns))

    u = mopt.utility
    utilities = {
        "min makespan": u.minimize("makespan"),
        "min cost": u.minimize("cost"),
        "min makespan x cost": u.product("makespan", "cost"),
        f"budget: cost <= {DEMO_BUDGET:g}, then min makespan": u.within_budget("cost", DEMO_BUDGET,
                                                                               then="makespan"),
        f"deadline: makespan <= {DEMO_DEADLINE:g} s, then min cost": u.by_deadline(
            "makespan", DEMO_DEADLINE, then="cost"),
    }
    chosen = _choose(result, utilities)
    print("\nChosen strategies (the paper's Fig. 7 decisions):")
    print(_chosen_table(chosen, columns))

    rows = []
    for name in STATIC_STRATEGIES:
        means = estimate(env, name, 10, seed)[["makespan", "cost"]].mean()
        rows.append({"name": name, "makespan": float(means["makespan"]), "cost": float(means["cost"]),
                     "dominated_by_frontier": _dominated(front, means["makespan"], means["cost"])})
    statics = pd.DataFrame(rows)
    print("\nStatic strategies (10 replications, same seed; AR's makespan is the whole bag's):")
    shown = statics.assign(dominated_by_frontier=statics["dominated_by_frontier"].map({True: "yes", False: "no"}))
    print(format_table(shown, ["name", "makespan", "cost", "dominated_by_frontier"]))

    fig = plot_frontier(
        result.evaluations, front,
        chosen={k: v for k, v in chosen.items() if v is not None}, statics=statics, yscale="log",
        title=r"ExPERT reference scenario (Experiment 11, $M_r^{max}$ = 0.1)",
        caption=f"paper grid, {problem.n_designs} strategies x 10 replications, seed {seed}. "
                "F_s is a stand-in (shifted lognormal) for the paper's Fig. 5 CDF.",
    )
    written = _write_outputs(result, out, lambda path: save_figure(fig, path),
                             {"statics.csv": lambda p: statics.to_csv(p, index=False)})
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    print(FS_NOTE)
    return 0


# -- frontier ----------------------------------------------------------------------------------
def _frontier(args) -> int:
    import mopt
    from mopt.scenario import default_utilities, load_scenario

    scenario = load_scenario(args.scenario)
    method = scenario.method if args.method is None else args.method
    if method not in mopt.METHODS:
        raise InputError(f"'--method' must be one of {sorted(mopt.METHODS)}; got {method!r}.")
    budget = args.budget if args.budget is not None else scenario.budget
    seed = scenario.seed if args.seed is None else args.seed
    # the scenario's [run] options belong to its method; --option adds to / overrides them
    options = {**(scenario.options if method == scenario.method else {}), **_method_options(args.option)}
    to_stdout = args.out == "-"  # front.csv on stdout, everything else on stderr
    say = functools.partial(print, file=sys.stderr) if to_stdout else print
    out = Path(args.out) if args.out else Path(f"mopt-{scenario.name}")
    if not to_stdout:
        _check_out(out)
        _check_journal(args.journal, out, "frontier")
    problem = scenario.problem(seed=seed)
    say(f"{scenario.path}: {problem.n_designs:,} {scenario.noun}; method {method}, {scenario.n_reps} "
        f"replications each, seed {seed}" + (f", budget {budget}" if budget is not None else "") + ".")
    for line in scenario.intro(problem):
        say(line)
    try:
        with _executor(args) as executor:
            # the problem carries the scenario's n_reps (every method's default)
            result = mopt.solve(problem, method, budget=budget, seed=seed, executor=executor,
                                journal=args.journal, progress=_progress(args), **options)
    except InputError as exc:
        if args.budget is None and str(exc).startswith("'budget'"):  # the scenario's budget
            raise InputError(f"{scenario.path}: [run] {exc}") from None
        raise
    result = dataclasses.replace(result, info={**result.info, "scenario": str(scenario.path),
                                               "family": scenario.family, **scenario.result_info(problem)})
    front = result.front
    legend = f" ({scenario.legend})" if scenario.legend else ""
    say(f"\nPareto frontier: {len(front)} of {len(result.evaluations)} evaluated {scenario.noun}, "
        f"{result.n_evals} replications{legend}")
    shown = front
    if len(front) > MAX_ROWS:  # evenly spaced rows, both extremes included
        shown = front.iloc[np.unique(np.linspace(0, len(front) - 1, MAX_ROWS).round().astype(int))]
    columns = [*_parameter_columns(result), *result.objectives]
    say(format_table(shown, columns))
    if len(shown) < len(front):
        say(f"(showing {len(shown)} of {len(front)} frontier rows, evenly spaced; all are in "
            f"{out / 'front.csv'})")
    chosen = _choose(result, default_utilities(scenario.family, result.objectives))
    if chosen:
        say(f"\nChosen {scenario.noun} (mopt decide DIR --utility SPEC for others):")
        say(_chosen_table(chosen, columns))
    extra = scenario.report(result)
    if extra:
        say(extra)
    if to_stdout:
        result.front.to_csv(sys.stdout, index=False)
        return 0
    written = _write_outputs(result, out, functools.partial(scenario.figure, result))
    say(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0


def _parameter_columns(result) -> list[str]:
    """The decoded parameters of a result's ``evaluations`` (no design index, counts or statistics)."""
    objectives = list(result.objectives)
    hidden = {"design", "n_reps", *objectives, *(f"{o}_se" for o in objectives)}
    return [c for c in result.evaluations.columns if c not in hidden]


# -- decide ------------------------------------------------------------------------------------
def _decide(args) -> int:
    from mopt.core.result import Result
    from mopt.scenario import DEFAULT_FAMILY, default_utilities
    from mopt.utility_spec import parse_utility

    result = Result.read_csv(args.directory)
    objectives = list(result.objectives)
    if args.utility:
        utilities = {}
        for spec in args.utility:
            u = parse_utility(spec)
            utilities[u.name] = u
    else:  # the defaults of the family that wrote the result (any objectives)
        utilities = default_utilities(result.info.get("family", DEFAULT_FAMILY), objectives)
    chosen = _choose(result, utilities)
    print(f"{args.directory}: {len(result.evaluations)} evaluated designs, {len(result.front)} on the "
          f"Pareto frontier (method {result.method}, seed {result.seed}).")
    print(_chosen_table(chosen, ["design", *_parameter_columns(result), *objectives]))
    for label, row in chosen.items():
        if row is None:
            print(f"no evaluated design satisfies {label}.")
    return 0


# -- compare -----------------------------------------------------------------------------------
def _count_option(name: str, text: str, high: int) -> int:
    """A count given on the command line (InputError naming the option, not a usage error)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise InputError(f"'{name}' must be an integer >= 1; got {text!r}.") from None
    if not 1 <= value <= high:
        raise InputError(f"'{name}' must be an integer from 1 to {high:,}; got {value}.")
    return value


def _option_value(text: str):
    """A command-line option value: an int, a float, true/false, none, or else the text itself."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _method_options(items, *, per_method: bool = False) -> dict:
    """``--option`` values as method options: ``{key: value}``, or ``{method: {key: value}}``."""
    out: dict = {}
    shape = "METHOD.KEY=VALUE" if per_method else "KEY=VALUE"
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        method, dot, name = key.partition(".") if per_method else ("", ".", key)
        if not sep or not name or (per_method and (not dot or not method)):
            raise InputError(f"'--option' must look like {shape}; got {item!r}.")
        (out.setdefault(method, {}) if per_method else out)[name] = _option_value(value)
    return out


def _compare(args) -> int:
    from mopt.compare import (
        MAX_MACROREPS,
        TOO_SMALL,
        _check_methods,
        compare,
        resolve_budgets,
        summary,
    )
    from mopt.core.problem import MAX_REPS
    from mopt.core.result import atomic_write
    from mopt.plot import plot_progress
    from mopt.scenario import load_scenario
    from mopt.solvers.base import resolve_utility, utility_scores
    from mopt.utility_spec import parse_utility

    methods = _check_methods([m.strip() for m in args.methods.split(",")], name="--methods")
    macroreps = _count_option("--macroreps", args.macroreps, MAX_MACROREPS)
    truth_reps = None if args.truth_reps is None else _count_option("--truth-reps", args.truth_reps, MAX_REPS)
    utility = None if args.utility is None else parse_utility(args.utility)
    scenario = load_scenario(args.scenario)
    seed = scenario.seed if args.seed is None else args.seed
    out = _check_out(Path(args.out) if args.out else Path(f"mopt-{scenario.name}"))
    _check_journal(args.journal, out, "compare")
    problem = scenario.problem(seed=seed)
    budgets = resolve_budgets(args.budgets.split(","), problem, name="--budgets")
    if utility is not None:  # a utility naming other columns fails here, before anything is printed
        utility_scores(problem, resolve_utility(problem, utility), np.ones((1, problem.n_obj)))
    truth_n = truth_reps or max(100, 10 * problem.n_reps)
    print(f"{scenario.path}: {problem.n_designs:,} {scenario.noun}, {scenario.n_reps} replications each for "
          f"exhaustive search ({problem.n_designs * scenario.n_reps:,} in all); methods {', '.join(methods)}; "
          f"budgets {', '.join(map(str, budgets))} replications; {macroreps} macroreplication"
          f"{'s' if macroreps > 1 else ''}; seed {seed}.\nground truth: exhaustive search with {truth_n} "
          f"replications per {scenario.noun_singular}.")
    options = _method_options(args.option, per_method=True)
    if scenario.options and scenario.method in methods:  # [run] options belong to its method
        options[scenario.method] = {**scenario.options, **options.get(scenario.method, {})}
    with _executor(args) as executor:
        df = compare(problem, methods, budgets, macroreps, seed=seed, utility=utility,
                     truth_reps=truth_reps, executor=executor, journal=args.journal,
                     progress=_progress(args), options=options)
    table = summary(df)
    print(f"\nutility: {df.attrs['utility']}; pcs, type1, type2 are rates over macroreplications; "
          "regret and hv_ratio quartiles (q1, median, q3).")
    print(format_table(table))
    small = table[table["status"] == TOO_SMALL]
    for _, row in small.iterrows():
        print(f"budget too small: {row['method']} cannot run with {row['budget']} replications on this "
              "problem (scores are NaN).")
    caption = (f"{scenario.path}; {macroreps} macroreplications, seed {seed}; ground truth: exhaustive "
               f"search, {truth_n} replications per {scenario.noun_singular}; utility {df.attrs['utility']}.")
    with deferred_signals():  # the three files are written whole, as a set
        atomic_write(out / "compare.csv", lambda p: df.to_csv(p, index=False))
        atomic_write(out / "summary.csv", lambda p: table.to_csv(p, index=False))
        plot_progress(df, out / "progress.png", title=f"{scenario.name}: search methods under equal budgets",
                      caption=caption)
    written = [out / n for n in ("compare.csv", "summary.csv", "progress.png")]
    print(f"\nwrote {', '.join(str(p) for p in written)}")
    return 0


# -- traces ------------------------------------------------------------------------------------
def _traces(args) -> int:
    from mopt.cloud import find_trace, read_swf

    if args.action == "fetch":
        from mopt.cloud.commands import traces_fetch

        return traces_fetch(args)

    if args.action == "list":
        if args.trace is not None:
            raise InputError(f"'traces list' takes no TRACE; got {args.trace!r}.")
        directory = os.environ.get("MOPT_DATA_DIR")
        if not directory or not Path(directory).is_dir():
            raise InputError(f"'MOPT_DATA_DIR' must name a directory of SWF traces; got {directory!r}.")
        names = sorted(p.name for p in Path(directory).iterdir() if ".swf" in p.name)
        print(f"{directory}: {len(names)} trace{'s' if len(names) != 1 else ''}")
        for name in names:
            print(f"  {name}")
        return 0
    if args.trace is None:
        raise InputError("'traces describe' needs a TRACE (a path or a trace name in MOPT_DATA_DIR).")
    path = Path(args.trace)
    if not path.exists() and path.parent == Path("."):
        path = find_trace(args.trace)
    df = read_swf(path)
    header = df.attrs["header"]
    print(f"{path}: {len(df)} job records")
    for key in ("Computer", "Installation", "MaxProcs", "MaxNodes", "StartTime", "EndTime"):
        if key in header:
            print(f"  {key}: {header[key]}")
    cleaned = read_swf(path, clean=True)
    print(f"after cleaning (run time > 0, 1 .. MaxProcs processors): {len(cleaned)} jobs")
    if args.size_limit is not None:
        print(f"of at most {args.size_limit} processors: "
              f"{int((cleaned['n_procs'] <= args.size_limit).sum())} jobs")
    if len(cleaned):
        run, procs = cleaned["run_time"], cleaned["n_procs"]
        span = (cleaned["submit_time"].max() - cleaned["submit_time"].min()) / 86400
        print(f"run time [s]: median {run.median():.0f}, mean {run.mean():.0f}, max {run.max():.0f}; "
              f"processors: median {procs.median():.0f}, max {procs.max()}; submissions over {span:.1f} days")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
