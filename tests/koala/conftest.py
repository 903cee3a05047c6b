"""Shared setup of the KOALA-C tests: the independent reference model ``benchmarks/koala_model.py``
is importable as ``koala_model`` (``test_koala_engine.py`` looks for it one directory too high
since the tests moved from ``tests/cloud/koala`` to ``tests/koala``)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))
