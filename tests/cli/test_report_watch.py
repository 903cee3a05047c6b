"""``mopt report --watch``: a live page of a search read from its journal (the front so far, the
replications spent, the pace and the time left), written atomically, replaced by the search's own
set at the end; bad input ends in one line naming the option."""

from __future__ import annotations

import hashlib
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.cli.watch import WatchPage, _Directory
from mopt.core.journal import Journal
from mopt.core.journal_view import JournalSnapshot, read_journal
from mopt.scenario import load_scenario
from tests.helpers import REFERENCE, assert_one_line_error


def text_of(page: Path) -> str:
    """The page's words, tags removed."""
    return " ".join(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")).split())


def front_designs(page: Path) -> list[int]:
    """The design column of the page's front table."""
    html = page.read_text(encoding="utf-8")
    table = html[html.index("<h2>Front so far"):]
    table = table[: table.index("</table>")]
    rows = re.findall(r"<tr>\s*<td>(\d+)</td>", table)
    return sorted(int(r) for r in rows)


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory):
    """The reference scenario searched exhaustively with a journal: (journal, result)."""
    journal = tmp_path_factory.mktemp("watch") / "run.sqlite"
    problem = load_scenario(REFERENCE).problem(seed=1)
    result = mopt.solve(problem, "exhaustive", seed=1, journal=journal)
    return journal, result


def test_the_page_of_a_finished_journal_shows_the_searchs_front_and_budget(reference_run, tmp_path, capsys):
    journal, result = reference_run
    before = hashlib.sha256(journal.read_bytes()).hexdigest()
    code = main(["report", "--watch", "--journal", str(journal), "--scenario", str(REFERENCE), "--once",
                 str(tmp_path / "live")])
    assert code == 0, capsys.readouterr().err
    page = tmp_path / "live" / "report.html"
    assert front_designs(page) == sorted(result.front["design"].tolist())  # exhaustive: the same means
    words = text_of(page)
    assert "replications spent 2,890 of 2,890 (100.0%)" in words  # 289 strategies x 10 (the scenario's default)
    assert "none: the budget is spent" in words
    assert "tail-phase makespan [s]" in words  # the family's labels
    row = result.front.sort_values("makespan").iloc[0]  # its mean ± se as the page rounds it
    se = row["makespan_se"]
    places = max(0, 1 - int(np.floor(np.log10(se))))
    assert f"{row['makespan']:,.{places}f} ± " in words
    assert '<meta http-equiv="refresh" content="2">' in page.read_text(encoding="utf-8")
    assert hashlib.sha256(journal.read_bytes()).hexdigest() == before  # read-only


def test_pace_and_time_left_are_measured_between_reads():
    """100 replications at t = 0, 300 at t = 10 s: 20 replications/s; 1,000 left of 1,300: 50 s."""
    designs = pd.DataFrame({"design": [0], "n_reps": [100], "f1": [1.0], "f1_se": [0.1], "on_front": [True]})
    page = WatchPage(Path("j.sqlite"), budget=1300)

    def snap(n, t):
        return JournalSnapshot(Path("j.sqlite"), "x", 1, ("f1",), n, designs, t)

    first = dict(page.progress(snap(100, 1000.0)).to_numpy())
    assert first["time left at this pace"].startswith("unknown until the next refresh")
    second = dict(page.progress(snap(300, 1010.0)).to_numpy())
    assert second["pace"] == "20.0 replications/s over the last 10 s"
    assert second["time left at this pace"] == "50 s"
    assert second["replications spent"] == "300 of 1,300 (23.1%)"
    # reads older than the window no longer count: 300 -> 900 over the last 60 s
    third = dict(page.progress(snap(900, 1070.0)).to_numpy())
    assert third["pace"] == "10.0 replications/s over the last 1 min 0 s"
    assert third["time left at this pace"] == "40 s"
    nobudget = dict(WatchPage(Path("j.sqlite")).progress(snap(5, 0.0)).to_numpy())
    assert nobudget["time left at this pace"].startswith("unknown (no budget")


