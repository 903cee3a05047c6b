"""The compiled engine against the independent plain-Python model (tests/reference/cloud_model.py).

Every one of the 9 × 5 × 3 = 135 policy combinations runs on small random traces (parallel jobs,
a tight cap so that queues form, users with histories, missing user estimates), with each of the
three runtime variants; the start time of every job and the charged VM-seconds must be equal.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from mopt.cloud import JOB_SELECTION, PROVISIONING, VM_SELECTION, simulate
from tests.helpers import needs_traces
from tests.reference import cloud_model as model

POLICIES = ["-".join(p) for p in itertools.product(PROVISIONING, JOB_SELECTION, VM_SELECTION)]


def random_trace(seed: int, n: int = 14, span: int = 4000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    run = rng.integers(1, 5000, n)
    req = np.where(rng.random(n) < 0.2, -1, run + rng.integers(-200, 3000, n).clip(-run + 1))
    return pd.DataFrame({
        "job_id": np.arange(1, n + 1),
        "submit_time": np.sort(rng.integers(0, span, n)),
        "run_time": run, "n_procs": rng.integers(1, 6, n), "req_time": req,
        "user_id": rng.integers(0, 3, n),
    })


def _model_jobs(df):
    return [{"submit": float(r.submit_time), "run": float(r.run_time), "req": float(r.req_time),
             "n": int(r.n_procs), "user": int(r.user_id)} for r in df.itertuples()]


def _check(df, policy, runtime, **kw):
    engine = simulate(df, policy, runtime=runtime, **kw)
    starts, paid = model.run_model(_model_jobs(df), policy, runtime=runtime,
                                   boot_delay=float(kw.get("boot_delay", 120)),
                                   max_vms=kw.get("max_vms", 256))
    np.testing.assert_array_equal(engine.jobs["start"].to_numpy(), np.array(starts, float),
                                  err_msg=f"{policy} {runtime}")
    assert engine.summary["R_V"] == paid, (policy, runtime)


@pytest.mark.parametrize("provisioning", PROVISIONING)
def test_engine_matches_model_every_policy(provisioning):
    # per provisioning policy: its 15 job × VM selections on two traces with actual runtimes and
    # one with each estimated variant; the cap (8 VMs) forces queues and head-of-line blocking
    for k, policy in enumerate(p for p in POLICIES if p.startswith(provisioning + "-")):
        for seed in (k, 100 + k):
            _check(random_trace(seed), policy, "actual", max_vms=8)
        _check(random_trace(200 + k), policy, "user", max_vms=8)
        _check(random_trace(300 + k), policy, "predicted", max_vms=8, boot_delay=60)


def test_engine_matches_model_large_cap_and_long_trace():
    # a longer trace with idle gaps of hours and the SC13 cap: ticks are skipped by the engine
    # (over gaps, while VMs boot, while every VM is busy), never by the model
    df = random_trace(7, n=40, span=40_000)
    for policy in ("ODA-UNICEF-BestFit", "ODB-WFP3-WorstFit", "ODX-LXF-FirstFit",
                   "ODW-SJF-BestFit", "ODG-FCFS-FirstFit", "StartUp-UNICEF-WorstFit"):
        _check(df, policy, "predicted")


@needs_traces("KTH-SP2")
def test_engine_matches_model_on_real_trace_slice():
    # the first 150 jobs of KTH-SP2 (real sizes, runtimes, estimates and users; <= 64 processors)
    from mopt.workloads import load_trace

    df = load_trace("KTH-SP2", size_limit=64).head(150)
    for policy, runtime in (("ODA-UNICEF-FirstFit", "actual"), ("ODE-LXF-BestFit", "predicted"),
                            ("ODB-WFP3-WorstFit", "user")):
        _check(df, policy, runtime, max_vms=64)
