"""Pieces of the tail kernel (``mopt/expert/_engine/tail*.py``) checked one at a time: the
strategy as the tail runs it, the event order, the timer FIFO, the argument groups."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from mopt.expert._engine import MAX_INSTANCES, OUTPUT_COLUMNS, tail_phase
from mopt.expert._engine.constants import (
    _RELIABLE_RESULT,
    _TIMER,
    _UNRELIABLE_FAILURE,
    _UNRELIABLE_RESULT,
    N_INFINITE,
)
from mopt.expert._engine.groups import Model, Strategy, TailStart
from mopt.expert._engine.tail import _tail_phase
from mopt.expert._engine.tail_events import _precedes
from mopt.expert._engine.tail_state import SPAN, Fifo, _timer_push
from mopt.expert._engine.tail_steps import _effective_strategy

INF = math.inf


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        # no reliable pool: N infinite, no budget
        (Strategy(3, 10.0, 20.0, 0, False, 500.0), Strategy(N_INFINITE, 10.0, 20.0, 0, False, INF)),
        (Strategy(3, 10.0, 20.0, -2, True, INF), Strategy(N_INFINITE, 10.0, 20.0, 0, True, INF)),
        # NTDMr as given
        (Strategy(3, 10.0, 20.0, 2, False, INF), Strategy(3, 10.0, 20.0, 2, False, INF)),
        # strategy B: N infinite until the budget suffices
        (Strategy(0, 10.0, 20.0, 2, False, 500.0), Strategy(N_INFINITE, 10.0, 20.0, 2, False, 500.0)),
    ],
)
def test_effective_strategy(given, expected):
    assert tuple(_effective_strategy(given)) == tuple(expected)


@njit
def _precedes_py(time, kind, row, best_time, best_kind, best_row):
    return _precedes(time, kind, row, best_time, best_kind, best_row)


def test_events_come_in_time_then_kind_then_row_order():
    assert _precedes_py(1.0, _TIMER, 9, 2.0, _RELIABLE_RESULT, 0)
    assert not _precedes_py(2.0, _RELIABLE_RESULT, 0, 1.0, _TIMER, 9)
    kinds = [_RELIABLE_RESULT, _UNRELIABLE_RESULT, _UNRELIABLE_FAILURE, _TIMER]
    for a, b in zip(kinds, kinds[1:], strict=False):
        assert _precedes_py(5.0, a, 7, 5.0, b, 1) and not _precedes_py(5.0, b, 1, 5.0, a, 7)
    assert _precedes_py(5.0, _TIMER, 1, 5.0, _TIMER, 2)
    assert not _precedes_py(5.0, _TIMER, 2, 5.0, _TIMER, 2)  # a tie keeps the best so far
    assert _precedes_py(5.0, _TIMER, 0, INF, _TIMER + 1, 0)  # anything beats "no event"


@njit
def _push_timers(times, rows, capacity, head):
    spans = np.zeros(1, SPAN)
    timers = Fifo(np.zeros(capacity), np.zeros(capacity, np.int64), spans[0])
    timers.span.head = head
    for k in range(times.shape[0]):
        _timer_push(timers, times[k], rows[k])
    out_time = np.empty(timers.span.count)
    out_row = np.empty(timers.span.count, np.int64)
    for k in range(timers.span.count):
        pos = (head + k) % capacity
        out_time[k] = timers.time[pos]
        out_row[k] = timers.row[pos]
    return out_time, out_row


@pytest.mark.parametrize("head", [0, 3, 4])  # wrapped around the ring buffer or not
def test_timer_fifo_keeps_equal_times_in_row_order(head):
    times = np.array([5.0, 5.0, 5.0, 7.0, 7.0])
    rows = np.array([3, 1, 2, 4, 0])
    out_time, out_row = _push_timers(times, rows, 5, head)
    assert out_time.tolist() == [5.0, 5.0, 5.0, 7.0, 7.0]
    assert out_row.tolist() == [1, 2, 3, 0, 4]


def test_tail_phase_takes_named_tuples_or_plain_tuples():
    """Hand-computed: tasks 3 and 4 remain at t_tail = 1200, their unreliable instances end with
    results at 1900 and 2000 (paid 1000 each); T = D = 4000 so no other instance is sent."""
    fs = np.array([1000.0])
    model = Model(5, 3, 500.0, 1.0, 500.0, fs, np.zeros(1), np.ones(1))
    strategy = Strategy(N_INFINITE, 4000.0, 4000.0, 0, False, INF)
    start = TailStart(1200.0, 3100.0, np.array([3, 4]), np.array([900.0, 1000.0]),
                      np.array([1900.0, 2000.0]), np.ones(2, bool), np.zeros(2, bool),
                      np.empty((2, 0), np.int64), 2)
    named = np.empty(len(OUTPUT_COLUMNS))
    plain = np.empty(len(OUTPUT_COLUMNS))
    tail_phase(model, strategy, np.uint64(1), start, MAX_INSTANCES, named)
    tail_phase(tuple(model), tuple(strategy), np.uint64(1), tuple(start), MAX_INSTANCES, plain)
    assert named.tolist() == [800.0, (3100.0 + 2 * 1000.0) / 5, 1200.0, 2.0, 0.0, 0.0, 0.0]
    assert plain.tobytes() == named.tobytes()


def test_event_loop_counts_no_references():
    """The loop reads arrays out of named tuples at every step; with numba's reference counting
    on, each read costs an atomic increment and decrement (the loop ran ~10x slower)."""
    assert _tail_phase.targetoptions.get("_nrt") is False


def test_the_batch_drivers_take_the_bot_the_strategies_and_the_keys():
    """Issue #20: the batch drivers read as steps over argument groups, not 19 and 24 flat
    parameters: ``simulate(bot, strategies, keys)``, the observed tail's state by keyword."""
    import inspect

    from mopt.expert import reference_environment
    from mopt.expert._engine import BoT, Strategies, simulate, simulate_observed

    for driver in (simulate, simulate_observed):
        positional = [p.name for p in inspect.signature(driver).parameters.values()
                      if p.kind is p.POSITIONAL_OR_KEYWORD]
        assert positional == ["bot", "strategies", "keys"], (driver.__name__, positional)
    bot = BoT(**reference_environment(0.1).engine_arguments())
    one = np.ones(1)
    strategies = Strategies(N=np.array([2]), T=one * 0.0, D=one * 2000.0, n_rel=np.array([3]),
                            combine=np.zeros(1, bool), combined_throughput=np.zeros(1, bool),
                            budget=np.full(1, np.inf))
    out = simulate(bot, strategies, np.array([1, 2], np.uint64))
    assert out.shape == (1, 2, len(OUTPUT_COLUMNS)) and not np.isnan(out).any()
