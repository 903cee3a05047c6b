"""Where a run simulates and writes: the executor (in-process, a local or a running Dask cluster),
the ``--out`` and ``--journal`` checks, and the result files written as one atomic set.

Shared by the core commands and the families' own (which must not import the command line).

An output directory is written as a whole: checked and locked before the run
(:func:`~mopt.core.output_sets.check_out`, :mod:`mopt.core.output_sets`: the lock, the manifest
that makes a directory a mopt set), then written into a fresh sibling and swapped in
(:func:`~mopt.core.set_writer.write_set`, :mod:`mopt.core.set_writer`).  Both are re-exported
here.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path

from mopt.core.errors import InputError
from mopt.core.output_sets import (
    MANIFEST,
    OUTPUT_FILES,
    _check_parent,
    _kind,
    _same_file,
    check_out,
    release_locks,
    set_members,
)
from mopt.core.set_writer import Writer, atomic_write, replace_files, write_set

__all__ = ["atomic_write", "OUTPUT_FILES", "MANIFEST", "executor", "check_out", "check_out_file", "check_journal",
           "progress", "write_outputs", "write_set", "replace_files", "release_locks", "message", "set_members", "Writer"]


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


def check_out_file(out, option: str = "--out", inputs=()) -> Path:
    """Refuse an output file that mopt must not (re)place, before the run: an empty name, a
    directory, a device, a FIFO, a symbolic link, one of the run's ``inputs``, or an unwritable
    place. An existing regular file is replaced atomically at the end of the run.

    Examples
    --------
    >>> check_out_file("/dev/null")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: '--out' '/dev/null' is a character device, not a regular file; mopt does not replace it.
    """
    if not isinstance(out, str | os.PathLike) or not os.fspath(out).strip():
        raise InputError(f"'{option}' must name a file; got {out!r}.")
    out = Path(out)
    if any(_same_file(out, i) for i in inputs):
        raise InputError(f"'{option}' {str(out)!r} is one of the run's inputs; give another name.")
    if out.is_symlink() or (out.exists() and not out.is_file()):
        raise InputError(f"'{option}' {str(out)!r} is {_kind(out)}, not a regular file; mopt does not replace it.")
    _check_parent(out, option)
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
    """Write a result's set of files into ``out`` (:func:`write_set`): ``evaluations.csv``,
    ``front.csv``, ``front.png`` (``figure`` writes it to the path it is given), ``extra`` (more
    files, name -> writer of a path) and ``result.json``, the manifest listing the sha256 of every
    other file."""
    writers = {**result._writers(), "front.png": figure, **(extra or {})}
    write_set(out, writers, manifest=("result.json", result._manifest_text))
    return [out / n for n in ("front.csv", "evaluations.csv", "result.json", "front.png", *(extra or {}))]
