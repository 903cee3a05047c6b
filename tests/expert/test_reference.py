"""The Numba engine and an independent SimPy model of the same estimator give identical replications.

``tests/reference/simpy_expert.py`` is a straightforward SimPy implementation of the ExPERT estimator
semantics, written separately from ``mopt/expert/_engine/``.  Both use the same counter-based
random numbers, so for the same key they must agree exactly: same tail start, same tail tasks,
same makespan and cost, same reliable-pool statistics.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("simpy")

from mopt.expert import _engine  # noqa: E402
from tests.reference import simpy_expert as reference  # noqa: E402

COLUMNS = list(reference.OUTPUT_COLUMNS)
MAX_INSTANCES = 20_000  # every case below finishes far below this


def _strategy_arrays(rows):
    """Rows (N, T, D, n_rel, combine, combined_throughput, budget) -> the engine's arrays."""
    N, T, D, n_rel, combine, combined, budget = zip(*rows, strict=True)
    return (
        np.array(N, np.int64),
        np.array(T, np.float64),
        np.array(D, np.float64),
        np.array(n_rel, np.int64),
        np.array(combine, np.bool_),
        np.array(combined, np.bool_),
        np.array(budget, np.float64),
    )


def _both(env, rows, keys):
    strategies = _strategy_arrays(rows)
    keys = np.asarray(keys, dtype=np.uint64)
    fast = _engine.simulate(_engine.BoT(*env), _engine.Strategies(*strategies), keys, max_instances=MAX_INSTANCES)
    slow = reference.simulate(*env, *strategies, keys, max_instances=MAX_INSTANCES)
    return fast, slow


def _random_environment(rng):
    """A small BoT with a turnaround table of a few values, so that equal times are frequent."""
    fs_table = np.sort(rng.choice(np.arange(1, 9) * 250.0, size=int(rng.integers(1, 5))))
    if rng.random() < 0.5:
        gamma_breaks, gamma_values = np.array([0.0]), np.array([rng.uniform(0.6, 1.0)])
    else:
        gamma_breaks, gamma_values = np.array([0.0, 1500.0, 4000.0]), rng.uniform(0.6, 1.0, 3)
    d0 = max(float(rng.choice([1000.0, 2000.0, 4000.0])), fs_table[0] + 250.0)
    return (
        int(rng.integers(1, 40)),  # n_tasks
        int(rng.integers(1, 12)),  # n_unreliable
        float(rng.choice([500.0, 1250.0, 2066.0])),  # t_r
        d0,
        float(rng.choice([1.0, 10.0])) / 3600,  # c_ur (dear enough, running instances matter to B)
        34 / 3600,  # c_r
        float(rng.choice([1.0, 300.0, 3600.0])),  # charging_period_r
        fs_table,
        gamma_breaks,
        gamma_values,
    )


def _random_strategies(rng, env, n=12):
    d0, fs_min = env[3], env[7][0]
    rows = []
    for _ in range(n):
        N = int(rng.choice([0, 1, 2, -1]))
        D = float(rng.choice([250.0, 750.0, 1000.0, 1500.0, d0]))
        T = min(float(rng.choice([0.0, 250.0, 500.0, D])), D)
        n_rel = int(rng.integers(0, 4))
        if D <= fs_min and (N < 0 or n_rel == 0):
            D = d0  # no instance could ever succeed and nothing falls back: refused upstream
        rows.append((N, T, D, n_rel, False, False, math.inf))
    n_rel = int(rng.integers(1, 4))
    D_spill = max(d0, env[7][-1] + 1.0)
    rows += [
        (-1, d0, d0, n_rel, True, True, math.inf),  # CN_inf
        (0, 0.0, d0, n_rel, False, True, math.inf),  # CN1T0
        (-1, float(rng.choice([0.0, 250.0])), D_spill, n_rel, True, False, math.inf),  # spill
    ]
    # B, with budgets that let about j remaining tasks switch to the reliable pool
    n_tasks, n_unreliable, t_r, c_ur, c_r, period, fs_table = (
        env[i] for i in (0, 1, 2, 4, 5, 6, 7)
    )
    reliable_run = c_r * math.ceil(t_r / period) * period
    for j in rng.integers(0, n_unreliable + 1, size=3):
        unreliable_cost = n_tasks * c_ur * fs_table.mean() * rng.uniform(1.0, 1.3)
        budget = unreliable_cost + (j + rng.uniform(0.0, 1.0)) * reliable_run
        rows.append((-1, d0, d0, n_rel, False, False, float(budget)))
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_engine_matches_simpy_model_on_random_cases(seed):
    rng = np.random.default_rng(seed)
    env = _random_environment(rng)
    rows = _random_strategies(rng, env)
    keys = rng.integers(0, 2**63, size=3, dtype=np.uint64)
    fast, slow = _both(env, rows, keys)
    assert not np.isnan(slow).any()
    for s, row in enumerate(rows):
        np.testing.assert_allclose(
            fast[s], slow[s], rtol=1e-12, err_msg=f"strategy {row}, keys {keys}, env {env}"
        )


