"""The ExPERT environment: a bag of tasks, an unreliable and a reliable pool, prices."""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.quantiles import ShiftedLognormal
from mopt.expert._engine import reliable_run_cost
from mopt.expert.turnaround import TurnaroundModel

__all__ = ["Environment", "reference_environment", "wl3_environment", "n_reliable_machines"]

#: below this probability of a result per instance, a pool is treated as never finishing
MIN_SUCCESS = 1e-4
#: most tasks and most machines of a pool: the simulator encodes a task's index in 32 bits
MAX_COUNT = 2**32 - 1
#: largest t_ur whose throughput deadline 4·t_ur is a finite float
MAX_T_UR = sys.float_info.max / 4
#: bounds of ours on values no run can use: beyond them costs overflow (standard errors become
#: inf) or the simulator's per-replication state (a few arrays of #ur entries) takes gigabytes
MAX_UNRELIABLE = 10**6
MAX_RELIABLE = 10 * MAX_UNRELIABLE  # ours: M_r^max up to 10 on the largest pool (a bound against overflow)
MAX_TASKS = 10**6  # a bag of 10**6 tasks takes seconds per replication; 10**7 exceeds the instance cap
MAX_TIME = 1e9  # s (about 32 years): t_ur, t_r
MAX_CHARGING_PERIOD = 365 * 86400.0  # s (a year)
MAX_RATE = 1e6  # cents/s: c_ur, c_r


def n_reliable_machines(mr: float, n_unreliable: int) -> int:
    """⌈M_r·#ur⌉ reliable machines, at least one when M_r > 0.

    Examples
    --------
    >>> n_reliable_machines(0.02, 50), n_reliable_machines(0.1, 50), n_reliable_machines(0.0, 50)
    (1, 5, 0)
    """
    if mr <= 0:
        return 0
    return max(1, math.ceil(mr * n_unreliable - 1e-9))


