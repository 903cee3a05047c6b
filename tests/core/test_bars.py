"""The progress bar's class: the text bar outside IPython (without asyncio's import), the widget under it."""

from __future__ import annotations

import subprocess
import sys
import types

import tqdm.auto
import tqdm.std

from mopt.core.bars import tqdm_class


def test_outside_ipython_the_text_bar(monkeypatch):
    monkeypatch.delitem(sys.modules, "IPython", raising=False)
    assert tqdm_class() is tqdm.std.tqdm


def test_under_ipython_tqdm_auto_chooses(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", types.ModuleType("IPython"))
    assert tqdm_class() is tqdm.auto.tqdm


def test_a_run_with_a_progress_bar_does_not_import_asyncio():
    code = ("import sys, mopt.solvers.base as b; bar = b.progress_bar(True, 3, 'x'); bar.update(3); "
            "bar.close(); print('asyncio' in sys.modules, type(bar).__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "tqdm.std"]
