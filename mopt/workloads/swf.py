"""Standard Workload Format (SWF) traces of the Parallel Workloads Archive.

An SWF file holds one job per line as 18 whitespace-separated numbers; lines whose first non-blank
character is ``;`` are comments, and the header comments read ``; Key: value``. :func:`read_swf`
turns a file (plain or gzip-compressed) into a DataFrame with the columns :data:`SWF_COLUMNS`, and
:func:`find_trace` finds a trace by file name in the directory named by ``MOPT_DATA_DIR``.

Reading is one :func:`pandas.read_csv` call over the whole file. The text is first checked with a
byte table (a data line may only hold digits, ``+-.eE``, spaces and tabs before any ``;``); if that
check or the parse fails, the file is scanned again line by line in Python, which is the reference
grammar, so that the error names the file, the 1-based line and what is wrong with it.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int
from mopt.core.inputs import check_lines, read_bytes

__all__ = ["SWF_COLUMNS", "find_trace", "read_swf"]

#: the 18 SWF fields in file order (SWF 2.2 field names, in snake case)
SWF_COLUMNS = (
    "job_id", "submit_time", "wait_time", "run_time", "n_procs", "avg_cpu_time", "used_memory",
    "req_procs", "req_time", "req_memory", "status", "user_id", "group_id", "executable", "queue",
    "partition", "preceding_job", "think_time",
)  # fmt: skip
_N_FIELDS = len(SWF_COLUMNS)
#: always float64: archives record fractional average CPU seconds (SDSC-SP2, SDSC-BLUE, CTC-SP2)
_FLOAT_COLUMNS = frozenset({"avg_cpu_time"})
_DATA_DIR_VAR = "MOPT_DATA_DIR"
_SUFFIXES = ("", ".swf", ".swf.gz", ".gz")

#: one SWF number: a plain decimal, optionally signed, with an optional exponent (ASCII only)
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER_RE = re.compile(_NUMBER)
#: a whole record; atomic groups, so a bad line fails in linear time (no backtracking)
_RECORD_RE = re.compile(rf"[ \t]*+(?>{_NUMBER}[ \t]++){{{_N_FIELDS - 1}}}(?>{_NUMBER})[ \t]*+")
_NOT_FINITE = {"nan", "inf", "infinity"}
#: ``Key: value`` of a header comment; ``Key`` is one word, so ``http://...`` is not a key
_HEADER_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[ \t]*:(?:[ \t]+(.*))?")
#: bytes that may appear in the data part of a line (before any ``;``) on the fast path
_DATA_BYTES = np.zeros(256, dtype=bool)
_DATA_BYTES[list(b"0123456789+-.eE \t\n")] = True


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


def read_swf(
    path: str | os.PathLike,
    *,
    clean: bool = False,
    max_procs: int | None = None,
    size_limit: int | None = None,
) -> pd.DataFrame:
    """Read a Standard Workload Format trace into a DataFrame, one row per job record.

    Parameters
    ----------
    path : str or path-like
        SWF file, plain text or gzip-compressed (recognised by its content, whatever the suffix).
        The text must be UTF-8; ``\\r\\n`` and lone ``\\r`` line ends are accepted.  Non-regular
        files (a FIFO, a device) are refused; the size after gunzip and the line length are
        bounded by ``MOPT_MAX_INPUT_BYTES`` and ``MOPT_MAX_LINE_BYTES`` (see :mod:`mopt.core.inputs`).
    clean : bool, default False
        Drop the jobs the papers drop (SC13, KOALA-C): run time <= 0, <= 0 processors, or more
        processors than the machine had (``max_procs``, else the header's ``MaxProcs``; with
        neither, or a ``MaxProcs`` <= 0, no upper bound is applied).
    max_procs : int, optional
        Machine size used by ``clean`` instead of the header's ``MaxProcs``; needs ``clean=True``.
    size_limit : int, optional
        Keep only jobs with ``n_procs <= size_limit`` (64 in SC13, 32 in KOALA-C); applied after
        ``clean`` and on its own.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`SWF_COLUMNS` in file order, rows in file order with a fresh
        ``RangeIndex``. Missing values stay ``-1`` as in the file, so every column is int64 except
        ``avg_cpu_time`` (always float64) and any column holding a fractional value (float64).
        ``df.attrs`` holds ``"header"``: a dict ``{key: value}`` of the ``; Key: value`` comment
        lines, values as stripped strings; a repeated key (``Note``, ``Queue``, ...) keeps all its
        values joined by ``"\\n"`` in file order, and a comment line without a key continues the
        previous key's value on a new line (a blank ``;`` line or a non-comment line ends it). Also ``"source"`` (the
        path as given) and ``"n_records"`` (records in the file, before cleaning).

    Raises
    ------
    InputError
        The file is missing or unreadable, is empty or holds no records, is not UTF-8 text, is a
        truncated or corrupt gzip file, or a record is malformed: not 18 fields, a field that is
        not a number, or one that is not finite (``nan``, ``inf``, ``1e999``, or a plain number of
        over 308 digits).  Also a file that is not a regular file or exceeds a size limit. The message names
        the file and, for a problem inside it, the 1-based line, e.g.
        ``trace.swf, line 27: expected 18 fields, got 17.``
        Also bad keywords, and a header ``MaxProcs`` that is not an integer when ``clean`` uses it.

    Notes
    -----
    Text after a ``;`` on a data line is a comment too (as in :func:`pandas.read_csv`); fields
    are separated by spaces and tabs only. Use ``df.replace(-1, np.nan)`` for NaN-coded missing
    values.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.swf"
    >>> _ = path.write_text(
    ...     "; MaxProcs: 4\\n"
    ...     "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1\\n"
    ...     "2 5 0 -1 8 -1 -1 8 120 -1 0 2 1 -1 1 -1 -1 -1\\n"
    ... )
    >>> df = read_swf(path)
    >>> df[["job_id", "wait_time", "run_time", "n_procs"]].to_numpy().tolist()
    [[1, 3, 60, 2], [2, 0, -1, 8]]
    >>> df.attrs["header"]["MaxProcs"], len(read_swf(path, clean=True))
    ('4', 1)
    """
    name = os.fspath(path)
    if not isinstance(clean, bool):
        raise InputError(f"'clean' must be True or False; got {clean!r}.")
    if max_procs is not None:
        max_procs = check_int("max_procs", max_procs, low=1)
        if not clean:
            raise InputError(
                f"'max_procs' applies only with clean=True; got max_procs={max_procs}."
            )
    if size_limit is not None:
        size_limit = check_int("size_limit", size_limit, low=1)

    raw = _read_bytes(name)
    text = _decode(raw, name)
    header, header_lines = _parse_header(text)
    values = _parse_fast(raw)
    if values is None:
        values = _parse_slow(text, name)
    if len(values) == 0:
        what = "the file is empty" if not raw else "only comment or blank lines"
        raise InputError(f"{name}: no job records ({what}).")

    _check_whole(values, text, name)
    df = _to_frame(values)
    n_records = len(df)
    if clean:
        if max_procs is None:
            max_procs = _header_int(header, header_lines, "MaxProcs", name)
        keep = (df["run_time"] > 0) & (df["n_procs"] > 0)
        if max_procs is not None and max_procs > 0:
            keep &= df["n_procs"] <= max_procs
        df = df[keep]
    if size_limit is not None:
        df = df[df["n_procs"] <= size_limit]
    df = df.reset_index(drop=True)
    df.attrs = {"header": header, "source": name, "n_records": n_records}
    return df


# -- bytes and text --------------------------------------------------------------------------------
def _read_bytes(name: str) -> bytes:
    """The file's bytes, gunzipped if they start with the gzip magic, with ``\\r\\n`` and a lone
    ``\\r`` (old Mac line ends) -> ``\\n``; size and line length bounded (:mod:`mopt.core.inputs`)."""
    path = Path(name)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"SWF trace not found: {name!r}.")
    if path.is_dir():
        raise InputError(f"{name!r} is a directory, not an SWF trace.")
    raw = read_bytes(name, "SWF trace", gunzip=True)
    if raw[:3] == b"\xef\xbb\xbf":  # UTF-8 byte-order mark
        raw = raw[3:]
    if b"\r" in raw:
        raw = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    check_lines(raw, "SWF trace", name)
    return raw


def _decode(raw: bytes, name: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = raw.rfind(b"\n", 0, err.start) + 1
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(
            f"{name}, line {line}: not UTF-8 text (byte {raw[err.start]:#04x} at column "
            f"{err.start - line_start + 1}); is this a binary file?"
        ) from None


# -- header ----------------------------------------------------------------------------------------
def _parse_header(text: str) -> tuple[dict[str, str], dict[str, int]]:
    """``({key: value}, {key: line of its first occurrence})`` of the full-line comments."""
    header: dict[str, str] = {}
    first_line: dict[str, int] = {}
    key = None
    line, counted, previous = 1, 0, 0
    pos = text.find(";")
    while pos >= 0:
        start = text.rfind("\n", 0, pos) + 1
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line += text.count("\n", counted, start)
        counted = start
        if text[start:pos].strip(" \t"):  # a comment after data: not header
            pos = text.find(";", end)
            continue
        content = text[pos + 1 : end].strip()
        if line != previous + 1:  # continuation lines follow their key directly
            key = None
        previous = line
        match = _HEADER_RE.fullmatch(content)
        if match:
            key, value = match.group(1), (match.group(2) or "").strip()
            if key in header:
                header[key] += "\n" + value
            else:
                header[key], first_line[key] = value, line
        elif not content:
            key = None
        elif key is not None:  # a continuation line such as ";     http://..."
            header[key] += "\n" + content
        pos = text.find(";", end)
    return header, first_line


def _header_int(header: dict[str, str], lines: dict[str, int], key: str, name: str) -> int | None:
    if key not in header:
        return None
    value = header[key]
    token = value.split()[0] if value.split() else ""
    try:
        return int(token)
    except ValueError:
        raise InputError(
            f"{name}, line {lines[key]}: header {key!r} must be an integer; got {value!r}."
        ) from None


# -- records ---------------------------------------------------------------------------------------
def _parse_fast(raw: bytes) -> np.ndarray | None:
    """All records as an (n, 18) float array, or None if anything looks wrong."""
    arr = np.frombuffer(raw, dtype=np.uint8)
    odd = np.flatnonzero(~_DATA_BYTES[arr])
    if odd.size:  # every byte outside the data alphabet must lie in a comment (after a ';')
        line_starts = np.concatenate(([0], np.flatnonzero(arr == ord("\n")) + 1))
        semis = np.append(np.flatnonzero(arr == ord(";")), arr.size)
        starts = line_starts[np.searchsorted(line_starts, odd, side="right") - 1]
        if not (semis[np.searchsorted(semis, starts)] <= odd).all():
            return None
    try:
        frame = pd.read_csv(
            io.BytesIO(raw), sep=r"\s+", header=None, comment=";", dtype=np.float64,
            quoting=csv.QUOTE_NONE, engine="c",
        )  # fmt: skip
    except (ValueError, OverflowError):  # ParserError and EmptyDataError are ValueErrors
        return None
    values = frame.to_numpy(dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != _N_FIELDS:
        return None
    values = values[~np.isnan(values).all(axis=1)]  # indented comment lines read as empty rows
    if not np.isfinite(values).all():
        return None
    return values


def _parse_slow(text: str, name: str) -> np.ndarray:
    """All records, checked line by line; raises at the first malformed line."""
    records = []
    for line, content in enumerate(text.split("\n"), start=1):
        data = content.partition(";")[0]
        if _RECORD_RE.fullmatch(data):
            # an exponent or a long plain number (over 308 digits) overflows to inf
            if all(math.isfinite(float(t)) for t in data.split()):
                records.append(data)
                continue
        elif not data.strip(" \t"):
            continue
        _raise_bad_record(data, f"{name}, line {line}")
    if not records:
        return np.empty((0, _N_FIELDS))
    # every kept line is now plain numbers: read_csv converts them as the fast path would
    frame = pd.read_csv(
        io.StringIO("\n".join(records)), sep=r"\s+", header=None, dtype=np.float64, engine="c"
    )
    return frame.to_numpy(dtype=np.float64)


def _raise_bad_record(data: str, where: str) -> None:
    """Say what is wrong with the data part of a line that is not a valid record."""
    tokens = [t for t in re.split(r"[ \t]+", data) if t]
    if len(tokens) != _N_FIELDS:
        raise InputError(f"{where}: expected {_N_FIELDS} fields, got {len(tokens)}.")
    for i, (column, token) in enumerate(zip(SWF_COLUMNS, tokens, strict=True), start=1):
        shown = repr(token) if len(token) <= 40 else repr(token[:37]) + "..."
        field = f"{where}: field {i} ({column!r})"
        if token.lstrip("+-").lower() in _NOT_FINITE:
            raise InputError(f"{field} must be a finite number; got {shown}.")
        if not _NUMBER_RE.fullmatch(token):
            raise InputError(f"{field} is not a number: {shown}.")
        if not math.isfinite(float(token)):
            raise InputError(f"{field} is out of range: {shown}.")
    raise AssertionError(f"{where}: no fault found in {data!r}")  # unreachable: _RECORD_RE failed


#: fields that count things (processors): a fraction there is a malformed record, not a value
_WHOLE_COLUMNS = ("n_procs", "req_procs")
#: largest time (s) a trace may hold, about 31,700 years: far below where float64 loses whole
#: seconds; every simulator reads traces through here (the cloud simulator's bound too)
MAX_TIME = 1e12
_TIME_COLUMNS = ("submit_time", "wait_time", "run_time", "req_time")


def _check_whole(values: np.ndarray, text: str, name: str) -> None:
    """Refuse a fractional processor count (SWF fields 5 and 8 are integers) and a time beyond
    :data:`MAX_TIME`, naming the line."""
    for column in _TIME_COLUMNS:
        j = SWF_COLUMNS.index(column)
        bad = np.flatnonzero(np.abs(values[:, j]) > MAX_TIME)
        if bad.size:
            line = _record_line(text, int(bad[0]))
            raise InputError(f"{name}, line {line}: field {j + 1} ({column!r}) must be at most {MAX_TIME:.0e} s; "
                             f"got {values[bad[0], j]:g}.")
    for column in _WHOLE_COLUMNS:
        j = SWF_COLUMNS.index(column)
        bad = np.flatnonzero(values[:, j] != np.trunc(values[:, j]))
        if bad.size:
            line = _record_line(text, int(bad[0]))
            raise InputError(f"{name}, line {line}: field {j + 1} ({column!r}) must be a whole number of "
                             f"processors; got {values[bad[0], j]:g}.")


def _record_line(text: str, k: int) -> int:
    """The line number (from 1) of the ``k``-th record (from 0) of ``text``."""
    seen = -1
    for line, content in enumerate(text.split("\n"), start=1):
        if content.partition(";")[0].strip(" \t"):
            seen += 1
            if seen == k:
                return line
    return 0


def _to_frame(values: np.ndarray) -> pd.DataFrame:
    """Columns whose values are all whole numbers (and exact in float64) become int64."""
    columns = {}
    for j, column in enumerate(SWF_COLUMNS):
        col = values[:, j]
        whole = column not in _FLOAT_COLUMNS and bool(
            ((col == np.trunc(col)) & (np.abs(col) <= 2**53)).all()
        )
        columns[column] = col.astype(np.int64) if whole else col
    return pd.DataFrame(columns)
