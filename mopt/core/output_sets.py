"""What an output directory of mopt is, and who may write it: the ``--out`` check of a
directory (:func:`check_out`), the lock a run holds on it until its new set is in place, and the
recognition of a mopt set by its manifest (:func:`set_members`).  The set itself is written by
:mod:`mopt.core.set_writer`.

* **a lock** — :func:`check_out` takes ``fcntl.flock`` on ``.<name>.mopt-lock`` beside the
  directory, before anything is simulated, and holds it until the new set is in place; a second
  run on the same directory is refused at once, in one line naming the lock and the other run's
  pid (it does not wait: its set would replace the first one's anyway).  The lock file is removed
  when the lock is released;
* **a manifest** — every set lists its files and their sha256: ``result.json`` for a result
  (frontier, demo), ``manifest.json`` for the other commands' sets.  An existing directory is
  replaced only when it is empty or holds such a set; any other (the user's own ``front.csv``...)
  is refused before the run, naming what it holds.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
from pathlib import Path

from mopt.core.errors import InputError

__all__ = ["MANIFEST", "OUTPUT_FILES", "check_out", "set_members", "release_locks", "manifest_with", "read_manifest"]


#: the manifest of a set that is not a result (a result's is its ``result.json``)
MANIFEST = "manifest.json"

#: the files each command writes into --out (a journal must not be one of them)
OUTPUT_FILES = {
    "demo": ("front.csv", "evaluations.csv", "result.json", "front.png", "statics.csv", "report.html"),
    "frontier": ("front.csv", "evaluations.csv", "result.json", "front.png", "report.html"),
    "compare": ("compare.csv", "summary.csv", "truth.csv", "progress.png", "report.html", MANIFEST),
    "vmc": ("vmc_runs.csv", "vmc_summary.csv", "vmc_throughput.png", "report.html", MANIFEST),
    "portfolio": ("portfolio.csv", "selections.csv", "portfolio.png", "report.html", MANIFEST),
}


#: temporary files of :func:`~mopt.core.set_writer.atomic_write` (``.NAME.PID.RANDOM.tmp``) and
#: folders of :func:`~mopt.core.set_writer.replace_files` (``.mopt-PID-RANDOM.new``)
_TEMPORARY = re.compile(r"^\..+\.\d+\.[^.]+\.tmp$|^\.mopt-\d+-[^.]+\.new$")


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


def check_out(out, option: str = "--out", inputs=(), *, command: str | None = None, journal=None) -> Path:
    """Refuse an output directory that cannot be made or written, before any simulation is spent
    on it: an empty name, an existing file, device or FIFO, an unwritable place, or one of the
    run's ``inputs``. (A symbolic link to a directory is fine: the directory it names is replaced.)

    With ``command`` (a key of :data:`OUTPUT_FILES`), also: an existing directory must be empty or
    hold a mopt set (recognised by its manifest), in which no file the command writes is a symbolic
    link, a device or a file of the user's; its parent must be writable (the new set is written
    beside it); and the directory is locked until :func:`~mopt.core.set_writer.write_set` has
    swapped the new set in (or :func:`release_locks`).  ``journal`` (the run's ``--journal``) may
    lie inside it.

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
    elif out.is_symlink():
        raise InputError(f"'{option}' {str(out)!r} is a broken symbolic link; give another name.")
    else:
        _check_parent(out, option)
    if command is not None:
        _lock(out, option)
        try:
            if out.exists():
                _check_replaceable(out, option, command, journal)
        except BaseException:
            release_locks(out)
            raise
    return out


def _real(out: Path) -> Path:
    """``out`` with every symbolic link resolved (the directory that is replaced)."""
    return Path(os.path.realpath(out))


def _check_replaceable(out: Path, option: str, command: str, journal) -> None:
    """An existing ``out`` is empty or a mopt set whose files the command may replace."""
    real = _real(out)
    if not os.access(real.parent, os.W_OK):
        raise InputError(f"'{option}': cannot replace {str(out)!r}: its parent {str(real.parent)!r} is not "
                         "writable (mopt writes the new set beside it, then swaps it in).")
    names = sorted(os.listdir(real))
    own = set(_journal_names(real, journal))
    content = [n for n in names if n not in own and not _TEMPORARY.match(n)]
    if not content:
        return
    members = set_members(real)
    if members is None:
        shown = ", ".join(content[:6]) + (f" and {len(content) - 6} more" if len(content) > 6 else "")
        raise InputError(f"'{option}' {str(out)!r} holds {shown} and is not a mopt result (no mopt manifest, "
                         f"result.json or {MANIFEST}); mopt does not replace it: give a new or empty directory.")
    for name in OUTPUT_FILES.get(command, ()):
        path = real / name
        if not os.path.lexists(path):
            continue
        if path.is_symlink() or not path.is_file():
            raise InputError(f"'{option}' {str(out)!r}: {name} is {_kind(path)}, not a regular file; mopt "
                             "does not replace it.")
        if name not in members:
            raise InputError(f"'{option}' {str(out)!r}: {name} is not a file of the mopt set there (its "
                             "manifest does not list it); mopt does not replace it. Move it, or give "
                             "another directory.")


def _journal_names(directory: Path, journal) -> list[str]:
    """The names in ``directory`` of the run's journal and of SQLite's files beside it."""
    if journal is None:
        return []
    path = Path(os.path.realpath(journal))
    if path.parent != directory:
        return []
    return [path.name, *(path.name + s for s in ("-wal", "-shm", "-journal"))]


def set_members(directory) -> set[str] | None:
    """The names of the files of the mopt set in ``directory`` (its manifest among them), or None
    when it holds none: a ``result.json`` of a result (``method``, ``seed``, ``n_evals``,
    ``objectives``; ``files``: name -> sha256) or a :data:`MANIFEST` (``mopt``; ``files``)."""
    from mopt.core.inputs import read_json

    d = Path(directory)
    for name, required in (("result.json", ("method", "seed", "n_evals", "objectives")), (MANIFEST, ("mopt", "files"))):
        path = d / name
        if path.is_symlink() or not path.is_file():
            continue
        try:
            meta = read_json(path, "mopt manifest")
        except (InputError, OSError):
            continue
        if not isinstance(meta, dict) or not all(k in meta for k in required):
            continue
        files = meta.get("files", {})
        if not isinstance(files, dict) or not all(isinstance(k, str) and "/" not in k for k in files):
            continue
        members = {name, *files}
        if name == "result.json":  # sets written before "files" was added held these
            members |= {"evaluations.csv", "front.csv", "front.png"}
        return members
    return None


def _default_manifest(files: dict[str, str], **recorded) -> str:
    from importlib.metadata import (  # not ``import mopt``: no import circle
        PackageNotFoundError,
        version,
    )

    try:
        release = version("mopt")
    except PackageNotFoundError:  # run from a checkout that is not installed
        release = "unknown"
    return json.dumps({"mopt": release, **recorded, "files": files}, indent=2, default=str)


def manifest_with(command: str, facts: dict):
    """The ``manifest=`` of :func:`~mopt.core.set_writer.write_set` for a set that also records
    the command that wrote it and the run's facts (``"command"``, ``"facts"``): what ``mopt
    report DIR`` reads to draw the set's page again.

    Examples
    --------
    >>> name, text = manifest_with("vmc", {"seeds": 2})
    >>> name, json.loads(text({"a.csv": "00"}))["facts"]
    ('manifest.json', {'seeds': 2})
    """
    return MANIFEST, lambda files: _default_manifest(files, command=command, facts=facts)


def read_manifest(directory) -> dict | None:
    """The ``manifest.json`` of the set in ``directory`` (None if it has none); an InputError
    naming the file if it is not a mopt manifest."""
    from mopt.core.inputs import read_json

    path = Path(directory) / MANIFEST
    if not path.is_file():
        return None
    doc = read_json(path, "mopt manifest")
    if not isinstance(doc, dict) or not isinstance(doc.get("files"), dict):
        raise InputError(f"'{path}': malformed mopt manifest: 'files' must map file names to sha256 digests.")
    if not isinstance(doc.get("facts", {}), dict):
        raise InputError(f"'{path}': malformed mopt manifest: 'facts' must be a table.")
    return doc


# -- the lock -----------------------------------------------------------------------------------
_LOCKS: dict[Path, tuple[int, Path, list[Path]]] = {}  # real out -> (fd, lock file, directories made)


def _lock_path(real: Path) -> Path:
    return real.parent / f".{real.name}.mopt-lock"


def _lock(out: Path, option: str) -> None:
    """Take the lock of ``out`` (no wait): refused in one line when another run holds it."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no lock
        return
    real = _real(out)
    if real in _LOCKS:
        return
    made = []
    parent = real.parent
    while not parent.exists():
        made.append(parent)
        parent = parent.parent
    real.parent.mkdir(parents=True, exist_ok=True)  # the lock lives beside the directory
    lock = _lock_path(real)
    try:
        while True:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    os.close(fd)
                    raise
                pid = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise InputError(f"'{option}' {str(out)!r} is being written by another mopt run (pid {pid}; "
                                 f"lock {str(lock)!r}); wait until it ends, or give another '{option}'.") from None
            try:  # the file may have been removed by the run that held it: lock the new one
                if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BaseException:
        for d in made:
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    _LOCKS[real] = (fd, lock, made)


def release_locks(out=None, *, committed: bool = False) -> None:
    """Release the lock of ``out`` (every lock this process holds when None), removing its file;
    the directories made for it are removed too unless the set was ``committed`` (when empty)."""
    for real in [_real(Path(out))] if out is not None else list(_LOCKS):
        held = _LOCKS.pop(real, None)
        if held is None:
            continue
        fd, lock, made = held
        with contextlib.suppress(OSError):
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                os.unlink(lock)
        os.close(fd)
        if not committed:
            for d in made:
                with contextlib.suppress(OSError):
                    d.rmdir()
