"""Causality of the multi-period vmc simulator (STYLE 17): what a stage's search may know, per mode.

- ``information="stale"``: a search sees no arrival before it arrives.  Change the arrivals after a
  time T (some removed, the others' batches rescaled, new ones added) and every schedule in force
  before T — each stage that starts before T, its start and its schedule, Scenario 2's initial
  schedule included — stays the same, and so does what really happened in the stages that ended
  before T.
- ``information="lookahead"`` (the paper's model): the search for stage [a, b) sees that stage's own
  arrivals, and nothing beyond b: change the arrivals after T and every stage that ends by T is the
  same; a stage that starts before T and ends after it may change (it saw the arrivals after T in
  its own period), which the last test shows.

Both scenarios, two workload kinds, three times T and two changed futures each: under stale
information every method, eOO and eOO + OCBA included (their stages decided one at a time from the
arrivals known when each stage's search starts, ours), and a constructed case in which Algorithms 2
and 3 run up front moved a stage boundary before T with the batches after it; under look-ahead the
methods with a fixed grid (Monte Carlo, Blind Pick, iOO).
"""

from __future__ import annotations

import numpy as np
import pytest

import mopt
from mopt.vmc.multiperiod_problem import VMMultiPeriodProblem
from mopt.vmc.workload import Workload, generate

FAST = {"n_accurate": 40, "n_rough": 4, "s": 3}
THETA, HORIZON, PERIOD = 9, 1200.0, 200.0
SCHEDULE = [f"theta_{c}" for c in range(1, 8)]
TIMES = (250.0, 530.0, 810.0)
METHODS = ("exhaustive", "blind_pick", "ioo")
#: under stale information eOO's stages too are decided from what is known (ours, see stale_stage_width)
STALE_METHODS = (*METHODS, "eoo", "eoo_ocba")


def _problem(workload: Workload, scenario: int, information: str) -> VMMultiPeriodProblem:
    # Scenario 2: a stage lasts its method's search overhead (iOO ~ 60 s, BP ~ 120 s, MC ~ 560 s)
    return VMMultiPeriodProblem(workload, THETA, scenario=scenario, horizon=HORIZON, base_period=PERIOD,
                                split_threshold=0.9, merge_threshold=0.6, seed=4, information=information,
                                overhead_per_rep=0.01 if scenario == 1 else 0.5)


def future_changed(w: Workload, T: float, rng: np.random.Generator) -> Workload:
    """``w`` with its arrivals after T redrawn: about 30 % removed, the rest rescaled per class, and
    two to four new batches and a big one-class batch within 30 s of T."""
    keep = (w.times <= T) | (rng.random(len(w.times)) < 0.7)
    times, batches = w.times[keep].copy(), w.batches[keep].copy()
    late = times > T
    batches[late] *= rng.uniform(0.2, 3.0, size=batches[late].shape)
    n = int(rng.integers(2, 5))
    times = np.r_[times, T + rng.uniform(1e-3, 30.0), T + rng.uniform(1e-3, HORIZON - T, size=n)]
    burst = np.zeros(batches.shape[1])
    burst[rng.integers(batches.shape[1])] = 200.0  # a big one-class batch right after T
    batches = np.r_[batches, [burst], rng.uniform(0.0, 30.0, size=(n, batches.shape[1]))]
    order = np.argsort(times, kind="stable")
    return Workload(times[order], batches[order])


def schedules_before(stages, T: float):
    """(start, schedule) of every stage that starts before T, and what happened in those that ended by T."""
    st = stages[stages["stage"] != "drain"]
    started = st[st["start"] < T][["start", *SCHEDULE]].to_numpy().tolist()
    ended = st[st["end"] <= T][["end", *SCHEDULE, "finished", "busy_time"]].to_numpy().tolist()
    return started, ended


def stages_ended_by(stages, T: float):
    """Every stage that ended by T: its bounds, schedule and what happened in it."""
    st = stages[stages["stage"] != "drain"]
    return st[st["end"] <= T][["start", "end", *SCHEDULE, "finished", "busy_time"]].to_numpy().tolist()


