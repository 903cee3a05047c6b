"""Certified sets (mopt.core.certified): the confidence sequence against its martingale and by
simulation, hand-computed statuses, the union bound, classes, and bad input."""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.core import certified as C
from mopt.core.errors import InputError


def _table(means, ses, n_reps, classes=None, designs=None):
    means = np.asarray(means, float)
    means = means[:, None] if means.ndim == 1 else means
    ses = np.broadcast_to(np.asarray(ses, float), means.shape)
    D, m = means.shape
    frame = {"design": np.arange(D) if designs is None else np.asarray(designs)}
    for j in range(m):
        frame[f"f{j + 1}"], frame[f"f{j + 1}_se"] = means[:, j], ses[:, j]
    frame["n_reps"] = np.broadcast_to(np.asarray(n_reps), (D,)).copy()
    if classes is not None:
        frame["class"] = np.asarray(classes)
    return pd.DataFrame(frame), [f"f{j + 1}" for j in range(m)]


def _statuses(*args, level=0.95, **kw):
    ev, objectives = _table(*args, **kw)
    return C.certified_sets(ev, objectives, level=level)["status"].tolist()


def _martingale(x: np.ndarray, mu0: float, rho: float) -> float:
    """Lai's mixture M_n at ``mu0`` from the raw sample ``x`` (module docstring)."""
    y = np.asarray(x, float) - mu0
    n, S, T = len(y), float((y ** 2).sum()), float(y.sum())
    return math.sqrt(rho / (n + rho)) * (S / (S - T ** 2 / (n + rho))) ** (n / 2)


@pytest.mark.parametrize("n", [8, 12, 40])
def test_interval_ends_are_where_the_martingale_reaches_one_over_alpha(n):
    rng = np.random.default_rng(n)
    x = rng.normal(3.0, 2.0, n)
    alpha, rho = 0.01, 0.7
    lo, hi = C.confidence_sequence([x.mean()], [x.std(ddof=1) / math.sqrt(n)], [n], alpha, rho)
    for end in (lo[0], hi[0]):
        assert _martingale(x, end, rho) == pytest.approx(1 / alpha, rel=1e-9)
    assert _martingale(x, x.mean(), rho) < 1 / alpha  # inside: not rejected
    assert _martingale(x, hi[0] + 0.01, rho) > 1 / alpha  # outside: rejected


def test_no_information_below_two_replications_or_without_numbers():
    lo, hi = C.confidence_sequence([[1.0, np.nan], [2.0, 3.0], [np.nan, 1.0]], [[np.nan, np.nan], [np.nan, 0.5],
                                   [0.1, 0.1]], [1, 10, 10], alpha=0.05)
    assert np.isneginf(lo[[0, 0, 1, 2], [0, 1, 0, 0]]).all() and np.isposinf(hi[[0, 0, 1, 2], [0, 1, 0, 0]]).all()
    assert np.isfinite(lo[1:, 1]).all() and np.isfinite(hi[1:, 1]).all()
    # a small n at a tiny alpha: the whole line too (q rho / (n + rho) >= 1)
    lo, hi = C.confidence_sequence([1.0], [0.1], [3], alpha=1e-6, rho=1.0)
    assert (lo[0], hi[0]) == (-np.inf, np.inf)


def test_deterministic_and_infinite_means_are_points():
    lo, hi = C.confidence_sequence([[1.0, np.inf], [2.0, -np.inf]], [[0.0, np.nan], [0.0, np.nan]], [2, 3], 0.05)
    assert lo.tolist() == hi.tolist() == [[1.0, np.inf], [2.0, -np.inf]]


def test_coverage_at_every_look_by_simulation():
    """2,000 Gaussian paths of 100 replications, looks n = 2..100: the fraction whose interval
    misses the mean at some look is at most alpha (+ 3 binomial standard errors)."""
    rng = np.random.default_rng(33)
    paths, N, alpha = 2000, 100, 0.1
    x = rng.normal(5.0, 3.0, (paths, N))
    n = np.arange(1, N + 1)
    means = np.cumsum(x, axis=1) / n
    ses = np.full_like(means, np.nan)
    for k in range(1, N):
        ses[:, k] = x[:, :k + 1].std(axis=1, ddof=1) / math.sqrt(k + 1)
    lo, hi = C.confidence_sequence(means.ravel(), ses.ravel(), np.tile(n, paths), alpha)
    miss = ((lo > 5.0) | (hi < 5.0)).reshape(paths, N).any(axis=1).mean()
    assert miss <= alpha + 3 * math.sqrt(alpha * (1 - alpha) / paths)
    assert miss > 0.01  # not vacuous: the intervals are not the whole line


