"""Generated input for the cloud entry points: Policy, simulate, clean, synthetic, load_trace.

Bad input must end in one InputError naming what is wrong; good input must give a run with the
model's invariants (starts on ticks, no start before its submit tick, R_V a whole number of
VM-hours covering R_J, BSD >= 1).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from mopt.cloud import (
    JOB_SELECTION,
    PROVISIONING,
    VM_KEYS,
    VM_SELECTION,
    Policy,
    simulate,
)
from mopt.core.errors import InputError
from mopt.workloads import clean, load_trace, synthetic
from tests.helpers import count_bad_input, fuzz

policies = st.builds(lambda p, j, v: f"{p}-{j}-{v}", st.sampled_from(PROVISIONING),
                     st.sampled_from(JOB_SELECTION), st.sampled_from(VM_SELECTION))


@st.composite
def traces(draw):
    n = draw(st.integers(1, 12))
    submit = np.sort(draw(st.lists(st.integers(0, 20_000), min_size=n, max_size=n)))
    run = draw(st.lists(st.integers(1, 9000), min_size=n, max_size=n))
    procs = draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
    req = draw(st.lists(st.integers(-1, 9000), min_size=n, max_size=n))
    user = draw(st.lists(st.integers(-1, 2), min_size=n, max_size=n))
    return pd.DataFrame({"submit_time": submit, "run_time": run, "n_procs": procs,
                         "req_time": req, "user_id": user})


@fuzz(60)
@given(jobs=traces(), policy=policies, runtime=st.sampled_from(["actual", "user", "predicted"]),
       boot=st.sampled_from([0, 60, 120, 240]), cap=st.integers(6, 20), vm_key=st.sampled_from(VM_KEYS))
def test_fuzz_valid_runs_keep_the_invariants(jobs, policy, runtime, boot, cap, vm_key):
    run = simulate(jobs, policy, runtime=runtime, boot_delay=boot, max_vms=cap, vm_key=vm_key)
    out, s = run.jobs, run.summary
    first_tick = np.ceil(out["submit"] / 20) * 20
    assert (out["start"] % 20 == 0).all() and (out["start"] >= first_tick).all()
    assert (out["bsd"] >= 1).all() and s["R_V"] % 3600 == 0 and s["R_V"] >= s["R_J"]
    assert s["R_J"] == (out["run"] * out["n_procs"]).sum()
    # no VM exists before the first arrival: nothing starts before the first tick + boot delay
    assert out["start"].min() >= first_tick.min() + boot


@fuzz(80)
@given(name=st.one_of(st.text(max_size=25), st.integers(), st.none()))
def test_fuzz_policy_names(name):
    try:
        p = Policy(name)
    except InputError as exc:
        count_bad_input("cloud Policy")
        assert "policy" in str(exc)
        return
    assert Policy.parse(p.name) == p


@fuzz(60)
@given(column=st.sampled_from(["submit_time", "run_time", "n_procs"]),
       value=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 0)),
       key=st.sampled_from(["boot_delay", "max_vms", "alpha", "beta", "kappa", "step", "vm_key", None]),
       bad=st.one_of(st.floats(max_value=-1e-9), st.just(math.nan), st.just(-1)))
def test_fuzz_bad_jobs_and_options(column, value, key, bad):
    jobs = pd.DataFrame({"submit_time": [0, 10], "run_time": [5, 7], "n_procs": [1, 2]})
    jobs[column] = jobs[column].astype(float)
    jobs.loc[1, column] = value
    good_value = value <= 1e12 and (column == "submit_time" and value >= 0 or (
        column != "submit_time" and value > 0 and math.isfinite(value) and
        (column != "n_procs" or value <= 256)))
    kwargs = {} if key is None else {key: int(bad) if key == "max_vms" and bad == -1 else bad}
    if good_value and not kwargs:
        if math.isfinite(value):
            simulate(jobs, "ODA-FCFS-FirstFit")
        return
    try:
        simulate(jobs, "ODA-FCFS-FirstFit", **kwargs)
    except InputError as exc:
        count_bad_input("cloud simulate")
        assert str(exc).count("\n") == 0 and ("'" in str(exc))
        return
    raise AssertionError(f"accepted {column}={value}, {kwargs}")


@fuzz(40)
@given(pattern=st.text(max_size=12), n=st.integers(-3, 30))
def test_fuzz_synthetic(pattern, n):
    donor = pd.DataFrame({"run_time": [10, 20, 30]})
    try:
        df = synthetic(pattern, n_jobs=n, runtimes=donor, seed=1)
    except InputError:
        count_bad_input("cloud synthetic")
        return
    assert len(df) == n and (np.diff(df["submit_time"]) >= 0).all()


@fuzz(40)
@given(max_procs=st.one_of(st.integers(-3, 10), st.floats(), st.none()),
       size_limit=st.one_of(st.integers(-3, 10), st.none()), name=st.text(max_size=10))
def test_fuzz_clean_and_load_trace(max_procs, size_limit, name):
    df = pd.DataFrame({"run_time": [10, 0, 5], "n_procs": [2, 1, -1], "req_procs": [2, 1, 4]})
    try:
        out = clean(df, max_procs=max_procs, size_limit=size_limit)
        assert (out["run_time"] > 0).all() and (out["n_procs"] > 0).all()
    except (InputError, TypeError):
        count_bad_input("cloud clean")
    try:
        load_trace(name, fetch_missing=False)
    except InputError as exc:
        count_bad_input("cloud load_trace")
        assert "trace" in str(exc)
