"""The README's Python example runs and the figures it shows exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_examples_run(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # examples read files relative to the repository
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    # the example prints the frontier, two decisions and CN_inf's means
    assert "makespan" in out and "cost" in out


def test_figures_shown_exist():
    shown = re.findall(r"\((figures/[^)]+)\)", README)
    assert len(shown) >= 4
    for path in shown:
        assert (ROOT / path).is_file(), path


def test_readme_commands_are_the_ci_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python -m pip install -e ".[test]"' in README and 'python -m pip install -e ".[test]"' in ci
    assert "python -m pytest" in README and "python -m pytest" in ci
