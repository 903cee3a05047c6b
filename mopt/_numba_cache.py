"""Numba's on-disk cache, kept in step with mopt's sources.

Numba reuses a cached compiled function while the file that defines it is unchanged, even when a
function it calls (and compiled into it) was changed in another file: after an upgrade or a
``git pull``, ``mopt/cloud/engine.py``'s cached loop would keep the old rules of
``mopt/cloud/policies.py``. So mopt stamps its sources (every ``.py`` file of the package: path,
size, modification time) in ``__pycache__/mopt-sources`` beside the cache, and when the stamp
differs at import, removes the package's cached index and data files (``*.nbi``, ``*.nbc``): the
simulators compile once more. Ours. A package directory that cannot be written (an install owned
by another user; numba then caches elsewhere) is left alone. A developer who edits no compiled
code may set ``MOPT_KEEP_NUMBA_CACHE=1`` to keep the cache across edits (ours; never needed by a
user, and wrong after an edit of a compiled function or of anything it calls).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["sources_stamp", "keep_cache_in_step", "needs_compilation", "say_if_compiling", "say_if_problem_compiles",
           "compile_ahead"]

ROOT = Path(__file__).resolve().parent
MARKER = ROOT / "__pycache__" / "mopt-sources"


def sources_stamp(root: Path = ROOT) -> str:
    """A digest of every source file of the package (relative path, size, mtime in ns)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def keep_cache_in_step(root: Path = ROOT, marker: Path = MARKER) -> bool:
    """Remove the package's numba cache files if the sources changed since the last stamp; return
    whether it did (never with ``MOPT_KEEP_NUMBA_CACHE=1``: module docstring)."""
    if os.environ.get("MOPT_KEEP_NUMBA_CACHE") == "1":
        return False
    try:
        stamp = sources_stamp(root)
        if marker.is_file() and marker.read_text() == stamp:
            return False
        for pattern in ("*.nbi", "*.nbc"):
            for path in root.rglob(pattern):
                path.unlink(missing_ok=True)
        marker.parent.mkdir(exist_ok=True)
        tmp = marker.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(stamp)
        tmp.replace(marker)
        return True
    except OSError:  # a read-only install: numba caches elsewhere
        return False


def needs_compilation(*kernels) -> bool:
    """Whether any of the numba dispatchers ``kernels`` (``cache=True``) has no cache index yet, so
    that its first call compiles it; False on a numba without those internals (nothing is said)."""
    try:
        paths = [kernel._cache._cache_file._index_path for kernel in kernels]
    except AttributeError:
        return False
    return not all(os.path.exists(path) for path in paths)


_SAID: set[str] = set()


def say_if_compiling(what: str, *kernels, quiet: bool = False) -> bool:
    """Say once per process, on stderr, that ``what`` compiles on first use when any of
    ``kernels`` has no cache yet (a first run sits tens of seconds at "0%" otherwise: issue #36);
    returns whether it said so.  Said to a person at a terminal only: not with ``quiet``, not when
    stderr is a file or a pipe (where the progress bars still write a line every 10 s, for a log;
    this line would only make the outputs of two runs differ)."""
    import sys

    if quiet or not sys.stderr.isatty() or what in _SAID or not needs_compilation(*kernels):
        return False
    _SAID.add(what)
    print(f"mopt: compiling {what} on first use (once per install; later runs load it from numba's "
          "cache)...", file=sys.stderr, flush=True)
    return True


def say_if_problem_compiles(problem, *, quiet: bool = False) -> bool:
    """:func:`say_if_compiling` for the kernels a problem runs (its ``kernels()``; a problem
    without them, or without that method, says nothing): what ``mopt frontier`` and ``mopt
    compare`` say before a first run of any family."""
    kernels = getattr(problem, "kernels", None)
    found = tuple(kernels()) if callable(kernels) else ()
    return bool(found) and say_if_compiling("the simulator", *found, quiet=quiet)


_AHEAD: dict[str, object] = {}
#: what a process compiles while it waits for a background compilation, so that the wait is not
#: idle: kernels every run needs next (a result's uncertainty), each ``"package.module:function"``
#: (a function that compiles them if they have no cache; ours)
WHILE_WAITING = ("mopt.core.uncertainty:warm_kernels",)


class _Ahead:
    """The background compilation of one target (``wait()`` blocks until it has ended; a second
    ``wait()`` returns at once)."""

    def __init__(self, process=None):
        self.process = process

    def wait(self) -> bool:
        """Wait for the background process; whether it compiled (False also when none ran)."""
        process, self.process = self.process, None
        if process is None:
            return False
        try:
            for target in WHILE_WAITING:
                if process.poll() is None:
                    _call(target)
            return process.wait() == 0
        except BaseException:  # Ctrl-C while waiting: the compilation ends with the run
            process.kill()
            process.wait()
            raise


def target_function(target: str):
    """The function ``"package.module:function"`` names (imported)."""
    import importlib

    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _call(target: str) -> None:
    """Call ``target`` (:func:`target_function`); a failure is left to the run's own first call."""
    try:
        target_function(target)()
    except Exception:  # noqa: BLE001 - only time depends on it
        pass


def compile_ahead(target: str, *kernels) -> _Ahead:
    """Compile the numba ``kernels`` in a background process while this one goes on, when any of
    them has no cache yet: ``target`` (``"package.module:function"``) names a function of no
    arguments that calls them with arguments of the types a run will pass. The caller goes on (e.g.
    compiling the kernels it needs first) and calls ``.wait()`` before its first call of
    ``kernels``, which then load from numba's cache. On a 2-core machine, the first ExPERT run
    compiles its throughput kernel here and its tail kernel there: 13.7 s -> 9.3 s for the first
    ``mopt demo`` (ours).

    One process per target and process; none with ``MOPT_COMPILE_AHEAD=0``, when the kernels are
    cached, or when no process can be started. Nothing depends on it but time: if it fails or is
    killed, the first call compiles as before.
    """
    import subprocess
    import sys

    ahead = _AHEAD.get(target)
    if isinstance(ahead, _Ahead) and ahead.process is not None and ahead.process.poll() is None:
        return ahead
    if os.environ.get("MOPT_COMPILE_AHEAD") == "0" or not sys.executable or not needs_compilation(*kernels):
        return _Ahead()
    env = {**os.environ, "MOPT_COMPILE_AHEAD": "0"}  # its own runs start no further process
    try:
        process = subprocess.Popen([sys.executable, "-m", "mopt._ahead", target, str(os.getpid())],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=env, close_fds=True)
    except OSError:
        return _Ahead()
    _AHEAD[target] = ahead = _Ahead(process)
    return ahead


keep_cache_in_step()
