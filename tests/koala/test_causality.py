"""Causality of the KOALA-C simulator (STYLE 17): no policy but SJF-ideal knows the future.

A non-clairvoyant policy may know, at tick t, the submit time, size, requested time and user of the
jobs submitted by t, and the actual runtimes of the jobs finished by t (its runtime predictions come
from finished jobs only).  So: run a policy, pick a time T, change everything it could not know
before T — the runtimes of the jobs not finished by T (a job running at T still runs past T, a job
killed by TAGS before T still runs past the limit it was killed at) and the jobs submitted after T
(some removed, some moved, some added, their sizes, users and requests redrawn) — run again, and
every job start before T is the same: the same jobs, on the same sites, at the same times, after the
same number of kills.  SJF-ideal orders by actual runtimes, so it is clairvoyant by name: the last
test shows a case where a future runtime changes what it does before T.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mopt.koala import simulate
from mopt.koala.environment import Environment, cluster, multicloud, multicluster
from mopt.koala.policies import FF, HSDF, RR, SJF, SJFIdeal, TagsChain, TagsSets
from mopt.koala.simulation import job_table
from tests.helpers import needs_traces, paper_trace
from tests.koala.test_engine import random_case

#: every policy that does not know actual runtimes (SJF-ideal does, by name)
NON_CLAIRVOYANT = [
    ("FF", lambda env: FF()),
    ("FF-blocking", lambda env: FF(blocking=True)),
    ("RR", lambda env: RR()),
    ("SJF", lambda env: SJF()),
    ("HSDF", lambda env: HSDF()),
    ("TAGS-sets", lambda env: TagsSets([env.names, env.names[1:]], [300, math.inf])),
    ("TAGS-sets-3", lambda env: TagsSets([env.names, env.names[1:], env.names[-1:]], [300, 1800, math.inf])),
]
#: TAGS-chain over two chains of two sites: RR and RND dispatch, strict FCFS and passing
CHAINS = [
    ("TAGS-chain-RR", TagsChain([300, math.inf], n_chains=2, dispatch="RR")),
    ("TAGS-chain-RND", TagsChain([300, math.inf], n_chains=2, dispatch="RND")),
    ("TAGS-chain-RND-passing", TagsChain([300, math.inf], n_chains=2, dispatch="RND", blocking=False)),
]
#: the times T, as fractions of the trace's span of submissions
FRACTIONS = (0.2, 0.45, 0.7, 0.95)


def starts_before(run, n_known: int, T: float) -> pd.DataFrame:
    """What the scheduler did before T, from a run's job rows: the final runs started before T (job,
    site, start, kills before it; the end too if it was before T)."""
    jobs = run.jobs.iloc[:n_known]
    started = jobs[jobs["start"] < T]
    out = started[["site", "start", "restarts", "wasted"]].copy()
    out["end"] = started["end"].where(started["end"] < T, np.inf)
    return out


def future_changed(table: pd.DataFrame, run, T: float, rng: np.random.Generator, max_size: int,
                   limits=(math.inf,)) -> pd.DataFrame:
    """``table`` (a :func:`job_table`) with everything a non-clairvoyant scheduler cannot know before T
    redrawn (the module's text); ``limits``: the policy's runtime limits along its queues (TAGS)."""
    known = table[table["submit"] <= T].copy()
    jobs = run.jobs.iloc[: len(known)]
    start, restarts = jobs["start"].to_numpy(), jobs["restarts"].to_numpy()
    limit = np.append(np.asarray(limits, dtype=float), math.inf)
    # what is known at T of a job not finished by T: its run at T has lasted T - start; a job
    # killed k times passed the limit of its k-th queue; a run started before T that completes
    # in its queue stays within that queue's limit (else it would be killed after T, a change of
    # what we compare, not of what was decided before T)
    running = start < T
    passed = np.where(restarts > 0, limit[np.maximum(restarts - 1, 0)], 0.0)
    lower = np.maximum(passed, np.where(running, T - start, 0.0))
    upper = np.where(running, limit[restarts], math.inf)
    runtime = known["runtime"].to_numpy()
    top = np.minimum(upper, np.maximum(4.0 * runtime, lower + 60.0))
    redrawn = lower + (top - lower) * rng.uniform(1e-3, 1.0, size=len(known))
    known["runtime"] = np.where((jobs["end"] > T).to_numpy(), redrawn, runtime)
    later = table[table["submit"] > T]
    keep = later[rng.random(len(later)) < 0.7].copy()  # about 30 % removed
    span = max(float(table["submit"].max()) - T, 60.0)
    moved = rng.random(len(keep)) < 0.3
    keep.loc[moved, "submit"] = T + rng.uniform(1e-3, span, size=int(moved.sum()))
    n_new = int(rng.integers(2, 12))
    added = pd.DataFrame({
        "submit": T + np.where(np.arange(n_new) < 2, rng.uniform(1e-3, 40.0, size=n_new),  # two within a tick
                               rng.uniform(1e-3, span, size=n_new)),
        "size": rng.integers(1, max_size + 1, size=n_new),
        "runtime": rng.uniform(1.0, 7200.0, size=n_new),
        "user": rng.integers(0, 6, size=n_new),
        "req_time": np.where(rng.random(n_new) < 0.5, -1.0, rng.uniform(1.0, 9000.0, size=n_new)),
    })  # fmt: skip
    later = pd.concat([keep, added], ignore_index=True)
    later["runtime"] = np.where(rng.random(len(later)) < 0.5, later["runtime"] * rng.uniform(0.1, 3.0, size=len(later)),
                                later["runtime"])
    later["size"] = np.minimum(later["size"], max_size)
    return pd.concat([known, later], ignore_index=True)


def assert_causal(jobs, policy, env, *, seed: int, max_size: int, fractions=FRACTIONS) -> int:
    """For each T, the changed futures leave every start before T as it was; returns how many
    starts before some T were compared (so a caller can check the test had something to compare)."""
    table = job_table(jobs)
    run = simulate(table, policy, env, seed=seed)
    t0, t1 = float(table["submit"].min()), float(table["submit"].max())
    rng = np.random.default_rng([seed, 0xCA05])
    compared = 0
    for f in fractions:
        T = t0 + f * (t1 - t0) + 13.7  # off the 30-s tick grid and off every submit
        n_known = int((table["submit"] <= T).sum())
        before = starts_before(run, n_known, T)
        for _ in range(2):
            changed = future_changed(table, run, T, rng, max_size, getattr(policy, "limits", (math.inf,)))
            again = simulate(changed, policy, env, seed=seed)
            pd.testing.assert_frame_equal(starts_before(again, n_known, T), before, check_exact=True,
                                          obj=f"{policy.name} starts before T={T:g}")
            assert (again.jobs["start"].iloc[n_known:] > T).all(), "a job submitted after T started before it"
        compared += len(before)
    return compared


def _compressed(trace: pd.DataFrame, n: int, factor: float) -> pd.DataFrame:
    """The first ``n`` jobs of a paper trace, arrivals ``factor`` times denser (so that jobs queue)."""
    jobs = trace.iloc[:n].copy()
    jobs["submit_time"] = (jobs["submit_time"] - jobs["submit_time"].min()) * factor
    return jobs


@pytest.mark.parametrize("name,make", NON_CLAIRVOYANT, ids=[p[0] for p in NON_CLAIRVOYANT])
def test_no_policy_but_sjf_ideal_sees_the_future_random_cases(name, make):
    compared = 0
    for seed in range(4):
        jobs, env = random_case(seed)
        compared += assert_causal(jobs, make(env), env, seed=seed, max_size=12)
    assert compared > 50


@pytest.mark.parametrize("name,policy", CHAINS, ids=[p[0] for p in CHAINS])
def test_tags_chain_sees_no_future_runtime_or_arrival(name, policy):
    compared = 0
    for seed in range(4):
        jobs, _ = random_case(seed)
        compared += assert_causal(jobs, policy, multicluster(2, nodes=12), seed=seed, max_size=12)
    assert compared > 50


@needs_traces("KTH-SP2", "CTC-SP2")
@pytest.mark.parametrize("trace", ["KTH-SP2", "CTC-SP2"])
@pytest.mark.parametrize("name,make", NON_CLAIRVOYANT + [(n, lambda env, p=p: p) for n, p in CHAINS[:2]],
                         ids=[p[0] for p in NON_CLAIRVOYANT] + [n for n, _ in CHAINS[:2]])
def test_no_policy_but_sjf_ideal_sees_the_future_paper_traces(trace, name, make):
    # 400 jobs, arrivals 4x denser: queues build up on the five sites (and on two chains)
    jobs = _compressed(paper_trace(trace), 400, 0.25)
    env = multicluster(2) if name.startswith("TAGS-chain") else multicloud()
    assert assert_causal(jobs, make(env), env, seed=7, max_size=32) > 50


def test_sjf_ideal_is_clairvoyant_by_name():
    """Two jobs wait behind a full cluster; at 600 s SJF-ideal starts the one that will run shorter.
    Change the runtime of the other, still waiting at T = 700 s (nobody could know it before T), and
    what SJF-ideal did at 600 s changes.  SJF, which only predicts, starts the same job either way."""
    env = Environment((cluster("A", 4),))
    jobs = pd.DataFrame({"submit": [0.0, 10.0, 20.0], "size": [4, 4, 4], "runtime": [600.0, 500.0, 300.0],
                         "user": [0, 1, 2]})
    T = 700.0
    other = jobs.assign(runtime=[600.0, 200.0, 300.0])  # job 1 is still waiting at T in the first run
    a, b = (simulate(j, SJFIdeal(), env).jobs for j in (jobs, other))
    assert a["start"].tolist() == [0.0, 900.0, 600.0]  # job 2 (300 s) first
    assert b["start"].tolist() == [0.0, 600.0, 810.0]  # job 1 (200 s) first: the start at 600 s changed
    assert not starts_before(simulate(jobs, SJFIdeal(), env), 3, T).equals(
        starts_before(simulate(other, SJFIdeal(), env), 3, T))
    sa, sb = (simulate(j, SJF(), env).jobs for j in (jobs, other))
    assert sa["start"][1] == sb["start"][1] == 600.0  # SJF: a tie of predictions, FCFS
    pd.testing.assert_frame_equal(starts_before(simulate(jobs, SJF(), env), 3, T),
                                  starts_before(simulate(other, SJF(), env), 3, T))
