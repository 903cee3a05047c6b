"""The fuzz tests' budget (tests/helpers.py ``fuzz``): an input over its memory bound fails the test."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tests.helpers as helpers
from tests.helpers import fuzz


def test_an_input_over_the_memory_budget_fails_the_test(monkeypatch):
    monkeypatch.setattr(helpers, "FUZZ_MEMORY", 64 << 20)

    @fuzz(3)
    @given(n=st.just(160 << 20))
    def greedy(n):
        block = bytearray(n)  # zero-filled: every page touched
        block[::4096] = b"\x01" * len(block[::4096])
        del block

    with pytest.raises(AssertionError, match="budget 64 MiB"):
        greedy()


def test_an_input_within_the_budget_passes(monkeypatch):
    monkeypatch.setattr(helpers, "FUZZ_MEMORY", 64 << 20)
    seen = []

    @fuzz(5)
    @given(n=st.integers(0, 1 << 20))
    def modest(n):
        seen.append(len(bytearray(n)))

    modest()
    assert len(seen) >= 5
