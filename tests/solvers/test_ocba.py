"""OCBA: Chen & Lee's allocation rule, its edge cases, and the sequential procedure's PCS."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import mopt
from mopt import InputError, NormalProblem
from mopt.solvers import ocba_allocation
from mopt.solvers.ocba import allocate, largest_remainder, ocba_ratios


def test_chen_lee_worked_example():
    # means 1..5, variances 1,1,9,9,4, 50 more replications (Chen & Lee 2011, ch. 3)
    add = ocba_allocation([1, 2, 3, 4, 5], [1, 1, 9, 9, 4], 50, integer=False)
    np.testing.assert_allclose(add, [11.2, 8.6, 19.4, 8.6, 2.2], atol=0.06)
    assert add.sum() == pytest.approx(50)
    # by hand: N_i ∝ σ_i²/δ_i² = 1, 2.25, 1, 0.25; N_1 = sqrt(1 + 2.25²/9 + 1/9 + 0.25²/4)
    n1 = np.sqrt(1 + 2.25**2 / 9 + 1 / 9 + 0.0625 / 4)
    np.testing.assert_allclose(add / add[1], [n1, 1, 2.25, 1, 0.25], rtol=1e-12)
    assert ocba_allocation([1, 2, 3, 4, 5], [1, 1, 9, 9, 4], 50).tolist() == [11, 9, 19, 9, 2]


@pytest.mark.parametrize("budget", [0, 1, 7, 50, 333])
def test_always_adds_exactly_the_budget(budget):
    rng = np.random.default_rng(budget)
    for _ in range(50):
        k = int(rng.integers(1, 12))
        means = rng.normal(size=k).round(1)  # rounding makes ties
        var = rng.choice([0.0, 0.5, 2.0], size=k)
        cur = rng.integers(0, 40, size=k)
        add = ocba_allocation(means, var, budget, current=cur)
        assert add.dtype.kind == "i" and (add >= 0).all() and add.sum() == budget


def test_ties_zero_variance_and_over_allocated_designs():
    # two designs tied for best with equal variance share the budget; the rest get nothing
    assert ocba_allocation([1, 1, 5], [1, 1, 1], 10).tolist() == [5, 5, 0]
    # a design with zero variance needs no replications
    r = ocba_ratios([1, 2, 3], [1, 0, 1])
    assert r[1] == 0 and r[0] > 0 and r[2] > 0
    # all variances zero: equal shares (no division by zero)
    np.testing.assert_allclose(ocba_ratios([1, 2, 3], [0, 0, 0]), 1 / 3)
    # a design already far above its share gets nothing; the others share the whole budget
    add = ocba_allocation([1, 2, 3], [1, 1, 1], 10, current=[100, 0, 0], integer=False)
    assert add[0] == 0 and add.sum() == pytest.approx(10)
    # infinite means (e.g. a utility's "over budget") get nothing
    assert ocba_allocation([1, np.inf, 2], [1, 1, 1], 12)[1] == 0


def test_allocate_follows_ratios_when_nothing_is_over():
    np.testing.assert_allclose(allocate([0.5, 0.25, 0.25], [10, 5, 5], 20), [10, 5, 5])


def test_largest_remainder_rule():
    assert largest_remainder([1.5, 1.5, 2.0], 5).tolist() == [2, 1, 2]  # tie -> lower index
    assert largest_remainder([0.2, 0.7, 0.1], 1).tolist() == [0, 1, 0]


def test_bad_arguments_name_the_parameter():
    with pytest.raises(InputError, match="'variances'"):
        ocba_allocation([1, 2], [1, -1], 5)
    with pytest.raises(InputError, match="'variances' must have one entry per design"):
        ocba_allocation([1, 2], [1], 5)
    with pytest.raises(InputError, match="'budget'"):
        ocba_allocation([1, 2], [1, 1], -1)
    with pytest.raises(InputError, match="'means'"):
        ocba_allocation([1, np.nan], [1, 1], 5)
    prob = NormalProblem([1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="'n0'"):
        mopt.solve(prob, "ocba", n0=1)
    with pytest.raises(InputError, match="'delta'"):
        mopt.solve(prob, "ocba", delta=0)
    with pytest.raises(InputError, match="'budget' must be >= 30"):
        mopt.solve(prob, "ocba", budget=29, n0=10)
    with pytest.raises(InputError, match="'budget' must be >= 6"):  # default n0: at least 2
        mopt.solve(prob, "ocba", budget=5)
    with pytest.raises(InputError, match="'utility'"):
        mopt.solve(prob, "ocba", utility="nope")


def test_default_n0_is_half_the_budget_between_2_and_10():
    prob = NormalProblem(np.arange(10.0), n_reps=10)
    assert mopt.solve(prob, "ocba", seed=1).info["n0"] == 5          # budget 100: 50 on n0
    assert mopt.solve(prob, "ocba", seed=1, budget=30).info["n0"] == 2
    assert mopt.solve(prob, "ocba", seed=1, budget=10_000).info["n0"] == 10


def test_sequential_ocba_spends_more_on_close_competitors():
    prob = NormalProblem([1.0, 1.2, 5.0, 9.0], sd=1.0)
    res = mopt.solve(prob, "ocba", budget=400, seed=3, n0=10, delta=20)
    n = res.evaluations.set_index("design")["n_reps"]
    assert res.n_evals == 400 and n.sum() == 400
    assert n[0] + n[1] > 300 and n[3] < 20
    assert res.info["best"] == 0


def _equal_allocation_pcs(means, sd, n):
    """Exact PCS of equal allocation (n replications each, independent normal noise)."""
    s = sd / np.sqrt(n)
    f = lambda x: stats.norm.pdf(x, means[0], s) * np.prod(stats.norm.sf(x, means[1:], s))  # noqa: E731
    return integrate.quad(f, means[0] - 12 * s, means[0] + 12 * s, limit=200)[0]


def test_ocba_reaches_pcs_09_with_half_of_equal_allocations_budget():
    # Chen & Lee's ten designs: means 1..10, σ = 6.  Equal allocation needs n ≥ 121 per design
    # (1,210 replications) for PCS ≥ 0.9, computed exactly; OCBA gets there with 600.
    means = np.arange(1, 11, dtype=float)
    n_equal = next(n for n in range(10, 400) if _equal_allocation_pcs(means, 6.0, n) >= 0.9)
    assert n_equal == 121
    budget = 10 * n_equal // 2
    prob = NormalProblem(means, sd=6.0)
    macroreps = 200
    correct = sum(mopt.solve(prob, "ocba", budget=budget, seed=k, n0=10, delta=20).info["best"] == 0
                  for k in range(macroreps))
    assert correct / macroreps >= 0.9


# -- bookkeeping: a round scores only what it added, with the statistics of a recomputation ------------
def test_a_round_scores_only_the_replications_it_added():
    # the utility sees every replication once, plus one row per design whose mean changed: at most
    # n_evals + 10 (first stage) + 10 per round.  Re-scoring every replication of the designs a round
    # touched (the bookkeeping before) scores the close competitors' hundreds of replications again
    # in each of the 190 rounds.
    rows = []

    def counting(df):
        rows.append(len(df))
        return df["f1"]

    prob = NormalProblem(np.arange(10.0) * 0.1, sd=1.0)
    res = mopt.solve(prob, "ocba", budget=2000, seed=4, n0=10, delta=10, utility=counting)
    rounds = (2000 - 10 * 10) // 10
    assert res.n_evals == 2000 and len(rows) <= rounds + 2
    assert sum(rows) <= res.n_evals + 10 + 10 * rounds


class _Recomputed:
    """The statistics of ScoreStats recomputed from every replication at each update (the
    bookkeeping before the incremental one), as the reference."""

    def __init__(self, problem, utility, designs):
        self.problem, self.utility, self.designs = problem, utility, designs
        self.n = np.zeros(len(designs), dtype=np.int64)
        self.mean = np.full(len(designs), np.nan)
        self.var = np.full(len(designs), np.nan)
        self.cap = 0.0

    def update(self, state):
        from mopt.solvers.base import utility_scores

        counts = state.count[self.designs]
        stale = np.flatnonzero(counts != self.n)
        if not len(stale):
            return
        counts, designs = counts[stale], self.designs[stale]
        per_rep = utility_scores(self.problem, self.utility, np.concatenate([state.samples[int(i)] for i in designs]))
        means = utility_scores(self.problem, self.utility, state.mean[designs])
        finite = per_rep[np.isfinite(per_rep)]
        self.cap = max(self.cap, finite.max()) if finite.size else self.cap
        per_rep = np.where(np.isfinite(per_rep), per_rep, self.cap)
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        sums = np.add.reduceat(per_rep, starts)
        sq = np.add.reduceat(per_rep**2, starts)
        var = np.where(counts > 1, (sq - sums**2 / counts) / np.maximum(counts - 1, 1), 0.0)
        self.n[stale], self.mean[stale], self.var[stale] = counts, means, np.clip(var, 0.0, None)


# a few entries, many moves of their segments; 200 entries, several touched at a time
@pytest.mark.parametrize("designs, most", [(np.array([0, 2, 3, 5]), 3), (np.arange(0, 400, 2), 60)])
def test_incremental_score_statistics_equal_a_recomputation_bit_for_bit(designs, most):
    from mopt.solvers.base import SearchState
    from mopt.solvers.ocba import ScoreStats

    prob = NormalProblem(np.zeros((designs.max() + 1, 2)), n_reps=2)
    # over a budget of 1.0 a replication scores inf: counted as the worst finite score seen so far
    utility = mopt.utility.within_budget("f2", 1.0, then="f1")
    state = SearchState(prob, 10**6, np.random.default_rng(0))
    new, old = ScoreStats(prob, utility, designs), _Recomputed(prob, utility, designs)
    rng = np.random.default_rng(8)
    for step in range(40):
        picked = designs if step == 0 else np.sort(rng.choice(designs, size=rng.integers(1, most + 1), replace=False))
        n = int(rng.integers(2, 9) if step == 0 else rng.integers(1, 6))
        values = rng.normal(1.0, 2.0, size=(len(picked), n, 2)) * rng.choice([1e-3, 1.0, 1e3])
        values[picked == 0, :, 1] = -1.0  # design 0 is always within the budget
        state.record_group(picked, values)
        new.update(state)
        old.update(state)
        assert new.cap == old.cap
        for name in ("n", "mean", "var"):
            np.testing.assert_array_equal(getattr(new, name), getattr(old, name), err_msg=f"{name} at step {step}")
    assert new._odd.any() and (~new._odd).any() and np.isfinite(new.cap)  # both kinds of entries seen


def test_a_utility_undefined_on_the_objectives_is_named():
    # U's (R_J/R_V)^0.5 of a negative "utilisation" is NaN: one error naming the utility and the
    # objective values, not a NaN mean deep inside the allocation
    prob = NormalProblem([[-1.0, 2.0], [-2.0, 3.0]], sd=0.1, objectives=("utilisation", "bsd"))
    with pytest.raises(InputError, match=r"'utility' U\(alpha=0.5.*undefined \(NaN\).*'utilisation': -"):
        mopt.solve(prob, "ocba", budget=40, seed=1, utility=mopt.utility.U(alpha=0.5))


def test_a_nan_score_of_an_infinite_objective_is_left_to_the_search():
    # inf × 0 is NaN: an infinite objective (a run that never ends) is the search's worst case,
    # not a bad utility, so utility_scores passes it through (OCBA counts it as the worst score)
    from mopt.solvers.base import utility_scores

    prob = NormalProblem([[1.0, 2.0]], objectives=("makespan", "cost"))
    scores = utility_scores(prob, mopt.utility.product("makespan", "cost"), np.array([[np.inf, 0.0], [2.0, 3.0]]))
    assert np.isnan(scores[0]) and scores[1] == 6.0
