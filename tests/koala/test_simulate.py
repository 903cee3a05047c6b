"""Hand-checked KOALA-C runs: TAGS-chain kills and restarts, TAGS-sets scan order, cloud leasing and billing."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mopt.core.errors import InputError
from mopt.koala import (
    FF,
    Environment,
    SJFIdeal,
    TagsChain,
    TagsSets,
    cluster,
    multicloud,
    multicluster,
    private_cloud,
    public_cloud,
    simulate,
)  # fmt: skip


def frame(*rows):
    return pd.DataFrame(rows, columns=["submit", "size", "runtime"])


def test_policy_defaults_for_a_job_that_fits_nowhere():
    """TAGS-chain's sites are strict FCFS by default (the paper's "served in FCFS fashion"); the
    global-queue policies and TAGS-sets let later jobs pass (ours)."""
    env = multicloud()
    assert TagsChain([600, math.inf]).blocking is True
    assert FF().blocking is False and SJFIdeal().blocking is False
    assert TagsSets([env.names, ["C3", "private", "public"]], [600, math.inf]).blocking is False
    assert TagsChain([600, math.inf], blocking=False).queues(multicluster(1)).blocking is False


@pytest.mark.parametrize("blocking, start, slowdown", [
    (True, [0, 300, 600, 600], [1, 2, 3, 11]),
    (False, [0, 300, 600, 0], [1, 2, 3, 1]),
])
def test_tags_chain_strict_fcfs_by_hand(blocking, start, slowdown):
    """One chain C1 (32 nodes, limit 600 s) -> C2; four jobs submitted at 0: three of 20 nodes and
    300 s, then one of 4 nodes and 60 s; ticks every 30 s.

    Strict FCFS (the default): t=0 j0 starts on C1 (12 nodes left), j1 does not fit and blocks j2
    and j3. t=300 j0 ends; j1 starts (12 left); j2 does not fit and blocks j3. t=600 j1 ends; j2 and
    j3 start. j3's slowdown (600 + 60) / 60 = 11.
    Passing (``blocking=False``): j3 takes 4 of C1's 12 free nodes at t=0 (slowdown 1); the others
    as before (j2 still needs 20 nodes, free only at 600)."""
    jobs = frame((0, 20, 300), (0, 20, 300), (0, 20, 300), (0, 4, 60))
    run = simulate(jobs, TagsChain([600, math.inf], blocking=blocking), multicluster(1))
    assert run.jobs["site"].tolist() == ["C1"] * 4
    assert run.jobs["start"].tolist() == start
    np.testing.assert_allclose(run.jobs["slowdown"], slowdown)
    assert run.summary["slowdown"] == pytest.approx(np.mean(slowdown))


def test_tags_chain_by_hand():
    """Chain C1 (limit 600 s) -> C2 (unlimited), 4 nodes each, ticks every 30 s.

    t=0    j0 (4 nodes, 1000 s) starts on C1.
    t=30   j1 (4 nodes, 600 s = the limit) and j2 (2 nodes, 50 s) wait: C1 is full.
    t=600  j0 is killed at exactly its limit (wasted 4 x 600) and joins C2's queue; C1 is free.
           Queue C1 first: j1 starts on C1 (runs 600 s, exactly the limit: it completes at 1200);
           j2 does not fit. Queue C2: j0 restarts from scratch on C2 at 600 -> ends 1600.
    t=720  j3 (1 node, 2000 s, submitted 700) waits for C1.
    t=1200 j1 completes; j2 (2 nodes) and j3 (1 node) start on C1.
           j2 ends 1250. j3 is killed at 1800 and joins C2's queue.
    t=1800 C2 is free since 1600: j3 restarts on C2 at 1800 -> ends 3800.
    Waits count the lost time: j0 600, j3 1800 - 700 = 1100; slowdown = (wait + runtime) / runtime.
    """
    jobs = frame((0, 4, 1000), (10, 4, 600), (20, 2, 50), (700, 1, 2000))
    env = Environment((cluster("C1", 4), cluster("C2", 4)))
    run = simulate(jobs, TagsChain([600, math.inf]), env)
    got = run.jobs
    assert got["site"].tolist() == ["C2", "C1", "C1", "C2"]
    assert got["start"].tolist() == [600, 600, 1200, 1800]
    assert got["end"].tolist() == [1600, 1200, 1250, 3800]
    assert got["wait"].tolist() == [600, 590, 1180, 1100]
    assert got["restarts"].tolist() == [1, 0, 0, 1]
    assert got["wasted"].tolist() == [2400, 0, 0, 600]
    np.testing.assert_allclose(got["slowdown"], [1.6, 1190 / 600, 1230 / 50, 3100 / 2000])
    assert got["short"].tolist() == [False, True, True, False]  # runtime <= 600 s is short
    s = run.summary
    assert s["wasted_node_seconds"] == 3000
    assert s["slowdown_long"] == pytest.approx((1.6 + 1.55) / 2)
    assert s["wait_short"] == pytest.approx((590 + 1180) / 2)
    assert s["makespan"] == 3800
    # useful node-seconds of final runs / (8 nodes x 3800 s)
    assert s["utilisation"] == pytest.approx((4000 + 2400 + 100 + 2000) / (8 * 3800))
    assert s["share_C1"] == 0.5 and s["share_C2"] == 0.5


def test_tags_sets_by_hand_scan_order():
    """Set 1 = {C1, C2} with limit 300 s, set 2 = {C2} unlimited; 4 nodes each.

    t=0   j0 (1000 s) -> C1 (first fit), j1 (200 s) -> C2.
    t=30  j2 (280 s) waits; t=120 j3 (290 s) waits behind it.
    t=210 j1 completed at 200: j2 -> C2 (ends 490); j3 waits.
    t=300 j0 is killed at 300 and joins set 2's queue; C1 is free: set 1 is scanned first, j3 -> C1
          (290 s <= 300: completes at 590); j0 in set 2 may only use C2, which is busy.
    t=450 nothing: C1 is busy until 590, and set 2 could not use it anyway.
    t=510 j2 completed at 490 and j4 (50 s, submitted 495) arrived: set 1 is scanned before set 2,
          so j4 takes C2 (ends 560) although j0 has waited in set 2 since 300.
    t=570 j4 completed: j0 restarts from scratch on C2 at 570 -> ends 1570.
    """
    jobs = frame((0, 4, 1000), (0, 4, 200), (30, 4, 280), (100, 4, 290), (495, 4, 50))
    env = Environment((cluster("C1", 4), cluster("C2", 4)))
    run = simulate(jobs, TagsSets([["C1", "C2"], ["C2"]], [300, math.inf]), env)
    got = run.jobs
    assert got["site"].tolist() == ["C2", "C2", "C2", "C1", "C2"]
    assert got["start"].tolist() == [570, 0, 210, 300, 510]
    assert got["end"].tolist() == [1570, 200, 490, 590, 560]
    assert got["restarts"].tolist() == [1, 0, 0, 0, 0]
    assert got["wait"].tolist() == [570, 0, 180, 200, 15]
    assert run.summary["wasted_node_seconds"] == 1200


def test_public_cloud_leasing_and_billing_by_hand():
    """Cluster A (4 nodes) then a public cloud (8 VMs, $0.065 per started VM-hour, 120 s boot), FF.

    j0 (4 nodes, 5000 s) fills A at 0. j1 (2, 3000 s) leases VMs 0-1 at 0, starts when up at 120,
    ends 3120. j2 (2, 60 s, at 3300) reuses the idle VMs at once: 3300-3360. At 3570 the next billed
    hour (3600) is one step away: both released, 1 hour each. j3 (2, 60 s, at 3700) leases again at
    tick 3720, starts 3840, ends 3900; still leased when j0 ends at 5000 (1 started hour each).
    Cost 4 x 0.065. Utilisation: useful 4x5000 + 2x3000 + 2x60 + 2x60 = 26,240 node-s over
    4 x 5000 cluster + 2 x 3570 + 2 x (5000 - 3720) VM seconds = 29,700.
    """
    jobs = frame((0, 4, 5000), (0, 2, 3000), (3300, 2, 60), (3700, 2, 60))
    env = Environment((cluster("A", 4), public_cloud(maximum=8)))
    run = simulate(jobs, FF(), env)
    got = run.jobs
    assert got["site"].tolist() == ["A", "public", "public", "public"]
    assert got["start"].tolist() == [0, 120, 3300, 3840]
    assert got["wait"].tolist() == [0, 120, 0, 140]
    assert run.summary["public_cost"] == pytest.approx(4 * 0.065)
    assert run.summary["utilisation"] == pytest.approx(26240 / 29700)


def test_private_cloud_minimum_and_release_by_hand():
    """A private cloud alone (minimum 2, maximum 8, 120 s boot, released after 300 s idle).

    j0 (4 VMs, 100 s) at 0 takes the 2 VMs up since 0 and leases 2 more: starts 120, ends 220.
    The 2 extra VMs are idle since 220: released at tick 540 (>= 520), leaving the minimum 2.
    j1 (3 VMs, 60 s) at 600 takes the 2 idle VMs and leases 1: starts 720, ends 780.
    VM-seconds up to 780: 2 x 540 + 2 x 780 + 180 = 2,820; useful 400 + 180.
    """
    jobs = frame((0, 4, 100), (600, 3, 60))
    env = Environment((private_cloud(minimum=2, maximum=8),))
    run = simulate(jobs, FF(), env)
    assert run.jobs["start"].tolist() == [120, 720]
    assert run.summary["public_cost"] == 0
    assert run.summary["utilisation"] == pytest.approx(580 / 2820)


def test_sjf_ideal_orders_by_runtime_and_ff_does_not():
    """One 4-node cluster, busy until 100 with j0; j1 (500 s) and j2 (10 s) wait. At tick 120 SJF-ideal
    starts j2 first (4 nodes each, so one at a time); FF starts j1."""
    jobs = frame((0, 4, 100), (5, 4, 500), (6, 4, 10))
    env = Environment((cluster("A", 4),))
    assert simulate(jobs, SJFIdeal(), env).jobs["start"].tolist() == [0, 150, 120]
    assert simulate(jobs, FF(), env).jobs["start"].tolist() == [0, 120, 630]


def test_summary_reports_load_and_classes():
    jobs = frame((0, 1, 10), (100, 1, 5000))
    run = simulate(jobs, FF(), multicloud())
    # sum size x runtime / span / capacity of all five sites (288)
    assert run.summary["offered_load"] == pytest.approx(5010 / 100 / 288)
    assert run.summary["short_limit"] == 2400  # default split without a TAGS limit: 40 min
    assert run.jobs["short"].tolist() == [True, False]


@pytest.mark.parametrize("kwargs,match", [
    ({"step": 0}, "'step'"),
    ({"step": 3600}, "'step'"),
    ({"short_limit": -1}, "'short_limit'"),
])  # fmt: skip
def test_bad_simulate_arguments(kwargs, match):
    with pytest.raises(InputError, match=match):
        simulate(frame((0, 1, 10)), FF(), multicloud(), **kwargs)


def test_bad_jobs():
    env = multicloud()
    with pytest.raises(InputError, match="runtimes must be > 0"):
        simulate(frame((0, 1, 0)), FF(), env)
    with pytest.raises(InputError, match="sizes must be integers >= 1"):
        simulate(frame((0, 1.5, 10)), FF(), env)
    with pytest.raises(InputError, match="column 'runtime'"):
        simulate(pd.DataFrame({"submit": [0], "size": [1]}), FF(), env)
    with pytest.raises(InputError, match="at least one job"):
        simulate(frame(), FF(), env)
    with pytest.raises(InputError, match="job 0 needs 40 nodes"):
        simulate(frame((0, 40, 10)), FF(), Environment((cluster("A", 32),)))
    with pytest.raises(InputError, match="TAGS-chain with 1 chain"):
        simulate(frame((0, 1, 10)), TagsChain([60, math.inf]), env)
