"""mopt.expert.turnaround: F(t, t') = F_s(t)·γ(t'), parametric and from observed instances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mopt import InputError
from mopt.expert import TurnaroundModel

inf = math.inf


class TestParametric:
    def test_success_cdf_and_reliability(self):
        m = TurnaroundModel.parametric(stats.uniform(1000, 200), 0.8)
        # uniform on [1000, 1200]: F_s(1050) = 0.25, F_s(1100) = 0.5, 0 below, 1 above
        assert m.success_cdf([900, 1050, 1100, 1200, 5000]) == pytest.approx(
            [0, 0.25, 0.5, 1, 1], abs=1e-4
        )
        assert m.reliability([0.0, 1e6]).tolist() == [0.8, 0.8]
        assert m.cdf(1100, 0.0) == pytest.approx(0.4, abs=1e-4)
        assert m.mean_success == pytest.approx(1100.0, rel=1e-6)
        # 65,536 equiprobable quantiles, sorted
        assert len(m.fs_table) == 65536 and np.all(np.diff(m.fs_table) >= 0)
        assert m.fs_table[0] == pytest.approx(1000 + 200 * 0.5 / 65536)

    def test_p_success_before(self):
        m = TurnaroundModel.parametric(stats.uniform(1000, 200), 0.8)
        # P(result strictly before 1100) = 0.5 · 0.8
        assert m.success_before(1100) * 0.8 == pytest.approx(0.4, abs=1e-4)
        assert m.success_before(1000) == 0.0
        assert m.success_before(1e9) * float(m.reliability(1e9)) == pytest.approx(0.8)

    def test_reliability_as_a_function_of_send_time(self):
        def gamma(t):
            return 0.9 if t < 100 else 0.5

        m = TurnaroundModel.parametric(stats.uniform(10, 10), gamma)
        assert m.reliability([0, 99, 100, 500]).tolist() == [0.9, 0.9, 0.5, 0.5]
        # tabulated for the simulator every `step` seconds
        _, breaks, values = m.tables(step=50.0, horizon=200.0)
        assert breaks.tolist() == [0, 50, 100, 150, 200]
        assert values.tolist() == [0.9, 0.9, 0.5, 0.5, 0.5]

    def test_reliability_function_out_of_range(self):
        m = TurnaroundModel.parametric(stats.uniform(10, 10), lambda t: 1.0 if t < 100 else 1.5)
        with pytest.raises(
            InputError,
            match="'reliability' must return a probability in \\[0, 1\\]; got 1.5 at t'=100",
        ):
            m.tables(step=50.0, horizon=200.0)

    @pytest.mark.parametrize("bad", [-0.1, 1.5, math.nan])
    def test_bad_reliability(self, bad):
        with pytest.raises(InputError, match="'reliability' must be in \\[0, 1\\]"):
            TurnaroundModel.parametric(stats.uniform(10, 10), bad)

    def test_bad_distribution(self):
        with pytest.raises(InputError, match="'fs' must be a distribution of non-negative"):
            TurnaroundModel.parametric(stats.norm(0, 1), 0.5)
        with pytest.raises(TypeError, match="'fs'"):
            TurnaroundModel.parametric([1, 2, 3], 0.5)


class TestOffline:
    def test_groups_on_a_hand_made_log(self):
        # sorted by send time; turnaround >= deadline (100) or inf means no result
        send = [30, 0, 10, 20, 40]
        turn = [80, 40, inf, 100, 70]
        # in send order: 0 -> 40 ok, 10 -> inf no, 20 -> 100 no (= deadline), 30 -> 80 ok, 40 -> 70 ok
        m = TurnaroundModel.from_instances(send, turn, deadline=100, group_size=2)
        # groups of 2 by send time: {0, 10}: 1/2, {20, 30}: 1/2, {40}: 1/1; after the last send: pooled 3/5
        assert m.gamma_breaks.tolist() == [0, 20, 40, pytest.approx(40)]
        assert m.reliability([0, 15, 20, 39, 40]).tolist() == [0.5, 0.5, 0.5, 0.5, 1.0]
        assert m.reliability([41, 1e6]).tolist() == [0.6, 0.6]
        assert m.fs_table.tolist() == [40, 70, 80]
        # F_s is the empirical CDF of the results
        assert m.success_cdf([39, 40, 75, 80]).tolist() == [0, 1 / 3, 2 / 3, 1]
        assert m.mean_success == pytest.approx((40 + 70 + 80) / 3)

    def test_one_group(self):
        m = TurnaroundModel.from_instances([0, 1, 2, 3], [1, 2, inf, 3], deadline=10)
        assert m.reliability([0, 3, 100]).tolist() == [0.75, 0.75, 0.75]

    def test_no_result_raises(self):
        with pytest.raises(InputError, match="no result before the deadline"):
            TurnaroundModel.from_instances([0, 1], [inf, 200], 100)

    @pytest.mark.parametrize("bad", [0, -1, 2.5, True])
    def test_bad_group_size(self, bad):
        with pytest.raises(InputError, match="'group_size'"):
            TurnaroundModel.from_instances([0], [1], 10, group_size=bad)

    def test_bad_deadline(self):
        with pytest.raises(InputError, match="'deadline'"):
            TurnaroundModel.from_instances([0], [1], 0)


# A hand-made log with all three epochs: deadline D = 100, T_tail = 250, groups of 2.
#   full knowledge    t' < T_tail - D = 150
#   partial knowledge 150 <= t' < 250
#   zero knowledge    t' >= 250
SEND = [0, 10, 20, 30, 40, 50, 150, 152, 155, 200, 205, 210]
TURN = [40, inf, 60, 80, inf, 70, inf, inf, 20, 70, 10, 30]


class TestOnline:
    def test_after_every_result_is_known_equals_offline(self):
        offline = TurnaroundModel.from_instances(SEND, TURN, deadline=100, group_size=2)
        t_tail = max(SEND) + 100 + 1  # every instance in the full-knowledge epoch (t' < T_tail - D)
        online = TurnaroundModel.from_instances(
            SEND, TURN, deadline=100, t_tail=t_tail, group_size=2
        )
        assert online.reliability(SEND).tolist() == offline.reliability(SEND).tolist()
        later = [t_tail, t_tail + 1, 1e7]
        assert online.reliability(later).tolist() == offline.reliability(later).tolist()
        # 8 of 12 instances returned a result: the pooled γ
        assert online.reliability(later).tolist() == pytest.approx([8 / 12] * 3)
        assert online.fs_table.tolist() == offline.fs_table.tolist()
        assert online.epochs == {
            "full": pytest.approx(8 / 12),
            "partial": None,
            "zero": pytest.approx(8 / 12),
        }

    def test_partial_knowledge_epoch_by_hand(self):
        m = TurnaroundModel.from_instances(SEND, TURN, deadline=100, t_tail=250, group_size=2)
        # Full epoch (send < 150): groups {0, 10}: 1/2, {20, 30}: 2/2, {40, 50}: 1/2
        #   -> lowest full-knowledge γ = 0.5, epoch mean 4/6 = 2/3
        #   F_s1 = empirical CDF of the full epoch's results {40, 60, 70, 80} (quarters)
        assert m.fs_table.tolist() == [40, 60, 70, 80]
        assert m.reliability([0, 10, 20, 30, 40, 50]).tolist() == [0.5, 0.5, 1.0, 1.0, 0.5, 0.5]
        # Partial epoch, Eq. 2 per group: γ = (#results known at T_tail) / Σ F_s1(min(T_tail - t', D))
        #   {150 (inf), 152 (inf)}: known 0; F_s1(100) + F_s1(98) = 1 + 1 = 2 -> 0, clipped up to 0.5
        #   {155 (20: back at 175), 200 (70: back at 270 > 250, unknown)}: known 1;
        #       F_s1(95) + F_s1(50) = 1 + 1/4 -> 1 / 1.25 = 0.8 (within [0.5, 1])
        #   {205 (10: back at 215), 210 (30: back at 240)}: known 2;
        #       F_s1(45) + F_s1(40) = 1/4 + 1/4 -> 2 / 0.5 = 4, clipped down to 1
        assert m.reliability(
            [150, 152, 155, 200, 204.9, 205, 210, 249.9]
        ).tolist() == pytest.approx([0.5, 0.5, 0.8, 0.8, 0.8, 1.0, 1.0, 1.0])
        # Zero knowledge (t' >= T_tail): mean of the two epochs' means
        #   full 2/3, partial (0.5 + 0.8 + 1) / 3 = 2.3/3 -> (2/3 + 2.3/3) / 2 = 4.3/6
        zero = (2 / 3 + 2.3 / 3) / 2
        assert m.reliability([250, 1e6]).tolist() == pytest.approx([zero, zero])
        assert m.epochs["full"] == pytest.approx(2 / 3)
        assert m.epochs["partial"] == pytest.approx(2.3 / 3)
        assert m.epochs["zero"] == pytest.approx(zero)
        # the simulator's late γ is the zero-knowledge one
        assert float(m.reliability(1e12)) == pytest.approx(zero)

    def test_no_full_knowledge_epoch_raises(self):
        with pytest.raises(InputError, match="'t_tail'=50 leaves no full-knowledge epoch"):
            TurnaroundModel.from_instances(SEND, TURN, deadline=100, t_tail=50)

    def test_no_result_in_the_full_knowledge_epoch_raises(self):
        with pytest.raises(InputError, match="full-knowledge epoch has no result"):
            TurnaroundModel.from_instances([0, 200], [inf, 10], deadline=100, t_tail=250)

    def test_negative_t_tail_raises(self):
        with pytest.raises(InputError, match="'t_tail'"):
            TurnaroundModel.from_instances(SEND, TURN, deadline=100, t_tail=-1)


def test_partial_group_without_information_keeps_the_previous_gamma():
    # full epoch (t' < t_tail - D = 1000): 10 instances at t' = 0..90, half return after 600 s
    send = [float(10 * k) for k in range(10)] + [1800.0, 1850.0]
    turn = [600.0 if k % 2 == 0 else float("inf") for k in range(10)] + [float("inf")] * 2
    m = TurnaroundModel.from_instances(send, turn, deadline=1000.0, t_tail=2000.0, group_size=10)
    # the partial group was sent 150-200 s before T_tail, below the shortest turnaround (600 s):
    # F_s1(T_tail - t') = 0, Eq. 2 is 0/0 — no information, so γ stays at the full epoch's 0.5
    assert float(m.reliability(1825.0)) == pytest.approx(0.5)
    assert m.epochs["partial"] is None
    assert m.epochs["zero"] == pytest.approx(0.5)
