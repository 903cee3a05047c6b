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
:func:`mopt.cloud.engine.online_scores` gives (checked at every selection here).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from _common import markdown_table, report

from mopt.cloud import engine as E
from mopt.cloud import load_trace, portfolio, simulate
from mopt.cloud.online import online_scores
from mopt.cloud.portfolio_scheduler import run_selections
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.simulate import run_result, start_run

SEED = 1
CLOUD = {"boot_delay": 120, "step": 20, "max_vms": 256, "runtime": "actual", "kappa": 100.0,
         "alpha": 1.0, "beta": 1.0, "drop_wide": False}


def _totals(sc: np.ndarray) -> tuple[float, float, float, float]:
    return sc[E.S_BUSY], sc[E.S_PAID], sc[E.S_BSD], sc[E.S_STARTED]


def variant_scorer(state: E.CloudState, table: np.ndarray, codes: np.ndarray, mode: str,
                   horizon: float, replay: bool = False):
    """``score(planned)`` for :func:`run_selections`: ``mode`` 'window' or 'cumulative'; with
    ``horizon`` > 0 the copy also receives the next ``horizon`` seconds of the trace's arrivals,
    or with ``replay`` the arrivals of the last ``horizon`` seconds again, shifted by ``horizon``
    (a forecast the real scheduler could make)."""
    submit = table[:, E.J_SUB]

    def score(planned: list[int]) -> np.ndarray:
        t = state.clock
        nv = int(state.sc[E.S_NV])
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
        return out

    return score


def run_variant(df: pd.DataFrame, mode: str, horizon: float, budget: int,
                replay: bool = False) -> dict:
    policies = portfolio("sc13")
    codes = np.array([p.codes for p in policies], dtype=np.int64)
    table, frame, info, state = start_run(df, **CLOUD)
    start = np.full(len(table), np.nan)
    selection = TimeConstrainedSelection(len(policies), budget, 0.6, SEED)
    log = run_selections(state, table, codes, selection, CLOUD["step"], start,
                         variant_scorer(state, table, codes, mode, horizon, replay))
    _, s = run_result(table, frame, info, state, start, kappa=100.0, alpha=1.0, beta=1.0)
    chosen = pd.Series([policies[i].provisioning for i in log["policy"]])
    shares = chosen.value_counts(normalize=True)
    future = ("+replayed past " if replay else "+next ") + f"{horizon / 3600:g} h"
    return {"variant": mode + (future if horizon else ""),
            "utility": s["utility"], "utilisation": s["utilisation"], "bsd": s["bsd"],
            "vm_hours": s["vm_hours"], "selections": len(log["time"]),
            "shares": ", ".join(f"{k} {100 * v:.0f} %" for k, v in shares.items())}


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
    rows = []
    for horizon in args.horizons:
        for mode in args.modes:
            t0 = time.perf_counter()
            rows.append(run_variant(df, mode, horizon, args.budget, args.replay and horizon > 0))
            rows[-1]["gain_pct"] = 100 * (rows[-1]["utility"] / alone["utility"].iloc[0] - 1)
            print(rows[-1], f"{time.perf_counter() - t0:.0f} s", flush=True)
    scope = f"{args.trace}, first {len(df):,} jobs" if args.max_jobs else f"{args.trace}, all jobs"
    lines = [f"### Selection-rule diagnostics: {scope}, Δ = {args.budget}, period 1, seed {SEED}", "",
             markdown_table(pd.DataFrame(rows), {"vm_hours": ",.0f", "gain_pct": "+.1f"}), "",
             "The best constituents alone:", "",
             markdown_table(alone.head(5), {"vm_hours": ",.0f"})]
    tag = f"_first{len(df)}" if args.max_jobs else ""
    report(f"portfolio_diagnose_{args.trace}{tag}" + ("_replay" if args.replay else ""),
           "\n".join(lines))


if __name__ == "__main__":
    main()
