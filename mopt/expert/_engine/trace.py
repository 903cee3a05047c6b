"""One replication of one strategy, with what each tail task got: for ``mopt replay``.

:func:`trace` runs the kernels that :func:`simulate` and :func:`simulate_observed` run — the same
throughput phase (or observed start) and the same tail event loop, on the same key — for one
strategy and one key, and keeps the tail's per-task state that the batch drivers drop: whether each
task got its result, how many tail unreliable instances it was sent, and whether it got its
reliable instance. The output row is the one the batch drivers give, bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mopt.expert._engine.batch import _model, _throughput_states
from mopt.expert._engine.constants import MAX_INSTANCES, OUTPUT_COLUMNS
from mopt.expert._engine.groups import BoT, Strategy, TailStart
from mopt.expert._engine.observed import running_outcomes
from mopt.expert._engine.queues import event_orders
from mopt.expert._engine.tail import _tail_phase
from mopt.expert._engine.tail_state import _tail_workspace

__all__ = ["trace"]


@njit(cache=True)
def _traced_tail(model, strategy, key, start, max_instances):  # pragma: no cover - compiled
    """:func:`tail_phase`, returning its output row and the tail's per-task state (the first
    ``4 * n_remaining`` flags of its workspace — done, queued unreliable, queued reliable, has its
    reliable instance — and the tail unreliable instances per task: :func:`_tail_views`' layout)."""
    out = np.empty(7)
    workspace = _tail_workspace(start.n_remaining, model.n_unreliable, strategy.n_rel)
    _tail_phase(model, strategy, key, start, max_instances, out, workspace)
    n = start.n_remaining
    return out, workspace[0][: 4 * n].copy(), workspace[1][:n].copy()


def trace(bot: BoT, strategy: Strategy, key, observed: dict | None = None) -> dict:
    """Replication ``key`` of ``strategy`` (an NTDM_r strategy: no combined throughput phase).

    Parameters
    ----------
    bot : BoT
    strategy : Strategy
        ``(n_limit, t_timeout, deadline, n_rel, combine, budget)``.
    key : uint64
        The replication key.
    observed : dict, optional
        :meth:`mopt.expert.online.ObservedTail.engine_state`: the tail starts there.

    Returns
    -------
    dict
        ``out`` (the replication's row of :data:`OUTPUT_COLUMNS`), ``t_tail``, ``cost_paid``
        (cents, before the tail) and, per task remaining at ``t_tail`` (sorted by task id),
        ``task``, its running instance's ``send`` and ``end`` times, ``success`` and
        ``on_reliable``, then what the tail did: ``done``, ``tail_unreliable`` (instances sent)
        and ``reliable`` (its reliable instance sent or queued).
    """
    model = _model(bot)
    keys = np.array([key], dtype=np.uint64)
    if observed is None:
        states = _throughput_states(model, float(bot.d0), np.zeros(1, np.int64), keys, MAX_INSTANCES)
        t_tail, cost_paid, task, send, end, success, on_reliable, orders, n = (s[0, 0] for s in states)
    else:
        task = np.ascontiguousarray(observed["rem_task"], dtype=np.int64)
        send = np.ascontiguousarray(observed["rem_send"], dtype=np.float64)
        n = len(task)
        end, success = np.zeros(max(n, 1)), np.zeros(max(n, 1), np.bool_)
        if n:
            e, s = running_outcomes(model.fs_table, model.gamma_breaks, model.gamma_values,
                                    float(observed["t_tail"]), float(observed["running_deadline"]), task, send, keys)
            end[:n], success[:n] = e[0], s[0]
        task, send = np.pad(task, (0, max(n, 1) - n)), np.pad(send, (0, max(n, 1) - n))
        on_reliable = np.zeros(max(n, 1), np.bool_)
        orders = event_orders(send, end, success, on_reliable, n)
        t_tail, cost_paid = float(observed["t_tail"]), float(observed["cost_paid"])
    n = int(n)
    start = TailStart(float(t_tail), float(cost_paid), task, send, end, success, on_reliable, orders, n)
    out, flags, tail_unreliable = _traced_tail(model, strategy, np.uint64(key), start, MAX_INSTANCES)
    flags = flags.reshape(4, n)
    return {"out": dict(zip(OUTPUT_COLUMNS, out.tolist(), strict=True)), "t_tail": float(t_tail),
            "cost_paid": float(cost_paid), "task": task[:n].copy(), "send": send[:n].copy(), "end": end[:n].copy(),
            "success": success[:n].copy(), "on_reliable": on_reliable[:n].copy(), "done": flags[0].copy(),
            "tail_unreliable": tail_unreliable, "reliable": flags[3].copy()}
