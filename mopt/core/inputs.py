"""Bounded reading of input files: every file mopt reads goes through here.

An input file (a scenario, a CSV of instances or of a throughput log, a result directory's files, an
SWF trace) must be a regular file: a FIFO would block forever and ``/dev/zero`` would never end, so
both are refused by name.  Its size (after gunzip, for a gzip-compressed trace) and its longest line
are bounded, and so is the nesting of a TOML or JSON document, so a hostile or broken file ends in
one :class:`~mopt.core.errors.InputError` naming the file and the limit instead of exhausting
memory or the stack.

The limits (ours) are generous for real inputs and can be raised through environment variables
(an integer, optionally with a ``K``, ``M`` or ``G`` suffix of 1024, 1024², 1024³):

=========================  ==============  ===================================================
variable                   default         bounds
=========================  ==============  ===================================================
``MOPT_MAX_INPUT_BYTES``   512M            size of an input file (a trace after gunzip)
``MOPT_MAX_LINE_BYTES``    1M              length of one line of a text input
``MOPT_MAX_NESTING``       64              depth of nested arrays/tables (TOML, JSON)
``MOPT_MAX_WORKERS``       4 × CPUs        ``--workers`` (local worker processes)
``MOPT_MAX_MEMORY``        MemAvailable    memory a run may allocate (:func:`check_memory`)
=========================  ==============  ===================================================

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
>>> _ = open(path, "w").write("x,y\\n1,2\\n")
>>> read_text(path, "CSV file")
'x,y\\n1,2\\n'
>>> read_text("/dev/zero", "scenario file")
Traceback (most recent call last):
...
mopt.core.errors.InputError: scenario file '/dev/zero' is not a regular file (a character device); give a file.
"""

from __future__ import annotations

import io
import json
import os
import stat
import sys
import tomllib
import zlib

from mopt.core.errors import InputError, check_int
from mopt.core.names import canonical, suggest  # noqa: F401 (re-exported: where they were first)

__all__ = ["suggest", "canonical", "LIMITS", "limit", "read_bytes", "read_text", "read_toml", "read_json", "check_nesting",
           "max_workers", "check_workers", "check_lines", "iter_bytes", "available_memory",
           "check_memory"]

#: name -> (environment variable, default, what it bounds); the default of "workers" is per CPU
LIMITS = {
    "input_bytes": ("MOPT_MAX_INPUT_BYTES", 512 * 2**20, "the size of an input file"),
    "line_bytes": ("MOPT_MAX_LINE_BYTES", 2**20, "the length of a line"),
    "nesting": ("MOPT_MAX_NESTING", 64, "the nesting depth of arrays and tables"),
    "workers": ("MOPT_MAX_WORKERS", 4, "the number of local worker processes"),
    "memory": ("MOPT_MAX_MEMORY", 0, "the memory a run may allocate (default: what is available)"),
}
_SUFFIX = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30}
_GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 16 * 2**20


def limit(name: str) -> int:
    """The current value of the limit ``name`` (see :data:`LIMITS`), from its environment variable
    if set.

    Examples
    --------
    >>> limit("nesting")
    64
    """
    var, default, _ = LIMITS[name]
    text = os.environ.get(var, "").strip()
    if name == "workers" and not text:
        return default * (os.cpu_count() or 1)
    if not text:
        return default
    unit = text[-1].upper() if text[-1].upper() in "KMG" else ""
    digits = text[: len(text) - len(unit)].strip()
    if not digits.isdigit() or int(digits) < 1:
        raise InputError(f"the environment variable {var} must be a positive integer (optionally "
                         f"with K, M or G); got {text!r}.")
    return int(digits) * _SUFFIX[unit]


def max_workers() -> int:
    """The largest ``--workers`` accepted: ``MOPT_MAX_WORKERS``, default 4 × ``os.cpu_count()``."""
    return limit("workers")


def check_workers(name: str, value) -> int:
    """A number of local worker processes: an integer in [1, :func:`max_workers`].

    Examples
    --------
    >>> check_workers("--workers", 1)
    1
    >>> check_workers("--workers", 10**6)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: '--workers' must be at most ...; got 1000000.
    """
    value = check_int(name, value, low=1)
    cap = max_workers()
    if value > cap:
        var = LIMITS["workers"][0]
        why = f"{var}" if os.environ.get(var, "").strip() else f"4 x {os.cpu_count() or 1} CPUs; set {var} to raise it"
        raise InputError(f"'{name}' must be at most {cap} ({why}); got {value}.")
    return value


