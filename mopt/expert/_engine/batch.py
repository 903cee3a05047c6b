"""Batch drivers: many strategies x many replications in parallel, from simulated or observed states."""

from __future__ import annotations

import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from mopt.core.execute import kernel_threads
from mopt.expert._engine.constants import (
    MAX_INSTANCES,
    OUTPUT_COLUMNS,
)
from mopt.expert._engine.groups import BoT, Model, Strategies, Strategy, TailStart
from mopt.expert._engine.observed import (
    running_outcomes,
)
from mopt.expert._engine.queues import (
    fill_event_orders,
)
from mopt.expert._engine.random import (
    reliable_run_cost,
)
from mopt.expert._engine.tail import (
    _tail_phase,
)
from mopt.expert._engine.tail_state import (
    _tail_workspace,
)
from mopt.expert._engine.throughput import (
    throughput_phase,
)

_LAUNCH_LOCK = threading.Lock()


def _one_launch_at_a_time(fn):
    """Serialise calls from several threads (ThreadPoolExecutor, Dask threaded workers).

    Each launch already runs on every core (:func:`_in_threads`), so taking turns costs nothing
    in throughput and keeps the number of busy threads at ``NUMBA_NUM_THREADS``.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with _LAUNCH_LOCK:
            return fn(*args, **kwargs)

    return wrapper


def needs_compilation() -> bool:
    """Whether the batch kernels have no numba cache yet (their first call will compile them).

    Looks for the cache index files of :func:`_throughput_range` and :func:`_tail_blocks`
    (:func:`mopt._numba_cache.needs_compilation`); on a numba without those internals it answers
    False (nothing is said, nothing breaks).
    """
    from mopt._numba_cache import needs_compilation as missing

    return missing(_throughput_range, _tail_blocks)


def _tail_ahead():
    """Start compiling :func:`_tail_blocks` in a background process when it has no cache yet
    (:func:`mopt._numba_cache.compile_ahead`): the first run compiles the throughput kernel here
    meanwhile, and waits before its first tail."""
    from mopt._numba_cache import compile_ahead

    return compile_ahead("mopt.expert._engine.batch:warm_tail", _tail_blocks)


def warm_tail() -> None:
    """Call :func:`_tail_blocks` once on a tiny batch with the argument types :func:`simulate` and
    :func:`simulate_observed` pass (every state ``n_rem = -1``, so nothing is simulated): it
    compiles into numba's cache (what :func:`_tail_ahead`'s background process runs)."""
    one, n_keys, width = np.ones(1), 1, 1
    bot = BoT(1, 1, 1.0, 1.0, 1.0, 1.0, 1.0, one, np.zeros(1), one)
    strategies = Strategies(np.zeros(1, np.int64), one, one, np.zeros(1, np.int64), np.zeros(1, np.bool_),
                            np.zeros(1, np.bool_), one)
    states = (
        np.zeros((1, n_keys)), np.zeros((1, n_keys)), np.zeros((1, n_keys, width), np.int64),
        np.zeros((1, n_keys, width)), np.zeros((1, n_keys, width)), np.zeros((1, n_keys, width), np.bool_),
        np.zeros((1, n_keys, width), np.bool_), np.zeros((1, n_keys, 2, width), np.int64),
        np.full((1, n_keys), -1, np.int64),
    )  # fmt: skip
    _tail_batch(_model(bot), (np.zeros(1, np.int64), *_strategy_arrays(strategies)),
                np.ones(n_keys, np.uint64), states, int(MAX_INSTANCES))


def _in_threads(kernel, n_items, *args):
    """Run ``kernel(start, stop, *args)`` over ``[0, n_items)`` split among threads.

    The kernels are compiled with ``nogil=True`` and write disjoint parts of their outputs, so
    plain Python threads run them in parallel (``NUMBA_NUM_THREADS`` of them, one contiguous
    share each) and the result does not depend on the split.  Threads instead of ``prange``: a
    parallel kernel takes minutes longer to compile on first use and needs numba's threading
    layer (which does not survive ``fork``).
    """
    n = min(kernel_threads(), n_items)
    if n <= 1:
        kernel(0, n_items, *args)
        return
    bounds = [n_items * i // n for i in range(n + 1)]
    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(kernel, bounds[i], bounds[i + 1], *args) for i in range(n)]
        for future in futures:
            future.result()


# ----------------------------------------------------------------------------- batch drivers
# Argument groups passed to the kernels (for one tail, the named tuples of ``groups``):
#   model      Model: (n_tasks, n_unreliable, t_r, c_ur, cost_reliable_run, fs_table, gamma_breaks, gamma_values)
#   strategies (strategy_variant, n_limit, t_timeout, deadline, n_rel, combine, budget): arrays, one
#              entry per strategy (strategy s starts its tails from the states of variant
#              strategy_variant[s])
#   states     (t_tail, cost_paid, task, send, end, success, on_reliable, orders, n_rem): arrays,
#              shape (n_variants, n_keys, ...), one tail state per (variant, key)
def _model(bot: BoT) -> Model:
    """The ``model`` of the kernels, with contiguous float64 tables."""
    return Model(
        int(bot.n_tasks), int(bot.n_unreliable), float(bot.t_r), float(bot.c_ur),
        reliable_run_cost(float(bot.t_r), float(bot.c_r), float(bot.charging_period_r)),
        *(np.ascontiguousarray(a, dtype=np.float64).ravel() for a in (bot.fs_table, bot.gamma_breaks,
                                                                       bot.gamma_values)),
    )  # fmt: skip


def _strategy_arrays(strategies: Strategies):
    """``(n_limit, t_timeout, deadline, n_rel, combine, budget)`` as contiguous arrays of one length."""
    N = np.ascontiguousarray(strategies.N, dtype=np.int64)
    n = N.shape[0]
    return (
        N, *(np.ascontiguousarray(a, dtype=np.float64).reshape(n) for a in (strategies.T, strategies.D)),
        np.ascontiguousarray(strategies.n_rel, dtype=np.int64).reshape(n),
        np.ascontiguousarray(strategies.combine, dtype=np.bool_).reshape(n),
        np.ascontiguousarray(strategies.budget, dtype=np.float64).reshape(n),
    )  # fmt: skip


def _throughput_states(model, d0, variant_n_rel, keys, max_instances):
    """Throughput phase of every (variant, key): the ``states`` tuple."""
    n_variants = variant_n_rel.shape[0]
    n_keys = keys.shape[0]
    width = max(model.n_unreliable, 1)
    states = (
        np.empty((n_variants, n_keys)),  # t_tail
        np.empty((n_variants, n_keys)),  # cost paid before the tail
        np.empty((n_variants, n_keys, width), np.int64),  # task
        np.empty((n_variants, n_keys, width)),  # send
        np.empty((n_variants, n_keys, width)),  # end
        np.empty((n_variants, n_keys, width), np.bool_),  # success
        np.empty((n_variants, n_keys, width), np.bool_),  # on_reliable
        np.empty((n_variants, n_keys, 2, width), np.int64),  # event orders
        np.empty((n_variants, n_keys), np.int64),  # n_rem
    )
    next_k = np.empty((n_variants, n_keys, width), np.int64)
    _in_threads(_throughput_range, n_variants * n_keys, model, d0, variant_n_rel, keys, max_instances,
                next_k, states)
    return states


@njit(cache=True, nogil=True)
def _throughput_range(start, stop, model, d0, variant_n_rel, keys, max_instances, st_next_k, states):
    """:func:`_throughput_states` of the (variant, key) pairs ``start .. stop - 1``."""
    st_t_tail, st_cost, st_task, st_send, st_end, st_success, st_on_reliable, st_orders, st_n_rem = states
    n_keys = keys.shape[0]
    for p in range(start, stop):
        v = p // n_keys
        r = p - v * n_keys
        t_tail, cost_paid, n_rem = throughput_phase(
            model, variant_n_rel[v], d0, keys[r], max_instances, st_task[v, r], st_send[v, r],
            st_end[v, r], st_success[v, r], st_on_reliable[v, r], st_next_k[v, r],
        )  # fmt: skip
        st_t_tail[v, r] = t_tail
        st_cost[v, r] = cost_paid
        st_n_rem[v, r] = n_rem
        if n_rem > 0:
            fill_event_orders(
                st_orders[v, r], st_send[v, r], st_end[v, r], st_success[v, r], st_on_reliable[v, r],
                n_rem,
            )  # fmt: skip


@njit(cache=True)
def _state_orders(st_send, st_end, st_success, st_on_reliable, st_n_rem):
    """:func:`event_orders` of every state of a (n_variants, n_keys, width) batch."""
    n_variants, n_keys, width = st_send.shape
    st_orders = np.empty((n_variants, n_keys, 2, width), np.int64)
    for v in range(n_variants):
        for r in range(n_keys):
            if st_n_rem[v, r] > 0:
                fill_event_orders(
                    st_orders[v, r], st_send[v, r], st_end[v, r], st_success[v, r],
                    st_on_reliable[v, r], st_n_rem[v, r],
                )  # fmt: skip
    return st_orders


def _tail_batch(model, strategies, keys, states, max_instances):
    """Tails of every (strategy, key) from per-(variant, key) states.  States with ``n_rem < 0``
    give NaN rows."""
    n_strategies, n_keys = strategies[0].shape[0], keys.shape[0]
    out = np.empty((n_strategies, n_keys, len(OUTPUT_COLUMNS)))
    # Strided blocks: each block interleaves strategies, which balances cheap and costly tails.
    n_blocks = min(n_strategies * n_keys, 256)
    _in_threads(_tail_blocks, n_blocks, n_blocks, out, model, strategies, keys, states, max_instances)
    return out


@njit(cache=True, nogil=True)
def _tail_blocks(start, stop, n_blocks, out, model, strategies, keys, states, max_instances):
    """Blocks ``start .. stop - 1`` of :func:`_tail_batch` (block ``b``: pairs b, b + n_blocks, ...)."""
    strategy_variant, n_limit, t_timeout, deadline, n_rel, combine, budget = strategies
    st_t_tail, st_cost, st_task, st_send, st_end, st_success, st_on_reliable, st_orders, st_n_rem = states
    n_keys = keys.shape[0]
    n_strategies = n_limit.shape[0]
    width = st_task.shape[2]
    n_pairs = n_strategies * n_keys
    max_n_rel = 0
    for s in range(n_strategies):
        max_n_rel = max(max_n_rel, n_rel[s])
    for b in range(start, stop):
        workspace = _tail_workspace(width, model.n_unreliable, max_n_rel)
        for p in range(b, n_pairs, n_blocks):
            s = p // n_keys
            r = p - s * n_keys
            v = strategy_variant[s]
            if st_n_rem[v, r] < 0:
                for c in range(7):
                    out[s, r, c] = np.nan
                continue
            strategy = Strategy(n_limit[s], t_timeout[s], deadline[s], n_rel[s], combine[s], budget[s])
            tail_start = TailStart(
                st_t_tail[v, r], st_cost[v, r], st_task[v, r], st_send[v, r], st_end[v, r],
                st_success[v, r], st_on_reliable[v, r], st_orders[v, r], st_n_rem[v, r],
            )  # fmt: skip
            _tail_phase(model, strategy, keys[r], tail_start, max_instances, out[s, r], workspace)


@_one_launch_at_a_time
def simulate(bot: BoT, strategies: Strategies, keys: np.ndarray, *,
             max_instances: int = MAX_INSTANCES) -> np.ndarray:
    """Simulate replications of many strategies under common random numbers.

    The throughput phase is simulated once per (variant, key) and shared by every strategy
    of that variant; then every (strategy, key) tail runs in parallel.

    Parameters
    ----------
    bot : BoT
        The bag of tasks and its environment (``BoT(**env.engine_arguments())``; the fields are
        described on :class:`~mopt.expert._engine.groups.BoT`).
    strategies : Strategies
        The strategies as arrays of one length (``Strategies(**engine_parameters(...))``; see
        :class:`~mopt.expert._engine.groups.Strategies`).
    keys : ndarray of uint64
        One key per replication, shared by all strategies.
    max_instances : int, optional
        Safety cap on instances sent per phase; a replication exceeding it gives a NaN row.

    Returns
    -------
    ndarray of float64, shape (len(N), len(keys), 7)
        Columns :data:`OUTPUT_COLUMNS`: tail makespan, cost per task, ``t_tail``, number of
        tail tasks, max reliable machines busy at once, max reliable queue length, reliable
        instances sent in the tail.

    Examples
    --------
    >>> one = np.ones(1)
    >>> bot = BoT(10, 5, 500.0, 4000.0, 1.0, 10.0, 1.0, np.array([1000.0]), np.zeros(1), one)
    >>> strategies = Strategies(np.array([0]), np.zeros(1), one * 4000.0, np.array([5]),
    ...                         np.zeros(1, bool), np.zeros(1, bool), np.full(1, np.inf))
    >>> out = simulate(bot, strategies, np.array([1], np.uint64))
    >>> out[0, 0, :4].tolist()  # tasks 6..9 remain at t_tail = 2000 and finish right then
    [0.0, 1000.0, 2000.0, 4.0]
    """
    strategy = _strategy_arrays(strategies)
    n_strategies = strategy[0].shape[0]
    n_rel = strategy[3]
    combined_throughput = np.ascontiguousarray(strategies.combined_throughput, dtype=np.bool_).reshape(n_strategies)
    keys = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
    # Throughput variants: 0 is the plain one, then one per distinct combined n_rel.
    combined_n_rel = np.unique(n_rel[combined_throughput])
    variant_n_rel = np.concatenate([np.zeros(1, np.int64), combined_n_rel]).astype(np.int64)
    strategy_variant = np.zeros(n_strategies, np.int64)
    if combined_n_rel.size:
        strategy_variant[combined_throughput] = 1 + np.searchsorted(
            combined_n_rel, n_rel[combined_throughput]
        )
    if n_strategies == 0 or keys.shape[0] == 0:
        return np.empty((n_strategies, keys.shape[0], len(OUTPUT_COLUMNS)))
    model = _model(bot)
    ahead = _tail_ahead()
    states = _throughput_states(model, float(bot.d0), variant_n_rel, keys, int(max_instances))
    ahead.wait()
    return _tail_batch(model, (strategy_variant, *strategy), keys, states, int(max_instances))


@_one_launch_at_a_time
def simulate_observed(bot: BoT, strategies: Strategies, keys: np.ndarray, *, t_tail: float, cost_paid: float,
                      rem_task: np.ndarray, rem_send: np.ndarray, running_deadline: float,
                      max_instances: int = MAX_INSTANCES) -> np.ndarray:
    """Like :func:`simulate`, but every replication's tail starts from an observed state.

    The throughput phase is not simulated: at ``t_tail`` the tasks ``rem_task`` (sorted) remain,
    each with one unreliable instance sent at ``rem_send`` and still out; ``cost_paid`` was paid
    for the results returned before.  Per key the running instances' outcomes are drawn by
    :func:`running_outcomes` (deadline ``running_deadline``), then every (strategy, key) tail runs
    in parallel.  ``bot.d0`` is not used, and ``strategies.combined_throughput`` must be all
    False.

    Examples
    --------
    >>> one = np.ones(1)
    >>> bot = BoT(5, 3, 500.0, 4000.0, 1.0, 10.0, 1.0, np.array([1000.0]), np.zeros(1), one)
    >>> strategies = Strategies(np.array([-1]), one * 4000.0, one * 4000.0,  # N = -1: infinite
    ...                         np.array([0]), np.zeros(1, bool), np.zeros(1, bool), np.full(1, np.inf))
    >>> out = simulate_observed(bot, strategies, np.array([1], np.uint64), t_tail=1200.0,
    ...                         cost_paid=3100.0, rem_task=np.array([3, 4]),
    ...                         rem_send=np.array([900.0, 1000.0]), running_deadline=4000.0)
    >>> out[0, 0, :4].tolist()  # results at 1900 and 2000; (3100 + 2 * 1000) / 5 per task
    [800.0, 1020.0, 1200.0, 2.0]
    """
    strategy = _strategy_arrays(strategies)
    n_strategies = strategy[0].shape[0]
    if np.any(strategies.combined_throughput):
        raise ValueError("an observed tail has no simulated throughput phase: 'combined_throughput' must be False")
    keys = np.ascontiguousarray(keys, dtype=np.uint64).ravel()
    model = _model(bot)
    rem_task = np.ascontiguousarray(rem_task, dtype=np.int64).ravel()
    rem_send = np.ascontiguousarray(rem_send, dtype=np.float64).ravel()
    n_rem = rem_task.shape[0]
    if n_rem > model.n_unreliable:
        raise ValueError(f"{n_rem} running instances need at least as many unreliable machines; "
                         f"got {model.n_unreliable}")
    n_keys = keys.shape[0]
    if n_strategies == 0 or n_keys == 0:
        return np.empty((n_strategies, n_keys, len(OUTPUT_COLUMNS)))
    ahead = _tail_ahead()
    width = max(n_rem, 1)
    st_end = np.zeros((1, n_keys, width))
    st_success = np.zeros((1, n_keys, width), np.bool_)
    if n_rem:
        end, success = running_outcomes(
            model.fs_table, model.gamma_breaks, model.gamma_values, float(t_tail), float(running_deadline),
            rem_task, rem_send, keys,
        )  # fmt: skip
        st_end[0, :, :n_rem] = end
        st_success[0, :, :n_rem] = success
    st_task = np.zeros((1, n_keys, width), np.int64)
    st_task[0, :, :n_rem] = rem_task
    st_send = np.zeros((1, n_keys, width))
    st_send[0, :, :n_rem] = rem_send
    st_on_reliable = np.zeros((1, n_keys, width), np.bool_)
    st_n_rem = np.full((1, n_keys), n_rem, np.int64)
    st_orders = _state_orders(st_send, st_end, st_success, st_on_reliable, st_n_rem)
    ahead.wait()
    states = (
        np.full((1, n_keys), float(t_tail)), np.full((1, n_keys), float(cost_paid)), st_task, st_send,
        st_end, st_success, st_on_reliable, st_orders, st_n_rem,
    )  # fmt: skip
    return _tail_batch(model, (np.zeros(n_strategies, np.int64), *strategy), keys, states, int(max_instances))
