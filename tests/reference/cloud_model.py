"""An independent plain-Python model of the cloud simulator's rules (spec §2-5), tick by tick.

It shares no code with :mod:`mopt.cloud.engine`: no compiled loop, no tick skipping, VMs and jobs
as dictionaries, the queue re-sorted with ``sorted`` on every tick. ``tests/cloud`` compares it
with the engine job by job on small random traces for every policy combination.

Run ``python -m tests.reference.cloud_model`` (from the repository root) to time it against the engine on a small trace.
"""

from __future__ import annotations

import math

HOUR = 3600.0


def _priority(rule, q, t, n):
    t = max(t, 1.0)
    if rule == "FCFS":
        return q
    if rule == "SJF":
        return -t
    if rule == "LXF":
        return (q + t) / t
    if rule == "WFP3":
        x = q / t
        return x * x * x * n
    if rule == "UNICEF":
        return q / (math.log2(max(n, 2.0)) * t)
    raise ValueError(rule)


def requests_as_known(jobs, runtime):
    """Without actual runtimes, a job that requests no time (req <= 0) is taken to request the
    largest time requested by a job before it in submit order, or an hour if none (jobs: dicts
    with ``req``, sorted by submit; copies returned)."""
    out, largest = [], 0.0
    for job in jobs:
        job = dict(job)
        if runtime != "actual" and job["req"] <= 0:
            job["req"] = largest if largest > 0 else HOUR
        elif job["req"] > largest:
            largest = job["req"]
        out.append(job)
    return out


def _estimate(job, mode, history):
    if mode == "actual":
        return job["run"]
    fallback = job["req"] if job["req"] > 0 else job["run"]
    if mode == "user":
        return fallback
    done = history.get(job["user"], []) if job["user"] >= 0 else []
    if not done:
        return fallback
    recent = sorted(done, reverse=True)[:2]  # (index in submit order, runtime)
    guess = sum(r for _, r in recent) / len(recent)
    return min(guess, job["req"]) if job["req"] > 0 else guess


def _target(prov, queue, t, boot_delay, head):
    sizes = [j["n"] for j in queue]
    if prov == "ODM":
        return max(sizes, default=0)
    if prov == "ODE":
        work = sum(j["n"] * j["est"] for j in queue)
        return max(math.ceil(work / HOUR), head["n"]) if queue else 0
    if prov == "ODX":
        return sum(j["n"] for j in queue
                   if (t - j["submit"] + max(j["est"], 10.0)) / max(j["est"], 10.0) > 2.0)
    if prov == "ODW":
        wait = math.ceil(5.0 * boot_delay / 300.0) * 300.0
        return sum(j["n"] for j in queue if t - j["submit"] > wait)
    return sum(sizes)  # StartUp, ODS, ODA, ODB, ODG


def _paid_left(vm, now):
    """r_v, the VM's paid time left at ``now`` (0 at the end of a paid hour)."""
    hours = max(1, math.ceil((now - vm["lease"]) / HOUR))
    return vm["lease"] + hours * HOUR - now


def _left(vm, now, job):
    """(r_v - t_j) mod 3600, r_v the VM's paid time left at ``now``."""
    return (_paid_left(vm, now) - job["est"]) % HOUR


def _by_key(idle, vmsel, vm_key, now, job):
    """The idle VMs (in lease order) in the order BestFit / WorstFit take them (spec §3); every
    sort is stable, so ties stay in lease order."""
    if vm_key == "mod":
        sign = 1.0 if vmsel == "BestFit" else -1.0
        return sorted(idle, key=lambda vm: sign * _left(vm, now, job))
    if vm_key != "binpack":
        raise ValueError(vm_key)
    if vmsel == "WorstFit":  # the most paid time left after the job first, fitting or not (ours)
        return sorted(idle, key=lambda vm: -(_paid_left(vm, now) - job["est"]))
    fits = [vm for vm in idle if _paid_left(vm, now) - job["est"] >= 0]
    rest = [vm for vm in idle if _paid_left(vm, now) - job["est"] < 0]
    return (sorted(fits, key=lambda vm: _paid_left(vm, now) - job["est"])
            + sorted(rest, key=lambda vm: _left(vm, now, job)))


