"""Signals: SIGTERM handled like Ctrl-C (SIGINT), and sections that a signal never cuts in two.

``timeout``, systemd and batch schedulers (SLURM) stop a program with SIGTERM.  Inside
:func:`sigterm_raises`, SIGTERM raises :class:`Terminated` (a ``KeyboardInterrupt``), so the same
clean-up runs as for Ctrl-C: temporary files are removed, the journal is closed with every
finished batch committed, a Dask cluster is shut down.  A signal that arrives while Numba compiles
(or loads a compiled function from its cache), or while a compiled function converts its arguments
or results, is raised as soon as Numba's code is left, never inside it; in the ``mopt`` program,
a compilation still running a second after the signal is not waited for: the process ends with
its line (:func:`exit_while_compiling`).  Inside :func:`deferred_signals` (writing
a set of output files), SIGINT and SIGTERM wait until the section ends, so they never leave half
of a set replaced.  ``dask_setup`` is the preload of mopt's local Dask workers: they ignore
SIGINT (a Ctrl-C in a terminal reaches the whole process group), and the main process, which
handles it, shuts them down quietly.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Terminated", "sigterm_raises", "deferred_signals", "dask_setup", "check", "exit_while_compiling"]

#: exit code of a run stopped by SIGTERM (128 + 15, the shell's convention)
EXIT_TERMINATED = 143
#: exit code of a run stopped by Ctrl-C (128 + 2)
EXIT_INTERRUPTED = 130


class Terminated(KeyboardInterrupt):
    """Raised by SIGTERM inside :func:`sigterm_raises` (a KeyboardInterrupt: the same clean-up)."""


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


#: signals received inside :func:`sigterm_raises` (so that :func:`check` can raise them again)
_received: list[int] = []


def _exception(signum: int) -> KeyboardInterrupt:
    return Terminated("SIGTERM") if signum == signal.SIGTERM else KeyboardInterrupt()


#: seconds between two tries to deliver a signal that arrived inside Numba's own Python code
RETRY_SECONDS = 0.005


def _compiling() -> bool:
    """Whether this thread is inside Numba's compiler (compiling, or loading from its cache)."""
    compiler_lock = sys.modules.get("numba.core.compiler_lock")
    return compiler_lock is not None and compiler_lock.global_compiler_lock.is_locked()


def _in_numba(frame) -> bool:
    """Whether ``frame`` or a caller of it is Numba's or llvmlite's own Python code: a compiled
    function calls back into it while it converts its arguments and results (``_numba_unpickle``)."""
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if module.startswith(("numba.", "llvmlite.")):
            return True
        frame = frame.f_back
    return False


#: seconds a signal that arrives while Numba compiles waits for the compilation to end before the
#: ``mopt`` program exits at once (:func:`exit_while_compiling`)
COMPILE_WAIT_SECONDS = 1.0
#: whether a signal that waited :data:`COMPILE_WAIT_SECONDS` for Numba's compiler ends the process
_exit_while_compiling: list[bool] = [False]


def exit_while_compiling(enabled: bool = True) -> None:
    """In the ``mopt`` program (:func:`mopt.cli.program` calls this), a signal that arrives while
    Numba compiles and is still waiting for the compilation :data:`COMPILE_WAIT_SECONDS` later
    ends the process at once, with the command's line and exit code (130, 143), instead of after
    the compilation (15 to 19 s on a cold cache: issue #34).  The clean-up is skipped, which is
    sound: a compilation happens outside the sections that replace outputs (those hold signals,
    :func:`deferred_signals`), so every output set is the old one or the new one; a journal
    commits each batch in a transaction of its own (SQLite rolls back the one under way); the
    locks of ``--out`` are released and a local Dask cluster's scratch folder removed
    (:func:`clean_before_exit`), and the private folder of a set being written, if any, is
    removed by the next run (its pid is gone); Dask's workers exit with the process that
    started them.  A program that imports mopt as a library is never exited."""
    _exit_while_compiling[0] = enabled


