"""Files written so that a reader never finds half of them: a set of files swapped in as the whole
content of an output directory (:func:`write_set`), files of a directory replaced in place as one
set (:func:`replace_files`), one file replaced atomically (:func:`atomic_write`).  The directory is
checked and locked first (:func:`mopt.core.output_sets.check_out`).

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
import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from mopt.core.errors import InputError
from mopt.core.interrupt import deferred_signals
from mopt.core.output_sets import (
    _TEMPORARY,
    MANIFEST,
    _default_manifest,
    _kind,
    _real,
    release_locks,
    set_members,
)

__all__ = ["Writer", "write_set", "replace_files", "atomic_write", "set_identity"]


Writer = Callable[[Path], object]


def write_set(out, writers: dict[str, Writer], *, manifest: tuple[str, Callable[[dict], str]] | None = None,
              ) -> list[Path]:
    """Write a set of files as the whole content of the directory ``out`` (see the module
    docstring): each ``writers[name](path)`` writes one file, then the manifest (``(name,
    text(files))``, ``files`` the sha256 of each file by name; by default :data:`MANIFEST`) is
    written, and the set is swapped in for ``out`` at once.  Any failure leaves ``out`` as it was
    and nothing of the new set behind; an OSError names the file of ``out`` it was writing.  The
    lock of ``out`` (taken by :func:`~mopt.core.output_sets.check_out`) is released at the end.
    Returns the files written.
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


def set_identity(d: Path):
    """Which set ``d`` holds now: the device, inode and change time of the directory (a set
    swapped in) and of its ``result.json`` and ``evaluations.csv`` (a set replaced in place
    renames new files in, which may reuse the inodes of the files they replace); None for what is
    absent."""
    def inode(path):
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_size)

    return inode(d), inode(d / "result.json"), inode(d / "evaluations.csv")