def test_default_rho_is_tightest_at_twenty():
    alpha = 0.05 / 24
    rho = C.default_rho(alpha)
    width = lambda r: C.confidence_sequence([0.0], [1.0], [20], alpha, r)[1][0]  # noqa: E731
    assert width(rho) <= min(width(rho * 1.5), width(rho / 1.5))


def test_far_apart_one_efficient_one_dominated():
    assert _statuses([[0, 0], [10, 10]], [[0.1, 0.1], [0.1, 0.1]], 30) == ["efficient", "dominated"]
    # two trade-offs far apart: both efficient; a third close to one of them: undecided with it
    assert _statuses([[0, 10], [10, 0]], 0.1, 30) == ["efficient", "efficient"]
    assert _statuses([[0, 10], [10, 0], [10.05, 0.05]], 0.1, 30) == ["efficient", "undecided", "undecided"]


def test_identical_means():
    # noisy: neither can be shown efficient (the other might be slightly better) nor dominated
    assert _statuses([[1, 1], [1, 1], [5, 5]], 0.1, 30) == ["undecided", "undecided", "dominated"]
    # deterministic equal points do not dominate each other: both efficient
    assert _statuses([[1, 1], [1, 1], [5, 5]], 0.0, 30) == ["efficient", "efficient", "dominated"]


def test_one_replication_is_undecided_unless_trivial():
    assert _statuses([[0, 0], [10, 10]], np.nan, 1) == ["undecided", "undecided"]
    assert _statuses([[0, 0]], np.nan, 1) == ["efficient"]  # the only class
    # a known design dominates one without information? no: its true mean may be anywhere
    assert _statuses([[0, 0], [10, 10]], [[0.1, 0.1], [np.nan, np.nan]], [30, 1]) == ["undecided", "undecided"]
    # an infinite mean (some replication infinite) is dominated by any finite one
    assert _statuses([[0, 0], [np.inf, 1]], [[0.1, 0.1], [np.nan, 0.1]], 30) == ["efficient", "dominated"]


def test_one_and_three_objectives():
    assert _statuses([[0.0], [0.05], [10.0]], 0.1, 30) == ["undecided", "undecided", "dominated"]
    assert _statuses([[0, 0, 9], [9, 9, 19], [0, 9, 0]], 0.1, 30) == ["efficient", "dominated", "efficient"]


def test_union_bound_over_classes_and_objectives():
    ev, objectives = _table([[0, 0], [1.2, 1.2]], 0.1, 30)
    K, m, level = 2, 2, 0.9
    lo, hi = C.confidence_sequence(ev[objectives].to_numpy(), ev[["f1_se", "f2_se"]].to_numpy(), ev["n_reps"],
                                   (1 - level) / (K * m))
    assert hi[0, 0] < lo[1, 0]  # the two boxes apart at alpha / (K m) ...
    assert C.certified_sets(ev, objectives, level)["status"].tolist() == ["efficient", "dominated"]
    # ... but with 10,000 more (far, dominated) classes the intervals widen and the pair is undecided
    far = np.full((10_000, 2), 100.0)
    big, _ = _table(np.vstack([[[0, 0], [1.2, 1.2]], far]), 0.1, 30)
    statuses = C.certified_sets(big, objectives, level)["status"].tolist()
    assert statuses[:2] == ["undecided", "undecided"] and set(statuses[2:]) == {"dominated"}


def test_classes_one_row_each_with_the_smallest_design():
    ev, objectives = _table([[5, 5], [0, 0], [0, 0], [5, 5]], 0.1, 30, classes=[1, 0, 0, 1], designs=[9, 7, 3, 4])
    out = C.certified_sets(ev, objectives)
    assert list(out.columns) == ["class", "design", "status"]
    assert out.to_dict("list") == {"class": [0, 1], "design": [3, 4], "status": ["efficient", "dominated"]}
    # without a class column each design is its own class, numbered by design index
    ev, objectives = _table([[5, 5], [0, 0]], 0.1, 30, designs=[8, 2])
    assert C.certified_sets(ev, objectives).to_dict("list") == {
        "class": [0, 1], "design": [2, 8], "status": ["efficient", "dominated"]}
    empty = C.certified_sets(ev.iloc[:0], objectives)
    assert list(empty.columns) == ["class", "design", "status"] and len(empty) == 0