def test_engine_matches_simpy_model_on_reference_environment():
    """Experiment 11 stand-in: 150 tasks, 50 machines, lognormal turnaround, gamma = 0.827."""
    from scipy import stats

    size = 65536
    fs_table = stats.lognorm(s=0.5, loc=1000.0, scale=1066.0 / np.exp(0.125)).ppf(
        (np.arange(size) + 0.5) / size
    )
    env = (150, 50, 2066.0, 8264.0, 1 / 3600, 34 / 3600, 1.0, fs_table, [0.0], [0.827])
    rows = [
        (3, 2066.0, 4132.0, 1, False, False, math.inf),  # the paper's knee strategy
        (0, 0.0, 8264.0, 5, False, False, math.inf),  # TRR
        (0, 8264.0, 8264.0, 5, False, False, math.inf),  # TR
        (-1, 8264.0, 8264.0, 0, False, False, math.inf),  # AUR
        (1, 0.0, 2066.0, 15, False, False, math.inf),
        (2, 1033.0, 2066.0, 3, False, False, math.inf),
        (-1, 8264.0, 8264.0, 5, True, True, math.inf),  # CN_inf
        (0, 0.0, 8264.0, 5, False, True, math.inf),  # CN1T0
        (-1, 8264.0, 8264.0, 5, False, False, 750.0),  # B
    ]
    fast, slow = _both(env, rows, [1, 2**64 - 1, 0x0123456789ABCDEF])
    assert not np.isnan(slow).any()
    np.testing.assert_allclose(fast, slow, rtol=1e-12)


# --------------------------------------------------------------------------- hand-computed cases
# Every successful turnaround takes 1000 s (gamma = 1 unless said), a reliable run 2066 s.
HAND_ENV = dict(t_r=2066.0, d0=8264.0, c_ur=1 / 3600, c_r=34 / 3600, charging_period_r=1.0)
RELIABLE_RUN = 34 / 3600 * 2066


def _hand(n_tasks, n_unreliable, N, T, D, n_rel, gamma=1.0, combine=False, combined=False):
    env = (
        n_tasks, n_unreliable, *HAND_ENV.values(), np.array([1000.0]), [0.0], [gamma],
    )  # fmt: skip
    fast, slow = _both(env, [(N, T, D, n_rel, combine, combined, math.inf)], [7])
    np.testing.assert_allclose(fast, slow, rtol=1e-12)
    return dict(zip(COLUMNS, slow[0, 0], strict=True))


def test_hand_throughput_phase_ends_at_the_third_wave():
    # 150 tasks on 50 machines: waves end at 1000, 2000, 3000 s; at 3000 s the first result of
    # the third wave leaves 49 < 50 tasks, whose results arrive at that same moment.
    out = _hand(150, 50, -1, 8264.0, 8264.0, 0)
    assert out["t_tail"] == 3000.0
    assert out["n_tail_tasks"] == 49
    assert out["makespan"] == 0.0
    assert out["cost"] == pytest.approx(1000 / 3600)


def test_hand_reliable_queue_and_cancellation():
    # 3 tasks on 5 unreliable machines: the tail starts at 0.  N = 0, T = 0: every task enqueues
    # its reliable instance at once (3 queued before any allocation: the paper's time step); one
    # reliable machine takes task 0, the queue keeps 2.  The unreliable results at 1000 s complete
    # all tasks, cancel the 2 queued reliable instances; the running one is paid.
    out = _hand(3, 5, 0, 0.0, 8264.0, 1)
    assert out == {
        "makespan": 1000.0,
        "cost": pytest.approx((3 * 1000 / 3600 + RELIABLE_RUN) / 3),
        "t_tail": 0.0,
        "n_tail_tasks": 3.0,
        "max_reliable_busy": 1.0,
        "max_reliable_queue": 3.0,
        "n_reliable_instances": 1.0,
    }


def test_hand_reliable_fallback_when_unreliable_pool_never_returns():
    # gamma = 0: all work is done by 2 reliable machines, 2066 s per task: 0-2066-4132.  The 3
    # reliable instances are queued at 0 before the 2 machines take theirs: queue 3.
    out = _hand(3, 5, 0, 0.0, 8264.0, 2, gamma=0.0)
    assert out["makespan"] == 4132.0
    assert out["cost"] == pytest.approx(RELIABLE_RUN)
    assert (out["max_reliable_busy"], out["max_reliable_queue"]) == (2.0, 3.0)
    # N = 1, T = 500: tasks 0 and 1 get a tail unreliable instance at 500 s (5 machines), task 2
    # waits until the throughput instances fail at 8264 s, so its reliable instance is enqueued at
    # 8764 s and returns at 10830 s.
    out = _hand(3, 5, 1, 500.0, 8264.0, 1, gamma=0.0)
    assert out["makespan"] == 10830.0
    assert out["n_reliable_instances"] == 3.0


