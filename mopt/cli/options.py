"""The argument parser class of ``mopt`` and the options its run commands share.

:data:`RUN_OPTIONS` is what every run command — the core ones and every family's, which receive
it as ``add_parsers(subparsers, run_options)`` — declares its ``--out``, ``--seed``, ``--workers``,
``--scheduler``, ``--quiet``, ``--report-assets`` (and, where a run can resume, ``--journal``) with, so that they are
defined once and read the same everywhere; it also carries the argument types a family's own
options use (``run_options.positive_int``, ``.non_negative``, ``.seed``), so that a family never
imports the command line.

Values checked here are usage errors (one ``mopt: error: ...`` line, exit 2); ``--option``,
``--macroreps`` and ``--truth-reps`` are checked when the command runs and raise
:class:`~mopt.core.errors.InputError` naming the option.
"""

from __future__ import annotations

import argparse
import sys

from mopt.core.errors import InputError

__all__ = [
    "RUN_OPTIONS",
    "RunOptions",
    "Parser",
    "non_negative",
    "non_negative_int",
    "positive_int",
    "seed_value",
    "workers",
    "report_assets",
    "add_report_assets_option",
    "add_run_options",
    "add_journal_option",
    "count_option",
    "option_value",
    "method_options",
    "add_deprecated",
]


def _integer(text: str, low: int, expected: str, too_low: str) -> int:
    """An integer >= ``low``; the usage errors say ``must be <expected>`` / ``must be <too_low>``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {expected}; got {text!r}") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {too_low}; got {value}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 given on the command line.

    Examples
    --------
    >>> positive_int("3")
    3
    """
    return _integer(text, 1, "an integer", ">= 1")


def non_negative_int(text: str) -> int:
    """An integer >= 0 given on the command line (an index: ``mopt replay --design 0``).

    Examples
    --------
    >>> non_negative_int("0")
    0
    """
    return _integer(text, 0, "an integer", ">= 0")


def seed_value(text: str) -> int:
    """``--seed``: a non-negative integer.

    Examples
    --------
    >>> seed_value("0")
    0
    """
    return _integer(text, 0, "a non-negative integer", "a non-negative integer")


def non_negative(text: str) -> float:
    """A finite number >= 0 given on the command line.

    Examples
    --------
    >>> non_negative("120")
    120.0
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number; got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0; got {text}")
    return value


def workers(text: str) -> int:
    """``--workers``: an integer from 1 to MOPT_MAX_WORKERS (default 4 x the CPUs).

    Examples
    --------
    >>> workers("1")
    1
    """
    from mopt.core.inputs import check_workers

    value = positive_int(text)
    try:
        return check_workers("--workers", value)
    except InputError as exc:  # argparse shows an ArgumentTypeError's own message
        raise argparse.ArgumentTypeError(str(exc).replace("'--workers' ", "", 1).rstrip(".")) from None


def report_assets(text: str):
    """``--report-assets``: a directory (made if missing), never an existing file.

    Examples
    --------
    >>> report_assets("assets").name
    'assets'
    """
    from pathlib import Path

    if not text.strip():
        raise argparse.ArgumentTypeError("must name a directory; got ''")
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"must be a directory; {text!r} is a file")
    return path


#: ``--report-assets``'s help: what it writes and what the page then needs
REPORT_ASSETS_HELP = ("write plotly's JavaScript once into DIR (plotly-<version>.min.js, left as it is "
                      "if already there) and make the report load it from there by a relative path: "
                      "a page of a few hundred KB instead of ~4.7 MB, which needs DIR beside it "
                      "(default: the page holds it, self-contained)")


def add_report_assets_option(p: argparse.ArgumentParser) -> None:
    """Add ``--report-assets DIR`` (:data:`REPORT_ASSETS_HELP`) to a command that writes a report."""
    p.add_argument("--report-assets", type=report_assets, default=None, metavar="DIR", help=REPORT_ASSETS_HELP)


class Parser(argparse.ArgumentParser):
    """A usage error is one line, ``mopt: error: [COMMAND: ]MESSAGE (see ... --help)``, exit 2
    (argparse's own prints the usage block first)."""

    def parse_args(self, args=None, namespace=None):
        """As argparse's, but an unknown option is reported by the subcommand it was given to
        (``see 'mopt koala --help'``), not by ``mopt`` itself, with a "did you mean" for a near
        miss of one of its options (``--frist``: ``'--first'``; ``--First`` too)."""
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, "command", None)
            subcommands = next((a.choices for a in self._actions
                                if isinstance(a, argparse._SubParsersAction)), {})
            parser = subcommands.get(command, self)
            parser.error(f"unrecognized arguments: {' '.join(extras)}{parser.option_hint(extras)}")
        return parsed

    def parse_known_args(self, args=None, namespace=None):
        # kept for error(): a missing required option may be a misspelt one (``--polcy``)
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def unknown_options(self, tokens) -> list[str]:
        """The tokens of ``tokens`` that look like options (``-x``, ``--name[=value]``; not a
        negative number) and are none of this parser's, nor a prefix argparse would accept."""
        known = list(self._option_string_actions)
        out = []
        for token in tokens:
            if not isinstance(token, str) or not token.startswith("-") or token in ("-", "--"):
                continue
            name = token.split("=", 1)[0]
            if name[1:2].isdigit() or name[1:2] == ".":
                continue  # a negative number is a value
            if name in known or (name.startswith("--") and any(k.startswith(name) for k in known)):
                continue
            out.append(name)
        return out

    def option_hint(self, tokens) -> str:
        """``"; did you mean '--first'?"`` for the first unknown option of ``tokens`` near one of
        this parser's long options, else ``""``."""
        from mopt.core.names import suggest

        longs = [k for k in self._option_string_actions if k.startswith("--")]
        for name in self.unknown_options(tokens):
            hint = suggest(name, longs)
            if hint:
                return hint
        return ""

    def _get_values(self, action, arg_strings):
        # argparse drops a value '--' (``--budget=--``) and hands the option an empty list
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            raise argparse.ArgumentError(action, "expected one argument; got '--'")
        return super()._get_values(action, arg_strings)

    def _check_value(self, action, value):
        # a value outside ``choices`` (a subcommand, --env, --runtime, ...): argparse's message and,
        # for a near miss, a "did you mean"
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:
            from mopt.core.inputs import suggest

            hint = suggest(value, [str(c) for c in action.choices]) if action.choices is not None else ""
            if not hint:
                raise
            raise argparse.ArgumentError(action, f"{exc.message}{hint}") from None

    def error(self, message: str):
        if message.startswith("the following arguments are required"):
            unknown = self.unknown_options(getattr(self, "_given", ()))
            if unknown:  # ``--polcy X``: the misspelt option, not the one it left missing
                message = f"unrecognized arguments: {' '.join(unknown)}{self.option_hint(unknown)}"
        command = self.prog.split(" ", 1)[1] if " " in self.prog else ""
        text = " ".join(f"{command + ': ' if command else ''}{message}".split())
        self.exit(2, f"mopt: error: {text} (see '{self.prog} --help').\n")


