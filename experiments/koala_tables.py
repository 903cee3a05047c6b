"""KOALA-C Tables II and III (Fei et al., §V-A and §V-C1) on the available traces.

Run from the repository root (with ``MOPT_DATA_DIR`` pointing at the traces)::

    python experiments/koala_tables.py [--quick]

Table II: jobs of at most 32 processors (share of the cleaned trace: the records with a run time and
1..MaxProcs allocated processors), runtime mean and quartiles; for CTC-SP2 also the paper's version
of the file (the cleaned file plus the 2,080-job flurry the archive removed; see
``mopt.koala.traces``).
Table III: TAGS-chain's best limit and the share of short jobs at it. "Best" (spec §5): RR
dispatch, limits 5, 10, ..., 240 min, the limit of lowest mean slowdown for each chain count N
(1..10) whose offered load is < 1, the median over those N; where no N has load < 1 (LCG), the
argmin at N = 10, an overload result. Writes ``figures/koala_tables.md`` and the sweep as
``figures/koala_sweep.csv`` (``koala_fig3.py`` reuses KTH-SP2's rows).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from koala_common import (
    FIGURES,
    LIMITS,
    PAPER_TABLE_II,
    PAPER_TABLE_III,
    TRACES,
    load,
    markdown_table,
    report,
    sweep,
    trace,
    write_csv,
)  # fmt: skip

from mopt.koala.traces import PAPER_VERSION_REMOVED, removed_jobs, short_share

#: runtime (s) given to the removed flurry jobs when rebuilding the paper's CTC-SP2 file: the jobs of
#: user 135 just before the removed range ran 43-52 s on one processor (an assumption, stated)
FLURRY_RUNTIME = 48.0


def table_ii() -> pd.DataFrame:
    rows = []
    for name in TRACES + tuple(f"{n} (paper's file)" for n in TRACES if n in PAPER_VERSION_REMOVED):
        base = name.split(" (")[0]
        jobs = trace(base)
        minutes = jobs["run_time"] / 60
        if base != name:  # the archive's removed jobs put back, FLURRY_RUNTIME each
            extra = removed_jobs(jobs)
            minutes = pd.concat([minutes, pd.Series([FLURRY_RUNTIME / 60] * extra)], ignore_index=True)
            jobs = jobs.copy()
            jobs.attrs["cleaning"] = {**jobs.attrs["cleaning"], "cleaned": jobs.attrs["cleaning"]["cleaned"] + extra}
        q = minutes.quantile([0.25, 0.5, 0.75, 0.99]).to_numpy()
        paper = PAPER_TABLE_II[base]
        rows.append({
            "trace": name, "jobs": len(minutes), "share %": 100 * len(minutes) / jobs.attrs["cleaning"]["cleaned"],
            "mean": minutes.mean(), "Q1": q[0], "median": q[1], "Q3": q[2], "p99": q[3],
            "paper": f"{paper[0]}K ({paper[1] if paper[1] else '-'} %), {paper[2]}, {paper[3]}, {paper[4]}, "
                     f"{paper[5]}, {paper[6]:,}",
            "load 1 chain": load(jobs, 64), "load 3 clusters": load(jobs, 96), "load 5 sites": load(jobs, 288),
        })  # fmt: skip
    return pd.DataFrame(rows)


def best_limits(sw: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for name, g in sw.groupby("trace", sort=False):
        best = g.loc[g.groupby("chains")["slowdown"].idxmin()].set_index("chains")
        under = best[best["load"] < 1]
        if len(under):
            limit, basis = float(np.median(under["limit_min"])), f"median over N = {list(under.index)}"
        else:
            limit, basis = float(best.loc[best.index.max(), "limit_min"]), f"overload: N = {best.index.max()}"
        jobs = trace(name)
        extra = removed_jobs(jobs) if name in PAPER_VERSION_REMOVED else 0
        paper_limit, paper_share = PAPER_TABLE_III[name]
        at_paper = g[g["limit_min"] == paper_limit].set_index("chains")["slowdown"]
        used = under.index if len(under) else best.index[-1:]
        ratio = float(np.median(at_paper.loc[used] / best.loc[used, "slowdown"])) if paper_limit in LIMITS else np.nan
        rows.append({"trace": name, "best limit": limit, "paper limit": paper_limit,
                     "short % at best": short_share(jobs, 60 * limit),
                     "short % at paper limit": short_share(jobs, 60 * paper_limit),
                     "paper's file": short_share(jobs, 60 * paper_limit, removed_short=extra) if extra else np.nan,
                     "paper short %": paper_share, "slowdown at paper limit / best": ratio,
                     "argmin per N": ", ".join(f"{n}:{int(v)}" for n, v in best["limit_min"].items()),
                     "basis": basis})
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a coarse sweep (tests)")
    parser.add_argument("--replot", action="store_true", help="reuse figures/koala_sweep.csv")
    args = parser.parse_args()
    begin = time.perf_counter()
    t2 = table_ii()
    limits = LIMITS[::8] if args.quick else LIMITS
    parts = [pd.read_csv(FIGURES / "koala_sweep.csv")] if args.replot else []
    for name in [] if args.replot else TRACES:
        chains = [n for n in range(1, 11) if t2.set_index("trace").loc[name, "load 1 chain"] / n < 1] or [10]
        if args.quick:
            chains = chains[-1:]
        parts.append(sweep(name, chains, limits))
        print(f"{name}: swept N = {chains}", flush=True)
    sw = pd.concat(parts, ignore_index=True)
    if not (args.quick or args.replot):
        write_csv(sw, "koala_sweep")
    t3 = best_limits(sw)
    text = "\n".join([
        "# KOALA-C Tables II and III on the available traces",
        "",
        "Traces cleaned as in the paper (run time > 0, 1..MaxProcs processors), jobs of at most 32",
        "processors; LCG: the first 50,000 records. Times in minutes. Offered load = Σ size·runtime /",
        "span / nodes (one chain = 64 nodes, three clusters = 96, five sites = 288 at their maxima).",
        "",
        "## Table II",
        "",
        markdown_table(t2, {"share %": ".0f", "mean": ",.0f", "Q1": ",.0f", "median": ",.0f", "Q3": ",.0f",
                            "p99": ",.0f", "load 1 chain": ".2f", "load 3 clusters": ".2f", "load 5 sites": ".2f"}),
        "",
        "## Table III (TAGS-chain, RR dispatch, limits 5..240 min by 5" + (", quick" if args.quick else "") + ")",
        "",
        markdown_table(t3, {"best limit": ".1f", "short % at best": ".1f", "short % at paper limit": ".1f",
                            "paper's file": ".1f", "slowdown at paper limit / best": ".2f"}),
        "",
        "Short % at the paper's limit: of the cleaned archive file; \"paper's file\": CTC-SP2 with the",
        "2,080 jobs the archive removed (user 135's flurry of one-minute jobs) counted as short, the version",
        "whose Table II row the paper prints (74K jobs, mean 184 min). \"Slowdown at paper limit / best\":",
        "the mean slowdown at the paper's limit over the lowest one, median over the N used.",
        "",
        f"Swept {len(sw)} simulations" + (" (read back from figures/koala_sweep.csv)." if args.replot else
                                          f" in {time.perf_counter() - begin:.0f} s."),
    ])  # fmt: skip
    report("koala_tables_quick" if args.quick else "koala_tables", text)


if __name__ == "__main__":
    main()
