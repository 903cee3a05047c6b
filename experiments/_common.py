"""Shared pieces of the ExPERT experiment scripts: seed, searches, static strategies, tables, figures.

Not part of the library: the scripts in this folder import it by path (``python experiments/x.py``
puts this folder on ``sys.path``).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import mopt  # noqa: E402
from mopt.core.family import get_family  # noqa: E402
from mopt.core.result import atomic_write  # noqa: E402
from mopt.expert import STATIC_STRATEGIES, NTDMrProblem, estimate, reference_environment  # noqa: E402
from mopt.plot import plain_log_ticks  # noqa: E402

__all__ = [
    "SEED",
    "N_REPS",
    "FS_NOTE",
    "FIGURES",
    "STATICS",
    "PAPER_KNEE",
    "scenario",
    "search",
    "static_table",
    "dominated",
    "product",
    "markdown_table",
    "report",
    "save_figure",
    "fmt_n",
    "strategy_label",
    "Timer",
    "plt",
    "axis_label",
    "plain_log_ticks",
]

#: seed of every search and every static estimate (common random numbers: replication r of every
#: strategy, searched or static, sees the same random inputs)
SEED = 1
#: replications per strategy (the paper: "mean values of 10 simulated experiments")
N_REPS = 10
FS_NOTE = "F_s: shifted-lognormal stand-in for the paper's Fig. 5 CDF"
FIGURES = Path(__file__).resolve().parent.parent / "figures"
#: the paper's order of the static strategies (§V)
STATICS = tuple(STATIC_STRATEGIES)
#: the paper's "ExPERT recommended" knee strategy, in units of t_ur: (N, T/t_ur, D/t_ur, M_r)
PAPER_KNEE = (3, 1.0, 2.0, 0.02)


def scenario(mr_max: float) -> str:
    """One-line description of the reference scenario, for titles and table headers."""
    return (
        f"ExPERT Experiment 11 (150 tasks, #ur=50, t_ur=t_r=2,066 s, γ=0.827, "
        f"c_r/c_ur=34), M_r^max={mr_max:g}; seed={SEED}, {N_REPS} reps"
    )


def axis_label(family: str, objective: str) -> str:
    """The axis label of a family's objective, words and unit (``axis_label("expert", "cost")``
    is ``"cost [cent/task]"``), as the family declares it."""
    return get_family(family).label(objective)


class Timer:
    """Wall-clock seconds since creation."""

    def __init__(self):
        self.start = time.perf_counter()

    def __call__(self) -> float:
        return time.perf_counter() - self.start


def search(mr_max: float, **grid) -> tuple[mopt.Result, NTDMrProblem]:
    """Exhaustive search of the paper grid (optionally restricted: N=[...], Mr=[...])."""
    env = reference_environment(mr_max)
    prob = NTDMrProblem(env, **grid)
    return mopt.solve(prob, "exhaustive", seed=SEED, n_reps=N_REPS), prob


def static_table(mr_max: float) -> pd.DataFrame:
    """Mean makespan and cost of the seven static strategies, same seed as the searches."""
    env = reference_environment(mr_max)
    rows = []
    for name in STATICS:
        df = estimate(env, name, N_REPS, seed=SEED)
        rows.append(
            {"strategy": name, "makespan": df["makespan"].mean(), "cost": df["cost"].mean()}
        )
    out = pd.DataFrame(rows)
    out["product"] = out["makespan"] * out["cost"]
    return out


def dominated(front: pd.DataFrame, makespan: float, cost: float) -> bool:
    """Whether some frontier point is <= in both objectives and < in one.

    Values within a relative 1e-9 count as equal: the same replications averaged in another order
    (a solver's frontier vs. a separate ``estimate``) differ in the last bits.
    """
    m, c = front["makespan"].to_numpy(), front["cost"].to_numpy()
    tm, tc = 1e-9 * abs(makespan), 1e-9 * abs(cost)
    le = (m <= makespan + tm) & (c <= cost + tc)
    return bool(np.any(le & ((m < makespan - tm) | (c < cost - tc))))


def product(df: pd.DataFrame) -> pd.Series:
    """makespan × cost (s·cent/task), the paper's Fig. 8b utility."""
    return df["makespan"] * df["cost"]


def fmt_n(n) -> str:
    return "∞" if math.isinf(float(n)) else str(int(n))


def strategy_label(row, t_ur: float = 2066.0) -> str:
    """'N=3 T=1·t_ur D=2·t_ur M_r=0.02' (M_r shown as '–' when N=∞: it is irrelevant)."""
    mr = "–" if math.isinf(float(row["N"])) else f"{row['Mr']:g}"
    return f"N={fmt_n(row['N'])} T={row['T'] / t_ur:g}·t_ur D={row['D'] / t_ur:g}·t_ur M_r={mr}"


def markdown_table(df: pd.DataFrame, floatfmt: dict | None = None) -> str:
    """A GitHub Markdown table (no tabulate dependency); ``floatfmt`` maps column -> format spec."""
    floatfmt = floatfmt or {}

    def cell(col, v):
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            if math.isnan(v):
                return ""
            if math.isinf(v):
                return "∞"
            return format(v, floatfmt.get(col, ",.3g"))
        return str(v)

    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for _, r in df.iterrows():
        lines.append("| " + " | ".join(cell(c, r[c]) for c in cols) + " |")
    return "\n".join(lines)


def report(name: str, text: str) -> None:
    """Print ``text`` and write it to ``figures/<name>.md``."""
    print(text)
    atomic_write(
        FIGURES / f"{name}.md", lambda p: Path(p).write_text(text + "\n", encoding="utf-8")
    )


def save_figure(fig, name: str) -> Path:
    """Write ``figures/<name>.png`` atomically (the format is explicit: the temporary file ends in .tmp)."""
    path = FIGURES / f"{name}.png"
    atomic_write(path, lambda p: fig.savefig(p, format=path.suffix[1:], dpi=120))
    plt.close(fig)
    return path
