"""A figure drawn in a second process while the program simulates (``mopt demo``).

Importing matplotlib and drawing ``front.png`` took ~0.8 s of a 2.5 s warm ``mopt demo``, all of it
after the simulation, on one core of two.  :func:`start` forks the program at its start, before
numpy, numba or any thread exists: the child imports :mod:`mopt.plot` (pandas, matplotlib) and
loads its fonts while the parent imports numba and simulates; then it draws the one figure the
parent sends (:meth:`Painter.submit`: a ``"module:function"`` that returns a matplotlib figure,
and its arguments, pickled).  The parent goes on (printing, the report) and collects the file when
it writes its set of outputs (:meth:`Drawing.save`).

It forks only where that pays and is safe: POSIX ``fork``, two or more CPUs, matplotlib not yet
imported, no other thread, and ``MOPT_FIGURE_PROCESS`` not ``0``.  Elsewhere (mopt used as a
library, a test process) :func:`start` returns a painter that draws in the process itself: the
same function, the same file.  A child that fails or dies leaves the parent to draw the figure
itself, so a real error is raised where it always was.  The child ignores Ctrl-C (the program
handles it), dies with its parent (``PR_SET_PDEATHSIG``), writes nothing to stdout and ends with
``os._exit``.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import sys
import tempfile
import threading
import traceback

__all__ = ["start", "Painter", "Drawing"]


def _forks() -> bool:
    """Whether :func:`start` forks here (see the module docstring)."""
    return (hasattr(os, "fork") and (os.cpu_count() or 1) >= 2 and "matplotlib" not in sys.modules
            and threading.active_count() == 1 and os.environ.get("MOPT_FIGURE_PROCESS", "1") != "0")


def start(warm: str = "mopt.figure_process:warm_plot") -> Painter:
    """A painter: a forked child that imports ``warm``'s module and calls it while it waits, where
    :func:`_forks` allows; else one that draws in this process."""
    if not _forks():
        return Painter()
    jobs_r, jobs_w = os.pipe()
    reply_r, reply_w = os.pipe()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(jobs_w)
        os.close(reply_r)
        _child(parent, jobs_r, reply_w, warm)
    os.close(jobs_r)
    os.close(reply_w)
    return Painter(pid, jobs_w, reply_r)


def _child(parent: int, jobs_r: int, reply_w: int, warm: str) -> None:
    from mopt._ahead import _end_with_parent

    reply = ("error", "no figure was asked for")
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _end_with_parent(parent, exit=os._exit)
        from mopt._numba_cache import target_function

        target_function(warm)()
        with os.fdopen(jobs_r, "rb") as jobs:
            job = jobs.read().decode()
        if not job:  # the parent asked for nothing
            os._exit(0)
        with open(job, "rb") as f:
            target, args, kwargs, path = pickle.load(f)
        _draw(target, args, kwargs, path)
        reply = ("ok", path)
    except BaseException:  # noqa: BLE001 - the parent draws it itself and meets the error there
        reply = ("error", traceback.format_exc())
    finally:
        try:
            with os.fdopen(reply_w, "wb") as out:
                pickle.dump(reply, out)
        finally:
            os._exit(0)


def _draw(target: str, args, kwargs, path) -> None:
    """``save_figure(target(*args, **kwargs), path)``."""
    from mopt._numba_cache import target_function
    from mopt.plot import save_figure

    save_figure(target_function(target)(*args, **kwargs), path)


def warm_plot() -> None:
    """Import :mod:`mopt.plot` and the installed families (the axis labels of
    :func:`~mopt.plot.plot_frontier` are a family's) and draw a line of text, so that the font
    list and the default font are loaded before the figure arrives."""
    import io

    from mopt.core.family import families
    from mopt.plot import Figure, FigureCanvasAgg

    families()
    fig = Figure(figsize=(1, 1))
    FigureCanvasAgg(fig)
    fig.text(0.1, 0.5, "warm 0.1")
    fig.savefig(io.BytesIO(), format="png", dpi=10)


class Painter:
    """Draws figures: in the child ``pid`` when there is one (``jobs``, ``replies``: its pipes),
    else here."""

    def __init__(self, pid: int | None = None, jobs: int | None = None, replies: int | None = None):
        self.pid, self._jobs, self._replies = pid, jobs, replies

    @property
    def forked(self) -> bool:
        """Whether a child draws (until the first figure is submitted)."""
        return self._jobs is not None

    def submit(self, target: str, *args, suffix: str = ".png", **kwargs) -> Drawing:
        """Start drawing ``target(*args, **kwargs)`` (``"module:function"``, returning a figure);
        the :class:`Drawing` writes it where it is asked to.  One figure per child: later ones are
        drawn here."""
        drawing = Drawing(target, args, kwargs)
        if self._jobs is None:
            return drawing
        temp = tempfile.mkdtemp(prefix="mopt-figure-")
        job, path = os.path.join(temp, "job.pickle"), os.path.join(temp, "figure" + suffix)
        try:
            with open(job, "wb") as f:
                pickle.dump((target, args, kwargs, path), f, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):  # data that does not pickle: drawn here
            shutil.rmtree(temp, ignore_errors=True)
            return drawing  # the child still waits: close() ends it
        jobs, self._jobs = self._jobs, None
        try:  # the job's file name through the pipe (a pipe holds 64 KiB; the child may still be importing)
            with os.fdopen(jobs, "wb") as out:
                out.write(job.encode())
        except OSError:  # the child is gone: save() reaps it and draws here
            pass
        drawing._child, drawing._replies, drawing._path, drawing._temp = self.pid, self._replies, path, temp
        return drawing

    def close(self) -> None:
        """End a child that was never sent a figure (it exits on the closed pipe)."""
        if self._jobs is not None:
            os.close(self._jobs)
            self._jobs = None
            _reap(self.pid, self._replies)


class Drawing:
    """One figure on its way: :meth:`save` writes it."""

    def __init__(self, target: str, args, kwargs):
        self.target, self.args, self.kwargs = target, args, kwargs
        self._child = self._replies = self._path = self._temp = None
        #: where the file came from: "child" or "here" (after :meth:`save`)
        self.drawn_by = None

    def save(self, path) -> None:
        """Write the figure to ``path``: the child's file when it drew one, else drawn here."""
        try:
            reply = _reap(self._child, self._replies) if self._child is not None else None
            if reply is not None and reply[0] == "ok" and os.path.isfile(self._path):
                shutil.copyfile(self._path, path)
                self.drawn_by = "child"
                return
            _draw(self.target, self.args, self.kwargs, path)
            self.drawn_by = "here"
        finally:
            self._child = None
            if self._temp is not None:
                shutil.rmtree(self._temp, ignore_errors=True)


def _reap(pid: int, replies: int):
    """The child's reply (None if it died without one), once it has exited."""
    try:
        with os.fdopen(replies, "rb") as f:
            try:
                reply = pickle.load(f)
            except (EOFError, pickle.UnpicklingError):
                reply = None
    finally:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return reply
