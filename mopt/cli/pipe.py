"""Standard output that survives a reader closing the pipe (``mopt frontier s.toml | head``).

When the reader of ``mopt``'s standard output goes away, whatever the command still prints is
discarded and the command carries on: the files it was asked to write (``--out``) are written as
usual and the exit status is the command's own (0 when it succeeded), as ``tee -p`` does (ours: a
closed pipe is the reader's choice to read less, not a failure of the run).  Without this, the
first ``print`` after the pipe closed raised ``BrokenPipeError`` and the run was lost.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

__all__ = ["PipeGuard", "guarded_stdout"]


class PipeGuard:
    """A text stream that writes to ``stream`` until a write or flush meets a closed pipe, and
    discards everything after that (``closed_pipe`` tells whether it happened).  The stream's file
    descriptor, if any, is then pointed at the null device, so that Python's final flush at exit
    meets no closed pipe either."""

    def __init__(self, stream):
        self._stream = stream
        self.closed_pipe = False

    def write(self, text: str) -> int:
        if not self.closed_pipe:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._lost()
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self.closed_pipe:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._lost()

    def _lost(self) -> None:
        self.closed_pipe = True
        try:
            fd = self._stream.fileno()
        except (AttributeError, OSError, ValueError):  # an in-memory stream: nothing to redirect
            return
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, fd)
        finally:
            os.close(devnull)
        try:  # what the stream still buffers now goes to the null device
            self._stream.flush()
        except OSError:
            pass

    def __getattr__(self, name):  # encoding, isatty, fileno, ... of the real stream
        return getattr(self._stream, name)


@contextmanager
def guarded_stdout():
    """``sys.stdout`` is a :class:`PipeGuard` of itself inside the block (the guard is yielded); what
    it still buffers at the end is flushed through the guard."""
    real = sys.stdout
    guard = PipeGuard(real)
    sys.stdout = guard
    try:
        yield guard
    finally:
        guard.flush()
        sys.stdout = real
