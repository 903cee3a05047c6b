"""Names given by a user — methods, method options, policies, workloads, choices of the command
line — are matched case-insensitively (mapped to their canonical spelling) and a near miss is
refused with a "did you mean" (issue #36), through one helper, :func:`mopt.core.inputs.canonical`."""

from __future__ import annotations

import re

import pytest

import mopt
from mopt.cli import main
from mopt.core.errors import InputError
from mopt.core.inputs import canonical, suggest
from tests.helpers import REFERENCE, assert_one_line_error
from tests.koala.test_scenario import write_trace


def test_suggest_compares_case_insensitively():
    assert suggest("F", ["FF", "RR", "SJF"]) == "; did you mean 'FF'?"
    assert suggest("lfld", ["LFLD", "HFHD"]) == "; did you mean 'LFLD'?"
    assert suggest("OCBAA", ["ocba", "mocba"]) == "; did you mean 'ocba'?"
    assert suggest("zzz", ["ocba"]) == "" and suggest(3, ["ocba"]) == ""


def test_canonical_maps_to_the_canonical_spelling_and_refuses_with_a_suggestion():
    assert canonical("sjf-IDEAL", ["FF", "SJF", "SJF-ideal"], "'--policy'") == "SJF-ideal"
    assert canonical("SJF", ["FF", "SJF", "SJF-ideal"], "'--policy'") == "SJF"
    with pytest.raises(InputError, match=re.escape("'--policy' must be one of ['FF', 'RR']; got 'F'; "
                                                   "did you mean 'FF'?")):
        canonical("F", ["FF", "RR"], "'--policy'")
    with pytest.raises(InputError, match=re.escape("got None (NoneType).")):
        canonical(None, ["FF"], "'x'")
    # a name the list holds in two spellings is not guessed between
    assert canonical("ab", ["AB", "ab"], "'x'") == "ab"
    with pytest.raises(InputError, match="did you mean"):
        canonical("Ab", ["AB", "ab"], "'x'")


@pytest.fixture
def prob():
    return mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], sd=0.5)


def test_solve_method_case_insensitive_and_did_you_mean(prob):
    assert mopt.solve(prob, "OCBA", seed=1, budget=30).method == "ocba"
    with pytest.raises(InputError, match=re.escape("got 'ocbaa'; did you mean 'ocba'?")):
        mopt.solve(prob, "ocbaa")


def test_unknown_method_option_suggests_the_close_one(prob):
    with pytest.raises(InputError, match=re.escape("unknown option 'n_rep' for method 'exhaustive'; options are: "
                                                   "n_reps; did you mean 'n_reps'?")):
        mopt.solve(prob, "exhaustive", n_rep=3)
    with pytest.raises(InputError, match=r"unknown option 'zzz' for method 'ocba'; options are: [^;]*\.$"):
        mopt.solve(prob, "ocba", zzz=3)


def test_multi_period_method_and_options():
    from mopt.solvers.evolutionary_oo import _options

    with pytest.raises(InputError, match=re.escape("did you mean 'n_rough'?")):
        _options({"n_rogh": 3})


