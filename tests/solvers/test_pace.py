"""A run's time told before it starts (mopt.solvers.pace): the pilot's pace, MOPT_MAX_TIME's refusal,
and ``mopt frontier --estimate`` (issue #34: "estimate the memory and, where cheap, the time")."""

import subprocess
import sys
import time

import numpy as np
import pytest

import mopt
from mopt.core.errors import InputError
from mopt.solvers.estimate import estimate
from mopt.solvers.pace import format_duration, parse_duration, pilot

SLEEP = 0.004  # seconds a replication of the sleeping problem takes, at least


def sleeping(calls=None):
    def sim(p, rng):
        if calls is not None:
            calls.append(1)
        time.sleep(SLEEP)
        return p["a"] + rng.normal(), 10.0 - p["a"] + rng.normal()

    return mopt.FunctionProblem(sim, [{"a": float(a)} for a in range(6)], ["f1", "f2"], n_reps=5)


@pytest.mark.parametrize(("text", "seconds"), [("90", 90), ("90s", 90), ("2.5m", 150), ("2H", 7200),
                                                ("1d", 86400), (" 0.5 ", 0.5)])
def test_durations_read_with_their_units(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0", "-3", "nan", "inf", "1w", "h", "1e999"])
def test_a_bad_duration_is_refused_naming_the_variable(text):
    with pytest.raises(InputError, match="MOPT_MAX_TIME must be a positive duration"):
        parse_duration(text)


def test_durations_print_for_people():
    assert [format_duration(s) for s in (0.004, 3.14, 42, 600, 3 * 3600, 5 * 86400)] == [
        "under 0.1 s", "3.1 s", "42 s", "10.0 min", "3.0 h", "5.0 days"]


def test_the_pilot_times_a_known_pace():
    per, timed = pilot(sleeping(), [(np.arange(6), np.arange(5))], 1, seconds=0.1)
    assert SLEEP <= per <= 3 * SLEEP
    assert timed >= 1


def test_estimate_counts_the_replications_and_their_memory_and_projects_the_time():
    e = estimate(sleeping(), "exhaustive", seed=1)
    assert e["replications"] == 30  # 6 designs x 5 replications
    assert e["memory_bytes"] == 30 * mopt.core.problem.replication_bytes(sleeping())
    assert 30 * SLEEP <= e["seconds"] <= 30 * 3 * SLEEP
    two = estimate(sleeping(), "exhaustive", seed=1, workers=2)
    assert two["seconds"] == pytest.approx(two["replications"] * two["seconds_per_replication"] / 2)


def test_max_time_refuses_a_run_before_it_runs_naming_the_budget_and_what_fits(monkeypatch):
    calls = []
    monkeypatch.setenv("MOPT_MAX_TIME", "0.4s")
    with pytest.raises(InputError) as err:
        mopt.solve(sleeping(calls), "mocba", budget=3000, seed=1)
    text = str(err.value)
    assert text.startswith("'budget' = 3,000 would take about ")
    assert "MOPT_MAX_TIME is 0.4 s: at most 'budget' = " in text
    largest = int(text.rsplit("= ", 1)[1].rstrip(".").replace(",", ""))
    assert 0.4 / (3 * SLEEP) <= largest <= 0.4 / SLEEP  # 0.4 s at 4-12 ms a replication
    assert len(calls) < 200  # only the pilot ran: 3,000 replications were never simulated


def test_without_a_budget_the_refusal_names_n_reps(monkeypatch):
    monkeypatch.setenv("MOPT_MAX_TIME", "0.05")
    prob = sleeping()
    prob.n_reps = 100
    with pytest.raises(InputError, match=r"^'n_reps' = 100 would take about .* at most 'n_reps' = \d"):
        mopt.solve(prob, "exhaustive", seed=1)


def test_a_run_within_the_limit_gives_the_same_result_as_without_it(monkeypatch):
    free = mopt.solve(sleeping(), "exhaustive", seed=3, uncertainty=False)
    monkeypatch.setenv("MOPT_MAX_TIME", "1h")
    bound = mopt.solve(sleeping(), "exhaustive", seed=3, uncertainty=False)
    assert free.evaluations.equals(bound.evaluations)


def test_a_resumed_run_counts_only_what_its_journal_lacks(monkeypatch, tmp_path):
    journal = tmp_path / "j.sqlite"
    first = mopt.solve(sleeping(), "exhaustive", seed=2, journal=journal, uncertainty=False)
    monkeypatch.setenv("MOPT_MAX_TIME", "0.01s")  # far too short for 30 replications at 4 ms
    with pytest.raises(InputError, match="would take about"):
        mopt.solve(sleeping(), "exhaustive", seed=2, uncertainty=False)
    again = mopt.solve(sleeping(), "exhaustive", seed=2, journal=journal, uncertainty=False)
    assert again.evaluations.equals(first.evaluations)


def test_frontier_estimate_prints_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "never"
    proc = subprocess.run([sys.executable, "-m", "mopt", "frontier", "examples/reference.toml", "--estimate",
                           "--out", str(out)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("estimate: ")]
    assert len(lines) == 1 and "replications, about " in lines[0] and " of memory and " in lines[0]
    assert not out.exists()


def test_a_kernel_compiled_after_the_warm_up_is_not_timed_as_simulation():
    """A simulator whose second call compiles a kernel the warm-up did not reach (the portfolio's
    online simulations on a cold cache): that call is timed again, so the pace stays the
    simulation's (issue #36 audit: 99.6 min estimated for a 23 s run on a first use)."""
    from numba import njit

    calls = []

    def sim(p, rng):
        calls.append(1)
        if len(calls) == 2:  # the first timed call: a fresh kernel compiles (hundreds of ms)
            kernel = njit(lambda x: x * 2.0 + 1.0)
            kernel(float(len(calls)))
        time.sleep(SLEEP)
        return p["a"] + rng.normal(), 10.0 - p["a"] + rng.normal()

    prob = mopt.FunctionProblem(sim, [{"a": float(a)} for a in range(6)], ["f1", "f2"], n_reps=5)
    per, timed = pilot(prob, [(np.arange(6), np.arange(5))], 1, seconds=0.1)
    assert SLEEP <= per <= 3 * SLEEP, per