def run_model(jobs, policy, *, boot_delay=120.0, step=20.0, max_vms=256, runtime="actual",
              vm_key="mod"):
    """Simulate ``jobs`` (dicts: submit, run, req, n, user; sorted by submit) under ``policy``,
    BestFit / WorstFit ordering VMs by ``vm_key`` ("mod" or "binpack").

    Returns ``(starts, paid_seconds)``: the start time of each job (in input order) and the
    charged VM-seconds.
    """
    prov, jobsel, vmsel = policy.split("-")
    jobs = [dict(j, index=i) for i, j in enumerate(requests_as_known(jobs, runtime))]
    pending = list(jobs)
    queue, running, vms = [], [], []
    history: dict[int, list] = {}
    starts = [None] * len(jobs)
    paid = 0.0
    grow, shrink = 1, 1
    t = math.ceil(jobs[0]["submit"] / step) * step
    while True:
        while pending and pending[0]["submit"] <= t:
            queue.append(pending.pop(0))
        for job in [r for r in running if r["end"] <= t]:
            running.remove(job)
            for vm in vms:
                if vm["job"] is job:
                    vm["job"] = None
            history.setdefault(job["user"], []).append((job["index"], job["run"]))
        for job in queue:
            job["est"] = _estimate(job, runtime, history)
        order = sorted(queue, key=lambda j: -_priority(jobsel, t - j["submit"], j["est"], j["n"]))
        idle = [vm for vm in vms if vm["ready"] <= t and vm["job"] is None]
        booting = [vm for vm in vms if vm["ready"] > t]
        target = _target(prov, queue, t, boot_delay, order[0] if order else None)
        supply = len(vms) if prov == "ODB" else len(idle) + len(booting)
        if prov == "ODG":
            if target > supply:
                new = min(grow, max_vms - len(vms))
                shrink = 1
                grow = min(2 * grow, max_vms) if new > 0 else grow
            else:
                new, grow = 0, 1
        else:
            new = min(max(target - supply, 0), max_vms - len(vms))
        vms += [{"lease": t, "ready": t + boot_delay, "job": None} for _ in range(int(new))]
        idle = [vm for vm in vms if vm["ready"] <= t and vm["job"] is None]
        waiting = 0  # the width of the head left waiting
        for job in order:  # strict head-of-line
            if job["n"] > len(idle):
                waiting = job["n"]
                break
            if vmsel != "FirstFit":
                idle = _by_key(idle, vmsel, vm_key, t, job)
            chosen, idle = idle[: job["n"]], idle[job["n"]:]
            idle.sort(key=vms.index)
            for vm in chosen:
                vm["job"] = job
            job["end"] = t + job["run"]
            starts[job["index"]] = t
            running.append(job)
            queue.remove(job)
        if prov != "StartUp":
            released = 0
            up = sum(vm["ready"] <= t for vm in vms)
            for vm in list(vms):
                hours = max(1, math.ceil((t - vm["lease"]) / HOUR))
                free = vm["ready"] <= t and vm["job"] is None
                # (ours) never fewer VMs up (idle or busy) than the waiting head needs
                if free and vm["lease"] + hours * HOUR < t + step and up > waiting and \
                        (prov != "ODG" or released < shrink):
                    paid += hours * HOUR
                    vms.remove(vm)
                    released += 1
                    up -= 1
            if prov == "ODG" and released:
                shrink *= 2
        if not pending and not queue and not running:
            paid += sum(max(1, math.ceil((t - vm["lease"]) / HOUR)) * HOUR for vm in vms)
            return starts, paid
        t += step


if __name__ == "__main__":  # pragma: no cover - a timing demo
    import time

    import numpy as np
    import pandas as pd

    from mopt.cloud import simulate

    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame({"submit_time": np.cumsum(rng.integers(0, 600, n)),
                       "run_time": rng.integers(1, 7200, n), "n_procs": rng.integers(1, 9, n)})
    simulate(df, "ODA-UNICEF-FirstFit")
    t0 = time.perf_counter()
    engine = simulate(df, "ODA-UNICEF-FirstFit")
    t1 = time.perf_counter()
    model_jobs = [{"submit": float(r.submit_time), "run": float(r.run_time), "req": -1.0,
                   "n": int(r.n_procs), "user": -1} for r in df.itertuples()]
    starts, paid = run_model(model_jobs, "ODA-UNICEF-FirstFit")
    t2 = time.perf_counter()
    same = np.array_equal(engine.jobs["start"].to_numpy(), np.array(starts, float))
    print(f"engine {t1 - t0:.4f} s, model {t2 - t1:.3f} s, same starts: {same}, "
          f"R_V {engine.summary['R_V']} vs {paid}")
