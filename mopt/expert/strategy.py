"""NTDM_r strategies and the paper's static strategies (ExPERT §III, §V)."""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from mopt.core.errors import InputError, check_number

__all__ = ["Strategy", "StaticStrategy", "STATIC_STRATEGIES", "engine_parameters"]

N_INFINITE = -1


def check_N(N) -> float | int:
    """N must be an integer in [0, 1000000] or math.inf (Python or numpy numbers alike); the bound
    is more unreliable instances per task than any bag needs and keeps N well inside int64."""
    n_max = 1_000_000
    expected = f"'N' must be an integer in [0, {n_max}] or math.inf"
    if isinstance(N, (bool, np.bool_)) or not isinstance(N, numbers.Real):
        raise TypeError(f"'N' must be an integer >= 0 or math.inf; got {N!r}.")
    if isinstance(N, numbers.Integral):
        n = int(N)
        if not 0 <= n <= n_max:
            raise InputError(f"{expected}; got {n}.")
        return n
    f = float(N)
    if f == math.inf:
        return math.inf
    if math.isnan(f) or math.isinf(f) or f != math.floor(f) or not 0 <= f <= n_max:
        raise InputError(f"{expected}; got {f:g}.")
    return int(f)


@dataclass(frozen=True)
class Strategy:
    """An NTDM_r strategy for the tail phase.

    Parameters
    ----------
    N : int or math.inf
        Most instances sent per task to the unreliable pool after T_tail; the (N+1)-th goes to the
        reliable pool.  ``math.inf``: never use the reliable pool.
    T : float
        Timeout (s): another instance is sent once T has passed since the last one was sent, no
        result has come and no instance of the task is queued.
    D : float
        Deadline (s) of a tail-phase unreliable instance, from its sending.
    Mr : float
        Ratio of reliable to unreliable machines: ⌈M_r·#ur⌉ reliable machines (at least one when
        M_r > 0).  M_r = 0: no reliable pool; tasks then keep going to the unreliable pool.

    Examples
    --------
    >>> Strategy(N=3, T=2066, D=4132, Mr=0.02)
    Strategy(N=3, T=2066.0, D=4132.0, Mr=0.02)
    >>> Strategy(N=0, T=5000, D=4000, Mr=0.1)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: 'T' must be in [0, D=4000]; got 5000.
    """

    N: float | int
    T: float
    D: float
    Mr: float

    def __post_init__(self):
        object.__setattr__(self, "N", check_N(self.N))
        D = check_number("D", self.D, low=0, low_open=True)
        object.__setattr__(self, "D", D)
        object.__setattr__(self, "T", check_number("T", self.T, low=0, high=D, high_name=f"D={D:g}"))
        object.__setattr__(self, "Mr", check_number("Mr", self.Mr, low=0))

    @property
    def name(self) -> str:
        n = "inf" if math.isinf(self.N) else str(self.N)
        return f"N={n} T={self.T:g} D={self.D:g} Mr={self.Mr:g}"


@dataclass(frozen=True)
class StaticStrategy:
    """One of the paper's static strategies (§V), resolved against an environment by name."""

    name: str
    description: str


STATIC_STRATEGIES: dict[str, StaticStrategy] = {
    s.name: s
    for s in (
        StaticStrategy("AR", "All to Reliable: the whole bag on ⌈M_r^max·#ur⌉ reliable machines"),
        StaticStrategy("TRR", "all Tail Replicated to Reliable: N=0, T=0, M_r=M_r^max"),
        StaticStrategy("TR", "all Tail to Reliable: N=0, T=D=4·t_ur, M_r=M_r^max"),
        StaticStrategy("AUR", "All to UnReliable, no replication: N=inf, T=D=4·t_ur"),
        StaticStrategy("B", "Budget: throughput strategy until every remaining task fits the "
                            "remaining budget on the reliable pool, then replicate all to reliable"),
        StaticStrategy("CN_inf", "Combine pools, no replication: the unreliable queue spills onto idle "
                                 "reliable machines (whole bag)"),
        StaticStrategy("CN1T0", "Combine pools during the throughput phase; at T_tail one reliable "
                                "instance per remaining task"),
    )
}

#: strategy B's budget, cents per task: the paper's "B=7.5: Budget of 7.5$ for a BoT of 150 tasks"
#: (750 cents / 150 tasks; the paper's parenthesis "2/3 cent/task" contradicts it and would make B = AUR)
BUDGET_PER_TASK = 5.0


def as_ntdmr(name: str, env) -> Strategy | None:
    """The NTDM_r strategy equal to static strategy ``name`` (TRR, TR, AUR), else None."""
    d0 = env.throughput_deadline
    return {
        "TRR": Strategy(0, 0.0, d0, env.mr_max),
        "TR": Strategy(0, d0, d0, env.mr_max),
        "AUR": Strategy(math.inf, d0, d0, 0.0),
    }.get(name)


def engine_parameters(strategies, env, *, budget_per_task: float = BUDGET_PER_TASK) -> dict:
    """Per-strategy arrays for the simulator (AR has no entry: it is computed in closed form)."""
    n = len(strategies)
    out = {
        "N": np.empty(n, np.int64),
        "T": np.empty(n),
        "D": np.empty(n),
        "n_rel": np.empty(n, np.int64),
        "combine": np.zeros(n, bool),
        "combined_throughput": np.zeros(n, bool),
        "budget": np.full(n, np.inf),
    }
    d0 = env.throughput_deadline
    n_max = env.n_reliable(env.mr_max)
    for k, s in enumerate(strategies):
        if isinstance(s, StaticStrategy):
            if s.name == "B":
                row = (N_INFINITE, d0, d0, n_max, False, False, budget_per_task * env.n_tasks)
            elif s.name == "CN_inf":
                row = (N_INFINITE, d0, d0, n_max, True, True, np.inf)
            elif s.name == "CN1T0":
                row = (0, 0.0, d0, n_max, False, True, np.inf)
            else:
                raise InputError(f"static strategy {s.name!r} has no simulator parameters.")
        else:
            n_rel = env.n_reliable(s.Mr)
            N = N_INFINITE if math.isinf(s.N) or n_rel == 0 else int(s.N)
            row = (N, s.T, s.D, 0 if N == N_INFINITE else n_rel, False, False, np.inf)
        for key, value in zip(out, row, strict=True):
            out[key][k] = value
    return out
