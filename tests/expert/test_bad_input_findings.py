"""Issue 14, finding 5 in ExPERT's scenario files: values no run can use are refused, naming file,
section and key, before anything is simulated; the largest accepted values still run. (The
findings met through the ``mopt`` command: tests/cli/test_bad_input_findings.py.)"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import mopt
from mopt.cli import main
from tests.helpers import no_simulation

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "reference.toml"


def scenario(tmp_path: Path, old: str, new: str) -> Path:
    text = REFERENCE.read_text()
    assert old in text, old
    path = tmp_path / "s.toml"
    path.write_text(text.replace(old, new))
    return path


def one_line(capsys, code: int, *fragments: str) -> None:
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mopt: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


# -- 5: values no run can use ----------------------------------------------------------------
@pytest.mark.parametrize("old, new, fragment", [
    ("charging_period_r = 1 ", "charging_period_r = 1e300 ", "'charging_period_r' must be in (0, 3.1536e+07]"),
    ("n_unreliable = 50 ", "n_unreliable = 100000000 ", "'n_unreliable' must be an integer in [1, 1,000,000]"),
    ('c_r = "34/3600"', "c_r = 1e300", "'c_r' must be in [0, 1e+06]"),
    ("n_tasks = 150", "n_tasks = 100000000", "'n_tasks' must be an integer in [1, 1,000,000]"),
])
def test_5_unusable_values_are_refused(tmp_path, capsys, old, new, fragment):
    path = scenario(tmp_path, old, new)
    with no_simulation():
        code = main(["frontier", str(path), "--out", str(tmp_path / "o")])
    one_line(capsys, code, str(path), "[environment]", fragment)


def test_5_largest_values_still_run():
    """At the bounds, costs and standard errors stay finite (no overflow warnings)."""
    env = mopt.expert.reference_environment(0.1)
    env = dataclasses.replace(env, charging_period_r=365 * 86400.0, c_r=1e6)
    with np.errstate(all="raise"):
        df = mopt.expert.estimate(env, mopt.expert.Strategy(N=0, T=0, D=4132, Mr=0.1), n_reps=3, seed=1)
    assert np.isfinite(df["cost"]).all() and np.isfinite(df["cost"].std())
