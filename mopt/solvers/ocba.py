"""OCBA: Chen & Lee's optimal computing budget allocation for selecting the best design.

The allocation rule (Chen, Lin, Yücesan & Chick 2000; Chen & Lee 2011, ch. 3), for minimisation, with
b the design of lowest sample mean, δ_i = x̄_i − x̄_b and σ_i² the sample variances:

    N_i / N_j = (σ_i / δ_i)² / (σ_j / δ_j)²        for i, j ≠ b
    N_b       = σ_b · sqrt( Σ_{i≠b} N_i² / σ_i² )

:func:`ocba_allocation` turns these ratios into the replications to *add* when some are already
spent (:func:`allocate`), and the ``ocba`` method runs the sequential procedure: ``n0`` replications
of every design, then rounds of ``delta`` replications allocated by the rule until the budget is
spent.  Several objectives are reduced to one by a utility.
"""

from __future__ import annotations

import math

import numpy as np

from mopt.core.errors import InputError, check_array, check_int
from mopt.core.problem import check_reps
from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, Solver, requests, resolve_utility, utility_scores

__all__ = ["OCBA", "ocba_ratios", "ocba_allocation", "allocate", "largest_remainder"]


def ocba_ratios(means, variances) -> np.ndarray:
    """OCBA's allocation fractions (summing to 1) for minimising ``means``.

    Special cases, each the limit of the rule rather than a division by zero:

    * designs tied with the best (δ = 0): the limit δ → 0 leaves only the tied designs and the best,
      with N_i ∝ σ_i² for the tied ones and N_b = σ_b·sqrt(Σ_tied σ_i²);
    * zero variance: a design with σ = 0 needs no more replications (its share is 0);
    * designs with an infinite mean (a utility's "infeasible") get nothing;
    * if every share is 0 (all variances zero, or a single finite design), the fractions are equal
      over the designs with a finite mean.
    """
    means = check_array("means", means, ndim=1, allow_inf=True)
    variances = check_array("variances", variances, ndim=1, nonnegative=True)
    if len(variances) != len(means):
        raise InputError(f"'variances' must have one entry per design ({len(means)}); got {len(variances)}.")
    k = len(means)
    finite = np.isfinite(means)
    if not finite.any():
        return np.full(k, 1.0 / k)
    m = np.where(finite, means, np.inf)
    b = int(np.argmin(m))
    delta = np.where(finite, m - m[b], np.inf)
    others = np.arange(k) != b
    tied = others & (delta <= 1e-12 * max(1.0, abs(m[b])))
    r = np.zeros(k)
    if tied.any():
        r[tied] = variances[tied]
        r[b] = math.sqrt(variances[b]) * math.sqrt(variances[tied].sum())
    else:
        use = others & finite
        r[use] = variances[use] / delta[use] ** 2
        # N_i² / σ_i² = σ_i² / δ_i⁴, written so that σ_i = 0 needs no division
        r[b] = math.sqrt(variances[b]) * math.sqrt(np.sum(variances[use] / delta[use] ** 4))
    total = r.sum()
    if not np.isfinite(total) or total <= 0:
        return np.where(finite, 1.0 / finite.sum(), 0.0)
    return r / total


def allocate(ratios, current, budget: int) -> np.ndarray:
    """Real-valued replications to add so that the totals follow ``ratios`` as closely as possible.

    The target of design i is ``ratios_i × (Σ current + budget)``; a design that already has more than
    its target gets nothing and the others share ``budget`` in proportion to their ratios (repeated
    until no design is over its share).  The additions are ≥ 0 and sum to ``budget`` exactly.
    """
    r = np.asarray(ratios, dtype=float)
    cur = np.asarray(current, dtype=float)
    add = np.zeros(len(r))
    if budget <= 0:
        return add
    if r.sum() <= 0:
        r = np.ones(len(r))
    active = r > 0
    while True:
        share = (budget + cur[active].sum()) * r[active] / r[active].sum()
        over = share < cur[active]
        if not over.any():
            break
        idx = np.flatnonzero(active)
        active[idx[over]] = False  # at least one design stays: shares sum to more than their current
    add[active] = np.clip(share - cur[active], 0.0, None)
    return add


