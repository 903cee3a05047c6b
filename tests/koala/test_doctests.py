"""The Examples sections of every mopt.koala module run and pass."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import mopt.koala

MODULES = ["mopt.koala", *(f"mopt.koala.{m.name}" for m in pkgutil.iter_modules(mopt.koala.__path__))]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    if name.rsplit(".", 1)[-1] in ("koala", "environment", "policies", "simulation", "problem"):
        assert result.attempted > 0, f"{name} lost its Examples"
