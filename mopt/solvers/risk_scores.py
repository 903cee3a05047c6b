"""OCBA's statistics for a utility under risk (a chance constraint, a quantile, a CVaR; ours).

OCBA allocates by each design's score mean and its variance per replication
(:class:`mopt.solvers.ocba.ScoreStats` scores every replication on its own). A probability, a
quantile or a CVaR is a property of all of a design's replications, not of one: here the score of a
design is the utility of its risk estimates (:func:`mopt.core.risk.estimate`) beside its objective
means, and its variance per replication is ``n`` times the bootstrap variance of that score over the
design's replications (:data:`BOOTSTRAP` resamples, drawn from a Generator seeded by the design's
index and its count, so that the run's seed and the replications alone decide them: same seed, same
result, whatever the executor). A resample that makes the design infeasible (an infinite score)
counts as the worst finite score of that design's resamples, as ``ScoreStats`` caps an infinite
per-replication score.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mopt.core.risk import estimate

__all__ = ["BOOTSTRAP", "RiskScoreStats"]

#: bootstrap resamples of a design's replications per update
BOOTSTRAP = 64


class RiskScoreStats:
    """Per-design score (the utility of its risk estimates) and variance per replication, for the
    candidate ``designs``; the interface of :class:`mopt.solvers.ocba.ScoreStats`."""

    def __init__(self, problem, utility, designs: np.ndarray):
        self.problem = problem
        self.utility = utility
        self.designs = designs
        n = len(designs)
        self.n = np.zeros(n, dtype=np.int64)
        self.mean = np.full(n, np.nan)
        self.var = np.full(n, np.nan)
        self._objectives = list(problem.objectives)

    def _score(self, x: np.ndarray) -> np.ndarray:
        """The utility of each resample of replications ``x`` (B, n, n_obj)."""
        rows = []
        for sample in x:
            row = dict(zip(self._objectives, sample.mean(axis=0).tolist(), strict=True))
            for term in self.utility.risk:
                row.update(estimate(term, sample[:, self._objectives.index(term.objective)]))
            rows.append(row)
        return np.asarray(self.utility(pd.DataFrame(rows)), dtype=float)

    def update(self, state) -> None:
        counts = state.count[self.designs]
        for k in np.flatnonzero(counts != self.n).tolist():
            design, n = int(self.designs[k]), int(counts[k])
            x = np.asarray(state.samples[design], dtype=float)
            rng = np.random.default_rng([design, n, 0xB007])
            picks = rng.integers(0, n, size=(BOOTSTRAP, n))
            scores = self._score(np.concatenate([x[None], x[picks]]))
            boot = scores[1:]
            finite = boot[np.isfinite(boot)]
            boot = np.where(np.isfinite(boot), boot, finite.max() if len(finite) else 0.0)
            self.n[k] = n
            self.mean[k] = scores[0]
            self.var[k] = float(n * boot.var(ddof=1)) if n > 1 else 0.0