def test_frontier_method_case_insensitive_and_did_you_mean(tmp_path, capsys):
    code = main(["frontier", str(REFERENCE), "--method", "blind_pik", "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, "'--method' must be one of", "did you mean 'blind_pick'?")
    assert main(["frontier", str(REFERENCE), "--method", "Blind_Pick", "--budget", "200",
                 "--out", str(tmp_path / "o"), "--quiet"]) == 0
    assert mopt.Result.read_csv(tmp_path / "o").method == "blind_pick"


def test_frontier_option_did_you_mean(tmp_path, capsys):
    code = main(["frontier", str(REFERENCE), "--method", "exhaustive", "--option", "n_rep=3",
                 "--out", str(tmp_path / "o"), "--quiet"])
    assert_one_line_error(capsys, code, "unknown option 'n_rep'", "did you mean 'n_reps'?")


def test_scenario_method_case_insensitive(tmp_path):
    from mopt.scenario import parse_run

    assert parse_run(tmp_path / "s.toml", {"method": "MOCBA"})["method"] == "mocba"


def test_compare_methods_case_insensitive_and_did_you_mean():
    from mopt.compare import _check_methods

    assert _check_methods(["OCBA", "exhaustive"]) == ["ocba", "exhaustive"]
    with pytest.raises(InputError, match=re.escape("got 'ocbaa'; did you mean 'ocba'?")):
        _check_methods(["ocbaa"])
    with pytest.raises(InputError, match="repeat"):
        _check_methods(["ocba", "OCBA"])


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "tiny.swf"
    write_trace(path, n=60, days=2)
    return path


def test_koala_policy_case_insensitive(trace, tmp_path, capsys):
    out = tmp_path / "k.csv"
    assert main(["koala", "--trace", str(trace), "--policy", "ff", "--policy", "tags-SETS", "--env", "MultiCloud",
                 "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "\nFF," in text and "\nTAGS-sets," in text  # the canonical names in the table


def test_koala_policy_near_miss(trace, capsys):
    code = main(["koala", "--trace", str(trace), "--policy", "F"])
    assert_one_line_error(capsys, code, "'--policy' must be one of", "got 'F'; did you mean 'FF'?")


def test_argparse_choices_suggest(trace, capsys):
    code = main(["koala", "--trace", str(trace), "--env", "multiclod"])
    assert_one_line_error(capsys, code, "invalid choice: 'multiclod'", "did you mean 'multicloud'?")
    code = main(["frontierr", "x.toml"])
    line = assert_one_line_error(capsys, code, "invalid choice: 'frontierr'")
    assert "did you mean 'frontier'?" in line


def test_vmc_workloads_case_insensitive_and_did_you_mean(tmp_path, capsys):
    code = main(["vmc", "--workloads", "LFDL", "--out", str(tmp_path / "v"), "--quiet"])
    assert_one_line_error(capsys, code, "'--workloads' must be among", "did you mean 'LFLD'?")
    code = main(["vmc", "--methods", "ioo,eooo", "--out", str(tmp_path / "v"), "--quiet"])
    assert_one_line_error(capsys, code, "'--methods' must be among", "did you mean 'eoo'?")
    code = main(["vmc", "--noise", "comon", "--out", str(tmp_path / "v"), "--quiet"])
    assert_one_line_error(capsys, code, "'--noise' must be one of", "did you mean 'common'?")
    assert main(["vmc", "--vms", "8", "--workloads", "lfld", "--scenarios", "1", "--seeds", "1",
                 "--sample-size", "10", "--methods", "EXHAUSTIVE", "--noise", "Common",
                 "--out", str(tmp_path / "v"), "--quiet"]) == 0
    summary = (tmp_path / "v" / "vmc_summary.csv").read_text()
    assert "LFLD" in summary and "exhaustive" in summary


def test_vmc_library_names():
    from mopt.vmc.workload import generate

    assert generate("hfhd", 20, 1000.0, 100.0, seed=1).batches.shape[1] == 7
    with pytest.raises(InputError, match=re.escape("did you mean 'HFHD'?")):
        generate("HFH", 20, 1000.0, 100.0, seed=1)


def test_simulate_policy_names(tmp_path, capsys):
    from tests.cloud.test_commands import ROW

    swf = tmp_path / "tiny.swf"
    swf.write_text("; MaxProcs: 8\n1 0 0 600 4" + ROW.format(req=900, user=1) + "\n")
    code = main(["simulate", "--trace", str(swf), "--policy", "ODA-UNICEF-FirstFut", "--out",
                 str(tmp_path / "j.csv"), "--quiet"])
    assert_one_line_error(capsys, code, "unknown VM-selection policy 'FirstFut'", "did you mean 'FirstFit'?")
    assert main(["simulate", "--trace", str(swf), "--policy", "oda-unicef-firstfit", "--runtime", "Actual",
                 "--vm-key", "BinPack", "--out", str(tmp_path / "j.csv"), "--quiet"]) == 0


def test_cloud_library_names():
    from mopt.cloud.policies import check_vm_key
    from mopt.cloud.portfolios import portfolio_names

    assert check_vm_key("BinPack") == "binpack"
    with pytest.raises(InputError, match=re.escape("did you mean 'binpack'?")):
        check_vm_key("binpak")
    with pytest.raises(InputError, match=re.escape("did you mean 'sc13'?")):
        portfolio_names("sc31")


@pytest.mark.parametrize("name, hint", [("KTH-SP3", "KTH-SP2"), ("kth", "KTH-SP2"), ("sdsc-blu", "SDSC-BLUE")])
def test_a_misspelt_trace_gets_a_did_you_mean(name, hint):
    from mopt.workloads.traces import resolve_trace

    with pytest.raises(InputError, match=re.escape(f"got {name!r}; did you mean {hint!r}?")):
        resolve_trace(name, option="--trace")


def test_koala_names_its_trace_option_as_the_command_line_spells_it(capsys):
    line = assert_one_line_error(capsys, main(["koala", "--trace", "kth"]), "'--trace' must be", "did you mean 'KTH-SP2'?")
    assert "'trace' must" not in line


def test_a_utility_naming_a_missing_column_suggests_the_close_one():
    """The message lists what a utility can read (no standard errors, bounds or bookkeeping columns)
    and a near miss (issue #36 audit: ``mopt decide --utility 'product(makespn, cost)'``)."""
    import pandas as pd

    df = pd.DataFrame({"design": [0], "N": [1], "makespan": [1.0], "makespan_se": [0.1], "cost": [2.0],
                       "cost_lo": [1.0], "n_reps": [3], "class": [0], "p_nondominated": [1.0]})
    with pytest.raises(InputError, match=re.escape("needs column(s) ['makespn']; the results have "
                                                   "['N', 'makespan', 'cost']; did you mean 'makespan'?")):
        mopt.utility.product("makespn", "cost")(df)
