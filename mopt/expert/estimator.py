"""The ExPERT estimator: replications of strategies by simulation (§IV, "EXPERT Estimator").

One replication simulates the throughput phase (no replication, deadline 4·t_ur, shared by every
strategy of the replication: common random numbers) and then the tail phase under the strategy.
``makespan`` is the tail-phase makespan (T_tail → last task completes; the whole bag for AR) and
``cost`` the cost per task of every instance that returned a result, in both phases.

Events at one instant follow the paper's time step: every result and timeout first, then each due
task enqueues at most one instance (in task order), then machines are allocated; a task sent at
this instant enqueues its next instance only in a later step (with T = 0: a step at the same
time, behind the other tasks' instances).  Strategy B checks its budget after the results.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, MoptError, check_int
from mopt.core.random import SeedLike, replication_keys, resolve_seed
from mopt.expert import _engine
from mopt.expert.environment import MIN_SUCCESS, Environment
from mopt.expert.strategy import (
    STATIC_STRATEGIES,
    StaticStrategy,
    Strategy,
    as_ntdmr,
    engine_parameters,
)

__all__ = ["estimate", "simulate_strategies", "simulate_parameters", "resolve_strategy", "replication_frame", "OUTPUT_COLUMNS"]

OUTPUT_COLUMNS = tuple(_engine.OUTPUT_COLUMNS)
#: whether the estimator's kernels still have to be compiled (a fresh install: the demo says so)
needs_compilation = _engine.needs_compilation


#: static strategies that never use the reliable pool
_UNRELIABLE_ONLY = ("AUR",)


def resolve_strategy(strategy, env: Environment):
    """A Strategy (M_r checked against ``env``) or a StaticStrategy, from an object or a name."""
    if isinstance(strategy, StaticStrategy):
        strategy = strategy.name
    if isinstance(strategy, str):
        if strategy not in STATIC_STRATEGIES:
            raise InputError(
                f"'strategy' must be a Strategy or one of {sorted(STATIC_STRATEGIES)}; got {strategy!r}."
            )
        if strategy not in _UNRELIABLE_ONLY and env.n_reliable(env.mr_max) == 0:
            raise InputError(
                f"static strategy {strategy!r} needs a reliable pool: 'mr_max' must be > 0; got {env.mr_max:g}."
            )
        return as_ntdmr(strategy, env) or STATIC_STRATEGIES[strategy]
    if not isinstance(strategy, Strategy):
        raise TypeError(f"'strategy' must be a Strategy or a static strategy name; got {strategy!r}.")
    if strategy.Mr > env.mr_max:
        raise InputError(f"'Mr' must be in [0, mr_max={env.mr_max:g}]; got {strategy.Mr:g}.")
    return strategy


def can_finish(strategy: Strategy, env: Environment) -> bool:
    """False if the strategy has no reliable fallback and no unreliable instance can meet D."""
    if env.n_reliable(strategy.Mr) > 0 and not math.isinf(strategy.N):
        return True
    return env.p_result_before(strategy.D) >= MIN_SUCCESS


def _all_reliable(env: Environment, n_keys: int) -> np.ndarray:
    n_r = env.n_reliable(env.mr_max)
    if n_r == 0:
        raise InputError("strategy 'AR' needs a reliable pool: 'mr_max' must be > 0; got 0.")
    row = np.array([
        math.ceil(env.n_tasks / n_r) * env.t_r,  # whole-bag makespan
        env.reliable_task_cost,
        0.0,
        env.n_tasks,
        min(n_r, env.n_tasks),
        max(0, env.n_tasks - n_r),
        env.n_tasks,
    ])
    return np.broadcast_to(row, (n_keys, len(row))).copy()


#: static strategies that change the throughput phase: they cannot start from an observed tail
WHOLE_BAG_STRATEGIES = ("AR", "CN_inf", "CN1T0")


def simulate_strategies(env: Environment, strategies, keys, observed=None) -> np.ndarray:
    """Replications (one per key) of resolved strategies: array (len(strategies), len(keys), 7).

    ``observed`` (an :class:`~mopt.expert.online.ObservedTail`): every tail starts from that
    observed state instead of a simulated throughput phase.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    out = np.empty((len(strategies), len(keys), len(OUTPUT_COLUMNS)))
    sim = []
    for k, s in enumerate(strategies):
        if observed is not None and isinstance(s, StaticStrategy) and s.name in WHOLE_BAG_STRATEGIES:
            raise InputError(f"strategy {s.name!r} changes the throughput phase; it cannot start from an "
                             "observed tail (use an NTDM_r strategy or TRR, TR, AUR, B).")
        if isinstance(s, StaticStrategy) and s.name == "AR":
            out[k] = _all_reliable(env, len(keys))
            continue
        sim.append(k)
        if isinstance(s, Strategy) and not can_finish(s, env):
            raise InputError(
                f"strategy {s.name} can never finish: no unreliable instance returns before D={s.D:g} s "
                f"(P = {env.p_result_before(s.D):.3g}) and it has no reliable pool to fall back on."
            )
    if sim:
        out[sim] = simulate_parameters(env, engine_parameters([strategies[k] for k in sim], env), keys,
                                       observed)
    return out


