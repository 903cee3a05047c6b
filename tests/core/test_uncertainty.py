"""How sure (mopt.core.uncertainty): the resampling's rules against brute force and hand-computed
cases, the columns every Result carries, and calibration on a problem whose truth is known."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import mopt
from mopt.core import uncertainty as U
from mopt.core.pareto import pareto_mask


def _dominated_brute(points: np.ndarray) -> np.ndarray:
    n = len(points)
    return np.array([any((points[j] <= points[i]).all() and (points[j] < points[i]).any()
                         for j in range(n) if j != i) for i in range(n)])


@pytest.mark.parametrize("m", [1, 2, 3])
@pytest.mark.parametrize("ties", [False, True])
def test_nondominated_matches_brute_force(m, ties):
    rng = np.random.default_rng(10 * m + ties)
    for _ in range(30):
        mu = rng.random((4, int(rng.integers(1, 25)), m))
        if ties:  # exact ties and repeated points (the 2-D fast path falls back)
            mu = np.round(mu * 3)
        nd = U.nondominated(mu)
        for b in range(len(mu)):
            assert (nd[b] == ~_dominated_brute(mu[b])).all()


def test_screen_keeps_every_design_that_is_not_dominated_for_sure():
    rng = np.random.default_rng(4)
    for m in (2, 3):
        for _ in range(50):
            d = int(rng.integers(1, 40))
            means = np.round(rng.random((d, m)) * 5, 1)
            ses = np.where(rng.random((d, m)) < 0.2, np.nan, rng.random((d, m)) * 0.3)
            spread = np.where(np.isfinite(ses), ses, 0.0) * U.SCREEN_Z
            low, high = means - spread, means + spread
            sure = np.array([any((high[j] <= low[i]).all() and (high[j] < low[i]).any()
                                 for j in range(d) if j != i) for i in range(d)])
            assert (U.screen(means, ses) == ~sure).all()


def test_two_designs_with_equal_means_are_each_non_dominated_three_times_in_four():
    # independent, continuous, equal laws: B dominates A iff B is below A in both objectives, each
    # with probability 1/2, independently: P(A non-dominated) = 1 - 1/4 = 0.75 (so P(front = {A, B})
    # = P(neither dominates) = 1 - 2/4 = 0.5). Tolerance: 4 binomial s.e. of 500 resamples (0.078).
    p, summary = U.front_uncertainty([[0.0, 0.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 1.0]], [7, 9])
    assert abs(p[0] - 0.75) < 0.078 and abs(p[1] - 0.75) < 0.078
    assert abs(summary["p_correct_selection"] - 0.5) < 0.09
    assert summary["uncertain"] == [7, 9]


def test_far_apart_designs_are_sure():
    p, summary = U.front_uncertainty([[1.0, 1.0], [5.0, 5.0], [0.5, 3.0]], [[0.1, 0.1]] * 3, [0, 1, 2])
    assert p.tolist() == [1.0, 0.0, 1.0]
    assert summary["p_correct_selection"] == 1.0 and summary["expected_false_in"] == 0.0
    assert summary["expected_false_out"] == 0.0 and summary["uncertain"] == []


def test_paired_replications_keep_a_constant_difference():
    # design 1's replication r is design 0's plus (0.1, 0.1), exactly (common random numbers): each
    # mean alone is uncertain (sd 1 over 20 replications, se 0.22), but design 0 dominates design 1
    # in every resample of the shared multipliers. Drawn independently, design 1 is often on the front.
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 2))
    samples = [a, a + 0.1]
    means = np.array([s.mean(axis=0) for s in samples])
    ses = np.array([s.std(axis=0, ddof=1) / np.sqrt(20) for s in samples])
    paired, summary = U.front_uncertainty(means, ses, [0, 1], samples=samples)
    assert paired.tolist() == [1.0, 0.0] and summary["p_correct_selection"] == 1.0
    independent, _ = U.front_uncertainty(means, ses, [0, 1])
    assert independent[1] > 0.3


def test_intervals_are_student_t_by_hand():
    # replications 1, 2, 6: mean 3, sd sqrt(7), se sqrt(7/3) = 1.5275; t(0.975, 2) = 4.3027
    lo, hi = U.intervals(np.array([[3.0]]), np.array([[np.sqrt(7 / 3)]]), np.array([3]))
    assert lo[0, 0] == pytest.approx(3 - 4.3027 * 1.52753, abs=1e-3)
    assert hi[0, 0] == pytest.approx(3 + 4.3027 * 1.52753, abs=1e-3)
    lo, hi = U.intervals(np.array([[3.0]]), np.array([[np.nan]]), np.array([1]))
    assert np.isnan(lo[0, 0]) and np.isnan(hi[0, 0])


def test_every_result_carries_the_uncertainty_the_same_for_any_executor():
    prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [2.1, 2.1], [6, 6]], sd=0.5, n_reps=8)
    result = mopt.solve(prob, "exhaustive", seed=3)
    ev = result.evaluations
    assert list(ev.columns)[-5:] == ["p_nondominated", "f1_lo", "f1_hi", "f2_lo", "f2_hi"]
    assert ((ev["f1_lo"] < ev["f1"]) & (ev["f1"] < ev["f1_hi"])).all()
    u = result.info["uncertainty"]
    assert set(u) >= {"p_correct_selection", "expected_false_in", "expected_false_out", "uncertain", "level"}
    assert u["level"] == 0.95 and "warning" in u  # 8 replications: below MIN_REPS, said so
    assert "p_nondominated" in result.front.columns
    with ThreadPoolExecutor(2) as pool:
        assert mopt.solve(prob, "exhaustive", seed=3, executor=pool) == result
    best = result.best(mopt.utility.minimize("f1"))
    assert best["design"] == 0 and 0.9 < best["p_best"] <= 1.0 and best["runner_up"] in (1, 3)


def _calibration(n_reps: int, macroreps: int):
    x = np.linspace(0.5, 4.0, 8)
    means = np.vstack([np.stack([x, 2.0 / x], axis=1), np.stack([x, 2.0 / x], axis=1)[[1, 3, 5, 6]] + [0.15, 0.1]])
    truth = pareto_mask(means)
    prob = mopt.NormalProblem(means, sd=0.3, n_reps=n_reps)
    p, t, pcs, hit = [], [], [], []
    for m in range(macroreps):
        r = mopt.solve(prob, "exhaustive", seed=500 + m)
        ev = r.evaluations.sort_values("design")
        p.append(ev["p_nondominated"].to_numpy())
        t.append(truth)
        pcs.append(r.info["uncertainty"]["p_correct_selection"])
        hit.append(bool((pareto_mask(ev[["f1", "f2"]].to_numpy()) == truth).all()))
    return U.reliability(np.concatenate(p), np.concatenate(t)), np.mean(pcs), np.mean(hit)


def test_calibration_on_a_known_front():
    # benchmarks/calibration.py measures the whole table (200 macroreplications; the docstring of
    # mopt.core.uncertainty sums it up). Here, 100 macroreplications of 12 designs (8 on a convex
    # front, 4 just behind, sd 0.3): at 30 replications the extreme deciles are calibrated within 3
    # binomial s.e. (plus 0.01); at 10, the front's P(correct selection) is within 0.05 + 3 s.e. of
    # the observed rate. (Where it is not, e.g. designs below 0.1 at 10 replications, is reported.)
    table, _, _ = _calibration(30, 100)
    for k in (0, 9):
        row = table.iloc[k]
        assert abs(row["observed"] - row["predicted"]) <= 3 * row["se"] + 0.01, table
    _, predicted, observed = _calibration(10, 100)
    assert abs(predicted - observed) <= 0.05 + 3 * np.sqrt(observed * (1 - observed) / 100), (predicted, observed)


@pytest.mark.parametrize("ties", [False, True])
def test_fused_bootstrap_equals_resampling_then_testing(ties):
    # the compiled one-pass path (two objectives, equal counts <= 32) draws exactly what
    # multiplier_resamples draws and decides exactly what nondominated decides
    rng = np.random.default_rng(31 + ties)
    for _ in range(20):
        c, n = int(rng.integers(1, 40)), int(rng.integers(1, 12))
        samples = rng.random((c, n, 2)) * 3
        if ties:  # equal makespans across designs, as ExPERT's strategies under common numbers
            samples[:, :, 0] = np.round(samples[:, :, 0])
            samples[rng.random(c) < 0.3] = samples[0]
        means = samples.mean(axis=1)
        fused = U._bootstrap_nondominated_2d(means, samples, np.random.default_rng(5), 64)
        apart = U.nondominated(U.multiplier_resamples(means, samples, np.random.default_rng(5), 64))
        assert (fused == apart).all()


def test_two_objective_sweep_far_from_its_starting_order():
    # more than 16 C + 64 insertion moves: the kernel sorts afresh by x, then orders the ties
    from mopt.core.uncertainty_kernels import nondominated_2d_kernel

    rng = np.random.default_rng(8)
    x = rng.random((6, 300))
    y = np.round(rng.random((6, 300)) * 4)
    x[:, :50] = np.round(x[:, :50], 1)  # ties in x
    start = np.argsort(-x.mean(axis=0))  # reversed: about C^2 / 4 moves
    nd = nondominated_2d_kernel(x, y, start)
    for b in range(len(x)):
        assert (nd[b] == ~_dominated_brute(np.column_stack([x[b], y[b]]))).all()


@pytest.mark.parametrize("grid", [False, True])
def test_staircase_without_a_sort_equals_brute_force(grid):
    # points nearly in order of x (as resampled means come in the order of their means), with
    # equal x, equal y and repeated points on a grid: the staircase decides alone (no fallback)
    from mopt.core.uncertainty_kernels import _staircase

    rng = np.random.default_rng(40 + grid)
    for _ in range(200):
        c = int(rng.integers(1, 60))
        x = np.sort(rng.random(c)) + 0.05 * rng.standard_normal(c)
        y = 1.0 - x + 0.3 * rng.random(c)
        if grid:
            x, y = np.round(x * 8), np.round(y * 8)
        out = np.zeros(c, dtype=bool)
        buffers = np.empty(c), np.empty(c), np.empty(c, dtype=np.int64)
        assert _staircase(x, y, np.arange(c), out, *buffers)
        assert (out == ~_dominated_brute(np.column_stack([x, y]))).all()
    x = np.arange(100.0)[::-1]  # every point before all the others in x: more than 16 C + 64 steps
    buffers = np.empty(100), np.empty(100), np.empty(100, dtype=np.int64)
    assert not _staircase(x, -x, np.arange(100), np.zeros(100, dtype=bool), *buffers)


def test_designs_with_the_same_replications_are_resampled_once():
    a, b = np.arange(6.0).reshape(3, 2), np.ones((3, 2))
    first, column, stacked = U._distinct([a, b, a.copy(), b, np.zeros((3, 2))])
    assert first.tolist() == [0, 1, 4] and column.tolist() == [0, 1, 0, 1, 2] and stacked.shape == (5, 3, 2)
    first, column, stacked = U._distinct([a, np.ones((2, 2)), a])  # unequal counts
    assert first.tolist() == [0, 1] and column.tolist() == [0, 1, 0] and stacked is None


def test_a_search_without_uncertainty_has_the_same_other_columns():
    prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6]], sd=0.5)
    sure = mopt.solve(prob, "exhaustive", seed=3, n_reps=4)
    bare = mopt.solve(prob, "exhaustive", seed=3, n_reps=4, uncertainty=False)
    assert "uncertainty" not in bare.info and "p_nondominated" not in bare.evaluations.columns
    assert bare.evaluations.equals(sure.evaluations[list(bare.evaluations.columns)])
    with pytest.raises(mopt.InputError, match="'uncertainty'"):
        mopt.solve(prob, "exhaustive", seed=3, uncertainty="no")


def test_the_moved_choice_names_warn_and_are_the_new_ones():
    import mopt.core.uncertainty as old
    from mopt.core import choice_certainty

    for name in ("p_best", "replications_needed"):
        with pytest.warns(DeprecationWarning, match=f"mopt.core.choice_certainty.{name}"):
            assert getattr(old, name) is getattr(choice_certainty, name)
