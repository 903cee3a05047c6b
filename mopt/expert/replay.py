"""What happened in one replication of an NTDM_r strategy: the family's ``replay`` hook.

``mopt replay DIR --design I --rep R`` (:func:`mopt.core.replay.replay`) asks it about an
:class:`~mopt.expert.NTDMrProblem`: the strategy and its reliable machines, the throughput phase's
end (T_tail, the tasks left, what their results cost), the tail's outputs, and each task remaining
at T_tail — its instance running then (sent when, ending when, with a result or not) and what the
tail sent it (how many unreliable instances, whether its reliable one). The engine keeps counts of
each task's tail instances, not their send and return times.
"""

from __future__ import annotations

__all__ = ["replay_lines"]


def replay_lines(problem, design: int, rep: int, seed: int) -> list[str] | None:
    """Lines telling replication ``rep`` of ``design`` (seed entropy ``seed``); None for a problem
    that is not an :class:`~mopt.expert.NTDMrProblem`.

    Examples
    --------
    >>> from mopt.expert import NTDMrProblem, reference_environment
    >>> prob = NTDMrProblem(reference_environment(0.1))
    >>> lines = replay_lines(prob, 100, 3, 1)
    >>> print(lines[0])
    strategy N=1, T=1033, D=4132, Mr=0.02: 1 reliable machine; replication key 0x90e35e48b631e0e1.
    >>> print(lines[1])
    throughput phase: T_tail = 7035.8 s, 49 tasks remain, 57.6 cents paid for the results returned before it.
    """
    import numpy as np
    import pandas as pd

    from mopt.core.random import replication_keys
    from mopt.expert._engine import BoT
    from mopt.expert._engine.groups import Strategy
    from mopt.expert._engine.trace import trace
    from mopt.expert.problem import NTDMrProblem
    from mopt.expert.strategy import engine_parameters
    from mopt.tables import format_table

    if not isinstance(problem, NTDMrProblem):
        return None
    env, s = problem.env, problem.strategy(design)
    p = {k: v[0] for k, v in engine_parameters([s], env).items()}
    key = replication_keys(seed, [rep])[0]
    observed = None if problem.observed is None else problem.observed.engine_state(env)
    run = trace(BoT(**env.engine_arguments()), Strategy(int(p["N"]), float(p["T"]), float(p["D"]), int(p["n_rel"]),
                                                         bool(p["combine"]), float(p["budget"])), key, observed)
    out = run["out"]
    start = "observed tail" if observed is not None else "throughput phase"
    lines = [
        f"strategy N={s.N:g}, T={s.T:g}, D={s.D:g}, Mr={s.Mr:g}: {_count(p['n_rel'], 'reliable machine')}; "
        f"replication key {int(key):#018x}.",
        f"{start}: T_tail = {run['t_tail']:.1f} s, {len(run['task'])} tasks remain, {run['cost_paid']:.1f} cents paid "
        "for the results returned before it.",
        f"tail: makespan {out['makespan']!r} s (T_tail to the last result), cost {out['cost']!r} cent/task; at most "
        f"{_count(out['max_reliable_busy'], 'reliable machine')} busy and {_count(out['max_reliable_queue'], 'task')} "
        f"queued for one; {_count(out['n_reliable_instances'], 'reliable instance')} sent.",
    ]
    if not len(run["task"]):
        return lines
    tasks = pd.DataFrame({
        "task": run["task"], "sent": run["send"], "ends": run["end"],
        "outcome": np.where(run["success"], "result", "failure"),
        "machine": np.where(run["on_reliable"], "reliable", "unreliable"),
        "tail_unreliable": run["tail_unreliable"], "reliable": np.where(run["reliable"], "yes", "no"),
        "done": np.where(run["done"], "yes", "no"),
    })  # fmt: skip
    lines.append("each task remaining at T_tail: its instance running then (sent, ends [s], outcome, machine), then "
                 "the tail's instances of it (unreliable sent, reliable sent or queued) and whether it finished:")
    lines += format_table(tasks, formats={"task": "{:.0f}", "sent": "{:.1f}", "ends": "{:.1f}",
                                          "tail_unreliable": "{:.0f}"}).splitlines()
    lines.append("(the engine keeps how many tail instances each task got, not when each was sent or returned.)")
    return lines


def _count(n, noun: str) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``1 reliable machine``, ``5 reliable machines``)."""
    return f"{int(n)} {noun}{'' if int(n) == 1 else 's'}"
