"""experiments/cloud_policies.py end to end on a tiny stand-in trace (the real run takes minutes),
and SC13 Fig. 4's VM selections under the bin-packing key (issue #26): the recorded whole-trace run
checked against the rule, the record checked against the simulator, and a fast check on a slice."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from tests.helpers import needs_traces

_PATH = Path(__file__).resolve().parents[2] / "experiments" / "cloud_policies.py"


FIGURES = _PATH.parents[1] / "figures"


def _experiment():
    spec = importlib.util.spec_from_file_location("cloud_policies_experiment", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def firstfit_groups(module, df: pd.DataFrame, trace: str) -> int:
    """In how many of ``trace``'s provisioning groups FirstFit is the best VM selection (the VM
    selection of the group's highest U)."""
    return sum(v == "FirstFit" for v in module.vm_winners(df)[trace].values())


def test_binpack_firstfit_wins_most_kth_groups_in_the_recorded_run():
    # SC13 Fig. 4's caption: FirstFit is the best VM selection in most groups. Under the
    # bin-packing key it must be, on whole KTH-SP2, in at least 4 of the 5 (recorded: 5); under
    # the default key it is in none (WorstFit keeps paid idle VMs warm: docs/families/cloud.md)
    module = _experiment()
    binpack = pd.read_csv(FIGURES / "cloud_policies_binpack.csv")
    default = pd.read_csv(FIGURES / "cloud_policies.csv")
    for df in (binpack, default):
        assert df.groupby("trace").size().to_dict() == {t: 60 for t in module.TRACES}
    assert (binpack.loc[binpack.trace == "KTH-SP2", "n_jobs"] == 28_147).all()
    assert firstfit_groups(module, binpack, "KTH-SP2") >= 4
    assert firstfit_groups(module, default, "KTH-SP2") == 0
    # FirstFit does not depend on the key, and with a boot delay (r_v <= 3600 - 120) neither does
    # BestFit's order (tests/cloud/test_simulate.py): only WorstFit's rows differ
    merged = binpack.merge(default, on=["trace", "policy"], suffixes=("", "_mod"))
    same = merged["vm_selection"] != "WorstFit"
    assert (merged.loc[same, "utility"] == merged.loc[same, "utility_mod"]).all()
    assert (merged.loc[~same, "utility"] != merged.loc[~same, "utility_mod"]).mean() > 0.9


@needs_traces("KTH-SP2")
def test_the_recorded_binpack_run_is_what_the_simulator_gives():
    from mopt.cloud import simulate
    from mopt.workloads import load_trace

    recorded = pd.read_csv(FIGURES / "cloud_policies_binpack.csv").set_index(["trace", "policy"])
    jobs = load_trace("KTH-SP2", size_limit=64)
    for policy in ("ODA-UNICEF-FirstFit", "ODA-UNICEF-WorstFit"):
        s = simulate(jobs, policy, vm_key="binpack").summary
        row = recorded.loc[("KTH-SP2", policy)]
        assert (s["vm_hours"], s["utility"]) == pytest.approx((row["vm_hours"], row["utility"]),
                                                              rel=1e-12)


@pytest.mark.slow
@needs_traces("KTH-SP2")
def test_binpack_firstfit_wins_most_groups_on_a_kth_slice():
    # the rule on KTH-SP2's first 5,000 jobs, all 60 policies (about 5 s): FirstFit best in >= 4
    # of the 5 groups under the bin-packing key (measured: 5; the first 2,000 jobs give 4)
    from mopt.cloud import sc13_policies, simulate
    from mopt.workloads import load_trace

    module = _experiment()
    jobs = load_trace("KTH-SP2", size_limit=64).head(5000)
    rows = [{"trace": "KTH-SP2", "policy": p.name, "provisioning": p.provisioning,
             "vm_selection": p.vm_selection,
             "utility": simulate(jobs, p, vm_key="binpack").summary["utility"]}
            for p in sc13_policies()]
    assert firstfit_groups(module, pd.DataFrame(rows), "KTH-SP2") >= 4


@pytest.mark.slow
def test_cloud_policies_experiment_writes_figure_and_report(tmp_path, monkeypatch):
    module = _experiment()
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
    # the bin-packing key: its own files, and the groups' best VM selections under both keys
    assert module.main(["--traces", "KTH-SP2", "--out", str(tmp_path), "--vm-key", "binpack"]) == 0
    text = (tmp_path / "cloud_policies_binpack.md").read_text()
    assert "| KTH-SP2 | mod | " in text and "| KTH-SP2 | binpack | " in text
    assert (tmp_path / "cloud_policies_binpack.png").stat().st_size > 10_000
