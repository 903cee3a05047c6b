"""A read-only look at a journal while a search writes it: what ``mopt report --watch`` draws.

:func:`read_journal` opens the journal read-only (an SQLite ``mode=ro`` connection that waits up to
:data:`~mopt.core.journal.BUSY_SECONDS` for a lock), reads its meta table and the per-design
summary of its replications in one read transaction, and closes it: in WAL mode a reader never
blocks a writer, and a writer never makes a reader fail.  It needs no problem: the journal records
its fingerprint, seed and objectives.  The means are over the replications the journal holds, so
the front of a :class:`JournalSnapshot` is the front so far, not the search's final answer (which
also weighs how sure each design is).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError
from mopt.core.journal import BUSY_SECONDS, FORMAT, _quote, retry_busy
from mopt.core.pareto import pareto_mask

__all__ = ["JournalSnapshot", "read_journal", "is_journal"]


@dataclass(frozen=True)
class JournalSnapshot:
    """What a journal held at ``read_at`` (seconds since the epoch).

    ``designs`` has one row per design the journal holds: ``design`` (its index), ``n_reps``, and
    per objective its mean and standard error (``<objective>_se``; NaN below two replications, and
    both NaN where a replication of the design is NaN); ``on_front`` marks the Pareto-efficient
    means.
    """

    path: Path
    fingerprint: str
    seed: int
    objectives: tuple[str, ...]
    n_replications: int
    designs: pd.DataFrame
    read_at: float

    @property
    def front(self) -> pd.DataFrame:
        """The rows of :attr:`designs` on the front of the means so far."""
        return self.designs[self.designs["on_front"]].reset_index(drop=True)


def _uri(path: Path) -> str:
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


def _format_row(path):
    """The journal's recorded format (a row, or None), read in one short connection."""
    db = sqlite3.connect(_uri(path), uri=True, isolation_level=None, timeout=BUSY_SECONDS)
    try:
        return db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    finally:
        db.close()


def _snapshot(path):
    """(meta, objectives, per-design summary) of one read transaction: they agree."""
    db = sqlite3.connect(_uri(path), uri=True, isolation_level=None, timeout=BUSY_SECONDS)
    try:
        db.execute("BEGIN")
        meta = dict(db.execute("SELECT key, value FROM meta"))
        objectives = tuple(json.loads(meta["objectives"]))
        designs = _summary(db, objectives)
        db.execute("COMMIT")
        return meta, objectives, designs
    finally:
        db.close()


def is_journal(path) -> bool:
    """Whether ``path`` is a mopt journal (an SQLite file whose meta table has this mopt's format).

    Examples
    --------
    >>> import tempfile, os
    >>> is_journal(os.path.join(tempfile.mkdtemp(), "none.sqlite"))
    False
    """
    path = Path(path)
    try:
        if not path.is_file() or path.is_symlink():
            return False
        with open(path, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                return False
        row = retry_busy(lambda: _format_row(path))
    except (OSError, sqlite3.Error):
        return False
    return row is not None and row[0] == FORMAT


def read_journal(path) -> JournalSnapshot:
    """What the journal ``path`` holds now, read without writing to it or waiting for a writer.

    Examples
    --------
    >>> import tempfile, os, mopt
    >>> from mopt.core.journal import Journal
    >>> problem = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], sd=0.0)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.sqlite")
    >>> with Journal(path, problem, seed=7) as j:
    ...     j.commit([0, 1, 2], [0, 1], problem.replicate([0, 1, 2], [0, 1], 7))
    >>> snap = read_journal(path)
    >>> snap.n_replications, snap.front["design"].tolist(), snap.designs["f1"].tolist()
    (6, [0, 1], [1.0, 2.0, 3.0])
    """
    path = Path(path)
    if not path.is_file():
        what = "a directory" if path.is_dir() else "missing"
        raise InputError(f"'--journal' {str(path)!r} is {what}; give the journal file of the search.")
    if not is_journal(path):
        raise InputError(f"'--journal' {str(path)!r} is not a mopt journal (no {FORMAT} meta table).")
    try:
        meta, objectives, designs = retry_busy(lambda: _snapshot(path))
    except (sqlite3.Error, KeyError, ValueError, TypeError) as exc:
        raise InputError(f"journal {str(path)!r} cannot be read ({type(exc).__name__}: {exc}).") from None
    return JournalSnapshot(path=path, fingerprint=meta["fingerprint"], seed=int(meta["seed"]),
                           objectives=objectives, n_replications=int(designs["n_reps"].sum()),
                           designs=designs, read_at=time.time())


def _summary(db: sqlite3.Connection, objectives: tuple[str, ...]) -> pd.DataFrame:
    """Per design: replications, and per objective the mean and standard error (two passes in
    SQLite: the mean, then the squared deviations from it, which keep their digits where sums of
    squares would cancel)."""
    q = [_quote(o) for o in objectives]
    means = ", ".join(f"AVG({c}) AS m{k}, COUNT(*) - COUNT({c}) AS nan{k}" for k, c in enumerate(q))
    squares = ", ".join(f"SUM(({c} - a.m{k}) * ({c} - a.m{k}))" for k, c in enumerate(q))
    rows = db.execute(
        f"SELECT r.design, COUNT(*), {', '.join(f'a.m{k}, a.nan{k}' for k in range(len(q)))}, {squares} "
        f"FROM replications r JOIN (SELECT design, {means} FROM replications GROUP BY design) a "
        "USING (design) GROUP BY r.design ORDER BY r.design"
    ).fetchall()
    m = len(objectives)
    designs = np.array([int(r[0]) for r in rows], dtype=np.int64)
    n = np.array([int(r[1]) for r in rows], dtype=np.int64)
    table = np.array([[np.nan if v is None else float(v) for v in r[2:]] for r in rows], dtype=float).reshape(len(rows), 3 * m)
    out = {"design": designs, "n_reps": n}
    for k, o in enumerate(objectives):
        mean, nans, squared = table[:, 2 * k], table[:, 2 * k + 1], table[:, 2 * m + k]
        with np.errstate(invalid="ignore", divide="ignore"):
            se = np.sqrt(squared / (n - 1) / n)
        se[n < 2] = np.nan
        mean[nans > 0] = np.nan
        se[nans > 0] = np.nan
        out[o], out[f"{o}_se"] = mean, se
    frame = pd.DataFrame(out)
    # a journal without replications yet: an empty boolean column (an empty list would be of objects,
    # and indexing by it would select columns, not rows)
    frame["on_front"] = (pareto_mask(frame[list(objectives)].to_numpy(dtype=float)) if len(frame)
                         else np.zeros(0, dtype=bool))
    return frame