def _runs(kind: str, scenario: int, information: str, method: str, view):
    """The run on a generated workload, then the pairs (view before T, view after the change) per T."""
    w = generate(kind, THETA, HORIZON, PERIOD, seed=4)
    run = mopt.solve(_problem(w, scenario, information), method, seed=1, **FAST)
    for T in TIMES:
        rng = np.random.default_rng([int(T), scenario])
        for _ in range(2):
            again = mopt.solve(_problem(future_changed(w, T, rng), scenario, information), method, seed=1, **FAST)
            yield T, run, again, view(run.stages, T), view(again.stages, T)


@pytest.mark.parametrize("scenario", [1, 2])
@pytest.mark.parametrize("method", STALE_METHODS)
@pytest.mark.parametrize("kind", ["HFHD", "LFLD"])
def test_stale_information_sees_no_arrival_before_it_arrives(kind, method, scenario):
    compared = 0
    for T, run, again, before, after in _runs(kind, scenario, "stale", method, schedules_before):
        assert after == before, (T, before, after)
        assert np.array_equal(again.stages[SCHEDULE].iloc[0], run.stages[SCHEDULE].iloc[0])  # initial schedule
        compared += len(before[0])
    assert compared >= 8


@pytest.mark.parametrize("scenario", [1, 2])
@pytest.mark.parametrize("method", METHODS)
def test_lookahead_sees_its_own_period_and_nothing_beyond(method, scenario):
    compared = 0
    for T, _, _, before, after in _runs("HFHD", scenario, "lookahead", method, stages_ended_by):
        assert after == before, (T, before, after)
        compared += len(before)
    assert compared >= 2


def test_lookahead_does_see_the_arrivals_of_the_stage_it_searches():
    """The same changes after T that leave stale information's choices alone change a look-ahead
    choice made before T: the schedule of a stage that starts before T and ends after it."""
    changed = 0
    for _T, _, _, before, after in _runs("HFHD", 1, "lookahead", "ioo", schedules_before):
        assert after[0][:-1] == before[0][:-1]  # every stage but the one running at T
        changed += after[0][-1] != before[0][-1]
    assert changed > 0


def constructed(mixed: bool) -> Workload:
    """Batches of 12 tasks every 50-100 s over [0, 1200), most of one class each, one class after
    another; the batch at 650 s and, if ``mixed``, the two after T = 530 (at 540 and 580 s) hold
    classes 1 and 2 half and half, else classes 3 and 4."""
    times = np.array([30.0, 90, 150, 230, 290, 350, 420, 480, 540, 580, 650, 720, 800, 900, 1000, 1100])
    batches = 12.0 * np.eye(7)[[0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 0, 5, 6, 0, 1, 2]]
    for k in (8, 9, 10) if mixed else (10,):
        batches[k] = [6.0, 6.0, 0, 0, 0, 0, 0]
    return Workload(times, batches)


@pytest.mark.parametrize("scenario", [1, 2])
@pytest.mark.parametrize("method", ["eoo", "eoo_ocba"])
def test_stale_eoo_stages_do_not_depend_on_the_batches_after_them(method, scenario):
    """Only the two batches after T = 530 change (classes 3 and 4, or 1 and 2 mixed).  Algorithms 2
    and 3 run up front on every arrival (the code before this test) split Scenario 1's base period
    [400, 600) at 500 s only when its four batches are pairwise dissimilar, and in Scenario 2
    (initial stage 110 s) merged the half stage [410, 510) into [510, 710) when their batches are
    similar: a schedule switch before T (at 500 or 510 s) that depended on arrivals after T.  Under
    stale information a stage's width is decided when its search starts, from the arrivals before
    then (ours, :func:`mopt.vmc.stages.stale_stage_width`)."""
    T = 530.0
    run, again = (mopt.solve(_problem(constructed(mixed), scenario, "stale"), method, seed=1, **FAST)
                  for mixed in (False, True))
    before, after = schedules_before(run.stages, T), schedules_before(again.stages, T)
    assert after == before, (before, after)
    assert len(before[0]) >= 3  # the initial stage or [0, 200), and the stages after it
