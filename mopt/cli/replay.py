"""``mopt replay DIR --design I --rep R``: one replication of a run simulated again and checked.

The result directory (of ``frontier`` or ``demo``) records the run's seed, its scenario file and its
problem's fingerprint; the replication is simulated again from them and compared bit for bit with
the run's journal (``--journal``) or else the result's mean and standard error of the design
(:func:`mopt.core.replay.replay`), then what happened in it is printed where the problem's family
can tell. Exit 0 when equal, 1 when it differs (a line saying DIFFERS), 2 on bad input.
"""

from __future__ import annotations

from pathlib import Path

from mopt.cli.options import non_negative_int
from mopt.core.errors import InputError

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``replay`` subcommand to ``sub`` (an argparse subparsers object).

    Examples
    --------
    >>> from mopt.cli import build_parser
    >>> args = build_parser().parse_args(["replay", "mopt-demo", "--design", "3", "--rep", "0"])
    >>> args.design, args.rep, args.journal
    (3, 0, None)
    """
    replay = sub.add_parser(
        "replay", help="simulate one replication of a result again and check it bit for bit",
        description="Simulate replication R of design I of the result directory DIR (written by "
                    "'frontier' or 'demo') again from the run's seed, check that it equals the run's "
                    "record bit for bit on this machine — the journal's row with --journal, else the "
                    "design's mean and standard error in the result, for which all its replications "
                    "are simulated again — and print what happened in it where the family can tell "
                    "(ExPERT: each tail task's instances; cloud: the per-job table; vmc: the period's "
                    "batches; KOALA-C: each job's site). Exit code 0 when equal, 1 when it differs.",
    )
    replay.add_argument("directory", metavar="DIR")
    replay.add_argument("--design", type=non_negative_int, required=True, metavar="I",
                        help="the design index (column 'design' of DIR/evaluations.csv)")
    replay.add_argument("--rep", type=non_negative_int, required=True, metavar="R",
                        help="the replication index, from 0 to the design's n_reps - 1")
    replay.add_argument("--journal", default=None, metavar="FILE",
                        help="the run's journal: compare with its row of the replication (one replication "
                             "is simulated, not all of the design's)")
    replay.add_argument("--scenario", default=None, metavar="SCENARIO.toml",
                        help="the run's scenario file (default: the one DIR/result.json names)")
    replay.set_defaults(func=run)


def run(args) -> int:
    """Run ``mopt replay`` with parsed ``args``; return the exit code."""
    from mopt.core.replay import replay
    from mopt.core.result import Result

    result = Result.read_csv(args.directory)
    problem, path = _problem(args, result)
    where = f"'--scenario' {path!r}" if args.scenario is not None else f"the run's scenario {path!r}"
    names = {"design": "'--design'", "rep": "'--rep'", "journal": "'--journal'", "problem": where}
    done = replay(problem, result, args.design, args.rep, journal=args.journal, names=names)
    for line in done.lines():
        print(line)
    return 0 if done.equal else 1


def _problem(args, result):
    """The problem of the run's scenario (``--scenario``, else the file ``result.json`` names) with
    the run's seed, and the scenario's path."""
    from mopt.scenario import DEFAULT_FAMILY, load_scenario

    manifest = Path(args.directory) / "result.json"
    path = args.scenario if args.scenario is not None else result.info.get("scenario")
    if not isinstance(path, str):
        raise InputError(f"'{manifest}' names no scenario file: give the run's with '--scenario FILE'.")
    if args.scenario is None and not Path(path).is_file():
        raise InputError(f"'{manifest}' names the scenario file {path!r}, which is not there (paths are read from "
                         "the current directory): give it with '--scenario FILE'.")
    scenario = load_scenario(path)
    family = result.info.get("family", DEFAULT_FAMILY)
    if scenario.family != family:
        raise InputError(f"'--scenario' {path!r} is a scenario of the family {scenario.family!r}; the run's is "
                         f"{family!r}.")
    return scenario.problem(seed=result.seed), path
