"""Where a run simulates and writes: the executor (in-process, a local or a running Dask cluster),
the ``--out`` and ``--journal`` checks, and the result files written as one atomic set.

Shared by the core commands and the families' own (which must not import the command line).

An output directory is written as a whole (:func:`check_out`, then :func:`write_set`):

* **a lock** — :func:`check_out` takes ``fcntl.flock`` on ``.<name>.mopt-lock`` beside the
  directory, before anything is simulated, and holds it until the new set is in place; a second
  run on the same directory is refused at once, in one line naming the lock and the other run's
  pid (it does not wait: its set would replace the first one's anyway).  The lock file is removed
  when the lock is released;
* **a fresh sibling, swapped in** — the whole set is written into ``.<name>.mopt-<pid>-<random>``
  beside the directory (so an existing set is never touched while the new one is written, and any
  failure — a full disk, a writer raising, Ctrl-C — removes the sibling and leaves the old set as
  it was), each file and the directory fsync'ed, then swapped with the directory in one
  ``renameat2(RENAME_EXCHANGE)`` (Linux >= 3.15 on ext4, xfs, btrfs, tmpfs...): a reader sees the
  old set or the new one, never a mix, and never no directory.  Where the exchange is not
  supported, two renames (the old set aside, the new one into place) leave the directory absent for
  the instant between them, never mixed.  The old set is then deleted.  Files in the directory that
  are not part of its set (a ``--journal`` kept inside ``--out``, the user's notes) are carried
  into the new set as hard links;
* **a manifest** — every set lists its files and their sha256: ``result.json`` for a result
  (frontier, demo), ``manifest.json`` for the other commands' sets.  An existing directory is
  replaced only when it is empty or holds such a set; any other (the user's own ``front.csv``...)
  is refused before the run, naming what it holds.

A directory that holds the current working directory (``--out .``) cannot be swapped (the process
would be left in the deleted old set): it is written in place, every file first to a temporary
file, and only then renamed into place, ``result.json`` last — a failure still leaves the old set
whole, but a reader during the renames may find no manifest.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from mopt.core.errors import InputError
from mopt.core.interrupt import deferred_signals

__all__ = ["atomic_write", "OUTPUT_FILES", "MANIFEST", "executor", "check_out", "check_out_file", "check_journal",
           "progress", "write_outputs", "write_set", "replace_files", "release_locks", "message"]

#: the manifest of a set that is not a result (a result's is its ``result.json``)
MANIFEST = "manifest.json"

#: the files each command writes into --out (a journal must not be one of them)
OUTPUT_FILES = {
    "demo": ("front.csv", "evaluations.csv", "result.json", "front.png", "statics.csv", "report.html"),
    "frontier": ("front.csv", "evaluations.csv", "result.json", "front.png", "report.html"),
    "compare": ("compare.csv", "summary.csv", "progress.png", "report.html", MANIFEST),
    "vmc": ("vmc_runs.csv", "vmc_summary.csv", "vmc_throughput.png", "report.html", MANIFEST),
    "portfolio": ("portfolio.csv", "selections.csv", "portfolio.png", "report.html", MANIFEST),
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


def check_out(out, option: str = "--out", inputs=(), *, command: str | None = None, journal=None) -> Path:
    """Refuse an output directory that cannot be made or written, before any simulation is spent
    on it: an empty name, an existing file, device or FIFO, an unwritable place, or one of the
    run's ``inputs``. (A symbolic link to a directory is fine: the directory it names is replaced.)

    With ``command`` (a key of :data:`OUTPUT_FILES`), also: an existing directory must be empty or
    hold a mopt set (recognised by its manifest), in which no file the command writes is a symbolic
    link, a device or a file of the user's; its parent must be writable (the new set is written
    beside it); and the directory is locked until :func:`write_set` has swapped the new set in (or
    :func:`release_locks`).  ``journal`` (the run's ``--journal``) may lie inside it.

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


#: temporary files of :func:`atomic_write` (``.NAME.PID.RANDOM.tmp``) and folders of
#: :func:`replace_files` (``.mopt-PID-RANDOM.new``)
_TEMPORARY = re.compile(r"^\..+\.\d+\.[^.]+\.tmp$|^\.mopt-\d+-[^.]+\.new$")


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


Writer = Callable[[Path], object]


def write_outputs(result, out: Path, figure, extra: dict | None = None) -> list[Path]:
    """Write a result's set of files into ``out`` (:func:`write_set`): ``evaluations.csv``,
    ``front.csv``, ``front.png`` (``figure`` writes it to the path it is given), ``extra`` (more
    files, name -> writer of a path) and ``result.json``, the manifest listing the sha256 of every
    other file."""
    writers = {**result._writers(), "front.png": figure, **(extra or {})}
    write_set(out, writers, manifest=("result.json", result._manifest_text))
    return [out / n for n in ("front.csv", "evaluations.csv", "result.json", "front.png", *(extra or {}))]


def _default_manifest(files: dict[str, str]) -> str:
    from importlib.metadata import PackageNotFoundError, version  # not ``import mopt``: no import circle

    try:
        release = version("mopt")
    except PackageNotFoundError:  # run from a checkout that is not installed
        release = "unknown"
    return json.dumps({"mopt": release, "files": files}, indent=2)


def write_set(out, writers: dict[str, Writer], *, manifest: tuple[str, Callable[[dict], str]] | None = None,
              ) -> list[Path]:
    """Write a set of files as the whole content of the directory ``out`` (see the module
    docstring): each ``writers[name](path)`` writes one file, then the manifest (``(name,
    text(files))``, ``files`` the sha256 of each file by name; by default :data:`MANIFEST`) is
    written, and the set is swapped in for ``out`` at once.  Any failure leaves ``out`` as it was
    and nothing of the new set behind; an OSError names the file of ``out`` it was writing.  The
    lock of ``out`` (taken by :func:`check_out`) is released at the end.  Returns the files written.
    """
    out = Path(out)
    manifest = manifest or (MANIFEST, _default_manifest)
    try:
        real = _real(out)
        if _holds_cwd(real):
            return replace_files(out, writers, manifest=manifest)
        real.parent.mkdir(parents=True, exist_ok=True)
        _remove_stale(real)
        new = Path(tempfile.mkdtemp(prefix=f".{real.name}.mopt-{os.getpid()}-", suffix=".new", dir=real.parent))
        try:
            os.chmod(new, stat.S_IMODE(os.stat(real).st_mode) if real.is_dir() else 0o777 & ~_umask())
            for name, write in writers.items():
                with _naming(new, out, name):
                    write(new / name)
                    _refuse_odd(new / name, out / name)
                    _fsync(new / name)
            files = {name: _sha256(new / name) for name in writers}
            with _naming(new, out, manifest[0]):
                _write_synced(new / manifest[0], manifest[1](files).encode())
            with _naming(new, out):
                _fsync(new)
            with deferred_signals():  # the swap, whole
                if os.path.lexists(real):
                    _carry_over(real, new)
                    _swap(new, real, out)
                    old = new  # the old set, now in the sibling
                else:
                    with _naming(new, out):
                        os.rename(new, real)
                    old = None
                _fsync(real.parent)
        except BaseException:
            shutil.rmtree(new, ignore_errors=True)
            raise
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        release_locks(out, committed=True)
    finally:
        release_locks(out)
    return [out / n for n in (*writers, manifest[0])]


def replace_files(directory, writers: dict[str, Writer], *, manifest: tuple[str, Callable[[dict], str]],
                  keep=()) -> list[Path]:
    """Replace files of ``directory`` in place as one set: every file is first written into a
    private folder inside it (``.mopt-PID-RANDOM.new``; a failure leaves the old files as they
    were), then the old manifest is removed, each file renamed into place and the new manifest
    (``(name, text(files))``; it also lists ``keep``, files already there) renamed last.  Signals
    wait for the renames."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    name, text = manifest
    for n in (*writers, name):
        path = d / n
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise InputError(f"{str(path)!r} is {_kind(path)}, not a regular file; mopt does not replace it.")
    _remove_stale_inside(d)
    work = Path(tempfile.mkdtemp(prefix=f".mopt-{os.getpid()}-", suffix=".new", dir=d))
    try:
        for n, write in writers.items():
            with _naming(work, d, n):
                write(work / n)
                _refuse_odd(work / n, d / n)
                _fsync(work / n)
        files = {n: _sha256(work / n) for n in writers} | {k: _sha256(d / k) for k in keep}
        with _naming(work, d, name):
            _write_synced(work / name, text(files).encode())
        umask = _umask()
        for n in (*writers, name):
            os.chmod(work / n, 0o666 & ~umask)
        with deferred_signals():
            (d / name).unlink(missing_ok=True)  # until the new manifest is in place, no set here
            for n in (*writers, name):
                os.replace(work / n, d / n)
            _fsync(d)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return [d / n for n in (*writers, name)]


def _remove_stale_inside(d: Path) -> None:
    """Delete the private folders of :func:`replace_files` left in ``d`` by killed runs."""
    for folder in d.glob(".mopt-*-*.new"):
        pid = folder.name[len(".mopt-") :].split("-", 1)[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


def _holds_cwd(real: Path) -> bool:
    """The directory is the current working directory or holds it (it cannot be swapped)."""
    try:
        cwd = os.path.realpath(os.getcwd())
    except OSError:
        return False
    return cwd == str(real) or cwd.startswith(str(real).rstrip(os.sep) + os.sep)


@contextmanager
def _naming(root: Path, shown: Path, name: str | None = None):
    """An OSError raised within, about ``root`` or a path in it (or about no path at all), names
    ``shown`` (``shown / name`` for the file being written) instead: the file of ``--out``, not
    the temporary one.  An error about another path is left as it is."""
    try:
        yield
    except OSError as exc:
        target = shown / name if name else shown
        if exc.filename is not None:
            try:
                rel = Path(os.fsdecode(exc.filename)).relative_to(root)
            except ValueError:
                raise exc from None
            if str(rel) != "." and not _TEMPORARY.match(rel.name):
                target = shown / rel
        raise type(exc)(exc.errno, exc.strerror or str(exc), str(target)) from None


def _refuse_odd(path: Path, shown: Path) -> None:
    """A writer made something other than a regular file (a link to elsewhere...): refused."""
    if path.is_symlink() or not path.is_file():
        raise InputError(f"{str(shown)!r} was written as {_kind(path) if os.path.lexists(path) else 'nothing'}, "
                         "not a regular file.")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _carry_over(old: Path, new: Path) -> None:
    """Hard-link into ``new`` what ``old`` holds beyond its set (a journal, the user's files),
    directories as trees of links; the originals stay in ``old`` until the swap."""
    members = set_members(old) or set()
    for name in os.listdir(old):
        if name in members or os.path.lexists(new / name) or _TEMPORARY.match(name):
            continue
        source = old / name
        if source.is_dir() and not source.is_symlink():
            shutil.copytree(source, new / name, symlinks=True,
                            copy_function=lambda s, t: os.link(s, t, follow_symlinks=False))
        else:
            os.link(source, new / name, follow_symlinks=False)


_RENAME_EXCHANGE = 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap ``a`` and ``b`` in one step (Linux renameat2); False where that is not supported."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _swap(new: Path, real: Path, out: Path) -> None:
    """Put the set of ``new`` at ``real`` and the old set at ``new``."""
    try:
        if _exchange(new, real):
            return
        aside = new.with_name(new.name[: -len(".new")] + ".old")
        os.rename(real, aside)
        try:
            os.rename(new, real)
        except BaseException:
            os.rename(aside, real)
            raise
        os.rename(aside, new)
    except OSError as exc:
        raise type(exc)(exc.errno, f"{exc.strerror}; cannot swap the new set in, the old one is kept",
                        str(out)) from None


def _remove_stale(real: Path) -> None:
    """Delete the siblings of ``real`` left by runs that were killed (their pid is gone); an old
    set put aside by a run killed between its two renames (no exchange) is put back first."""
    siblings = sorted(real.parent.glob(f".{glob.escape(real.name)}.mopt-*-*"), key=lambda p: p.suffix != ".old")
    for sibling in siblings:
        pid = sibling.name[len(real.name) + 7 :].split("-", 1)[0]
        if sibling.suffix in (".new", ".old") and pid.isdigit() and not _alive(int(pid)):
            if sibling.suffix == ".old" and not os.path.lexists(real):
                with contextlib.suppress(OSError):
                    os.rename(sibling, real)
                    continue
            shutil.rmtree(sibling, ignore_errors=True)


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
