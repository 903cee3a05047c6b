"""Screen: one replication on as many designs as the budget allows, then the rest where it changes
the front — mopt's method for budgets below a few replications per design.

Methods that give every design they look at ``n0 ≥ 2`` replications (OCBA, MOCBA) spend half of a
small budget on variances; at budgets below about two replications per design, a search that looks
once at twice as many designs covers the front better (breadth beats depth: implicit averaging
against re-evaluation, Diaz & Handl 2015; the peers suite of ``figures/peers_suite.md``).  Screen
therefore runs in two phases (the split and the rules are ours, after the works cited):

1. **Breadth.** ``k = min(n_designs, ceil(breadth · budget))`` designs get one replication each
   (every design when the budget pays for one look at each and ``breadth`` is not given: on the
   suite, seeing all once beat any subset at that budget).  When ``k`` is every design, they are
   every design.  Otherwise ``1 − guided`` of them are
   space-filling — a Latin hypercube over the design parameters ``[xl, xu]``, its points that are
   designs kept and the rest drawn uniformly (mapping a point to its nearest design would favour
   the designs at the edges of a constrained space) — and the rest are guided, in
   four rounds, by a model of the parameters as simple as it gets: the unseen grid neighbours
   (one parameter one step up or down, where that is a design) of the observed front's designs,
   then of the next layers,
   as local search around a Pareto set proposes (a uniform draw when no neighbour is left).  On a
   sparse space — under :data:`SPARSE` of the box ``[xl, xu]`` is designs, as subsets coded as 0/1
   vectors are — every look is stratified over the design indices instead (no neighbourhood to
   guide by; mapping box points to their nearest designs would favour a few).
2. **Depth: elimination on common replications.**  Each round, every design seen is scored by
   how surely the observed front dominates it (:func:`dominance_margins`: the best front design's
   smallest separation over the objectives, in standard errors, on the replications both have),
   with variances *pooled across designs* so that one replication per design is enough
   (:func:`pooled_variances`: per objective, the relative variance ``s²/x̄²`` averaged over the
   designs with two or more replications, weights ``n − 1``; the absolute variance if an objective
   takes values ≤ 0 or spans more than a factor :data:`RELATIVE_RANGE`; shrunk toward a design's
   own variance as its replications accumulate, ``((n−1)·s² + prior·pooled) / (n − 1 + prior)``,
   an empirical-Bayes pooling as stochastic kriging pools a noise model).  With a ``utility``, a
   design not surely worse than the utility's best also stays.  The designs still in play (margin
   below ``z``) are brought to a common count, half again the fewest any of them has (1, 2, 3, 5,
   8, …); a design eliminated earlier comes back when its margin falls.  Equal counts matter under
   common random numbers: designs compare on the same replications, as in successive elimination
   of the Pareto set (EGE-SR / EGE-SH, Kone, Kaufmann & Richert 2023).  The first round, before
   any design has two replications, gives a second one to the designs just behind the observed
   front (its second layer: refining the front's own designs first would let lucky single looks
   push them off it before the noise is known, while a design behind the front can only join it).  A round that does
   not fit in what is left is not run: the rest goes to more first looks while designs are unseen,
   and is otherwise not spent (``n_evals`` says so) — half a round would leave designs compared
   on different replications, which misleads more than it informs under common random numbers.
   On a sparse space ``breadth`` defaults to 1 (no neighbourhood to guide looks: breadth first).

Only the designs looked at are stored (never one entry per design of the space): a space of 5·10⁹
designs costs what the budget costs.  The draws come from the run's Generator, so the same seed
gives the same search on any executor and a journal resumes it.
"""

from __future__ import annotations

import math

import numpy as np

from mopt.core.errors import InputError, check_number
from mopt.core.pareto import pareto_mask
from mopt.core.problem import check_reps
from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, Solver, requests, resolve_utility, utility_scores

__all__ = ["Screen", "pooled_variances", "layers"]

#: rounds of the guided part of the breadth phase
GUIDED_ROUNDS = 4


#: variances are pooled relative to the squared mean when an objective's means are > 0 and span at
#: most this factor (noise that grows with the level, as makespans'); else absolute (ours: a mean
#: near 0 would make a relative variance explode)
RELATIVE_RANGE = 100.0


