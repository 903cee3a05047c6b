"""Calibration of mopt's uncertainty (issues #22 and #33; :mod:`mopt.core.uncertainty`), measured.

On problems whose truth is known (:mod:`benchmarks.truths`), at n = 3, 5, 10, 30 and 100
replications of every design, over many macroreplications (independent seeds):

* a reliability table of P(non-dominated): designs reported with P in each decile must be truly
  efficient at that rate; the cell passes when every decile bin holding at least 100 designs has
  |observed - predicted| <= 0.05;
* the front's P(correct selection): its mean prediction against the observed frequency of "the
  reported front is the true efficient set"; the cell passes when they are within 0.05.

A cell where mopt prints no probability (NaN: too few replications to be calibrated) passes and
is shown as "not printed". Each macroreplication draws every design's replications from one seed
and computes what :func:`mopt.solve` would append (:func:`mopt.core.uncertainty.uncertainty_columns`).
Run from the repository root::

    PYTHONPATH=$PWD python benchmarks/calibration.py [--macroreps 400] [--expert-macroreps 200]
        [--truths synthetic,heteroscedastic,correlated+,correlated-,lognormal,expert] [--reps 3,5,10,30,100]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np
import pandas as pd

from benchmarks.truths import TRUTHS
from mopt.core.pareto import pareto_mask
from mopt.core.uncertainty import reliability, uncertainty_columns

#: a decile bin counts when it holds this many designs
MIN_BIN = 100
#: the tolerance of |observed - predicted|
TOLERANCE = 0.05


def mopt_method(samples: np.ndarray, rng) -> tuple[np.ndarray, float]:
    """``(p_nondominated, p_correct_selection)`` as mopt reports them, from (D, n, m) replications."""
    means = samples.mean(axis=1)
    n = samples.shape[1]
    ses = samples.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.full_like(means, np.nan)
    D, m = means.shape
    added, summary = uncertainty_columns(means, ses, np.full(D, n), np.arange(D), [f"f{j}" for j in range(m)],
                                         samples=list(samples), rng=rng)
    return added["p_nondominated"].to_numpy(), float(summary["p_correct_selection"])


def calibrate(problem, truth: np.ndarray, n_reps: int, macroreps: int, method=mopt_method, first_seed: int = 1000):
    """(per-design P and truth, per-run P(CS) and outcome) over ``macroreps`` seeds."""
    designs = np.arange(problem.n_designs)
    p_all, t_all, pcs, hit = [], [], [], []
    for k in range(macroreps):
        seed = first_seed + k
        samples = problem.replicate(designs, np.arange(n_reps), seed)
        p, p_cs = method(samples, np.random.default_rng([seed, 0x0CE7]))
        front = pareto_mask(samples.mean(axis=1))
        p_all.append(p)
        t_all.append(truth)
        pcs.append(p_cs)
        hit.append(bool((front == truth).all()))
    return np.concatenate(p_all), np.concatenate(t_all), np.array(pcs), np.array(hit)


def cell(name: str, n_reps: int, macroreps: int, method=mopt_method, *, quiet: bool = False) -> dict:
    """One cell of the grid: print its reliability table and verdict; return its summary row."""
    problem, truth = TRUTHS[name](n_reps)
    start = time.perf_counter()
    p, t, pcs, hit = calibrate(problem, truth, n_reps, macroreps, method)
    seconds = time.perf_counter() - start
    row = {"truth": name, "n": n_reps, "designs": len(truth), "macroreps": macroreps}
    observed = hit.mean()
    se = np.sqrt(observed * (1 - observed) / len(hit))
    if np.isnan(p).all():
        row.update(printed=False, worst_gap=np.nan, worst_bin="", pcs_predicted=np.nan, pcs_observed=observed,
                   pcs_se=se, ok=True)
        if not quiet:
            print(f"\n{name}, n={n_reps}: {macroreps} macroreplications, {len(truth)} designs ({seconds:.0f} s): "
                  f"no probability printed (observed P(CS) {observed:.3f})")
        return row
    table = reliability(p, t)
    big = table[table["n"] >= MIN_BIN]
    gaps = (big["observed"] - big["predicted"]).abs()
    worst = float(gaps.max()) if len(big) else np.nan
    worst_bin = str(big["bin"].iloc[int(np.argmax(gaps.to_numpy()))]) if len(big) else ""
    gap = float(pcs.mean() - observed)
    ok = bool((not len(big) or worst <= TOLERANCE) and abs(gap) <= TOLERANCE)
    row.update(printed=True, worst_gap=worst, worst_bin=worst_bin, pcs_predicted=float(pcs.mean()),
               pcs_observed=observed, pcs_se=se, ok=ok)
    if not quiet:
        print(f"\n{name}, n={n_reps}: {macroreps} macroreplications, {len(truth)} designs ({seconds:.0f} s)")
        print("P(non-dominated), reliability by decile:")
        print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        print(f"worst |observed - predicted| over bins with >= {MIN_BIN} designs: {worst:.3f} ({worst_bin})")
        print(f"P(correct selection): mean prediction {pcs.mean():.3f}, observed {observed:.3f} "
              f"(± {se:.3f} s.e.); gap {gap:+.3f}  -> {'ok' if ok else 'FAIL'}")
    return row


def markdown(rows: list[dict]) -> str:
    """The summary as a markdown table: one row per truth, one column per n; each cell
    ``worst decile gap / P(CS) predicted vs observed`` (bold when it fails), or "not printed"."""
    frame = pd.DataFrame(rows)
    ns = sorted(frame["n"].unique())
    lines = ["| truth | " + " | ".join(f"n = {n}" for n in ns) + " |", "|---|" + "---|" * len(ns)]
    for name in dict.fromkeys(frame["truth"]):
        cells = []
        for n in ns:
            r = frame[(frame["truth"] == name) & (frame["n"] == n)]
            if not len(r):
                cells.append("")
                continue
            r = r.iloc[0]
            if not r["printed"]:
                cells.append(f"not printed (P(CS) {r['pcs_observed']:.2f})")
                continue
            worst = "–" if np.isnan(r["worst_gap"]) else f"{r['worst_gap']:.3f}"
            text = f"{worst}; {r['pcs_predicted']:.2f} vs {r['pcs_observed']:.2f}"
            cells.append(text if r["ok"] else f"**{text}**")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--macroreps", type=int, default=400, help="macroreplications of the synthetic truths")
    ap.add_argument("--expert-macroreps", type=int, default=200, help="macroreplications of the ExPERT grid")
    ap.add_argument("--truths", default=",".join(TRUTHS))
    ap.add_argument("--reps", default="3,5,10,30,100")
    args = ap.parse_args(argv)
    rows = []
    for name in args.truths.split(","):
        if name not in TRUTHS:
            raise SystemExit(f"unknown truth {name!r} (known: {', '.join(TRUTHS)})")
        for n in (int(v) for v in args.reps.split(",")):
            rows.append(cell(name, n, args.expert_macroreps if name == "expert" else args.macroreps))
    print("\nsummary:")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"\nper cell: the worst |observed - predicted| P(non-dominated) over decile bins holding >= {MIN_BIN} "
          f"designs; mean predicted vs observed P(correct selection) (bold: beyond ±{TOLERANCE}):\n")
    print(markdown(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
