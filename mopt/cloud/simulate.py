"""Simulating one cloud scheduling policy over a trace (SC13, JSSPP; spec §2-5).

:func:`simulate` replays a job trace on a pool of leased VMs under a :class:`~mopt.cloud.Policy`
and returns a :class:`CloudRun`: per-job start, end, wait, response and bounded slowdown, and the
totals R_J, R_V, utilisation, mean BSD, U and charged VM-hours. The event loop is compiled
(:mod:`mopt.cloud.engine`); this module checks the input and prepares the arrays.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mopt.cloud import engine as E
from mopt.cloud.policies import RUNTIMES, Policy, check_vm_key
from mopt.core.errors import InputError, check_number
from mopt.core.inputs import suggest

__all__ = ["CloudRun", "simulate", "prepare_jobs", "utility"]

from mopt.workloads.swf import MAX_TIME  # the one bound of every trace reader (about 31,700 years)

#: the most VMs a cloud may lease (ours, 390 x SC13's 256): the engine holds a row per VM slot
MAX_VMS = 100_000
#: the longest portfolio selection period in ticks (ours): a period of 20 s ticks past MAX_TIME
#: would advance the clock where float64 no longer tells ticks apart
MAX_PERIOD = 1_000_000_000

_KEEP = ("job_id", "submit_time", "run_time", "n_procs", "req_time", "user_id")


@dataclass
class CloudRun:
    """Result of :func:`simulate`.

    Attributes
    ----------
    jobs : pandas.DataFrame
        One row per simulated job, sorted by submit time: ``job_id``, ``submit``, ``run``,
        ``n_procs``, ``start``, ``end``, ``wait``, ``response``, ``bsd``.
    summary : dict
        ``R_J`` (Σ n_i·run_i, VM-seconds), ``R_V`` (charged VM-seconds), ``utilisation``
        (R_J / R_V), ``bsd`` (mean bounded slowdown), ``utility`` (U), ``vm_hours`` (charged),
        ``n_jobs``, ``dropped`` (jobs wider than the cap dropped on request) and
        ``missing_req_time`` (jobs without a requested time, given the largest requested before
        them: :func:`known_request`).
    policy : Policy
    """

    jobs: pd.DataFrame
    summary: dict
    policy: Policy
    info: dict = field(default_factory=dict)


def utility(r_j: float, r_v: float, mean_bsd: float, *, kappa: float = 100.0, alpha: float = 1.0,
            beta: float = 1.0) -> float:
    """U = κ·(R_J / R_V)^α·(1 / mean BSD)^β (SC13, spec §5).

    Examples
    --------
    >>> round(utility(2400, 14400, 1.2), 2)  # spec §5's one-job check
    13.89
    """
    check_number("kappa", kappa, low=0)
    check_number("alpha", alpha, low=0)
    check_number("beta", beta, low=0)
    return float(E.utility(float(r_j), float(r_v), float(mean_bsd), kappa, alpha, beta))


def _as_policy(policy) -> Policy:
    from mopt.cloud.portfolios import PORTFOLIO_NAMES

    if isinstance(policy, Policy):
        return policy
    portfolio = (isinstance(policy, str) and policy.strip().lower() in PORTFOLIO_NAMES
                 or isinstance(policy, (list, tuple)))
    if portfolio:  # a portfolio runs in the sibling function
        shown = repr(policy) if isinstance(policy, str) else f"a list of {len(policy)} policies"
        raise InputError(f"'policy' must be one policy; got the portfolio {shown}: run a "
                         f"portfolio with mopt.cloud.simulate_portfolio(jobs, portfolio, "
                         f"budget=20, period=1, seed=...).")
    if isinstance(policy, str):
        return Policy(policy)
    raise InputError(f"'policy' must be a Policy or a name like 'ODA-UNICEF-FirstFit'; "
                     f"got {policy!r}.")


#: the request assumed for a job without one when no job before it requested a time (ours)
DEFAULT_REQUEST = 3600.0


def known_request(req: np.ndarray) -> np.ndarray:
    """Requested times in submit order, each missing one (<= 0) replaced by the largest time
    requested by a job submitted before it (:data:`DEFAULT_REQUEST` if none): ours, so that a
    scheduler without actual runtimes never sees one before the job has run (spec §4's fallback
    to the actual runtime would leak it).

    Examples
    --------
    >>> known_request(np.array([-1.0, 600.0, -1.0, 300.0, 0.0])).tolist()
    [3600.0, 600.0, 600.0, 300.0, 600.0]
    """
    req = np.asarray(req, dtype=np.float64)
    seen = np.maximum.accumulate(np.where(req > 0, req, -np.inf))
    before = np.concatenate([[-np.inf], seen[:-1]])
    return np.where(req > 0, req, np.where(before > 0, before, DEFAULT_REQUEST))


def prepare_jobs(jobs: pd.DataFrame, *, max_vms: int = 256, runtime: str = "actual",
                 drop_wide: bool = False) -> tuple[np.ndarray, pd.DataFrame, dict]:
    """Check a trace and turn it into the engine's job table.

    Returns ``(table, frame, info)``: the float array of :func:`mopt.cloud.engine.job_table`,
    the kept jobs sorted by submit time (stable), and counts (``dropped``, ``missing_req_time``,
    ``n_users``).

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0, 5], "run_time": [600, 30], "n_procs": [4, 1]})
    >>> table, frame, info = prepare_jobs(df)
    >>> table.shape, info["dropped"]
    ((2, 6), 0)
    """
    if not isinstance(jobs, pd.DataFrame):
        raise InputError(f"'jobs' must be a pandas DataFrame of SWF columns; got {type(jobs).__name__}.")
    for col in ("submit_time", "run_time", "n_procs"):
        if col not in jobs.columns:
            raise InputError(f"'jobs' has no column {col!r} (needs submit_time, run_time, n_procs).")
    if len(jobs) == 0:
        raise InputError("'jobs' is empty: the trace holds no job to simulate.")
    if runtime not in RUNTIMES:
        raise InputError(f"'runtime' must be one of {', '.join(RUNTIMES)}; got {runtime!r}"
                         f"{suggest(runtime, RUNTIMES) or '.'}")
    frame = jobs.reset_index(drop=True)
    if "job_id" not in frame.columns:
        frame = frame.assign(job_id=np.arange(1, len(frame) + 1))
    for col, default in (("req_time", -1), ("user_id", -1)):
        if col not in frame.columns:
            frame = frame.assign(**{col: default})
    frame = frame.loc[:, list(_KEEP)]
    values = frame.to_numpy(dtype=np.float64)
    if not np.isfinite(values).all():
        raise InputError("'jobs' holds NaN or infinite values; clean the trace first.")
    huge = (frame[["submit_time", "run_time", "req_time"]].abs() > MAX_TIME).any(axis=1)
    if huge.any():
        raise InputError(f"'jobs' has {int(huge.sum())} jobs with a submit_time, run_time or "
                         f"req_time beyond {MAX_TIME:.0e} s; 20 s ticks cannot be told apart "
                         f"there.")
    bad = (frame["run_time"] <= 0) | (frame["n_procs"] <= 0) | (frame["submit_time"] < 0)
    if bad.any():
        raise InputError(f"'jobs' has {int(bad.sum())} jobs with run_time <= 0, n_procs <= 0 or a "
                         f"negative submit_time; clean the trace first (mopt.workloads.clean).")
    wide = frame["n_procs"] > max_vms
    dropped = int(wide.sum())
    if dropped and not drop_wide:
        raise InputError(f"{dropped} jobs need more than 'max_vms'={max_vms} VMs and could never "
                         f"run; raise the cap or drop them (drop_wide=True).")
    frame = frame.loc[~wide].sort_values("submit_time", kind="stable").reset_index(drop=True)
    if len(frame) == 0:
        raise InputError(f"'jobs': every job is wider than 'max_vms'={max_vms}; nothing to simulate.")
    run = frame["run_time"].to_numpy(np.float64)
    req = frame["req_time"].to_numpy(np.float64)
    missing = int((req <= 0).sum())
    if runtime != "actual":  # a missing request is replaced by what is known when it is submitted
        req = known_request(req)
    est = req if runtime != "actual" else run
    users, user = np.unique(frame["user_id"].to_numpy(), return_inverse=True)
    user = np.where(frame["user_id"].to_numpy() < 0, -1, user)
    table = E.job_table(frame["submit_time"], run, req, frame["n_procs"], user, est)
    info = {"dropped": dropped, "missing_req_time": missing if runtime != "actual" else 0,
            "n_users": len(users)}
    return table, frame, info


def simulate(jobs: pd.DataFrame, policy: Policy | str, *, boot_delay: float = 120,
             step: float = 20, max_vms: int = 256, runtime: str = "actual", kappa: float = 100.0,
             alpha: float = 1.0, beta: float = 1.0, drop_wide: bool = False,
             progress: bool = False, vm_key: str = "mod") -> CloudRun:
    """Simulate one policy over a job trace (spec §2-5).

    Parameters
    ----------
    jobs : pandas.DataFrame
        Jobs with SWF columns ``submit_time``, ``run_time``, ``n_procs`` (and optionally
        ``job_id``, ``req_time``, ``user_id``), e.g. from :func:`mopt.cloud.load_trace`.
    policy : Policy or str
        E.g. ``"ODA-UNICEF-FirstFit"``.
    boot_delay : float, default 120
        Seconds from a VM's lease until it is usable (SC13 120 s; JSSPP 240 s).
    step : float, default 20
        Scheduling tick in seconds; decisions happen only at multiples of it.
    max_vms : int, default 256
        Cap on leased VMs (booting, idle or busy).
    runtime : {"actual", "user", "predicted"}
        Runtime information the policies see (the simulation always runs actual runtimes).
    kappa, alpha, beta : float
        Utility U = κ·(R_J/R_V)^α·(1/BSD)^β.
    drop_wide : bool, default False
        Drop jobs wider than ``max_vms`` (their count goes to ``summary["dropped"]``) instead of
        refusing the trace.
    progress : bool, default False
        A progress bar on stderr (jobs submitted so far), for long traces.
    vm_key : {"mod", "binpack"}, default "mod"
        BestFit / WorstFit's key (spec §3; :mod:`mopt.cloud.policies`): ``"mod"``, the leftover
        of the last paid hour ``(r_v - t_j) mod 3600``; ``"binpack"``, the signed
        ``r_v - t_j`` (bin packing in the paid time). FirstFit is the same under both.

    Returns
    -------
    CloudRun

    Examples
    --------
    >>> df = pd.DataFrame({"submit_time": [0], "run_time": [600], "n_procs": [4]})
    >>> run = simulate(df, "ODA-FCFS-FirstFit")
    >>> run.jobs.loc[0, ["start", "wait", "bsd"]].tolist()
    [120.0, 120.0, 1.2]
    >>> round(run.summary["utility"], 2), run.summary["R_V"]
    (13.89, 14400.0)
    """
    policy = _as_policy(policy)
    check_vm_key(vm_key)
    table, frame, info, state = start_run(jobs, boot_delay=boot_delay, step=step, max_vms=max_vms,
                                          runtime=runtime, kappa=kappa, alpha=alpha, beta=beta,
                                          drop_wide=drop_wide)
    start = np.full(len(table), np.nan)
    status = _run(state, table, policy, policy.loop_codes(vm_key), start, progress)
    if status != E.DONE:  # pragma: no cover - guarded by the width check
        raise RuntimeError(f"the cloud simulation stopped without finishing (status {status}).")
    out, summary = run_result(table, frame, info, state, start, kappa=kappa, alpha=alpha, beta=beta)
    return CloudRun(out, summary, policy, info)


def start_run(jobs: pd.DataFrame, *, boot_delay: float, step: float, max_vms: int, runtime: str,
              kappa: float, alpha: float, beta: float, drop_wide: bool):
    """Check the arguments of :func:`simulate` and return ``(table, frame, info, state)``: the
    engine's job table, the kept jobs, counts and the state at the first tick (shared with the
    portfolio scheduler)."""
    boot_delay = check_number("boot_delay", boot_delay, low=0, high=MAX_TIME)
    step = check_number("step", step, low=0, low_open=True, high=3600)
    if isinstance(max_vms, bool) or not isinstance(max_vms, numbers.Integral) or not 1 <= max_vms <= MAX_VMS:
        raise InputError(f"'max_vms' must be an integer in [1, {MAX_VMS}]; got {max_vms!r}.")
    for name, value in (("kappa", kappa), ("alpha", alpha), ("beta", beta)):
        check_number(name, value, low=0)
    table, frame, info = prepare_jobs(jobs, max_vms=int(max_vms), runtime=runtime,
                                      drop_wide=drop_wide)
    mode = RUNTIMES.index(runtime)
    state = E.CloudState.start(table, step=step, boot_delay=boot_delay, max_vms=int(max_vms),
                               n_users=info["n_users"], runtime=mode)
    return table, frame, info, state


def run_result(table, frame, info, state, start, *, kappa: float, alpha: float, beta: float):
    """The per-job table and the totals of a finished run (shared with the portfolio scheduler)."""
    run = table[:, E.J_RUN]
    submit = table[:, E.J_SUB]
    wait = start - submit
    out = pd.DataFrame({
        "job_id": frame["job_id"].to_numpy(), "submit": submit, "run": run,
        "n_procs": frame["n_procs"].to_numpy(), "start": start, "end": start + run, "wait": wait,
        "response": wait + run, "bsd": np.maximum(1.0, (wait + run) / np.maximum(run, 10.0)),
    })
    r_j = float(np.sum(table[:, E.J_N] * run))
    r_v = state.paid
    mean_bsd = float(out["bsd"].mean())
    summary = {
        "R_J": r_j, "R_V": r_v, "utilisation": r_j / r_v if r_v > 0 else math.nan,
        "bsd": mean_bsd, "utility": utility(r_j, r_v, mean_bsd, kappa=kappa, alpha=alpha,
                                            beta=beta),
        "vm_hours": r_v / 3600.0, "n_jobs": len(out), "dropped": info["dropped"],
        "missing_req_time": info["missing_req_time"],
    }
    return out, summary


def _run(state, table, policy, codes, start, progress: bool) -> int:
    """Advance to the end under ``codes`` (the loop's, :meth:`Policy.loop_codes`), in 100 slices
    of the submit span when a progress bar is shown."""
    if not progress:
        return state.advance(table, codes, out_start=start)
    import sys

    from mopt.core.bars import tqdm_class

    tqdm = tqdm_class()

    first, last = table[0, E.J_SUB], table[-1, E.J_SUB]
    with tqdm(total=len(table), unit="job", desc=policy.name, leave=False, file=sys.stderr,
              mininterval=0.1 if sys.stderr.isatty() else 10.0) as bar:
        for k in range(1, 101):
            status = state.advance(table, codes, out_start=start,
                                   until=first + (last - first) * k / 100)
            bar.update(int(state.sc[E.S_NEXT]) - bar.n)
            if status == E.DONE:
                return status
    return state.advance(table, codes, out_start=start)
