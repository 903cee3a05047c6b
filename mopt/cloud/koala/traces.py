"""Workloads as the KOALA-C paper used them (§V-A): cleaned PWA traces, jobs of at most 32 processors."""

from __future__ import annotations

import os

import pandas as pd

from mopt.cloud.swf import find_trace, read_swf
from mopt.core.errors import check_int

__all__ = ["koala_trace", "PAPER_TRACES", "SIZE_LIMIT"]

#: jobs larger than this are dropped (§V-A)
SIZE_LIMIT = 32
#: the paper's traces available in the Parallel Workloads Archive, with the number of jobs it kept
PAPER_TRACES = {
    "KTH-SP2": ("KTH-SP2-1996-2.1-cln", None),
    "CTC-SP2": ("CTC-SP2-1996-3.1-cln", None),
    "SDSC-BLUE": ("SDSC-BLUE-2000-4.2-cln", None),
    "LCG": ("LCG-2005-1", 50_000),
}


def koala_trace(name: str | os.PathLike, *, first: int | None = None) -> pd.DataFrame:
    """A trace cleaned as in KOALA-C: run time > 0, 1..MaxProcs processors, at most 32 processors.

    Parameters
    ----------
    name : str or path-like
        A short name of :data:`PAPER_TRACES` (``"KTH-SP2"``, ``"LCG"``, ...), a trace file name
        found through ``MOPT_DATA_DIR``, or a path.
    first : int, optional
        Keep the first ``first`` records of the file (before cleaning); for ``"LCG"`` the paper's
        50,000 by default.

    Returns
    -------
    pandas.DataFrame
        :func:`~mopt.cloud.read_swf`'s columns and ``attrs``, plus ``attrs["n_records_used"]``:
        the records considered (the first ``first``, else all).

    Examples
    --------
    >>> kth = koala_trace("KTH-SP2")  # doctest: +SKIP
    >>> len(kth)  # doctest: +SKIP
    27048
    """
    key = os.fspath(name)
    file, default_first = PAPER_TRACES.get(key, (key, None))
    first = default_first if first is None else check_int("first", first, low=1)
    path = file if os.path.isfile(file) else find_trace(file)
    df = read_swf(path)
    attrs = dict(df.attrs)
    if first is not None:
        df = df.iloc[:first]
    attrs["n_records_used"] = len(df)
    keep = (df["run_time"] > 0) & (df["n_procs"] > 0)
    max_procs = df.attrs["header"].get("MaxProcs")
    if max_procs is not None and str(max_procs).strip().lstrip("-").isdigit() and int(max_procs) > 0:
        keep &= df["n_procs"] <= int(max_procs)
    out = df[keep & (df["n_procs"] <= SIZE_LIMIT)].reset_index(drop=True)
    out.attrs = attrs
    return out
