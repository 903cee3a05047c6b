"""KOALA-C leases and bills VMs with the cloud simulator's helpers (mopt/cloud/leasing.py,
mopt/cloud/billing.py): one implementation, checked by identity and on a hand-computed run."""

from __future__ import annotations

import pandas as pd
import pytest

from mopt.cloud import billing, leasing
from mopt.koala import FF, Environment, cluster, public_cloud, simulate


def test_one_implementation_of_leases_and_billing():
    from mopt.cloud import steps
    from mopt.koala import engine, sites

    for name in ("lease_vm", "first_idle", "is_idle"):
        assert getattr(sites, name) is getattr(leasing, name), name
    assert sites.lease_vm is steps.lease_vm and sites.first_idle is steps.first_idle
    assert sites.release_due is billing.release_due is steps.release_due
    assert sites.billed_hours is billing.billed_hours is steps.billed_hours
    assert not hasattr(engine, "_take_vms") and not hasattr(sites, "_take_vms")


def test_on_demand_leases_by_hand():
    # a public cloud of 4 VMs (boot 120 s, $0.10 per started hour) and a small cluster, 30 s ticks.
    # Job 0 (2 VMs, 600 s, submitted at 0, too wide for the 1-node cluster) leases rows 0-1 at 0
    # and starts when they are up, at 120; it ends at 720. Job 1 (3 VMs, 100 s, submitted at 700)
    # is seen at the 720 tick, after job 0's end: it takes the 2 idle VMs (lowest rows first) and
    # leases 1 more (row 2) at 720, up at 840, so it runs 840-940. The run ends at the 960 tick
    # with 3 VMs leased: each charged 1 started hour ($0.30), leased 940 + 940 + 220 VM-seconds.
    env = Environment((cluster("C1", 1), public_cloud(maximum=4, price=0.1, boot=120.0)))
    jobs = pd.DataFrame({"submit": [0.0, 700.0], "size": [2, 3], "runtime": [600.0, 100.0]})
    run = simulate(jobs, FF(), env)
    assert run.jobs[["site", "start", "end", "wait"]].to_numpy().tolist() == [
        ["public", 120.0, 720.0, 120.0], ["public", 840.0, 940.0, 140.0]]
    assert run.summary["public_cost"] == pytest.approx(0.3)
    makespan = 940.0
    assert run.summary["utilisation"] == pytest.approx((2 * 600 + 3 * 100) / (1 * makespan + 2100))
