"""mopt.core.random: seed resolution and replication-addressed streams."""

from __future__ import annotations

import numpy as np
import pytest

from mopt import InputError
from mopt.core.random import replication_keys, replication_rng, resolve_seed


class TestResolveSeed:
    def test_int_is_used_as_is(self):
        assert resolve_seed(0) == 0
        assert resolve_seed(7) == 7
        assert resolve_seed(np.int64(12345)) == 12345
        assert resolve_seed(2**63 + 5) == 2**63 + 5

    def test_generator_is_used_not_copied(self):
        rng = np.random.default_rng(1)
        first, second = resolve_seed(rng), resolve_seed(rng)
        assert first != second  # each call draws from the Generator, advancing it
        assert 0 <= first < 2**63 and 0 <= second < 2**63
        # equal Generators give equal seeds, and the draws are exactly those of the Generator
        assert [resolve_seed(np.random.default_rng(1)) for _ in range(2)] == [first, first]
        expected = np.random.default_rng(1).integers(0, 2**63 - 1, size=2)
        assert [first, second] == expected.tolist()

    def test_seed_sequence_gives_its_entropy(self):
        assert resolve_seed(np.random.SeedSequence(42)) == 42
        ss = np.random.SeedSequence()
        assert resolve_seed(ss) == ss.entropy

    def test_none_draws_fresh_entropy(self):
        a, b = resolve_seed(None), resolve_seed(None)
        assert isinstance(a, int) and a >= 0
        assert a != b  # 128 bits of OS entropy: a collision is practically impossible

    @pytest.mark.parametrize("bad", [1.5, "1", [1], True, object()])
    def test_bad_types_raise_naming_seed(self, bad):
        with pytest.raises(TypeError, match="'seed'"):
            resolve_seed(bad)

    def test_negative_raises_naming_seed(self):
        with pytest.raises(ValueError, match="'seed' must be a non-negative int; got -1"):
            resolve_seed(-1)

    def test_negative_raises_input_error(self):
        with pytest.raises(InputError, match="'seed'"):
            resolve_seed(-1)

    def test_seed_sequence_with_non_integer_entropy_raises(self):
        with pytest.raises(TypeError, match="'seed'"):
            resolve_seed(np.random.SeedSequence([1, 2, 3]))


class TestReplicationKeys:
    def test_keys_depend_only_on_seed_and_rep(self):
        k = replication_keys(11, [0, 1, 2])
        assert k.dtype == np.uint64 and k.shape == (3,)
        assert len(set(k.tolist())) == 3
        assert replication_keys(11, [2])[0] == k[2]
        assert replication_keys(11, [2, 0]).tolist() == [k[2], k[0]]
        assert replication_keys(11, np.arange(100))[:3].tolist() == k.tolist()

    def test_keys_are_those_of_the_seed_sequence_tree(self):
        # replication r uses SeedSequence(entropy, spawn_key=(r,)): the documented addressing
        expected = np.random.SeedSequence(11, spawn_key=(1,)).generate_state(1, np.uint64)[0]
        assert replication_keys(11, [1])[0] == expected

    def test_different_seeds_and_designs_give_different_keys(self):
        a = replication_keys(11, [0, 1, 2])
        assert not np.intersect1d(a, replication_keys(12, [0, 1, 2])).size
        b = replication_keys(11, [0, 1, 2], design=3)
        assert not np.intersect1d(a, b).size
        assert replication_keys(11, [2], design=3)[0] == b[2]

    def test_empty(self):
        assert replication_keys(1, []).shape == (0,)


class TestReplicationRng:
    def test_stream_addressed_by_rep_not_by_order(self):
        later = replication_rng(5, 3).normal(size=4)
        for r in range(3):
            replication_rng(5, r).normal()
        assert np.array_equal(replication_rng(5, 3).normal(size=4), later)
        assert not np.array_equal(replication_rng(5, 2).normal(size=4), later)

    def test_design_streams_differ_under_independent_sampling(self):
        assert replication_rng(5, 0, design=0).normal() != replication_rng(5, 0, design=1).normal()
        assert replication_rng(5, 0, design=1).normal() == replication_rng(5, 0, design=1).normal()
