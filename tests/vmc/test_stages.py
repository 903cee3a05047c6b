"""Algorithms 2 (partition) and 3 (merge) on hand cases."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.core.errors import InputError
from mopt.vmc.stages import adaptive_stages, merge, partition, stale_stage_width


def test_partition_hand_case():
    # base periods [0, 8), [8, 16) with w = 4, split_threshold 0.5
    # [0, 8): batches (1,0,0) at 1, (0,1,0) at 3, (0,0,1) at 5, (1,0,0) at 7: similarity of the batches
    #   at 1 and 7 is 1 > 0.5, so the stage is kept whole.
    # [8, 16): (1,0,0) at 9, (0,1,0) at 13: pairwise max similarity 0 <= 0.5 -> halved into [8, 12)
    #   and [12, 16); each half (width 4 >= w) holds one batch only, so it is not split further.
    times = [1, 3, 5, 7, 9, 13]
    B = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert partition(times, B, [0, 8, 16], 4, 0.5).tolist() == [0, 8, 12, 16]
    # with w = 9 no stage is wide enough to be split
    assert partition(times, B, [0, 8, 16], 9, 0.5).tolist() == [0, 8, 16]


def test_partition_recurses_until_width_below_w():
    # [0, 8) with four mutually orthogonal batches at 1, 3, 5, 7 and w = 2: halves [0,4), [4,8) are
    # still dissimilar pairs -> quarters [0,2), [2,4), ... of width 2 >= w hold one batch each: kept
    times = [1, 3, 5, 7]
    B = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    assert partition(times, B, [0, 8], 2, 0.1).tolist() == [0, 2, 4, 6, 8]


def test_merge_hand_case():
    # stages [0,4), [4,8), [8,12), [12,16), W = 4, merge_threshold 0.9
    # [0,4) (1,0) vs [4,8) (2,0): min similarity 1 > 0.9 -> merged into [0,8), width 8 > W: stop
    # [8,12) (0,1) vs [12,16) (1,1): similarity 0.707 <= 0.9 -> kept; [12,16) is last
    times = [1, 5, 9, 13]
    B = [[1, 0], [2, 0], [0, 1], [1, 1]]
    assert merge(times, B, [0, 4, 8, 12, 16], 4, 0.9).tolist() == [0, 8, 12, 16]
    # W = 8: [0,8) is tested again against [8,12): similarity 0 -> kept
    assert merge(times, B, [0, 4, 8, 12, 16], 8, 0.9).tolist() == [0, 8, 12, 16]
    # threshold 0.5: [8,12) vs [12,16) 0.707 > 0.5 merges too
    assert merge(times, B, [0, 4, 8, 12, 16], 4, 0.5).tolist() == [0, 8, 16]


def test_empty_stages_merge_only_with_empty_ones():
    assert merge([1], [[1, 0]], [0, 4, 8, 12], 4, 0.5).tolist() == [0, 4, 12]


def test_adaptive_stages_are_half_one_or_two_base_periods():
    times = [1, 6, 11, 21, 26]
    B = [[1, 0], [0, 1], [1, 0], [1, 0], [1, 0]]
    # [0,10) split (orthogonal) -> [0,5), [5,10); [10,20) one batch (1,0), [20,30) two (1,0):
    # [10,20) merges [20,30) -> [10,30)
    assert adaptive_stages(times, B, 0, 30, 10, 0.5, 0.5).tolist() == [0, 5, 10, 30]


@pytest.mark.parametrize("value", [-0.1, 1.5])
def test_thresholds_outside_unit_interval(value):
    with pytest.raises(InputError, match="split_threshold"):
        partition([1], [[1]], [0, 2], 1, value)
    with pytest.raises(InputError, match="merge_threshold"):
        merge([1], [[1]], [0, 2], 1, value)


@pytest.mark.parametrize("bounds", [[10, 0], [0], [0, 5, 5]])
def test_stage_bounds_must_increase(bounds):
    # a decreasing boundary list used to come back unchanged, as if it were stages
    with pytest.raises(InputError, match="'bounds' must be at least two increasing"):
        partition([1, 6], [[1, 0], [0, 1]], bounds, 10, 0.5)
    with pytest.raises(InputError, match="'bounds' must be at least two increasing"):
        merge([1, 6], [[1, 0], [0, 1]], bounds, 10, 0.5)


def test_adaptive_stages_end_after_start():
    with pytest.raises(InputError, match="'end' must be in"):
        adaptive_stages([1, 6], [[1, 0], [0, 1]], 20, 0, 10, 0.5, 0.5)


def test_stale_stage_width_hand_cases():
    # t = 10, both thresholds 0.5, nothing observed before 0
    times, B = [11, 16, 21, 26], [[1, 0], [0, 1], [1, 0], [2, 0]]
    # seen 20: [10, 20) holds two orthogonal batches -> halved
    assert stale_stage_width(times, B, 20, 10, 0.5, 0.5, start=0) == 5.0
    # seen 30: [20, 30) two class-1 batches (similarity 1), not split; against [10, 20) the smallest
    #   similarity is 0 (class 2 against class 1), so not merged -> t
    assert stale_stage_width(times, B, 30, 10, 0.5, 0.5, start=0) == 10.0
    # seen 40: [30, 40) empty, [20, 30) not -> t; seen 50: both empty -> alike, merged
    assert stale_stage_width(times, B, 40, 10, 0.5, 0.5, start=0) == 10.0
    assert stale_stage_width(times, B, 50, 10, 0.5, 0.5, start=0) == 20.0
    # seen 10: [-10, 0) was never observed, so no merge though both periods are empty
    assert stale_stage_width(times, B, 10, 10, 0.5, 0.5, start=0) == 10.0
    # without the start, the two empty periods before 10 are alike
    assert stale_stage_width(times, B, 10, 10, 0.5, 0.5) == 20.0


def test_stale_stage_width_reads_no_batch_at_or_after_seen():
    # the batches at or after `seen` redrawn: the width decided at `seen` stays
    rng = np.random.default_rng(3)
    times = np.sort(rng.uniform(0, 100, 40))
    B = rng.integers(0, 3, size=(40, 3)).astype(float)
    for seen in (25.0, 50.0, 75.0):
        later = times >= seen
        other = B.copy()
        other[later] = rng.integers(0, 3, size=(int(later.sum()), 3))
        first, again = (stale_stage_width(times, X, seen, 10, 0.6, 0.4, start=0) for X in (B, other))
        assert first == again