def _too_big(what: str, name: str, key: str, detail: str) -> InputError:
    var = LIMITS[key][0]
    return InputError(f"{what} {name!r} {detail}; the limit is {limit(key):,} bytes (set {var} to "
                      "raise it).")


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a regular file"


def _open_regular(name: str, what: str):
    """The regular file ``name`` opened for binary reading (stat before open: a FIFO would block)."""
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise InputError(f"{what} {name!r} does not exist.") from None
    except OSError as exc:
        raise InputError(f"cannot read {what} {name!r} ({exc.strerror or exc}).") from None
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"{what} {name!r} is not a regular file ({_kind(st.st_mode)}); give a file.")
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        f = os.fdopen(fd, "rb")
    except OSError as exc:
        raise InputError(f"cannot read {what} {name!r} ({exc.strerror or exc}).") from None
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):  # replaced since the stat
        f.close()
        raise InputError(f"{what} {name!r} is not a regular file; give a file.")
    return f


def _reader(f, what: str, name: str):
    def read(n: int) -> bytes:
        try:
            return f.read(n)
        except OSError as exc:
            raise InputError(f"cannot read {what} {name!r} ({exc.strerror or exc}).") from None
    return read


def read_bytes(path: str | os.PathLike, what: str, *, gunzip: bool = False) -> bytes:
    """The bytes of the regular file ``path`` (``what`` names it in messages), at most
    ``MOPT_MAX_INPUT_BYTES`` of them; with ``gunzip``, data starting with the gzip magic is
    decompressed (within the same bound), holding about one copy of the result (see
    :func:`iter_bytes`).

    Raises
    ------
    InputError
        Missing, unreadable or not a regular file (a directory, FIFO, device), too large, or
        (``gunzip``) truncated or corrupt gzip data (naming the line where the damage starts).
    """
    name = os.fspath(path)
    cap = limit("input_bytes")
    with _open_regular(name, what) as f:
        read = _reader(f, what, name)
        head = read(2)
        if not (gunzip and head == _GZIP_MAGIC):
            raw = head + read(cap + 1 - len(head))
            if len(raw) > cap:
                raise _too_big(what, name, "input_bytes", "is too large")
            return raw
    out = io.BytesIO()  # getvalue() hands over its buffer: no second copy
    for piece in iter_bytes(path, what, gunzip=True):
        out.write(piece)
    return out.getvalue()


def iter_bytes(path: str | os.PathLike, what: str, *, gunzip: bool = False, chunk: int = _CHUNK):
    """The bytes of the regular file ``path`` in pieces of at most ``chunk`` bytes (gunzipped as
    they are read with ``gunzip``, if the data starts with the gzip magic): a reader that keeps
    only what it needs holds at most one piece of the file at a time.  The same checks and
    messages as :func:`read_bytes`, raised when the reader gets there."""
    name = os.fspath(path)
    cap = limit("input_bytes")
    with _open_regular(name, what) as f:
        read = _reader(f, what, name)
        data = read(chunk)
        total = len(data)
        if not (gunzip and data[:2] == _GZIP_MAGIC):
            while data:
                if total > cap:
                    raise _too_big(what, name, "input_bytes", "is too large")
                yield data
                data = read(chunk)
                total += len(data)
            return
        yield from _inflate(f, read, data, what, name, cap, chunk)


