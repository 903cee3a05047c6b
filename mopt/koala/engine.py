"""The compiled KOALA-C event loop (Numba); :func:`mopt.koala.simulation` is its public face.

Time moves on the scheduler's ticks ``t0 + k * step`` (``t0`` the first submission), visiting only
ticks where something happens. At each tick, in this order:

1. every run that ended at or before the tick is processed, earliest first (ties by job index): a
   run shorter than or equal to its queue's limit completes; a longer one was killed at exactly the
   limit and its job is appended to the next queue (restart from scratch). Nodes and VMs it held
   become free (VMs idle since the end time);
2. jobs submitted at or before the tick join their entry queue;
3. idle cloud VMs are released: a private VM above the minimum after ``idle_release`` idle seconds
   (lowest slot first), a public VM when its next billed hour is at most one step away (it is
   charged ``price`` per started hour);
4. if anything ended or arrived, every queue is scanned in queue order, each in its own order (FCFS,
   predicted runtime, actual runtime, or highest estimated slowdown), and a job goes to the first site
   of its queue with room (or the next in round-robin order); a job that fits nowhere is skipped
   (or stops the scan of its queue when ``blocking``).

A cluster job starts at the tick. A cloud job takes idle VMs (lowest slot first), leases the
shortfall (lowest free slots; ready after the boot delay) and starts when all its VMs are up.
Cloud room = idle VMs + (cap - leased VMs).

The plain-Python model ``tests/reference/koala_model.py`` implements the same rules independently, tick
by tick; ``tests/koala/test_engine.py`` compares the two job by job.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from mopt.cloud.billing import billed_hours, paid_until, release_due

__all__ = ["run_engine"]

CLUSTER, PRIVATE, PUBLIC = 0, 1, 2
BIG = 2**62


@nb.njit(cache=True)
def _heap_less(ht, hj, a, b):
    return ht[a] < ht[b] or (ht[a] == ht[b] and hj[a] < hj[b])


@nb.njit(cache=True)
def _heap_push(ht, hj, n, time, job):
    ht[n] = time
    hj[n] = job
    k = n
    while k > 0:
        p = (k - 1) // 2
        if _heap_less(ht, hj, k, p):
            ht[k], ht[p] = ht[p], ht[k]
            hj[k], hj[p] = hj[p], hj[k]
            k = p
        else:
            break
    return n + 1


@nb.njit(cache=True)
def _heap_pop(ht, hj, n):
    n -= 1
    ht[0] = ht[n]
    hj[0] = hj[n]
    k = 0
    while True:
        a, b, m = 2 * k + 1, 2 * k + 2, k
        if a < n and _heap_less(ht, hj, a, m):
            m = a
        if b < n and _heap_less(ht, hj, b, m):
            m = b
        if m == k:
            break
        ht[k], ht[m] = ht[m], ht[k]
        hj[k], hj[m] = hj[m], hj[k]
        k = m
    return n


@nb.njit(cache=True)
def _room(s, kind, free, size, leased, idle):
    if kind[s] == CLUSTER:
        return free[s]
    return idle[s] + size[s] - leased[s]


@nb.njit(cache=True)
def _max_room(lo, hi, q_idx, kind, free, cap, leased, idle):
    best = 0
    for k in range(lo, hi):
        best = max(best, _room(q_idx[k], kind, free, cap, leased, idle))
    return best


@nb.njit(cache=True)
def _take_vms(s, j, need, t, off, vm_state, vm_owner, vm_lease, vm_ready, boot, leased, idle):
    """Give job ``j`` idle VMs of cloud site ``s`` (lowest slot first), then lease the shortfall;
    return when the job can start (all its VMs up)."""
    begin = t
    for v in range(off[s], off[s + 1]):
        if need == 0:
            break
        if vm_state[v] == 1:
            vm_state[v] = 2
            vm_owner[v] = j
            begin = max(begin, vm_ready[v])
            idle[s] -= 1
            need -= 1
    for v in range(off[s], off[s + 1]):
        if need == 0:
            break
        if vm_state[v] == 0:
            vm_state[v] = 2
            vm_owner[v] = j
            vm_lease[v] = t
            vm_ready[v] = t + boot[s]
            begin = max(begin, t + boot[s])
            leased[s] += 1
            need -= 1
    return begin


@nb.njit(cache=True)
def _keys(q, m, qbuf, qsz, max_size, keys, order, t, runtime, submit, user, req, last1, last2, n_fin, fin_sum,
          fin_cnt):
    """Sort keys of the jobs of queue ``q`` up to ``max_size`` nodes (lower first): actual runtime
    (order 2), predicted runtime (1), or minus the estimated slowdown (3)."""
    for i in range(m):
        if qsz[q, i] > max_size:
            continue
        j = qbuf[q, i]
        if order == 2:
            keys[i] = runtime[j]
        else:
            r = _predict(j, user, req, last1, last2, n_fin, fin_sum, fin_cnt)
            if order == 1:
                keys[i] = r
            else:
                r = max(r, 1.0)
                keys[i] = -(t - submit[j] + r) / r


@nb.njit(cache=True)
def _predict(j, user, req, last1, last2, n_fin, fin_sum, fin_cnt):
    """Runtime prediction (§III-B): mean of the user's last two finished jobs; one: its runtime;
    none: the requested time if positive, else the mean of all finished jobs (ours; 0 before any)."""
    u = user[j]
    if n_fin[u] >= 2:
        return 0.5 * (last1[u] + last2[u])
    if n_fin[u] == 1:
        return last1[u]
    if req[j] > 0:
        return req[j]
    if fin_cnt > 0:
        return fin_sum / fin_cnt
    return 0.0


@nb.njit(cache=True)
def run_engine(submit, size, runtime, user, req, entry, n_users,
               kind, cap, vmin, price, boot, idle_release,
               q_ptr, q_idx, q_limit, q_next, q_order, q_select, blocking, step):
    """Simulate one policy over one trace; see the module docstring for the rules.

    Returns ``(site, start, end, restarts, wasted, totals, status)``: per job the site, start and
    end of its final run, kills and wasted node-seconds; ``totals`` = (public cost, leased VM-seconds
    up to the last completion, wasted cloud VM-seconds); status 1 if jobs were left that fit nowhere.
    """
    n = submit.shape[0]
    n_sites = kind.shape[0]
    n_q = q_limit.shape[0]
    t0 = submit[0]
    # per job
    site_out = np.full(n, -1, np.int64)
    start_out = np.full(n, np.nan)
    end_out = np.full(n, np.nan)
    restarts = np.zeros(n, np.int64)
    wasted = np.zeros(n)
    stage = entry.copy()
    cur_site = np.full(n, -1, np.int64)
    cur_start = np.zeros(n)
    # per site
    free = np.zeros(n_sites, np.int64)
    leased = np.zeros(n_sites, np.int64)
    idle = np.zeros(n_sites, np.int64)
    off = np.zeros(n_sites + 1, np.int64)
    for s in range(n_sites):
        if kind[s] == CLUSTER:
            free[s] = cap[s]
            off[s + 1] = off[s]
        else:
            off[s + 1] = off[s] + cap[s]
    n_vm = off[n_sites]
    vm_state = np.zeros(n_vm, np.int64)  # 0 not leased, 1 idle, 2 busy
    vm_owner = np.full(n_vm, -1, np.int64)
    vm_lease = np.zeros(n_vm)
    vm_ready = np.zeros(n_vm)
    vm_idle = np.zeros(n_vm)
    for s in range(n_sites):
        for v in range(off[s], off[s] + vmin[s]):  # the private minimum is up from t0
            vm_state[v] = 1
            vm_lease[v] = t0
            vm_ready[v] = t0
            vm_idle[v] = t0
        leased[s] = vmin[s]
        idle[s] = vmin[s]
    # queues
    qbuf = np.empty((n_q, n), np.int64)
    qsz = np.empty((n_q, n), np.int64)  # size of the job at each queue position (BIG: taken)
    qlen = np.zeros(n_q, np.int64)
    rr = np.zeros(n_q, np.int64)
    qmin = np.full(n_q, BIG, np.int64)  # smallest size waiting in each queue
    keys = np.empty(n)
    # runtime prediction
    last1 = np.zeros(n_users)
    last2 = np.zeros(n_users)
    n_fin = np.zeros(n_users, np.int64)
    fin_sum = 0.0
    fin_cnt = 0
    # running runs
    ht = np.empty(n)
    hj = np.empty(n, np.int64)
    nh = 0
    cost = 0.0
    vm_seconds = 0.0
    wasted_cloud = 0.0
    done = 0
    a = 0
    t = t0
    status = 0
    while True:
        changed = False
        # 1. ends
        while nh > 0 and ht[0] <= t:
            e = ht[0]
            j = hj[0]
            nh = _heap_pop(ht, hj, nh)
            s = cur_site[j]
            if kind[s] == CLUSTER:
                free[s] += size[j]
            else:
                for v in range(off[s], off[s + 1]):
                    if vm_owner[v] == j:
                        vm_owner[v] = -1
                        vm_state[v] = 1
                        vm_idle[v] = e
                idle[s] += size[j]
            q = stage[j]
            if runtime[j] > q_limit[q]:  # killed at exactly the limit: restart in the next queue
                lost = size[j] * (e - cur_start[j])
                wasted[j] += lost
                if kind[s] != CLUSTER:
                    wasted_cloud += lost
                restarts[j] += 1
                nq = q_next[q]
                stage[j] = nq
                qbuf[nq, qlen[nq]] = j
                qsz[nq, qlen[nq]] = size[j]
                qlen[nq] += 1
                qmin[nq] = min(qmin[nq], size[j])
            else:
                site_out[j] = s
                start_out[j] = cur_start[j]
                end_out[j] = e
                done += 1
                u = user[j]
                last2[u] = last1[u]
                last1[u] = runtime[j]
                n_fin[u] += 1
                fin_sum += runtime[j]
                fin_cnt += 1
            changed = True
        if done == n:
            break
        # 2. arrivals
        while a < n and submit[a] <= t:
            q = entry[a]
            qbuf[q, qlen[q]] = a
            qsz[q, qlen[q]] = size[a]
            qlen[q] += 1
            qmin[q] = min(qmin[q], size[a])
            a += 1
            changed = True
        # 3. releases of idle cloud VMs
        next_release = math.inf
        for s in range(n_sites):
            if kind[s] == CLUSTER or idle[s] == 0:
                continue
            for v in range(off[s], off[s + 1]):
                if vm_state[v] != 1:
                    continue
                if kind[s] == PRIVATE:
                    if leased[s] <= vmin[s]:
                        break
                    due = vm_idle[v] + idle_release[s]
                    if due <= t:
                        vm_state[v] = 0
                        leased[s] -= 1
                        idle[s] -= 1
                        vm_seconds += t - vm_lease[v]
                    elif due < next_release:
                        next_release = due
                else:
                    boundary = paid_until(t, vm_lease[v])
                    if release_due(t, vm_lease[v], step, True):
                        vm_state[v] = 0
                        leased[s] -= 1
                        idle[s] -= 1
                        vm_seconds += t - vm_lease[v]
                        cost += price[s] * billed_hours(t, vm_lease[v])
                    elif boundary - step < next_release:
                        next_release = boundary - step
        # 4. scheduling
        if changed:
            for q in range(n_q):
                m = qlen[q]
                if m == 0:
                    continue
                lo, hi = q_ptr[q], q_ptr[q + 1]
                max_room = _max_room(lo, hi, q_idx, kind, free, cap, leased, idle)
                if max_room < qmin[q]:
                    continue  # no waiting job fits any site of this queue
                keyed = q_order[q] != 0
                if keyed:
                    _keys(q, m, qbuf, qsz, BIG - 1 if blocking else max_room, keys, q_order[q], t, runtime, submit,
                          user, req, last1, last2, n_fin, fin_sum, fin_cnt)
                placed = 0
                pos = 0
                while max_room > 0:
                    # the next job in the queue's order that fits a site (a job that fits nowhere is
                    # skipped, or ends the scan when blocking); room only shrinks during a scan, so
                    # a job skipped once stays skipped
                    pick = -1
                    if not keyed:
                        while pos < m:
                            if qsz[q, pos] <= max_room:
                                pick = pos
                                break
                            if blocking and qsz[q, pos] < BIG:
                                pos = m
                                break
                            pos += 1
                    else:
                        limit = BIG - 1 if blocking else max_room
                        for i in range(m):
                            if qsz[q, i] <= limit and (pick < 0 or keys[i] < keys[pick]):
                                pick = i
                        if pick >= 0 and qsz[q, pick] > max_room:
                            pick = -1
                    if pick < 0:
                        break
                    j = qbuf[q, pick]
                    width = hi - lo
                    s = -1
                    for k in range(width):
                        p = (rr[q] + k) % width if q_select[q] == 1 else k
                        if _room(q_idx[lo + p], kind, free, cap, leased, idle) >= size[j]:
                            s = q_idx[lo + p]
                            if q_select[q] == 1:
                                rr[q] = (p + 1) % width
                            break
                    begin = t
                    if kind[s] == CLUSTER:
                        free[s] -= size[j]
                    else:
                        begin = _take_vms(s, j, size[j], t, off, vm_state, vm_owner, vm_lease, vm_ready, boot,
                                          leased, idle)
                    cur_site[j] = s
                    cur_start[j] = begin
                    run = runtime[j] if runtime[j] <= q_limit[q] else q_limit[q]
                    nh = _heap_push(ht, hj, nh, begin + run, j)
                    qbuf[q, pick] = -1
                    qsz[q, pick] = BIG
                    placed += 1
                    max_room = _max_room(lo, hi, q_idx, kind, free, cap, leased, idle)
                if placed:
                    w = 0
                    smallest = BIG
                    for i in range(m):
                        j = qbuf[q, i]
                        if j >= 0:
                            qbuf[q, w] = j
                            qsz[q, w] = size[j]
                            w += 1
                            smallest = min(smallest, size[j])
                    qlen[q] = w
                    qmin[q] = smallest
        # 5. the next tick where something happens
        nxt = next_release
        if a < n and submit[a] < nxt:
            nxt = submit[a]
        if nh > 0 and ht[0] < nxt:
            nxt = ht[0]
        if nxt == math.inf:
            status = 1  # jobs wait that fit nowhere, and nothing will change
            break
        t_next = t0 + math.ceil((nxt - t0) / step) * step
        t = t_next if t_next > t else t + step
    # VMs still leased: counted up to the last completion; public ones charged as released later
    t_end = t0
    for j in range(n):
        if end_out[j] > t_end:
            t_end = end_out[j]
    for s in range(n_sites):
        for v in range(off[s], off[s + 1]):
            if vm_state[v] != 0:
                vm_seconds += max(0.0, t_end - vm_lease[v])
                if kind[s] == PUBLIC:
                    cost += price[s] * billed_hours(t, vm_lease[v])
    totals = np.array([cost, vm_seconds, wasted_cloud])
    return site_out, start_out, end_out, restarts, wasted, totals, status
