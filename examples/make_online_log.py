"""Write online_log.csv: a simulated throughput-phase log of the reference scenario.

N_TASKS tasks in one FCFS queue on 50 unreliable machines, turnarounds from the reference turnaround model
(F_s a stand-in for the paper's Fig. 5 CDF, γ = 0.827), deadline D_0 = 4·t_ur (a timed-out task is
re-queued).  The log stops at T_tail, the first moment fewer than 50 tasks remain; it lists every
instance sent by then with its result time, empty if no result has come by T_tail.

The bag is larger than the reference scenario's 150 tasks: with 150 tasks T_tail (~7,500 s) comes
before the first throughput deadline (8,264 s), so no instance's fate is fully known and the online
γ has no full-knowledge epoch to start from.

    python examples/make_online_log.py      # prints T_tail for online.toml
"""

from __future__ import annotations

import dataclasses
import heapq
from pathlib import Path

import numpy as np

from mopt.expert import reference_environment

SEED = 2012
N_TASKS = 500


def main() -> float:
    env = dataclasses.replace(reference_environment(), n_tasks=N_TASKS)
    model, d0 = env.turnaround, env.throughput_deadline
    rng = np.random.default_rng(SEED)
    queue, free, events, rows = list(range(env.n_tasks)), env.n_unreliable, [], []
    remaining, t = env.n_tasks, 0.0
    while True:
        while queue and free:  # idle machines take queued tasks
            task, free = queue.pop(0), free - 1
            ok = rng.random() < float(model.reliability(t))
            turnaround = float(model.fs_table[int(rng.random() * model.fs_table.size)]) if ok else np.inf
            row = [task, round(t, 1), None]
            rows.append(row)
            if turnaround < d0:
                heapq.heappush(events, (round(t + turnaround, 1), len(rows) - 1, True))
            else:
                heapq.heappush(events, (round(t + d0, 1), len(rows) - 1, False))
        if remaining < env.n_unreliable:
            break
        t = events[0][0]
        while events and events[0][0] == t:  # every event at this moment
            _, k, ok = heapq.heappop(events)
            free += 1
            if ok:
                rows[k][2] = t
                remaining -= 1
            else:
                queue.append(rows[k][0])
    out = Path(__file__).with_name("online_log.csv")
    lines = ["task,send_time,result_time"]
    lines += [f"{task},{send:.1f},{'' if result is None else f'{result:.1f}'}" for task, send, result in rows]
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}: {len(rows)} instances, {remaining} tasks remain at t_tail = {t:.1f}")
    return t


if __name__ == "__main__":
    main()
