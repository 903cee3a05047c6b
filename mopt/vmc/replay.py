"""What happened in one replication of a VM schedule: the family's ``replay`` hook.

``mopt replay DIR --design I --rep R`` (:func:`mopt.core.replay.replay`) asks it about a
:class:`~mopt.vmc.VMPartitionProblem`: the schedule, the replication's drawn task times (its own
normals, or the common ones), and the period's batches sub-interval by sub-interval — per class the
tasks that arrived, the task time drawn, how long its cluster was busy and the backlog left — with
EET (the longest busy time) of each sub-interval and the time to clear what is left at the end.
The table follows the engine's rules (:func:`mopt.vmc.engine.class_busy`) in Python; its total may
differ from the compiled kernel's objective in the last bits.
"""

from __future__ import annotations

__all__ = ["replay_lines"]


def replay_lines(problem, design: int, rep: int, seed: int) -> list[str] | None:
    """Lines telling replication ``rep`` of ``design`` (seed entropy ``seed``); None for a problem
    that is not a :class:`~mopt.vmc.VMPartitionProblem`.

    Examples
    --------
    >>> from mopt.vmc import VMPartitionProblem
    >>> prob = VMPartitionProblem(8, [50.0, 50.0], [[10, 5, 2], [0, 5, 2]])
    >>> replay_lines(prob, 0, 0, 1)[0]
    'schedule theta = (1, 1, 6) VMs per class; task times drawn from its own normals (replication 0 of schedule rank 0).'
    """
    import numpy as np
    import pandas as pd

    from mopt.tables import format_table
    from mopt.vmc.noise import independent_normals
    from mopt.vmc.problem import EPS_FRACTION, VMPartitionProblem

    if not isinstance(problem, VMPartitionProblem):
        return None
    vms = problem.schedules([design])[0]
    L, A = problem.lengths, problem.arrivals
    J, C = A.shape
    if problem.noise == "independent":
        rank = int(problem._ranks([design])[0])
        z = independent_normals(seed, [rank], [rep], J, C)[0, 0]
        drawn = f"its own normals (replication {rep} of schedule rank {rank})"
    else:
        z = problem.normals([rep], seed)[0]
        drawn = f"the normals every schedule shares in replication {rep} (common random numbers)"
    classes = np.arange(C)
    mean, sd = problem._mean[classes, vms], problem._sd[classes, vms]
    p = np.maximum(mean + sd * z, EPS_FRACTION * mean)  # (J, C): seconds per task on one VM
    q = p / vms  # seconds per task of the whole cluster
    backlog = problem.backlog.astype(float)
    rows, eet = [], np.zeros(J)
    starts = np.concatenate([[0.0], np.cumsum(L)[:-1]])
    for j in range(J):
        d = backlog + A[j]
        busy = np.minimum(d * q[j], L[j])
        backlog = np.maximum(d - L[j] / q[j], 0.0)
        eet[j] = busy.max()
        rows += [{"interval": j + 1, "start": starts[j], "length": L[j], "class": c + 1, "vms": int(vms[c]),
                  "arrived": A[j, c], "task_time": p[j, c], "busy": busy[c], "backlog": backlog[c]}
                 for c in range(C)]
    tail = float((backlog * q[-1]).max())
    return [f"schedule theta = ({', '.join(str(int(v)) for v in vms)}) VMs per class; task times drawn from {drawn}.",
            f"the period's batches (start [s], length [s], then per class: VMs, tasks arrived, task time drawn [s "
            f"on one VM], busy [s], backlog left [tasks]); backlog at the start: {problem.backlog.tolist()}:",
            *format_table(pd.DataFrame(rows), formats={"interval": "{:.0f}", "start": "{:.1f}", "length": "{:.1f}",
                                                       "class": "{:.0f}", "vms": "{:.0f}", "arrived": "{:g}",
                                                       "task_time": "{:.3f}", "busy": "{:.3f}",
                                                       "backlog": "{:.3f}"}).splitlines(),
            "EET of each sub-interval (its longest busy time): " + ", ".join(f"{e:.3f}" for e in eet)
            + f" s; clearing the backlog left at the end: {tail:.3f} s; clear_time = {eet.sum() + tail:.6g} s."]
