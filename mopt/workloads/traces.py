"""Workload traces: the archive catalogue, the one resolver of a trace argument, cleaning, and
loading or fetching by archive name (SC13, KOALA-C; spec §1).

A trace is named by a Parallel Workloads Archive name of :data:`TRACES` (any case), by the path
of an SWF file, or by a file name in ``MOPT_DATA_DIR``; :func:`resolve_trace` turns any of them
into a file, and every command that takes a trace uses it.

:func:`clean` drops the jobs the papers drop; :func:`load_trace` reads a Parallel Workloads
Archive trace by its name from ``MOPT_DATA_DIR`` or, failing that, fetches it (:func:`fetch`)
into a cache with a sha256 check. JSSPP's synthetic arrival patterns are in
:mod:`mopt.workloads.synthetic`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from mopt.core.errors import InputError, MoptError, check_int
from mopt.workloads.swf import find_trace, read_swf

__all__ = ["TRACES", "FetchError", "archive_name", "clean", "fetch", "fetch_cache", "load_jobs", "load_trace",
           "resolve_trace", "trace_files", "check_not_empty"]

ARCHIVE = "https://www.cs.huji.ac.il/labs/parallel/workload"
#: archive name -> (file, archive folder, sha256 of the file)
TRACES = {
    "KTH-SP2": ("KTH-SP2-1996-2.1-cln.swf.gz", "l_kth_sp2",
                "3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b"),
    "SDSC-SP2": ("SDSC-SP2-1998-4.2-cln.swf.gz", "l_sdsc_sp2",
                 "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac"),
    "CTC-SP2": ("CTC-SP2-1996-3.1-cln.swf.gz", "l_ctc_sp2",
                "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4"),
    "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln.swf.gz", "l_sdsc_blue",
                  "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658"),
    "LPC-EGEE": ("LPC-EGEE-2004-1.2-cln.swf.gz", "l_lpc",
                 "2fc37df5cc14c355fc7a88235f72e54fdf5f0d93de09399d015383ee5c35a59d"),
    "LCG": ("LCG-2005-1.swf.gz", "l_lcg",
            "cda5d512febf84a3e07b3ad7b9481f8a0ba0f4c6e10f5d639aae73d2587448d9"),
}
_URL_VAR = "MOPT_TRACE_URL"
_CACHE_VAR = "MOPT_CACHE_DIR"


class FetchError(MoptError):
    """A trace could not be downloaded, or the download failed its sha256 check."""


def _trace_name(name) -> str:
    for key in TRACES:
        if isinstance(name, str) and key.lower() == name.strip().lower():
            return key
    raise InputError(f"unknown trace {name!r}; expected one of {', '.join(TRACES)}.")


def clean(df: pd.DataFrame, max_procs: int | None = None,
          size_limit: int | None = None, *, req_fallback: bool = True) -> pd.DataFrame:
    """Drop the jobs the papers drop (SC13, KOALA-C; spec §1).

    Processors are ``n_procs``, or ``req_procs`` where ``n_procs`` is -1 (the result's
    ``n_procs`` column holds that count); with ``req_fallback=False`` only ``n_procs`` (a job
    with no allocated processors is dropped: KOALA-C's choice, see ``mopt.koala.traces``). Dropped: run
    time <= 0, processors <= 0, a negative submit time (SWF's -1, unknown: ours, the papers' traces
    have none), more processors than ``max_procs`` (default: the header's ``MaxProcs`` in ``df.attrs``), then
    jobs wider than ``size_limit``.

    Returns
    -------
    pandas.DataFrame
        The kept jobs with a fresh index; ``attrs["cleaning"]`` counts ``records``, ``cleaned``
        (after the first three rules), ``kept`` (after ``size_limit``) and, from the header,
        ``max_records`` with ``records_match`` (CTC-SP2's header says 79,302 records but the
        file holds 77,222: reported, never an error).

    Examples
    --------
    >>> df = pd.DataFrame({"run_time": [10, 0, 5, 7], "n_procs": [2, 1, -1, 200],
    ...                    "req_procs": [2, 1, 4, 200]})
    >>> out = clean(df, max_procs=128)
    >>> out["n_procs"].tolist(), out.attrs["cleaning"]["cleaned"]
    ([2, 4], 2)
    """
    if not isinstance(df, pd.DataFrame):
        raise InputError(f"'df' must be a DataFrame from read_swf; got {type(df).__name__}.")
    for col in ("run_time", "n_procs"):
        if col not in df.columns:
            raise InputError(f"'df' has no column {col!r}; read the trace with read_swf.")
    header = df.attrs.get("header", {})
    if max_procs is None and "MaxProcs" in header:
        try:
            max_procs = int(float(header["MaxProcs"]))
        except ValueError:
            raise InputError(f"the trace header's MaxProcs is not a number: "
                             f"{header['MaxProcs']!r}.") from None
    elif max_procs is not None:
        max_procs = check_int("max_procs", max_procs, low=1)
    if size_limit is not None:
        size_limit = check_int("size_limit", size_limit, low=1)
    procs = df["n_procs"]
    if req_fallback and "req_procs" in df.columns:
        procs = procs.where(procs != -1, df["req_procs"])
    keep = (df["run_time"] > 0) & (procs > 0)
    if "submit_time" in df.columns:  # SWF's -1 (unknown) or a negative time: no place in the stream (ours)
        keep &= df["submit_time"] >= 0
    if max_procs is not None and max_procs > 0:
        keep &= procs <= max_procs
    n_clean = int(keep.sum())
    if size_limit is not None:
        keep &= procs <= size_limit
    out = df.assign(n_procs=procs)[keep].reset_index(drop=True)
    records = int(df.attrs.get("n_records", len(df)))
    report = {"records": records, "cleaned": n_clean, "kept": len(out)}
    if "MaxRecords" in header:
        report["max_records"] = int(float(header["MaxRecords"]))
        report["records_match"] = report["max_records"] == records
    out.attrs = {**df.attrs, "cleaning": report}
    return out


def fetch_cache() -> Path:
    """The folder :func:`fetch` downloads into: ``$MOPT_CACHE_DIR/traces``, else ``traces`` in the
    user cache folder of ``mopt`` (pooch's ``os_cache``)."""
    import pooch

    return Path(os.environ.get(_CACHE_VAR) or pooch.os_cache("mopt")) / "traces"


def fetch(name: str, *, base_url: str | None = None, cache_dir: str | os.PathLike | None = None,
          progress: bool = False) -> Path:
    """Download a Parallel Workloads Archive trace into the cache, checking its sha256.

    Parameters
    ----------
    name : str
        Archive name, one of :data:`TRACES` (``"KTH-SP2"``, ``"SDSC-SP2"``, ...).
    base_url : str, optional
        Archive root (default ``$MOPT_TRACE_URL``, else the Parallel Workloads Archive); the file
        is ``{base_url}/{folder}/{file}``.
    cache_dir : path, optional
        Default ``$MOPT_CACHE_DIR``, else the user cache folder of ``mopt``.

    Returns
    -------
    pathlib.Path
        The cached file (downloaded only once).

    Raises
    ------
    InputError
        Unknown trace name.
    FetchError
        The server cannot be reached or refuses, or the file fails its sha256 check (the bad
        download is not kept).

    Examples
    --------
    >>> fetch("KTH-SP2").name  # doctest: +SKIP
    'KTH-SP2-1996-2.1-cln.swf.gz'
    """
    import logging

    import pooch

    key = _trace_name(name)
    file, folder, sha = TRACES[key]
    root = (base_url or os.environ.get(_URL_VAR) or ARCHIVE).rstrip("/")
    cache = Path(cache_dir) / "traces" if cache_dir else fetch_cache()
    url = f"{root}/{folder}/{file}"
    logger = pooch.get_logger()
    level = logger.level
    if not progress:
        logger.setLevel(logging.WARNING)  # pooch's "Downloading data from ..." lines
    try:
        path = pooch.retrieve(url, known_hash=f"sha256:{sha}", fname=file, path=cache,
                              progressbar=progress)
    except ValueError as exc:  # pooch: hash mismatch
        raise FetchError(f"{url}: the download failed its sha256 check and was discarded "
                         f"({' '.join(str(exc).split())[:200]})") from None
    except Exception as exc:  # noqa: BLE001 - requests' connection and HTTP errors
        reason = "no network" if "Connection" in type(exc).__name__ or "Resolution" in str(exc) else \
            f"{type(exc).__name__}: {' '.join(str(exc).split())[:160]}"
        raise FetchError(f"cannot download trace {key} ({reason}): put {file} in MOPT_DATA_DIR "
                         f"(it is at {url}).") from None
    finally:
        logger.setLevel(level)
    return Path(path)


def load_trace(name: str, size_limit: int | None = None, *, fetch_missing: bool = True
               ) -> pd.DataFrame:
    """A cleaned archive trace by name: from ``MOPT_DATA_DIR`` if there, else fetched.

    Examples
    --------
    >>> kth = load_trace("KTH-SP2", size_limit=64)  # doctest: +SKIP
    >>> kth.attrs["cleaning"]["cleaned"], len(kth)  # doctest: +SKIP
    (28467, 28147)
    """
    key = _trace_name(name)
    path = resolve_trace(key, fetch_missing=fetch_missing)
    out = clean(read_swf(path), size_limit=size_limit)
    out.attrs["trace"] = key
    return out


def archive_name(name) -> str | None:
    """The archive name ``name`` spells (any case, surrounding blanks ignored), else None.

    Examples
    --------
    >>> archive_name("kth-sp2"), archive_name("my.swf")
    ('KTH-SP2', None)
    """
    if not isinstance(name, str):
        return None
    return next((key for key in TRACES if key.lower() == name.strip().lower()), None)


def resolve_trace(name: str | os.PathLike, *, option: str = "trace", fetch_missing: bool = True) -> Path:
    """The file of the trace ``name``: an archive name (from ``MOPT_DATA_DIR``, else fetched with
    its sha256 checked unless ``fetch_missing`` is false), an existing path, or a file name in
    ``MOPT_DATA_DIR``.

    Raises
    ------
    InputError
        Nothing matches; the message names ``option``, the archive names and ``MOPT_DATA_DIR``.

    Examples
    --------
    >>> resolve_trace("no-such-trace", option="--trace")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: '--trace' must be an archive name (KTH-SP2, SDSC-SP2, CTC-SP2, SDSC-BLUE, LPC-EGEE, LCG), an SWF file or a file name in MOPT_DATA_DIR; got 'no-such-trace'.
    """
    key = archive_name(name)
    if key is not None:
        try:
            return find_trace(TRACES[key][0])
        except InputError:
            if not fetch_missing:
                raise
            return fetch(key)
    if not isinstance(name, str | os.PathLike) or not os.fspath(name).strip():
        raise InputError(f"'{option}' must name a trace; got {name!r}.")
    path = Path(name)
    if path.is_file():
        return path
    if path.exists():
        from mopt.core.output_sets import _kind

        raise InputError(f"'{option}' {os.fspath(name)!r} is not a regular file ({_kind(path)}).")
    if os.environ.get("MOPT_DATA_DIR") and path.parent == Path("."):
        try:
            return find_trace(name)
        except InputError:
            pass
    from mopt.core.names import suggest

    raise InputError(f"'{option}' must be an archive name ({', '.join(TRACES)}), an SWF file or a file "
                     f"name in MOPT_DATA_DIR; got {os.fspath(name)!r}{suggest(os.fspath(name), list(TRACES)) or '.'}")


def load_jobs(name, size_limit: int, max_jobs: int | None = None, *, first: int | None = None,
              option: str = "--trace") -> pd.DataFrame:
    """The cleaned jobs of the trace ``name`` (any name :func:`resolve_trace` takes) of at most
    ``size_limit`` processors: of the file's first ``first`` records only if given (the commands'
    ``--first N``, counted before cleaning as KOALA-C's traces are), then the first ``max_jobs``
    cleaned jobs only if given (``mopt portfolio``'s deprecated ``--max-jobs``).

    Examples
    --------
    >>> load_jobs("KTH-SP2", 64, 100).shape  # doctest: +SKIP
    (100, 18)
    """
    size_limit = check_int("--size-limit", size_limit, low=1)
    key = archive_name(name)
    if first is not None:
        first = check_int("--first", first, low=1)
        records = read_swf(resolve_trace(key or name, option=option))
        head = records.head(first).reset_index(drop=True)
        head.attrs = dict(records.attrs)
        jobs = clean(head, size_limit=size_limit)
    elif key is not None:
        jobs = load_trace(key, size_limit=size_limit)
    else:
        jobs = clean(read_swf(resolve_trace(name, option=option)), size_limit=size_limit)
    check_not_empty(jobs, name, size_limit)
    if max_jobs:
        jobs = jobs.head(max_jobs).reset_index(drop=True)
    return jobs


def check_not_empty(jobs: pd.DataFrame, name, size_limit: int | None) -> None:
    """Refuse a trace that cleaning left without jobs, naming the file and why.

    Examples
    --------
    >>> df = pd.DataFrame({"run_time": [10, 20], "n_procs": [100, 80]})
    >>> check_not_empty(clean(df, size_limit=64), "wide.swf", 64)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: wide.swf: no job left to simulate: of 2 records, 2 have a run time > 0, a submit time >= 0 and 1..MaxProcs processors, and 2 of those are wider than the size limit of 64 processors.
    """
    if len(jobs):
        return
    report = jobs.attrs.get("cleaning", {})
    records, cleaned = report.get("records", 0), report.get("cleaned", 0)
    why = f"of {records} records, {cleaned} have a run time > 0, a submit time >= 0 and 1..MaxProcs processors"
    if size_limit is not None and cleaned:
        why += f", and {cleaned} of those are wider than the size limit of {size_limit} processors"
    raise InputError(f"{os.fspath(name)}: no job left to simulate: {why}.")


def trace_files(name) -> list[Path]:
    """The file the trace ``name`` reads, if it is on this machine (nothing is fetched): what an
    output must never replace.

    Examples
    --------
    >>> trace_files("no-such-trace")
    []
    """
    try:
        return [resolve_trace(name, fetch_missing=False)]
    except (InputError, OSError):
        return []
