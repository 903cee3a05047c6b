"""Where a run simulates and writes: the executor (in-process, a local or a running Dask cluster),
the ``--out`` and ``--journal`` checks, and the result files written as one atomic set.

Shared by the core commands and the families' own (which must not import the command line).
"""

from __future__ import annotations

import contextlib
import glob
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from mopt.core.errors import InputError
from mopt.core.interrupt import deferred_signals

__all__ = ["atomic_write", "OUTPUT_FILES", "executor", "check_out", "check_out_file", "check_journal", "progress", "write_outputs", "message"]

#: the files each command writes into --out (a journal must not be one of them)
OUTPUT_FILES = {
    "demo": ("front.csv", "evaluations.csv", "result.json", "front.png", "statics.csv", "report.html"),
    "frontier": ("front.csv", "evaluations.csv", "result.json", "front.png", "report.html"),
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


def _kind(path: Path) -> str:
    """What a path that is not a regular file is, in words."""
    import stat

    mode = path.lstat().st_mode
    for test, word in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return word
    return "not a regular file"


def _same_file(a: Path, b) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _check_parent(out: Path, option: str) -> None:
    """The nearest existing folder above ``out`` is a writable directory."""
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InputError(f"'{option}': cannot make {str(out)!r}: {str(parent)!r} is a file.")
    if not os.access(parent, os.W_OK):
        raise InputError(f"'{option}': cannot make {str(out)!r}: {str(parent)!r} is not writable.")


def check_out(out, option: str = "--out", inputs=()) -> Path:
    """Refuse an output directory that cannot be made or written, before any simulation is spent
    on it: an empty name, an existing file, device or FIFO, an unwritable place, or one of the
    run's ``inputs``. (A symbolic link to a directory is fine: files are written inside it.)

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     check_out(Path(d) / "new" / "run") == Path(d) / "new" / "run"
    True
    >>> check_out("")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: '--out' must name a directory; got ''.
    """
    if not isinstance(out, str | os.PathLike) or not os.fspath(out).strip():
        raise InputError(f"'{option}' must name a directory; got {out!r}.")
    out = Path(out)
    if any(_same_file(out, i) for i in inputs):
        raise InputError(f"'{option}' {str(out)!r} is one of the run's inputs; give another name.")
    if out.exists():
        if not out.is_dir():
            raise InputError(f"'{option}' must be a directory; {str(out)!r} is {_kind(out) if out.is_symlink() or not out.is_file() else 'a file'}.")
        if not os.access(out, os.W_OK):
            raise InputError(f"'{option}': cannot write into {str(out)!r} (permission denied).")
        return out
    if out.is_symlink():
        raise InputError(f"'{option}' {str(out)!r} is a broken symbolic link; give another name.")
    _check_parent(out, option)
    return out


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
    """Write a result's set of files (``figure``: writes ``front.png`` to the path it is given;
    ``extra``: more files, name -> writer of a path) so that a reader never takes a half-replaced
    set for a result: SIGINT and SIGTERM wait until the set is written, the old ``result.json``
    goes first and the new one, the manifest listing the sha256 of every file, comes last."""
    extra = extra or {}
    with deferred_signals():
        out.mkdir(parents=True, exist_ok=True)
        (out / "result.json").unlink(missing_ok=True)
        figure(out / "front.png")
        for name, write in extra.items():
            atomic_write(out / name, write)
        result.to_csv(out, files=["front.png", *extra])
    return [out / n for n in ("front.csv", "evaluations.csv", "result.json", "front.png", *extra)]


def atomic_write(path: str | os.PathLike, write) -> None:
    """Call ``write(tmp_path)`` and move the file into place, so a crash never leaves half a file.

    Only a regular file is ever replaced: a symbolic link, a device, a FIFO or a directory at
    ``path`` is refused (:class:`~mopt.core.errors.InputError`) before anything is written.
    """
    path = Path(path)
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise InputError(f"{str(path)!r} is {_kind(path)}, not a regular file; mopt does not replace it.")
    path.parent.mkdir(parents=True, exist_ok=True)
    _remove_orphans(path)
    # the temporary file's name carries the writer's pid: a killed writer's file can be cleaned up
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        with open(tmp, "rb+") as f:  # on disk before it replaces the old file
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _remove_orphans(path: Path) -> None:
    """Delete temporary files of ``path`` left by writers that were killed (their pid is gone)."""
    for tmp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        pid = tmp.name[len(path.name) + 2 :].split(".", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but belongs to someone else
        return True
    return True
