"""OCBA's statistics for a utility under risk (a chance constraint, a quantile, a CVaR; ours).

OCBA allocates by each design's score mean and its variance per replication
(:class:`mopt.solvers.ocba.ScoreStats` scores every replication on its own). A probability, a
quantile or a CVaR is a property of all of a design's replications, not of one: here the score of a
design is the utility of its risk estimates (:func:`mopt.core.risk.estimate`) beside its objective
means, and its variance per replication is ``n`` times the bootstrap variance of that score over the
design's replications (:data:`BOOTSTRAP` resamples, drawn from a Generator seeded by the
replications themselves and their count: the run's seed and the replications alone decide them,
and equivalent designs, whose replications are identical, get identical statistics). A resample
that makes a design infeasible (an infinite score) counts as the worst finite score seen so far of
any design, as ``ScoreStats`` caps an infinite per-replication score.

A design infeasible at its estimate (its P(x <= b) below the probability asked) scores inf and is
not chosen; but while its chance constraint is undecided (the one-sided Clopper–Pearson bounds at
:data:`LEVEL` straddle the probability) OCBA still allocates to it as if it scored the worst
finite score seen (:attr:`RiskScoreStats.alloc_mean`), so that one unlucky start does not shut it
out for good.
"""

from __future__ import annotations

import zlib

import numpy as np
import pandas as pd

from mopt.core.risk import constraint_undecided, estimate

__all__ = ["BOOTSTRAP", "LEVEL", "RiskScoreStats"]

#: bootstrap resamples of a design's replications per update
BOOTSTRAP = 64
#: the level at which a chance constraint counts as decided for the allocation
LEVEL = 0.95


class RiskScoreStats:
    """Per-design score (the utility of its risk estimates) and variance per replication, for the
    candidate ``designs``; the interface of :class:`mopt.solvers.ocba.ScoreStats`, plus
    :attr:`alloc_mean` (the means OCBA allocates by)."""

    def __init__(self, problem, utility, designs: np.ndarray):
        self.problem = problem
        self.utility = utility
        self.designs = designs
        n = len(designs)
        self.n = np.zeros(n, dtype=np.int64)
        self.mean = np.full(n, np.nan)
        self.var = np.full(n, np.nan)
        self.cap = -np.inf  # the worst finite score seen, of any design or resample
        self._open = np.zeros(n, dtype=bool)  # infeasible at the estimate, the constraint undecided
        self._boot = np.full((n, BOOTSTRAP), np.nan)  # each design's bootstrap scores
        self._objectives = list(problem.objectives)

    @property
    def alloc_mean(self) -> np.ndarray:
        """:attr:`mean`, with the worst finite score seen for the designs whose chance constraint
        is undecided although their estimate misses it."""
        if not np.isfinite(self.cap):
            return self.mean
        return np.where(self._open & ~np.isfinite(self.mean), self.cap, self.mean)

    def _score(self, x: np.ndarray) -> np.ndarray:
        """The utility of each resample of replications ``x`` (B, n, n_obj)."""
        rows = []
        for sample in x:
            row = dict(zip(self._objectives, sample.mean(axis=0).tolist(), strict=True))
            for term in self.utility.risk:
                row.update(estimate(term, sample[:, self._objectives.index(term.objective)]))
            rows.append(row)
        return np.asarray(self.utility(pd.DataFrame(rows)), dtype=float)

    def _undecided(self, x: np.ndarray) -> bool:
        terms = [t for t in self.utility.risk if t.kind == "probability" and t.probability is not None]
        return bool(terms) and constraint_undecided(terms, x, self._objectives, LEVEL)

    def update(self, state) -> None:
        counts = state.count[self.designs]
        stale = np.flatnonzero(counts != self.n).tolist()
        for k in stale:
            design, n = int(self.designs[k]), int(counts[k])
            x = np.ascontiguousarray(state.samples[design], dtype=float)
            rng = np.random.default_rng([n, zlib.crc32(x.tobytes()), 0xB007])
            picks = rng.integers(0, n, size=(BOOTSTRAP, n))
            scores = self._score(np.concatenate([x[None], x[picks]]))
            finite = scores[np.isfinite(scores)]
            if len(finite):
                self.cap = max(self.cap, float(finite.max()))
            self.n[k] = n
            self.mean[k] = scores[0]
            self._boot[k] = scores[1:]
            self._open[k] = self._undecided(x)
        if stale:  # the cap may have moved: every variance again
            seen = self.n > 0
            boot = self._boot[seen]
            capped = np.where(np.isfinite(boot), boot, self.cap if np.isfinite(self.cap) else 0.0)
            n = self.n[seen]
            self.var[seen] = np.where(n > 1, n * capped.var(axis=1, ddof=1), 0.0)
