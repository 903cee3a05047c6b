"""Which portfolio mix? PortfolioProblem's frontier on KTH-SP2: mocba and nsga2 at 10 % and 25 % of
exhaustive search's budget, scored by hypervolume ratio against exhaustive search.

    python experiments/portfolio_mix.py [--window 50] [--reps 2]

The 5,115 designs are mixes of JSSPP's 10 policies × β/α in {¼, ½, 1, 2, 4}; a replication is a
random window of ``--window`` consecutive KTH-SP2 jobs (<= 64 processors), the same window for
every design in replication r (common random numbers); SC13's cloud (boot 120 s, 256 VMs).
Exhaustive search simulates every design ``--reps`` times; its means are the ground truth that the
fronts the other methods return are scored with (their designs at exhaustive's means). Seed 1.
Writes figures/portfolio_mix.png and .md.
"""

from __future__ import annotations

import argparse
import time

import matplotlib.pyplot as plt
import pandas as pd
from _common import FIGURES, markdown_table, report

import mopt
from mopt.cloud.portfolio_problem import PortfolioProblem
from mopt.compare import hypervolume_ratio
from mopt.plot import save_figure

SEED = 1
OBJ = ["bsd", "vm_hours"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--journal", default=None,
                        help="a journal file: a killed run resumes, and the searches reuse "
                             "exhaustive's simulations (the budgets still count them)")
    args = parser.parse_args()
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
            found = means.loc[res.front["design"]].to_numpy()
            fronts[(method, share)] = found
            rows.append({"method": method + (f" (sample {options['sample']})" if options else ""),
                         "budget": res.n_evals, "share": share,
                         "front size": len(res.front),
                         "HV ratio": hypervolume_ratio(found, true_front),
                         "seconds": time.perf_counter() - t0})
            print(rows[-1], flush=True)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ev = truth.evaluations
    ax.scatter(ev["bsd"], ev["vm_hours"], s=3, color="0.8", label="all 5,115 designs (exhaustive)")
    f = truth.front.sort_values("bsd")
    ax.plot(f["bsd"], f["vm_hours"], "k.-", label="exhaustive frontier")
    for (method, share), pts in fronts.items():
        ax.scatter(pts[:, 0], pts[:, 1], s=18, marker="x" if method == "nsga2" else "+",
                   label=f"{method} at {share:.0%} of the budget")
    ax.set_xlabel("mean bounded slowdown")
    ax.set_ylabel("charged VM-hours")
    ax.set_xscale("log")
    ax.legend(fontsize=7)
    ax.set_title(f"Portfolio mixes on KTH-SP2 ({args.window}-job windows, {args.reps} reps, seed {SEED})",
                 fontsize=9)
    fig.tight_layout()
    save_figure(fig, FIGURES / "portfolio_mix.png")
    plt.close(fig)
    report("portfolio_mix",
           "# Portfolio mixes as a search problem (PortfolioProblem on KTH-SP2)\n\n"
           f"5,115 designs (1,023 mixes of JSSPP's 10 policies × β/α in {{¼, ½, 1, 2, 4}}); a replication "
           f"is a random {args.window}-job window of KTH-SP2 (common random numbers), {args.reps} "
           f"replications per design for exhaustive search, seed {SEED}; fronts scored at exhaustive's "
           "means.\n\n" + markdown_table(pd.DataFrame(rows), {"seconds": ".0f", "HV ratio": ".3f",
                                                              "share": ".0%"})
           + "\n\nExhaustive frontier:\n\n" + markdown_table(truth.front[["mix", "beta_over_alpha", *OBJ]]))


if __name__ == "__main__":
    main()