def clean_before_exit() -> None:
    """What an exit that skips the clean-up (:func:`exit_while_compiling`) still removes: the lock
    files of ``--out`` (and the folders made for them) and the scratch folders of local Dask
    clusters (:func:`mopt.core.execute.local_cluster`).  Only modules already imported are asked."""
    outputs, execute = sys.modules.get("mopt.core.output_sets"), sys.modules.get("mopt.core.execute")
    for clean in ((outputs.release_locks,) if outputs else ()) + ((execute.remove_scratch,) if execute else ()):
        try:
            clean()
        except Exception:  # noqa: BLE001 - the process ends all the same
            pass


def _deliver_later(signum: int, compiling: bool) -> None:
    """Deliver ``signum`` to the main thread again (a thread): once Numba's compiler lock is free,
    or after :data:`RETRY_SECONDS`; in the ``mopt`` program, a compilation that still runs
    :data:`COMPILE_WAIT_SECONDS` later ends the process (:func:`exit_while_compiling`)."""
    if compiling:
        lock = sys.modules["numba.core.compiler_lock"].global_compiler_lock._lock
        if _exit_while_compiling[0]:
            if not lock.acquire(timeout=COMPILE_WAIT_SECONDS):  # still compiling: stop now
                from mopt._startup import stop_now

                clean_before_exit()
                stop_now(signum)
        else:
            lock.acquire()  # blocks while the main thread compiles
        lock.release()
    else:
        time.sleep(RETRY_SECONDS)
    if _received:  # still inside sigterm_raises
        _thread.interrupt_main(signum)


def _raise_signal(signum, frame):
    _received.append(signum)
    compiling = _compiling()
    if compiling or _in_numba(frame):
        # an exception raised inside Numba's compiler can leave it half-way (a SIGTERM was then
        # swallowed, or a later call failed with "no compiled object yet"); raised while a compiled
        # function converts its results, it crashed the process (exit -11, mopt koala LCG): the
        # signal is raised again as soon as Numba's code is left
        threading.Thread(target=_deliver_later, args=(signum, compiling), daemon=True).start()
        return
    raise _exception(signum)


def check() -> None:
    """Raise again an interrupt whose exception was swallowed.

    A signal handler raises where the interpreter happens to be; inside a weakref callback or a
    ``__del__`` Python only prints the exception ("Exception ignored in ...") and goes on.  The
    driver calls this between batches (and the CLI before writing outputs), so such a signal
    still stops the run.  Outside :func:`sigterm_raises` it does nothing.
    """
    if _received:
        raise _exception(_received[-1])


@contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` (outside the main thread: no change).

    Examples
    --------
    >>> import signal
    >>> try:
    ...     with sigterm_raises():
    ...         signal.raise_signal(signal.SIGTERM)  # delivered to this thread, handled at once
    ... except Terminated:
    ...     print("cleaned up")
    cleaned up
    """
    if not _in_main_thread():
        yield
        return
    previous = {s: signal.signal(s, _raise_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    previous_hook = sys.unraisablehook

    def unraisable(args):  # a swallowed interrupt is raised again by check(): no traceback
        if not isinstance(args.exc_value, KeyboardInterrupt):
            previous_hook(args)

    sys.unraisablehook = unraisable
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        sys.unraisablehook = previous_hook
        _received.clear()


@contextmanager
def deferred_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM are held; the first one is delivered when it ends.

    Examples
    --------
    >>> import signal
    >>> _ = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C raises, as in a terminal
    >>> done = []
    >>> try:
    ...     with deferred_signals():
    ...         signal.raise_signal(signal.SIGINT)
    ...         done.append("the whole section")
    ... except KeyboardInterrupt:
    ...     print(done)
    ['the whole section']
    """
    if not _in_main_thread():
        yield
        return
    check()  # an interrupt swallowed earlier stops the run before any output is replaced
    pending: list[int] = []

    def hold(signum, frame):
        pending.append(signum)

    previous = {s: signal.signal(s, hold) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if pending:  # as if it arrived now: the restored handler runs
            signal.raise_signal(pending[0])


def dask_setup(worker) -> None:
    """Dask preload of mopt's local workers: ignore SIGINT (the main process handles Ctrl-C and
    shuts the cluster down; workers that raised KeyboardInterrupt printed tracebacks)."""
    if _in_main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
