"""OCBA and MOCBA against equal allocation on synthetic problems with known means.

Run from the repository root::

    python experiments/allocation_synthetic.py [--macroreps 400]

* **OCBA** — Chen & Lee's ten designs (means 1..10, σ = 6, minimise): probability of correct
  selection against the budget, OCBA (n0 = 10, δ = 20) vs equal allocation (exhaustive search with
  ``budget // 10`` replications each).  Equal allocation's PCS is also computed exactly (a
  one-dimensional integral), so the budget it needs for PCS ≥ 0.9 is known without noise.
* **MOCBA** — 16 bi-objective designs, 8 on the front x + y = 1 and 8 dominated by 0.05-0.3 in each
  objective (σ = 0.3): P(Type I) + P(Type II) of the observed Pareto set, MOCBA (n0 = 10, δ = 20)
  vs equal allocation.

Writes ``figures/allocation_synthetic.png`` and ``.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from _common import markdown_table, plt, report, save_figure  # noqa: E402
from scipy import integrate, stats  # noqa: E402

import mopt  # noqa: E402
from mopt.compare import summary  # noqa: E402

SEED = 2010
EQUAL = {"n_reps": 10**9}  # exhaustive with a budget: budget // n_designs replications each


def equal_allocation_pcs(means, sd, n) -> float:
    """Exact PCS of n replications per design (independent normal noise, minimisation)."""
    s = sd / np.sqrt(n)
    f = lambda x: stats.norm.pdf(x, means[0], s) * np.prod(stats.norm.sf(x, means[1:], s))  # noqa: E731
    return integrate.quad(f, means[0] - 12 * s, means[0] + 12 * s, limit=200)[0]


def bi_objective_means() -> np.ndarray:
    rng = np.random.default_rng(0)
    x = np.linspace(0, 1, 8)
    front = np.c_[x, 1 - x]
    return np.r_[front, front[rng.permutation(8)] + rng.uniform(0.05, 0.3, (8, 2))]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--macroreps", type=int, default=400)
    args = parser.parse_args(argv)

    means = np.arange(1.0, 11.0)
    single = mopt.NormalProblem(means, sd=6.0)
    budgets = [100, 200, 300, 400, 600, 800, 1200, 1600, 2400]
    runs = mopt.compare(single, ["exhaustive", "ocba"], budgets, args.macroreps, seed=SEED, truth=means,
                        options={"exhaustive": EQUAL, "ocba": {"n0": 10, "delta": 20}})
    pcs = summary(runs).pivot(index="budget", columns="method", values="pcs")
    pcs["equal (exact)"] = [equal_allocation_pcs(means, 6.0, b // 10) for b in pcs.index]
    need = next(n for n in range(2, 1000) if equal_allocation_pcs(means, 6.0, n) >= 0.9) * 10

    bi = bi_objective_means()
    multi = mopt.NormalProblem(bi, sd=0.3)
    budgets2 = [240, 320, 480, 640, 800, 1200]
    runs2 = mopt.compare(multi, ["exhaustive", "mocba"], budgets2, args.macroreps, seed=SEED, truth=bi,
                         options={"exhaustive": EQUAL, "mocba": {"n0": 10, "delta": 20}})
    s2 = summary(runs2)
    s2["type1+2"] = s2["type1"] + s2["type2"]
    err = s2.pivot(index="budget", columns="method", values="type1+2")

    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
    a.plot(pcs.index, pcs["ocba"], "o-", label="OCBA")
    a.plot(pcs.index, pcs["exhaustive"], "s-", label="equal allocation")
    a.plot(pcs.index, pcs["equal (exact)"], "k:", label="equal allocation (exact)")
    a.axhline(0.9, color="grey", lw=0.8)
    a.set(xlabel="budget (replications)", ylabel="P(correct selection)", title="10 designs, σ = 6")
    a.legend()
    b.plot(err.index, err["mocba"], "o-", label="MOCBA")
    b.plot(err.index, err["exhaustive"], "s-", label="equal allocation")
    b.set(xlabel="budget (replications)", ylabel="P(Type I) + P(Type II)",
          title="16 designs, 2 objectives, σ = 0.3")
    b.legend()
    fig.suptitle(f"Allocation rules vs equal allocation ({args.macroreps} macroreplications)")
    fig.tight_layout()
    save_figure(fig, "allocation_synthetic")

    ocba_at = pcs["ocba"]
    first = ocba_at[ocba_at >= 0.9].index.min()
    text = (
        "# OCBA and MOCBA vs equal allocation\n\n"
        f"{args.macroreps} macroreplications per point, seed {SEED}.\n\n"
        "## OCBA: P(correct selection), ten designs (means 1..10, σ = 6)\n\n"
        + markdown_table(pcs.reset_index()) + "\n\n"
        f"Equal allocation needs {need} replications for PCS ≥ 0.9 (exact); OCBA's first budget on this "
        f"grid with PCS ≥ 0.9 is {first} ({first / need:.0%} of it).\n\n"
        "## MOCBA: P(Type I) + P(Type II), 16 designs, 8 Pareto-optimal\n\n"
        + markdown_table(s2[["method", "budget", "type1", "type2", "type1+2"]])
    )
    report("allocation_synthetic", text)


if __name__ == "__main__":
    main()