#: guided looks and depth before the last look only when one look tells at least this share of the
#: designs apart (surely dominated after pooling); below, the budget goes to unguided breadth (ours)
RESOLVED = 0.2

#: below this share of its box [xl, xu] holding designs, a space is sparse: nearest-design mapping
#: would favour the few designs near many box points (ours)
SPARSE = 0.1


def box_density(problem) -> float:
    """The share of the integer box [xl, xu] that is designs (e.g. 55 subsets of 2,048 vectors)."""
    sides = np.asarray(problem.xu, dtype=float) - np.asarray(problem.xl, dtype=float) + 1
    return float(np.exp(math.log(problem.n_designs) - np.log(sides).sum()))


def layers(F: np.ndarray) -> list[np.ndarray]:
    """The non-dominated layers of the rows of ``F`` (positions, each layer sorted)."""
    left = np.arange(len(F))
    out = []
    while len(left):
        front = pareto_mask(F[left])
        out.append(left[front])
        left = left[~front]
    return out


def dominance_margins(M: np.ndarray, V: np.ndarray, counts: np.ndarray, front: np.ndarray,
                      samples=None) -> np.ndarray:
    """For each design, how surely the observed ``front`` dominates it: the largest, over the
    front's other designs j, of ``min_l (x̄_il − x̄_jl) / sqrt((V_il + V_jl) / c)`` (the objective on
    which j is least surely better decides; an objective on which they are exactly equal leaves no
    doubt and is skipped, a design with the very same means is not dominated; ≤ 0 for the front's
    own designs, −∞ when nothing else is on the front).

    With ``samples`` (each design's replications, in order) the means compared are those of the
    replications both designs have, ``c = min(n_i, n_j)``: under common random numbers a design
    seen once is compared with the front on that same replication, not with the front's average
    over replications it has not had (ours).  Without, ``M`` and ``c`` per design
    (``V_il/n_i + V_jl/n_j``)."""
    out = np.full(len(M), -np.inf)
    if samples is not None:
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        prefix = np.concatenate([np.cumsum(x, axis=0) for x in samples])  # per design: exact for equal rows
    for j in np.flatnonzero(front).tolist():
        if samples is None:
            diff = M - M[j]
            scale = np.sqrt(V / counts[:, None] + V[j] / counts[j])
        else:
            c = np.minimum(counts, counts[j])
            diff = (prefix[start + c - 1] - prefix[start[j] + c - 1]) / c[:, None]
            scale = np.sqrt((V + V[j]) / c[:, None])
        with np.errstate(invalid="ignore", divide="ignore"):  # exact differences: ±∞
            z = np.where(scale > 0, diff / np.where(scale > 0, scale, 1.0), np.sign(diff) * np.inf)
        tie = diff == 0  # equal on an objective (exactly, as common random numbers give): no doubt there
        surely = np.where(tie, np.inf, z).min(axis=1)
        surely[tie.all(axis=1)] = -np.inf  # the same means (an equivalent design, or j itself)
        out = np.maximum(out, surely)
    out[front] = np.minimum(out[front], 0.0)
    return out


def pooled_variances(means: np.ndarray, variances: np.ndarray, counts: np.ndarray, prior: float) -> np.ndarray:
    """Per-replication variances (n, n_obj) of designs with ``means``, own sample ``variances``
    (NaN below two replications) and ``counts``: each objective's pooled variance (relative to the
    squared mean when its means are > 0 and within :data:`RELATIVE_RANGE` of each other, else
    absolute), shrunk toward the design's own
    as its replications accumulate (module docstring).  Zero where nothing is pooled yet."""
    w = np.clip(counts - 1, 0, None).astype(float)
    pool = w > 0
    out = np.zeros_like(means, dtype=float)
    if not pool.any():
        return out
    for j in range(means.shape[1]):
        m, s2 = means[pool, j], variances[pool, j]
        if (means[:, j] > 0).all() and means[:, j].max() <= RELATIVE_RANGE * means[:, j].min():
            base = float(np.sum(w[pool] * s2 / m**2) / w[pool].sum()) * means[:, j] ** 2
        else:
            base = np.full(len(means), float(np.sum(w[pool] * s2) / w[pool].sum()))
        own = np.where(pool, np.nan_to_num(variances[:, j]), 0.0)
        out[:, j] = (w * own + prior * base) / (w + prior) if prior > 0 else np.where(pool, own, base)
    return out


