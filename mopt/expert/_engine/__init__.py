"""Numba engine of the ExPERT Estimator: throughput phase, then the tail under NTDMr strategies.

One replication simulates the BoT on ``n_unreliable`` (``#ur``) unreliable machines until the
tail starts (``t_tail``: fewer remaining tasks than unreliable machines), then runs the tail under
a strategy ``(N, T, D, n_rel, combine, budget)`` with two FCFS queues, one per pool (ExPERT,
Section IV, "EXPERT Estimator").  Every random draw comes from the counter-based generator
:func:`uniform`, addressed by ``(key, task, instance number, stream)``, so a replication gives the
same numbers whatever the evaluation order, the batch or the thread that runs it; all strategies
of a replication share one key (common random numbers).

The throughput phase does not depend on the strategy: :func:`simulate` runs it once per
``(variant, key)`` and every strategy's tail starts from that state.  The state is plain arrays
(one row per remaining task, sorted by task id), so a tail can also start from an observed state
(:func:`simulate_observed`, the running instances drawn by :func:`running_outcomes`).

Times are in seconds, costs in cents; an instance is paid iff it returns a result.

Modules: ``constants`` (output columns, event kinds and sources), ``groups`` (the kernels'
argument groups as named tuples: ``Model``, ``Strategy``, ``TailStart``), ``random``
(counter-based draws, the turnaround tables), ``queues`` (event heap, ring buffers, initial
event orders), ``throughput`` (:func:`throughput_phase`), the tail in four: ``tail`` (the event
loop, :func:`tail_phase`), ``tail_state`` (its working state: per-task flags, queues, event
sources, tally), ``tail_events`` (the event sources merged in order) and ``tail_steps`` (the
strategy's steps: start the tail, send to the unreliable and reliable pools, a timeout, a
deadline, a result, strategy B's budget), ``observed`` (running instances of an observed state)
and ``batch`` (the drivers :func:`simulate` and :func:`simulate_observed`, which run ``nogil``
batch kernels calling the same phase kernels on ``NUMBA_NUM_THREADS`` threads).  Every kernel
is cached on disk (``cache=True``) with one specialisation, so only a fresh install compiles
(:func:`needs_compilation`).
"""

from __future__ import annotations

import os as _os

import numba as _numba

# The simulators run prange loops; numba's default GNU OpenMP layer kills a forked child process,
# which breaks ProcessPoolExecutor (fork on Linux).  "forksafe" picks a layer that survives fork
# (TBB if installed, else the built-in workqueue).  A user's NUMBA_THREADING_LAYER wins.
if "NUMBA_THREADING_LAYER" not in _os.environ:
    _numba.config.THREADING_LAYER = "forksafe"

from mopt.expert._engine.batch import needs_compilation, simulate, simulate_observed  # noqa: E402
from mopt.expert._engine.constants import (
    MAX_INSTANCES,
    N_INFINITE,
    OUTPUT_COLUMNS,
    RUNNING_INSTANCE,
    TAIL_INSTANCE_OFFSET,
)
from mopt.expert._engine.groups import BoT, Strategies
from mopt.expert._engine.observed import running_outcomes
from mopt.expert._engine.queues import event_orders
from mopt.expert._engine.random import reliable_run_cost, uniform
from mopt.expert._engine.tail import tail_phase
from mopt.expert._engine.throughput import throughput_phase

__all__ = [
    "OUTPUT_COLUMNS",
    "N_INFINITE",
    "MAX_INSTANCES",
    "TAIL_INSTANCE_OFFSET",
    "RUNNING_INSTANCE",
    "uniform",
    "reliable_run_cost",
    "throughput_phase",
    "event_orders",
    "tail_phase",
    "running_outcomes",
    "simulate",
    "simulate_observed",
    "BoT",
    "Strategies",
    "needs_compilation",
]
