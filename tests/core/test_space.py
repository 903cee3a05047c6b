"""Design spaces of any size: uniform sampling without materialising the space, repair without a
table, and the stated enumeration limit."""

from __future__ import annotations

import numpy as np
import pytest

from mopt import InputError
from mopt.core.problem import IndexedProblem
from mopt.core.space import (
    ENUMERATION_LIMIT,
    REPAIR_TABLE_LIMIT,
    check_enumerable,
    repair,
    sample_designs,
)


class Size:
    """Only what the sampler reads: the number of designs."""

    def __init__(self, n_designs: int):
        self.n_designs = n_designs


def test_small_spaces_draw_exactly_as_numpy_choice():
    # below the limit the draws are numpy's own (results of earlier versions stay bit-identical)
    a = sample_designs(Size(289), np.random.default_rng(5), 40)
    b = np.random.default_rng(5).choice(289, size=40, replace=False)
    np.testing.assert_array_equal(a, b)
    assert a.dtype == np.int64


def test_a_large_share_of_a_huge_space_by_rejection():
    # 2 * 10**7 designs (above the limit), 5 * 10**5 of them (above 2 %: numpy would allocate the
    # whole range): distinct, in range, uniform (mean (N - 1) / 2, sd N / sqrt(12): the sample
    # mean is within 4 sd / sqrt(n) = 32,660 of it), the same for the same seed
    n_designs, n = 2 * 10**7, 5 * 10**5
    a = sample_designs(Size(n_designs), np.random.default_rng(2), n)
    assert len(a) == n and len(np.unique(a)) == n and a.min() >= 0 and a.max() < n_designs
    assert abs(a.mean() - (n_designs - 1) / 2) < 4 * n_designs / np.sqrt(12) / np.sqrt(n)
    np.testing.assert_array_equal(a, sample_designs(Size(n_designs), np.random.default_rng(2), n))
    assert not np.all(np.diff(a) > 0)  # draw order, not sorted


def test_with_replacement_and_bad_sizes():
    r = sample_designs(Size(10**15), np.random.default_rng(1), 5, replace=True)
    assert r.shape == (5,) and (r >= 0).all() and (r < 10**15).all()
    with pytest.raises(InputError, match="'n' must be an integer in \\[0, 3\\]; got 4"):
        sample_designs(Size(3), np.random.default_rng(1), 4)
    with pytest.raises(InputError, match="'n' must be <= 10,000,000 designs to sample"):
        sample_designs(Size(10**12), np.random.default_rng(1), ENUMERATION_LIMIT + 1)


def test_check_enumerable_states_the_limit():
    check_enumerable("exhaustive", ENUMERATION_LIMIT)  # at the limit: allowed
    with pytest.raises(InputError) as info:
        check_enumerable("exhaustive", ENUMERATION_LIMIT + 1)
    msg = str(info.value)
    assert "method 'exhaustive'" in msg and "10,000,001 designs" in msg and "10,000,000" in msg
    assert "blind_pick" in msg and "'sample'" in msg and "nsga2" in msg


class EvenPairs(IndexedProblem):
    """A huge space whose design vector [i] must be even (odd vectors are not designs)."""

    def __init__(self):
        super().__init__(objectives=("f",), n_designs=4 * REPAIR_TABLE_LIMIT)

    def index(self, x):
        (i,) = self._design_vector(x)
        if i % 2:
            raise InputError(f"'x' must be even; got {i}.")
        return self._check_index(i)


def test_repair_above_the_table_limit_rounds_clips_and_looks_up():
    prob = EvenPairs()
    # 10.2 -> 10; -5 -> 0 (clipped to xl); a huge value -> xu = 4e6 - 1 (odd: not a design)
    assert prob.repair([[10.2], [-5.0]]).tolist() == [10, 0]
    assert not hasattr(prob, "_design_tree")  # nothing tabulated
    with pytest.raises(InputError, match="EvenPairs has 4,000,000 designs, too many to tabulate for repair "
                                         "\\(limit 1,000,000\\), and \\[3999999\\] is not a design: the "
                                         "problem must override repair"):
        repair(prob, np.array([[1e12]]))
