"""Standard Workload Format (SWF) traces of the Parallel Workloads Archive.

An SWF file holds one job per line as 18 whitespace-separated numbers; lines whose first non-blank
character is ``;`` are comments, and the header comments read ``; Key: value``. :func:`read_swf`
turns a file (plain or gzip-compressed) into a DataFrame with the columns :data:`SWF_COLUMNS`, and
:func:`find_trace` finds a trace by file name in the directory named by ``MOPT_DATA_DIR``.

Reading streams: the file is gunzipped and parsed in blocks of 2 MiB of text that end at a line end,
one :func:`pandas.read_csv` call a block, and only the jobs are kept (per column), so the peak memory
is the jobs' frame (144 bytes a job), about once more while it is assembled, and a few times the
block (ours: ~60 MiB above the interpreter whatever the file's blank or comment lines; measured in
``tests/workloads/test_swf_memory.py``).  Each block is first checked with a
byte table (a data line may only hold digits, ``+-.eE``, spaces and tabs before any ``;``); if that
check or the parse fails, the block is scanned again line by line in Python, which is the reference
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
from mopt.core.inputs import check_lines, iter_bytes, limit
from mopt.workloads.find import find_trace

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

#: one SWF number: a plain decimal, optionally signed, with an optional exponent (ASCII only)
_NUMBER = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
_NUMBER_RE = re.compile(_NUMBER)
#: a whole record; atomic groups, so a bad line fails in linear time (no backtracking)
_RECORD_RE = re.compile(rf"[ \t]*+(?>{_NUMBER}[ \t]++){{{_N_FIELDS - 1}}}(?>{_NUMBER})[ \t]*+")
_NOT_FINITE = {"nan", "inf", "infinity"}
#: ``Key: value`` of a header comment; ``Key`` is one word, so ``http://...`` is not a key
_HEADER_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)[ \t]*:(?:[ \t]+(.*))?")
#: a full-line comment (only blanks before its ``;``) holding more than blanks: its text
_COMMENT_RE = re.compile(r"(?m)^[ \t]*;(?=[^\n]*\S)([^\n]*)")
#: bytes that may appear in the data part of a line (before any ``;``) on the fast path
_DATA_BYTES = np.zeros(256, dtype=bool)
_DATA_BYTES[list(b"0123456789+-.eE \t\n")] = True
_BLANK_BYTES = np.zeros(256, dtype=bool)
_BLANK_BYTES[list(b" \t\n")] = True


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

    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    state = {"key": None, "previous": 0}
    pieces: list[list[np.ndarray]] = [[] for _ in SWF_COLUMNS]  # each column's kept values, per block
    whole = np.ones(_N_FIELDS, dtype=bool)  # columns whose values (all records) are all whole
    n_records = n_bytes = n_kept = 0
    for first_line, block in _blocks(name):
        n_bytes += len(block)
        text = _decode(block, name, first_line)
        _parse_header(text, header, header_lines, state, first_line)
        values = _parse_fast(block)
        if values is None:
            values = _parse_slow(text, name, first_line)
        del block
        if not len(values):
            continue
        _check_whole(values, text, name, first_line)
        del text
        n_records += len(values)
        whole &= ((values == np.trunc(values)) & (np.abs(values) <= 2**53)).all(axis=0)
        keep = np.ones(len(values), dtype=bool)
        if clean:  # MaxProcs (from the header, which may come later) is applied at the end
            keep &= (values[:, _RUN] > 0) & (values[:, _PROCS] > 0)
        if size_limit is not None:
            keep &= values[:, _PROCS] <= size_limit
        if not keep.all():
            values = values[keep]
        n_kept += len(values)
        for j in range(_N_FIELDS):
            pieces[j].append(values[:, j].copy())
        del values, keep
    if n_records == 0:
        what = "the file is empty" if not n_bytes else "only comment or blank lines"
        raise InputError(f"{name}: no job records ({what}).")
    if clean and max_procs is None:
        max_procs = _header_int(header, header_lines, "MaxProcs", name)
    df = _to_frame(pieces, whole, n_kept)
    if clean and max_procs is not None and max_procs > 0:
        keep = (df["n_procs"] <= max_procs).to_numpy()
        if not keep.all():
            df = df[keep].reset_index(drop=True)
    df.attrs = {"header": header, "source": name, "n_records": n_records}
    return df


# -- bytes and text --------------------------------------------------------------------------------
#: bytes of text parsed at a time: the reader holds a few times this beyond the jobs it keeps
_BLOCK = 2 * 2**20
_RUN, _PROCS = SWF_COLUMNS.index("run_time"), SWF_COLUMNS.index("n_procs")


def _blocks(name: str):
    """``(number of its first line, bytes)`` of the file in blocks of about :data:`_BLOCK` bytes
    that end at a line end (the last one perhaps not), gunzipped if the data starts with the gzip
    magic, a byte-order mark dropped, ``\\r\\n`` and a lone ``\\r`` (old Mac line ends) -> ``\\n``;
    size and line length bounded (:mod:`mopt.core.inputs`) as they stream."""
    path = Path(name)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"SWF trace not found: {name!r}.")
    if path.is_dir():
        raise InputError(f"{name!r} is a directory, not an SWF trace.")
    cap = limit("line_bytes")
    pending, line, first, cr = b"", 1, True, False
    pieces = iter_bytes(name, "SWF trace", gunzip=True, chunk=_BLOCK)
    ahead = next(pieces, None)  # one piece ahead: whether a line without an end is the file's last
    while ahead is not None:
        piece, ahead = ahead, next(pieces, None)
        if first and len(pending) + len(piece) < 3:
            pending += piece
            continue
        if first:
            piece, pending, first = pending + piece, b"", False
            if piece[:3] == b"\xef\xbb\xbf":  # UTF-8 byte-order mark
                piece = piece[3:]
        if cr and piece[:1] == b"\n":  # the \n of a \r\n cut between two pieces
            piece = piece[1:]
        if b"\r" in piece:
            cr = piece.endswith(b"\r")
            piece = piece.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        else:
            cr = False
        cut = piece.rfind(b"\n") + 1
        if not cut:
            pending += piece
            if len(pending) > cap:
                check_lines(pending, "SWF trace", name, first_line=line, complete=ahead is None)
            continue
        block, pending = pending + piece[:cut], piece[cut:]
        del piece
        check_lines(block, "SWF trace", name, first_line=line)
        yield line, block
        line += block.count(b"\n")
        del block
    if first and pending[:3] == b"\xef\xbb\xbf":
        pending = pending[3:]
    if pending:
        check_lines(pending, "SWF trace", name, first_line=line)
        yield line, pending


def _read_bytes(name: str) -> bytes:
    """The whole normalised text of the file at once (for tests; :func:`read_swf` streams)."""
    return b"".join(block for _, block in _blocks(name))


def _decode(raw: bytes, name: str, first_line: int = 1) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line_start = raw.rfind(b"\n", 0, err.start) + 1
        line = first_line + raw.count(b"\n", 0, err.start)
        raise InputError(
            f"{name}, line {line}: not UTF-8 text (byte {raw[err.start]:#04x} at column "
            f"{err.start - line_start + 1}); is this a binary file?"
        ) from None


# -- header ----------------------------------------------------------------------------------------
def _parse_header(text: str, header: dict[str, str] | None = None, first_line: dict[str, int] | None = None,
                  state: dict | None = None, line: int = 1) -> tuple[dict[str, str], dict[str, int]]:
    """``({key: value}, {key: line of its first occurrence})`` of the full-line comments of
    ``text`` (whose first line is ``line``), added to ``header`` and ``first_line``; ``state``
    carries an open key from one block of a file to the next."""
    header = {} if header is None else header
    first_line = {} if first_line is None else first_line
    state = {"key": None, "previous": 0} if state is None else state
    key, previous = state["key"], state["previous"]
    counted = 0
    # only the comment lines with content: an empty one (or a data line) between two comment lines
    # ends a key just as well, being a gap in the line numbers; the scan for them runs in C
    for found in _COMMENT_RE.finditer(text):
        start = found.start()
        line += text.count("\n", counted, start)
        counted = start
        content = found.group(1).strip()
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
        elif key is not None:  # a continuation line such as ";     http://..."
            header[key] += "\n" + content
    state["key"], state["previous"] = key, previous
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
    except pd.errors.EmptyDataError:  # only blank or comment lines, or a first line pandas misreads
        return None if _has_data(arr) else np.empty((0, _N_FIELDS))
    except (ValueError, OverflowError):  # ParserError is a ValueError
        return None
    values = frame.to_numpy(dtype=np.float64)
    if values.ndim != 2 or values.shape[1] != _N_FIELDS:
        return None
    values = values[~np.isnan(values).all(axis=1)]  # indented comment lines read as empty rows
    if not np.isfinite(values).all():
        return None
    return values


def _has_data(arr: np.ndarray) -> bool:
    """Whether a byte other than a blank lies outside the comments of the text ``arr``."""
    marks = np.flatnonzero(~_BLANK_BYTES[arr])
    if not marks.size:
        return False
    line_starts = np.concatenate(([0], np.flatnonzero(arr == ord("\n")) + 1))
    semis = np.append(np.flatnonzero(arr == ord(";")), arr.size)
    starts = line_starts[np.searchsorted(line_starts, marks, side="right") - 1]
    return not bool((semis[np.searchsorted(semis, starts)] <= marks).all())


def _parse_slow(text: str, name: str, first_line: int = 1) -> np.ndarray:
    """All records, checked line by line; raises at the first malformed line (``first_line``:
    the number of the first line of ``text``)."""
    records = []
    for line, content in enumerate(text.split("\n"), start=first_line):
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


def _check_whole(values: np.ndarray, text: str, name: str, first_line: int = 1) -> None:
    """Refuse a fractional processor count (SWF fields 5 and 8 are integers) and a time beyond
    :data:`MAX_TIME`, naming the line."""
    for column in _TIME_COLUMNS:
        j = SWF_COLUMNS.index(column)
        bad = np.flatnonzero(np.abs(values[:, j]) > MAX_TIME)
        if bad.size:
            line = _record_line(text, int(bad[0])) + first_line - 1
            raise InputError(f"{name}, line {line}: field {j + 1} ({column!r}) must be at most {MAX_TIME:.0e} s; "
                             f"got {values[bad[0], j]:g}.")
    for column in _WHOLE_COLUMNS:
        j = SWF_COLUMNS.index(column)
        bad = np.flatnonzero(values[:, j] != np.trunc(values[:, j]))
        if bad.size:
            line = _record_line(text, int(bad[0])) + first_line - 1
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


def _to_frame(pieces: list[list[np.ndarray]], whole: np.ndarray, n: int) -> pd.DataFrame:
    """The frame of each column's ``pieces`` (emptied as they are copied in, so the jobs are held
    about once): the columns whose values were all whole numbers (``whole``, and exact in
    float64) become int64, in one block built in place."""
    is_int = [bool(w) and column not in _FLOAT_COLUMNS for column, w in zip(SWF_COLUMNS, whole, strict=True)]
    ints = np.empty((sum(is_int), n), dtype=np.int64)
    floats = {}
    k = 0
    for j, column in enumerate(SWF_COLUMNS):
        if is_int[j]:
            np.concatenate(pieces[j], out=ints[k], casting="unsafe") if pieces[j] else None
            k += 1
        else:
            floats[column] = np.concatenate(pieces[j]) if pieces[j] else np.empty(0)
        pieces[j].clear()
    names = [c for c, i in zip(SWF_COLUMNS, is_int, strict=True) if i]
    df = pd.DataFrame(ints.T, columns=names, copy=False)
    for j, column in enumerate(SWF_COLUMNS):
        if not is_int[j]:
            df.insert(j, column, floats.pop(column))
    return df
