"""Online use (``mopt/expert/online.py``): the tail from an observed throughput log.

The hand-made log used throughout: 5 tasks on 3 unreliable machines, deadline 4000 s.
Tasks 0, 1, 2 are sent at 0; task 2 returns at 900 and its machine takes task 3; task 0 returns at
1000 and its machine takes task 4; task 1 returns at 1200.  At t_tail = 1200 tasks 3 and 4 remain,
running for 300 s and 200 s; the turnarounds paid so far are 1000 + 1200 + 900 = 3100 s.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
import pandas as pd
import pytest

from mopt.core.errors import InputError
from mopt.expert import (
    Environment,
    NTDMrProblem,
    Strategy,
    ThroughputLog,
    TurnaroundModel,
    _engine,
    estimate_online,
    observe,
    reference_environment,
)

NAN = math.nan
HAND_LOG = pd.DataFrame({
    "task": [0, 1, 2, 3, 4],
    "send_time": [0.0, 0.0, 0.0, 900.0, 1000.0],
    "result_time": [1000.0, 1200.0, 900.0, NAN, NAN],
})


def hand_environment(**overrides):
    """Deterministic F_s (every result after exactly 1000 s), γ = 1, t_r = 500, c_ur = 1, c_r = 10."""
    params = dict(n_tasks=5, n_unreliable=3, t_ur=1000.0, t_r=500.0, c_ur=1.0, c_r=10.0,
                  turnaround=TurnaroundModel([1000.0], [0.0], [1.0]), mr_max=1.0)
    params.update(overrides)
    return Environment(**params)


# -- (i) a hand-made log -------------------------------------------------------------------------
def test_observed_state_of_the_hand_log():
    tail = observe(ThroughputLog(HAND_LOG), t_tail=1200.0, deadline=4000.0)
    assert tail.n_tasks == 5
    assert tail.tasks.tolist() == [3, 4]
    assert tail.send_times.tolist() == [900.0, 1000.0]
    assert tail.ages.tolist() == [300.0, 200.0]
    assert tail.result_seconds == 3100.0
    assert tail.cost_paid(1 / 3600) == pytest.approx(3100 / 3600)


def test_results_after_t_tail_are_not_yet_known():
    log = HAND_LOG.assign(result_time=[1000.0, 1200.0, 900.0, 1900.0, NAN])
    tail = observe(ThroughputLog(log), t_tail=1200.0, deadline=4000.0)
    assert tail.tasks.tolist() == [3, 4] and tail.result_seconds == 3100.0
    # one second earlier, task 1 is still running too
    earlier = observe(ThroughputLog(log), t_tail=1199.0, deadline=4000.0)
    assert earlier.tasks.tolist() == [1, 3, 4] and earlier.result_seconds == 1900.0


def test_tail_from_the_hand_log():
    """On paper.  The running instances (out 300 s and 200 s, F_s(a) = 0, γ = 1) return with
    probability 1 at turnaround 1000: task 3 at 1900, task 4 at 2000, paid 1000 each.

    N=0, T=0 with 3 reliable machines: both timers (900, 1000 <= 1200) fire at t_tail, so both
    reliable instances start at 1200 and return at 1700: makespan 500, cost
    (3100 + 2·1000 + 2·500·10) / 5 = 3020 cents per task.
    N=∞, T=D=4000 (AUR): no new instance; makespan 2000 - 1200 = 800, cost (3100 + 2000) / 5 = 1020.
    """
    tail = observe(ThroughputLog(HAND_LOG), t_tail=1200.0, deadline=4000.0)
    env = hand_environment()
    trr = estimate_online(tail, env, Strategy(0, 0.0, 4000.0, 1.0), n_reps=3, seed=5)
    assert trr["makespan"].tolist() == [500.0] * 3
    assert trr["cost"].tolist() == [3020.0] * 3
    assert trr["t_tail"].tolist() == [1200.0] * 3
    assert trr["n_tail_tasks"].tolist() == [2] * 3
    assert trr["max_reliable_busy"].tolist() == [2] * 3
    assert trr["n_reliable_instances"].tolist() == [2] * 3
    aur = estimate_online(tail, env, "AUR", n_reps=2, seed=5)
    assert aur["makespan"].tolist() == [800.0] * 2
    assert aur["cost"].tolist() == [1020.0] * 2


def test_a_running_instance_past_every_turnaround_fails_at_its_deadline():
    """Deadline 2000 and t_tail = 1900: task 3 has been out 1000 s >= every turnaround (F_s(a) = 1),
    so it never returns; it fails at 900 + 2000 = 2900.  Task 4 returns at 2000.  Under AUR
    (T = D = 4000) task 3's timer fires at 900 + 4000 = 4900, its tail instance returns at 5900:
    makespan 5900 - 1900 = 4000, cost (3100 + 1000 + 1000) / 5 = 1020."""
    tail = observe(ThroughputLog(HAND_LOG), t_tail=1900.0, deadline=2000.0)
    aur = estimate_online(tail, hand_environment(), "AUR", n_reps=2, seed=1)
    assert aur["makespan"].tolist() == [4000.0] * 2
    assert aur["cost"].tolist() == [1020.0] * 2


# -- (ii) consistency with the engine's throughput phase -------------------------------------------
def replay_throughput(n_tasks, n_unreliable, d0, fs_table, gamma, key):
    """Every instance of the plain throughput phase, replayed from the engine's random numbers
    (spec: FCFS queue, deadline d0, results before failures at equal times), until t_tail."""
    log, events, queue = [], [], list(range(n_tasks))
    next_k = [0] * n_tasks
    free, remaining, t = n_unreliable, n_tasks, 0.0
    while True:
        while queue and free:
            j = queue.pop(0)
            k = next_k[j]
            next_k[j] += 1
            free -= 1
            turnaround = NAN
            if _engine.uniform(key, j, k, 0) < gamma:
                turnaround = fs_table[min(int(_engine.uniform(key, j, k, 1) * len(fs_table)), len(fs_table) - 1)]
            ok = turnaround < d0
            log.append((j, t, t + turnaround if ok else NAN))
            heapq.heappush(events, (t + (turnaround if ok else d0), 0 if ok else 1, j))
        if remaining < n_unreliable:
            return pd.DataFrame(log, columns=["task", "send_time", "result_time"]), t
        t, kind, j = heapq.heappop(events)
        free += 1
        if kind == 0:
            remaining -= 1
        else:
            queue.append(j)


@pytest.mark.parametrize("key", [3, 11, 2024])
def test_observed_state_equals_the_simulated_throughput_state(key):
    env = reference_environment(0.1)
    args = env.engine_arguments()
    n_tasks, n_ur, d0 = 60, 20, args["d0"]
    fs_table, gamma = args["fs_table"], float(args["gamma_values"][0])
    width = n_ur
    st = [np.empty(width, np.int64), np.empty(width), np.empty(width), np.empty(width, bool),
          np.empty(width, bool), np.empty(width, np.int64)]
    model = (n_tasks, n_ur, args["t_r"], args["c_ur"], 0.0, fs_table, args["gamma_breaks"],
             args["gamma_values"])
    t_tail, paid, n_rem = _engine.throughput_phase(model, 0, d0, np.uint64(key), 10**6, *st)
    log, t_replay = replay_throughput(n_tasks, n_ur, d0, fs_table, gamma, np.uint64(key))
    assert t_replay == t_tail
    tail = observe(ThroughputLog(log), t_tail=t_tail, deadline=d0)
    assert tail.n_tasks == n_tasks
    assert tail.tasks.tolist() == st[0][:n_rem].tolist()
    assert tail.send_times.tolist() == st[1][:n_rem].tolist()
    assert tail.cost_paid(args["c_ur"]) == pytest.approx(paid, rel=1e-12)
    # the simulated running instances all end after t_tail: none is a result known at t_tail
    assert (st[2][:n_rem] > t_tail).all()


# -- (iii) the conditional draw of a running instance ----------------------------------------------
@pytest.mark.parametrize("gamma", [0.5, 0.827, 1.0])
def test_running_instances_return_with_the_conditional_probability(gamma):
    """fs_table = 1000, 1010, ..., 1990 (F_s(a) = #entries <= a / 100).  Instances out for
    a = 0, 1200, 1500 and 1995 s: P(result) = γ(1 - F_s(a)) / (1 - γ F_s(a)); with γ = 0.827 and
    a = 1500, F_s = 0.51 and P = 0.827·0.49 / (1 - 0.827·0.51) = 0.7049...  The turnaround is above a."""
    fs_table = 1000.0 + 10.0 * np.arange(100)
    t_tail = 2000.0
    ages = np.array([0.0, 1200.0, 1500.0, 1995.0])
    send = t_tail - ages
    tasks = np.array([1, 5, 6, 9])
    keys = np.arange(1, 40_001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    end, success = _engine.running_outcomes(fs_table, np.zeros(1), np.array([gamma]), t_tail, 10_000.0,
                                            tasks, send, keys)
    f = np.array([np.sum(fs_table <= a) / fs_table.size for a in ages])
    p = gamma * (1 - f) / np.where(1 - gamma * f > 0, 1 - gamma * f, 1.0)
    if gamma == 0.827:
        assert p[2] == pytest.approx(0.827 * 0.49 / (1 - 0.827 * 0.51))
    observed = success.mean(axis=0)
    se = np.sqrt(p * (1 - p) / len(keys))
    assert (np.abs(observed - p) <= 4 * se + 1e-12).all(), (observed, p)
    turnaround = end - send
    assert (turnaround[success] > np.broadcast_to(ages, end.shape)[success]).all()
    assert (turnaround[~success] == 10_000.0).all()  # failures end at the deadline
    # uniform over the table entries above a: a = 1500 -> entries 1510..1990, mean 1750
    ok = success[:, 2]
    assert turnaround[ok, 2].mean() == pytest.approx(1750.0, abs=4 * 140 / math.sqrt(ok.sum()))


def test_a_result_after_the_deadline_is_a_failure():
    end, success = _engine.running_outcomes(np.array([1000.0, 3000.0]), np.zeros(1), np.ones(1), 1500.0, 2500.0,
                                            np.array([0]), np.array([0.0]), np.arange(100, dtype=np.uint64))
    assert not success.any() and (end == 2500.0).all()  # only 3000 > a = 1500 is left, >= deadline


# -- the estimator and the problem from an observed state ------------------------------------------
def test_online_estimates_are_reproducible_and_share_random_numbers():
    env = reference_environment(0.1)
    log, t_tail = replay_throughput(150, 50, env.throughput_deadline, env.engine_arguments()["fs_table"], 0.827,
                                    np.uint64(77))
    tail = observe(ThroughputLog(log), t_tail=t_tail, deadline=env.throughput_deadline)
    a = estimate_online(tail, env, Strategy(3, 2066.0, 4132.0, 0.02), n_reps=20, seed=4)
    b = estimate_online(tail, env, Strategy(3, 2066.0, 4132.0, 0.02), n_reps=20, seed=4)
    pd.testing.assert_frame_equal(a, b)
    assert (a["t_tail"] == t_tail).all() and (a["n_tail_tasks"] == tail.n_remaining).all()
    assert a["makespan"].std() > 0  # the running instances' outcomes vary per replication
    # TRR pays a reliable run (34/3600·2066 ≈ 19.5 cents) for every remaining task; AUR only re-sends
    # after a failure: cheaper in every replication of this log
    aur = estimate_online(tail, env, "AUR", n_reps=20, seed=4)
    trr = estimate_online(tail, env, "TRR", n_reps=20, seed=4)
    assert (aur["cost"] <= trr["cost"] + 1e-12).all()
    with pytest.raises(InputError, match="'CN_inf' changes the throughput phase"):
        estimate_online(tail, env, "CN_inf")


def test_problem_replicates_from_the_observed_state():
    tail = observe(ThroughputLog(HAND_LOG), t_tail=1200.0, deadline=4000.0)
    env = hand_environment()
    prob = NTDMrProblem(env, N=[0, math.inf], T=[0.0], D=[4000.0], Mr=[1.0], observed=tail)
    values = prob.replicate(np.arange(prob.n_designs), np.arange(2), seed=0)
    # design 0: N=0, T=0 (as in test_tail_from_the_hand_log).  Design 1: N=∞, T=0: both timers fire
    # at 1200; task 3's tail instance takes the free machine (result at 2200, paid 1000), task 4's
    # waits until task 3's first instance frees a machine at 1900 (result at 2900, paid 1000); task 4
    # completes at 2000: makespan 800, cost (3100 + 2·1000 + 2·1000) / 5 = 1420.
    assert values[0].tolist() == [[500.0, 3020.0]] * 2
    assert values[1].tolist() == [[800.0, 1420.0]] * 2
    plain = NTDMrProblem(env, N=[0, math.inf], T=[0.0], D=[4000.0], Mr=[1.0])
    assert plain.replicate(np.arange(2), np.arange(2), seed=0).tolist() != values.tolist()
    with pytest.raises(InputError, match="'n_tasks' of the environment"):
        NTDMrProblem(hand_environment(n_tasks=6), observed=tail)


def test_environment_from_the_observed_log():
    """A 600-task bag: long enough for a full-knowledge epoch (sends before t_tail - 4·t_ur)."""
    env = reference_environment(0.1)
    fs = env.engine_arguments()["fs_table"]
    log, t_tail = replay_throughput(600, 50, env.throughput_deadline, fs, 0.827, np.uint64(5))
    tail = observe(ThroughputLog(log), t_tail=t_tail, deadline=env.throughput_deadline)
    online = tail.environment(n_unreliable=50, t_r=2066.0, c_ur=1 / 3600, c_r=34 / 3600, mr_max=0.1)
    assert online.n_tasks == 600 and online.turnaround.epochs["full"] == pytest.approx(0.827, abs=0.05)
    df = estimate_online(tail, online, Strategy(1, 1000.0, 4000.0, 0.1), n_reps=4, seed=0)
    assert np.isfinite(df[["makespan", "cost"]].to_numpy()).all()


# -- (iv) bad logs ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("change", "match"), [
    (lambda d: d.assign(send_time=[0.0, -1.0, 0.0, 900.0, 1000.0]), r"'send_time' must be .* at row 1; got -1"),
    (lambda d: d.assign(task=[0, 1, 2, -3, 4]), r"'task' must be an integer in \[0, 2\*\*62\) at row 3; got -3"),
    (lambda d: d.assign(result_time=[1000.0, 1200.0, 900.0, 800.0, NAN]),
     r"'result_time' must be NaN/inf \(no result\) or >= send_time at row 3; got 800"),
    (lambda d: d.assign(worker=1), r"unknown column 'worker'"),
    (lambda d: d.drop(columns="result_time"), r"missing column 'result_time'"),
    (lambda d: d.assign(send_time=["0", "0", "x", "900", "1000"]), r"'send_time' must be a number at row 2; got 'x'"),
])
def test_bad_logs_raise_naming_the_column_and_row(change, match):
    with pytest.raises(InputError, match=match):
        ThroughputLog(change(HAND_LOG))


def test_bad_observations_raise():
    dup = pd.concat([HAND_LOG, pd.DataFrame({"task": [3], "send_time": [1100.0], "result_time": [NAN]})],
                    ignore_index=True)
    with pytest.raises(InputError, match=r"'task' 3 has 2 running instances .*\(row 3, row 5\)"):
        observe(ThroughputLog(dup), t_tail=1200.0, deadline=4000.0)
    log = ThroughputLog(HAND_LOG.assign(send_time=[500.0, 500.0, 500.0, 900.0, 1000.0]))
    with pytest.raises(InputError, match=r"'t_tail' must be >= the first send time 500 of the log; got 100"):
        observe(log, t_tail=100.0, deadline=4000.0)
    with pytest.raises(InputError, match=r"'send_time' must be <= t_tail=950 at row 4"):
        observe(log, t_tail=950.0, deadline=4000.0)
    with pytest.raises(InputError, match=r"'task' 3 has no result and no running instance"):
        observe(ThroughputLog(HAND_LOG), t_tail=1200.0, deadline=250.0)
    tail = observe(ThroughputLog(HAND_LOG), t_tail=1200.0, deadline=4000.0)
    with pytest.raises(InputError, match=r"'n_unreliable' must be >= the 2 instances running"):
        estimate_online(tail, hand_environment(n_unreliable=1), "AUR")


def test_read_csv_names_the_file_and_line(tmp_path):
    good = tmp_path / "log.csv"
    good.write_text("task,send_time,result_time\n0,0,1000\n1,0,1200\n2,0,900\n3,900,\n4,1000,\n")
    log = ThroughputLog.read_csv(good)
    pd.testing.assert_frame_equal(log.instances, ThroughputLog(HAND_LOG).instances)
    bad = tmp_path / "bad.csv"
    bad.write_text("task,send_time,result_time\n0,0,1000\n1,5,2\n")
    with pytest.raises(InputError, match=r"'result_time' must be .* at .*bad\.csv line 3; got 2"):
        ThroughputLog.read_csv(bad)
    with pytest.raises(InputError, match="does not exist"):
        ThroughputLog.read_csv(tmp_path / "missing.csv")


@pytest.mark.parametrize(("text", "line"), [
    ("task,send_time,result_time\n0,0,1000\n1,0,1200,99\n2,0,900\n", 3),  # one ragged row
    ("task,send_time,result_time\n0,0,1000,5\n1,0,1200,7\n", 2),  # every row (pandas took column 1 as index)
    ("task,send_time,result_time\n0,0,1000,\n", 2),  # a trailing comma is a fourth (empty) field
])
def test_read_csv_rows_with_more_fields_than_the_header(tmp_path, text, line):
    path = tmp_path / "ragged.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=rf"ragged\.csv line {line}: expected at most 3 fields "
                                         rf"\(task,send_time,result_time\); got 4"):
        ThroughputLog.read_csv(path)


def test_read_csv_malformed_quoting_names_the_file_and_line(tmp_path):
    path = tmp_path / "quote.csv"
    path.write_text('task,send_time,result_time\n0,0,1000\n1,"0,5\n')
    with pytest.raises(InputError, match=r"quote\.csv line \d: malformed CSV"):
        ThroughputLog.read_csv(path)


def test_read_csv_a_directory_or_non_utf8_file_names_it(tmp_path):
    with pytest.raises(InputError, match=r"throughput log '.*' is a directory"):
        ThroughputLog.read_csv(tmp_path)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("task,send_time,result_time\n0,0,1000 é\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"throughput log '.*latin\.csv' is not UTF-8 text"):
        ThroughputLog.read_csv(latin)
    empty = tmp_path / "empty.csv"
    empty.write_text("\n\n")
    with pytest.raises(InputError, match=r"throughput log '.*empty\.csv' is empty"):
        ThroughputLog.read_csv(empty)


def test_task_ids_stay_below_2_to_the_62(tmp_path):
    top = 2**62 - 1
    path = tmp_path / "ids.csv"
    path.write_text(f"task,send_time,result_time\n{top},0,1000\n{top - 1},0,\n")
    assert ThroughputLog.read_csv(path).instances["task"].tolist() == [top, top - 1]  # exact, not via float
    for big in (2**62, 2**63, 2**64 + 5):
        path.write_text(f"task,send_time,result_time\n0,0,1000\n{big},0,\n")
        with pytest.raises(InputError, match=r"'task' must be an integer in \[0, 2\*\*62\) at .*ids\.csv line 3"):
            ThroughputLog.read_csv(path)
    frame = HAND_LOG.assign(task=np.array([0, 1, 2, 3, 2**62], dtype=np.int64))
    with pytest.raises(InputError, match=r"'task' must be an integer in \[0, 2\*\*62\) at row 4; got 4611686018427387904"):
        ThroughputLog(frame)
    with pytest.raises(InputError, match=r"'task' must be an integer in \[0, 2\*\*62\) at row 4; got 1e\+20"):
        ThroughputLog(HAND_LOG.assign(task=[0.0, 1.0, 2.0, 3.0, 1e20]))


def test_duplicate_columns(tmp_path):
    path = tmp_path / "dup.csv"
    path.write_text("task,send_time,result_time,task\n0,0,1000,0\n")
    with pytest.raises(InputError, match=r"dup\.csv: duplicate column 'task'"):
        ThroughputLog.read_csv(path)
    frame = pd.concat([HAND_LOG, HAND_LOG[["send_time"]]], axis=1)
    with pytest.raises(InputError, match=r"the log: duplicate column 'send_time'"):
        ThroughputLog(frame)


def test_nan_inf_and_empty_text_mean_no_result(tmp_path):
    # blank lines are skipped and the line numbers of later rows stay right
    path = tmp_path / "log.csv"
    path.write_text("task,send_time,result_time\n\n0,0,1000\n1,0,nan\n\n2,0, NaN\n3,900,inf\n4,1000,\n")
    log = ThroughputLog.read_csv(path)
    assert log.instances["result_time"].tolist() == [1000.0, math.inf, math.inf, math.inf, math.inf]
    assert log.where(2) == f"{path} line 6"
    path.write_text("task,send_time,result_time\n\n0,0,1000\n\n1,5,2\n")
    with pytest.raises(InputError, match=r"'result_time' must be .* at .*log\.csv line 5; got 2"):
        ThroughputLog.read_csv(path)
    path.write_text("task,send_time,result_time\n0,nan,1000\n")
    with pytest.raises(InputError, match=r"'send_time' must be a number at .*log\.csv line 2; got 'nan'"):
        ThroughputLog.read_csv(path)
