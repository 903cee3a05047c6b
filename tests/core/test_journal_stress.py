"""Many writers and readers on one journal (``benchmarks/journal_stress.py`` at a small size): no
"database is locked" for anyone, no replication lost when writers are killed, the count a reader
sees never goes down, and a Dask search writing through its client and a resume both equal an
uninterrupted run bit for bit.  The benchmark's full
size (8 writers x 10,000 batches, 2 readers every 0.1 s) is run by hand; its figures are in the
script's docstring."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "journal_stress.py"


def test_writers_killed_and_readers_polling_lose_nothing_and_meet_no_lock():
    out = subprocess.run([sys.executable, str(SCRIPT), "--writers", "4", "--batches", "400", "--readers", "2",
                          "--poll", "0.1", "--kills", "2", "--json"], capture_output=True, text=True, timeout=300)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["kills"] == 2, figures
    assert figures["lock_errors"] == 0 and figures["errors"] == 0, figures["error_examples"]
    assert figures["lost_rows"] == 0, figures
    assert figures["count_went_down"] == 0 and figures["reads"] > 0, figures
    assert figures["writer_exit_codes_nonzero"] == 0, figures
    assert figures["batches_logged"] == 4 * 400, figures  # every batch committed by someone
    # the Dask search wrote the rest of the space through its client, and got the uninterrupted result
    assert figures["dask_writers"] == figures["dask_equal_uninterrupted"] == 1, figures
    assert figures["rows_in_journal"] == figures["pairs_in_space"], figures
    # the resume took every committed replication and equals the uninterrupted run
    assert figures["resume_reused"] == figures["rows_in_journal"], figures
    assert figures["resume_equals_uninterrupted"], figures
    assert out.returncode == 0, out.stderr


def test_a_lock_the_busy_handler_did_not_wait_for_is_waited_for_again(tmp_path):
    """retry_busy: SQLite's "database is locked" given at once (here: a reader without a busy
    timeout meets an exclusive lock, as in WAL mode's documented cases) is tried again until the
    lock goes; any other error, or a lock past the deadline, is raised."""
    import sqlite3
    import threading
    import time

    import pytest

    from mopt.core.journal import retry_busy

    path = tmp_path / "db.sqlite"
    holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("INSERT INTO t VALUES (1)")
    holder.execute("BEGIN EXCLUSIVE")

    def read():
        db = sqlite3.connect(path, isolation_level=None, timeout=0)
        try:
            return db.execute("SELECT x FROM t").fetchone()[0]
        finally:
            db.close()

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        read()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retry_busy(read, seconds=0.1)
    threading.Timer(0.3, lambda: holder.execute("COMMIT")).start()
    started = time.monotonic()
    assert retry_busy(read, seconds=10) == 1 and time.monotonic() - started >= 0.25
    calls = []

    def missing():
        calls.append(1)
        raise sqlite3.OperationalError("no such table: u")

    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_busy(missing)
    assert len(calls) == 1
    holder.close()
