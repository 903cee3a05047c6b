"""The portfolio against its constituents (SC13 Fig. 4 and 5): tables and a figure.

:func:`portfolio_versus` runs every policy of a portfolio alone over a trace and the portfolio
scheduler over the same trace, and returns one table: a row per constituent and a last row
``"portfolio"``, with U, mean bounded slowdown, charged VM-hours and utilisation, and the
portfolio's gain in U over each. :func:`best_by_provisioning` keeps the best constituent of each
provisioning group (SC13 Fig. 4's bars); :func:`plot_versus` draws both and the invocation shares.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.cloud.portfolio_scheduler import PortfolioRun, simulate_portfolio
from mopt.cloud.portfolios import portfolio as as_portfolio
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.selection_rules import selection_rule
from mopt.cloud.simulate import MAX_PERIOD, simulate
from mopt.core.errors import check_int
from mopt.core.random import SeedLike

__all__ = ["portfolio_versus", "best_by_provisioning", "plot_versus", "with_selections", "COLUMNS"]

#: columns of the table :func:`portfolio_versus` returns
COLUMNS = ("policy", "provisioning", "utility", "bsd", "vm_hours", "utilisation", "gain")


def _row(name: str, provisioning: str, summary: dict) -> dict:
    return {"policy": name, "provisioning": provisioning, "utility": summary["utility"],
            "bsd": summary["bsd"], "vm_hours": summary["vm_hours"],
            "utilisation": summary["utilisation"]}


def portfolio_versus(jobs: pd.DataFrame, portfolio="sc13", *, budget: int = 20, ratio: float = 0.6,
                     period: int = 1, seed: SeedLike = None, progress=None, executor=None,
                     selection="sc13", **cloud) -> tuple[pd.DataFrame, PortfolioRun]:
    """Every constituent alone and the portfolio scheduler over the same trace.

    Parameters
    ----------
    jobs : pandas.DataFrame
        The trace (e.g. :func:`mopt.cloud.load_trace`).
    portfolio, budget, ratio, period, seed, selection
        As for :func:`mopt.cloud.simulate_portfolio`.
    progress : callable, optional
        Called with the name of each run before it starts (in-process) or when it has finished
        (with ``executor``), e.g. a progress bar's update.
    executor : concurrent.futures.Executor or distributed.Client, optional
        Runs the constituents and the portfolio as separate tasks (the portfolio first, as it
        takes longest); the same table as in-process, as every run is deterministic.
    **cloud
        ``boot_delay``, ``step``, ``max_vms``, ``runtime``, ``kappa``, ``alpha``, ``beta``,
        ``drop_wide``, ``vm_key`` of :func:`mopt.cloud.simulate` (the portfolio's run takes them
        too).

    Returns
    -------
    table : pandas.DataFrame
        Columns :data:`COLUMNS`; the constituents in portfolio order, then ``"portfolio"``.
        ``gain`` = U(portfolio) / U(row) − 1 (SC13 §6.1 reports it against the best constituent).
    run : PortfolioRun
        The portfolio's run (its log gives the invocation shares).

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0, 30], "run_time": [600, 60], "n_procs": [4, 1]})
    >>> table, run = portfolio_versus(df, ["ODA-FCFS-FirstFit", "ODX-FCFS-FirstFit"], seed=0)
    >>> table["policy"].tolist()
    ['ODA-FCFS-FirstFit', 'ODX-FCFS-FirstFit', 'portfolio']
    >>> bool(table["utility"].iloc[-1] >= table["utility"].iloc[:-1].max())
    True
    """
    policies = as_portfolio(portfolio)
    TimeConstrainedSelection(len(policies), budget, ratio)  # bad input fails before any run
    check_int("period", check_int("period", period, low=1), high=MAX_PERIOD)
    selection_rule(selection)  # a bad rule name fails before any run
    options = {"budget": budget, "ratio": ratio, "period": period, "seed": seed,
               "selection": selection, **cloud}
    if executor is None:
        summaries = []
        for policy in policies:
            if progress is not None:
                progress(policy.name)
            summaries.append(_summary(jobs, policy, cloud))
        if progress is not None:
            progress("portfolio")
        run = simulate_portfolio(jobs, policies, **options)
    else:
        run, summaries = _in_tasks(executor, jobs, policies, options, cloud, progress)
    rows = [_row(p.name, p.provisioning, summary) for p, summary in zip(policies, summaries, strict=True)]
    rows.append(_row("portfolio", "portfolio", run.summary))
    table = pd.DataFrame(rows)
    table["gain"] = run.summary["utility"] / table["utility"] - 1.0
    return table, run


def _summary(jobs: pd.DataFrame, policy, cloud: dict) -> dict:
    """One constituent's run summary (in-process, or a task of an executor)."""
    return simulate(jobs, policy, **cloud).summary


