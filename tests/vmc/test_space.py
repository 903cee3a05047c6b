"""Schedule space: counts, lexicographic rank/unrank, elastic total."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mopt.core.errors import InputError
from mopt.vmc.space import (
    count_elastic,
    count_partitions,
    rank,
    rank_elastic,
    unrank,
    unrank_elastic,
)


def test_counts_from_the_paper_and_spec():
    assert count_partitions(20, 7) == 27132
    assert count_partitions(128, 7) == 5169379425
    assert count_partitions(16, 7) == 5005
    assert count_partitions(32, 7) == 736281
    assert count_partitions(64, 7) == 67945521
    assert count_elastic(20, 7) == 77520


def test_unrank_enumerates_all_compositions_in_lexicographic_order():
    # compositions of 9 into 4 parts >= 1, listed by brute force, sorted lexicographically
    brute = sorted(c for c in itertools.product(range(1, 7), repeat=4) if sum(c) == 9)
    assert len(brute) == count_partitions(9, 4) == math.comb(8, 3)
    got = unrank(np.arange(len(brute)), 9, 4)
    assert [tuple(r) for r in got.tolist()] == brute
    assert [rank(c) for c in brute] == list(range(len(brute)))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9).flatmap(lambda C: st.tuples(st.just(C), st.integers(C, 128))), st.data())
def test_round_trip_and_valid_composition(space, data):
    C, theta = space
    u = count_partitions(theta, C)
    r = data.draw(st.integers(0, u - 1))
    s = unrank(r, theta, C)
    assert s.shape == (C,) and (s >= 1).all() and s.sum() == theta
    assert rank(s) == r


def test_vectorised_unrank_matches_scalar_at_128_vms():
    u = count_partitions(128, 7)
    ranks = np.random.default_rng(3).integers(0, u, 500)
    ranks = np.concatenate([[0, u - 1], ranks])
    S = unrank(ranks, 128, 7)
    assert (S >= 1).all() and (S.sum(axis=1) == 128).all()
    assert [rank(s) for s in S] == ranks.tolist()
    assert S[0].tolist() == [1, 1, 1, 1, 1, 1, 122] and S[1].tolist() == [122, 1, 1, 1, 1, 1, 1]


def test_elastic_round_trip():
    n = count_elastic(6, 3)  # C(6, 3) = 20 schedules with sum <= 6
    S = unrank_elastic(np.arange(n), 6, 3)
    assert len({tuple(s) for s in S.tolist()}) == n == 20
    assert (S.sum(axis=1) <= 6).all() and (S >= 1).all()
    assert [rank_elastic(s, 6) for s in S] == list(range(n))


@pytest.mark.parametrize("call, word", [
    (lambda: count_partitions(5, 7), "'theta'"),
    (lambda: count_partitions(20, 0), "'n_classes'"),
    (lambda: rank([3, 0, 2]), "class 2 has 0"),
    (lambda: unrank(27132, 20, 7), "'r'"),
    (lambda: unrank(-1, 20, 7), "'r'"),
    (lambda: unrank(1.5, 20, 7), "'r'"),
    (lambda: rank_elastic([3, 3], 5), "theta_max"),
])
def test_bad_input_is_named(call, word):
    with pytest.raises(InputError, match=word):
        call()
