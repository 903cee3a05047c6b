"""The kernels' argument groups as typed named tuples: the model, a strategy, a tail's start.

Numba compiles a ``NamedTuple`` like a plain tuple (one typed struct, fields read by name at no
cost), so the kernels read ``model.t_r`` rather than ``model[2]``; a plain tuple of the same
fields in the same order is still accepted by :func:`tail_phase`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class BoT(NamedTuple):
    """The bag of tasks and its environment as the batch drivers take them: the fields of
    :meth:`mopt.expert.Environment.engine_arguments` (``BoT(**env.engine_arguments())``).

    ``n_unreliable`` is ``#ur`` (>= 1); ``t_r`` the deterministic run time of a task on a reliable
    machine; ``d0`` the throughput phase's deadline (``4 * t_ur``); ``c_ur``, ``c_r`` cents per
    second on unreliable and reliable machines; a reliable run costs ``c_r * ceil(t_r /
    charging_period_r) * charging_period_r``; ``fs_table`` the sorted successful turnaround
    times (a draw ``u`` gives ``fs_table[int(u * len)]``); ``gamma_breaks``, ``gamma_values`` the
    piecewise-constant reliability ``gamma(t')`` of an instance sent at ``t'``.
    """

    n_tasks: int
    n_unreliable: int
    t_r: float
    d0: float
    c_ur: float
    c_r: float
    charging_period_r: float
    fs_table: np.ndarray
    gamma_breaks: np.ndarray
    gamma_values: np.ndarray


class Strategies(NamedTuple):
    """Many strategies as arrays of one length, the fields of
    :func:`mopt.expert.strategy.engine_parameters` (``Strategies(**params)``).

    ``N`` (int64): unreliable tail instances per task before the reliable one, ``N_INFINITE``
    (-1) = inf; ``T``, ``D``: the timeout before sending another instance and the deadline of
    tail unreliable instances; ``n_rel`` (int64): reliable machines in the tail (0 = no reliable
    pool); ``combine`` (bool): CN_inf, the unreliable queue spills onto idle reliable machines;
    ``combined_throughput`` (bool): the throughput phase is the "combined" variant with
    ``n_rel`` reliable machines (CN_inf, CN1T0); ``budget``: strategy B's budget in cents
    (``inf`` for none).
    """

    N: np.ndarray
    T: np.ndarray
    D: np.ndarray
    n_rel: np.ndarray
    combine: np.ndarray
    combined_throughput: np.ndarray
    budget: np.ndarray


class Model(NamedTuple):
    """The BoT and the turnaround model (see :func:`simulate`).

    ``cost_reliable_run`` is the cost of one reliable run (:func:`reliable_run_cost`); the cost
    output is per task of the whole BoT (``n_tasks``).
    """

    n_tasks: int
    n_unreliable: int  # ``#ur``
    t_r: float
    c_ur: float
    cost_reliable_run: float
    fs_table: np.ndarray
    gamma_breaks: np.ndarray
    gamma_values: np.ndarray


class Strategy(NamedTuple):
    """One tail strategy ``(N, T, D, n_rel, combine, budget)``.

    ``n_limit`` is ``N``, the tail unreliable instances per task before its reliable one
    (``N_INFINITE`` (-1): no reliable instance); ``t_timeout`` and ``deadline`` are ``T`` and
    ``D``; ``n_rel`` the reliable machines (0: no reliable pool, ``N`` is then infinite);
    ``combine`` is CN_inf (the unreliable queue spills onto idle reliable machines); ``budget``
    the total budget in cents of strategy B (``inf`` for none).
    """

    n_limit: int
    t_timeout: float
    deadline: float
    n_rel: int
    combine: bool
    budget: float


class TailStart(NamedTuple):
    """The state a tail starts from (rows sorted by task id, ``n_remaining`` of them valid).

    ``t_tail`` and the cost of the results returned before it (``cost_paid``); per remaining
    task its id and its running instance as written by :func:`throughput_phase` (a task whose
    instance runs on a reliable machine already has its reliable instance); their
    :func:`event_orders` (shape ``(2, >= n_remaining)``, or ``(2, 0)`` to compute them in the
    tail).
    """

    t_tail: float
    cost_paid: float
    task: np.ndarray
    send: np.ndarray
    end: np.ndarray
    success: np.ndarray
    on_reliable: np.ndarray
    orders: np.ndarray
    n_remaining: int