def test_uniform_matches_engine():
    for key in (0, 1, 0x0123456789ABCDEF, 2**64 - 1):
        for task, k, stream in ((0, 0, 0), (149, 3, 1), (7, 1_000_002, 0), (2**20, 0, 1)):
            assert reference.uniform(key, task, k, stream) == _engine.uniform(
                np.uint64(key), task, k, stream
            )


def test_both_give_nan_when_the_instance_cap_is_hit():
    # D = 500 s is below every turnaround (1000 s) and N = inf: the first strategy never ends once
    # a tail task's throughput instance fails (key 3; with key 4 all of them return); the second
    # falls back to the reliable pool.  gamma = 0 stalls the throughput phase itself.
    rows = [(-1, 0.0, 500.0, 1, False, False, math.inf), (0, 0.0, 500.0, 1, False, False, math.inf)]
    env = (10, 4, 500.0, 2000.0, 1 / 3600, 34 / 3600, 1.0, np.array([1000.0]), [0.0], [0.9])
    fast, slow = _both(env, rows, [3, 4])
    np.testing.assert_allclose(fast, slow, rtol=1e-12)
    assert np.isnan(slow[0, 0]).all() and not np.isnan(slow[0, 1]).any()
    assert not np.isnan(slow[1]).any()
    fast, slow = _both(env[:-1] + ([0.0],), rows, [3])
    assert np.isnan(fast).all() and np.isnan(slow).all()


# --------------------------------------------------------------------------- the paper's time step
def _step_case(n_tasks, n_unreliable):
    """γ = 1, every turnaround 1000 s, t_r = 2000 s, one reliable machine, N = 2, T = 0, D = 1500 s."""
    env = (n_tasks, n_unreliable, 2000.0, 8264.0, 1 / 3600, 34 / 3600, 1.0, np.array([1000.0]), [0.0], [1.0])
    fast, slow = _both(env, [(2, 0.0, 1500.0, 1, False, False, math.inf)], [7])
    np.testing.assert_allclose(fast, slow, rtol=1e-12)
    return dict(zip(COLUMNS, fast[0, 0], strict=True))


def test_hand_time_step_due_tasks_enqueue_before_allocation():
    # The case.  3 tasks, 5 unreliable machines: all 3 throughput instances are sent at 0,
    # so T_tail = 0 with 3 machines busy and 2 idle; their results come at 1000 s.
    # Step at 0: the 3 tasks are due (T = 0) and enqueue one unreliable instance each, in task
    # order: queue [u0, u1, u2].  Allocation: the 2 idle machines take u0 and u1 (sent, results
    # at 1000 s < D), u2 waits.  Next step at 0: tasks 0 and 1 are due again and enqueue their
    # 2nd tail instance behind u2: queue [u2, u0', u1']; no idle machine; the reliable queue is
    # empty, so the reliable machine stays idle.  At 1000 s all 5 running instances return: the
    # 3 tasks complete, the 3 queued instances are cancelled (never sent, never paid).
    # Sent in the tail: 2 unreliable, 0 reliable; paid: 5 × 1000 s at 1/3600 ¢/s; cancelled: 3.
    out = _step_case(3, 5)
    assert out == {
        "makespan": 1000.0,
        "cost": pytest.approx(5 * 1000 / 3600 / 3),  # 0.463 ¢/task
        "t_tail": 0.0,
        "n_tail_tasks": 3.0,
        "max_reliable_busy": 0.0,
        "max_reliable_queue": 0.0,
        "n_reliable_instances": 0.0,
    }
    # The order this replaces (a task's T = 0 timer firing before the others had enqueued) sent
    # u0, u0' and task 0's reliable instance at 0 and paid a 2000 s reliable run on top:
    # (5 × 1000 / 3600 + 2000 × 34 / 3600) / 3 = 6.76 ¢/task.
    assert out["cost"] < (5 * 1000 + 2000 * 34) / 3600 / 3 - 6


def test_hand_time_step_zero_timeout_chains_one_instance_per_step():
    # 2 tasks, 6 unreliable machines: T_tail = 0, 4 machines idle.  Step 1 at 0: u0, u1 queued
    # and sent.  Step 2 at 0 (the T = 0 timers of those sends): u0', u1' queued and sent (N = 2
    # reached).  Step 3 at 0: r0, r1 enqueue on the reliable queue (max queue 2); the one
    # reliable machine takes r0 (paid, 2000 s), r1 waits.  At 1000 s the 6 unreliable results
    # complete both tasks and cancel r1.  Cost: (6 × 1000 / 3600 + 2000 × 34 / 3600) / 2.
    out = _step_case(2, 6)
    assert out == {
        "makespan": 1000.0,
        "cost": pytest.approx((6 * 1000 + 2000 * 34) / 3600 / 2),
        "t_tail": 0.0,
        "n_tail_tasks": 2.0,
        "max_reliable_busy": 1.0,
        "max_reliable_queue": 2.0,
        "n_reliable_instances": 1.0,
    }
