"""``mopt report DIR``: a result directory as one HTML page a person opens in a browser."""

from __future__ import annotations

from pathlib import Path

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``report`` subcommand to ``sub`` (an argparse subparsers object)."""
    report = sub.add_parser(
        "report", help="an HTML report of a result directory",
        description="Write DIR/report.html (written by 'frontier', 'demo' or a family's command): one "
                    "self-contained page, opened from disk with no network, with the interactive "
                    "frontier (hover shows each design's parameters, means and interval), the "
                    "uncertain designs, the decisions of the family's utilities, and the run.",
    )
    report.add_argument("directory", metavar="DIR")
    report.add_argument("--out", default=None, metavar="PATH",
                        help="the HTML file to write (default: DIR/report.html)")
    report.set_defaults(func=run)


def run(args) -> int:
    """Run ``mopt report`` with parsed ``args``; return the exit code."""
    from mopt.core.errors import InputError
    from mopt.core.family import families
    from mopt.core.outputs import check_out_file
    from mopt.core.result import Result
    from mopt.core.utility import generic_utilities
    from mopt.report import write_report
    from mopt.scenario import DEFAULT_FAMILY
    from mopt.tables import choose

    directory = Path(args.directory)
    result = Result.read_csv(directory)
    inputs = [directory / name for name in ("evaluations.csv", "front.csv", "result.json")]
    out = check_out_file(directory / "report.html" if args.out is None else args.out, inputs=inputs)
    family = families().get(result.info.get("family", DEFAULT_FAMILY))  # as 'mopt decide' reads it
    utilities = (family.default_utilities(result.objectives) if family is not None
                 else generic_utilities(result.objectives))
    scenario = result.info.get("scenario")
    text = None
    if isinstance(scenario, str) and Path(scenario).is_file():  # the scenario file, if still there
        from mopt.core.inputs import read_text

        try:
            text = read_text(Path(scenario), "scenario file")
        except (InputError, OSError):
            text = None  # the run table still names it
        if text is not None and not _is_scenario(text, family):  # a path a stranger's result.json names:
            text = None  # not copied into the page unless it is a scenario file of the result's family
    write_report(result, out, family=family, scenario=text, chosen=choose(result, utilities),
                 title=f"mopt result: {directory}")
    print(out)
    return 0


def _is_scenario(text: str, family) -> bool:
    """Whether ``text`` is a TOML scenario of ``family``: its sections all the family's (or ``[run]``)."""
    import tomllib

    from mopt.scenario import DEFAULT_FAMILY

    try:
        doc = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        return False
    sections = set(family.scenario_keys()) if family is not None else set()
    return (bool(sections) and doc.get("family", DEFAULT_FAMILY) == family.name
            and all(isinstance(v, dict) for k, v in doc.items() if k != "family")
            and set(doc) - {"family"} <= sections | {"run"})
