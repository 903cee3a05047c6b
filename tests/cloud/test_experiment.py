"""experiments/cloud_policies.py end to end on a tiny stand-in trace (the real run takes minutes)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

_PATH = Path(__file__).resolve().parents[2] / "experiments" / "cloud_policies.py"


@pytest.mark.slow
def test_cloud_policies_experiment_writes_figure_and_report(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("cloud_policies_experiment", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(2)
    tiny = pd.DataFrame({"submit_time": np.sort(rng.integers(0, 20000, 30)),
                         "run_time": rng.integers(1, 5000, 30), "n_procs": rng.integers(1, 9, 30)})
    monkeypatch.setattr(module, "load_trace", lambda name, size_limit: tiny)
    assert module.main(["--traces", "KTH-SP2", "--out", str(tmp_path)]) == 0
    text = (tmp_path / "cloud_policies.md").read_text()
    # one best policy per provisioning group, and all 60 policies listed
    for group in module.GROUPS:
        assert f"| KTH-SP2 | {group} | {group}-" in text
    assert text.count("| KTH-SP2 | OD") == 5 + 60
    assert (tmp_path / "cloud_policies.png").stat().st_size > 10_000
