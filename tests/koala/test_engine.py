"""The compiled KOALA-C engine against the independent plain-Python model, job by job."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mopt.koala import (
    FF,
    HSDF,
    RR,
    SJF,
    Environment,
    SJFIdeal,
    TagsChain,
    TagsSets,
    cluster,
    private_cloud,
    public_cloud,
    simulate,
)  # fmt: skip
from tests.reference.koala_model import model

ORDER = {0: "fcfs", 1: "predicted", 2: "runtime", 3: "slowdown"}


def random_case(seed: int):
    """A small random trace (bursty arrivals, sizes 1-12, runtimes 1 s - 2 h, 4 users, some requested
    times) on a small environment that has to lease VMs often."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(15, 45))
    gaps = rng.choice([0.0, 7.0, 30.0, 200.0, 1500.0], size=n, p=[0.3, 0.2, 0.2, 0.2, 0.1])
    jobs = pd.DataFrame({
        "submit": np.cumsum(gaps) + 3.0,
        "size": rng.integers(1, 13, size=n),
        "runtime": np.where(rng.random(n) < 0.5, rng.integers(1, 400, size=n), rng.integers(400, 7200, size=n)),
        "user": rng.integers(0, 4, size=n),
        "req_time": np.where(rng.random(n) < 0.5, -1, rng.integers(1, 8000, size=n)),
    })  # fmt: skip
    env = Environment((
        cluster("A", 12), cluster("B", 12),
        private_cloud(minimum=int(rng.integers(0, 4)), maximum=12, boot=float(rng.choice([0, 60, 120]))),
        public_cloud(maximum=16, price=0.065, boot=120.0),
    ))  # fmt: skip
    return jobs, env


POLICIES = [
    ("FF", lambda env: FF()),
    ("RR", lambda env: RR()),
    ("SJF", lambda env: SJF()),
    ("SJF-ideal", lambda env: SJFIdeal()),
    ("HSDF", lambda env: HSDF()),
    ("FF-blocking", lambda env: FF(blocking=True)),
    ("TAGS-chain-RR", lambda env: TagsChain([300, math.inf], n_chains=2, dispatch="RR")),  # strict FCFS
    ("TAGS-chain-RR-passing", lambda env: TagsChain([300, math.inf], n_chains=2, dispatch="RR", blocking=False)),
    ("TAGS-chain-RND", lambda env: TagsChain([300, math.inf], n_chains=2, dispatch="RND")),
    ("TAGS-sets", lambda env: TagsSets([env.names, ["B", "private", "public"], ["public"]], [300, 1800, math.inf])),
]


def run_model(jobs: pd.DataFrame, policy, env: Environment, seed: int):
    queues = policy.queues(env)
    entry = policy.entry(len(jobs), np.random.default_rng(seed)).tolist()
    sites = [{"kind": s.kind, "size": s.size, "minimum": s.minimum, "price": s.price, "boot": s.boot,
              "idle_release": s.idle_release} for s in env.sites]
    qs = [{"sites": list(queues.sites[q]), "limit": float(queues.limit[q]), "next": int(queues.next[q]),
           "order": ORDER[int(queues.order[q])], "select": "rr" if queues.select[q] else "ff"}
          for q in range(len(queues.sites))]
    rows = jobs.to_dict("records")
    return model(rows, qs, sites, entry=entry, blocking=queues.blocking)


@pytest.mark.parametrize("name,make", POLICIES, ids=[p[0] for p in POLICIES])
def test_engine_matches_plain_python_model(name, make):
    for seed in range(6):
        jobs, env = random_case(seed)
        policy = make(env)
        run = simulate(jobs, policy, env, seed=seed)
        result, cost, vm_seconds = run_model(jobs, policy, env, seed)
        got = run.jobs
        assert got["site"].tolist() == [env.names[r["site"]] for r in result], (name, seed)
        np.testing.assert_allclose(got["start"], [r["start"] for r in result], err_msg=f"{name} {seed}")
        np.testing.assert_allclose(got["end"], [r["end"] for r in result], err_msg=f"{name} {seed}")
        assert got["restarts"].tolist() == [r["restarts"] for r in result]
        np.testing.assert_allclose(got["wasted"], [r["wasted"] for r in result])
        assert run.summary["public_cost"] == pytest.approx(cost, abs=1e-9), (name, seed)
        useful = float((jobs["size"] * jobs["runtime"]).sum())
        available = 24 * run.summary["makespan"] + vm_seconds
        assert run.summary["utilisation"] == pytest.approx(useful / available), (name, seed)


def test_random_cases_exercise_every_mechanism():
    """The comparison above is only worth something if the cases kill jobs, lease public VMs and
    leave jobs waiting; check that they do (summed over the seeds used)."""
    kills = cost = waits = 0
    for seed in range(6):
        jobs, env = random_case(seed)
        tags = simulate(jobs, TagsSets([env.names, ["B", "private", "public"], ["public"]], [300, 1800, math.inf]),
                        env)
        kills += tags.jobs["restarts"].sum()
        ff = simulate(jobs, FF(), env)
        cost += ff.summary["public_cost"]
        waits += (ff.jobs["wait"] > 30).sum()
    assert kills > 10 and cost > 0 and waits > 10


class TickPacer:
    """A CallPacer that gives every call of the engine a budget of ``budget`` units (1: one tick)
    and counts the calls."""

    calls = 0

    def __init__(self, first, budget=1):
        self.budget = budget

    def size(self):
        TickPacer.calls += 1
        return self.budget

    def record(self, units, seconds):
        pass


@pytest.mark.parametrize("name,make", POLICIES, ids=[p[0] for p in POLICIES])
def test_a_run_paused_at_every_tick_gives_the_uninterrupted_result(monkeypatch, name, make):
    """run_engine returns to Python between calls of the compiled loop (so that a signal is handled
    within about CALL_SECONDS); stopping after every tick and going on changes nothing, bit for bit."""
    from mopt.koala import engine

    for seed in range(3):
        jobs, env = random_case(seed)
        policy = make(env)
        monkeypatch.setattr(engine, "CallPacer", lambda first: TickPacer(first, budget=2**62))
        whole = simulate(jobs, policy, env, seed=seed)
        TickPacer.calls = 0
        monkeypatch.setattr(engine, "CallPacer", TickPacer)
        paused = simulate(jobs, policy, env, seed=seed)
        assert TickPacer.calls > len(jobs) // 2, (name, seed)  # one call per tick
        pd.testing.assert_frame_equal(paused.jobs, whole.jobs, check_exact=True)
        assert paused.summary == whole.summary
