"""The portfolio scheduler (SC13, JSSPP; spec §6): online selection of a policy from a portfolio.

:func:`simulate_portfolio` replays a trace like :func:`mopt.cloud.simulate`, but the active policy
changes: on every tick whose time is a multiple of the selection period (``period`` × the 20 s
scheduling step) and whose queue is not empty, the scheduler copies the current state (queued jobs
with their true submit times, running jobs with their remaining time as the runtime variant
estimates it, booting VMs, every VM's lease), simulates candidate policies online from that copy
with no future arrivals until every queued job has finished, scores each with the utility U
(R_J = busy VM-seconds from now on, R_V = paid VM-seconds with every VM released at its next
hourly boundary, BSD = mean over the queued jobs) and applies the best until the next selection.
Which candidates are simulated is SC13's time-constrained Algorithm 1
(:class:`~mopt.cloud.selection.TimeConstrainedSelection`): a budget of Δ simulated policies per
selection, λ = 0.6; with Δ >= the portfolio's size every policy is simulated every time (JSSPP).
That is the papers' rule, ``selection="sc13"`` (the default here, kept bit for bit);
``selection="mopt"`` is mopt's own rule (ours, :mod:`mopt.cloud.selection_rules`; the default of
``mopt portfolio``). The loop (:func:`run_selections`) does not know which rule runs.

Choices that are ours: before the first selection the first policy of the portfolio is active; the
online simulations of one selection run in one compiled call (:func:`mopt.cloud.online.online_scores`)
and touch only the live queue, running jobs and VMs, and finish in one step once the last queued
job has started (the VMs' releases are then known: tested against ticking on); a one-policy portfolio never selects.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mopt.cloud import engine as E
from mopt.cloud.policies import check_vm_key
from mopt.cloud.portfolios import portfolio as as_portfolio
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.selection_rules import MoptRule, Sc13Rule, selection_rule
from mopt.cloud.simulate import MAX_PERIOD, CloudRun, run_result, start_run
from mopt.core.errors import check_int
from mopt.core.random import SeedLike

__all__ = ["PortfolioRun", "simulate_portfolio"]


@dataclass
class PortfolioRun(CloudRun):
    """Result of :func:`simulate_portfolio`: a :class:`~mopt.cloud.CloudRun` plus the selection log.

    Attributes
    ----------
    jobs, summary, info
        As in :class:`~mopt.cloud.CloudRun`; ``summary`` also holds ``selections`` (how many)
        and ``online_simulations`` (how many policies were simulated in all). ``policy`` is None.
    portfolio : list of Policy
    log : pandas.DataFrame
        One row per selection: ``time`` (the tick from which the chosen policy is active),
        ``policy`` (its index in ``portfolio``), ``name``, ``queue`` (queued jobs),
        ``simulated`` (policies simulated) and ``utility`` (the chosen policy's online U).
    """

    portfolio: list = field(default_factory=list)
    log: pd.DataFrame = field(default_factory=pd.DataFrame)

    def shares(self) -> pd.Series:
        """The fraction of selections that chose each policy (SC13 Fig. 5), in portfolio order.

        Examples
        --------
        >>> df = pd.DataFrame({"submit_time": [0, 0], "run_time": [600, 60], "n_procs": [4, 1]})
        >>> run = simulate_portfolio(df, ["ODA-FCFS-FirstFit", "ODX-FCFS-FirstFit"], seed=1)
        >>> run.shares().round(2).tolist()
        [1.0, 0.0]
        """
        names = [p.name for p in self.portfolio]
        counts = np.bincount(self.log["policy"].to_numpy(np.int64), minlength=len(names))
        total = counts.sum()
        return pd.Series(counts / total if total else counts * 0.0, index=names, name="share")


def run_selections(state: E.CloudState, table: np.ndarray, codes: np.ndarray,
                   selection: TimeConstrainedSelection, every: float, start: np.ndarray,
                   score=None, rule=None) -> dict[str, list]:
    """Run ``state`` to the end, selecting a policy on every due tick (spec §6); returns the log.

    ``rule`` (a bound rule of :mod:`mopt.cloud.selection_rules`) decides whether a due tick
    selects and what it applies; without one, the papers' rule with ``score(planned)``, the online
    utility of each planned policy index at the current state
    (:class:`~mopt.cloud.selection_rules.Sc13Rule`). ``every`` is the selection period in seconds (0: never select); ``start``
    receives the jobs' start times.
    """
    log: dict[str, list] = {"time": [], "policy": [], "queue": [], "simulated": [], "utility": []}
    active = 0
    rule = Sc13Rule(score) if rule is None else rule

    def select(incumbent: int | None) -> int:
        if not rule.due():
            return incumbent
        chosen, value, simulated = rule.choose(selection, incumbent)
        log["time"].append(state.clock)
        log["policy"].append(chosen)
        log["queue"].append(state.queue_length)
        log["simulated"].append(simulated)
        log["utility"].append(value)
        return chosen

    if every > 0 and state.queue_length > 0 and state.clock % every == 0:
        active = select(None)
    while True:
        status = state.advance(table, codes[active], period=every, out_start=start)
        if status == E.SELECT:
            active = select(active)
        elif status == E.DONE:
            return log
        else:  # pragma: no cover - the engine refuses traces it cannot finish
            raise RuntimeError(f"the portfolio simulation stopped without finishing (status {status}).")


def simulate_portfolio(jobs: pd.DataFrame, portfolio="sc13", *, budget: int = 20,
                       ratio: float = 0.6, period: int = 1, seed: SeedLike = None,
                       boot_delay: float = 120, step: float = 20, max_vms: int = 256,
                       runtime: str = "actual", kappa: float = 100.0, alpha: float = 1.0,
                       beta: float = 1.0, drop_wide: bool = False,
                       vm_key: str = "mod", selection="sc13") -> PortfolioRun:
    """Simulate the portfolio scheduler over a job trace (spec §6).

    Parameters
    ----------
    jobs : pandas.DataFrame
        As for :func:`mopt.cloud.simulate`.
    portfolio : str or sequence of Policy or str
        ``"sc13"`` (60 policies), ``"jsspp"`` (10) or a list of policies (see
        :func:`mopt.cloud.portfolios.portfolio`).
    budget : int, default 20
        Δ, policies simulated per selection (SC13: 200 ms at 10 ms a simulation).
    ratio : float, default 0.6
        λ, the fraction of simulated policies kept as Smart.
    period : int, default 1
        Selection period in scheduling steps (SC13 Fig. 9: 1 to 16).
    seed : int, numpy.random.Generator or None
        Seeds Algorithm 1's random choice of Poor policies (the only randomness).
    boot_delay, step, max_vms, runtime, kappa, alpha, beta, drop_wide, vm_key
        As for :func:`mopt.cloud.simulate`; U's κ, α, β are also the selection criterion, and
        ``vm_key`` (BestFit / WorstFit's key) holds for the real run and every online simulation.
    selection : {"sc13", "mopt"} or MoptRule, default "sc13"
        The selection rule (:mod:`mopt.cloud.selection_rules`): the papers' (``"sc13"``, kept
        bit for bit for the reproductions) or mopt's own (``"mopt"``, ours; the default of
        ``mopt portfolio``), or a :class:`~mopt.cloud.selection_rules.MoptRule` with other
        parameters.

    Returns
    -------
    PortfolioRun

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0], "run_time": [600], "n_procs": [4]})
    >>> run = simulate_portfolio(df, ["ODX-FCFS-FirstFit", "ODA-FCFS-FirstFit"], seed=0)
    >>> float(run.log.time[0]), run.log.name[0], round(run.summary["utility"], 2)
    (0.0, 'ODA-FCFS-FirstFit', 13.89)
    """
    policies = as_portfolio(portfolio)
    rule = copy.copy(selection_rule(selection))  # bound to this run only
    check_vm_key(vm_key)
    budget = check_int("budget", budget, low=1)
    period = check_int("period", check_int("period", period, low=1), high=MAX_PERIOD)
    if isinstance(rule, MoptRule):
        rule.check()  # bad parameters fail before the trace is read
    algorithm1 = TimeConstrainedSelection(len(policies), budget, ratio, seed)
    table, frame, info, state = start_run(jobs, boot_delay=boot_delay, step=step, max_vms=max_vms,
                                          runtime=runtime, kappa=kappa, alpha=alpha, beta=beta,
                                          drop_wide=drop_wide)
    codes = np.array([p.loop_codes(vm_key) for p in policies], dtype=np.int64)
    every = period * float(step) if len(policies) > 1 else 0.0
    start = np.full(len(table), np.nan)

    rule.bind(state, table, codes, seed, {"kappa": kappa, "alpha": alpha, "beta": beta}, start)
    log = run_selections(state, table, codes, algorithm1, every, start, rule=rule)
    out, summary = run_result(table, frame, info, state, start, kappa=kappa, alpha=alpha, beta=beta)
    frame_log = pd.DataFrame(log)
    frame_log.insert(2, "name", [policies[i].name for i in log["policy"]])
    summary["selections"] = len(frame_log)
    summary["online_simulations"] = int(frame_log["simulated"].sum())
    return PortfolioRun(out, summary, None, info, portfolio=policies, log=frame_log)