@dataclass(frozen=True)
class Environment:
    """A bag of tasks on an unreliable pool plus a reliable pool (ExPERT Table I).

    Parameters
    ----------
    n_tasks : int
        Tasks in the bag.
    n_unreliable : int
        ``#ur``, effective size of the unreliable pool.
    t_ur : float
        Mean CPU time of a successful instance on an unreliable machine (s).
    t_r : float
        Task time on a reliable machine (s); reliable machines are homogeneous and never fail.
    c_ur, c_r : float
        Cost per second of an unreliable / reliable machine (cents/s).
    turnaround : TurnaroundModel
        F(t, t') of the unreliable pool.
    mr_max : float
        Largest ratio M_r of reliable to unreliable machines.
    charging_period_r : float
        Seconds per charged unit on the reliable pool (1 = per second, 3600 = started hours).

    Notes
    -----
    The throughput phase uses no replication and the deadline ``throughput_deadline`` = 4·t_ur.

    Bounds of ours on values no run can use (beyond them costs overflow to inf, or the simulator's
    per-machine state takes gigabytes): ``n_tasks`` and ``n_unreliable`` <= 10**6, ``t_ur`` and ``t_r`` <= 1e9 s,
    ``c_ur`` and ``c_r`` <= 1e6 cents/s, ``charging_period_r`` <= one year (31,536,000 s).
    """

    n_tasks: int
    n_unreliable: int
    t_ur: float
    t_r: float
    c_ur: float
    c_r: float
    turnaround: TurnaroundModel
    mr_max: float = 0.1
    charging_period_r: float = 1.0

    def __post_init__(self):
        object.__setattr__(self, "n_tasks", _count("n_tasks", self.n_tasks))
        object.__setattr__(self, "n_unreliable", _count("n_unreliable", self.n_unreliable))
        if self.n_tasks > MAX_TASKS:
            raise InputError(f"'n_tasks' must be an integer in [1, {MAX_TASKS:,}] (ours: larger bags exceed "
                             f"the simulator's safety cap on instances); got {self.n_tasks}.")
        if self.n_unreliable > MAX_UNRELIABLE:
            raise InputError(f"'n_unreliable' must be an integer in [1, {MAX_UNRELIABLE:,}] (ours: the "
                             f"simulator keeps per-machine state); got {self.n_unreliable}.")
        check_number("t_ur", self.t_ur, low=0, low_open=True)
        if self.t_ur > MAX_T_UR:
            raise InputError(f"'t_ur' must be at most {MAX_T_UR:g} (the throughput deadline 4·t_ur "
                             f"must be a finite number); got {self.t_ur}.")
        check_number("t_ur", self.t_ur, low=0, high=MAX_TIME, low_open=True)
        check_number("t_r", self.t_r, low=0, high=MAX_TIME, low_open=True)
        check_number("c_ur", self.c_ur, low=0, high=MAX_RATE)
        check_number("c_r", self.c_r, low=0, high=MAX_RATE)
        check_number("mr_max", self.mr_max, low=0)
        if self.mr_max * self.n_unreliable > MAX_RELIABLE:  # ⌈M_r^max·#ur⌉ reliable machines, each with state
            raise InputError(f"'mr_max' must be at most {MAX_RELIABLE / self.n_unreliable:g} (at most "
                             f"{MAX_RELIABLE:,} reliable machines over n_unreliable={self.n_unreliable}); "
                             f"got {self.mr_max:g}.")
        check_number("charging_period_r", self.charging_period_r, low=0, high=MAX_CHARGING_PERIOD,
                     low_open=True)
        if not isinstance(self.turnaround, TurnaroundModel):
            raise TypeError(
                f"'turnaround' must be a TurnaroundModel; got {type(self.turnaround).__name__}."
            )
        p = self.p_result_before(self.throughput_deadline)
        if p < MIN_SUCCESS:
            raise InputError(
                f"the unreliable pool can never finish the bag: P(result before the throughput deadline "
                f"4·t_ur={self.throughput_deadline:g} s) = {p:.3g}; check 't_ur' and 'turnaround'."
            )

    @property
    def throughput_deadline(self) -> float:
        """D_0 = 4·t_ur, the deadline of throughput-phase instances."""
        return 4.0 * self.t_ur

    @property
    def reliable_task_cost(self) -> float:
        """Cost of one reliable run: c_r·(t_r rounded up to the charging period)."""
        return reliable_run_cost(float(self.t_r), float(self.c_r), float(self.charging_period_r))

    def n_reliable(self, mr: float) -> int:
        """Reliable machines for ratio ``mr``."""
        return n_reliable_machines(mr, self.n_unreliable)

    def p_result_before(self, deadline: float) -> float:
        """P(an instance sent late in the bag returns a result strictly before ``deadline``):
        F_s(D⁻) times the reliability γ that holds for the latest send times."""
        late_gamma = float(self.engine_arguments()["gamma_values"][-1])
        return self.turnaround.success_before(deadline) * late_gamma

    def engine_arguments(self) -> dict:
        """Scalars and tables the simulator needs (computed once per environment)."""
        cached = self.__dict__.get("_engine_arguments")
        if cached is None:
            cached = self._tabulate()
            object.__setattr__(self, "_engine_arguments", cached)
        return cached

    def _tabulate(self) -> dict:
        step = self.t_ur / 100.0
        horizon = (self.n_tasks / self.n_unreliable + 50.0) * self.throughput_deadline
        fs_table, breaks, values = self.turnaround.tables(step, horizon)
        return {
            "n_tasks": int(self.n_tasks),
            "n_unreliable": int(self.n_unreliable),
            "t_r": float(self.t_r),
            "d0": float(self.throughput_deadline),
            "c_ur": float(self.c_ur),
            "c_r": float(self.c_r),
            "charging_period_r": float(self.charging_period_r),
            "fs_table": np.ascontiguousarray(fs_table, dtype=np.float64),
            "gamma_breaks": np.ascontiguousarray(breaks, dtype=np.float64),
            "gamma_values": np.ascontiguousarray(values, dtype=np.float64),
        }


def _count(name: str, value) -> int:
    """A number of tasks or machines: an integer in [1, MAX_COUNT]."""
    v = check_int(name, value, low=1)
    if v > MAX_COUNT:
        raise InputError(f"'{name}' must be an integer in [1, {MAX_COUNT}] (2**32 - 1, the "
                         f"simulator's limit); got {value}.")
    return v


