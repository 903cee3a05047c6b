"""``mopt report DIR``: a result directory as one HTML page a person opens in a browser."""

from __future__ import annotations

from pathlib import Path

from mopt.cli import watch as watch_command
from mopt.cli.options import add_report_assets_option

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``report`` subcommand to ``sub`` (an argparse subparsers object)."""
    report = sub.add_parser(
        "report", help="an HTML report of a result directory",
        description="Write DIR/report.html for the output directory DIR of 'frontier', 'demo', "
                    "'compare', 'vmc' or 'portfolio': one self-contained page, opened from disk with "
                    "no network. A result (frontier, demo): the interactive frontier (hover shows each "
                    "design's parameters, means and interval), the uncertain designs, the decisions of "
                    "the family's utilities, and the run; compare: the ground truth's front and the "
                    "methods' scores against the budget; vmc, portfolio: the page the command wrote, "
                    "drawn again from the directory's tables. With --watch: a live page of a search "
                    "that is still running, read from its journal every --interval seconds (the front "
                    "so far, replications spent, time left at the current pace), written to --out, "
                    "else DIR/report.html, else beside the journal; Ctrl-C ends it.",
    )
    report.add_argument("directory", metavar="DIR", nargs="?", default=None)
    report.add_argument("--out", default=None, metavar="PATH",
                        help="the HTML file to write (default: DIR/report.html)")
    add_report_assets_option(report)
    watch_command.add_arguments(report)
    report.set_defaults(func=run)


def run(args) -> int:
    """Run ``mopt report`` with parsed ``args``; return the exit code."""
    from mopt.core.errors import InputError
    from mopt.core.family import families
    from mopt.core.outputs import check_out_file
    from mopt.core.result import Result
    from mopt.core.utility import generic_utilities
    from mopt.report import write_report
    from mopt.report.plotly_asset import plotly_src
    from mopt.scenario import DEFAULT_FAMILY
    from mopt.tables import choose

    if getattr(args, "watch", False):
        return watch_command.run(args)
    for option, given in (("--journal", args.journal is not None), ("--scenario", args.scenario is not None),
                          ("--budget", args.budget is not None), ("--once", args.once),
                          ("--interval", args.interval != watch_command.DEFAULT_INTERVAL)):
        if given:
            raise InputError(f"'{option}' goes with '--watch' (a live page of a running search).")
    if args.directory is None:
        raise InputError("'mopt report' needs DIR, a result directory (or --watch --journal FILE).")
    directory = Path(args.directory)
    if directory.is_file():  # the CSV of 'simulate' or 'koala', whose page is written beside it
        raise InputError(f"'{directory}' is a file, not a result directory: 'mopt simulate' and 'mopt koala' "
                         f"write their report beside their CSV ({directory.stem}.report.html) already; give "
                         "the output directory of 'frontier', 'demo', 'compare', 'vmc' or 'portfolio'.")
    if not (directory / "result.json").exists() and not (directory / "evaluations.csv").exists():
        from mopt.core.output_sets import read_manifest

        manifest = read_manifest(directory) if directory.is_dir() else None
        if manifest is not None:  # the set of compare, vmc or portfolio
            return _command_report(directory, manifest, args.out, args.report_assets)
        pages = sorted(directory.glob("*.report.html")) if directory.is_dir() else []
        if pages:  # the folder of 'simulate' or 'koala', which write their page beside their CSV
            raise InputError(f"'{directory}' holds no result set but {pages[0].name}, the page that 'mopt simulate' "
                             f"or 'mopt koala' wrote beside its CSV (it is the report); 'mopt report' draws the "
                             "output directory of 'frontier', 'demo', 'compare', 'vmc' or 'portfolio'.")
    result = Result.read_csv(directory)
    statics = _statics(directory, result.objectives)
    inputs = [directory / name for name in ("evaluations.csv", "front.csv", "result.json")]
    out = check_out_file(directory / "report.html" if args.out is None else args.out, inputs=inputs)
    family = families().get(result.info.get("family", DEFAULT_FAMILY))  # as 'mopt decide' reads it
    utilities = _recorded_utilities(result.info) or (
        family.default_utilities(result.objectives) if family is not None else generic_utilities(result.objectives))
    text = _scenario_text(result.info.get("scenario"), family)
    title = result.info.get("title")
    write_report(result, out, family=family, scenario=text, chosen=choose(result, utilities),
                 title=title if isinstance(title, str) and title.strip() else f"mopt result: {directory}",
                 statics=statics,
                 figure=_beside(directory, "front.png", out), plotly_src=plotly_src(args.report_assets, out))
    print(out)
    return 0


def _sets() -> dict:
    """Command -> (table its set holds, by which its directory is recognised also without the
    manifest's "command", which sets written before it was recorded lack; writer of its page or
    None for compare's): compare's, and every family's declared ``reports``."""
    from mopt.core.family import families

    out = {"compare": ("compare.csv", None)}
    for family in families().values():
        out.update({command: family.report_writer(command) for command in family.reports})
    return out


def _command_report(directory: Path, manifest: dict, out, assets=None) -> int:
    """``mopt report DIR`` on the set of ``mopt compare``, ``vmc`` or ``portfolio``: its page drawn
    again from the directory's tables and the facts its manifest records (plotly's JavaScript in
    ``assets``, as ``--report-assets`` gives it, or inlined)."""
    import pandas as pd

    from mopt.core.errors import InputError
    from mopt.core.outputs import check_out_file

    files = manifest["files"]
    sets = _sets()
    command = manifest.get("command")
    if command == watch_command.COMMAND:
        raise InputError(f"'{directory}' holds the live page of 'mopt report --watch' ({directory / 'report.html'}), "
                         "not a result: the search has not written its set there yet; watch it with "
                         f"'mopt report {directory} --watch'.")
    if command not in sets:
        command = next((c for c, (name, _) in sets.items() if name in files), None)
    if command is None:
        raise InputError(f"'{directory}' holds a mopt set of none of the commands 'mopt report' draws "
                         f"(files {', '.join(sorted(files))}); give the output directory of 'frontier', "
                         "'demo', 'compare', 'vmc' or 'portfolio'.")
    facts = dict(manifest.get("facts") or {})
    table_name, writer = sets[command]
    needed = ("compare.csv", "truth.csv") if command == "compare" else (table_name,)
    missing = [name for name in needed if not (directory / name).is_file()]
    if command == "compare" and (missing or not {"truth_reps", "truth_seed", "objectives", "family"} <= set(facts)):
        raise InputError(f"'{directory}' was written by 'mopt compare' before it kept its ground truth "
                         f"(truth.csv): its report.html is the report; run 'mopt compare' again for a new one.")
    if missing:
        raise InputError(f"'{directory}' is the output of 'mopt {command}' but {missing[0]} is missing; "
                         f"run 'mopt {command}' again.")
    from mopt.core.set_writer import _sha256

    for name in needed:  # as Result.read_csv checks a result's files against its result.json
        recorded = files.get(name)
        if isinstance(recorded, str) and _sha256(directory / name) != recorded.lower():
            raise InputError(f"'{directory / name}' does not match the sha256 recorded in "
                             f"'{directory / 'manifest.json'}' (edited after it was written?).")
    target = check_out_file(directory / "report.html" if out is None else out,
                            inputs=[directory / name for name in needed])

    def table(name: str) -> pd.DataFrame:
        try:
            return pd.read_csv(directory / name)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
            raise InputError(f"'{directory / name}': malformed {name} ({' '.join(str(exc).split())}).") from None

    from mopt.report.plotly_asset import plotly_src

    src = plotly_src(assets, target)
    page = {} if src is None else {"plotly_src": src}  # a family's writer of an older release takes none
    try:
        if writer is not None:  # a family's command: the family draws its page
            writer(target, table(table_name), facts, **page)
        else:
            from mopt.cli.compare import write_compare_report
            from mopt.core.family import families

            facts.setdefault("name", directory.name)
            write_compare_report(target, table("compare.csv"), table("truth.csv"), facts,
                                 scenario=_scenario_text(facts.get("scenario"), families().get(facts["family"])),
                                 plotly_src=src)
    except (KeyError, TypeError, ValueError) as exc:  # a table of other columns
        raise InputError(f"'{directory}': the tables of 'mopt {command}' do not hold what its report draws "
                         f"({type(exc).__name__}: {exc}); run 'mopt {command}' again.") from None
    print(target)
    return 0


def _recorded_utilities(info: dict) -> dict | None:
    """The decisions the command that wrote the set made (``info["utilities"]``: label -> utility
    spec, e.g. ``mopt demo``'s five), so that the page chooses what the printout chose; None when
    the set records none or one of them no longer parses (the family's utilities then)."""
    from mopt.core.errors import InputError
    from mopt.utility_spec import parse_utility

    recorded = info.get("utilities")
    if not isinstance(recorded, dict) or not recorded:
        return None
    try:
        return {str(label): parse_utility(spec) for label, spec in recorded.items() if isinstance(spec, str)} or None
    except (InputError, ValueError, TypeError):
        return None


def _statics(directory: Path, objectives):
    """The static strategies of a ``mopt demo`` set (``statics.csv``: ``name`` and the
    ``objectives``), if its ``result.json`` lists the file with the sha256 it still has; else None
    (a file of someone else's is not shown)."""
    import json

    import pandas as pd

    from mopt.core.set_writer import _sha256

    path = directory / "statics.csv"
    try:
        recorded = json.loads((directory / "result.json").read_text(encoding="utf-8")).get("files", {}).get("statics.csv")
        if not isinstance(recorded, str) or not path.is_file() or _sha256(path) != recorded.lower():
            return None
        statics = pd.read_csv(path)
    except (OSError, ValueError, AttributeError, pd.errors.ParserError, pd.errors.EmptyDataError):
        return None
    return statics if {"name", *objectives} <= set(statics.columns) else None


def _beside(directory: Path, name: str, page: Path) -> str | None:
    """The address of ``directory / name`` as ``page`` names it, if it is a file."""
    from mopt.report.plotly_asset import relative_address

    return relative_address(directory / name, page) if (directory / name).is_file() else None


def _scenario_text(scenario, family) -> str | None:
    """The text of the scenario file a set names, if it is still there (else the run table still
    names it) and a scenario file of ``family``: a path a stranger's set names is not copied into
    the page."""
    from mopt.core.errors import InputError
    from mopt.core.inputs import read_text

    if not isinstance(scenario, str) or not Path(scenario).is_file():
        return None
    try:
        text = read_text(Path(scenario), "scenario file")
    except (InputError, OSError):
        return None
    return text if _is_scenario(text, family) else None


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
