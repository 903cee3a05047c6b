"""Running a KOALA-C policy over a workload: :func:`simulate` and its result :class:`KoalaRun`.

Metrics (spec §3; the paper never defines slowdown, these are mopt's): a job's wait is the start of
its final run minus its submission (killed runs and re-queueing included), its slowdown
(wait + runtime) / runtime, unbounded, and its bounded slowdown max(1, (wait + runtime) / max(runtime,
10 s)). A job is *short* if its runtime is at most the TAGS limit (``short_limit``), long otherwise,
for every policy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number
from mopt.core.random import SeedLike, resolve_seed
from mopt.koala.engine import QueueTable, SiteTable, Workload, run_engine
from mopt.koala.environment import KINDS, Environment, offered_load
from mopt.koala.policies import Policy

__all__ = ["simulate", "KoalaRun", "job_table", "DEFAULT_SHORT_LIMIT", "BOUNDED_TAU"]

#: short/long split for policies without a limit (ours: the paper's TAGS-sets limit, 40 min)
DEFAULT_SHORT_LIMIT = 2400.0
#: the bound of the bounded slowdown (s)
BOUNDED_TAU = 10.0

_ALIASES = {"submit": "submit_time", "size": "n_procs", "runtime": "run_time", "user": "user_id"}


def job_table(jobs) -> pd.DataFrame:
    """The columns the simulator needs, from an SWF DataFrame or a table of ``submit, size, runtime``.

    Returns a DataFrame sorted by submission (stable) with ``submit``, ``size``, ``runtime``,
    ``user`` and ``req_time`` (``user`` 0 and ``req_time`` -1 when missing).

    Examples
    --------
    >>> job_table(pd.DataFrame({"submit": [5, 0], "size": [1, 2], "runtime": [10, 20]}))
       submit  size  runtime  user  req_time
    0     0.0     2     20.0     0      -1.0
    1     5.0     1     10.0     0      -1.0
    """
    if not isinstance(jobs, pd.DataFrame):
        raise InputError(f"'jobs' must be a DataFrame (read_swf's, or submit/size/runtime); got "
                         f"{type(jobs).__name__}.")
    out = {}
    for short, swf in (*_ALIASES.items(), ("req_time", "req_time")):
        col = short if short in jobs.columns else swf if swf in jobs.columns else None
        if col is None:
            if short in ("user", "req_time"):
                out[short] = np.full(len(jobs), 0 if short == "user" else -1.0)
                continue
            raise InputError(f"'jobs' must have a column {short!r} (or {swf!r}); got {list(jobs.columns)}.")
        out[short] = jobs[col].to_numpy()
    if len(jobs) == 0:
        raise InputError("'jobs' must hold at least one job; got 0.")
    table = pd.DataFrame(out)
    for col in ("submit", "runtime", "req_time"):
        values = pd.to_numeric(table[col], errors="coerce").astype(float)
        if not np.isfinite(values).all():
            raise InputError(f"'jobs' column {col!r} must hold finite numbers; row "
                             f"{int(np.flatnonzero(~np.isfinite(values))[0])} does not.")
        table[col] = values
    if (table["runtime"] <= 0).any():
        k = int(np.flatnonzero(table["runtime"].to_numpy() <= 0)[0])
        raise InputError(f"'jobs' runtimes must be > 0; row {k} has {table['runtime'].iloc[k]:g}.")
    size = pd.to_numeric(table["size"], errors="coerce").to_numpy(dtype=float)
    if not (np.isfinite(size) & (size >= 1) & (size == np.floor(size))).all():
        k = int(np.flatnonzero(~(np.isfinite(size) & (size >= 1) & (size == np.floor(size))))[0])
        raise InputError(f"'jobs' sizes must be integers >= 1; row {k} has {size[k]:g}.")
    table["size"] = size.astype(np.int64)
    table["user"] = pd.factorize(table["user"])[0].astype(np.int64)
    return table.sort_values("submit", kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class KoalaRun:
    """One simulation: per-job rows and the summary metrics.

    Attributes
    ----------
    jobs : pandas.DataFrame
        One row per job (submission order): ``submit, size, runtime, site`` (name of the final
        run's site), ``start, end, wait, slowdown, bounded_slowdown, short, restarts, wasted``
        (node-seconds of killed runs).
    summary : dict
        ``policy``, ``offered_load`` (Σ size·runtime / span / capacity of the whole environment),
        mean ``slowdown``/``wait`` overall and ``_short``/``_long``, ``bounded_slowdown``,
        ``public_cost``, ``makespan``, ``utilisation``, ``wasted_node_seconds``,
        ``wasted_cloud_seconds``, ``share_<site>`` (share of completed jobs), ``short_limit``.
    """

    jobs: pd.DataFrame
    summary: dict


def simulate(jobs, policy: Policy, environment: Environment, *, step: float = 30.0, seed: SeedLike = None,
             short_limit: float | None = None) -> KoalaRun:
    """Run ``policy`` over the workload ``jobs`` on ``environment`` (KOALA-C, spec ``koala.md``).

    Parameters
    ----------
    jobs : pandas.DataFrame
        A trace from :func:`mopt.cloud.read_swf` (or :func:`koala_trace`), or columns ``submit``,
        ``size``, ``runtime`` (optional ``user``, ``req_time``). Times in seconds.
    policy : Policy
        :class:`FF`, :class:`RR`, :class:`SJF`, :class:`SJFIdeal`, :class:`HSDF`, :class:`TagsChain`
        or :class:`TagsSets`.
    environment : Environment
    step : float
        Seconds between two passes of the scheduler (the paper's 30 s), in (0, 3600).
    seed : int, Generator or None
        Only TAGS-chain's RND dispatch draws random numbers.
    short_limit : float, optional
        Runtime that splits short from long jobs; default the policy's first TAGS limit, else 40 min.

    Returns
    -------
    KoalaRun

    Examples
    --------
    >>> import math
    >>> from mopt.koala import TagsChain, multicluster
    >>> jobs = pd.DataFrame({"submit": [0, 0], "size": [32, 32], "runtime": [600, 100]})
    >>> run = simulate(jobs, TagsChain([300, math.inf]), multicluster(1))
    >>> run.jobs[["site", "start", "end", "wait", "restarts"]].to_numpy().tolist()
    [['C2', 300.0, 900.0, 300.0, 1], ['C1', 300.0, 400.0, 300.0, 0]]
    """
    if not isinstance(policy, Policy):
        raise InputError(f"'policy' must be a KOALA-C policy (FF, RR, SJF, ...); got {type(policy).__name__}.")
    if not isinstance(environment, Environment):
        raise InputError(f"'environment' must be an Environment; got {type(environment).__name__}.")
    step = check_number("step", step, low=0, high=3600, low_open=True, high_open=True)
    if short_limit is None:
        short_limit = policy.short_limit if policy.short_limit is not None else DEFAULT_SHORT_LIMIT
    short_limit = check_number("short_limit", short_limit, low=0, allow_inf=True)
    table = job_table(jobs)
    queues = policy.queues(environment)
    rng = np.random.default_rng(resolve_seed(seed))
    entry = policy.entry(len(table), rng)
    _check_fits(table, queues, environment, entry)
    out = run_table(table, queues, environment, entry, step)
    return _result(table, out, policy.name, environment, short_limit)


def _site_table(env: Environment) -> SiteTable:
    sites = env.sites
    return SiteTable(np.array([KINDS.index(s.kind) for s in sites], dtype=np.int64),
                     np.array([s.size for s in sites], dtype=np.int64),
                     np.array([s.minimum for s in sites], dtype=np.int64),
                     np.array([s.price for s in sites], dtype=float),
                     np.array([s.boot for s in sites], dtype=float),
                     np.array([s.idle_release for s in sites], dtype=float))


def _check_fits(table: pd.DataFrame, queues, env: Environment, entry: np.ndarray) -> None:
    """Every job must fit a site of every queue it may reach, or it would wait forever."""
    size, runtime = table["size"].to_numpy(), table["runtime"].to_numpy()
    caps = np.array([s.size for s in env.sites])
    for q0 in np.unique(entry):
        mask = entry == q0
        q, passed = int(q0), np.zeros(len(table), dtype=bool)
        while q >= 0:
            reach = mask & ~passed
            largest = caps[list(queues.sites[q])].max()
            bad = reach & (size > largest)
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                names = [env.names[i] for i in queues.sites[q]]
                raise InputError(f"job {k} needs {size[k]} nodes but the largest site of queue {q + 1} "
                                 f"{names} has {largest}; drop such jobs (size_limit) or enlarge the sites.")
            passed |= runtime <= queues.limit[q]
            q = int(queues.next[q])


def run_table(table: pd.DataFrame, queues, env: Environment, entry: np.ndarray, step: float):
    """The engine's raw output for a :func:`job_table` (no checks; see :func:`run_engine`)."""
    ptr, idx = queues.flat()
    work = Workload(table["submit"].to_numpy(float), table["size"].to_numpy(np.int64),
                    table["runtime"].to_numpy(float), table["user"].to_numpy(np.int64),
                    table["req_time"].to_numpy(float), entry.astype(np.int64),
                    int(table["user"].max()) + 1)
    rules = QueueTable(ptr, idx, queues.limit.astype(float), queues.next.astype(np.int64),
                       queues.order.astype(np.int64), queues.select.astype(np.int64),
                       bool(queues.blocking))
    return run_engine(work, _site_table(env), rules, float(step))


def _result(table, out, name, env: Environment, short_limit: float) -> KoalaRun:
    site, start, end, restarts, wasted, totals, status = out
    if status:
        raise InputError("the simulation stalled: some jobs fit no site of their queue.")
    submit, runtime, size = (table[c].to_numpy() for c in ("submit", "runtime", "size"))
    wait = start - submit
    response = end - submit
    short = runtime <= short_limit
    jobs = pd.DataFrame({
        "submit": submit, "size": size, "runtime": runtime, "site": np.array(env.names, dtype=object)[site],
        "start": start, "end": end, "wait": wait, "slowdown": response / runtime,
        "bounded_slowdown": np.maximum(1.0, response / np.maximum(runtime, BOUNDED_TAU)), "short": short,
        "restarts": restarts, "wasted": wasted,
    })  # fmt: skip
    makespan = float(end.max() - submit.min())
    clusters = env.capacity("cluster")
    available = clusters * makespan + totals[1]
    summary = {
        "policy": name,
        "offered_load": offered_load(submit, size, runtime, env.capacity()),
        "n_jobs": len(jobs),
        "slowdown": float(jobs["slowdown"].mean()),
        "slowdown_short": _mean(jobs["slowdown"], short),
        "slowdown_long": _mean(jobs["slowdown"], ~short),
        "bounded_slowdown": float(jobs["bounded_slowdown"].mean()),
        "wait": float(wait.mean()),
        "wait_short": _mean(jobs["wait"], short),
        "wait_long": _mean(jobs["wait"], ~short),
        "public_cost": float(totals[0]),
        "makespan": makespan,
        "utilisation": float((size * runtime).sum() / available) if available > 0 else math.nan,
        "wasted_node_seconds": float(wasted.sum()),
        "wasted_cloud_seconds": float(totals[2]),
        "short_limit": float(short_limit),
    }
    counts = np.bincount(site, minlength=len(env))
    for k, s in enumerate(env.names):
        summary[f"share_{s}"] = float(counts[k] / len(jobs))
    return KoalaRun(jobs, summary)


def _mean(values: pd.Series, mask) -> float:
    return float(values[mask].mean()) if mask.any() else math.nan
