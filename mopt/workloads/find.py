"""Finding a trace file by name in the directory that ``MOPT_DATA_DIR`` names (:func:`find_trace`;
re-exported by :mod:`mopt.workloads.swf`)."""

from __future__ import annotations

import os
from pathlib import Path

from mopt.core.errors import InputError

__all__ = ["find_trace"]

_DATA_DIR_VAR = "MOPT_DATA_DIR"
_SUFFIXES = ("", ".swf", ".swf.gz", ".gz")


def find_trace(name: str | os.PathLike) -> Path:
    """Path of the trace file ``name`` in the directory given by ``MOPT_DATA_DIR``.

    The name is tried as given, then with ``.swf``, ``.swf.gz`` and ``.gz`` appended, first in
    ``$MOPT_DATA_DIR`` and then in ``$MOPT_DATA_DIR/traces``.

    Parameters
    ----------
    name : str or path-like
        File name of the trace, e.g. ``"KTH-SP2-1996-2.1-cln.swf.gz"`` or
        ``"KTH-SP2-1996-2.1-cln"``.

    Returns
    -------
    pathlib.Path
        The existing file.

    Raises
    ------
    InputError
        ``MOPT_DATA_DIR`` is not set, is not a directory, or holds no such file (the message
        names the variable and the paths tried).

    Examples
    --------
    >>> import os, tempfile
    >>> from unittest import mock
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, "tiny.swf"), "w").write("1 0 0 5 1" + " -1" * 13 + "\\n")
    >>> with mock.patch.dict(os.environ, {"MOPT_DATA_DIR": folder}):
    ...     print(find_trace("tiny").name)
    tiny.swf

    With ``MOPT_DATA_DIR`` pointing at the shared traces:

    >>> kth = find_trace("KTH-SP2-1996-2.1-cln")  # doctest: +SKIP
    >>> read_swf(kth, clean=True, size_limit=64).shape  # doctest: +SKIP
    (28147, 18)
    """
    folder = os.environ.get(_DATA_DIR_VAR, "")
    if not folder:
        raise InputError(
            f"the environment variable {_DATA_DIR_VAR} is not set; set it to the directory that "
            f"holds the workload traces (looking for {os.fspath(name)!r})."
        )
    root = Path(folder)
    if not root.is_dir():
        raise InputError(
            f"{_DATA_DIR_VAR}={folder!r} is not a directory (looking for {os.fspath(name)!r})."
        )
    tried = []
    for base in (root, root / "traces"):
        for suffix in _SUFFIXES:
            candidate = base / f"{os.fspath(name)}{suffix}"
            if candidate.is_file():
                return candidate
            tried.append(str(candidate))
    raise InputError(
        f"trace {os.fspath(name)!r} not found in {_DATA_DIR_VAR}={folder!r}; tried "
        + ", ".join(repr(t) for t in tried[: len(_SUFFIXES)])
        + f" and the same names under {str(root / 'traces')!r}."
    )