def shifted_lognormal(mean: float, shift: float, sigma: float = 0.5):
    """A lognormal of log-space ``sigma`` shifted to start at ``shift`` and scaled to ``mean``.

    Examples
    --------
    >>> round(float(shifted_lognormal(2066, 1000).mean()), 6)
    2066.0
    >>> shifted_lognormal(2066, 1000, sigma=40)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'sigma' = 40 is too large for 'mean' = 2066, 'shift' = 1000: ...
    """
    shift = check_number("shift", shift, low=0)
    sigma = check_number("sigma", sigma, low=0, low_open=True)
    mean = check_number("mean", mean, low=shift, low_open=True, low_name=f"shift={shift:g}")
    # scale = (mean - shift) / exp(σ²/2); where exp(σ²/2) would overflow, times exp(-σ²/2)
    half_var = min(sigma, 1e3) ** 2 / 2
    if half_var < 700:
        scale = (mean - shift) / math.exp(half_var)
    else:
        scale = (mean - shift) * math.exp(-half_var)
    if not scale > 0:
        raise InputError(f"'sigma' = {sigma:g} is too large for 'mean' = {mean:g}, 'shift' = "
                         f"{shift:g}: the scale (mean - shift)·exp(-sigma²/2) underflows to 0.")
    fs = ShiftedLognormal(sigma, shift, scale)  # scipy.stats.lognorm's values, without importing scipy.stats
    with np.errstate(all="ignore"):  # an overflow is reported below, not as a RuntimeWarning
        top = float(fs.ppf(1 - 0.5 / 65536))  # the largest quantile a turnaround model tabulates
    if not math.isfinite(top):
        raise InputError(f"'mean' = {mean:g} with 'sigma' = {sigma:g} gives turnaround times "
                         f"beyond the floating-point range (quantile 1 - 2**-17 = {top}); use a "
                         "smaller 'mean' or 'sigma'.")
    return fs


def reference_environment(mr_max: float = 0.1) -> Environment:
    """ExPERT's "Experiment 11" scenario (Table II, Table V row 11, Fig. 8).

    150 tasks, 50 unreliable machines, t_ur = t_r = 2,066 s, γ = 0.827, c_ur = 1/3600 cent/s,
    c_r = 34/3600 cent/s (EC2 m1.large).  F_s is a *stand-in* for the paper's Fig. 5 CDF (not
    available as data): a lognormal with σ = 0.5 in log space shifted to start at 1,000 s and scaled
    to a mean of 2,066 s.

    Examples
    --------
    >>> env = reference_environment(0.1)
    >>> env.n_tasks, env.n_unreliable, env.n_reliable(env.mr_max)
    (150, 50, 5)
    """
    mr_max = check_number("mr_max", mr_max, low=0, high=1, low_open=True)
    fs = shifted_lognormal(2066.0, 1000.0, 0.5)
    return Environment(
        n_tasks=150,
        n_unreliable=50,
        t_ur=2066.0,
        t_r=2066.0,
        c_ur=1 / 3600,
        c_r=34 / 3600,
        turnaround=TurnaroundModel.parametric(fs, 0.827),
        mr_max=mr_max,
        charging_period_r=1.0,
    )


def wl3_environment(mr_max: float = 0.5) -> Environment:
    """A WL3-sized bag (Table III): 3,276 tasks on 200 unreliable machines, t_ur = t_r = 1,911 s.

    γ = 0.974 (Table V, experiment 4, WL3); F_s a lognormal (σ = 0.5) shifted to WL3's shortest CPU
    time, 1,484 s, with mean 1,911 s; prices as in the reference scenario.
    """
    mr_max = check_number("mr_max", mr_max, low=0, high=1, low_open=True)
    fs = shifted_lognormal(1911.0, 1484.0, 0.5)
    return Environment(
        n_tasks=3276,
        n_unreliable=200,
        t_ur=1911.0,
        t_r=1911.0,
        c_ur=1 / 3600,
        c_r=34 / 3600,
        turnaround=TurnaroundModel.parametric(fs, 0.974),
        mr_max=mr_max,
    )