class RunOptions:
    """Declares the shared run options on a command's parser (call it) and carries the argument
    types of the command line (:func:`positive_int`, :func:`non_negative`, :func:`seed_value`).

    Examples
    --------
    >>> p = Parser(prog="mopt x")
    >>> RUN_OPTIONS(p, "mopt-x", journal=True)
    >>> args = p.parse_args(["--seed", "3", "--quiet"])
    >>> args.out, args.seed, args.workers, args.scheduler, args.quiet, args.journal, args.report_assets
    ('mopt-x', 3, 1, None, True, None, None)
    """

    positive_int = staticmethod(positive_int)
    non_negative = staticmethod(non_negative)
    seed = staticmethod(seed_value)
    deprecated = staticmethod(lambda *a, **kw: add_deprecated(*a, **kw))

    def __call__(self, parser: argparse.ArgumentParser, out_default: str | None, *, stdout: bool = False,
                 journal: bool = False, out_help: str | None = None, seed_default: int | None = None,
                 seed_help: str | None = None, seed: bool = True, parallel: bool = True,
                 out_file: bool = False) -> None:
        """Add ``--out`` (default ``out_default``; ``out_help`` describes it; ``out_file``: it names
        a file, not a directory), ``--quiet``, ``--report-assets``; with
        ``seed`` (a run that draws random numbers) ``--seed`` (default ``seed_default``,
        ``seed_help`` describes it); with ``parallel`` ``--workers`` and ``--scheduler``; with
        ``journal`` ``--journal``."""
        add_run_options(parser, out_default, stdout=stdout, out_help=out_help, seed_default=seed_default,
                        seed_help=seed_help, seed=seed, parallel=parallel, out_file=out_file)
        if journal:
            add_journal_option(parser)