def largest_remainder(values, total: int) -> np.ndarray:
    """Integers with sum ``total``: the floors of ``values``, plus one for the largest remainders
    (ties: the lower index first).  ``values`` must be ≥ 0 and sum to ``total``."""
    v = np.asarray(values, dtype=float)
    base = np.floor(v + 1e-9).astype(np.int64)
    short = int(total - base.sum())
    if short > 0:
        rem = v - base
        order = np.lexsort((np.arange(len(v)), -rem))
        base[order[:short]] += 1
    elif short < 0:  # floating-point excess: take back from the smallest remainders that are > 0
        rem = v - base
        order = np.lexsort((np.arange(len(v)), rem))
        order = [i for i in order if base[i] > 0]
        base[np.array(order[:-short], dtype=np.int64)] -= 1
    return base


def ocba_allocation(means, variances, budget, current=None, *, integer: bool = True) -> np.ndarray:
    """Replications to add to each design under OCBA (minimisation).

    Parameters
    ----------
    means, variances : array_like
        Sample means and variances (per replication) of the designs.
    budget : int
        Replications to add in total.
    current : array_like or None
        Replications each design already has (None: none).
    integer : bool
        Round to integers that sum to ``budget`` (largest-remainder rule, ties to the lower index);
        False returns the real-valued allocation.

    Examples
    --------
    Chen & Lee's worked example: five designs, 50 more replications.

    >>> ocba_allocation([1, 2, 3, 4, 5], [1, 1, 9, 9, 4], 50, integer=False).round(1).tolist()
    [11.2, 8.6, 19.4, 8.6, 2.2]
    >>> ocba_allocation([1, 2, 3, 4, 5], [1, 1, 9, 9, 4], 50).tolist()
    [11, 9, 19, 9, 2]
    """
    budget = check_int("budget", budget, low=0)
    means = check_array("means", means, ndim=1, allow_inf=True)
    cur = np.zeros(len(means)) if current is None else check_array("current", current, ndim=1, nonnegative=True)
    if len(cur) != len(means):
        raise InputError(f"'current' must have one entry per design ({len(means)}); got {len(cur)}.")
    add = allocate(ocba_ratios(means, variances), cur, budget)
    return largest_remainder(add, budget) if integer else add


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions ``starts[j], …, starts[j] + lengths[j] − 1`` of every segment j, concatenated."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    first = np.cumsum(lengths) - lengths  # where each segment begins in the output
    return np.repeat(np.asarray(starts, dtype=np.int64) - first, lengths) + np.arange(total)


