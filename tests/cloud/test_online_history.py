"""The online simulations of one selection (mopt.cloud.online) write nothing back into the real
run: in particular not into the per-user history of finished jobs, which the windows once shared
with the real state (a queued job that finished in a window was recorded there with its actual
runtime although it had not run; with predicted runtimes later predictions used it: issue #32)."""

from __future__ import annotations

import numpy as np

from mopt.cloud import Policy
from mopt.cloud import engine as E
from mopt.cloud.online import online_scores
from mopt.cloud.simulate import start_run

from .test_online_consistency import random_trace


def test_online_simulations_leave_the_user_history_alone():
    df = random_trace(3, n=40).assign(user_id=lambda d: np.arange(len(d)) % 3)
    table, _, _, state = start_run(df, boot_delay=120, step=20, max_vms=12, runtime="predicted",
                                   kappa=100, alpha=1, beta=1, drop_wide=False)
    codes = np.array([Policy("ODA-FCFS-FirstFit").codes, Policy("ODX-LXF-BestFit").codes])
    selections = 0
    while state.advance(table, codes[0], period=20.0) == E.SELECT:
        before = [a.copy() for a in state.arrays]
        online_scores(state, table, codes)
        for got, kept in zip(state.arrays, before, strict=True):
            np.testing.assert_array_equal(got, kept)
        selections += 1
    assert selections > 10 and np.any(state.history[:, 0] >= 0)  # the history was in use
