"""Which portfolio mix? PortfolioProblem's frontier on KTH-SP2: mocba and nsga2 at 10 % and 25 % of
exhaustive search's budget, scored by hypervolume ratio against exhaustive search.

    python experiments/portfolio_mix.py [--window 50] [--reps 2]

The 5,115 designs are mixes of JSSPP's 10 policies × β/α in {¼, ½, 1, 2, 4}; a replication is a
random window of ``--window`` consecutive KTH-SP2 jobs (<= 64 processors), the same window for
every design in replication r (common random numbers); SC13's cloud (boot 120 s, 256 VMs).
Exhaustive search simulates every design ``--reps`` times; its means are the ground truth that the
fronts the other methods return are scored with (their designs at exhaustive's means). Seed 1.
Writes figures/portfolio_mix.png and .md, and the figure's data: figures/portfolio_mix.csv (exhaustive
search's means of every design) and figures/portfolio_mix_fronts.csv (the designs on each search's
front); ``--plot-only`` redraws the figure from those two files without simulating. The committed
figure: ``--window 20 --reps 2`` (21 min under load; the default window is 50).
"""

from __future__ import annotations

import argparse
import time

import matplotlib.pyplot as plt
import pandas as pd
from _common import FIGURES, axis_label, markdown_table, plain_log_ticks, report

import mopt
from mopt.cloud.portfolio_problem import PortfolioProblem
from mopt.compare import hypervolume_ratio
from mopt.core.pareto import pareto_mask
from mopt.core.result import atomic_write
from mopt.plot import method_label, save_figure

SEED = 1
OBJ = ["bsd", "vm_hours"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--journal", default=None,
                        help="a journal file: a killed run resumes, and the searches reuse "
                             "exhaustive's simulations (the budgets still count them)")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw the figure from figures/portfolio_mix.csv and portfolio_mix_fronts.csv")
    args = parser.parse_args()
    if args.plot_only:
        ev = pd.read_csv(FIGURES / "portfolio_mix.csv")
        found = pd.read_csv(FIGURES / "portfolio_mix_fronts.csv")
        figure(ev, found, args.window, args.reps)
        return
    problem = PortfolioProblem("KTH-SP2", window=args.window, n_reps=args.reps, seed=SEED)
    t0 = time.perf_counter()
    truth = mopt.solve(problem, "exhaustive", seed=SEED, n_reps=args.reps, progress=True,
                       journal=args.journal)
    rows = [{"method": "exhaustive", "budget": truth.n_evals, "share": 1.0,
             "front size": len(truth.front), "HV ratio": 1.0,
             "seconds": time.perf_counter() - t0}]
    means = truth.evaluations.set_index("design")[OBJ]
    true_front = truth.front[OBJ].to_numpy()
    fronts = {}
    found = []
    for method in ("mocba", "nsga2"):
        for share in (0.10, 0.25):
            budget = int(share * truth.n_evals)
            t0 = time.perf_counter()
            # mocba needs n0 >= 2 replications of each candidate: at 10-25 % of exhaustive's
            # budget it allocates over a random sample of budget / 4 designs (half the budget
            # in its first stage)
            options = {"n0": 2, "sample": budget // 4} if method == "mocba" else {}
            res = mopt.solve(problem, method, budget=budget, seed=SEED, progress=True,
                             journal=args.journal, **options)
            found += [{"method": method, "share": share, "design": int(d)} for d in res.front["design"]]
            fronts[(method, share)] = means.loc[res.front["design"]].to_numpy()
            rows.append({"method": method + (f" (sample {options['sample']})" if options else ""),
                         "budget": res.n_evals, "share": share,
                         "front size": len(res.front),
                         "HV ratio": hypervolume_ratio(fronts[(method, share)], true_front),
                         "seconds": time.perf_counter() - t0})
            print(rows[-1], flush=True)
    ev = truth.evaluations
    columns = [c for c in ("design", "mix", "beta_over_alpha", *OBJ) if c in ev.columns]
    atomic_write(FIGURES / "portfolio_mix.csv", lambda p: ev[columns].to_csv(p, index=False))
    found = pd.DataFrame(found)
    atomic_write(FIGURES / "portfolio_mix_fronts.csv", lambda p: found.to_csv(p, index=False))
    figure(ev, found, args.window, args.reps)
    report("portfolio_mix",
           "# Portfolio mixes as a search problem (PortfolioProblem on KTH-SP2)\n\n"
           f"5,115 designs (1,023 mixes of JSSPP's 10 policies × β/α in {{¼, ½, 1, 2, 4}}); a replication "
           f"is a random {args.window}-job window of KTH-SP2 (common random numbers), {args.reps} "
           f"replications per design for exhaustive search, seed {SEED}; fronts scored at exhaustive's "
           "means.\n\n" + markdown_table(pd.DataFrame(rows), {"seconds": ".0f", "HV ratio": ".3f",
                                                              "share": ".0%"})
           + "\n\nExhaustive frontier:\n\n" + markdown_table(truth.front[["mix", "beta_over_alpha", *OBJ]]))


def figure(ev: pd.DataFrame, found: pd.DataFrame, window: int, reps: int) -> None:
    """Draw figures/portfolio_mix.png: every design at exhaustive's means, exhaustive's frontier and
    the designs on each search's front (``found``: method, share, design)."""
    means = ev.set_index("design")[OBJ]
    fig, ax = plt.subplots(figsize=(7, 4.8))
    ax.scatter(ev["bsd"], ev["vm_hours"], s=3, color="0.8", label=f"all {len(ev):,} designs (exhaustive means)")
    f = ev[pareto_mask(ev[OBJ].to_numpy())].sort_values("bsd")
    ax.plot(f["bsd"], f["vm_hours"], "k.-", label="exhaustive frontier")
    for (method, share), part in found.groupby(["method", "share"], sort=False):
        pts = means.loc[part["design"]]
        ax.scatter(pts["bsd"], pts["vm_hours"], s=18, marker="x" if method == "nsga2" else "+",
                   label=f"{method_label(method)} front, {share:.0%} of the budget")
    ax.set_xlabel(axis_label("cloud", "bsd"))
    ax.set_ylabel(axis_label("cloud", "vm_hours").replace(" [", " per window ["))
    ax.set_xscale("log")
    plain_log_ticks(ax)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper right")
    ax.set_title(f"Portfolio mixes on KTH-SP2 ({window}-job windows, {reps} replications, seed {SEED})",
                 fontsize=9)
    fig.tight_layout()
    save_figure(fig, FIGURES / "portfolio_mix.png")
    plt.close(fig)


if __name__ == "__main__":
    main()