def _designs_at(problem, X: np.ndarray) -> np.ndarray:
    """The designs whose vectors are rows of ``X``, in order (rows that are no design are dropped:
    ``problem.index`` refuses them)."""
    out = []
    for x in np.asarray(X).astype(np.int64):
        try:
            out.append(int(problem.index(x)))
        except (ValueError, TypeError, InputError):
            continue
    return np.array(out, dtype=np.int64)


class Screen(Solver):
    """Breadth, then depth (see the module): one replication on ``ceil(breadth · budget)`` designs
    (at most every design), ``guided`` of them proposed next to the observed front, the rest of the
    budget spent by elimination on common replications with variances pooled across designs.

    Options: ``breadth`` (0.8: the budget's share of first looks), ``guided`` (0.5: the first looks'
    share proposed next to the front), ``z`` (2.0: the margin, in standard errors, beyond which a
    design counts as dominated), ``prior`` (4: the pooled variance's weight in replications).  The default budget is exhaustive's (``n_designs × n_reps``); above
    :data:`~mopt.core.space.ENUMERATION_LIMIT` designs give a budget.  ``info`` says how the budget
    was spent: ``looks`` (space-filling and guided), ``depth`` replications and ``rounds``.
    """

    name = "screen"
    defaults = {"breadth": 0.8, "guided": 0.5, "z": 2.0, "prior": 4, "utility": None}

    def _checked(self) -> tuple[float, float, float]:
        o = self.options
        breadth = check_number("breadth", o["breadth"], low=0, high=1, low_open=True)
        guided = check_number("guided", o["guided"], low=0, high=1, high_open=True)
        prior = check_number("prior", o["prior"], low=0)
        check_number("z", o["z"], low=0, allow_inf=True)
        return breadth, guided, prior

    def min_budget(self, problem) -> int:
        self._checked()
        if self.options["utility"] is not None:
            resolve_utility(problem, self.options["utility"])
        return 1

    def _default_budget(self, problem) -> int:
        self._checked()
        n = problem.n_designs
        if n > ENUMERATION_LIMIT:
            raise InputError(f"method 'screen' needs a 'budget' on a space of {n:,} designs (above "
                             f"mopt.core.space.ENUMERATION_LIMIT = {ENUMERATION_LIMIT:,}).")
        return n * check_reps("n_reps", problem.n_reps)

    def _looks(self, problem, budget: int) -> int:
        breadth = self._checked()[0]
        if budget >= problem.n_designs and "breadth" not in self.given:
            return int(problem.n_designs)  # the budget sees every design: it does, first
        if box_density(problem) < SPARSE and "breadth" not in self.given:
            breadth = 1.0  # no neighbourhood to guide looks: the budget goes to breadth first
        return int(min(problem.n_designs, max(1, math.ceil(breadth * budget))))

    # -- the search --------------------------------------------------------------------------
    def _ask(self, state: SearchState):
        problem = state.problem
        if state.spent == 0:
            self._k = min(self._looks(problem, state.budget), state.budget)
            self._seen: set[int] = set()
            self._filled = self._rounds = 0
            self._told = None  # the share of single looks surely dominated, once measured
            u = self.options["utility"]
            self._utility = None if u is None else resolve_utility(problem, u)
            if self._k == problem.n_designs:
                first = np.arange(problem.n_designs, dtype=np.int64)
            else:
                guided = 0.0 if box_density(problem) < SPARSE else self._checked()[1]  # nothing to guide by
                n_fill = max(1, self._k - math.floor(guided * self._k))
                first = self._space_filling(state, n_fill)
            self._filled = len(first)
            return self._look(first)
        looked = len(self._seen)
        if looked < self._k:
            if self._told is None:  # a second look at the front, to pool variances and measure the noise
                room = state.remaining - (self._k - looked)
                pool = self._depth(state, limit=room) if room > 0 else None
                # no room at all (breadth = 1): guided as configured; a front too large for the room
                # left: one look tells too little (below)
                self._told = 1.0 if room <= 0 else np.nan
                if pool:
                    return pool
            if self._told is not None and np.isnan(self._told):
                self._told = self._resolved(state)
                if self._told < RESOLVED:  # one look tells too little: breadth, unguided, all the way
                    self._k = min(problem.n_designs, looked + state.remaining)
            per_round = max(1, math.ceil((self._k - self._filled) / GUIDED_ROUNDS))
            n = min(per_round, self._k - looked)
            return self._look(self._uniform(state, n) if self._told < RESOLVED else self._guided(state, n))
        if state.remaining <= 0:
            return []
        deeper = self._depth(state)
        if deeper:
            return deeper
        # no complete round fits: the rest goes to more first looks while designs are left, else it
        # is not spent (a partial round would compare designs on different replications)
        self._k = min(problem.n_designs, looked + state.remaining)
        return self._look(self._guided(state, self._k - looked)) if self._k > looked else []

    def _resolved(self, state: SearchState) -> float:
        """The share of the designs seen once that the front surely dominates (0 before any pooling)."""
        seen = np.array(sorted(self._seen), dtype=np.int64)
        counts = state.count[seen]
        once = counts == 1
        if not (counts >= 2).any() or not once.any():
            return 0.0
        M = state.means(seen)
        V = pooled_variances(M, state.var[seen], counts, self._checked()[2])
        margin = dominance_margins(M, V, counts, pareto_mask(M), [state.samples[int(i)] for i in seen])
        return float(np.mean(margin[once] >= self.options["z"]))

    def _look(self, designs: np.ndarray):
        self._seen.update(designs.tolist())
        return [(designs, 1)] if len(designs) else []

    def _fresh(self, candidates, n: int) -> np.ndarray:
        """The first ``n`` distinct candidates not yet seen, in order."""
        out, seen = [], set()
        for i in np.asarray(candidates, dtype=np.int64).tolist():
            if i not in self._seen and i not in seen:
                seen.add(i)
                out.append(i)
                if len(out) == n:
                    break
        return np.array(out, dtype=np.int64)

    def _uniform(self, state: SearchState, n: int, have=()) -> np.ndarray:
        """``n`` unseen designs drawn uniformly (after ``have``)."""
        got = np.asarray(have, dtype=np.int64)
        left = state.problem.n_designs - len(self._seen)
        n = min(n, left)
        while len(got) < n:
            more = state.problem.sample_designs(state.rng, min(left, 2 * (n - len(got)) + 8))
            got = np.concatenate([got, more])
            got = self._fresh(got, n)
        return got

    def _space_filling(self, state: SearchState, n: int) -> np.ndarray:
        """A Latin hypercube of ``n`` points over [xl, xu], those that are designs kept (distinct),
        topped up uniformly (mapping a point to its nearest design would favour the designs at the
        box's edges); on a sparse box (:func:`box_density`), one index drawn in each of
        ``n`` equal strata of the design indices."""
        problem, rng = state.problem, state.rng
        if box_density(problem) < SPARSE:
            N = problem.n_designs
            strata = np.floor((np.arange(n) + rng.random(n)) * (N / n)).astype(np.int64)
            return self._uniform(state, n, self._fresh(np.clip(strata, 0, N - 1), n))
        xl, xu = np.asarray(problem.xl, dtype=float), np.asarray(problem.xu, dtype=float)
        strata = (np.argsort(rng.random((len(xl), n)), axis=1).T + rng.random((n, len(xl)))) / n
        X = np.clip(np.floor(xl + strata * (xu - xl + 1)), xl, xu)
        return self._uniform(state, n, self._fresh(_designs_at(problem, X), n))  # points off the designs: uniform

    def _guided(self, state: SearchState, n: int) -> np.ndarray:
        """Up to ``n`` unseen neighbours of the observed layers' designs, front first (uniform
        draws on a sparse box, where a step off a design rarely lands on another)."""
        problem, rng = state.problem, state.rng
        if box_density(problem) < SPARSE:
            return self._uniform(state, n)
        seen = np.array(sorted(self._seen), dtype=np.int64)
        xl, xu = np.asarray(problem.xl), np.asarray(problem.xu)
        steps = np.concatenate([np.eye(len(xl), dtype=np.int64), -np.eye(len(xl), dtype=np.int64)])
        got = np.zeros(0, dtype=np.int64)
        for layer in layers(state.means(seen)):
            parents = seen[layer][rng.permutation(len(layer))]
            X = np.array([problem.design(int(i)) for i in parents.tolist()], dtype=np.int64)
            near = (X[:, None, :] + steps[None, :, :]).reshape(-1, len(xl))
            near = near[((near >= xl) & (near <= xu)).all(axis=1)]
            if len(near):
                got = self._fresh(np.concatenate([got, _designs_at(problem, near)]), n)
            if len(got) >= n:
                break
        return self._uniform(state, n, got)

    def _depth(self, state: SearchState, limit: int | None = None):
        """One round of elimination (module docstring): the designs not surely dominated by the
        observed front — nor, with a ``utility``, surely worse than its best — brought to a common
        count; None when no complete round fits in the budget left."""
        seen = np.array(sorted(self._seen), dtype=np.int64)
        M, counts = state.means(seen), state.count[seen]
        front = pareto_mask(M)
        if (counts >= 2).any():
            V = pooled_variances(M, state.var[seen], counts, self._checked()[2])
            margin = dominance_margins(M, V, counts, front, [state.samples[int(i)] for i in seen])
            if self._utility is not None:
                margin = np.minimum(margin, self._utility_margins(state, seen, counts))
            keep = margin < self.options["z"]
        else:  # nothing to pool yet: a second replication of the designs just behind the front
            # (refining the front's own would let single looks push them off it before the noise
            # is known; behind it, a design can only join it)
            shells = layers(M)
            keep = np.zeros(len(seen), dtype=bool)
            keep[shells[1] if len(shells) > 1 else shells[0]] = True
        low = int(counts[keep].min())
        target = low + max(1, math.ceil(low / 2))  # counts grow by half each round: 1, 2, 3, 5, 8, …
        left = state.remaining if limit is None else limit
        cost = lambda t: int(np.clip(t - counts[keep], 0, None).sum())  # noqa: E731
        while target > low + 1 and cost(target) > left:
            target -= 1
        if cost(target) > left:
            return None
        todo = np.flatnonzero(keep & (counts < target))
        self._rounds += 1
        return requests(seen[todo], target - counts[todo])

    def _utility_margins(self, state: SearchState, seen: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """How surely each design's utility is worse than the best's, in standard errors of the
        pooled per-replication scores."""
        rows = [state.samples[int(i)] for i in seen]
        scores = utility_scores(state.problem, self._utility, np.concatenate(rows))
        cap = np.nanmax(np.where(np.isfinite(scores), scores, np.nan)) if np.isfinite(scores).any() else 0.0
        scores = np.where(np.isfinite(scores), scores, cap)  # an infeasible replication: the worst seen
        starts = np.cumsum(counts) - counts
        mean = np.add.reduceat(scores, starts) / counts
        var = np.where(counts > 1, (np.add.reduceat(scores**2, starts) - counts * mean**2) / np.maximum(counts - 1, 1), np.nan)
        V = pooled_variances(mean[:, None], np.clip(var, 0, None)[:, None], counts, self._checked()[2])[:, 0]
        b = int(np.argmin(mean))
        scale = np.sqrt(V / counts + V[b] / counts[b])
        with np.errstate(invalid="ignore", divide="ignore"):
            z = np.where(scale > 0, (mean - mean[b]) / np.where(scale > 0, scale, 1.0), np.inf)
        z[mean == mean[b]] = 0.0
        return z

    def _info(self, state: SearchState) -> dict:
        return {"looks": int(len(self._seen)), "space_filling": int(self._filled),
                "guided": int(len(self._seen) - self._filled), "depth": int(state.spent - len(self._seen)),
                "rounds": int(self._rounds)}
