"""SC13's time-constrained portfolio selection (Deng et al., SC 2013, Algorithm 1).

A portfolio of N policies is split into three lists: *Smart* (the best of the last selection, best
first), *Stale* (not simulated for the longest, oldest first) and *Poor* (simulated and found weak).
Each call of :meth:`TimeConstrainedSelection.select` shares a budget of Δ simulations between the
lists in proportion to their sizes, simulates Smart best-first, then Stale oldest-first, then random
Poor policies with what is left, keeps the top ⌈λ·|Q|⌉ of the simulated set Q as the new Smart and
returns the first of them.

Choices that are ours, where the paper's pseudo-code is open (spec §6):

- the budget Δ counts simulated policies (SC13 charges every simulation 10 ms, so its Δ = 200 ms is
  Δ = 20 here), which makes a run depend only on its seed, never on the machine's speed;
- the quotas are kept in integers scaled by N (δ1 = |Smart|·Δ, δ2 = |Stale|·Δ, δ3 = N·Δ − δ1 − δ2,
  one simulation costs N), so no rounding decides how many policies run;
- the Smart and Stale loops run while their quota is positive, so the last policy of each may
  overshoot; the overshoot is carried into δ3 (line 13), so a call simulates at most Δ + 1 policies
  (the one allowed overshoot) and exactly Δ whenever the Poor phase runs with enough Poor policies;
- the Poor loop also stops when Poor is empty (the pseudo-code would loop for ever);
- the sort of the simulated set is stable (ties keep the order of simulation), and a NaN score
  sorts last;
- the random draw of Poor policies (``Random.nextInt(|Poor|)``) comes from a seeded Generator.

The steady state the paper derives (§4.3) — |Smart| = λK, |Stale| = λ(N − K), |Poor| = (1 − λ)N
for K simulations per call — assumes fractional simulations (Smart runs λK·K/N policies a call).
With whole simulations it is reached exactly when, besides those three, the quotas λK·K/N and
λ(N − K)·K/N are whole (e.g. N = 60, Δ = 20, λ = 0.6: 12, 24, 24, of which 4 Smart and 8 Stale
policies run a call). Otherwise the rounding up (the overshoot) settles elsewhere: N = 60, Δ = 15
gives 9, 24, 27 (paper 9, 27, 24: 3 Smart and 6 Stale run, 6 Poor), N = 10, Δ = 5 gives 3, 2, 5
(paper 3, 3, 4); and with 60 policies Δ = 1 and Δ = 2 both settle at 2 simulations a call (one
Smart, one Stale, so Δ = 1 runs Δ + 1), Δ = 1 with Poor empty (2, 58, 0).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.random import SeedLike, resolve_seed

__all__ = ["TimeConstrainedSelection"]


def _generator(seed: SeedLike) -> np.random.Generator:
    """A passed-in Generator is used as it is; anything else seeds a new one."""
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(resolve_seed(seed))


class TimeConstrainedSelection:
    """SC13 Algorithm 1: choose a policy of a portfolio under a budget of simulations per call.

    Parameters
    ----------
    n_policies : int
        N, the number of policies in the portfolio (>= 1); policies are named by their index.
    budget : int
        Δ, the number of policies that may be simulated per call (>= 1; SC13 uses 20 for its 60
        policies, 200 ms at 10 ms per simulation).
    ratio : float
        λ in (0, 1], the fraction of the simulated policies kept as Smart (SC13: 0.6).
    seed : int, numpy.random.Generator or None
        Seeds the random choice among Poor policies.

    Attributes
    ----------
    smart, stale, poor : list of int
        The current lists (Smart best first, Stale oldest first, Poor in the order it was filled).
    last_simulated : list of int
        The policies simulated by the last call, in the order they were simulated.
    last_scores : dict of int to float
        Their utilities.

    Examples
    --------
    >>> sel = TimeConstrainedSelection(6, budget=3, ratio=0.5, seed=1)
    >>> sel.select(lambda i: float(i))   # first call: Smart = all, the first 3 are simulated
    2
    >>> sel.smart, sel.stale, sel.poor
    ([2, 1], [3, 4, 5], [0])
    """

    def __init__(self, n_policies: int, budget: int, ratio: float = 0.6, seed: SeedLike = None):
        self.n_policies = check_int("n_policies", n_policies, low=1)
        self.budget = check_int("budget", budget, low=1)
        self.ratio = check_number("ratio", ratio, low=0.0, high=1.0, low_open=True)
        # Exact λ so that ceil(λ·|Q|) is not pushed up by rounding (0.7 * 10 = 7.000000000000001).
        ratio = Fraction(self.ratio).limit_denominator(10**6)
        self._num, self._den = ratio.numerator, ratio.denominator
        self._rng = _generator(seed)
        self.smart: list[int] = list(range(self.n_policies))
        self.stale: list[int] = []
        self.poor: list[int] = []
        self.last_simulated: list[int] = []
        self.last_scores: dict[int, float] = {}
        self._plan: tuple | None = None

    def select(self, score: Callable[[int], float]) -> int:
        """Run one call of Algorithm 1 and return the chosen policy.

        Parameters
        ----------
        score : callable
            ``score(i)`` simulates policy ``i`` and returns its utility (higher is better).

        Returns
        -------
        int
            The first policy of the new Smart list.

        Examples
        --------
        >>> sel = TimeConstrainedSelection(4, budget=4, seed=0)
        >>> sel.select(lambda i: [3.0, 9.0, 1.0, 5.0][i])
        1
        """
        if not callable(score):
            raise InputError(f"'score' must be a callable giving the utility of policy i, "
                             f"score(i) -> float; got {score!r}.")
        planned = self.plan()
        return self.update({policy: float(score(policy)) for policy in planned})

    def plan(self) -> list[int]:
        """Lines 1-19: the policies this call simulates, in order (without simulating them).

        Which policies Algorithm 1 simulates never depends on the scores of the same call (only
        on the lists and the random draw), so a caller may score them all at once and pass the
        scores to :meth:`update`; ``select(score)`` is ``update`` of ``plan`` scored one by one.
        Calling :meth:`plan` twice without :meth:`update` plans afresh from the same lists (the
        random draw moves on).

        Examples
        --------
        >>> sel = TimeConstrainedSelection(6, budget=3, seed=0)
        >>> sel.plan()
        [0, 1, 2]
        """
        n = self.n_policies
        # Line 2, in units of 1/N of a simulation: delta1 = |Smart|/N * budget, scaled by N.
        delta1 = len(self.smart) * self.budget
        delta2 = len(self.stale) * self.budget
        delta3 = n * self.budget - delta1 - delta2
        n_smart = 0  # lines 3-7: Smart best-first while its quota lasts
        while n_smart < len(self.smart) and delta1 > 0:
            delta1 -= n
            n_smart += 1
        n_stale = 0  # lines 8-12: Stale oldest-first
        while n_stale < len(self.stale) and delta2 > 0:
            delta2 -= n
            n_stale += 1
        delta3 += delta1 + delta2  # line 13: leftovers (or the overshoot) carried over
        poor = list(self.poor)
        drawn: list[int] = []
        while delta3 > 0 and poor:  # lines 14-19, stopping when Poor is empty
            drawn.append(poor.pop(int(self._rng.integers(len(poor)))))
            delta3 -= n
        self._plan = (n_smart, n_stale, drawn, poor)
        return self.smart[:n_smart] + self.stale[:n_stale] + drawn

    def update(self, scores: dict[int, float]) -> int:
        """Lines 20-24: rearrange the lists given the utilities of the planned policies.

        Parameters
        ----------
        scores : dict of int to float
            The utility of every policy :meth:`plan` returned (higher is better).

        Returns
        -------
        int
            The first policy of the new Smart list.
        """
        if self._plan is None:
            raise RuntimeError("TimeConstrainedSelection.update called without plan().")
        n_smart, n_stale, drawn, poor = self._plan
        simulated = self.smart[:n_smart] + self.stale[:n_stale] + drawn
        missing = [p for p in simulated if p not in scores]
        if missing:
            raise InputError(f"'scores' lacks the planned policies {missing}.")
        scores = {p: float(scores[p]) for p in simulated}
        # Unsimulated Smart to the end of Stale; the top ceil(ratio*|Q|) become Smart (stable).
        ranked = _stable_descending(simulated, scores)
        keep = -(-self._num * len(ranked) // self._den)  # ceil(λ·|Q|) in integers
        self.stale = self.stale[n_stale:] + self.smart[n_smart:]
        self.smart = ranked[:keep]
        self.poor = poor + ranked[keep:]
        self.last_simulated = simulated
        self.last_scores = scores
        self._plan = None
        return self.smart[0]

    def __repr__(self) -> str:
        return (f"TimeConstrainedSelection(n_policies={self.n_policies}, budget={self.budget}, "
                f"ratio={self.ratio})")


def _stable_descending(order: list[int], scores: dict[int, float]) -> list[int]:
    """``order`` sorted by descending score, ties kept in ``order``'s order, NaN last."""
    def key(p: int) -> float:
        v = scores[p]
        return math.inf if math.isnan(v) else -v

    return sorted(order, key=key)
