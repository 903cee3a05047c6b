"""Runtime prediction shared by the cloud simulator and KOALA-C (mopt/workloads/prediction.py):
hand cases of both papers' rules, a property of the history, and both engines using it."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mopt.workloads import prediction
from mopt.workloads.prediction import (
    new_history,
    predict_koala,
    predict_sc13,
    recent_mean,
    record_finished,
)
from tests.helpers import fuzz


def test_sc13_rule_by_hand():
    # Tsafrir et al. as SC13 uses it: the user's two most recently *submitted* finished jobs
    history = new_history(3)
    assert predict_sc13(history, 0, 500.0, 90.0) == 500.0  # no finished job: the request
    assert predict_sc13(history, 0, -1.0, 90.0) == 90.0  # no request either: the actual runtime
    assert predict_sc13(history, -1, 500.0, 90.0) == 500.0  # unknown user: no history
    record_finished(history, 0, 10.0, 300.0)  # job 10 finished after 300 s
    assert predict_sc13(history, 0, 1000.0, 90.0) == 300.0
    record_finished(history, 0, 4.0, 100.0)  # job 4, submitted earlier, finishes later
    assert predict_sc13(history, 0, 1000.0, 90.0) == 200.0  # (300 + 100) / 2
    record_finished(history, 0, 2.0, 999.0)  # older than both: not among the two most recent
    assert predict_sc13(history, 0, 1000.0, 90.0) == 200.0
    record_finished(history, 0, 12.0, 700.0)  # the newest: 10 and 12 now
    assert predict_sc13(history, 0, 1000.0, 90.0) == 500.0
    assert predict_sc13(history, 0, 450.0, 90.0) == 450.0  # capped at the request
    assert predict_sc13(history, 1, -1.0, 90.0) == 90.0  # another user's history is not used


def test_koala_rule_by_hand():
    # KOALA-C §III-B: the user's last two *finished* jobs (completion order), no cap; without any,
    # the request if positive, else the mean of all finished jobs (ours)
    history = new_history(2)
    assert predict_koala(history, 0, -1.0, 0.0) == 0.0
    assert predict_koala(history, 0, 400.0, 77.0) == 400.0
    assert predict_koala(history, 0, -1.0, 77.0) == 77.0
    for done, runtime in enumerate([100.0, 300.0, 50.0]):  # completion order is the key
        record_finished(history, 0, float(done), runtime)
    assert predict_koala(history, 0, 10.0, 77.0) == 175.0  # (300 + 50) / 2, above the request
    assert recent_mean(history, 0) == (2, 175.0) and recent_mean(history, 1) == (0, 0.0)


@fuzz(60)
@given(st.lists(st.tuples(st.integers(0, 50), st.floats(1.0, 1e5)), max_size=30,
                unique_by=lambda x: x[0]))
def test_history_keeps_the_two_largest_keys(records):
    history = new_history(1)
    for key, runtime in records:
        record_finished(history, 0, float(key), runtime)
    newest = sorted(records, reverse=True)[:2]
    assert recent_mean(history, 0)[0] == len(newest)
    if newest:
        assert recent_mean(history, 0)[1] == pytest.approx(np.mean([r for _, r in newest]), rel=1e-15)


def test_both_engines_use_the_shared_predictors():
    """One compiled place for runtime prediction: the engines import it and define no other."""
    from mopt.cloud import steps, window
    from mopt.koala import engine, queueing

    assert steps.predict_sc13 is window.predict_sc13 is prediction.predict_sc13
    assert steps.record_finished is engine.record_finished is prediction.record_finished
    assert queueing.predict_koala is prediction.predict_koala
    from mopt.cloud import engine as cloud_engine

    for module in (cloud_engine, steps, window, engine, queueing):
        assert not hasattr(module, "_predict"), module.__name__
