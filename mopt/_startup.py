"""Signals while the ``mopt`` program starts, before :func:`mopt.cli.main` handles them.

Importing numpy, pandas, numba and the families takes a second or more.  Until
:func:`mopt.core.interrupt.sigterm_raises` took over, a SIGTERM then killed the process without a
word (exit -15) and a Ctrl-C printed the traceback of whatever import it interrupted (exit -2).
When the package is imported by the program itself (``python -m mopt``, ``python -m mopt.cli`` or
the ``mopt`` script; never when a program imports mopt as a library), both stop the process at
once with the command's line and exit code (143, 130): nothing is open or written yet.  The
handler stays in place outside :func:`~mopt.core.interrupt.sigterm_raises`.

This module imports nothing but the standard library, and runs :func:`stop_while_starting` when
imported (first thing in ``mopt/__init__.py``).
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["started_as_program", "stop_while_starting", "stop_now"]

#: the line and exit code of each signal (the same as :func:`mopt.cli._stopped`'s)
STOPPED = {
    signal.SIGTERM: ("mopt: terminated (SIGTERM)", 143),
    signal.SIGINT: ("mopt: interrupted (Ctrl-C)", 130),
}


def started_as_program() -> bool:
    """Whether this process is the ``mopt`` program (``python -m mopt``, ``python -m mopt.cli``,
    the ``mopt`` script), asked while the package is first imported."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "-m":  # python -m NAME: runpy imports the package before it runs NAME
        orig = list(getattr(sys, "orig_argv", []))
        k = orig.index("-m") if "-m" in orig else -1
        return 0 <= k < len(orig) - 1 and orig[k + 1] in ("mopt", "mopt.cli")
    main = sys.modules.get("__main__")
    return os.path.basename(argv0) == "mopt" and getattr(main, "__file__", None) == argv0


def _stop(signum, frame):
    stop_now(signum)


def stop_now(signum: int) -> None:
    """End the process at once with the line and exit code of ``signum`` (:data:`STOPPED`), what
    was printed before flushed (also :func:`mopt.core.interrupt.exit_while_compiling`)."""
    line, code = STOPPED[signum]
    for stream in (sys.stdout, sys.stderr):  # what was printed before (never half a write)
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed pipe, a write under way: exit all the same
            pass
    try:
        os.write(2, (line + "\n").encode())
    except OSError:
        pass
    os._exit(code)


def stop_while_starting() -> None:
    """In the ``mopt`` program (:func:`started_as_program`), SIGTERM and SIGINT end the process at
    once with one line (exit 143, 130) until :func:`mopt.cli.main` takes over; elsewhere nothing."""
    if not started_as_program():
        return
    # a signal the parent ignores stays ignored (`nohup`, a shell's background job)
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _stop)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _stop)


stop_while_starting()  # on import: mopt/__init__.py imports this module first
