"""ExPERT's reference grid under risk (issue #37): "the cheapest strategy that meets a deadline of
8,000 s" read on the mean makespan, and as a chance constraint, P(makespan <= 8,000 s) >= 0.9 (on
the estimate, and at 95 % confidence: the Clopper-Pearson lower bound), at 10, 100 and 1,000
replications of every strategy of the paper grid (Experiment 11, M_r^max = 0.1), seed 1.

Run from the repository root::

    python experiments/expert_risk.py

Writes ``figures/expert_risk.md`` (about 30 s on one core).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import pandas as pd  # noqa: E402
from _common import SEED, Timer, markdown_table, report  # noqa: E402

import mopt  # noqa: E402
from mopt.core.risk import with_risk  # noqa: E402
from mopt.expert import NTDMrProblem, reference_environment  # noqa: E402
from mopt.utility_spec import parse_utility  # noqa: E402

SPECS = {
    "mean makespan <= 8,000 s": "by_deadline(makespan, 8000, then=cost)",
    "P(makespan <= 8,000 s) >= 0.9": "by_deadline(makespan, 8000, then=cost, probability=0.9)",
    "the same at 95 % confidence": "by_deadline(makespan, 8000, then=cost, probability=0.9, confidence=0.95)",
}


def main() -> None:
    rows = []
    timer = Timer()
    for n in (10, 100, 1000):
        problem = NTDMrProblem(reference_environment(), n_reps=n)
        result = mopt.solve(problem, "exhaustive", seed=SEED)
        utilities = {label: parse_utility(spec) for label, spec in SPECS.items()}
        risky = with_risk(result, list(utilities.values()), problem=problem)
        for label, u in utilities.items():
            row = {"replications": n, "constraint": label}
            try:
                best = risky.best(u)
            except mopt.InputError:
                rows.append({**row, "strategy": "none satisfies it"})
                continue
            rows.append({**row, "strategy": f"N={best['N']:g}, T={best['T']:g}, D={best['D']:g}, Mr={best['Mr']:g}",
                         "makespan [s]": f"{best['makespan']:,.0f} ± {best['makespan_se']:,.0f}",
                         "cost [cent/task]": f"{best['cost']:.4f}",
                         "P(makespan <= 8,000 s)": best["P(makespan <= 8000)"],
                         "lower 95 %": best["P(makespan <= 8000) lower 0.95"],
                         "P(best)": best["p_best"]})
    table = pd.DataFrame(rows)
    report("expert_risk", "\n".join([
        "# ExPERT's reference grid under risk: a deadline on the mean and as a chance constraint",
        "",
        f"Paper grid (289 strategies, Experiment 11, M_r^max = 0.1), exhaustive, seed {SEED}; "
        f"{timer():.0f} s. The cheapest strategy by each reading of \"a makespan of at most "
        "8,000 s\"; P(makespan <= 8,000 s) is the fraction of the strategy's replications within it; "
        "'lower 95 %' its one-sided Clopper-Pearson bound (`experiments/expert_risk.py`).",
        "",
        markdown_table(table, {"P(makespan <= 8,000 s)": ".3f", "lower 95 %": ".3f", "P(best)": ".2f"}),
    ]))


if __name__ == "__main__":
    main()
