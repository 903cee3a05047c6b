"""Huge design spaces: every sampling method runs on 10**12 designs with bounded memory; the
methods that must touch every design refuse with a clear error; the state holds only what was
simulated.

The test problem's design is a vector of four integers in 0..999 (10**12 designs, index = the
vector read as a base-1000 number) with closed-form means
``f1 = sum((x/1000 - 0.3)**2) + 0.1``, ``f2 = sum((x/1000 - 0.7)**2) + 0.1`` and normal noise of
sd 0.01 (common random numbers: replication r adds the same draws to every design).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import mopt
from mopt import InputError
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_rng
from mopt.core.space import ENUMERATION_LIMIT
from mopt.solvers.base import SearchState, _plan

BASE, DIM, SD = 1000, 4, 0.01
#: peak of Python-traced memory (numpy arrays included) allowed for one search of the 10**12 space
#: (measured: 0.04-0.18 MB; one float per design would take 8 TB).  Measured on a second run, so
#: that one-off costs (imports, Numba compilation: up to 28 MB for MOCBA) are not counted.
MEMORY_BOUND = 8 * 2**20


class GridProblem(StochasticProblem):
    """Designs: integer vectors in {0..999}^4; the mean of each objective in closed form."""

    parameter_names = tuple(f"x{j}" for j in range(DIM))

    def __init__(self, n_reps: int = 10, seed: int = 0):
        super().__init__(objectives=("f1", "f2"), n_var=DIM, xl=np.zeros(DIM), xu=np.full(DIM, BASE - 1),
                         n_reps=n_reps, seed=seed)

    @property
    def n_designs(self) -> int:
        return BASE**DIM

    def design(self, i):
        i = self._check_index(i)
        return np.array([(i // BASE**(DIM - 1 - j)) % BASE for j in range(DIM)], dtype=np.int64)

    def index(self, x):
        x = self._design_vector(x)
        if any(not 0 <= v < BASE for v in x):
            raise InputError(f"'x' must hold integers in [0, {BASE - 1}]; got {list(x)}.")
        return int(sum(v * BASE**(DIM - 1 - j) for j, v in enumerate(x)))

    def decode(self, x):
        return dict(zip(self.parameter_names, (int(v) for v in x), strict=True))

    @staticmethod
    def true_means(indices) -> np.ndarray:
        idx = np.asarray(indices, dtype=np.int64)
        X = np.stack([(idx // BASE**(DIM - 1 - j)) % BASE for j in range(DIM)], axis=1) / BASE
        return np.stack([((X - 0.3) ** 2).sum(axis=1) + 0.1, ((X - 0.7) ** 2).sum(axis=1) + 0.1], axis=1)

    def _replicate(self, indices, reps, entropy):
        z = np.stack([replication_rng(entropy, int(r)).standard_normal(2) for r in reps])  # (n_reps, 2)
        return self.true_means(indices)[:, None, :] + SD * z[None, :, :]


@pytest.fixture(scope="module")
def grid():
    return GridProblem()


def _peak(run):
    """(result of run(), peak traced memory in bytes while it ran)."""
    tracemalloc.start()
    try:
        out = run()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("method, options", [
    ("blind_pick", {"budget": 200}),                       # 20 designs x 10 replications
    ("blind_pick", {"sample": 30, "n_reps": 4}),           # no budget: 30 designs x 4
    ("oo", {"sample": 200}),                               # rough 200 x 2, the top 10 to 10 replications
    ("oo", {"alpha": 1e-10, "budget": 400}),               # ceil(alpha * 10**12) = 100 designs
    ("ocba", {"sample": 50, "budget": 1000}),
    ("mocba", {"sample": 40, "budget": 800}),
    ("ocba", {"budget": 1000}),                            # a sample of 1000 // (2 x 10) = 50 designs
    ("mocba", {"budget": 800}),                            # 800 // 20 = 40 designs
    ("ocba", {"budget": 1000, "n0": 4}),                   # 1000 // (2 x 4) = 125 designs
    ("nsga2", {"budget": 800, "pop_size": 20}),
    ("screen", {"budget": 600}),                           # 480 looks, then elimination
    ("auto", {"budget": 600}),                             # screen
])
def test_sampling_methods_run_on_a_trillion_designs(grid, method, options):
    assert grid.n_designs == 10**12
    result = mopt.solve(grid, method, seed=3, **options)
    again, peak = _peak(lambda: mopt.solve(grid, method, seed=3, **options))
    print(f"{method} {options}: peak traced memory {peak / 2**20:.2f} MB, {len(result.evaluations)} designs")
    assert peak < MEMORY_BOUND
    assert again.evaluations.equals(result.evaluations)  # same seed, same result
    ev = result.evaluations
    assert 0 < len(ev) and result.n_evals == ev["n_reps"].sum() <= options.get("budget", 10**6)
    assert (ev["design"] < 10**12).all() and ev["design"].is_unique
    if method in ("ocba", "mocba"):  # every candidate gets its n0 replications; the sample is recorded
        n0 = options.get("n0", 10)
        expected = options.get("sample", options["budget"] // (2 * n0))
        assert result.info["sample"] == len(ev) == expected and (ev["n_reps"] >= n0).all()
    # decoded parameters are the design's digits; the means are the closed form plus noise whose
    # mean over n replications has sd 0.01 / sqrt(n) (common random numbers: the same for all)
    digits = np.stack([grid.design(int(i)) for i in ev["design"]])
    np.testing.assert_array_equal(ev[list(grid.parameter_names)].to_numpy(), digits)
    err = ev[["f1", "f2"]].to_numpy() - grid.true_means(ev["design"])
    assert (np.abs(err) <= 5 * SD / np.sqrt(ev["n_reps"].to_numpy())[:, None]).all()


def test_sampled_designs_cover_the_space_uniformly(grid):
    # the default sampler on 10**12 designs: distinct, and each of the 4 digits uniform on 0..999
    # (mean 499.5, sd 288.7: the mean of 20,000 draws is within 4 sd / sqrt(n) = 8.2 of it)
    rng = np.random.default_rng(11)
    picked = grid.sample_designs(rng, 20_000)
    assert len(np.unique(picked)) == 20_000 and picked.min() >= 0 and picked.max() < 10**12
    digits = np.stack([(picked // BASE**(DIM - 1 - j)) % BASE for j in range(DIM)], axis=1)
    assert (np.abs(digits.mean(axis=0) - 499.5) < 4 * 288.7 / np.sqrt(20_000)).all()


@pytest.mark.parametrize("method, options, fragments", [
    ("exhaustive", {}, ["method 'exhaustive' simulates every design: 1,000,000,000,000 designs are above the "
                        "limit of 10,000,000", "'sample'"]),
    ("exhaustive", {"budget": 10**13}, ["method 'exhaustive'", "1,000,000,000,000 designs"]),
    ("oo", {}, ["method 'oo' orders every design with its rough model: 1,000,000,000,000 designs"]),
    ("oo", {"alpha": 0.5, "budget": 1000}, ["method 'oo' orders ceil(alpha·n_designs) designs",
                                            "500,000,000,000 designs"]),
    ("ocba", {}, ["method 'ocba' allocates over every design: 1,000,000,000,000", "give 'budget'",
                  "or 'sample'"]),
    ("mocba", {"n0": 3}, ["method 'mocba' allocates over every design", "give 'budget'"]),
    ("ocba", {"budget": 1}, ["'budget' must be >= 2 for method 'ocba'"]),  # a sample of one design, n0 = 2
    ("blind_pick", {}, ["method 'blind_pick' without a budget simulates", "100,000,000,000 designs"]),
    ("blind_pick", {"budget": 10**9, "n_reps": 1}, ["method 'blind_pick' with this budget simulates",
                                                     "1,000,000,000 designs"]),
    ("nsga2", {}, ["'budget' must be given for method 'nsga2' on a space of 1,000,000,000,000 designs"]),
    ("oo", {"alpha": 0.5, "sample": 10}, ["give 'alpha'", "or 'sample'", "not both"]),
    ("ocba", {"sample": 0, "budget": 100}, ["'sample' must be"]),
    ("screen", {}, ["method 'screen' needs a 'budget' on a space of 1,000,000,000,000 designs"]),
    ("auto", {}, ["method 'screen' needs a 'budget'"]),
])
def test_methods_that_would_enumerate_refuse_by_name(grid, method, options, fragments):
    with pytest.raises(InputError) as info:
        mopt.solve(grid, method, seed=1, **options)
    for f in fragments:
        assert f in str(info.value), (f, str(info.value))


def test_the_limit_is_stated_and_respected():
    # a space exactly at the limit is allowed (checked without simulating: the default budget)
    from mopt.solvers.exhaustive import Exhaustive

    at = mopt.NormalProblem(np.zeros(1), n_reps=1)
    at._n_designs = ENUMERATION_LIMIT  # NormalProblem is indexed; only the size matters here
    assert Exhaustive()._default_budget(at) == ENUMERATION_LIMIT
    at._n_designs = ENUMERATION_LIMIT + 1
    with pytest.raises(InputError, match="10,000,001 designs are above the limit of 10,000,000"):
        Exhaustive()._default_budget(at)


def test_ocba_samples_a_space_only_above_the_limit():
    # with a budget, OCBA's candidates are every design up to the limit (as before) and a sample of
    # budget // (2·n0) designs above it
    from mopt.solvers.mocba import MOCBA
    from mopt.solvers.ocba import OCBA

    at = mopt.NormalProblem(np.zeros(1), n_reps=1)
    at._n_designs = ENUMERATION_LIMIT
    for solver in (OCBA(), MOCBA(), OCBA(n0=5)):
        solver._budget = 1000
        assert solver._k(at) == ENUMERATION_LIMIT and not solver._sampled(at)
    at._n_designs = ENUMERATION_LIMIT + 1
    for solver, k in ((OCBA(), 50), (MOCBA(), 50), (OCBA(n0=5), 100)):
        solver._budget = 1000
        assert solver._k(at) == k and solver._sampled(at)


# -- the state keeps only simulated designs ---------------------------------------------------------
def test_search_state_stores_only_what_was_simulated(grid):
    state = SearchState(grid, 100, np.random.default_rng(0))
    big = 10**12 - 1
    # two new designs at once (vectorised), then one more replication of one of them
    state.record_group([big, 5], np.array([[[1.0, 2.0], [3.0, 6.0]], [[0.0, 0.0], [2.0, 2.0]]]))
    state.record(big, np.array([[5.0, 10.0]]))
    assert state.sampled().tolist() == [5, big]
    assert state.count[[5, big, 7]].tolist() == [2, 3, 0]  # 7 was never simulated
    assert state.n_reps(big) == 3 and state.n_reps(7) == 0
    # design big: f1 samples 1, 3, 5 (mean 3, var 4), f2 samples 2, 6, 10 (mean 6, var 16)
    np.testing.assert_array_equal(state.mean[big], [3.0, 6.0])
    np.testing.assert_array_equal(state.var[big], [4.0, 16.0])
    # design 5: samples (0, 0), (2, 2): mean 1, var 2
    np.testing.assert_array_equal(state.means([5]), [[1.0, 1.0]])
    np.testing.assert_array_equal(state.var[5], [2.0, 2.0])
    assert np.isnan(state.mean[7]).all() and np.isnan(state.var[[7]]).all()
    assert sum(a.nbytes for a in state._stats.values()) + state._keys.nbytes < 200  # 2 designs stored
    with pytest.raises(TypeError, match="holds only the simulated designs"):
        state.count != np.zeros(3)  # noqa: B015 - a whole-space comparison must not pass silently
    with pytest.raises(TypeError, match="holds only the simulated designs"):
        np.asarray(state.mean)


def test_statistics_of_designs_given_more_replications_are_recomputed_when_read(grid, monkeypatch):
    # more replications of a design make its mean and variance out of date; they are recomputed from
    # all of its replications when read (what eager bookkeeping stored, bit for bit), and a
    # variance never read is never computed
    import mopt.solvers.base as base

    computed = []
    real = base._statistic
    monkeypatch.setattr(base, "_statistic", lambda name, s: computed.append(name) or real(name, s))
    state = SearchState(grid, 10**6, np.random.default_rng(0))
    expected = {}  # design -> (mean, var) as eager bookkeeping stores them
    rng = np.random.default_rng(2)
    designs = 10**11 + np.arange(12) * 7
    for step in range(40):
        idx = np.sort(rng.choice(designs, size=int(rng.integers(1, 6)), replace=False))
        values = rng.normal(3.0, 2.0, size=(len(idx), int(rng.integers(1, 4)), 2))
        first = [i not in state.samples for i in idx.tolist()]
        state.record_group(idx, values)
        fresh = values[first]
        means, varis = fresh.mean(axis=1), (fresh.var(axis=1, ddof=1) if values.shape[1] > 1 else
                                            np.full(fresh.shape[::2], np.nan))
        for k, i in enumerate(idx[first].tolist()):
            expected[i] = (means[k], varis[k])
        for i in idx[~np.array(first)].tolist():
            s = state.samples[i]
            expected[i] = (s.mean(axis=0), s.var(axis=0, ddof=1))
        if step % 4 == 3:
            read = np.sort(rng.choice(designs, size=5, replace=False))
            seen = [i for i in read.tolist() if i in expected]
            np.testing.assert_array_equal(state.mean[read][np.isin(read, seen)], [expected[i][0] for i in seen])
            np.testing.assert_array_equal(state.var[np.array(seen)], [expected[i][1] for i in seen])
    state.mean[designs], state.var[designs]  # everything up to date
    computed.clear()
    state.record_group(designs[:3], np.ones((3, 2, 2)))
    state.mean[designs]
    assert computed == ["mean"] * 3  # the three designs that got more; no variance


def test_plan_groups_requests_by_replications_held_and_added(grid):
    state = SearchState(grid, 100, np.random.default_rng(0))
    state.record_group([9], np.zeros((1, 2, 2)))  # design 9 holds replications 0, 1
    # design 3 named twice in one request counts once (2); design 1 gets 2 + 1; design 9 gets 2
    plan = _plan(state, [(np.array([3, 1, 3, 9]), 2), (np.array([1]), 1), (np.array([4]), 0)])
    got = [(d.tolist(), r.tolist()) for d, r in plan]
    # groups ordered by (held, added): (0, 2) design 3; (0, 3) design 1; (2, 2) design 9 from rep 2
    assert got == [([3], [0, 1]), ([1], [0, 1, 2]), ([9], [2, 3])]
    assert _plan(state, []) == []


def test_a_journal_records_designs_beyond_two_to_the_31(grid, tmp_path):
    # the sampled designs of a 10**12 space are almost all above 2**31; a journaled run, its
    # resumption (everything reused, nothing simulated) and a plain run agree exactly
    path = tmp_path / "huge.sqlite"
    first = mopt.solve(grid, "ocba", seed=5, sample=30, budget=400, journal=path)
    assert (first.evaluations["design"] > 2**31).sum() >= 25
    again = mopt.solve(grid, "ocba", seed=5, sample=30, budget=400, journal=path)
    assert again.info["journal"]["reused"] == 400 and again.info["journal"]["simulated"] == 0
    plain = mopt.solve(grid, "ocba", seed=5, sample=30, budget=400)
    assert first.evaluations.equals(plain.evaluations) and again.evaluations.equals(plain.evaluations)
