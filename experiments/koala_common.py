"""Shared pieces of the KOALA-C experiments (``experiments/koala_*.py``): traces, loads, sweeps."""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from _common import FIGURES, axis_label, markdown_table, plain_log_ticks, plt, report  # noqa: E402, F401

from mopt.core.result import atomic_write  # noqa: E402
from mopt.koala import TagsChain, koala_trace, multicluster, simulate  # noqa: E402
from mopt.koala.traces import PAPER_TRACES  # noqa: E402

TRACES = tuple(PAPER_TRACES)
#: Table III of the paper: TAGS-chain's best limit (min) and the share of short jobs at it (%)
PAPER_TABLE_III = {"KTH-SP2": (25, 55), "CTC-SP2": (125, 69), "SDSC-BLUE": (55, 87), "LCG": (20, 69)}
#: Table II of the paper: jobs (thousands), share, mean, Q1, median, Q3, p99 (minutes)
PAPER_TABLE_II = {
    "KTH-SP2": (27, 96, 149, 1, 14, 164, 1323), "CTC-SP2": (74, 94, 184, 2, 16, 223, 1081),
    "SDSC-BLUE": (175, 76, 46, 1, 2, 14, 961), "LCG": (50, None, 113, 2, 4, 27, 2901),
}  # fmt: skip
LIMITS = tuple(range(5, 241, 5))  # minutes
SEED = 1
_CACHE: dict = {}


def trace(name: str) -> pd.DataFrame:
    if name not in _CACHE:
        _CACHE[name] = koala_trace(name)
    return _CACHE[name]


def load(jobs: pd.DataFrame, nodes: int) -> float:
    """Offered load: Σ size·runtime / trace span / nodes (spec §4)."""
    span = jobs["submit_time"].max() - jobs["submit_time"].min()
    return float((jobs["n_procs"] * jobs["run_time"]).sum() / span / nodes)


def chain_run(jobs, limit_min: float, n_chains: int, dispatch: str = "RR", seed: int = SEED,
              blocking: bool = True) -> dict:
    """One TAGS-chain run on ``multicluster(n_chains)``; ``blocking=True`` (TagsChain's default): each
    site serves its queue in strict FCFS order (the paper's §IV-B)."""
    policy = TagsChain([limit_min * 60.0, math.inf], n_chains=n_chains, dispatch=dispatch, blocking=blocking)
    return simulate(jobs, policy, multicluster(n_chains), seed=seed).summary


def sweep(name: str, chains, limits=LIMITS, dispatch: str = "RR", seeds=(SEED,), blocking: bool = True) -> pd.DataFrame:
    """TAGS-chain mean slowdown over limits x chain counts (x seeds for RND); strict FCFS at each
    site unless ``blocking=False``."""
    jobs = trace(name)
    rows = []
    for n in chains:
        for limit in limits:
            for seed in seeds:
                s = chain_run(jobs, limit, n, dispatch, seed, blocking)
                rows.append({"trace": name, "chains": n, "limit_min": limit, "dispatch": dispatch, "seed": seed,
                             "blocking": blocking, "load": load(jobs, 64 * n), "slowdown": s["slowdown"],
                             "slowdown_short": s["slowdown_short"], "slowdown_long": s["slowdown_long"],
                             "wait_short": s["wait_short"], "wait_long": s["wait_long"]})
    return pd.DataFrame(rows)


def write_csv(df: pd.DataFrame, name: str) -> None:
    atomic_write(FIGURES / f"{name}.csv", lambda p: df.to_csv(p, index=False))


def save_figure(fig, name: str) -> Path:
    """Write ``figures/<name>.png`` atomically (the format named, since the temporary file is not .png)."""
    path = FIGURES / f"{name}.png"
    atomic_write(path, lambda p: fig.savefig(p, dpi=120, format="png"))
    plt.close(fig)
    return path
