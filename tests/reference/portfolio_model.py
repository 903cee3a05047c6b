"""An independent plain-Python model of the portfolio scheduler (spec §2-6), tick by tick.

It shares no simulation code with :mod:`mopt.cloud.engine` or :mod:`mopt.cloud.portfolio_scheduler`:
jobs and VMs are dictionaries, every tick is visited (no skipping), the queue is re-sorted with
``sorted``, and an online simulation deep-copies the state and replays it tick by tick. Only SC13's
Algorithm 1 (:class:`mopt.cloud.TimeConstrainedSelection`, tested on its own) is shared, so that both
draw the same Poor policies. Scope: SC13's provisioning policies (ODA, ODB, ODE, ODM, ODX), every job
and VM selection, actual or user-estimated runtimes. ``tests/cloud/test_portfolio_model.py``
compares it with :func:`mopt.cloud.simulate_portfolio` job by job and selection by selection.
"""

from __future__ import annotations

import copy
import math

from tests.reference.cloud_model import requests_as_known

HOUR = 3600.0


def _priority(rule, q, t, n):
    t = max(t, 1.0)
    x = q / t
    return {"FCFS": q, "SJF": -t, "LXF": (q + t) / t, "WFP3": x * x * x * n,
            "UNICEF": q / (math.log2(max(n, 2.0)) * t)}[rule]


def _hours(vm, t):
    return max(1, math.ceil((t - vm["lease"]) / HOUR))


def _decide(s, policy, record):
    """One tick's decisions at s["t"]: provisioning, head-of-line allocation, release."""
    prov, jobsel, vmsel = policy.split("-")
    t, step = s["t"], s["step"]
    order = sorted(s["queue"], key=lambda j: -_priority(jobsel, t - j["submit"], j["est"], j["n"]))
    idle = [v for v in s["vms"] if v["ready"] <= t and v["job"] is None]
    booting = [v for v in s["vms"] if v["ready"] > t]
    q = s["queue"]
    if prov == "ODM":
        target = max((j["n"] for j in q), default=0)
    elif prov == "ODE":
        target = max(math.ceil(sum(j["n"] * j["est"] for j in q) / HOUR), order[0]["n"]) if q else 0
    elif prov == "ODX":
        target = sum(j["n"] for j in q if (t - j["submit"] + max(j["est"], 10)) / max(j["est"], 10) > 2)
    else:  # ODA, ODB
        target = sum(j["n"] for j in q)
    supply = len(s["vms"]) if prov == "ODB" else len(idle) + len(booting)
    new = min(max(target - supply, 0), s["cap"] - len(s["vms"]))
    s["vms"] += [{"lease": t, "ready": t + s["boot"], "job": None} for _ in range(int(new))]
    idle = [v for v in s["vms"] if v["ready"] <= t and v["job"] is None]
    for job in order:
        if job["n"] > len(idle):
            break
        if vmsel != "FirstFit":
            sign = 1.0 if vmsel == "BestFit" else -1.0
            idle = sorted(idle, key=lambda v, j=job: sign * (
                (v["lease"] + _hours(v, t) * HOUR - t - j["est"]) % HOUR))
        chosen, idle = idle[: job["n"]], idle[job["n"]:]
        idle.sort(key=lambda v: s["vms"].index(v))
        for v in chosen:
            v["job"] = job["id"]
        job["start"], job["end"] = t, t + job["run"]
        s["busy"] += job["n"] * job["run"]
        s["bsd"].append(max(1.0, (t - job["submit"] + job["run"]) / max(job["run"], 10.0)))
        record[job["id"]] = t
        s["running"].append(job)
        s["queue"].remove(job)
    for v in list(s["vms"]):
        if v["ready"] <= t and v["job"] is None and v["lease"] + _hours(v, t) * HOUR < t + step:
            s["paid"] += _hours(v, t) * HOUR
            s["vms"].remove(v)


def _next_tick(s):
    """Advance to the next tick: arrivals and completions."""
    s["t"] += s["step"]
    t = s["t"]
    while s["pending"] and s["pending"][0]["submit"] <= t:
        s["queue"].append(s["pending"].pop(0))
    for job in [j for j in s["running"] if j["end"] <= t]:
        s["running"].remove(job)
        for v in s["vms"]:
            if v["job"] == job["id"]:
                v["job"] = None


def _done(s):
    return not s["pending"] and not s["queue"] and not s["running"]


def _finish(s):
    s["paid"] += sum(_hours(v, s["t"]) * HOUR for v in s["vms"])
    s["vms"] = []


def online_utility(s, policy, kappa=100.0, alpha=1.0, beta=1.0):
    """U of ``policy`` simulated from a copy of ``s`` until the queued jobs finish (spec §6)."""
    c = copy.deepcopy(s)
    t = c["t"]
    c["pending"], c["bsd"] = [], []
    for job in c["queue"]:
        job["run"] = job["est"]
    c["busy"] = 0.0
    for job in c["running"]:
        end = job["start"] + job["est"]
        if end <= t:
            end = job["start"] + job["req"] if job["req"] > 0 else end
            if end <= t:
                end = t + c["step"]
        job["end"] = end
        c["busy"] += job["n"] * (end - t)
    c["paid"] = -sum(t - v["lease"] for v in c["vms"])
    while True:
        _decide(c, policy, {})
        if _done(c):
            break
        _next_tick(c)
    _finish(c)
    bsd = sum(c["bsd"]) / len(c["bsd"]) if c["bsd"] else 1.0
    if c["paid"] <= 0:
        return 0.0
    return kappa * (c["busy"] / c["paid"]) ** alpha * (1.0 / bsd) ** beta


def run_portfolio_model(jobs, policies, selection, *, period=1, boot_delay=120.0, step=20.0,
                        max_vms=256, runtime="actual", kappa=100.0, alpha=1.0, beta=1.0):
    """Replay ``jobs`` (dicts: submit, run, req, n; sorted by submit) under the portfolio scheduler.

    ``selection`` is a fresh :class:`mopt.cloud.TimeConstrainedSelection` over ``policies``
    (names). Returns ``(starts, paid, log)``: start times in input order, charged VM-seconds, and
    ``(time, chosen policy index)`` per selection.
    """
    pending = []
    for i, j in enumerate(requests_as_known(jobs, runtime)):
        est = j["run"] if runtime == "actual" else (j["req"] if j["req"] > 0 else j["run"])
        pending.append(dict(j, id=i, est=est))
    t0 = math.ceil(pending[0]["submit"] / step) * step
    s = {"t": t0 - step, "step": step, "boot": boot_delay, "cap": max_vms, "pending": pending,
         "queue": [], "running": [], "vms": [], "paid": 0.0, "busy": 0.0, "bsd": []}
    _next_tick(s)
    starts, log, active = [None] * len(jobs), [], 0
    while True:
        if len(policies) > 1 and s["queue"] and s["t"] % (period * step) == 0:
            planned = selection.plan()
            scores = {p: online_utility(s, policies[p], kappa, alpha, beta) for p in planned}
            active = selection.update(scores)
            log.append((s["t"], active))
        _decide(s, policies[active], starts)
        if _done(s):
            _finish(s)
            return starts, s["paid"], log
        _next_tick(s)
