"""The walk-forward baseline (ours): what a user without a portfolio scheduler would run.

Month by month, run the constituent that was best over the previous month. Precisely (ours):

- months are consecutive spans of ``month`` seconds (default 30 days) from the first submit time;
- at the start of month m >= 1, every constituent is simulated alone, from an empty cloud, over
  the jobs submitted in month m - 1 (until they have all finished), and the one with the highest
  U (ties: portfolio order) is the policy of month m; month 0 runs ``default`` (default: the
  portfolio's first policy, the policy the portfolio scheduler also starts with);
- the real run is one simulation of the whole trace whose policy changes at the first tick at or
  after each month's start (the state carries over: queue, running jobs, leased VMs).

Month m's choice reads only the jobs submitted in month m - 1, simulated with the runtime variant
as :func:`mopt.cloud.simulate` does: with actual runtimes (runtimes known on submission) all of
them; with predicted or user runtimes only those that have finished in the real run by the start
of month m (the log a user would replay then: a job still queued or running has no runtime to
replay, and taking its actual one would see the future).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mopt.cloud import engine as E
from mopt.cloud.policies import check_vm_key
from mopt.cloud.portfolios import portfolio as as_portfolio
from mopt.cloud.simulate import CloudRun, run_result, simulate, start_run
from mopt.core.errors import check_number

__all__ = ["MONTH", "WalkForwardRun", "walk_forward"]

#: seconds in a walk-forward month (ours: 30 days)
MONTH = 30 * 86400.0


@dataclass
class WalkForwardRun(CloudRun):
    """Result of :func:`walk_forward`: a :class:`~mopt.cloud.CloudRun` plus the monthly choices.

    Attributes
    ----------
    months : pandas.DataFrame
        One row per month: ``month`` (0, 1, ...), ``start`` (s), ``jobs`` (submitted in it),
        ``policy`` (the name run in it) and ``past_utility`` (its U over the previous month alone;
        NaN for month 0).
    """

    months: pd.DataFrame = field(default_factory=pd.DataFrame)


def walk_forward(jobs: pd.DataFrame, portfolio="sc13", *, month: float = MONTH, default=None,
                 boot_delay: float = 120, step: float = 20, max_vms: int = 256,
                 runtime: str = "actual", kappa: float = 100.0, alpha: float = 1.0,
                 beta: float = 1.0, drop_wide: bool = False,
                 vm_key: str = "mod") -> WalkForwardRun:
    """Run the walk-forward baseline over a trace (module docstring).

    Parameters
    ----------
    jobs : pandas.DataFrame
        As for :func:`mopt.cloud.simulate`.
    portfolio : str or sequence of Policy or str
        The constituents (see :func:`mopt.cloud.portfolios.portfolio`).
    month : float, default 30 days
        Seconds per month (> 0).
    default : str or Policy, optional
        The policy of month 0 (default: the portfolio's first).
    boot_delay, step, max_vms, runtime, kappa, alpha, beta, drop_wide, vm_key
        As for :func:`mopt.cloud.simulate`.

    Returns
    -------
    WalkForwardRun

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0, 40 * 86400], "run_time": [600, 600],
    ...                    "n_procs": [4, 4]})
    >>> run = walk_forward(df, ["ODX-FCFS-FirstFit", "ODA-FCFS-FirstFit"])
    >>> run.months["policy"].tolist()  # month 1 runs the better of the two over month 0
    ['ODX-FCFS-FirstFit', 'ODA-FCFS-FirstFit']
    """
    policies = as_portfolio(portfolio)
    check_vm_key(vm_key)
    month = check_number("month", month, low=0.0, low_open=True)
    names = [p.name for p in policies]
    first = 0 if default is None else names.index(as_portfolio([default])[0].name)
    cloud = {"boot_delay": boot_delay, "step": step, "max_vms": max_vms, "runtime": runtime,
             "kappa": kappa, "alpha": alpha, "beta": beta, "drop_wide": drop_wide}
    table, frame, info, state = start_run(jobs, **cloud)
    codes = np.array([p.loop_codes(vm_key) for p in policies], dtype=np.int64)
    submit = frame["submit_time"].to_numpy(np.float64)
    origin = float(submit.min())
    n_months = int((submit.max() - origin) // month) + 1
    ended = frame["run_time"].to_numpy(np.float64)
    start = np.full(len(table), np.nan)
    rows = []
    for m in range(n_months):
        lo, hi = origin + m * month, origin + (m + 1) * month
        row = {"month": m, "start": lo, "jobs": int(np.sum((submit >= lo) & (submit < hi))),
               "policy": names[first], "past_utility": np.nan}
        if m > 0:
            log = (submit >= lo - month) & (submit < lo)
            if runtime != "actual":  # only what has finished by now has a runtime to replay
                log &= start + ended <= lo  # NaN (not started): False
            past = frame[log]
            if len(past):
                scores = [simulate(past, p, vm_key=vm_key, **cloud).summary["utility"]
                          for p in policies]
                best = int(np.argmax(scores))
                row["policy"], row["past_utility"] = names[best], scores[best]
            else:  # an empty month: keep the policy
                row["policy"] = rows[-1]["policy"]
        rows.append(row)
        until = hi if m + 1 < n_months else np.inf
        status = state.advance(table, codes[names.index(row["policy"])], until=until,
                               out_start=start)
        if status == E.DONE:
            break
    out, summary = run_result(table, frame, info, state, start, kappa=kappa, alpha=alpha, beta=beta)
    return WalkForwardRun(out, summary, None, info, months=pd.DataFrame(rows))
