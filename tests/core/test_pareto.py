"""mopt.core.pareto: non-dominated filtering and hypervolume (all objectives minimised)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mopt.core.pareto import hypervolume, pareto_mask

nan = math.nan


class TestParetoMask:
    def test_hand_made_points(self):
        F = [
            [1, 5],  # efficient: the lowest first objective
            [2, 3],  # efficient
            [3, 3],  # dominated by [2, 3] (equal second, worse first)
            [4, 1],  # efficient: the lowest second objective
            [5, 5],  # dominated by everything above
            [2, 4],  # dominated by [2, 3]
        ]
        assert pareto_mask(F).tolist() == [True, True, False, True, False, False]

    def test_duplicates_are_all_kept(self):
        F = [[2, 2], [1, 3], [2, 2], [3, 3], [3, 1], [3, 1]]
        assert pareto_mask(F).tolist() == [True, True, True, False, True, True]

    def test_nan_rows_are_never_efficient_and_dominate_nothing(self):
        F = [[nan, 0], [5, 5], [0, nan], [nan, nan]]
        # without the NaN rows, [5, 5] is alone and efficient
        assert pareto_mask(F).tolist() == [False, True, False, False]

    def test_three_objectives(self):
        F = [[1, 2, 3], [2, 1, 3], [2, 2, 3], [1, 1, 4]]
        assert pareto_mask(F).tolist() == [True, True, False, True]

    def test_single_row_and_empty(self):
        assert pareto_mask([[3.0, 4.0]]).tolist() == [True]
        assert pareto_mask(np.empty((0, 2))).tolist() == []

    def test_matches_brute_force(self):
        rng = np.random.default_rng(0)
        F = rng.integers(0, 6, size=(60, 2)).astype(float)
        brute = [not any((g <= f).all() and (g < f).any() for g in F) for f in F]
        assert pareto_mask(F).tolist() == brute

    def test_not_2d_raises(self):
        with pytest.raises(ValueError, match="'F' must be a 2-d array"):
            pareto_mask([1, 2, 3])


class TestHypervolume:
    def test_staircase(self):
        # points (1, 4), (2, 2), (3, 1) with reference (5, 5): the dominated region is a
        # staircase of three vertical strips
        #   x in [1, 2): height 5 - 4 = 1  -> 1
        #   x in [2, 3): height 5 - 2 = 3  -> 3
        #   x in [3, 5): height 5 - 1 = 4  -> 8
        # total 12
        assert hypervolume([[1, 4], [2, 2], [3, 1]], ref=[5, 5]) == pytest.approx(12.0)

    def test_dominated_and_duplicate_points_add_nothing(self):
        base = hypervolume([[1, 4], [2, 2], [3, 1]], ref=[5, 5])
        more = hypervolume([[1, 4], [2, 2], [3, 1], [2, 2], [4, 4], [3, 3]], ref=[5, 5])
        assert more == pytest.approx(base)

    def test_single_point_is_a_box(self):
        assert hypervolume([[1, 2]], ref=[4, 7]) == pytest.approx(3 * 5)

    def test_three_dimensional_box_union(self):
        # (0,0,1) and (1,1,0) with ref (2,2,2): boxes 2·2·1 = 4 and 1·1·2 = 2, overlap 1·1·1 = 1
        assert hypervolume([[0, 0, 1], [1, 1, 0]], ref=[2, 2, 2]) == pytest.approx(5.0)

    def test_points_beyond_the_reference_add_nothing(self):
        assert hypervolume([[6, 1]], ref=[5, 5]) == 0.0
        assert hypervolume([[6, 1], [1, 4]], ref=[5, 5]) == pytest.approx((5 - 1) * (5 - 4))

    def test_empty_is_zero(self):
        assert hypervolume(np.empty((0, 2)), ref=[1, 1]) == 0.0


class TestHypervolumeInput:
    @pytest.mark.parametrize("F,ref,fragment", [
        ([1, 2], [3, 3], r"'F' must be a 2-d array.*got shape \(2,\)"),  # one point given as a flat vector
        ([[1, 2, 3]], [3, 3], r"'F' must be a 2-d array, one row of 2 .*got shape \(1, 3\)"),
        ([[1, nan]], [3, 3], "'F' must not hold NaN"),
        ([[1, 2]], [[3, 3]], r"'ref' must be a 1-d array.*got shape \(1, 2\)"),
        ([[1, 2]], "ab", "'ref' must be an array of numbers"),
        ([["x", 2]], [3, 3], "'F' must be an array of numbers"),
    ])
    def test_bad_input_names_the_parameter(self, F, ref, fragment):
        from mopt import InputError

        with pytest.raises(InputError, match=fragment):
            hypervolume(F, ref)

    def test_one_point_as_a_row(self):
        # the box from (1, 2) to (3, 3): 2 x 1
        assert hypervolume([[1, 2]], [3, 3]) == 2.0
