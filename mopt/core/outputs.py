"""Where a run simulates and writes: the executor (in-process, a local or a running Dask cluster),
the ``--out`` and ``--journal`` checks, and the result files written as one atomic set.

Shared by the core commands and the families' own (which must not import the command line).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from mopt.core.errors import InputError
from mopt.core.interrupt import deferred_signals

__all__ = ["OUTPUT_FILES", "executor", "check_out", "check_journal", "progress", "write_outputs", "message"]

#: the files each command writes into --out (a journal must not be one of them)
OUTPUT_FILES = {
    "demo": ("front.csv", "evaluations.csv", "result.json", "front.png", "statics.csv"),
    "frontier": ("front.csv", "evaluations.csv", "result.json", "front.png"),
    "compare": ("compare.csv", "summary.csv", "progress.png"),
}


def message(exc: BaseException) -> str:
    """An exception as one line (an OSError as ``strerror: 'filename'``).

    Examples
    --------
    >>> message(FileNotFoundError(2, "No such file or directory", "a.toml"))
    "No such file or directory: 'a.toml'"
    """
    if isinstance(exc, OSError) and exc.strerror:
        text = f"{exc.strerror}: '{exc.filename}'" if exc.filename else exc.strerror
    else:
        text = str(exc) or type(exc).__name__
    return " ".join(text.split())


@contextmanager
def executor(args):
    """None (in-process), a running Dask cluster (``--scheduler``) or a local one (``--workers``
    >= 2, one single-threaded worker process each, the cores shared between them).  Results are
    identical in every case."""
    if args.scheduler is not None and args.workers > 1:
        raise InputError("give '--scheduler' (a running Dask cluster) or '--workers' (a local one), not both.")
    if args.scheduler is None and args.workers < 2:
        yield None
        return
    import logging

    from distributed import Client

    from mopt.core.execute import local_cluster

    quiet = logging.ERROR if os.environ.get("MOPT_DEBUG") else logging.CRITICAL
    logging.getLogger("distributed").setLevel(quiet)  # mopt reports failures in one line

    if args.scheduler is not None:
        try:
            client = Client(args.scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError, TypeError) as exc:
            raise InputError(f"'--scheduler': cannot connect to a Dask scheduler at {args.scheduler!r} "
                             f"({message(exc)}).") from None
        with client:
            yield client
        return
    with local_cluster(args.workers, log_level=quiet) as client:
        yield client


def check_out(out: Path) -> Path:
    """Refuse an output directory that cannot be made, before any simulation is spent on it.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_out(Path(d) / "new" / "run") == Path(d) / "new" / "run"
    True
    """
    if out.exists():
        if not out.is_dir():
            raise InputError(f"'--out' must be a directory; {str(out)!r} is a file.")
        if not os.access(out, os.W_OK):
            raise InputError(f"'--out': cannot write into {str(out)!r} (permission denied).")
        return out
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"'--out': cannot make {str(out)!r}: {str(parent)!r} is a file.")
    if not os.access(parent, os.W_OK):
        raise InputError(f"'--out': cannot make {str(out)!r}: {str(parent)!r} is not writable.")
    return out


def check_journal(journal: str | None, out: Path, command: str) -> None:
    """Refuse a ``--journal`` that the outputs would overwrite (``--out`` itself or one of the files
    written into it): the journal would be lost at the end of the run.  Any other place, inside
    ``--out`` too, is fine."""
    if journal is None:
        return
    target = Path(journal).resolve()
    outputs = [out, *(out / name for name in OUTPUT_FILES[command])]
    for path in outputs:
        if target == path.resolve():
            what = "the output directory" if path == out else f"the output file {path.name}"
            raise InputError(f"'--journal' {journal!r} is {what} of '--out' {str(out)!r}, which the run "
                             "would overwrite; give the journal another name.")


def progress(args) -> bool:
    """A progress bar on stderr unless ``--quiet`` (updated every 10 s when stderr is not a TTY)."""
    return not args.quiet


def write_outputs(result, out: Path, figure, extra: dict | None = None) -> list[Path]:
    """Write a result's set of files (``figure``: writes ``front.png`` to the path it is given;
    ``extra``: more files, name -> writer of a path) so that a reader never takes a half-replaced
    set for a result: SIGINT and SIGTERM wait until the set is written, the old ``result.json``
    goes first and the new one, the manifest listing the sha256 of every file, comes last."""
    from mopt.core.result import atomic_write

    extra = extra or {}
    with deferred_signals():
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.json").unlink(missing_ok=True)
        figure(out / "front.png")
        for name, write in extra.items():
            atomic_write(out / name, write)
        result.to_csv(out, files=["front.png", *extra])
    return [out / n for n in ("front.csv", "evaluations.csv", "result.json", "front.png", *extra)]
