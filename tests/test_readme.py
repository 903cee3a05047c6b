"""The README's Python examples run as scripts (as a user runs them) and the figures it shows exist."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_examples_run_as_scripts(tmp_path):
    """Each ```python block is its own ``python block_k.py`` file, run with the repository as the
    working directory (examples read files relative to it) and this checkout's mopt first on the
    path.  A script differs from ``exec`` in pytest: Dask's spawned workers import it, so code that
    starts them must sit under ``if __name__ == "__main__":``.  The blocks run concurrently."""
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 4, "README lost its Python examples"
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                                      os.environ.get("PYTHONPATH")]))}
    procs = []
    for k, code in enumerate(blocks):
        script = tmp_path / f"block_{k}.py"
        script.write_text(code)
        procs.append(subprocess.Popen([sys.executable, str(script)], cwd=ROOT, env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outputs = []
    for k, proc in enumerate(procs):
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"README block {k} failed:\n{blocks[k]}\n{err[-3000:]}"
        assert "Traceback" not in err, f"README block {k}:\n{err[-3000:]}"
        outputs.append(out)
    text = "\n".join(outputs)
    # the first example prints the frontier, two decisions and CN_inf's means
    assert "makespan" in outputs[0] and "cost" in outputs[0]
    assert "'reused': 3000" in text and "'simulated': 0" in text  # the resumed run of "Scale out"
    assert "n_evals" in text  # compare's summary shows what each run spent


def test_figures_shown_exist():
    shown = re.findall(r"\((figures/[^)]+)\)", README)
    assert len(shown) >= 4
    for path in shown:
        assert (ROOT / path).is_file(), path


def test_readme_commands_are_the_ci_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'python -m pip install -e ".[test]"' in README and 'python -m pip install -e ".[test]"' in ci
    assert "python -m pytest" in README and "python -m pytest" in ci