class ScoreStats:
    """Per-design mean and variance of a utility's per-replication scores, updated incrementally,
    for the candidate ``designs`` (entry ``k`` is design ``designs[k]``).

    Bookkeeping (ours): the scores of every replication are kept, so that a round scores only the
    replications it added, together with the new means, in one call of the utility (a utility
    scores each row on its own, so the values are those of scoring every replication again).  The
    sums behind the variance are still taken over all of an entry's scores, over the concatenation
    of the updated entries (``np.add.reduceat`` sums each segment on its own), so the statistics
    are bit-identical to a recomputation from scratch.  The scores live in one flat buffer, each
    entry in a segment of its own that moves to the end with twice the room when it fills (the
    room it leaves is not reused: the buffer holds at most about four times the scores): an update
    is a few array operations whatever the number of entries it touches (OCBA's first round
    touches every candidate, up to tens of thousands).
    """

    def __init__(self, problem, utility, designs: np.ndarray):
        self.problem = problem
        self.utility = utility
        self.designs = designs
        n = len(designs)
        self.n = np.zeros(n, dtype=np.int64)
        self.mean = np.full(n, np.nan)   # utility of the objective means
        self.var = np.full(n, np.nan)    # sample variance of the per-replication scores
        self.cap = 0.0
        self._buf = np.empty(0)                     # every entry's scores, each in its segment
        self._used = 0                              # the buffer's filled length
        self._start = np.zeros(n, dtype=np.int64)   # entry -> its segment's start
        self._room = np.zeros(n, dtype=np.int64)    # entry -> its segment's length
        self._top = np.full(n, -np.inf)             # largest finite score of each entry
        self._odd = np.zeros(n, dtype=bool)         # entry has a non-finite score

    def update(self, state: SearchState) -> None:
        counts = state.count[self.designs]
        stale = np.flatnonzero(counts != self.n)
        if not len(stale):
            return
        counts, designs = counts[stale], self.designs[stale]
        rows = [state.samples[i][h:] for i, h in zip(designs.tolist(), self.n[stale].tolist(), strict=True)]
        scores = utility_scores(self.problem, self.utility, np.concatenate([*rows, state.mean[designs]]))
        added = counts - self.n[stale]
        total = int(added.sum())
        means = scores[total:]
        self._append(stale, added, scores[:total])
        top = self._top[stale].max()
        # an infinite per-replication score (e.g. over a budget) counts as the worst finite one seen
        self.cap = max(self.cap, top) if np.isfinite(top) else self.cap
        x = self._buf[_ranges(self._start[stale], counts)]
        if self._odd[stale].any():
            x = np.where(np.isfinite(x), x, self.cap)
        starts = np.cumsum(counts) - counts
        sums, sq = np.add.reduceat(x, starts), np.add.reduceat(x**2, starts)
        var = np.where(counts > 1, (sq - sums**2 / counts) / np.maximum(counts - 1, 1), 0.0)
        self.n[stale] = counts
        self.mean[stale] = means
        self.var[stale] = np.clip(var, 0.0, None)

    def _append(self, entries: np.ndarray, added: np.ndarray, values: np.ndarray) -> None:
        """Append ``values`` (``added[j]`` scores of entry ``entries[j]`` after another) to the entries'
        segments, moving a segment that is too short to the buffer's end with twice the room."""
        starts = np.cumsum(added) - added
        finite = np.isfinite(values)
        self._top[entries] = np.maximum(self._top[entries],
                                        np.maximum.reduceat(np.where(finite, values, -np.inf), starts))
        self._odd[entries] |= np.logical_or.reduceat(~finite, starts)
        have = self.n[entries]
        full = have + added > self._room[entries]
        if full.any():
            moved, n_moved = entries[full], have[full]
            room = np.maximum(2 * (n_moved + added[full]), 8)
            need = self._used + int(room.sum())
            if need > len(self._buf):
                grown = np.empty(max(need, 2 * len(self._buf)))
                grown[:self._used] = self._buf[:self._used]
                self._buf = grown
            new_start = self._used + np.cumsum(room) - room
            self._buf[_ranges(new_start, n_moved)] = self._buf[_ranges(self._start[moved], n_moved)]
            self._start[moved], self._room[moved] = new_start, room
            self._used = need
        self._buf[_ranges(self._start[entries] + have, added)] = values