def _inflate(f, read, data: bytes, what: str, name: str, cap: int, chunk: int):
    """Every gzip member of the open file ``f`` (``data``: its first bytes), decompressed in pieces
    so that no more than ``cap`` bytes are ever produced (a small file that inflates to gigabytes
    is refused early) and no more than ``chunk`` are held at once."""
    total = len(data)  # compressed bytes read
    size = lines = 0  # bytes and newlines produced so far
    lines_before, member_start = 0, 0  # newlines before the current member; its offset in the file

    def more() -> bytes:
        nonlocal total
        piece = read(chunk)
        total += len(piece)
        if total > cap:
            raise _too_big(what, name, "input_bytes", "is too large")
        return piece

    inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    while True:
        try:
            out = inflate.decompress(data, min(chunk, cap + 1 - size))
        except zlib.error as err:
            f.seek(member_start)
            line = lines_before + _partial(read(cap + 1)).count(b"\n") + 1
            raise InputError(f"{name}, line {line}: the gzip data is corrupt ({err}).") from None
        size += len(out)
        if size > cap:
            raise _too_big(what, name, "input_bytes", "inflates beyond the size limit")
        lines += out.count(b"\n")
        if out:
            yield out
        if not inflate.eof:
            data = inflate.unconsumed_tail
            if not data and not out:
                data = more()
                if not data:
                    raise InputError(f"{name}, line {lines + 1}: the gzip data ends early (truncated file).")
            continue
        lines_before, data = lines, inflate.unused_data
        member_start = total - len(data)
        zeros = False
        while not data.strip(b"\0"):  # trailing zero padding is allowed, as gzip(1) allows it
            zeros = zeros or bool(data)
            data = more()
            if not data:
                return
        while len(data) < 2 and not zeros:
            piece = more()
            if not piece:
                break
            data += piece
        if zeros or data[:2] != _GZIP_MAGIC:
            raise InputError(f"{name}, line {lines + 1}: the gzip data is corrupt (trailing garbage).")
        inflate = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)


