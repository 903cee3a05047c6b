"""The journal: an SQLite record of every replication a run has finished, for resuming and reuse.

A replication is addressed by ``(seed, design, replication)`` and depends on nothing else (see
:mod:`mopt.core.random`), so a journal of one problem and one seed is a cache that any later run
of that problem and seed may read: a run killed at any moment and started again replays its
search, takes every replication the journal holds instead of simulating it, and ends with exactly
the result of an uninterrupted run.  The search decisions are replayed, not stored: they follow
from the seed and the replications.

Every finished batch is committed in one transaction (WAL mode), so a killed process loses at
most the batches still running (after an operating-system crash or a power loss, the last commits
may be lost too, but the file stays consistent and resuming stays correct).  A journal records the problem's fingerprint and the seed; opening it for
another problem or seed is refused rather than mixed in.

Several writers may share one journal (several ``mopt frontier --journal J`` processes, a Dask run
committing through its client) while readers poll it (``mopt report --watch``,
:mod:`mopt.core.journal_view`): WAL mode lets readers read while one writer commits, every
connection waits up to :data:`BUSY_SECONDS` for a lock instead of failing with "database is
locked", a commit is one short ``BEGIN IMMEDIATE`` transaction (no read-then-write upgrade that
SQLite could refuse), and writers that create the journal at the same moment agree on one schema
(``benchmarks/journal_stress.py``: 8 writers, SIGKILLs, 2 readers, no lock error, no lost row).

Tables: ``meta(key, value)`` and ``replications(design, rep, <objective>...)`` with one row per
replication (primary key ``(design, rep)``, objective values as REAL; NaN is stored as NULL).
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path

import numpy as np

from mopt.core.errors import InputError, MoptError

__all__ = ["Journal", "BUSY_SECONDS", "FORMAT", "retry_busy"]

FORMAT = "mopt-journal-1"
#: how long a connection waits for another's lock before SQLite reports "database is locked"
#: (a commit holds the lock for milliseconds; the margin covers a loaded machine)
BUSY_SECONDS = 60.0
_SHIFT = np.int64(1) << np.int64(32)  # look-up key = rank of the design in the journal * 2**32 + rep


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused for a lock (SQLITE_BUSY or SQLITE_LOCKED, any extended code)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (5, 6)
    return "locked" in str(exc) or "busy" in str(exc)


def retry_busy(action, seconds: float = BUSY_SECONDS):
    """``action()``, tried again for up to ``seconds`` while SQLite reports a lock that its busy
    handler did not wait for. WAL mode has such moments (SQLite's documentation, "Sometimes queries
    return SQLITE_BUSY in WAL mode"): a connection closing the last handle, or recovering after a
    killed writer, holds an exclusive lock briefly and the others are refused at once. Seen as
    "open: database is locked" by one of 4 writers of ``benchmarks/journal_stress.py`` on a loaded
    2-core machine."""
    deadline = time.monotonic() + seconds
    delay = 0.005
    while True:
        try:
            return action()
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() >= deadline:
                raise
        time.sleep(delay)
        delay = min(2 * delay, 0.2)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class Journal:
    """The replications of one problem and seed, kept in the SQLite file ``path``.

    Parameters
    ----------
    path : str or PathLike
        The journal file; created (with its directory) if it does not exist.
    problem : StochasticProblem
        Its :meth:`~mopt.core.problem.StochasticProblem.fingerprint` and objectives are recorded.
    seed : int or None
        The run's seed (entropy).  None adopts the seed of an existing journal (a run started again
        without a seed resumes), or raises for a new journal.

    Examples
    --------
    >>> import tempfile, os, mopt
    >>> problem = mopt.NormalProblem([[1.0], [2.0]], sd=1.0)
    >>> path = os.path.join(tempfile.mkdtemp(), "run.sqlite")
    >>> with Journal(path, problem, seed=7) as j:
    ...     j.commit([0, 1], [0, 1], np.ones((2, 2, 1)))
    >>> with Journal(path, problem, seed=None) as j:
    ...     j.seed, len(j)
    (7, 4)
    """

    def __init__(self, path, problem, seed: int | None):
        if isinstance(path, str) and "://" in path:  # a database URL would become folders ("sqlite:/")
            raise InputError(f"'journal' must be the path of a file, not a URL; got {path!r} "
                             f"(for 'sqlite:///x.db' give 'x.db').")
        self.path = Path(path)
        self.objectives = tuple(problem.objectives)
        self.fingerprint = problem.fingerprint()
        if self.path.exists() and self.path.is_dir():
            raise InputError(f"'journal' must be a file; {str(self.path)!r} is a directory.")
        if self.path.exists() and not self.path.is_file():  # a FIFO or a device: SQLite would hang or fail
            raise InputError(f"'journal' must be a regular file; {str(self.path)!r} is not (a FIFO or a device).")
        if self.path.is_file() and self.path.stat().st_size > 0:
            with open(self.path, "rb") as f:
                if f.read(16) != b"SQLite format 3\x00":  # SQLite would overwrite a short file
                    raise InputError(f"journal {str(self.path)!r} is not a mopt journal (not an SQLite file).")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"'journal': cannot create {str(self.path)!r} ({exc.strerror or exc}).") from None
        self._db = None
        try:
            retry_busy(lambda: self._connect(seed))
        except InputError:
            self.close()
            raise
        except sqlite3.OperationalError as exc:  # e.g. a directory that cannot be written
            self.close()
            raise InputError(f"'journal': cannot open {str(self.path)!r} (SQLite says: {exc}).") from None
        except (sqlite3.DatabaseError, KeyError, ValueError, TypeError) as exc:
            self.close()
            raise InputError(f"journal {str(self.path)!r} is not a mopt journal, or is damaged "
                             f"({type(exc).__name__}: {exc}).") from None

    # -- opening -----------------------------------------------------------------------------
    def _connect(self, seed: int | None) -> None:
        """Recognise, connect, check or create, load: one attempt (closed again if it fails)."""
        try:
            if self.path.is_file() and self.path.stat().st_size > 0:
                self._recognise()  # read-only: a foreign file is refused untouched
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_SECONDS)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self.seed = self._open(seed)
            self._load()
        except BaseException:
            self.close()
            raise

    def _recognise(self) -> None:
        """Check, read-only, that the existing SQLite file ``path`` is a mopt journal (its tables, its
        format) before anything writes to it (WAL mode rewrites the file's header): a foreign
        database is refused with its bytes unchanged.  A file with no schema at all (a journal whose
        creation was interrupted) passes, unless it carries another application's id or version."""
        # without a -wal beside it the file holds everything: read it as immutable (SQLite creates no
        # -wal/-shm beside a stranger's file); with one, read-only (the WAL's commits included)
        wal = os.path.lexists(f"{self.path}-wal")
        uri = "file:" + urllib.parse.quote(os.path.abspath(self.path)) + ("?mode=ro" if wal else "?mode=ro&immutable=1")
        db = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_SECONDS)
        try:
            objects = {(r[0], r[1]) for r in db.execute("SELECT type, name FROM sqlite_master")}
            tables = {name for kind, name in objects if kind == "table"}
            if not objects:
                app, version = (db.execute(f"PRAGMA {k}").fetchone()[0] for k in ("application_id", "user_version"))
                if app or version:
                    raise InputError(f"journal {str(self.path)!r} is not a mopt journal (an empty SQLite "
                                     f"database of application id {app}, version {version}).")
                return
            others = sorted(name for kind, name in objects if kind != "index" or not name.startswith("sqlite_"))
            if tables != {"meta", "replications"} or set(others) != tables:
                raise InputError(f"journal {str(self.path)!r} is not a mopt journal (tables {sorted(tables)}"
                                 + (f", other objects {sorted(set(others) - tables)}" if set(others) - tables else "")
                                 + ").")
            row = db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if row is None or row[0] != FORMAT:
                raise InputError(f"journal {str(self.path)!r} has format {None if row is None else row[0]!r}; "
                                 f"this mopt reads {FORMAT!r}.")
        finally:
            db.close()

    def _open(self, seed: int | None) -> int:
        db = self._db
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            if seed is None:
                raise InputError(f"journal {str(self.path)!r} is new: give the run a seed.")
            if self._create(int(seed)):
                return int(seed)
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables != {"meta", "replications"}:
            raise InputError(f"journal {str(self.path)!r} is not a mopt journal (tables {sorted(tables)}).")
        meta = dict(db.execute("SELECT key, value FROM meta"))
        if meta.get("format") != FORMAT:
            raise InputError(f"journal {str(self.path)!r} has format {meta.get('format')!r}; this mopt "
                             f"reads {FORMAT!r}.")
        if meta.get("fingerprint") != self.fingerprint:
            raise InputError(
                f"journal {str(self.path)!r} was written for another problem (fingerprint "
                f"{meta.get('fingerprint')}, this problem {self.fingerprint}); use another journal file."
            )
        columns = [r[1] for r in db.execute("PRAGMA table_info(replications)")]
        if columns != ["design", "rep", *self.objectives]:
            raise InputError(f"journal {str(self.path)!r} records the columns {columns[2:]}, not this "
                             f"problem's objectives {list(self.objectives)}.")
        stored = int(meta["seed"])
        if seed is not None and int(seed) != stored:
            raise InputError(f"journal {str(self.path)!r} was written with seed {stored}, not {int(seed)}; "
                             "use another journal file, or that seed to resume.")
        return stored

    def _create(self, seed: int) -> bool:
        """Create the tables of a new journal; False if another writer created them between this
        one's first look and its write lock (the look is repeated inside the write transaction;
        the other's schema is then checked like any existing journal's)."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]:
                db.execute("COMMIT")
                return False
            meta = {"format": FORMAT, "fingerprint": self.fingerprint, "seed": str(seed),
                    "objectives": json.dumps(self.objectives)}
            columns = ", ".join(f"{_quote(o)} REAL" for o in self.objectives)
            db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
            db.execute(f"CREATE TABLE replications (design INTEGER NOT NULL, rep INTEGER NOT NULL, "
                       f"{columns}, PRIMARY KEY (design, rep)) WITHOUT ROWID")
            db.execute("COMMIT")
            return True
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def _load(self) -> None:
        """Read every committed replication (sorted keys for vectorised look-ups)."""
        cols = ", ".join(_quote(o) for o in self.objectives)
        rows = self._db.execute(f"SELECT design, rep, {cols} FROM replications ORDER BY design, rep").fetchall()
        m = len(self.objectives)
        arr = np.array(rows, dtype=float).reshape(len(rows), 2 + m)  # None (NaN) -> nan
        if rows:
            self._check_addresses(rows, arr[:, :2])
        # designs and reps as int64 from the rows (design indices go up to 2**62: floats round them)
        designs = np.fromiter((int(r[0]) for r in rows), dtype=np.int64, count=len(rows))
        reps = np.fromiter((int(r[1]) for r in rows), dtype=np.int64, count=len(rows))
        self._index(designs, reps, arr[:, 2:])
        self.n_loaded = len(rows)
        self.n_committed = 0
        self._pending: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # committed, not yet indexed

    def _index(self, designs: np.ndarray, reps: np.ndarray, values: np.ndarray) -> None:
        """Sorted look-up keys of the pairs (the first of duplicates kept).  A key is the rank of the
        design among the journal's designs times 2**32 plus the replication, so designs of any
        index (a space of billions) fit in an int64 key."""
        self._designs = np.unique(designs)
        keys = np.searchsorted(self._designs, designs).astype(np.int64) * _SHIFT + reps
        keys, first = np.unique(keys, return_index=True)
        self._keys, self._values = keys, values[first]

    def _check_addresses(self, rows, pairs: np.ndarray) -> None:
        """Every row's design and replication index is an integer in range (SQLite stores a
        hand-edited ``1.5`` as it is; truncating it would silently change a replication)."""
        limits = np.array([2.0**62, _SHIFT])
        bad = ((pairs != np.floor(pairs)) | (pairs < 0) | (pairs >= limits)).any(axis=1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            design, rep = rows[k][0], rows[k][1]
            raise InputError(f"journal {str(self.path)!r} is damaged: the row of design {design!r}, replication "
                             f"{rep!r} does not address a replication (both must be integers, design in [0, "
                             "2**62), replication in [0, 2**32)); use another journal file.")

    def __len__(self) -> int:
        """Replications in the journal (loaded at opening plus committed since)."""
        return self.n_loaded + self.n_committed

    # -- reading and writing -------------------------------------------------------------------
    @staticmethod
    def _check_reps(reps: np.ndarray) -> None:
        if len(reps) and reps.max() >= _SHIFT:
            raise InputError(f"a journal holds replications 0 .. 2**32 - 1 of each design; got replication "
                             f"{reps.max()}.")

    def _pair_keys(self, indices: np.ndarray, reps: np.ndarray) -> np.ndarray:
        """Look-up keys of the pairs ``indices × reps`` (-1 for designs the journal does not hold)."""
        self._check_reps(reps)
        rank = np.searchsorted(self._designs, indices)
        held = rank < len(self._designs)
        held[held] = self._designs[rank[held]] == indices[held]
        keys = rank.astype(np.int64)[:, None] * _SHIFT + reps[None, :]
        keys[~held] = -1
        return keys.ravel()

    def index_commits(self) -> None:
        """Make what this object committed since it was opened (or last indexed) visible to
        :meth:`lookup`.  A run never asks for a pair it committed itself, so the driver calls this
        once per run, not once per lookup."""
        if self._pending:
            designs = np.concatenate([self._designs[self._keys // _SHIFT], *(d for d, _, _ in self._pending)])
            reps = np.concatenate([self._keys % _SHIFT, *(r for _, r, _ in self._pending)])
            values = np.concatenate([self._values, *(v for _, _, v in self._pending)])
            self._index(designs, reps, values)
            self._pending = []

    def lookup(self, indices, reps) -> tuple[np.ndarray, np.ndarray]:
        """Which of the pairs ``indices × reps`` the journal held when it was opened or last
        indexed (:meth:`index_commits`).

        Returns ``(found, values)``: a boolean array (len(indices), len(reps)) and the values
        (len(indices), len(reps), n_obj), NaN where not found.
        """
        indices = np.asarray(indices, dtype=np.int64)
        reps = np.asarray(reps, dtype=np.int64)
        keys = self._pair_keys(indices, reps)
        pos = np.searchsorted(self._keys, keys)
        found = pos < len(self._keys)
        found[found] = self._keys[pos[found]] == keys[found]
        values = np.full((len(keys), len(self.objectives)), np.nan)
        values[found] = self._values[pos[found]]
        shape = (len(indices), len(reps))
        return found.reshape(shape), values.reshape(*shape, len(self.objectives))

    def commit(self, indices, reps, values) -> None:
        """Record the replications ``values`` (len(indices), len(reps), n_obj) in one transaction."""
        indices = np.asarray(indices, dtype=np.int64)
        reps = np.asarray(reps, dtype=np.int64)
        values = np.asarray(values, dtype=float)
        self._check_reps(reps)
        rows = [
            (int(i), int(r), *[None if np.isnan(v) else float(v) for v in values[a, b]])
            for a, i in enumerate(indices)
            for b, r in enumerate(reps)
        ]
        marks = ", ".join("?" * (2 + len(self.objectives)))
        db = self._db
        before = db.total_changes
        db.execute("BEGIN IMMEDIATE")
        try:
            # a pair already present holds the same values (they depend on seed, design, rep only)
            db.executemany(f"INSERT OR IGNORE INTO replications VALUES ({marks})", rows)
            db.execute("COMMIT")
        except sqlite3.Error as exc:
            if db.in_transaction:  # SQLite may have rolled back already (e.g. disk full)
                db.execute("ROLLBACK")
            raise MoptError(f"journal {str(self.path)!r}: cannot record replications ({exc}); what it "
                            "holds is intact, run again to resume.") from None
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        self.n_committed += db.total_changes - before
        self._pending.append((np.repeat(indices, len(reps)), np.tile(reps, len(indices)),
                              values.reshape(len(indices) * len(reps), len(self.objectives))))

    def close(self) -> None:
        db = getattr(self, "_db", None)
        if db is not None:
            db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self) -> str:
        return f"Journal({os.fspath(self.path)!r}, seed={self.seed}, {len(self)} replications)"