def test_from_a_result_and_read_back_from_csv(tmp_path):
    prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [6, 6], [2.05, 2.05]], sd=0.3, n_reps=30)
    result = mopt.solve(prob, "exhaustive", seed=1)
    out = C.certified_sets(result.evaluations, result.objectives)
    assert out["status"].tolist() == ["efficient", "undecided", "efficient", "dominated", "undecided"]
    back = mopt.Result.read_csv(result.to_csv(tmp_path / "r"))
    pd.testing.assert_frame_equal(C.certified_sets(back.evaluations, back.objectives), out)


@pytest.mark.parametrize("m", [1, 2, 3])
def test_dominance_sweep_matches_brute_force(m):
    rng = np.random.default_rng(m)

    def brute(P, Q, rows):
        return np.array([any((P[b] <= Q[i]).all() and (P[b] < Q[i]).any() for b in range(len(P))
                             if rows is None or b != rows[i]) for i in range(len(Q))], dtype=bool)

    for trial in range(150):
        K = int(rng.integers(1, 10))
        P = np.round(rng.random((K, m)) * 3)
        Q = P + np.round(rng.random((K, m)) * 2) * (trial % 2)
        if trial % 3 == 0:  # ties and infinities
            P[rng.random((K, m)) < 0.2] = -np.inf
            Q[rng.random((K, m)) < 0.3] = np.inf
        rows = np.flatnonzero(rng.random(K) < 0.6)
        for A, B in ((P, Q), (Q, P), (P, P)):
            assert (C._dominated_by(A, B) == brute(A, B, None)).all()
            assert (C._dominated_by(A, B[rows], rows) == brute(A, B[rows], rows)).all()


def test_cheap_for_27132_classes():
    rng = np.random.default_rng(0)
    ev, objectives = _table(rng.random((27_132, 2)), rng.random((27_132, 2)) * 0.01, 30)
    C.certified_sets(ev, objectives)
    start = time.perf_counter()
    C.certified_sets(ev, objectives)
    assert time.perf_counter() - start < 0.5  # about 10-20 ms on an idle core; slack for a busy machine


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, float("nan")])
def test_bad_level(level):
    ev, objectives = _table([[0, 0]], 0.1, 30)
    with pytest.raises(InputError, match="'level'"):
        C.certified_sets(ev, objectives, level=level)


def test_bad_input():
    ev, objectives = _table([[0, 0], [1, 1]], 0.1, 30)
    with pytest.raises(InputError, match="'f2_se'"):
        C.certified_sets(ev.drop(columns="f2_se"), objectives)
    with pytest.raises(InputError, match="'n_reps'"):
        C.certified_sets(ev.drop(columns="n_reps"), objectives)
    with pytest.raises(InputError, match="'evaluations'"):
        C.certified_sets(ev.to_dict(), objectives)
    with pytest.raises(InputError, match="'objectives'"):
        C.certified_sets(ev, [])
    with pytest.raises(InputError, match="non-negative"):
        C.certified_sets(ev.assign(f1_se=[-0.1, 0.1]), objectives)
    with pytest.raises(InputError, match="'class'"):
        C.certified_sets(ev.assign(**{"class": [0.5, 1]}), objectives)
    with pytest.raises(InputError, match="'f1'"):
        C.certified_sets(ev.assign(f1=["a", "b"]), objectives)
    with pytest.raises(InputError, match="'alpha'"):
        C.confidence_sequence([1.0], [0.1], [5], alpha=1.0)
    with pytest.raises(InputError, match="'rho'"):
        C.confidence_sequence([1.0], [0.1], [5], alpha=0.05, rho=0)
    with pytest.raises(InputError, match="'n_reps'"):
        C.confidence_sequence([1.0], [0.1], [2.5], alpha=0.05)
    with pytest.raises(InputError, match="'ses'"):
        C.confidence_sequence([1.0, 2.0], [0.1], [5, 5], alpha=0.05)
