"""An independent plain-Python model of the KOALA-C simulator (reference for the compiled engine).

It walks every scheduler tick one by one with ordinary objects (no event skipping, no heap), and
implements the rules of ``mopt/koala/engine.py`` from the spec, not from that code:

- a tick first retires every run that has ended (earliest first, ties by job index): completion if
  the runtime is within the queue's limit, else a kill at exactly the limit and a restart from
  scratch at the end of the next queue; then takes in the submitted jobs; then releases idle
  cloud VMs (private: above the minimum after the idle time; public: when the next billed hour is
  at most one step away, charged per started hour); then, if anything ended or arrived, scans the
  queues in order and places jobs first fit (or round robin), skipping those that fit nowhere;
- runtime prediction: mean of the user's last two finished jobs, one, requested time, mean of all
  finished, 0.

Used by ``tests/koala/test_engine.py`` (job by job comparison on random small traces); run as a
script (``python -m tests.reference.koala_model``) it times both on a slice of KTH-SP2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class VM:
    leased: bool = False
    busy_with: int | None = None
    lease_time: float = 0.0
    ready_time: float = 0.0
    idle_since: float = 0.0


@dataclass
class SiteState:
    kind: str
    size: int
    minimum: int
    price: float
    boot: float
    idle_release: float
    free_nodes: int = 0
    vms: list = field(default_factory=list)

    def room(self) -> int:
        if self.kind == "cluster":
            return self.free_nodes
        idle = sum(1 for v in self.vms if v.leased and v.busy_with is None)
        unleased = sum(1 for v in self.vms if not v.leased)
        return idle + unleased


def model(jobs, queues, sites, *, step=30.0, entry=None, blocking=False):
    """Simulate; ``jobs`` a list of dicts (submit, size, runtime, user, req_time) sorted by submit,
    ``queues`` a list of dicts (sites, limit, next, order in {"fcfs","predicted","runtime","slowdown"},
    select in {"ff","rr"}), ``sites`` a list of dicts (kind, size, minimum, price, boot, idle_release).

    Returns (per-job list of dicts site/start/end/restarts/wasted, public cost, VM-seconds)."""
    n = len(jobs)
    t0 = jobs[0]["submit"]
    state = []
    for s in sites:
        st = SiteState(s["kind"], s["size"], s["minimum"], s["price"], s["boot"], s["idle_release"])
        if st.kind == "cluster":
            st.free_nodes = st.size
        else:
            st.vms = [VM() for _ in range(st.size)]
            for v in st.vms[: st.minimum]:
                v.leased, v.lease_time, v.ready_time, v.idle_since = True, t0, t0, t0
        state.append(st)
    entry = entry or [0] * n
    waiting = [[] for _ in queues]
    rr_pointer = [0] * len(queues)
    where = [0] * n  # current queue of each job
    running = {}  # job -> (site, start, end)
    result = [{"site": None, "start": None, "end": None, "restarts": 0, "wasted": 0.0} for _ in range(n)]
    history = {}
    finished = []
    cost = 0.0
    vm_seconds = 0.0
    arrived = 0
    done = 0
    t = t0
    while True:
        changed = False
        for j, (s, start, end) in sorted(running.items(), key=lambda kv: (kv[1][2], kv[0])):
            if end > t:
                continue
            del running[j]
            site = state[s]
            if site.kind == "cluster":
                site.free_nodes += jobs[j]["size"]
            else:
                for v in site.vms:
                    if v.busy_with == j:
                        v.busy_with, v.idle_since = None, end
            q = where[j]
            if jobs[j]["runtime"] > queues[q]["limit"]:
                result[j]["restarts"] += 1
                result[j]["wasted"] += jobs[j]["size"] * (end - start)
                where[j] = queues[q]["next"]
                waiting[where[j]].append(j)
            else:
                result[j].update(site=s, start=start, end=end)
                done += 1
                history.setdefault(jobs[j]["user"], []).append(jobs[j]["runtime"])
                finished.append(jobs[j]["runtime"])
            changed = True
        if done == n:
            break
        while arrived < n and jobs[arrived]["submit"] <= t:
            where[arrived] = entry[arrived]
            waiting[entry[arrived]].append(arrived)
            arrived += 1
            changed = True
        for site in state:
            if site.kind == "private":
                for v in site.vms:
                    n_leased = sum(1 for w in site.vms if w.leased)
                    if v.leased and v.busy_with is None and n_leased > site.minimum \
                            and v.idle_since + site.idle_release <= t:
                        v.leased = False
                        vm_seconds += t - v.lease_time
            elif site.kind == "public":
                for v in site.vms:
                    if v.leased and v.busy_with is None:
                        hours = max(1, math.ceil((t - v.lease_time) / 3600))
                        if v.lease_time + hours * 3600 - t <= step:
                            v.leased = False
                            vm_seconds += t - v.lease_time
                            cost += site.price * hours
        if changed:
            for q, queue in enumerate(queues):
                order = list(waiting[q])
                if queue["order"] != "fcfs":
                    order.sort(key=lambda j, q=queue: _key(j, q["order"], jobs, history, finished, t))
                placed = []
                for j in order:
                    candidates = list(queue["sites"])
                    if queue["select"] == "rr":
                        k = rr_pointer[q]
                        candidates = candidates[k:] + candidates[:k]
                    chosen = next((s for s in candidates if state[s].room() >= jobs[j]["size"]), None)
                    if chosen is None:
                        if blocking:
                            break
                        continue
                    if queue["select"] == "rr":
                        rr_pointer[q] = (list(queue["sites"]).index(chosen) + 1) % len(queue["sites"])
                    start = _place(state[chosen], j, jobs[j]["size"], t)
                    run = min(jobs[j]["runtime"], queue["limit"])
                    running[j] = (chosen, start, start + run)
                    placed.append(j)
                waiting[q] = [j for j in waiting[q] if j not in placed]
        if not running and arrived == n and done < n:
            raise RuntimeError("stalled")
        t += step
    t_end = max(r["end"] for r in result)
    for site in state:
        for v in site.vms:
            if v.leased:
                vm_seconds += t_end - v.lease_time
                if site.kind == "public":
                    cost += site.price * max(1, math.ceil((t - v.lease_time) / 3600))
    return result, cost, vm_seconds


def _key(j, order, jobs, history, finished, t):
    if order == "runtime":
        return jobs[j]["runtime"]
    past = history.get(jobs[j]["user"], [])
    if len(past) >= 2:
        r = (past[-1] + past[-2]) / 2
    elif past:
        r = past[-1]
    elif jobs[j]["req_time"] > 0:
        r = jobs[j]["req_time"]
    else:
        r = sum(finished) / len(finished) if finished else 0.0
    if order == "predicted":
        return r
    r = max(r, 1.0)
    return -(t - jobs[j]["submit"] + r) / r


def _place(site: SiteState, j: int, size: int, t: float) -> float:
    if site.kind == "cluster":
        site.free_nodes -= size
        return t
    start = t
    taken = 0
    for v in site.vms:
        if taken < size and v.leased and v.busy_with is None:
            v.busy_with = j
            start = max(start, v.ready_time)
            taken += 1
    for v in site.vms:
        if taken < size and not v.leased:
            v.leased, v.busy_with, v.lease_time, v.ready_time = True, j, t, t + site.boot
            start = max(start, v.ready_time)
            taken += 1
    return start


if __name__ == "__main__":
    import time

    from mopt.koala import FF, koala_trace, multicluster, simulate

    kth = koala_trace("KTH-SP2").iloc[:2000]
    env = multicluster(1)
    sites = [{"kind": s.kind, "size": s.size, "minimum": s.minimum, "price": s.price, "boot": s.boot,
              "idle_release": s.idle_release} for s in env.sites]
    jobs = [{"submit": float(r.submit_time), "size": int(r.n_procs), "runtime": float(r.run_time),
             "user": int(r.user_id), "req_time": float(r.req_time)} for r in kth.itertuples()]
    queues = [{"sites": [0, 1], "limit": math.inf, "next": -1, "order": "fcfs", "select": "ff"}]
    begin = time.perf_counter()
    model(jobs, queues, sites)
    py = time.perf_counter() - begin
    simulate(kth, FF(), env)
    begin = time.perf_counter()
    simulate(kth, FF(), env)
    print(f"2,000 KTH-SP2 jobs, FF: plain Python {py:.2f} s, engine {time.perf_counter() - begin:.4f} s")
