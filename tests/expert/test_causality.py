"""Causality of ExPERT's online use (STYLE 17): at T_tail only the log up to T_tail is known.

The throughput phase is replayed from the engine's random numbers (:func:`replay_throughput`), so
the log holds, for the instances running at T_tail, the results they will return after it.  Change
those (later, earlier but still after T_tail, or never) and try to add instances sent after T_tail:

- the observed tail state and the online turnaround model (γ's three epochs, F_s) are the same;
- every replication of the tail under every strategy (makespan, cost, the tail tasks) is the same;
- a log that reaches past T_tail (an instance sent after it) is refused, not silently used.

Three replayed logs (keys), 600 tasks on 50 machines, and the online model of
:meth:`TurnaroundModel.from_instances` at several T_tail over one set of instances.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.core.errors import InputError
from mopt.expert import (
    Strategy,
    ThroughputLog,
    TurnaroundModel,
    estimate_online,
    observe,
    reference_environment,
)
from tests.expert.test_online import replay_throughput

STRATEGIES = [Strategy(0, 0.0, 4000.0, 0.1), Strategy(1, 1000.0, 4000.0, 0.1), Strategy(2, 2000.0, 8000.0, 0.05),
              "AUR", "TRR"]


def future_changed(log: pd.DataFrame, t_tail: float, rng: np.random.Generator) -> pd.DataFrame:
    """``log`` with every result after ``t_tail`` moved (still after it) or dropped."""
    out = log.copy()
    late = (out["result_time"] > t_tail).to_numpy()
    moved = t_tail + rng.uniform(1e-3, 20000.0, size=int(late.sum()))
    out.loc[late, "result_time"] = np.where(rng.random(late.sum()) < 0.3, np.nan, moved)
    return out


def _model_state(model: TurnaroundModel):
    return (model.fs_table.tolist(), model.gamma_breaks.tolist(), model.gamma_values.tolist(), model.epochs)


@pytest.mark.parametrize("key", [3, 11, 2024])
def test_the_tail_estimate_uses_only_the_log_up_to_t_tail(key):
    env = reference_environment(0.1)
    d0 = env.throughput_deadline
    log, t_tail = replay_throughput(600, 50, d0, env.engine_arguments()["fs_table"], 0.827, np.uint64(key))
    assert (log["result_time"] > t_tail).sum() >= 10  # results the user cannot know yet
    tail = observe(ThroughputLog(log), t_tail=t_tail, deadline=d0)
    online = tail.environment(n_unreliable=50, t_r=2066.0, c_ur=1 / 3600, c_r=34 / 3600, mr_max=0.1)
    estimates = [estimate_online(tail, online, s, n_reps=3, seed=key) for s in STRATEGIES]
    rng = np.random.default_rng(key)
    for _ in range(3):
        changed = observe(ThroughputLog(future_changed(log, t_tail, rng)), t_tail=t_tail, deadline=d0)
        assert changed.tasks.tolist() == tail.tasks.tolist()
        assert changed.send_times.tolist() == tail.send_times.tolist()
        assert changed.result_seconds == tail.result_seconds
        env2 = changed.environment(n_unreliable=50, t_r=2066.0, c_ur=1 / 3600, c_r=34 / 3600, mr_max=0.1)
        assert _model_state(env2.turnaround) == _model_state(online.turnaround) and env2.t_ur == online.t_ur
        for s, before in zip(STRATEGIES, estimates, strict=True):
            pd.testing.assert_frame_equal(estimate_online(changed, env2, s, n_reps=3, seed=key), before,
                                          check_exact=True)
    # instances sent after T_tail cannot be passed in: the log must end at T_tail
    later = pd.DataFrame({"task": [int(tail.tasks[0])], "send_time": [t_tail + 5.0], "result_time": [np.nan]})
    with pytest.raises(InputError, match="the log must end at t_tail"):
        observe(ThroughputLog(pd.concat([log, later], ignore_index=True)), t_tail=t_tail, deadline=d0)


@pytest.mark.parametrize("t_tail", [9000.0, 15000.0, 24000.0])
def test_online_gamma_uses_only_what_has_returned_by_t_tail(t_tail):
    """:meth:`TurnaroundModel.from_instances` at ``t_tail``: the turnarounds of results after it and
    the instances sent after it do not change the model."""
    rng = np.random.default_rng(int(t_tail))
    send = np.sort(rng.uniform(0.0, 30000.0, size=800))
    turn = np.where(rng.random(800) < 0.8, rng.lognormal(7.3, 0.5, size=800), np.inf)
    deadline = 4000.0
    model = TurnaroundModel.from_instances(send, turn, deadline, t_tail, group_size=50)
    later = send + turn > t_tail  # not returned by t_tail (or never)
    assert later.sum() > 100 and (send >= t_tail).sum() > 50
    for _ in range(3):
        turn2 = turn.copy()
        turn2[later] = np.where(rng.random(later.sum()) < 0.3, np.inf,
                                np.maximum(t_tail - send[later], 0.0) + rng.uniform(1e-3, 9000.0, size=later.sum()))
        new_send = t_tail + rng.uniform(0.0, 5000.0, size=40)
        send3, turn3 = np.r_[send, new_send], np.r_[turn2, rng.lognormal(7.3, 0.5, size=40)]
        again = TurnaroundModel.from_instances(send3, turn3, deadline, t_tail, group_size=50)
        assert _model_state(again) == _model_state(model)
