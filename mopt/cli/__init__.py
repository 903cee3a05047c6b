"""The ``mopt`` command: ``frontier SCENARIO.toml``, ``decide DIR --utility SPEC``, ``report DIR``,
``replay DIR --design I --rep R``, ``compare SCENARIO.toml --methods ... --budgets ...
--macroreps M``, ``traces``, and the commands of every installed problem family (``demo``,
``simulate``, ``portfolio``, ``koala``, ``vmc``, ...).

This package builds the parser and turns what a command raises into an exit code. The core
commands live in one module each (:mod:`mopt.cli.frontier`, :mod:`~mopt.cli.decide`, :mod:`~mopt.cli.report`,
:mod:`~mopt.cli.replay`, :mod:`~mopt.cli.compare`, :mod:`~mopt.cli.traces`); the shared run
options in :mod:`mopt.cli.options`. A family's commands come from its :class:`~mopt.core.family.Family`
declaration (``add_parsers(subparsers, run_options)``), found through the registry of installed
families: the command line names no family.

Bad input (a malformed or mistyped scenario file, an out-of-range value, a missing file, a bad
utility spec) ends with one line on stderr, ``mopt: error: <message>``, and exit code 2 — never a
traceback (set ``MOPT_DEBUG=1`` to see one).  Outputs are written atomically.  A reader that
closes standard output early (``mopt frontier s.toml | head``) only loses the rest of what is
printed: the command still writes its files and exits with its usual status
(:mod:`mopt.commands.pipe`).
"""

from __future__ import annotations

import argparse
import os
import sys

from mopt.cli import compare as compare_command
from mopt.cli import decide as decide_command
from mopt.cli import frontier as frontier_command
from mopt.cli import replay as replay_command
from mopt.cli import report as report_command
from mopt.cli import traces as traces_command
from mopt.cli.options import RUN_OPTIONS, Parser
from mopt.cli.pipe import guarded_stdout
from mopt.core.errors import InputError, MoptError
from mopt.core.family import families
from mopt.core.interrupt import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    Terminated,
    exit_while_compiling,
    sigterm_raises,
)
from mopt.core.output_sets import release_locks
from mopt.core.outputs import message as _message

__all__ = ["main", "program", "build_parser"]

#: errors that mean bad input (exit code 2); anything else is exit code 1
BAD_INPUT = (InputError, TypeError, ValueError, FileNotFoundError, PermissionError, IsADirectoryError,
             NotADirectoryError, FileExistsError)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``mopt`` command.

    Examples
    --------
    >>> build_parser().parse_args(["decide", "mopt-demo"]).directory
    'mopt-demo'
    """
    installed = "\n".join(f"  {f.name:<8} {f.description}" for f in families().values())
    parser = Parser(
        prog="mopt",
        description="Multi-objective search over scheduling strategies estimated by simulation.",
        epilog=f"problem families installed:\n{installed}\n\nBad input exits with code 2 and one line on "
               "stderr (MOPT_DEBUG=1 shows a traceback).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from mopt import __version__

    parser.add_argument("--version", action="version", version=f"mopt {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # -- the core commands, then every installed family's, in the order of `mopt --help`
    frontier_command.add_parser(sub, RUN_OPTIONS)
    decide_command.add_parser(sub)
    report_command.add_parser(sub)
    replay_command.add_parser(sub)
    compare_command.add_parser(sub, RUN_OPTIONS)
    traces_command.add_parser(sub)
    for family in families().values():
        family.add_parsers(sub, RUN_OPTIONS)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the ``mopt`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code.

    Examples
    --------
    >>> main(["decide"])  # a usage error: one line on stderr, exit code 2
    2
    """
    with guarded_stdout():  # a reader closing stdout (`| head`) loses the rest of the printout only
        return _main(argv)


def program() -> None:
    """The ``mopt`` program (``python -m mopt``, the ``mopt`` script): :func:`main`, then exit.

    A run stopped by Ctrl-C or SIGTERM has cleaned up by the time :func:`main` returns (temporary
    files removed, the journal closed, a Dask cluster shut down); it then exits at once, without
    the interpreter's teardown, which frees Numba's compiled code object by object (measured: 0.5
    to 1 s on a loaded two-core machine, as long as the rest of the stop).
    """
    exit_while_compiling()  # a signal does not wait for a long Numba compilation (mopt.core.interrupt)
    code = main()
    if code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
        execute = sys.modules.get("mopt.core.execute")
        if execute is not None:  # what the teardown skipped would leave: a local cluster's semaphores
            execute.release_semaphores()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):  # a reader gone, a closed stream: nothing more to say
                pass
        os._exit(code)
    sys.exit(code)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # usage errors (code 2) and --help (code 0)
        return int(exc.code or 0)
    try:
        with sigterm_raises():  # SIGTERM (timeout, systemd, SLURM) cleans up like Ctrl-C
            try:
                return args.func(args)
            finally:
                release_locks()  # of --out directories a failed run did not write
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
        hint = getattr(args, "memory_hint", "fewer replications (n_reps, --budget) or designs")
        print(f"mopt: error: out of memory ({_message(exc)}); ask for {hint}", file=sys.stderr)
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


if __name__ == "__main__":  # pragma: no cover
    program()
