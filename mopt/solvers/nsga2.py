"""NSGA-II for objectives estimated by replications: re-estimated survivors, growing replications.

Deb, Pratap, Agarwal & Meyarivan's NSGA-II (2002) on the finite design space of a
:class:`~mopt.StochasticProblem`, with the budget counted in replications.  Noise is handled the way
the noisy-EMO literature suggests (re-evaluate survivors, grow the sample size as the population
converges): at generation g every member of the population is topped up to r_g replications and
every offspring gets r_g, where r_g grows from ``n_reps0`` to ``n_reps_max``.  Environmental
selection (non-dominated rank, then crowding distance) always uses the *current* sample means, so a
design that looked good on a lucky first replication is re-estimated and dropped.

Because a :class:`~mopt.Result`'s front is taken over every design simulated, the designs on that
front are confirmed with the full ``n_reps_max`` replications as they appear (``confirm_front``).

Operators work on the problem's integer design vectors and keep every design valid: simulated binary
crossover rounded to integers, a ±1 step or random reset per variable, then
:meth:`~mopt.StochasticProblem.repair` maps each child to the nearest design.  The driver in
:mod:`mopt.solvers.base` owns the simulation; :meth:`NSGA2._ask` is a state machine that returns, per
generation, the confirmations, the top-ups of the survivors and the replications of the offspring.
"""

from __future__ import annotations

import math

import numpy as np

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.pareto import pareto_mask
from mopt.core.problem import MAX_REPS, check_reps
from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, Solver, requests

__all__ = ["NSGA2", "rank_and_crowding", "sbx_integer", "mutate_integer"]

#: SBX: probability that a pair is crossed, per-variable exchange probability, distribution index
CROSSOVER_PROB, CROSSOVER_VAR_PROB, CROSSOVER_ETA = 0.9, 0.5, 15.0
#: generations in a row that need no new replication (every child already simulated) before stopping
MAX_FREE_GENERATIONS = 50
#: rounds of crossover + mutation spent looking for children that are not in the population
MAX_OFFSPRING_ROUNDS = 10
#: share of the mutations that reset a variable uniformly (the others step ±1)
MUTATION_RESET = 0.25


def _left(state: SearchState) -> int:
    """The replications left, capped so that int64 arithmetic stays exact (a budget may be any
    int)."""
    return min(state.remaining, MAX_REPS)


def rank_and_crowding(F) -> tuple[np.ndarray, np.ndarray]:
    """Non-dominated rank (0 = first front) and crowding distance (within each front) of rows ``F``.

    Examples
    --------
    >>> rank, cd = rank_and_crowding([[1, 4], [2, 2], [4, 1], [3, 3], [5, 5]])
    >>> rank.tolist(), cd.tolist()
    ([0, 0, 0, 1, 2], [inf, 2.0, inf, inf, inf])
    """
    F = np.asarray(F, dtype=float)
    # pymoo on first use: its import is slow
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    rank = NonDominatedSorting().do(F, return_rank=True)[1].astype(np.int64)
    crowding = np.zeros(len(F))
    for r in np.unique(rank):
        front = np.flatnonzero(rank == r)
        if len(front) <= 2:
            crowding[front] = np.inf
            continue
        cd = np.zeros(len(front))
        for j in range(F.shape[1]):
            order = np.argsort(F[front, j], kind="stable")
            values = F[front[order], j]
            span = values[-1] - values[0]
            cd[order[[0, -1]]] = np.inf
            if span > 0:
                cd[order[1:-1]] += (values[2:] - values[:-2]) / span
        crowding[front] = cd
    return rank, crowding


