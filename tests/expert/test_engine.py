"""Hand-computed cases for the ExPERT Estimator engine (``mopt/expert/_engine/``), plus a
cross-check against a literal (slow, single-heap) reference implementation of the spec.

Unless a test says otherwise the turnaround is deterministic (``fs_table = [1000.]``: every
successful unreliable instance takes exactly 1000 s), ``gamma = 1``, ``c_ur = 1``, ``c_r = 10``
and the reliable charging period is 1 s, so every number below can be worked out on paper.

A pattern used throughout: 7 tasks on 4 unreliable machines.  Tasks 0..3 run on [0, 1000];
at 1000 the results of 0, 1, 2 each free a machine that takes 4, 5, 6 (sent at 1000, results
at 2000); after the result of task 3 only 3 < 4 tasks remain, so ``t_tail = 1000`` with tail
tasks 4, 5, 6, the cost paid so far is 4 * 1000 and one unreliable machine is idle.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from mopt.expert._engine import N_INFINITE, OUTPUT_COLUMNS, BoT, Strategies, simulate, uniform

MAKESPAN, COST, T_TAIL, N_TAIL, MAX_BUSY, MAX_QUEUE, N_REL_SENT = range(7)
INF = math.inf


def run(
    strategies,
    *,
    n_tasks=7,
    n_unreliable=4,
    t_r=500.0,
    d0=4000.0,
    fs_table=(1000.0,),
    gamma_breaks=(0.0,),
    gamma_values=(1.0,),
    keys=(1,),
    max_instances=10_000_000,
):
    """Simulate ``strategies``: a list of dicts with keys N, T, D, n_rel and optional
    combine, combined (throughput), budget.  Returns the (n_strategies, n_keys, 7) array."""

    def col(name, default=None):
        return np.array([strategy.get(name, default) for strategy in strategies])

    bot = BoT(n_tasks, n_unreliable, t_r, d0, 1.0, 10.0, 1.0, np.array(fs_table, dtype=float),
              np.array(gamma_breaks, dtype=float), np.array(gamma_values, dtype=float))
    strategies = Strategies(col("N").astype(np.int64), col("T").astype(float), col("D").astype(float),
                            col("n_rel").astype(np.int64), col("combine", False).astype(bool),
                            col("combined", False).astype(bool), col("budget", INF).astype(float))
    return simulate(bot, strategies, np.array(keys, dtype=np.uint64), max_instances=max_instances)


def row(strategy, **kw):
    return run([strategy], **kw)[0, 0]


AUR = {"N": N_INFINITE, "T": 4000.0, "D": 4000.0, "n_rel": 0}


def test_output_columns():
    assert OUTPUT_COLUMNS == (
        "makespan",
        "cost",
        "t_tail",
        "n_tail_tasks",
        "max_reliable_busy",
        "max_reliable_queue",
        "n_reliable_instances",
    )


def test_uniform_matches_the_spec_formula():
    mask = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        return z ^ (z >> 31)

    def reference(key, task, k, stream):
        x = (
            key
            ^ ((task + 1) * 0x9E3779B97F4A7C15)
            ^ ((k + 1) * 0xC2B2AE3D27D4EB4F)
            ^ ((stream + 1) * 0x165667B19E3779F9)
        ) & mask
        x = mix(mix(x) ^ 0xD6E8FEB86659FD93)
        return (x >> 11) * 2.0**-53

    for key in (0, 1, 12345, 2**63 + 11, mask):
        for task, k, stream in ((0, 0, 0), (7, 3, 1), (149, 1_000_002, 0)):
            assert uniform(np.uint64(key), task, k, stream) == reference(key, task, k, stream)


# ----------------------------------------------------------------------------- (a) AUR
def test_aur_deterministic_turnaround():
    # 10 tasks on 4 machines: wave 0..3 on [0, 1000], wave 4..7 on [1000, 2000] (8, 9 queued).
    # At 2000 the results of 4 and 5 send 8 and 9 (results at 3000); after the result of 6
    # only 7, 8, 9 remain: t_tail = 2000.  Task 7's result is at 2000, 8 and 9 finish at 3000.
    # Each task pays exactly one 1000 s result: cost per task = 1000.
    out = row(AUR, n_tasks=10)
    np.testing.assert_array_equal(out, [1000.0, 1000.0, 2000.0, 3.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("key", range(1, 9))
def test_aur_pays_one_result_per_task(key):
    # gamma = 0.6, turnarounds 1000 or 3000 (< d0 = 4000).  With T = D = d0 a new instance is
    # sent only when the previous one failed, so each task pays exactly one result:
    # cost * n_tasks = 1000 * n_short + 3000 * n_long with n_short + n_long = n_tasks.
    n_tasks = 40
    out = row(
        AUR,
        n_tasks=n_tasks,
        n_unreliable=8,
        fs_table=(1000.0, 3000.0),
        gamma_values=(0.6,),
        keys=(key,),
    )
    n_long = (out[COST] * n_tasks - 1000.0 * n_tasks) / 2000.0
    assert n_long == int(n_long)
    assert 0 <= n_long <= n_tasks
    assert out[N_REL_SENT] == 0


# ----------------------------------------------------------------------------- (b) N = 0, T = 0
def test_n0_t0_every_tail_task_gets_a_reliable_instance_at_t_tail():
    # 7 tasks / 4 machines: t_tail = 1000, tasks 4, 5, 6 sent at 1000 (results at 2000).
    # T = 0: their timers fire at t_tail; N = 0, so each enqueues its reliable instance (queue
    # length 3: every due task enqueues before the machines are allocated, the paper's time
    # step) and the 3 reliable machines take them at once.  Reliable
    # results at 1000 + 500 = 1500 come first: makespan 500.  The unreliable results at 2000
    # are redundant but paid.  Cost = (4 * 1000 + 3 * 1000 + 3 * 10 * 500) / 7 = 22000 / 7.
    out = row({"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 3})
    np.testing.assert_allclose(out, [500.0, 22000.0 / 7, 1000.0, 3.0, 3.0, 3.0, 3.0])


def test_n0_t0_unreliable_results_first_when_reliable_is_slow():
    # Same, t_r = 1500: reliable results would come at 2500, the unreliable ones at 2000 win
    # (makespan 1000) but the running reliable instances are not aborted and are paid:
    # cost = (7000 + 3 * 15000) / 7.
    out = row({"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 5}, t_r=1500.0)
    np.testing.assert_allclose(out, [1000.0, 52000.0 / 7, 1000.0, 3.0, 3.0, 3.0, 3.0])


def test_tail_task_finishing_at_t_tail_gets_nothing():
    # 10 tasks / 4 machines (see the AUR test): t_tail = 2000 with task 7 finishing at 2000
    # and 8, 9 sent at 2000.  N = 0, T = 0: the result of 7 comes before the timers at 2000,
    # so only 8 and 9 get reliable instances (results at 2500; both queued before allocation:
    # queue 2).  Cost = (7000 [0..6] + 1000 [7] + 2000 [8, 9 redundant] + 2 * 5000) / 10 = 2000.
    out = row({"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 3}, n_tasks=10)
    np.testing.assert_allclose(out, [500.0, 2000.0, 2000.0, 3.0, 2.0, 2.0, 2.0])


# ----------------------------------------------------------------------------- (c) one machine
def test_one_reliable_machine_queue_and_cancellation():
    # t_tail = 1000, tasks 4, 5, 6 (unreliable results at 2000), N = 0, T = 0, one reliable
    # machine, t_r = 1500.  At 1000: 4, 5, 6 enqueue reliable instances (queue length 3), then
    # 4's starts (result 2500); 5 and 6 wait.  At 2000 the unreliable results complete 4, 5, 6 and cancel the queued
    # reliable instances of 5 and 6 (never sent, never paid); 4's running reliable instance is
    # not aborted and is paid.  Cost = (4000 + 3000 + 15000) / 7.
    out = row({"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1}, t_r=1500.0)
    np.testing.assert_allclose(out, [1000.0, 22000.0 / 7, 1000.0, 3.0, 1.0, 3.0, 1.0])


def test_one_reliable_machine_event_order_at_equal_times():
    # As above with t_r = 500: 4 runs on [1000, 1500], then 5 on [1500, 2000].  At 2000 the
    # reliable result of 5 and the unreliable results of 4, 5, 6 are all processed before the
    # freed machine is allocated (the paper's time step), so 6 is done and its queued reliable
    # instance is cancelled: 2 reliable instances are sent and paid, makespan 1000.
    # Cost = (7000 + 2 * 5000) / 7.
    out = row({"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1})
    np.testing.assert_allclose(out, [1000.0, 17000.0 / 7, 1000.0, 3.0, 1.0, 3.0, 2.0])


def test_finite_n_with_all_unreliable_instances_failing():
    # gamma = 1 for instances sent before 500, 0 after: tasks 4, 5, 6 (sent at 1000) fail at
    # 1000 + d0 = 5000; t_tail = 1000 as usual.  N = 0, T = 0, one reliable machine, t_r = 500:
    # reliable runs [1000, 1500], [1500, 2000], [2000, 2500].  Failures cost nothing:
    # cost = (4000 + 3 * 5000) / 7, makespan 1500; the 3 reliable instances are queued at once.
    out = row(
        {"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1},
        gamma_breaks=(0.0, 500.0),
        gamma_values=(1.0, 0.0),
    )
    np.testing.assert_allclose(out, [1500.0, 19000.0 / 7, 1000.0, 3.0, 1.0, 3.0, 3.0])


def test_n1_sends_one_unreliable_instance_then_the_reliable_one():
    # gamma 1 before 500 then 0; t_tail = 1000 with 4, 5, 6 failing at 5000.  N = 1, T = 0,
    # D = 300, one reliable machine, t_r = 500.  At 1000 the timers (in task order) enqueue
    # unreliable instances; the only idle unreliable machine takes 4 (fails at 1300).  4's new
    # timer fires in the next step at 1000 (the paper's time step): 4 has used its N = 1 and
    # enqueues its reliable instance, which starts at once (result 1500).  5 and 6 wait in the unreliable queue: at
    # 1300 the machine takes 5 (fails 1600), whose timer at 1300 queues its reliable instance;
    # at 1500 the reliable machine takes it (result 2000); at 1600 the unreliable machine takes
    # 6 (fails 1900), whose reliable instance runs [2000, 2500].  Makespan 1500; only the 3
    # reliable runs are paid.  Max reliable queue: 1 (5's, then 6's).
    out = row(
        {"N": 1, "T": 0.0, "D": 300.0, "n_rel": 1},
        gamma_breaks=(0.0, 500.0),
        gamma_values=(1.0, 0.0),
    )
    np.testing.assert_allclose(out, [1500.0, 19000.0 / 7, 1000.0, 3.0, 1.0, 1.0, 3.0])


def test_timers_at_equal_times_enqueue_in_task_order_before_allocation():
    # 10 tasks / 4 machines: t_tail = 2000, task 7 done at 2000, 8 and 9 sent at 2000 (results
    # at 3000); after 7's result two unreliable machines are idle.  N = 2, T = 0, one reliable
    # machine (t_r = 500).  Step at 2000: 7's result, then the timers of 8 and 9 enqueue one
    # tail instance each (task order), then the two idle machines take them (results 3000).
    # Next step at 2000 (the T = 0 timers of those sends): 8 and 9 enqueue their 2nd tail
    # instance; no machine is idle.  At 3000 every result completes 8 and 9 and cancels the
    # queued instances: no reliable instance.  Cost = (7000 + 3000 [7, 8, 9] + 2000 [the two
    # tail instances]) / 10.  (The order this replaced let 8's own timer jump ahead of 9's: 8
    # got both idle machines and a reliable instance.)
    out = row({"N": 2, "T": 0.0, "D": 4000.0, "n_rel": 1}, n_tasks=10)
    np.testing.assert_allclose(out, [1000.0, 1200.0, 2000.0, 3.0, 0.0, 0.0, 0.0])


# ----------------------------------------------------------------------------- (d) N = inf
@pytest.mark.parametrize("n_rel", [0, 1, 5])
def test_n_infinite_never_sends_reliable_instances(n_rel):
    strategies = [
        {"N": N_INFINITE, "T": T, "D": D, "n_rel": n_rel}
        for T, D in ((0.0, 2500.0), (800.0, 2500.0), (2500.0, 2500.0), (4000.0, 4000.0))
    ]
    out = run(
        strategies,
        n_tasks=60,
        n_unreliable=10,
        fs_table=np.linspace(500.0, 3000.0, 64),
        gamma_values=(0.7,),
        keys=range(1, 6),
    )
    assert np.all(out[..., MAX_BUSY] == 0)
    assert np.all(out[..., MAX_QUEUE] == 0)
    assert np.all(out[..., N_REL_SENT] == 0)
    # The reliable pool is never used, so its size does not matter.
    no_pool = run(
        [dict(s, n_rel=0) for s in strategies],
        n_tasks=60,
        n_unreliable=10,
        fs_table=np.linspace(500.0, 3000.0, 64),
        gamma_values=(0.7,),
        keys=range(1, 6),
    )
    np.testing.assert_array_equal(out, no_pool)


# ----------------------------------------------------------------------------- (e) CRN, batching
RANDOM_SETUP = dict(
    n_tasks=80,
    n_unreliable=12,
    t_r=1200.0,
    d0=6000.0,
    fs_table=np.sort(np.random.default_rng(0).uniform(400.0, 5000.0, 256)),
    gamma_breaks=(0.0, 3000.0),
    gamma_values=(0.9, 0.75),
)
BATCH = [
    {"N": 0, "T": 0.0, "D": 1500.0, "n_rel": 2},
    {"N": 1, "T": 500.0, "D": 1500.0, "n_rel": 3},
    {"N": 2, "T": 1500.0, "D": 3000.0, "n_rel": 1},
    {"N": 3, "T": 0.0, "D": 6000.0, "n_rel": 4},
    {"N": N_INFINITE, "T": 3000.0, "D": 3000.0, "n_rel": 0},
    {"N": N_INFINITE, "T": 6000.0, "D": 6000.0, "n_rel": 2, "budget": 900_000.0},
    {"N": N_INFINITE, "T": 6000.0, "D": 6000.0, "n_rel": 3, "combine": True, "combined": True},
    {"N": 0, "T": 0.0, "D": 6000.0, "n_rel": 2, "combined": True},
]


def test_same_key_same_output_different_keys_differ():
    a = run(BATCH, keys=(11, 12, 13), **RANDOM_SETUP)
    b = run(BATCH, keys=(11, 12, 13), **RANDOM_SETUP)
    np.testing.assert_array_equal(a, b)
    assert not np.isnan(a).any()
    # Different keys: different throughput phases and tails.
    assert len(set(a[0, :, T_TAIL])) == 3
    for s in range(len(BATCH)):
        assert len(set(a[s, :, COST])) == 3


def test_output_does_not_depend_on_batching():
    keys = (21, 22, 23, 24)
    together = run(BATCH, keys=keys, **RANDOM_SETUP)
    for s, strategy in enumerate(BATCH):
        alone = run([strategy], keys=keys, **RANDOM_SETUP)
        np.testing.assert_array_equal(alone[0], together[s])
        one_key = run([strategy], keys=keys[2:3], **RANDOM_SETUP)
        np.testing.assert_array_equal(one_key[0, 0], together[s, 2])
    # Reversed strategy order, with duplicates.
    shuffled = run(BATCH[::-1] + BATCH[:2], keys=keys, **RANDOM_SETUP)
    np.testing.assert_array_equal(shuffled[: len(BATCH)][::-1], together)
    np.testing.assert_array_equal(shuffled[len(BATCH) :], together[:2])


def test_strategies_of_one_replication_share_the_throughput_phase():
    out = run(BATCH, keys=(5, 6), **RANDOM_SETUP)
    plain = [s for s, st in enumerate(BATCH) if not st.get("combined", False)]
    for r in range(2):
        assert len({out[s, r, T_TAIL] for s in plain}) == 1
        assert len({out[s, r, N_TAIL] for s in plain}) == 1


# ----------------------------------------------------------------------------- (f) t_tail
def test_t_tail_150_tasks_50_machines():
    # Waves of 50: [0, 1000], [1000, 2000], [2000, 3000].  At 2000, after the last result of
    # wave 2, 50 tasks remain (not < 50); at 3000 the first result (task 100) leaves 49: t_tail
    # = 3000 with tasks 101..149, whose results arrive at 3000 too (makespan 0).
    out = row(AUR, n_tasks=150, n_unreliable=50)
    np.testing.assert_array_equal(out, [0.0, 1000.0, 3000.0, 49.0, 0.0, 0.0, 0.0])


def test_fewer_tasks_than_machines_starts_the_tail_at_zero():
    # 3 tasks on 4 machines: t_tail = 0, results at 1000.  N = 0, T = 300, 2 reliable
    # machines: at 300 the 3 tasks queue reliable instances (queue 3), those of 0 and 1 start
    # ([300, 800]) and 2's waits;
    # it starts at 800 ([800, 1300]), but 2's unreliable result at 1000 comes first: makespan
    # 1000 - 0.  The running reliable instance is paid: cost = (3 * 1000 + 3 * 5000) / 3.
    out = row({"N": 0, "T": 300.0, "D": 4000.0, "n_rel": 2}, n_tasks=3)
    np.testing.assert_allclose(out, [1000.0, 6000.0, 0.0, 3.0, 2.0, 3.0, 3.0])


def test_no_tail_when_nothing_remains():
    # n_tasks = 0: nothing to do, the tail starts at 0 with no task.
    out = row(AUR, n_tasks=0)
    np.testing.assert_array_equal(out, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])


# ----------------------------------------------------------------------------- B, CN_inf, CN1T0
def test_budget_strategy_triggers_at_t_tail():
    # Paid at t_tail: 4000; a reliable run costs 5000.  Budget 19000: 3 * 5000 <= 19000 - 4000
    # at t_tail, so 4, 5, 6 get reliable instances at once (queue 3), done at 1500.  Cost =
    # (7000 + 15000) / 7.
    strategy = {"N": N_INFINITE, "T": 4000.0, "D": 4000.0, "n_rel": 3, "budget": 19000.0}
    np.testing.assert_allclose(row(strategy), [500.0, 22000.0 / 7, 1000.0, 3.0, 3.0, 3.0, 3.0])


def test_budget_strategy_triggers_after_a_result():
    # gamma 1 before 500, 0.5 after: tasks 0..3 return at 1000, t_tail = 1000 with 4, 5, 6 sent
    # at 1000.  Key 15 draws u = 0.470, 0.610, 0.921 for them: 4 returns at 2000, 5 and 6 fail
    # at 1000 + d0 = 5000.  Budget 18999: not at t_tail (3 * 5000 > 18999 - 4000).  At 2000
    # 4's result is paid (1000): 2 * 5000 <= 18999 - 5000, so 5 and 6 enqueue reliable
    # instances, which start at once ([2000, 2500]).  Makespan 1500, failures cost nothing:
    # cost = (5000 + 2 * 5000) / 7.
    draws = [uniform(np.uint64(15), task, 0, 0) for task in (4, 5, 6)]
    assert draws[0] < 0.5 <= min(draws[1:])
    strategy = {"N": N_INFINITE, "T": 4000.0, "D": 4000.0, "n_rel": 3, "budget": 18999.0}
    out = row(strategy, gamma_breaks=(0.0, 500.0), gamma_values=(1.0, 0.5), keys=(15,))
    np.testing.assert_allclose(out, [1500.0, 15000.0 / 7, 1000.0, 3.0, 2.0, 2.0, 2.0])


def test_budget_is_checked_after_every_result_of_the_instant():
    # The usual 7-task pattern: 4, 5, 6 all return at 2000.  Budget 18999 would switch after
    # 4's result alone (see above), but the three results of the instant come first: every task
    # is done before the check, so no reliable instance is sent.  Cost = 7000 / 7.
    strategy = {"N": N_INFINITE, "T": 4000.0, "D": 4000.0, "n_rel": 3, "budget": 18999.0}
    np.testing.assert_allclose(row(strategy), [1000.0, 1000.0, 1000.0, 3.0, 0.0, 0.0, 0.0])


def test_combined_throughput_phase():
    # Combined variant with one reliable machine (t_r = 500): at 0 the unreliable machines take
    # 0..3 and the reliable one takes 4 (result 500); at 500 it takes 5 (result 1000); at 1000
    # the reliable result of 5 comes first and the machine takes 6 (result 1500), then the
    # results of 0 and 1 leave 3 tasks: t_tail = 1000 with 2, 3 (results at 1000) and 6 (on
    # the reliable machine, busy at t_tail).  Cost = (4 * 1000 + 3 * 5000) / 7.
    strategy = {"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1, "combined": True}
    np.testing.assert_allclose(row(strategy), [500.0, 19000.0 / 7, 1000.0, 3.0, 1.0, 0.0, 0.0])


def test_combine_spills_the_unreliable_queue_onto_reliable_machines():
    # Plain throughput (t_tail = 1000, tasks 4, 5, 6 with results at 2000, one idle unreliable
    # machine), then N = inf, T = 0, combine with one reliable machine (t_r = 500).  Step at
    # 1000: 4, 5, 6 enqueue a tail instance each; the idle unreliable machine takes 4's (result
    # 2000) and 5's spills onto the reliable machine ([1000, 1500]); 6's waits.  Next step at
    # 1000: 4's T = 0 timer queues another instance behind 6's (5, now on a reliable machine,
    # gets no more).  At 1500 5 is done and the reliable machine takes 6 ([1500, 2000]).  At
    # 2000 all results complete 4 and 6 and cancel 4's queued instance.  Makespan 1000.
    # Cost = (4000 + 4000 [two results of 4, one of 5, one of 6] + 2 * 5000) / 7.
    strategy = {"N": N_INFINITE, "T": 0.0, "D": 4000.0, "n_rel": 1, "combine": True}
    np.testing.assert_allclose(row(strategy), [1000.0, 18000.0 / 7, 1000.0, 3.0, 1.0, 0.0, 2.0])


def test_task_on_a_reliable_machine_at_t_tail_gets_no_further_instance():
    # Combined throughput with one reliable machine, t_r = 1500: 4 runs on it [0, 1500]; at
    # 1000 the results of 0, 1 send 5, 6 (results 2000) and t_tail = 1000 after 3's result.
    # CN1T0-like tail (N = 0, T = 0): 4 gets nothing; 5 and 6 queue reliable instances behind
    # 4's run.  5's starts at 1500 ([1500, 3000], paid), 6's is cancelled by 6's unreliable
    # result at 2000.  Cost = (4 * 1000 + 15000 [4] + 15000 [5] + 2000 [5, 6]) / 7.
    strategy = {"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1, "combined": True}
    out = row(strategy, t_r=1500.0)
    np.testing.assert_allclose(out, [1000.0, 36000.0 / 7, 1000.0, 3.0, 1.0, 2.0, 1.0])


# ----------------------------------------------------------------------------- (g) safety cap
def test_cap_in_the_throughput_phase_gives_nan():
    # gamma = 0: no instance ever returns a result.
    out = run(
        [AUR, {"N": 0, "T": 0.0, "D": 10.0, "n_rel": 2}], gamma_values=(0.0,), max_instances=1000
    )
    assert np.isnan(out).all()


def test_cap_in_the_tail_gives_nan_only_for_that_strategy():
    # gamma 1 before 500, 0 after: the throughput phase ends (t_tail = 1000) but tail tasks
    # never get a result without a reliable instance.  N = inf loops until the cap; N = 0 is
    # fine (see test_finite_n_with_all_unreliable_instances_failing).
    out = run(
        [AUR, {"N": 0, "T": 0.0, "D": 4000.0, "n_rel": 1}],
        gamma_breaks=(0.0, 500.0),
        gamma_values=(1.0, 0.0),
        max_instances=1000,
    )
    assert np.isnan(out[0]).all()
    np.testing.assert_allclose(out[1, 0], [1500.0, 19000.0 / 7, 1000.0, 3.0, 1.0, 3.0, 3.0])


# ----------------------------------------------------------------------------- literal reference
# The engine merges several event sources and skips timers that cannot act; this reference
# follows the spec literally (one heap of (time, kind, task) events, every timer, payment when
# a result arrives, simulation continued until the last running instance ends, the paper's
# time step: every event of an instant before any allocation) and must agree.
def _reference(n_tasks, n_ur, t_r, d0, fs, gb, gv, N, T, D, n_rel, combine, combined, budget, key):
    import heapq
    from collections import deque

    rel_cost = 10.0 * math.ceil(t_r)
    REL, URS, URF, TIMER = range(4)

    def draw(task, k, s, deadline):
        g = gv[max(int(np.searchsorted(gb, s, side="right")) - 1, 0)]
        if uniform(np.uint64(key), task, k, 0) < g:
            t = fs[min(int(uniform(np.uint64(key), task, k, 1) * len(fs)), len(fs) - 1)]
            if t < deadline:
                return URS, s + t, t
        return URF, s + deadline, 0.0

    # Throughput phase.
    queue, free_ur, free_rel = deque(range(n_tasks)), n_ur, (n_rel if combined else 0)
    next_k, running, events, paid, remaining, t = [0] * n_tasks, {}, [], 0.0, n_tasks, 0.0
    while True:
        while queue and (free_ur > 0 or free_rel > 0):
            j = queue.popleft()
            next_k[j] += 1
            if free_ur > 0:
                free_ur -= 1
                kind, end, turnaround = draw(j, next_k[j] - 1, t, d0)
                running[j] = (t, end, kind, turnaround)
            else:
                free_rel -= 1
                kind, end = REL, t + t_r
                running[j] = (t, end, REL, 0.0)
            heapq.heappush(events, (end, kind, j))
        if remaining < n_ur:
            break
        t, kind, j = heapq.heappop(events)
        if kind == URF:
            free_ur += 1
            queue.append(j)
        else:
            free_ur, free_rel = free_ur + (kind == URS), free_rel + (kind == REL)
            turnaround = running.pop(j)[3]
            paid += rel_cost if kind == REL else turnaround
            remaining -= 1
    t_tail, tail = t, sorted(running)
    # Tail phase.
    if n_rel <= 0:
        n_rel, N = 0, -1
    budget_mode = budget < INF and n_rel > 0
    N = -1 if budget_mode else N
    st = {j: {"done": False, "qur": False, "qrel": False, "rel": False, "n": 0} for j in tail}
    events, seq, total = [], 0, paid
    for j in tail:
        s, end, kind, turnaround = running[j]
        pay = rel_cost if kind == REL else turnaround
        heapq.heappush(events, (end, kind, j, (seq := seq + 1), pay))
        if kind == REL:
            st[j]["rel"] = True
        else:
            heapq.heappush(events, (max(s + T, t_tail), TIMER, j, (seq := seq + 1), 0.0))
    busy_rel = sum(st[j]["rel"] for j in tail)
    free_ur, free_rel = n_ur - (len(tail) - busy_rel), n_rel - busy_rel
    urq, relq, trig, finished = deque(), deque(), False, not tail
    max_busy, max_q, n_rel_sent, n_done, last, t = busy_rel, 0, 0, 0, t_tail, t_tail

    def live():
        return sum(not st[j]["done"] for j in relq)

    def budget_check():
        """Strategy B's switch; returns False (the check is done until the next result)."""
        nonlocal trig, max_q
        if budget_mode and not trig and (len(tail) - n_done) * rel_cost <= budget - paid:
            trig = True
            for j in tail:
                if not st[j]["done"] and not st[j]["rel"]:
                    st[j].update(rel=True, qrel=True)
                    relq.append(j)
            max_q = max(max_q, live())
        return False

    # The paper's time step: all events of an instant (the heap orders them results, failures,
    # timers; ties by task), the budget check right after the results, then allocation.  Timers
    # of this step's sends at T = 0 fire in a following step at the same time.
    check = budget_mode
    while True:
        while events and events[0][0] == t:
            if check and events[0][1] > URS:
                check = budget_check()
            _, kind, j, _, pay = heapq.heappop(events)
            if kind == TIMER:
                s = st[j]
                if finished or s["done"] or s["qur"] or s["qrel"] or s["rel"] or trig:
                    continue
                if N < 0 or s["n"] < N:
                    s.update(n=s["n"] + 1, qur=True)
                    urq.append(j)
                else:
                    s.update(rel=True, qrel=True)
                    relq.append(j)
                    max_q = max(max_q, live())
            elif kind == URF:
                free_ur += 1
            else:
                free_ur, free_rel = free_ur + (kind == URS), free_rel + (kind == REL)
                busy_rel -= kind == REL
                total += pay
                if not finished:
                    paid += pay
                    if not st[j]["done"]:
                        st[j]["done"], n_done, last = True, n_done + 1, t
                        finished = n_done == len(tail)
                    check = budget_mode
        if check:
            check = budget_check()
        while not finished and free_ur > 0 and urq:
            j = urq.popleft()
            if not st[j]["done"]:
                st[j]["qur"], free_ur = False, free_ur - 1
                kind, end, turnaround = draw(j, 1_000_000 + st[j]["n"] - 1, t, D)
                heapq.heappush(events, (end, kind, j, (seq := seq + 1), turnaround))
                heapq.heappush(events, (t + T, TIMER, j, (seq := seq + 1), 0.0))
        while not finished and free_rel > 0 and (relq or (combine and urq)):
            j = (relq or urq).popleft()
            if not st[j]["done"]:
                st[j].update(qur=False, qrel=False, rel=True)
                free_rel, busy_rel, n_rel_sent = free_rel - 1, busy_rel + 1, n_rel_sent + 1
                max_busy = max(max_busy, busy_rel)
                heapq.heappush(events, (t + t_r, REL, j, (seq := seq + 1), rel_cost))
        if not events:
            break
        t = events[0][0]
    return [last - t_tail, total / n_tasks, t_tail, len(tail), max_busy, max_q, n_rel_sent]