def _partial(raw: bytes) -> bytes:
    """What decompresses before the damage (to the byte) of a damaged gzip stream, to say which
    line it is in (bounded by the size limit: only called after a chunk failed)."""
    inflate, parts, pos, step = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), [], 0, 1 << 16
    size, bound = 0, limit("input_bytes")
    while pos < len(raw) and not inflate.eof and size <= bound:
        saved = inflate.copy()
        try:
            parts.append(inflate.decompress(raw[pos : pos + step], bound + 1 - size))
            size += len(parts[-1])
            pos += step
        except zlib.error:
            if step == 1:
                break
            inflate, step = saved, max(1, step // 16)
    return b"".join(parts)


def check_lines(raw: bytes, what: str, name: str, *, first_line: int = 1, complete: bool = True) -> None:
    """Refuse a text whose longest line exceeds ``MOPT_MAX_LINE_BYTES`` (naming the line;
    ``first_line``: the number of the first line of ``raw``, for a piece of a larger text;
    ``complete`` False: more of the text follows ``raw``, so a last line without an end is said
    to be "at least" its length).

    Lines end at ``\\n`` or a lone ``\\r``.  The check streams: it holds nothing beyond ``raw``
    (the last line end of each window of ``MOPT_MAX_LINE_BYTES + 1`` bytes is found in C, and two
    windows advance by at least the limit), so a file of short lines costs no memory per line.

    Examples
    --------
    >>> check_lines(b"a\\n" * 10, "CSV file", "a.csv")
    """
    cap = limit("line_bytes")
    n = len(raw)
    if n <= cap:
        return
    start = 0  # where the current line starts
    while n - start > cap:
        end = start + cap + 1  # a line of at most cap bytes ends (\n or \r) in raw[start:end]
        last = max(raw.rfind(b"\n", start, end), raw.rfind(b"\r", start, end))
        if last < 0:
            break
        start = last + 1
    else:
        return
    stop = min(raw.find(b"\n", start), raw.find(b"\r", start), key=lambda k: n if k < 0 else k)
    length = (n if stop < 0 else stop) - start
    # the line's number: \n, and \r not followed by \n, before it
    lone_cr = raw.count(b"\r", 0, start) - raw.count(b"\r\n", 0, start)
    line = first_line + raw.count(b"\n", 0, start) + lone_cr
    size = f"{length:,} bytes" if stop >= 0 or complete else f"at least {length:,} bytes"
    raise InputError(f"{name}, line {line}: the line is {size} long; the limit is "
                     f"{cap:,} bytes (set {LIMITS['line_bytes'][0]} to raise it); is this the right "
                     f"{what}?")


def read_text(path: str | os.PathLike, what: str, *, gunzip: bool = False) -> str:
    """The UTF-8 text (a byte-order mark dropped) of the regular file ``path``, bounded in size
    and line length (see :func:`read_bytes`).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.toml")
    >>> _ = open(path, "w").write("a = 1\\n")
    >>> read_text(path, "scenario file")
    'a = 1\\n'
    """
    name = os.fspath(path)
    raw = read_bytes(path, what, gunzip=gunzip)
    check_lines(raw, what, name)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InputError(f"{name}, line {line}: cannot read the {what}: not UTF-8 text (byte "
                         f"{raw[err.start]:#04x}).") from None


def available_memory() -> int:
    """The bytes a run may allocate: ``MOPT_MAX_MEMORY`` if set, else the kernel's estimate of the
    memory available without swapping (``MemAvailable`` of ``/proc/meminfo``; else the free pages)."""
    if os.environ.get(LIMITS["memory"][0], "").strip():
        return limit("memory")
    try:
        with open("/proc/meminfo", "rb") as f:
            for row in f:
                if row.startswith(b"MemAvailable:"):
                    return int(row.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 2**63  # unknown: no refusal


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB" if n >= 2**30 else f"{n / 2**20:,.0f} MiB"


def check_memory(option: str, value: int, per_unit: float, fixed: float = 0, *, what: str = "") -> None:
    """Refuse, before anything is allocated, an ``option`` whose ``value`` would need more memory
    than this machine has: ``fixed + value * per_unit`` bytes against :func:`available_memory`.
    The message is one line naming the option and the largest value that fits (``what``: how
    the need was counted, e.g. ``" (165 designs x 2 objectives)"``).

    Examples
    --------
    >>> check_memory("n_reps", 10, 1000.0)
    >>> import os
    >>> os.environ["MOPT_MAX_MEMORY"] = "1G"
    >>> check_memory("n_reps", 10**9, 16.0, what=" (16 bytes a replication)")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'n_reps' = 1,000,000,000 needs about 14.9 GiB of memory (16 bytes a replication); ... at most 'n_reps' = 67,108,864.
    >>> del os.environ["MOPT_MAX_MEMORY"]
    """
    needed = fixed + value * per_unit
    avail = available_memory()
    if needed <= avail:
        return
    largest = max(0, int((avail - fixed) // per_unit)) if per_unit > 0 else 0
    var = LIMITS["memory"][0]
    source = var if os.environ.get(var, "").strip() else f"available now; set {var} to change"
    raise InputError(f"'{option}' = {value:,} needs about {_gib(needed)} of memory{what}; this machine has "
                     f"{_gib(avail)} ({source}): at most '{option}' = {largest:,}.")


def check_nesting(value, where: str) -> None:
    """Refuse a parsed TOML/JSON value nested deeper than ``MOPT_MAX_NESTING`` (iteratively, so
    the check itself never recurses).

    Examples
    --------
    >>> check_nesting({"a": [[1]]}, "x.toml")
    >>> check_nesting([[[[1]]]] , "x.json")  # doctest: +SKIP
    """
    cap = limit("nesting")
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > cap:
            raise _deep(where, cap)
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))


def _deep(where: str, cap: int) -> InputError:
    return InputError(f"{where}: arrays or tables nested deeper than {cap} levels (set "
                      f"{LIMITS['nesting'][0]} to raise the limit).")


def read_toml(path: str | os.PathLike, what: str) -> dict:
    """The TOML document of the regular file ``path``, bounded in size, line length and nesting.

    Raises
    ------
    InputError
        As :func:`read_text`; malformed TOML (with its line); nesting too deep.
    """
    name = os.fspath(path)
    text = read_text(path, what)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{name}: malformed TOML: {exc}.") from None
    except RecursionError:
        raise _deep(name, limit("nesting")) from None
    except ValueError as exc:  # an integer of too many digits (tomllib lets int() raise)
        raise InputError(f"{name}: malformed TOML: {_digits(exc)}.") from None
    check_nesting(doc, name)
    return doc


def read_json(path: str | os.PathLike, what: str):
    """The JSON document of the regular file ``path``, bounded in size, line length, nesting and
    digits of an integer (Python's 4,300) — every failure an :class:`InputError` naming the file."""
    name = os.fspath(path)
    text = read_text(path, what)
    try:
        doc = json.loads(text)
    except RecursionError:
        raise _deep(name, limit("nesting")) from None
    except ValueError as exc:  # JSONDecodeError, and an integer of too many digits
        raise InputError(f"{name}: malformed {what} ({_digits(exc)}).") from None
    check_nesting(doc, name)
    return doc


def _digits(exc: ValueError) -> str:
    """The parser's message, with Python's integer-digits limit said in words."""
    text = " ".join(str(exc).split())
    if "integer string conversion" in text:
        return f"an integer has more than {sys.get_int_max_str_digits():,} digits"
    return text
