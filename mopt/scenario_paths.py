"""Files a scenario file names: paths relative to the scenario file (outside it only within
``MOPT_DATA_DIR``) and trace names or files."""

from __future__ import annotations

import os
from pathlib import Path

from mopt.core.errors import InputError

__all__ = ["DATA_DIR_VAR", "scenario_path", "scenario_trace"]


#: the environment variable naming a directory whose files a scenario may name by any path
DATA_DIR_VAR = "MOPT_DATA_DIR"


def _inside(target: Path, folder: Path) -> bool:
    try:
        return Path(os.path.realpath(target)).is_relative_to(os.path.realpath(folder))
    except (OSError, ValueError):
        return False


def scenario_path(path: Path, key: str, value) -> Path:
    """The file a scenario key names: ``value`` relative to the scenario file's directory.

    An absolute path, or one whose ``..`` leaves that directory, is refused (a scenario from
    elsewhere must not read ``/etc/passwd``) unless the file lies in the directory that the
    environment variable ``MOPT_DATA_DIR`` names: the user's own say-so, outside the file.  Call it
    under :func:`where` (the messages name the key, not the file's content).

    Examples
    --------
    >>> scenario_path(Path("runs/s.toml"), "file", "log.csv")
    PosixPath('runs/log.csv')
    >>> scenario_path(Path("runs/s.toml"), "file", "../../etc/passwd")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'file' '../../etc/passwd' leaves the scenario's directory ('..'); ...
    """
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"'{key}' must be a path (string) relative to the scenario file; got {value!r}.")
    if "\0" in value:
        raise InputError(f"'{key}' must be a path without NUL characters; got {value!r}.")
    target = Path(path).parent / value
    norm = os.path.normpath(value)
    absolute = os.path.isabs(value)
    if absolute or norm == os.pardir or norm.startswith(os.pardir + os.sep):
        folder = os.environ.get(DATA_DIR_VAR, "")
        if folder and os.path.isdir(folder) and _inside(target, Path(folder)):
            return target
        raise InputError(
            f"'{key}' {value!r} leaves the scenario's directory ({'an absolute path' if absolute else repr(os.pardir)}); "
            f"give a path relative to the scenario file, or put the file in the directory {DATA_DIR_VAR} names."
        )
    return target


def scenario_trace(path: Path, key: str, name):
    """The trace a scenario key names: an archive name (returned as given), a trace file beside
    the scenario (:func:`scenario_path`'s rules; its path returned), or a file name in
    ``MOPT_DATA_DIR`` (its path returned).  Never a file outside those places."""
    from mopt.workloads.swf import find_trace
    from mopt.workloads.traces import TRACES, archive_name

    if not isinstance(name, str) or not name.strip():
        raise InputError(f"'{key}' must be a trace name or file; got {name!r}.")
    if archive_name(name) is not None:
        return name
    local = scenario_path(path, key, name)
    if local.exists() or local.is_symlink():
        return local
    if os.environ.get(DATA_DIR_VAR) and len(Path(name).parts) == 1:
        try:
            found = find_trace(name)
        except InputError:
            pass
        else:  # the name as given (as the problem records it), unless the working directory has one too
            return found if os.path.lexists(name) else name
    from mopt.core.names import suggest

    raise InputError(f"'{key}' must be an archive name ({', '.join(TRACES)}), a trace file beside the scenario "
                     f"file or a file name in {DATA_DIR_VAR}; got {name!r}{suggest(name, list(TRACES)) or '.'}")