def add_run_options(p: argparse.ArgumentParser, out_default: str | None, stdout: bool = False, *,
                    out_help: str | None = None, seed_default: int | None = None, seed_help: str | None = None,
                    seed: bool = True, parallel: bool = True, out_file: bool = False) -> None:
    """Add ``--out`` (a directory, or with ``out_file`` a file), ``--seed``, ``--workers``,
    ``--scheduler``, ``--quiet`` and ``--report-assets`` to a run command.

    Examples
    --------
    >>> p = Parser(prog="mopt x")
    >>> add_run_options(p, "mopt-x")
    >>> p.parse_args(["--seed", "3"]).out
    'mopt-x'
    """
    dash = "; '-' writes front.csv to stdout, messages and progress to stderr" if stdout else ""
    p.add_argument("--out", metavar="FILE" if out_file else "DIR", default=out_default,
                   help=out_help or f"output directory (default: {out_default or './mopt-<scenario name>'}{dash})")
    if seed:
        default = "1, or the scenario's [run] seed" if seed_default is None else seed_default
        p.add_argument("--seed", type=seed_value, default=seed_default, metavar="S",
                       help=f"{seed_help or 'seed of the run'} (default: {default})")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (it goes to stderr, never to stdout)")
    add_report_assets_option(p)  # every run command writes a report page
    if not parallel:
        return
    p.add_argument("--workers", type=workers, default=1, metavar="W",
                   help="worker processes for the replications (>= 2: a local Dask cluster; "
                        "same results; at most MOPT_MAX_WORKERS, default 4 x the CPUs)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the replications on a running Dask cluster, e.g. tcp://host:8786 "
                        "(same results)")


class _Deprecated(argparse.Action):
    """An old spelling of an option: stores its value as the new one does and says, once on
    stderr, what to write instead (the old spelling goes in the next release)."""

    def __init__(self, option_strings, dest, *, new: str, note: str = "", **kwargs):
        self.new, self.note = new, note
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        said = getattr(namespace, "_deprecations", set())
        if option_string not in said:
            note = f" ({self.note})" if self.note else ""
            print(f"mopt: note: '{option_string}' is deprecated, use '{self.new}'{note}; the old "
                  f"spelling goes in the next release.", file=sys.stderr)
            said.add(option_string)
            namespace._deprecations = said


def add_deprecated(p: argparse.ArgumentParser, old: str, new: str, *, dest: str, note: str = "",
                   **kwargs) -> None:
    """Keep ``old`` (an option's former spelling) working for one release: it sets ``dest`` as
    ``new`` does (``kwargs``: its ``type``, ``metavar``, ...) and prints a deprecation note.

    Examples
    --------
    >>> p = Parser(prog="mopt x")
    >>> _ = p.add_argument("--first", type=int, dest="first")
    >>> add_deprecated(p, "--max-jobs", "--first", dest="first", type=int)
    >>> p.parse_args(["--max-jobs", "5"]).first  # doctest: +NORMALIZE_WHITESPACE
    5
    """
    p.add_argument(old, dest=dest, action=_Deprecated, new=new, note=note, default=argparse.SUPPRESS,
                   help=f"deprecated spelling of {new}", **kwargs)


def add_journal_option(p: argparse.ArgumentParser) -> None:
    """Add ``--journal FILE`` (a resumable run) to a run command."""
    p.add_argument("--journal", default=None, metavar="FILE",
                   help="SQLite file recording every finished batch of replications; run the "
                        "same command again to resume a killed run without simulating anything "
                        "twice (refused if written for another scenario or seed)")


def count_option(name: str, text: str, high: int) -> int:
    """A count given on the command line (InputError naming the option, not a usage error).

    Examples
    --------
    >>> count_option("--macroreps", " 4", 10)
    4
    """
    try:
        value = int(text.strip())
    except ValueError:
        raise InputError(f"'{name}' must be an integer >= 1; got {text!r}.") from None
    if not 1 <= value <= high:
        raise InputError(f"'{name}' must be an integer from 1 to {high:,}; got {value}.")
    return value


def option_value(text: str):
    """A command-line option value: an int, a float, true/false, none, or else the text itself.

    Examples
    --------
    >>> [option_value(t) for t in ("5", "0.5", "True", "none", "rank")]
    [5, 0.5, True, None, 'rank']
    """
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


def method_options(items, *, per_method: bool = False) -> dict:
    """``--option`` values as method options: ``{key: value}``, or ``{method: {key: value}}``.

    Examples
    --------
    >>> method_options(["n0=5"])
    {'n0': 5}
    >>> method_options(["ocba.n0=5"], per_method=True)
    {'ocba': {'n0': 5}}
    """
    from mopt.scenario import check_option_value

    out: dict = {}
    shape = "METHOD.KEY=VALUE" if per_method else "KEY=VALUE"
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        method, dot, name = key.partition(".") if per_method else ("", ".", key)
        if not sep or not name or (per_method and (not dot or not method)):
            raise InputError(f"'--option' must look like {shape}; got {item!r}.")
        parsed = option_value(value)
        try:
            check_option_value(name, parsed)  # nan, inf: refused here, naming the option
        except InputError:
            where = f"'options' for method '{method}': " if per_method else ""
            raise InputError(f"'--option {key}': {where}option '{name}' must be a finite number, an "
                             f"integer, true/false, none or a word; got {value.strip()!r}.") from None
        (out.setdefault(method, {}) if per_method else out)[name] = parsed
    return out


#: the shared run options, as every run command (and every family's ``add_parsers``) receives them
RUN_OPTIONS = RunOptions()
