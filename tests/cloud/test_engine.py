"""The engine's internal API for online simulations: copies, stops, online views and scores."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import Policy, simulate
from mopt.cloud import engine as E
from mopt.cloud.online import online_scores
from mopt.cloud.simulate import prepare_jobs

ODA = Policy("ODA-FCFS-FirstFit").codes


def _state(df, **kw):
    table, _, info = prepare_jobs(df)
    return table, E.CloudState.start(table, n_users=info["n_users"], **kw)


def _random_jobs(seed, n=80):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"submit_time": np.sort(rng.integers(0, 30000, n)),
                         "run_time": rng.integers(1, 6000, n), "n_procs": rng.integers(1, 6, n),
                         "req_time": rng.integers(1, 9000, n), "user_id": rng.integers(0, 4, n)})


def test_online_score_of_the_spec_job():
    # at tick 0 one 4-VM, 600 s job is queued; simulated under ODA-FCFS from here it is spec
    # §5's check: busy 2400, paid 14400 VM-seconds, BSD 1.2, U = 13.89. ODB leases the same.
    table, state = _state(pd.DataFrame({"submit_time": [0], "run_time": [600], "n_procs": [4]}))
    out = online_scores(state, table, [ODA, Policy("ODB-LXF-BestFit").codes])
    np.testing.assert_allclose(out[0], [100 / 6 / 1.2, 2400, 14400, 1.2])
    np.testing.assert_allclose(out[1], out[0])
    assert state.clock == 0 and state.queue_length == 1  # the state itself is untouched


def test_online_view_of_running_jobs():
    # the job runs 120-720 on 4 VMs leased at 0. Stopped at tick 200, a second job (1 VM, 100 s)
    # queued at 200: the view counts busy time from 200 on: 4*(720-200) + 1*100 = 2180; paid
    # from 200 on: the 4 old VMs to 3600 (4*3400) plus the new one leased at 200 (1 h): 17200.
    # The queued job starts at 320 (boot), BSD (120+100)/100 = 2.2.
    df = pd.DataFrame({"submit_time": [0, 200], "run_time": [600, 100], "n_procs": [4, 1]})
    table, state = _state(df)
    assert state.advance(table, ODA, until=200) == E.UNTIL and state.clock == 200
    view = state.online_view(table)
    assert view.advance(table, ODA) == E.DONE
    assert (view.busy, view.paid, view.mean_bsd) == (2180, 17200, pytest.approx(2.2))
    np.testing.assert_allclose(online_scores(state, table, [ODA])[0],
                               [100 * 2180 / 17200 / 2.2, 2180, 17200, 2.2])


def test_online_view_uses_estimates_and_outlived_predictions():
    # user estimates: the running job (actual 600 s, asked 300 s) is assumed to end at
    # 120 + 300 = 420 if viewed at 200; viewed at 440 it has outlived its request: one more tick.
    df = pd.DataFrame({"submit_time": [0, 200], "run_time": [600, 100], "n_procs": [4, 1],
                       "req_time": [300, 1000]})
    table, _, info = prepare_jobs(df, runtime="user")
    state = E.CloudState.start(table, n_users=info["n_users"], runtime=1)
    state.advance(table, ODA, until=200)
    view = state.online_view(table)
    running = view.running[view.running[:, E.R_ACTIVE] > 0]
    assert running[:, E.R_END].tolist() == [420]
    assert view.queue[0, E.Q_RUN] == 1000  # queued jobs run their estimate
    state.advance(table, ODA, until=440)
    view = state.online_view(table)
    running = view.running[view.running[:, E.R_ACTIVE] > 0]
    assert running[:, E.R_END].tolist() == [460]


def test_stops_do_not_change_the_run():
    # stopping at every 3rd tick with a queue (SELECT) or at arbitrary times (UNTIL) and going
    # on under the same policy gives the uninterrupted run's start times and cost
    df = _random_jobs(5)
    policy = Policy("ODX-UNICEF-BestFit")
    whole = simulate(df, policy, runtime="predicted", max_vms=12)
    table, _, info = prepare_jobs(df, runtime="predicted", max_vms=12)
    state = E.CloudState.start(table, n_users=info["n_users"], runtime=2, max_vms=12)
    start = np.full(len(table), np.nan)
    stops = 0
    until = 1000.0
    while (status := state.advance(table, policy.codes, period=60, until=until,
                                   out_start=start)) != E.DONE:
        stops += 1
        if status == E.SELECT:
            assert state.clock % 60 == 0 and state.queue_length > 0
            state.copy().advance(table, Policy("ODB-FCFS-WorstFit").codes)  # a copy's run
        else:
            until += 1237.0
    assert stops > 10
    np.testing.assert_array_equal(start, whole.jobs["start"].to_numpy())
    assert state.paid == whole.summary["R_V"]


def test_copy_is_independent_and_compact():
    df = _random_jobs(6)
    table, state = _state(df, max_vms=8)
    state.advance(table, ODA, until=8000)
    before = [a.copy() for a in (state.sc, state.queue, state.running, state.vms)]
    twin = state.copy()
    assert len(twin.queue) == max(state.queue_length, 1)
    twin.advance(table, ODA)
    for a, b in zip(before, (state.sc, state.queue, state.running, state.vms), strict=True):
        np.testing.assert_array_equal(a, b)