def simulate_parameters(env: Environment, params: dict, keys, observed=None) -> np.ndarray:
    """Replications of strategies given as simulator parameters (see ``engine_parameters``).

    Strategies with identical parameters give identical replications, so each is simulated once.
    """
    keys = np.ascontiguousarray(keys, dtype=np.uint64)
    table = np.column_stack([params[c].astype(float) for c in params])
    unique, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
    args = {c: np.ascontiguousarray(params[c][first]) for c in params}
    bot, strategies = _engine.BoT(**env.engine_arguments()), _engine.Strategies(**args)
    if observed is None:
        reps = _engine.simulate(bot, strategies, keys)
    else:
        reps = _engine.simulate_observed(bot, strategies, keys, **observed.engine_state(env))
    if np.isnan(reps).any():
        bad = int(np.flatnonzero(np.isnan(reps).any(axis=(1, 2)))[0])
        raise MoptError(
            "a replication exceeded the simulator's safety cap on instances "
            f"(strategy parameters {dict(zip(params, unique[bad], strict=True))}): the throughput "
            "phase or this strategy's tail practically never finishes; check the turnaround model."
        )
    return reps[inverse.ravel()]


def estimate(env: Environment, strategy, n_reps: int = 10, seed: SeedLike = None) -> pd.DataFrame:
    """Replications of one strategy in an environment.

    Parameters
    ----------
    env : Environment
    strategy : Strategy or str
        An NTDM_r strategy or a static strategy name from :data:`STATIC_STRATEGIES`.
    n_reps : int
        Replications.
    seed : int, Generator or None
        Replication r uses the r-th stream of the seed tree, shared by every strategy (common random
        numbers): TRR, TR and AUR give exactly the replications of the equal NTDM_r strategies.

    Returns
    -------
    pandas.DataFrame
        One row per replication: ``rep``, ``makespan`` (tail phase, s), ``cost`` (cents per task),
        ``t_tail``, ``n_tail_tasks``, ``max_reliable_busy``, ``used_mr``, ``max_reliable_queue``,
        ``n_reliable_instances``.

    Examples
    --------
    >>> from mopt.expert import reference_environment, Strategy
    >>> env = reference_environment(0.1)
    >>> df = estimate(env, Strategy(N=3, T=2066, D=4132, Mr=0.02), n_reps=3, seed=1)
    >>> list(df.columns[:3]), len(df)
    (['rep', 'makespan', 'cost'], 3)
    """
    if not isinstance(env, Environment):
        raise TypeError(f"'env' must be an Environment; got {type(env).__name__}.")
    n_reps = check_int("n_reps", n_reps, low=1)
    resolved = resolve_strategy(strategy, env)
    keys = replication_keys(resolve_seed(seed), np.arange(n_reps))
    reps = simulate_strategies(env, [resolved], keys)[0]
    return replication_frame(reps, env)


def replication_frame(reps: np.ndarray, env: Environment) -> pd.DataFrame:
    """The DataFrame of :func:`estimate` from an (n_reps, 7) array of replications."""
    n_reps = len(reps)
    df = pd.DataFrame(reps, columns=list(OUTPUT_COLUMNS))
    for c in ("n_tail_tasks", "max_reliable_busy", "max_reliable_queue", "n_reliable_instances"):
        df[c] = df[c].astype(np.int64)
    df.insert(0, "rep", np.arange(n_reps))
    df.insert(df.columns.get_loc("max_reliable_busy") + 1, "used_mr", df["max_reliable_busy"] / env.n_unreliable)
    return df