class Sequential(Solver):
    """What OCBA and MOCBA share: ``n0`` replications of every candidate design, then rounds of
    ``delta``.

    The candidates are every design, or with the option ``sample`` that many designs drawn
    uniformly; ``n_designs`` below means the number of candidates.  On a space above
    :data:`~mopt.core.space.ENUMERATION_LIMIT` designs without ``sample``, a given budget ``b``
    draws ``max(1, b // (2·n0))`` designs uniformly (``n0`` the option, or 10 if it is None;
    at most the limit), so that the first stage spends about half the budget, as the ``n0`` rule
    below aims at (ours); without a budget such a space is refused.  ``n0`` None (the default)
    means: half of the budget for the first stage, between 2 and 10 replications per design (Chen
    & Lee suggest 5 to 20; fewer leave room for allocation on large spaces).  The default budget is
    exhaustive's (``n_designs × n_reps``), so that they compare at equal cost.  ``info["sample"]``
    is the number of candidates when they are a sample.
    """

    #: ``n0`` assumed when a budget sizes the sample of a huge space and ``n0`` is None (ours)
    SAMPLE_N0 = 10
    #: the budget given to this run (set by ``_check``), None without one
    _budget: int | None = None

    def check_budget(self, problem, budget: int) -> None:
        self._budget = budget  # sizes the sample of a space above the limit
        super().check_budget(problem, budget)

    def _k(self, problem) -> int:
        """The number of candidate designs."""
        sample = self.options["sample"]
        if sample is not None:
            return check_int("sample", sample, low=1, high=problem.n_designs)
        n = problem.n_designs
        if n <= ENUMERATION_LIMIT:
            return n
        budget = self._budget
        if budget is None:
            raise InputError(
                f"method {self.name!r} allocates over every design: {n:,} designs are above the limit of "
                f"{ENUMERATION_LIMIT:,} (mopt.core.space.ENUMERATION_LIMIT); give 'budget' (a uniform sample "
                f"of budget // (2·n0) designs is then searched) or 'sample' (a number of designs drawn "
                "uniformly).")
        n0 = self.options["n0"]
        n0 = self.SAMPLE_N0 if n0 is None else check_reps("n0", n0, low=2)
        return max(1, min(ENUMERATION_LIMIT, budget // (2 * n0)))

    def _sampled(self, problem) -> bool:
        return self.options["sample"] is not None or problem.n_designs > ENUMERATION_LIMIT

    def _candidates(self, state: SearchState) -> np.ndarray:
        problem = state.problem
        if not self._sampled(problem):
            return np.arange(problem.n_designs)
        return np.sort(problem.sample_designs(state.rng, self._k(problem)))

    def _n0(self, problem, budget=None) -> int:
        n0 = self.options["n0"]
        if n0 is not None:
            return check_reps("n0", n0, low=2)
        k = self._k(problem)
        if budget is None:
            budget = k * check_reps("n_reps", problem.n_reps)
        return int(min(10, max(2, budget // (2 * k))))

    def _default_budget(self, problem):
        self._budget = None  # no budget given: a space above the limit is refused
        low = self.min_budget(problem)
        return max(self._k(problem) * check_reps("n_reps", problem.n_reps), low)

    def min_budget(self, problem):
        self._delta(problem, None)
        n0 = self.options["n0"]
        return (2 if n0 is None else self._n0(problem)) * self._k(problem)

    def _sample_info(self, problem) -> dict:
        return {"sample": int(len(self._designs))} if self._sampled(problem) else {}

    def _delta(self, problem, budget) -> int:
        raise NotImplementedError


class OCBA(Sequential):
    """Sequential OCBA for one objective (several objectives: the ``utility`` reduces them).

    Options: ``n0`` initial replications per design (≥ 2, to estimate variances; None: see
    :class:`Sequential`), ``delta`` replications per round (None: max(10, n_designs // 10)),
    ``utility`` (None: the objective, or the product of all objectives; a utility under risk, a
    chance constraint, a quantile or a CVaR of :mod:`mopt.core.risk`, is scored on each design's
    risk estimates, :mod:`mopt.solvers.risk_scores`), ``sample`` (None: every
    design, or above the enumeration limit a sample sized by the budget; else that many drawn
    uniformly, see :class:`Sequential`).  ``info["best"]`` is the
    design selected (lowest utility of the means).
    """

    name = "ocba"
    defaults = {"n0": None, "delta": None, "utility": None, "sample": None}

    def _delta(self, problem, budget=None):
        d = self.options["delta"]
        return max(10, self._k(problem) // 10) if d is None else check_reps("delta", d)

    def min_budget(self, problem):
        resolve_utility(problem, self.options["utility"], risk=True)
        return super().min_budget(problem)

    def _ask(self, state: SearchState):
        problem = state.problem
        if state.spent == 0:
            self._designs = self._candidates(state)
            utility = resolve_utility(problem, self.options["utility"], risk=True)
            if getattr(utility, "risk", ()):  # a chance constraint, a quantile, a CVaR: ours
                from mopt.solvers.risk_scores import RiskScoreStats

                self._stats = RiskScoreStats(problem, utility, self._designs)
            else:
                self._stats = ScoreStats(problem, utility, self._designs)
            return [(self._designs, self._n0(problem, state.budget))]
        add = min(self._delta(problem), state.remaining)
        if add <= 0:
            return []
        self._stats.update(state)
        s = self._stats
        means = getattr(s, "alloc_mean", s.mean)  # under risk: an undecided constraint keeps a design in play
        return requests(self._designs, ocba_allocation(means, s.var, add, current=s.n))

    def _info(self, state: SearchState):
        self._stats.update(state)
        mean = np.where(np.isfinite(self._stats.mean), self._stats.mean, np.inf)
        return {"utility": str(self._stats.utility), "best": int(self._designs[np.argmin(mean)]),
                "n0": self._n0(state.problem, state.budget), "delta": self._delta(state.problem),
                **self._sample_info(state.problem)}