def _tournament(rank, crowding, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` winners of binary tournaments: lower rank, then larger crowding, then a coin flip."""
    a, b = rng.integers(len(rank), size=(2, n))
    coin = rng.random(n) < 0.5
    a_wins = (rank[a] < rank[b]) | ((rank[a] == rank[b]) & (
        (crowding[a] > crowding[b]) | ((crowding[a] == crowding[b]) & coin)))
    return np.where(a_wins, a, b)


def sbx_integer(P1, P2, xl, xu, rng: np.random.Generator, *, eta: float = CROSSOVER_ETA) -> np.ndarray:
    """Simulated binary crossover (Deb & Agrawal) of parent rows ``P1``, ``P2`` on integer variables
    in [xl, xu]: two children per pair (stacked: first children, then second), rounded and clipped.

    A pair is crossed with probability 0.9 and each variable exchanged with probability 0.5;
    otherwise the children are copies of the parents.
    """
    P1, P2 = np.asarray(P1, dtype=float), np.asarray(P2, dtype=float)
    xl, xu = np.asarray(xl, dtype=float), np.asarray(xu, dtype=float)
    n, m = P1.shape
    y1, y2 = np.minimum(P1, P2), np.maximum(P1, P2)
    gap = np.maximum(y2 - y1, 1e-12)
    u = rng.random((n, m))

    def spread(beta):
        alpha = 2.0 - beta ** -(eta + 1.0)
        return np.where(u <= 1.0 / alpha, (u * alpha) ** (1.0 / (eta + 1.0)),
                        (1.0 / np.maximum(2.0 - u * alpha, 1e-12)) ** (1.0 / (eta + 1.0)))

    c1 = 0.5 * (y1 + y2 - spread(1.0 + 2.0 * (y1 - xl) / gap) * (y2 - y1))
    c2 = 0.5 * (y1 + y2 + spread(1.0 + 2.0 * (xu - y2) / gap) * (y2 - y1))
    swap = rng.random((n, m)) < 0.5
    c1, c2 = np.where(swap, c2, c1), np.where(swap, c1, c2)
    cross = (rng.random((n, 1)) < CROSSOVER_PROB) & (rng.random((n, m)) < CROSSOVER_VAR_PROB) & (P1 != P2)
    C = np.concatenate([np.where(cross, c1, P1), np.where(cross, c2, P2)])
    return np.clip(np.rint(C), xl, xu).astype(np.int64)


def mutate_integer(X, xl, xu, rng: np.random.Generator, *, prob: float | None = None,
                   reset: float | None = None) -> np.ndarray:
    """Mutate each variable of rows ``X`` with probability ``prob`` (None: 1/n_var): a share
    ``reset`` (None: :data:`MUTATION_RESET`) of the mutations resets the variable uniformly in
    [xl, xu], the others step ±1 (reflected at the bounds)."""
    reset = MUTATION_RESET if reset is None else reset
    X = np.array(X, dtype=np.int64)
    xl, xu = np.asarray(xl, dtype=np.int64), np.asarray(xu, dtype=np.int64)
    n, m = X.shape
    hit = rng.random((n, m)) < (1.0 / m if prob is None else prob)
    jump = rng.random((n, m)) < reset
    sign = np.where(rng.random((n, m)) < 0.5, -1, 1)
    moved = X + sign
    moved = np.where(moved < xl, X + 1, np.where(moved > xu, X - 1, moved))
    uniform = xl + np.floor(rng.random((n, m)) * (xu - xl + 1)).astype(np.int64)
    X = np.where(hit & ~jump, moved, np.where(hit & jump, uniform, X))
    return np.clip(X, xl, xu)


class NSGA2(Solver):
    """NSGA-II with a replication budget, re-estimated survivors and growing replications.

    Parameters
    ----------
    pop_size : int or None
        Population size and offspring per generation (None: min(100, n_designs)); 2 ≤ pop_size ≤
        n_designs.  The initial population is drawn without replacement.
    n_reps0 : int
        Replications of a design in the first generation (default 2, ≥ 1).
    n_reps_max : int or None
        Replications that r_g grows to (None: the problem's ``n_reps``; ≥ n_reps0).
    full_reps_at : float
        The growth rule: r_g = min(n_reps_max, n_reps0 + ⌊(n_reps_max − n_reps0 + 1) · f /
        full_reps_at⌋), f the fraction of the budget spent when generation g starts.  r_g rises
        by one in equal budget steps and reaches ``n_reps_max`` once ``full_reps_at`` of the
        budget (default 0.5, in (0, 1]) is spent; the rest of the search runs at full precision.
        It never decreases, and rises by one when a generation would simulate nothing.
    confirm_front : bool
        Default True: before each generation, the designs on the observed Pareto front of
        *everything* simulated so far (the front of the :class:`~mopt.Result`) that have fewer
        than ``n_reps_max`` replications are topped up to ``n_reps_max`` (fewest first), until
        that front is made of fully replicated designs.  A design that joined the front on a few
        lucky replications is thus re-estimated before it can hide truly efficient ones.  False:
        only the population is re-estimated, and the Result's front may hold designs with as
        few as ``n_reps0`` replications.

    Notes
    -----
    At generation g the survivors are topped up to r_g replications and the offspring (children
    not in the population; a child simulated in an earlier generation keeps its replications and
    is only topped up) get r_g; selection ranks parents + offspring on their current means.
    Parents are picked by binary tournament (rank, then crowding); children come from SBX
    (p = 0.9, η = 15, rounded) and a mutation of each variable with probability 1/n_var (¾ a ±1
    step, ¼ a uniform reset), then :meth:`~mopt.StochasticProblem.repair`.  The last generation
    spends what is left: the top-ups first (best-ranked survivors first), then as many offspring
    as it affords (possibly none; less than one offspring's r_g may stay unspent).  Default
    budget: 25 % of exhaustive's (``n_designs × n_reps``), at least ``pop_size × n_reps0``.
    ``info``: ``generations``, ``pop_size``, ``n_reps`` (the final r_g) and ``selected`` (design
    indices of the final population's first front, on the final means).

    Examples
    --------
    >>> import mopt
    >>> def sim(p, rng):
    ...     return (p["x"] + rng.normal(0, 0.1), (9 - p["x"]) ** 2)
    >>> prob = mopt.FunctionProblem(sim, [{"x": x} for x in range(10)], ["time", "cost"], n_reps=4)
    >>> res = mopt.solve(prob, "nsga2", seed=1, budget=60, pop_size=4)
    >>> res.n_evals <= 60, res.info["pop_size"]
    (True, 4)
    """

    name = "nsga2"
    defaults = {"pop_size": None, "n_reps0": 2, "n_reps_max": None, "full_reps_at": 0.5,
                "confirm_front": True}

    # -- options ---------------------------------------------------------------------------
    def _pop_size(self, problem) -> int:
        p = self.options["pop_size"]
        if p is None:
            return min(100, problem.n_designs)
        if problem.n_designs < 2:
            raise InputError(f"'pop_size' needs a problem with at least 2 designs; got {problem.n_designs}.")
        return check_int("pop_size", p, low=2, high=problem.n_designs)

    def _reps(self, problem) -> tuple[int, int]:
        n0 = check_reps("n_reps0", self.options["n_reps0"])
        n_max = self.options["n_reps_max"]
        if n_max is None:
            n_max = check_reps("n_reps", problem.n_reps)  # the problem's, named as such when bad
        n_max = check_reps("n_reps_max", n_max, low=n0)
        return n0, n_max

    def _full_at(self) -> float:
        return check_number("full_reps_at", self.options["full_reps_at"], low=0, high=1, low_open=True)

    def _confirm_front(self) -> bool:
        v = self.options["confirm_front"]
        if not isinstance(v, (bool, np.bool_)):
            raise InputError(f"'confirm_front' must be True or False; got {v!r}.")
        return bool(v)

    def min_budget(self, problem) -> int:
        self._full_at()
        self._confirm_front()
        return self._pop_size(problem) * self._reps(problem)[0]

    def _default_budget(self, problem) -> int:
        low = self.min_budget(problem)  # validates the options (and the problem's n_reps)
        if problem.n_designs > ENUMERATION_LIMIT:
            raise InputError(f"'budget' must be given for method 'nsga2' on a space of {problem.n_designs:,} "
                             f"designs (its default, 25 % of exhaustive search's, is for spaces of at most "
                             f"{ENUMERATION_LIMIT:,} designs: mopt.core.space.ENUMERATION_LIMIT).")
        return max(math.ceil(0.25 * problem.n_designs * problem.n_reps), low)

    # -- the generation loop -----------------------------------------------------------------
    def _target(self, state: SearchState) -> int:
        """r_g for a generation starting now: the growth rule, and never below the last r_g."""
        n0, n_max = self._reps(state.problem)
        f = state.spent / state.budget / self._full_at()
        return max(self._r, min(n_max, n0 + int(math.floor((n_max - n0 + 1) * f))))

    def _ask(self, state: SearchState):
        problem = state.problem
        if state.spent == 0:
            self._pop = problem.sample_designs(state.rng, self._pop_size(problem))
            self._offspring = np.empty(0, dtype=np.int64)
            self._generation, self._r = 0, self._reps(problem)[0]
            return [(self._pop, self._r)]
        n_max = self._reps(problem)[1]
        for _ in range(MAX_FREE_GENERATIONS):
            self._select(state)
            if state.remaining <= 0:
                return []
            if self._confirm_front():
                requests = self._confirm(state)
                if requests:
                    return requests
            requests = self._next_generation(state)
            if requests:
                return requests
            if self._starved and self._r >= n_max:
                return []  # what is left buys no offspring and no top-up
            # nothing to simulate (every child already has r_g replications, or what is left buys
            # none): grow r_g instead, so that the budget goes to top-ups of the survivors
            self._r = min(n_max, self._r + 1)
        return []

    def _confirm(self, state: SearchState):
        """Top up the under-replicated designs of the observed front of every simulated design."""
        n_max = self._reps(state.problem)[1]
        sampled = state.sampled()
        front = sampled[pareto_mask(state.mean[sampled])]
        have = state.count[front]
        need = np.maximum(n_max - have, 0)
        order = np.lexsort((front, have))
        spend = np.diff(np.minimum(np.concatenate([[0], np.cumsum(need[order])]), _left(state)))
        add = np.zeros(len(front), dtype=np.int64)
        add[order] = spend
        return requests(front, add)

    def _select(self, state: SearchState) -> None:
        """Environmental selection over parents + offspring on the current sample means."""
        if len(self._offspring):
            merged = np.concatenate([self._pop, self._offspring])
            rank, crowding = rank_and_crowding(state.mean[merged])
            order = np.lexsort((state.rng.random(len(merged)), -crowding, rank))
            self._pop = merged[order[: len(self._pop)]]
            self._offspring = np.empty(0, dtype=np.int64)

    def _ranked(self, state: SearchState) -> tuple[np.ndarray, np.ndarray]:
        return rank_and_crowding(state.mean[self._pop])

    def _next_generation(self, state: SearchState):
        """Top-ups of the survivors and replications of the offspring of one generation."""
        self._r = r = self._target(state)
        rank, crowding = self._ranked(state)
        top_up = np.maximum(r - state.count[self._pop], 0)
        self._starved = False
        left = _left(state)
        if top_up.sum() >= left:  # last generation: top up the best-ranked first
            self._generation += 1
            order = np.lexsort((-crowding, rank))
            spend = np.diff(np.minimum(np.concatenate([[0], np.cumsum(top_up[order])]), left))
            add = np.zeros(len(self._pop), dtype=np.int64)
            add[order] = spend
            return requests(self._pop, add)
        children = self._children(state, rank, crowding)
        cost = np.maximum(r - state.count[children], 0)
        affordable = np.cumsum(cost) <= left - top_up.sum()
        self._starved = not affordable.all()
        self._offspring = children[affordable]
        if len(self._offspring) or top_up.any():
            self._generation += 1
        return requests(np.concatenate([self._pop, self._offspring]),
                         np.concatenate([top_up, cost[affordable]]))

    def _children(self, state: SearchState, rank, crowding) -> np.ndarray:
        """Up to pop_size new designs (not in the population, distinct) bred from the population."""
        problem, rng = state.problem, state.rng
        n = len(self._pop)
        X = np.array([problem.design(int(i)) for i in self._pop])
        xl, xu = np.asarray(problem.xl), np.asarray(problem.xu)
        seen = set(self._pop.tolist())
        found: list[int] = []
        for _ in range(MAX_OFFSPRING_ROUNDS):
            parents = _tournament(rank, crowding, 2 * math.ceil(n / 2), rng)
            half = len(parents) // 2
            C = sbx_integer(X[parents[:half]], X[parents[half:]], xl, xu, rng)
            C = mutate_integer(C, xl, xu, rng)
            for i in problem.repair(C).tolist():
                if i not in seen:
                    seen.add(i)
                    found.append(i)
            if len(found) >= n:
                break
        return np.array(found[:n], dtype=np.int64)

    def _info(self, state: SearchState) -> dict:
        rank, _ = self._ranked(state)
        return {"generations": int(self._generation), "pop_size": int(len(self._pop)), "n_reps": int(self._r),
                "selected": sorted(int(i) for i in self._pop[rank == 0])}
