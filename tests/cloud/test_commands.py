"""``mopt simulate``: output, files, exit codes, generated bad input. (``mopt traces fetch``:
tests/cli/test_traces.py.)"""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mopt.cli import main
from tests.helpers import count_bad_input, fuzz

ROW = " -1 -1 -1 {req} -1 1 {user} 1 -1 1 -1 -1 -1"


@pytest.fixture
def swf(tmp_path):
    # the spec §5 job (4 procs, 600 s at 0) and a 1-proc, 100 s job at 5000
    path = tmp_path / "tiny.swf"
    path.write_text("; MaxProcs: 8\n"
                    "1 0 0 600 4" + ROW.format(req=900, user=1) + "\n"
                    "2 5000 0 100 1" + ROW.format(req=200, user=1) + "\n")
    return path


def test_simulate_prints_summary_and_writes_csv(swf, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    code = main(["simulate", "--trace", str(swf), "--policy", "oda-fcfs-firstfit", "--out",
                 str(out), "--quiet"])
    assert code == 0
    text = capsys.readouterr().out
    # job 1: spec §5 (4 VMs, 1 h each); job 2: one VM leased at 5000, 1 h: R_V = 5 h = 18000;
    # R_J = 4 x 600 + 100; large numbers are grouped (issue #36: "R_J 1820942856 VM-s")
    assert "ODA-FCFS-FirstFit" in text and "R_J 2,500 VM-s   R_V 18,000 VM-s" in text and "VM-hours" in text
    df = pd.read_csv(out)
    assert df["start"].tolist() == [120, 5120] and df["bsd"].iloc[0] == pytest.approx(1.2)


def test_simulate_options_reach_the_simulator(swf, tmp_path, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit", "--out",
                 str(out), "--boot-delay", "0", "--runtime", "predicted", "--quiet"]) == 0
    assert pd.read_csv(out)["start"].tolist() == [0, 5000]
    # a cap of 2 VMs refuses the 4-wide job by count and cap, or drops it on request
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit",
                 "--max-vms", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "1 jobs of" in err and "need more than '--max-vms' 2 VMs; give '--drop-wide'" in err
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit",
                 "--max-vms", "2", "--drop-wide", "--out", str(out), "--quiet"]) == 0
    assert "dropped 1 jobs" in capsys.readouterr().out


def test_vm_key_option_names_the_library_keys(swf, tmp_path, capsys):
    # the CLI spells the keys itself (no Numba for --help): they must be the library's
    import argparse

    from mopt.cloud.commands import add_vm_key
    from mopt.cloud.policies import VM_KEYS

    parser = argparse.ArgumentParser()
    add_vm_key(parser)
    assert tuple(parser._option_string_actions["--vm-key"].choices) == VM_KEYS
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-WorstFit", "--vm-key",
                 "binpack", "--out", str(out), "--quiet"]) == 0
    assert "VM key binpack" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--policy", "ODA-FCFS-NoFit"], "unknown VM-selection policy 'NoFit'"),
    (["--trace", "NOPE"], "'--trace' must be an archive name (KTH-SP2"),
    (["--max-vms", "0"], "'--max-vms' must be"),
    (["--size-limit", "0"], "'--size-limit'"),
    (["--vm-key", "foo"], "argument --vm-key: invalid choice: 'foo' (choose from 'mod', 'binpack')"),
])
def test_simulate_bad_input_exits_2(swf, args, message, capsys):
    base = {"--trace": str(swf), "--policy": "ODA-FCFS-FirstFit", args[0]: args[1]}
    assert main(["simulate", *[x for kv in base.items() for x in kv]]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


@fuzz(40)
@given(policy=st.text(max_size=30), boot=st.one_of(st.floats(), st.text(max_size=5)))
def test_fuzz_simulate_cli(swf, tmp_path, capsys, policy, boot):
    from mopt.cloud import Policy
    from mopt.core.errors import InputError

    try:
        Policy(policy)
        good_policy = True
    except InputError:
        good_policy = False
    try:
        good_boot = 0 <= float(boot) < float("inf")
    except ValueError:
        good_boot = False
    if good_policy and good_boot or policy.startswith("-") or not policy:
        return
    code = main(["simulate", "--trace", str(swf), "--policy", policy, "--boot-delay", str(boot),
                 "--out", str(tmp_path / "x.csv"), "--quiet"])
    count_bad_input("mopt simulate")
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.strip()