def _in_tasks(executor, jobs, policies, options, cloud, progress):
    """The portfolio's run and every constituent's summary, each run a task of ``executor``."""
    from concurrent.futures import as_completed

    from mopt.core.execute import _dask_client

    client = _dask_client(executor)
    if client is not None:  # the trace is shipped to every worker once, not once per task
        jobs = client.scatter(jobs, broadcast=True)
        executor = client.get_executor()
    portfolio_task = executor.submit(simulate_portfolio, jobs, policies, **options)
    tasks = [executor.submit(_summary, jobs, policy, cloud) for policy in policies]
    names = {portfolio_task: "portfolio"} | {t: p.name for t, p in zip(tasks, policies, strict=True)}
    for done in as_completed(names):
        done.result()  # the first failure is raised here
        if progress is not None:
            progress(names[done])
    return portfolio_task.result(), [t.result() for t in tasks]


def best_by_provisioning(table: pd.DataFrame) -> pd.DataFrame:
    """The best constituent (highest U, the first on ties) of each provisioning group, in the
    table's order, then the portfolio row.

    Examples
    --------
    >>> t = pd.DataFrame({"policy": ["a", "b", "c", "portfolio"], "provisioning": ["ODA", "ODA",
    ...                   "ODB", "portfolio"], "utility": [1.0, 3.0, 2.0, 4.0]})
    >>> best_by_provisioning(t)["policy"].tolist()
    ['b', 'c', 'portfolio']
    """
    groups = table[table["policy"] != "portfolio"]
    order = list(dict.fromkeys(groups["provisioning"]))
    best = [groups.loc[groups.loc[groups["provisioning"] == g, "utility"].idxmax()] for g in order]
    return pd.concat([pd.DataFrame(best), table[table["policy"] == "portfolio"]]).reset_index(drop=True)


def with_selections(table: pd.DataFrame, run: PortfolioRun) -> pd.DataFrame:
    """``table`` with a column ``selected``: how many of the portfolio's selections chose each
    constituent (the portfolio row: all of them), so that :func:`plot_versus` can redraw the figure
    from the table alone (e.g. from a CSV file).

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0, 30], "run_time": [600, 60], "n_procs": [4, 1]})
    >>> table, run = portfolio_versus(df, ["ODA-FCFS-FirstFit", "ODX-FCFS-FirstFit"], seed=0)
    >>> counts = with_selections(table, run)["selected"]
    >>> int(counts.iloc[-1]) == len(run.log) == int(counts.iloc[:-1].sum())
    True
    """
    counts = np.bincount(run.log["policy"].to_numpy(np.int64), minlength=len(run.portfolio))
    out = table.copy()
    out["selected"] = [*counts.tolist(), len(run.log)]
    return out


def plot_versus(table: pd.DataFrame, run: PortfolioRun | None, path: str | os.PathLike, *,
                title: str = "") -> Path:
    """Write a figure: U of every constituent (coloured by provisioning) against the portfolio,
    the best of each provisioning group (SC13 Fig. 4) and the invocation shares (SC13 Fig. 5).

    ``run`` gives the invocation shares; without it (``None``) they come from the table's column
    ``selected`` (:func:`with_selections`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import PercentFormatter

    from mopt.plot import save_figure

    if run is not None:
        table = with_selections(table, run)
    elif "selected" not in table.columns:
        raise ValueError("plot_versus needs the portfolio's run, or a table with a column "
                         "'selected' (see with_selections)")
    cons = table[table["policy"] != "portfolio"].reset_index(drop=True)
    groups = list(dict.fromkeys(cons["provisioning"]))
    colour = {g: plt.cm.tab10(k % 10) for k, g in enumerate(groups)}
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6), gridspec_kw={"width_ratios": [3, 1.6, 3]})
    ax = axes[0]
    ax.bar(np.arange(len(cons)) + 1, cons["utility"], color=[colour[g] for g in cons["provisioning"]])
    ax.axhline(table["utility"].iloc[-1], color="k", ls="--", label="portfolio")
    ax.set_xlabel("constituent policy (number, in portfolio order)")
    ax.set_ylabel("utility U")
    ax.set_title("every constituent alone, and the portfolio", fontsize=9)
    handles = [plt.Rectangle((0, 0), 1, 1, color=colour[g]) for g in groups]
    ax.legend(handles + [ax.lines[0]], groups + ["portfolio"], fontsize=7, ncol=len(groups) + 1,
              loc="upper center", bbox_to_anchor=(0.5, -0.16), frameon=False)
    best = best_by_provisioning(table)
    ax = axes[1]  # horizontal bars: the policy names read across, the best on top
    y = np.arange(len(best))[::-1]
    ax.barh(y, best["utility"], color=[colour.get(g, "k") for g in best["provisioning"]])
    ax.set_yticks(y, best["policy"], fontsize=7)
    ax.set_xlabel("utility U")
    ax.set_title("best of each provisioning group", fontsize=9)
    ax = axes[2]
    total = float(table["selected"].iloc[-1])
    shares = cons["selected"] / total if total else cons["selected"] * 0.0
    ax.bar(np.arange(len(cons)) + 1, shares.to_numpy(), color=[colour[g] for g in cons["provisioning"]])
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("constituent policy (number, in portfolio order)")
    ax.set_ylabel("share of the portfolio's selections")
    ax.set_title(f"invocations ({int(total):,} selections)", fontsize=9)
    for a in (axes[0], axes[2]):
        a.set_xlim(0.3, len(cons) + 0.7)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    out = save_figure(fig, path)
    plt.close(fig)
    return out
