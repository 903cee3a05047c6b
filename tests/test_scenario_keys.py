"""The families' scenario-key declarations (``KEYS``, ``RUN_KEYS``) are the parsers' only tables.

The snapshot below is what the parsers accepted before the declarations existed (the hand-written
key -> required tables); the derived tables must equal it, key order included (messages list the
allowed keys in that order). Keys added since on purpose are marked where they appear.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mopt.core.errors import InputError
from mopt.core.family import Key, Section, families
from mopt.scenario import RUN_KEYS, check_keys

BEFORE = {
    "expert": {
        "sections": {"environment": True, "turnaround": False, "observed": False, "grid": False, "run": False},
        "environment": {"n_tasks": True, "n_unreliable": True, "t_ur": True, "t_r": False, "c_ur": True,
                        "c_r": True, "mr_max": False, "charging_period_r": False},
        "turnaround shifted_lognormal": {"kind": True, "mean": True, "shift": True, "sigma": False,
                                         "reliability": True},
        "turnaround instances": {"kind": True, "file": True, "deadline": True, "t_tail": False,
                                 "group_size": False},
        "observed": {"file": True, "t_tail": True, "deadline": True, "group_size": False},
        "grid": {"preset": False, "N": False, "T": False, "D": False, "Mr": False},
    },
    "vmc": {
        "sections": {"clusters": True, "period": True, "run": False},
        # cv and noise: added on purpose (issue #23: the noise model, σ/μ as a sensitivity)
        "clusters": {"vms": True, "classes": False, "elastic": False, "profile": False, "cv": False,
                     "noise": False},
        "period": {"length": True, "times": False, "batches": False, "backlog": False, "workload": False,
                   "workload_seed": False},
    },
    "cloud": {
        "sections": {"workload": True, "cloud": False, "run": False},
        "workload": {"trace": True, "kind": False, "window": False, "patterns": False},
        # vm_key: added since, on purpose (issue #26, BestFit/WorstFit's bin-packing key)
        "cloud": {"boot_delay": False, "max_vms": False, "period": False, "kappa": False, "vm_key": False},
    },
    "koala": {
        "sections": {"trace": True, "grid": False, "replication": False, "run": False},
        "trace": {"name": True, "first": False},
        "grid": {"limits": False, "set2": False, "public_caps": False, "private_mins": False,
                 "limits2": False, "set3": False},
        "replication": {"window_days": False, "load": False, "step": False},
    },
}


def required(table) -> dict:
    return {k: (v if isinstance(v, bool) else v.required) for k, v in table.items()}


def derived(name: str) -> dict:
    """The tables the family's parser checks against, as key -> required."""
    import importlib

    module = importlib.import_module(f"mopt.{name}.scenario")
    if name == "expert":
        return {"sections": module._SECTIONS, "environment": required(module._ENVIRONMENT),
                **{f"turnaround {kind}": required(t) for kind, t in module._TURNAROUND.items()},
                "observed": required(module._OBSERVED), "grid": required(module._GRID)}
    if name == "vmc":
        return {"sections": module.SECTIONS, "clusters": required(module.CLUSTER_KEYS),
                "period": required(module.PERIOD_KEYS)}
    if name == "cloud":
        return {"sections": module._SECTIONS, "workload": required(module._WORKLOAD),
                "cloud": required(module._CLOUD)}
    return {"sections": module._SECTIONS, "trace": required(module._TRACE), "grid": required(module._GRID),
            "replication": required(module._REPLICATION)}


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_parsers_accept_what_they_accepted(name):
    got = derived(name)
    assert got == BEFORE[name]
    for table, keys in BEFORE[name].items():  # the same order too: messages list allowed keys
        assert list(got[table]) == list(keys), table


@pytest.mark.parametrize("name", sorted(BEFORE))
def test_every_family_declares_every_key(name):
    keys = families()[name].scenario_keys()
    sections = {s: r for s, r in BEFORE[name]["sections"].items() if s != "run"}
    assert {s: sec.required for s, sec in keys.items()} == sections
    for section in keys.values():
        assert isinstance(section, Section) and section.doc
        for key in section.values():
            assert isinstance(key, Key) and key.doc and key.type, key
            assert not (key.required and key.default), key  # a required key has no default


def test_run_keys_keep_their_behaviour():
    assert required(RUN_KEYS) == {"method": False, "n_reps": False, "seed": False, "budget": False,
                                  "options": False}
    assert not RUN_KEYS.required and all(key.default for key in RUN_KEYS.values())


def test_check_keys_reads_declarations():
    allowed = Section("s", {"a": Key("a", required=True, type="int"), "b": Key("b", type="int")})
    check_keys(Path("s.toml"), "s", {"a": 1}, allowed)
    with pytest.raises(InputError, match=r"^s.toml: \[s\] missing key 'a'\.$"):
        check_keys(Path("s.toml"), "s", {"b": 1}, allowed)
    with pytest.raises(InputError, match=r"^s.toml: \[s\] unknown key 'c'; allowed keys: a, b\.$"):
        check_keys(Path("s.toml"), "s", {"a": 1, "c": 1}, allowed)
    # a section declared as a plain dict is not required because it is non-empty
    check_keys(Path("s.toml"), None, {}, {"grid": {"N": Key("N", type="int")}})


def test_a_misspelt_family_key_gets_a_did_you_mean(tmp_path):
    """``familly = "koala"`` at the top: the one top-level key is suggested (issue #36 audit)."""
    import re

    import pytest

    from mopt.core.errors import InputError
    from mopt.scenario import load_scenario

    path = tmp_path / "s.toml"
    path.write_text('familly = "expert"\n[environment]\nn_tasks = 150\n')
    with pytest.raises(InputError, match=re.escape("unknown top-level key 'familly' (keys belong in a section); "
                                                   "did you mean 'family'?")):
        load_scenario(path)
