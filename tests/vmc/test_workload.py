"""Workload generator, similarity rules and the pooled thresholds."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.core.errors import InputError
from mopt.vmc.workload import generate, pooled_thresholds, similarity


def test_zero_vector_rules():
    assert similarity([0, 0, 0], [0, 0, 0]) == 1.0
    assert similarity([0, 0, 0], [1, 0, 0]) == 0.0
    assert similarity([2, 0], [0, 0]) == 0.0
    assert similarity([1, 2], [2, 4]) == pytest.approx(1.0)  # parallel vectors
    assert similarity([3, 0], [3, 4]) == pytest.approx(0.6)  # 9 / (3 * 5)


def test_same_seed_same_workload_and_offered_load():
    a = generate("LFLD", 32, 20000.0, 500.0, seed=5)
    b = generate("LFLD", 32, 20000.0, 500.0, seed=5)
    assert np.array_equal(a.times, b.times) and np.array_equal(a.batches, b.batches)
    # offered load 0.8 * theta / mean_p = 0.8 * 32 / 25 = 1.024 tasks/s; 80 batches expected, so the
    # total over 20,000 s has sd ~ sqrt(2/80) ~ 16 %: accept +-40 %
    rate = a.batches.sum() / 20000.0
    assert 0.6 * 1.024 < rate < 1.4 * 1.024
    hf = generate("HFLD", 32, 20000.0, 500.0, seed=5)
    assert len(hf.times) > 2.5 * len(a.times)  # 8 vs 2 batches per base period


def _consecutive_similarity(kind, seed):
    w = generate(kind, 64, 200000.0, 1000.0, seed=seed)
    return float(np.mean(similarity(w.batches[:-1], w.batches[1:])))


@pytest.mark.parametrize("freq", ["LF", "HF"])
def test_high_difference_has_lower_consecutive_similarity(freq):
    # 400 (LF) or 1600 (HF) batches: LD mixes stay near one base mix (cosine close to 1), HD jumps
    # to a new mix half of the time (cosine of two Dirichlet(1) mixes is about 0.6 on average)
    ld = _consecutive_similarity(freq + "LD", 1)
    hd = _consecutive_similarity(freq + "HD", 1)
    assert hd < ld - 0.05


def test_pooled_thresholds_are_ordered_quantiles():
    split, merge = pooled_thresholds(n_pairs=4000, seed=2)
    assert 0 <= merge < split <= 1


def test_bad_input():
    with pytest.raises(InputError, match="workload"):
        generate("XX", 16, 100.0, 10.0)
    with pytest.raises(InputError, match="batches"):
        similarity([-1, 0], [1, 0])


def test_similarity_of_mismatched_or_huge_vectors():
    # vectors of different lengths: a named InputError, not numpy's broadcast error
    with pytest.raises(InputError, match="same number of classes"):
        similarity([1, 0, 0], [0, 1])
    with pytest.raises(InputError, match="broadcast"):
        similarity([[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]])
    # the cosine does not depend on scale: huge or tiny counts give the cosine of the shape
    # ([1, 1] vs [1, 0]: 1/sqrt(2)), never NaN from overflowing squares
    assert similarity([1e200, 1e200], [1e200, 0]) == pytest.approx(2 ** -0.5)
    assert similarity([10**200, 1], [10**200, 1]) == pytest.approx(1.0)
    assert similarity([1e-200, 0], [0, 1e-200]) == 0.0  # orthogonal, not two "zero vectors"
