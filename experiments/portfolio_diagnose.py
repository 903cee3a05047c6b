"""Why the portfolio loses to its best constituent: the selection rule of spec §6 against other
readings, as diagnostics only (the library implements spec §6's window utility).

    python experiments/portfolio_diagnose.py [--trace KTH-SP2] [--max-jobs 4000] [--budget 60]

Each variant scores a candidate policy at a selection instant from a copy of the real state:

- ``window`` (spec §6): U over the window, from now until the queued jobs have finished, with no
  future arrivals: R_J and R_V from now on, BSD of the queued jobs;
- ``cumulative``: U of the whole run so far plus that window (R_J, R_V and the BSD of every job
  started so far, plus the window's), i.e. the utility the run would end with if no job came;
- ``window+next H`` / ``cumulative+next H``: as above, but the copy also receives the jobs the trace
  submits in the next H seconds (clairvoyant: the real scheduler cannot know them);
- ``window+replayed past H`` (``--replay``): the copy receives the jobs submitted in the last H
  seconds again, shifted H later (a forecast a real scheduler could make: the next hour looks
  like the last).

It prints, per variant, the final U, utilisation, mean BSD, VM-hours and the provisioning shares,
beside every SC13 policy's own run; writes ``figures/portfolio_diagnose_<trace>.md``. Actual
runtimes only. With H = 0 the ``window`` scorer recomputes what the compiled
:func:`mopt.cloud.online.online_scores` gives (checked at every selection, to 1e-9) and then
uses the compiled values, so that exact ties between policies break as in the library (they
differ in the last bits otherwise, which on the first 5,000 LPC-EGEE jobs changed a tie-break at
selection 384 and the final U by 0.06 %); the ``window`` run's summary is checked against
:func:`mopt.cloud.simulate_portfolio` (same Δ, seed).

Provisioning statistics at the selections (ours, to test the under-provisioning reading):
``queue`` the mean number of queued jobs, ``short_vms`` the mean of queued processors minus idle
and booting VMs (the unmet demand when the policy is chosen), ``lease_now`` the share of
selections whose chosen policy leases at least one VM at that tick (in its candidate simulation),
``best_would`` the share at which the best constituent alone would have leased (when simulated).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from _common import markdown_table, report

from mopt.cloud import engine as E
from mopt.cloud import portfolio, simulate
from mopt.cloud.online import online_scores
from mopt.cloud.portfolio_scheduler import run_selections, simulate_portfolio
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.simulate import run_result, start_run
from mopt.workloads import load_trace

SEED = 1
CLOUD = {"boot_delay": 120, "step": 20, "max_vms": 256, "runtime": "actual", "kappa": 100.0,
         "alpha": 1.0, "beta": 1.0, "drop_wide": False}


def _totals(sc: np.ndarray) -> tuple[float, float, float, float]:
    return sc[E.S_BUSY], sc[E.S_PAID], sc[E.S_BSD], sc[E.S_STARTED]


def variant_scorer(state: E.CloudState, table: np.ndarray, codes: np.ndarray, mode: str,
                   horizon: float, replay: bool = False, stats: list | None = None):
    """``score(planned)`` for :func:`run_selections`: ``mode`` 'window' or 'cumulative'; with
    ``horizon`` > 0 the copy also receives the next ``horizon`` seconds of the trace's arrivals,
    or with ``replay`` the arrivals of the last ``horizon`` seconds again, shifted by ``horizon``
    (a forecast the real scheduler could make). ``stats`` (a list) receives per call the queue,
    the unmet demand and each planned policy's VMs leased at this tick (-1: its copy finished
    within the tick)."""
    submit = table[:, E.J_SUB]

    def score(planned: list[int]) -> np.ndarray:
        t = state.clock
        nv = int(state.sc[E.S_NV])
        nq0 = state.queue_length
        free = float(np.sum((state.vms[:nv, E.V_READY] > t) | (state.vms[:nv, E.V_SLOT] < 0)))
        leases: dict[int, int] = {}
        elapsed = float(np.sum(t - state.vms[:nv, E.V_LEASE]))
        live = state.running[:, E.R_ACTIVE] > 0
        remaining = float(np.sum(state.running[live, E.R_N] * (state.running[live, E.R_END] - t)))
        busy0, paid0, bsd0, n0 = _totals(state.sc)
        arrived = int(state.sc[E.S_NEXT])
        if replay:
            past = table[int(np.searchsorted(submit, t - horizon, side="right")):arrived].copy()
            past[:, E.J_SUB] += horizon
            view_table = np.vstack([table[:arrived], past])
        else:
            k = int(np.searchsorted(submit, t + horizon, side="right")) if horizon > 0 else 0
            view_table = table[:max(k, arrived)]
        out = np.empty(len(planned))
        nq = state.queue_length
        rows = max(nq + len(view_table) - int(state.sc[E.S_NEXT]), 1)  # room for the arrivals
        for i, p in enumerate(planned):
            queue = np.zeros((rows, state.queue.shape[1]))
            queue[:nq] = state.queue[:nq]
            copy = E.CloudState(state.sc.copy(), queue, state.running.copy(), state.vms.copy(),
                                state.hist.copy())
            copy.sc[E.S_ARRIVALS] = 1.0 if horizon > 0 else 0.0
            # one tick first, to read the VMs this policy leases now (the split is exact)
            if copy.advance(view_table, codes[p], until=t + CLOUD["step"]) == E.DONE:
                leases[p] = -1
            else:
                nv1 = int(copy.sc[E.S_NV])
                leases[p] = int(np.sum(copy.vms[:nv1, E.V_LEASE] == t))
                copy.advance(view_table, codes[p])
            busy, paid, bsd, n = _totals(copy.sc)
            if mode == "window":  # from now on: the running jobs' remaining work, the VMs' unpaid time
                busy, paid, bsd, n = (busy - busy0 + remaining, paid - paid0 - elapsed, bsd - bsd0,
                                      n - n0)
            mean_bsd = bsd / n if n > 0 else 1.0
            out[i] = E.utility(busy, paid, mean_bsd, CLOUD["kappa"], CLOUD["alpha"], CLOUD["beta"])
        if mode == "window" and horizon == 0:  # the compiled online simulation agrees
            compiled = online_scores(state, table, codes[planned])[:, 0]
            np.testing.assert_allclose(out, compiled, rtol=1e-9)
            out = compiled  # the same values up to rounding; ties then break as in the library
        if stats is not None:
            short = float(np.sum(state.queue[:nq0, E.Q_N])) - free
            stats.append((nq0, short, leases))
        return out

    return score


def provisioning_stats(log: dict, stats: list, best: int) -> dict:
    """The statistics at the selections (module docstring); ``best``: the best constituent."""
    queue, short, leases = zip(*stats, strict=True)
    now = np.array([lz[c] for lz, c in zip(leases, log["policy"], strict=True)])
    known = now >= 0
    best_now = np.array([lz.get(best, -1) for lz in leases])
    asked = best_now >= 0
    return {"queue": float(np.mean(queue)), "short_vms": float(np.mean(short)),
            "lease_now": float(np.mean(now[known] > 0)) if known.any() else np.nan,
            "best_would": float(np.mean(best_now[asked] > 0)) if asked.any() else np.nan}


def run_variant(df: pd.DataFrame, mode: str, horizon: float, budget: int,
                replay: bool = False, best: int = 0) -> dict:
    policies = portfolio("sc13")
    codes = np.array([p.codes for p in policies], dtype=np.int64)
    table, frame, info, state = start_run(df, **CLOUD)
    start = np.full(len(table), np.nan)
    selection = TimeConstrainedSelection(len(policies), budget, 0.6, SEED)
    stats: list = []
    log = run_selections(state, table, codes, selection, CLOUD["step"], start,
                         variant_scorer(state, table, codes, mode, horizon, replay, stats))
    _, s = run_result(table, frame, info, state, start, kappa=100.0, alpha=1.0, beta=1.0)
    chosen = pd.Series([policies[i].provisioning for i in log["policy"]])
    shares = chosen.value_counts(normalize=True)
    future = ("+replayed past " if replay else "+next ") + f"{horizon / 3600:g} h"
    return {"variant": mode + (future if horizon else ""),
            "utility": s["utility"], "utilisation": s["utilisation"], "bsd": s["bsd"],
            "vm_hours": s["vm_hours"], "selections": len(log["time"]),
            "shares": ", ".join(f"{k} {100 * v:.0f} %" for k, v in shares.items()),
            **provisioning_stats(log, stats, best)}


def check_library(df: pd.DataFrame, row: dict, budget: int) -> None:
    """The ``window`` run equals the library's portfolio on the same jobs (same Δ and seed)."""
    lib = simulate_portfolio(df, "sc13", budget=budget, seed=SEED, **CLOUD).summary
    for key in ("utility", "utilisation", "bsd", "vm_hours", "selections"):
        np.testing.assert_allclose(row[key], lib[key], rtol=1e-12, err_msg=key)
    print("window run == simulate_portfolio:", {k: lib[k] for k in ("utility", "bsd", "vm_hours")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default="KTH-SP2")
    parser.add_argument("--max-jobs", type=int, default=4000)
    parser.add_argument("--budget", type=int, default=60)
    parser.add_argument("--horizons", nargs="+", type=float, default=[0, 3600, 21600])
    parser.add_argument("--modes", nargs="+", default=["window", "cumulative"])
    parser.add_argument("--replay", action="store_true",
                        help="horizons > 0 replay the past arrivals instead of the next ones")
    args = parser.parse_args()
    df = load_trace(args.trace, size_limit=64)
    if args.max_jobs:
        df = df.head(args.max_jobs).reset_index(drop=True)
    alone = pd.DataFrame([{"policy": p.name, **{k: simulate(df, p, **CLOUD).summary[k] for k in
                                                 ("utility", "utilisation", "bsd", "vm_hours")}}
                          for p in portfolio("sc13")]).sort_values("utility", ascending=False)
    best = [p.name for p in portfolio("sc13")].index(alone["policy"].iloc[0])
    rows = []
    for horizon in args.horizons:
        for mode in args.modes:
            t0 = time.perf_counter()
            rows.append(run_variant(df, mode, horizon, args.budget, args.replay and horizon > 0,
                                    best))
            rows[-1]["gain_pct"] = 100 * (rows[-1]["utility"] / alone["utility"].iloc[0] - 1)
            print(rows[-1], f"{time.perf_counter() - t0:.0f} s", flush=True)
            if mode == "window" and horizon == 0:
                check_library(df, rows[-1], args.budget)
    scope = f"{args.trace}, first {len(df):,} jobs" if args.max_jobs else f"{args.trace}, all jobs"
    lines = [f"### Selection-rule diagnostics: {scope}, Δ = {args.budget}, period 1, seed {SEED}", "",
             markdown_table(pd.DataFrame(rows), {"vm_hours": ",.0f", "gain_pct": "+.1f",
                                                  "queue": ".1f", "short_vms": ".1f",
                                                  "lease_now": ".2f", "best_would": ".2f"}), "",
             f"queue, short_vms, lease_now, best_would: at the selections (module docstring; "
             f"best_would for {alone['policy'].iloc[0]}).", "",
             "The best constituents alone:", "",
             markdown_table(alone.head(5), {"vm_hours": ",.0f"})]
    tag = f"_first{len(df)}" if args.max_jobs else ""
    report(f"portfolio_diagnose_{args.trace}{tag}" + ("_replay" if args.replay else ""),
           "\n".join(lines))


if __name__ == "__main__":
    main()