def test_the_front_so_far_is_the_means_over_what_the_journal_holds(tmp_path):
    """Design 1 has one replication more than the others: its mean is over three."""
    problem = mopt.NormalProblem([[1.0, 3.0], [2.0, 2.0], [3.0, 3.5]], sd=1.0)
    path = tmp_path / "j.sqlite"
    with Journal(path, problem, seed=5) as j:
        j.commit([0, 1, 2], [0, 1], problem.replicate([0, 1, 2], [0, 1], 5))
        j.commit([1], [2], problem.replicate([1], [2], 5))
    snap = read_journal(path)
    values = problem.replicate([0, 1, 2], [0, 1, 2], 5)
    assert snap.n_replications == 7
    assert snap.designs["n_reps"].tolist() == [2, 3, 2]
    np.testing.assert_allclose(snap.designs.loc[1, ["f1", "f2"]].to_numpy(float), values[1].mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(snap.designs.loc[1, "f1_se"], values[1, :, 0].std(ddof=1) / np.sqrt(3), rtol=1e-9)
    expected = mopt.core.pareto.pareto_mask(np.stack([values[0, :2].mean(0), values[1].mean(0), values[2, :2].mean(0)]))
    assert snap.designs["on_front"].tolist() == expected.tolist()


def test_bad_watch_input_is_one_line_naming_the_option(reference_run, tmp_path, capsys):
    journal, _ = reference_run
    empty = tmp_path / "empty"
    empty.mkdir()
    two = tmp_path / "two"
    two.mkdir()
    for name in ("a.sqlite", "b.sqlite"):
        (two / name).write_bytes(journal.read_bytes())
    user = tmp_path / "user"
    user.mkdir()
    (user / "report.html").write_text("mine")
    cases = [
        (["--watch", "--journal", str(journal), "--interval", "0"], "'--interval' must be a number of seconds > 0"),
        (["--watch", "--journal", str(journal), "--interval", "-1"], "'--interval'"),
        (["--watch", "--journal", str(journal), "--interval", "nan"], "'--interval'"),
        (["--watch", str(empty)], "holds no mopt journal; give --journal FILE"),
        (["--watch", str(two)], "holds 2 journals (a.sqlite, b.sqlite); give --journal FILE"),
        (["--watch"], "'--watch' needs the search's journal"),
        (["--watch", "--journal", str(tmp_path / "none.sqlite")], "'--journal'"),
        (["--watch", "--journal", str(REFERENCE)], "is not a mopt journal"),
        (["--watch", "--journal", str(journal), "--scenario", str(REFERENCE.with_name("vmc_partition.toml"))],
         "was written for another problem"),
        (["--watch", "--journal", str(journal), "--budget", "0"], "'--budget' must be an integer >= 1"),
        (["--watch", "--journal", str(journal), str(user)], "does not replace it"),
        (["--journal", str(journal), str(empty)], "'--journal' goes with '--watch'"),
        (["--once", str(empty)], "'--once' goes with '--watch'"),
        (["--watch", "--journal", str(journal), "--out", str(journal)], "one of the run's inputs"),
    ]
    for argv, fragment in cases:
        assert_one_line_error(capsys, main(["report", *argv]), fragment)
    assert (user / "report.html").read_text() == "mine"


def test_the_live_set_is_replaced_by_the_searchs_and_then_left_alone(reference_run, tmp_path, capsys):
    """The page in DIR has a manifest of its own: ``mopt frontier --out DIR`` may replace it; once
    DIR holds a result, the watch writes nothing more and says so."""
    journal, _ = reference_run
    live = tmp_path / "live"
    assert main(["report", "--watch", "--journal", str(journal), "--once", str(live)]) == 0
    assert sorted(os.listdir(live)) == ["manifest.json", "report.html"]
    assert_one_line_error(capsys, main(["report", str(live)]), "holds the live page of 'mopt report --watch'")
    target = _Directory(live)  # a watch still running when the search swaps its set in
    assert main(["frontier", str(REFERENCE), "--journal", str(journal), "--out", str(live), "--quiet"]) == 0
    capsys.readouterr()
    final = (live / "report.html").read_bytes()
    assert not (live / "manifest.json").exists() and (live / "result.json").exists()
    assert target.write("<p>late</p>") is False
    assert (live / "report.html").read_bytes() == final
    assert_one_line_error(capsys, main(["report", "--watch", "--journal", str(journal), str(live)]),
                          "holds a finished result")


def test_the_watch_refreshes_while_a_writer_commits_and_ctrl_c_ends_it(tmp_path):
    """A writer commits batches while the watch runs at 0.2 s; the page's count grows, every page
    read is whole, and SIGINT ends the watch with exit code 0."""
    problem = mopt.NormalProblem(np.random.default_rng(0).uniform(0, 1, (30, 2)), sd=0.1)
    path = tmp_path / "run.sqlite"
    page = tmp_path / "run.report.html"
    stop = threading.Event()

    def write():
        with Journal(path, problem, seed=3) as j:
            r = 0
            while not stop.is_set():
                j.commit(np.arange(30), [r], problem.replicate(np.arange(30), [r], 3))
                r += 1
                time.sleep(0.02)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        while not path.exists():
            time.sleep(0.01)
        time.sleep(0.2)
        watch = subprocess.Popen([sys.executable, "-m", "mopt", "report", "--watch", "--journal", str(path),
                                  "--interval", "0.2", "--budget", "10000000"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        counts = []
        deadline = time.time() + 60
        while len(set(counts)) < 3 and time.time() < deadline:
            if page.exists():
                text = page.read_text(encoding="utf-8")
                assert text.rstrip().endswith("</html>")  # never half a page
                counts.append(int(re.search(r"replications spent</td>\s*<td>([\d,]+)", text).group(1).replace(",", "")))
            time.sleep(0.05)
        watch.send_signal(signal.SIGINT)
        out, err = watch.communicate(timeout=30)
    finally:
        stop.set()
        writer.join()
    assert len(set(counts)) >= 3 and counts == sorted(counts), counts
    assert watch.returncode == 0, err
    assert "watch stopped" in err and "Traceback" not in err
    assert "replications/s" in text_of(page)


def test_a_watch_beside_a_running_frontier_ends_with_the_frontiers_own_report(tmp_path):
    """``mopt frontier S --journal DIR/run.sqlite --out DIR`` and ``mopt report DIR --watch`` at once:
    the watch's pages appear in DIR while the search runs, the search's set replaces them, and the
    watch then stops (exit 0) leaving the search's report.html, its journal carried over."""
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    search = subprocess.Popen([sys.executable, "-m", "mopt", "frontier", str(REFERENCE), "--journal",
                               str(out / "run.sqlite"), "--out", str(out), "--quiet", "--option", "n_reps=300"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    deadline = time.time() + 120
    from mopt.core.journal_view import is_journal

    while not is_journal(out / "run.sqlite") and time.time() < deadline and search.poll() is None:
        time.sleep(0.05)
    watch = subprocess.run([sys.executable, "-m", "mopt", "report", str(out), "--watch", "--interval", "0.3",
                            "--scenario", str(REFERENCE), "--budget", str(10**9)],
                           capture_output=True, text=True, timeout=180, env=env)
    assert search.wait(timeout=180) == 0, search.stderr.read()
    assert watch.returncode == 0, watch.stderr
    assert "now holds the search's result" in watch.stdout
    names = sorted(n for n in os.listdir(out) if not n.endswith(("-wal", "-shm")))  # SQLite's, beside the journal
    assert names == ["evaluations.csv", "front.csv", "front.png", "report.html", "result.json", "run.sqlite"]
    assert "mopt watch" not in (out / "report.html").read_text(encoding="utf-8")


def test_a_refresh_tolerates_a_missing_read_but_not_another_problem(tmp_path, monkeypatch):
    from mopt.cli.watch import MISSES, _File, _reread
    from mopt.core.errors import InputError

    one, two = mopt.NormalProblem([[1.0, 2.0]], sd=1.0), mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0]], sd=1.0)
    for name, problem in (("one.sqlite", one), ("two.sqlite", two)):
        with Journal(tmp_path / name, problem, seed=1) as j:
            j.commit([0], [0], problem.replicate([0], [0], 1))
    first = read_journal(tmp_path / "one.sqlite")
    target = _File(tmp_path / "page.html")
    assert _reread(tmp_path / "one.sqlite", first, target, 0).n_replications == 1
    with pytest.raises(InputError, match="now holds another problem or seed"):
        _reread(tmp_path / "two.sqlite", first, target, 0)
    calls = []
    real = read_journal

    def flaky(path):  # absent for MISSES - 1 reads (a set being swapped in), then back
        calls.append(path)
        if len(calls) < MISSES:
            raise InputError("'--journal' is missing")
        return real(path)

    monkeypatch.setattr("mopt.core.journal_view.read_journal", flaky)
    assert _reread(tmp_path / "one.sqlite", first, target, 0).n_replications == 1
    calls.clear()
    with pytest.raises(InputError, match="missing"):
        _reread(tmp_path / "gone.sqlite", first, target, 0)
    assert len(calls) == MISSES


def test_a_watch_of_a_journal_without_replications_yet_draws_a_page(tmp_path, capsys):
    """The moment between a search creating its journal and committing its first batch (CI met it:
    the watch ended with KeyError 'makespan'): the page says no replication yet, exit 0."""
    from mopt.core.journal import Journal
    from mopt.core.journal_view import read_journal
    from mopt.scenario import load_scenario

    problem = load_scenario(REFERENCE).problem(seed=1)
    Journal(tmp_path / "run" / "run.sqlite", problem, seed=1).close()
    snap = read_journal(tmp_path / "run" / "run.sqlite")
    assert snap.n_replications == 0 and snap.designs["on_front"].dtype == bool
    assert main(["report", str(tmp_path / "run"), "--watch", "--once", "--scenario", str(REFERENCE),
                 "--budget", "1000"]) == 0
    assert (tmp_path / "run" / "report.html").is_file()
