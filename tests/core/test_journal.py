"""The SQLite journal: resume without simulating anything twice, refuse foreign journals."""

from __future__ import annotations

import sqlite3

import numpy as np
import pytest

import mopt
from mopt.core.errors import InputError
from mopt.core.journal import Journal
from tests.helpers import assert_same_result


class CountingProblem(mopt.NormalProblem):
    """A NormalProblem that counts every (design, replication) it simulates."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.simulated: list[tuple[int, int]] = []

    def _replicate(self, indices, reps, entropy):
        self.simulated += [(int(i), int(r)) for i in indices for r in reps]
        return super()._replicate(indices, reps, entropy)


def problem(**kw):
    means = np.array([[1.0, 5.0], [2.0, 3.0], [3.0, 2.5], [4.0, 1.0], [2.5, 4.5], [3.5, 3.5]])
    return CountingProblem(means, sd=kw.pop("sd", 1.0), **kw)


def test_commit_and_lookup_round_trip_exactly(tmp_path):
    p = problem()
    values = np.random.default_rng(0).normal(size=(3, 4, 2))
    values[1, 2, 0] = np.nan  # NaN is stored as NULL and comes back as NaN
    values[2, 3, 1] = np.inf
    with Journal(tmp_path / "j.sqlite", p, seed=5) as j:
        j.commit([0, 2, 5], [0, 1, 2, 3], values)
        assert len(j) == 12
    with Journal(tmp_path / "j.sqlite", p, seed=5) as j:
        found, got = j.lookup([5, 0, 1], [3, 0, 4])
    assert found.tolist() == [[True, True, False], [True, True, False], [False, False, False]]
    np.testing.assert_array_equal(got[0, 0], values[2, 3])  # exact doubles, inf kept
    np.testing.assert_array_equal(got[1, 1], values[0, 0])
    assert np.isnan(got[2]).all()
    with sqlite3.connect(tmp_path / "j.sqlite") as db:  # readable with plain SQL, one row per replication
        rows = db.execute('SELECT design, rep, "f1", "f2" FROM replications WHERE design = 0 AND rep = 1').fetchall()
    assert rows == [(0, 1, values[0, 1, 0], values[0, 1, 1])]


@pytest.mark.parametrize("method,options", [("exhaustive", {"n_reps": 4}), ("ocba", {"n0": 3, "delta": 5}),
                                            ("mocba", {"n0": 3}), ("nsga2", {"pop_size": 4}),
                                            ("oo", {"s": 3}), ("blind_pick", {"alpha": 0.5}),
                                            ("screen", {"breadth": 0.5}), ("auto", {})])
def test_a_rerun_reads_everything_from_the_journal_and_matches(tmp_path, method, options):
    p = problem()
    budget = 60
    plain = mopt.solve(problem(), method, budget=budget, seed=3, **options)
    first = mopt.solve(p, method, budget=budget, seed=3, journal=tmp_path / "j.sqlite", **options)
    assert_same_result(plain, first)
    assert first.info["journal"]["reused"] == 0
    assert len(p.simulated) == len(set(p.simulated)) == first.n_evals

    again = problem()
    second = mopt.solve(again, method, budget=budget, seed=3, journal=tmp_path / "j.sqlite", **options)
    assert_same_result(plain, second)
    assert again.simulated == []  # nothing simulated twice
    assert second.info["journal"] == {"path": str(tmp_path / "j.sqlite"), "reused": second.n_evals,
                                      "simulated": 0}


def test_a_partial_journal_is_completed_without_repeats(tmp_path):
    """A journal holding an arbitrary subset (as a killed run leaves it) is used, the rest simulated."""
    path = tmp_path / "j.sqlite"
    full = mopt.solve(problem(), "ocba", budget=120, seed=9, n0=4, delta=6)
    # commit a scattered subset of the replications the run needs
    ref = problem()
    vals = ref.replicate(np.arange(6), np.arange(20), 9)
    keep = np.random.default_rng(1).random((6, 20)) < 0.4
    with Journal(path, ref, seed=9) as j:
        for i in range(6):
            reps = np.flatnonzero(keep[i])
            j.commit([i], reps, vals[i : i + 1, reps])
    p = problem()
    resumed = mopt.solve(p, "ocba", budget=120, seed=9, journal=path, n0=4, delta=6)
    assert_same_result(full, resumed)
    needed = {(int(i), r) for i, n in zip(full.evaluations["design"], full.evaluations["n_reps"], strict=True)
              for r in range(n)}
    held = {(i, int(r)) for i in range(6) for r in np.flatnonzero(keep[i])}
    assert set(p.simulated) == needed - held and len(p.simulated) == len(set(p.simulated))
    assert resumed.info["journal"]["reused"] == len(needed & held)


def test_a_journal_of_another_seed_or_problem_is_refused(tmp_path):
    path = tmp_path / "j.sqlite"
    mopt.solve(problem(), "exhaustive", seed=3, journal=path, n_reps=2)
    with pytest.raises(InputError, match=r"j.sqlite.*seed 3, not 4"):
        mopt.solve(problem(), "exhaustive", seed=4, journal=path, n_reps=2)
    with pytest.raises(InputError, match=r"j.sqlite.*another problem"):
        mopt.solve(problem(sd=2.0), "exhaustive", seed=3, journal=path, n_reps=2)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT COUNT(*) FROM replications").fetchone() == (12,)  # untouched


def test_seed_none_adopts_the_journals_seed(tmp_path):
    path = tmp_path / "j.sqlite"
    with pytest.raises(InputError, match="new: give the run a seed"):
        mopt.solve(problem(), "exhaustive", journal=path, n_reps=2)
    a = mopt.solve(problem(), "exhaustive", seed=11, journal=path, n_reps=2)
    b = mopt.solve(problem(), "exhaustive", journal=path, n_reps=2)
    assert b.seed == 11
    assert_same_result(a, b)


def test_another_method_reuses_the_same_replications(tmp_path):
    """Replications depend on (seed, design, replication) only: any method may take them."""
    path = tmp_path / "j.sqlite"
    mopt.solve(problem(), "exhaustive", seed=2, journal=path, n_reps=10)
    p = problem()
    res = mopt.solve(p, "ocba", budget=60, seed=2, journal=path, n0=5, delta=5)
    assert_same_result(mopt.solve(problem(), "ocba", budget=60, seed=2, n0=5, delta=5), res)
    assert all(r >= 10 for _, r in p.simulated)  # only replications the journal does not hold


@pytest.mark.parametrize("content", [b"not a database at all, just text\n" * 10, b""])
def test_a_file_that_is_not_a_journal_is_refused_by_name(tmp_path, content):
    path = tmp_path / "notes.sqlite"
    path.write_bytes(content)
    if content:
        with pytest.raises(InputError, match=r"notes.sqlite.*not a mopt journal"):
            mopt.solve(problem(), "exhaustive", seed=1, journal=path, n_reps=2)
        assert path.read_bytes() == content  # never overwritten
    else:  # an empty file is an empty SQLite database: it becomes a journal
        assert mopt.solve(problem(), "exhaustive", seed=1, journal=path, n_reps=2).n_evals == 12


def test_an_sqlite_file_of_something_else_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match=r"other.sqlite.*not a mopt journal"):
        mopt.solve(problem(), "exhaustive", seed=1, journal=path, n_reps=2)


def test_bad_journal_arguments_name_the_parameter(tmp_path):
    with pytest.raises(TypeError, match="'journal'"):
        mopt.solve(problem(), "exhaustive", seed=1, journal=3, n_reps=2)
    with pytest.raises(InputError, match="'journal'.*directory"):
        mopt.solve(problem(), "exhaustive", seed=1, journal=tmp_path, n_reps=2)


def test_fuzzed_journal_files_are_refused_by_name_and_left_untouched(tmp_path):
    """Random bytes (with or without an SQLite header) never crash and are never overwritten."""
    from hypothesis import given
    from hypothesis import strategies as st

    from tests.helpers import count_bad_input, fuzz

    p = problem()
    sqlite_header = b"SQLite format 3\x00"

    @fuzz(120)
    @given(body=st.binary(min_size=1, max_size=2048), header=st.booleans())
    def check(body, header):
        content = (sqlite_header + body) if header else body
        path = tmp_path / "fuzz.sqlite"
        for leftover in tmp_path.glob("fuzz.sqlite*"):
            leftover.unlink()
        path.write_bytes(content)
        with pytest.raises(InputError, match=r"fuzz.sqlite.*(not a mopt journal|format)"):
            mopt.solve(p, "exhaustive", seed=1, journal=path, n_reps=2)
        assert path.read_bytes() == content
        count_bad_input("journal")

    check()


def test_a_failed_commit_is_one_error_and_keeps_what_was_committed(tmp_path):
    from mopt.core.errors import MoptError

    path = tmp_path / "j.sqlite"
    p = problem()
    j = Journal(path, p, seed=1)
    j.commit([0], [0, 1], np.ones((1, 2, 2)))

    class DiskFull:  # the connection, with every bulk insert failing as on a full disk
        def __init__(self, db):
            self.db = db
            self.total_changes = db.total_changes

        def execute(self, *args):
            return self.db.execute(*args)

        def executemany(self, *args):
            raise sqlite3.OperationalError("database or disk is full")

        @property
        def in_transaction(self):
            return self.db.in_transaction

        def close(self):
            self.db.close()

    j._db = DiskFull(j._db)
    with pytest.raises(MoptError, match=r"j.sqlite.*disk is full.*run again to resume"):
        j.commit([1], [0], np.ones((1, 1, 2)))
    j.close()
    with Journal(path, p, seed=1) as again:
        assert len(again) == 2  # the first commit is intact, the failed one left nothing


def test_a_real_full_disk_is_one_error_naming_the_journal(tmp_path):
    """SQLite rolls back by itself on SQLITE_FULL; the error still names the file."""
    from mopt.core.errors import MoptError

    p = problem()
    with Journal(tmp_path / "j.sqlite", p, seed=1) as j:
        j._db.execute("PRAGMA max_page_count=12")
        with pytest.raises(MoptError, match=r"j.sqlite.*full"):
            j.commit(np.arange(6), np.arange(5000), np.ones((6, 5000, 2)))


def test_a_journal_object_is_checked_and_sees_its_own_commits(tmp_path):
    path = tmp_path / "j.sqlite"
    a = problem()
    with Journal(path, a, seed=1) as j:
        first = mopt.solve(a, "exhaustive", seed=1, journal=j, n_reps=3)
        again = problem()
        second = mopt.solve(again, "exhaustive", seed=1, journal=j, n_reps=3)  # same object: all reused
        assert again.simulated == [] and second.info["journal"]["reused"] == 18
        assert_same_result(first, second)
        with pytest.raises(InputError, match="another problem"):
            mopt.solve(problem(sd=3.0), "exhaustive", seed=1, journal=j, n_reps=3)


@pytest.mark.parametrize("damage", [
    "UPDATE meta SET value = 'x' WHERE key = 'seed'",
    "DELETE FROM meta WHERE key = 'seed'",
    'ALTER TABLE replications RENAME COLUMN "f2" TO "g2"',
    "UPDATE replications SET \"f1\" = 'abc'",
])
def test_a_damaged_journal_is_refused_by_name(tmp_path, damage):
    path = tmp_path / "j.sqlite"
    mopt.solve(problem(), "exhaustive", seed=1, journal=path, n_reps=2)
    db = sqlite3.connect(path)
    db.execute(damage)
    db.commit()
    db.close()
    with pytest.raises(InputError, match=r"j.sqlite"):
        mopt.solve(problem(), "exhaustive", seed=1, journal=path, n_reps=2)


def test_a_journal_under_a_file_is_refused_by_name(tmp_path):
    (tmp_path / "plain").write_text("x")
    with pytest.raises(InputError, match=r"'journal': cannot create .*plain/j.sqlite"):
        mopt.solve(problem(), "exhaustive", seed=1, journal=tmp_path / "plain" / "j.sqlite", n_reps=2)


def test_a_database_url_is_refused_not_made_into_folders(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    problem = mopt.NormalProblem([[1.0], [2.0]], sd=1.0)
    with pytest.raises(mopt.InputError, match="'journal' must be the path of a file, not a URL"):
        mopt.solve(problem, "exhaustive", journal="sqlite:///x.db", seed=1)
    assert list(tmp_path.iterdir()) == []


def _sha256(path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["table", "view", "app_id", "format", "wal"])
def test_a_foreign_sqlite_file_is_refused_with_its_bytes_unchanged(tmp_path, kind):
    """Issue 34, item 4: recognised read-only first; WAL is set only on a mopt journal."""
    path = tmp_path / "notes.sqlite"
    db = sqlite3.connect(path)
    if kind in ("table", "wal"):
        if kind == "wal":  # a stranger's WAL database: no -wal / -shm may appear beside it either
            db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE notes (x)")
        db.execute("INSERT INTO notes VALUES (1)")
    elif kind == "view":  # mopt's two tables, plus an object of someone else's
        with Journal(tmp_path / "seed.sqlite", problem(), seed=1):
            pass
        db.close()
        path.write_bytes((tmp_path / "seed.sqlite").read_bytes())
        db = sqlite3.connect(path)
        db.execute("PRAGMA journal_mode=DELETE")
        db.execute("CREATE VIEW v AS SELECT * FROM meta")
    elif kind == "app_id":  # an empty database that belongs to another application
        db.execute("PRAGMA application_id = 1234")
    else:  # mopt's tables, another format
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("CREATE TABLE replications (design INTEGER, rep INTEGER)")
        db.execute("INSERT INTO meta VALUES ('format', 'mopt-journal-0')")
    db.commit()
    db.close()
    before, names = _sha256(path), sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError, match=r"notes\.sqlite.*(not a mopt journal|format 'mopt-journal-0')") as info:
        Journal(path, problem(), seed=1)
    assert "\n" not in str(info.value)
    assert _sha256(path) == before  # not switched to WAL, nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == names  # no -wal / -shm left beside it


def test_a_journal_killed_before_its_tables_still_resumes_as_new(tmp_path):
    """A file with no schema at all (created, WAL set, killed before CREATE TABLE) is taken as new."""
    path = tmp_path / "j.sqlite"
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    assert path.stat().st_size > 0
    with Journal(path, problem(), seed=4) as j:
        j.commit([0], [0], np.ones((1, 1, 2)))
    with Journal(path, problem(), seed=None) as j:
        assert (j.seed, len(j)) == (4, 1)


def test_a_commit_waits_for_another_writers_lock_instead_of_failing(tmp_path):
    """Another process's write transaction holds the lock for 0.5 s: the commit waits and succeeds."""
    import threading
    import time

    path = tmp_path / "j.sqlite"
    with Journal(path, problem(), seed=1) as j:
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        other.execute("BEGIN IMMEDIATE")
        threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
        start = time.perf_counter()
        j.commit([0], [0], np.ones((1, 1, 2)))
        assert time.perf_counter() - start >= 0.4
        other.close()
    with Journal(path, problem(), seed=1) as j:
        assert len(j) == 1


def test_a_journal_another_writer_created_first_is_adopted_not_created_twice(tmp_path):
    """Two writers find a new file at once: the second's creation, inside its write lock, sees the
    first's tables and checks them instead (a second CREATE TABLE would fail)."""
    path = tmp_path / "j.sqlite"
    with Journal(path, problem(), seed=3) as first, Journal(path, problem(), seed=3) as second:
        assert second._create(3) is False
        first.commit([1], [0, 1], np.ones((1, 2, 2)))
    with Journal(path, problem(), seed=None) as j:
        assert (j.seed, len(j)) == (3, 2)
