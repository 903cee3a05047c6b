"""Constants shared by the engine modules: output columns, special values, event kinds."""

from __future__ import annotations

OUTPUT_COLUMNS = (
    "makespan",
    "cost",
    "t_tail",
    "n_tail_tasks",
    "max_reliable_busy",
    "max_reliable_queue",
    "n_reliable_instances",
)
N_INFINITE = -1
MAX_INSTANCES = 10_000_000
TAIL_INSTANCE_OFFSET = 1_000_000
#: instance number of the draws of an observed running instance (see :func:`running_outcomes`)
RUNNING_INSTANCE = 2_000_000

# Event kinds, in processing order at equal times; ties within a kind by task (row) index.
_RELIABLE_RESULT = 0
_UNRELIABLE_RESULT = 1
_UNRELIABLE_FAILURE = 2
_TIMER = 3
_KIND_SHIFT = 32
_ROW_MASK = (1 << 32) - 1

# Event sources of the tail (see :func:`_next_event`).
_NO_EVENT = -1
_RUNNING = 0  # the ends of the instances running at t_tail
_RELIABLE_RESULTS = 1
_UNRELIABLE_RESULTS = 2
_FAILURES = 3
_TIMERS = 4