@pytest.mark.parametrize("case", range(12))
def test_engine_agrees_with_a_literal_reference(case):
    rng = np.random.default_rng(case)
    n_ur, n_tasks = int(rng.integers(1, 10)), int(rng.integers(1, 45))
    fs = [
        np.array([1000.0]),
        np.sort(rng.choice([500.0, 1000.0, 1500.0, 2000.0], size=3)),
        np.sort(rng.uniform(300.0, 3000.0, 50)),
    ][case % 3]
    gb, gv = (
        (np.array([0.0]), np.array([0.8]))
        if case % 2
        else (np.array([0.0, 2500.0]), np.array([0.9, 0.5]))
    )
    t_r = float(rng.choice([500.0, 1000.0, 1500.0]))
    strategies = []
    for _ in range(12):
        N = int(rng.choice([N_INFINITE, 0, 1, 2, 3]))
        D = float(rng.choice([300.0, 1000.0, 1500.0, 2500.0, 4000.0]))
        strategies.append(
            {
                "N": N,
                "T": float(rng.choice([0.0, 250.0, 1000.0, 2000.0, 4000.0])),
                "D": D,
                "n_rel": int(rng.choice([0, 1, 2, 6])),
                "combine": bool(rng.random() < 0.25),
                "combined": bool(rng.random() < 0.25),
                "budget": float(rng.choice([INF, INF, rng.uniform(0.0, 40000.0)])),
            }
        )
    for strategy in strategies:
        # Without a reliable instance to fall back on, keep D above every turnaround so that
        # the (uncapped) reference terminates.
        if strategy["N"] == N_INFINITE or strategy["n_rel"] == 0 or strategy["budget"] < INF:
            strategy["D"] = 4000.0
    keys = [int(k) for k in rng.integers(0, 2**63, 3)]
    setup = dict(
        n_tasks=n_tasks, n_unreliable=n_ur, t_r=t_r, fs_table=fs, gamma_breaks=gb, gamma_values=gv
    )
    out = run(strategies, keys=keys, **setup)
    for s, strategy in enumerate(strategies):
        args = [
            strategy[name] for name in ("N", "T", "D", "n_rel", "combine", "combined", "budget")
        ]
        for r, key in enumerate(keys):
            expected = _reference(n_tasks, n_ur, t_r, 4000.0, fs, gb, gv, *args, key)
            np.testing.assert_allclose(out[s, r], expected, rtol=1e-12, atol=1e-9)


def test_threads_can_share_the_engine():
    """Several threads launching the parallel kernels at once must neither abort nor change results
    (numba's workqueue layer aborts on concurrent launches; the engine serialises them)."""
    from concurrent.futures import ThreadPoolExecutor

    import mopt
    from mopt.expert import NTDMrProblem, reference_environment

    prob = NTDMrProblem(reference_environment(0.1), T=[0.0, 2066.0], D=[4132.0], Mr=[0.02, 0.1])
    alone = mopt.solve(prob, "exhaustive", seed=5, n_reps=6)
    with ThreadPoolExecutor(4) as pool:
        threaded = mopt.solve(prob, "exhaustive", seed=5, n_reps=6, executor=pool)
    assert alone.evaluations.equals(threaded.evaluations)


def test_tail_phase_of_one_replication_equals_its_row_of_the_batch():
    """The single-replication driver (``tail_phase``, event orders computed inside) and the batch
    driver (``simulate_observed``) run the same kernel: every output of every (strategy, key) is
    equal to the bit, on an observed state of 3 running tasks of the reference environment."""
    from mopt.expert import reference_environment
    from mopt.expert._engine import MAX_INSTANCES, running_outcomes, simulate_observed, tail_phase
    from mopt.expert._engine.random import reliable_run_cost

    a = reference_environment(0.1).engine_arguments()
    model = (a["n_tasks"], a["n_unreliable"], a["t_r"], a["c_ur"],
             reliable_run_cost(a["t_r"], a["c_r"], a["charging_period_r"]), a["fs_table"],
             a["gamma_breaks"], a["gamma_values"])
    strategies = [(2, 0.0, 2000.0, 3, False, INF), (N_INFINITE, 1000.0, 4000.0, 0, False, INF),
                  (1, 500.0, 3000.0, 2, True, INF), (0, 0.0, 2000.0, 1, False, 1.5 * a["n_tasks"])]
    keys = np.array([5, 9, 2024], np.uint64)
    t_tail, rem_task, rem_send = 3000.0, np.array([3, 17, 40]), np.array([1500.0, 2800.0, 2950.0])
    columns = [np.array(c) for c in zip(*strategies, strict=True)]
    batch = simulate_observed(BoT(**a), Strategies(N=columns[0], T=columns[1], D=columns[2], n_rel=columns[3],
                                                   combine=columns[4], combined_throughput=np.zeros(4, bool),
                                                   budget=columns[5]),
                              keys, t_tail=t_tail, cost_paid=10.0, rem_task=rem_task,
                              rem_send=rem_send, running_deadline=a["d0"])
    end, success = running_outcomes(a["fs_table"], a["gamma_breaks"], a["gamma_values"], t_tail, a["d0"],
                                    rem_task, rem_send, keys)
    assert not np.isnan(batch).any()
    for s, strategy in enumerate(strategies):
        for r, key in enumerate(keys):
            state = (t_tail, 10.0, rem_task, rem_send, end[r], success[r], np.zeros(3, bool),
                     np.empty((2, 0), np.int64), 3)
            row = np.empty(len(OUTPUT_COLUMNS))
            tail_phase(model, strategy, key, state, MAX_INSTANCES, row)
            assert row.tobytes() == batch[s, r].tobytes(), (s, r, row, batch[s, r])
