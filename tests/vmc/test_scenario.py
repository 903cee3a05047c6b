"""`family = "vmc"` scenario files, `mopt frontier/decide/compare` on them, `mopt vmc`, and fuzzing of
the new section: every generated bad file ends in one InputError naming the file and the key (the
CLI: exit 2, one line, no traceback) before anything is simulated."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mopt import InputError
from mopt.cli import main
from mopt.scenario import load_scenario
from tests.helpers import count_bad_input, fuzz, no_simulation

_counter = itertools.count()

BASE = {
    "clusters": {"vms": "12", "classes": "4"},
    "period": {"length": "300", "times": "[0, 120, 200]",
               "batches": "[[40, 10, 10, 5], [0, 30, 0, 0], [5, 5, 5, 5]]"},
    "run": {"method": '"oo"', "n_reps": "20", "seed": "1"},
}


def render(sections: dict) -> str:
    lines = ['family = "vmc"']
    for name, table in sections.items():
        lines.append(f"[{name}]")
        lines += [f"{k} = {v}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def write(tmp: Path, sections: dict) -> Path:
    path = tmp / f"vmc_{next(_counter)}.toml"
    path.write_text(render(sections), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("vmc")


def test_load_and_problem(workdir):
    sc = load_scenario(write(workdir, BASE))
    p = sc.problem()
    assert sc.family == "vmc" and p.n_designs == 165 and p.objectives == ("clear_time",)
    # sub-intervals [0,120), [120,200), [200,300)
    assert p.lengths.tolist() == [120.0, 80.0, 100.0] and p.arrivals.sum() == 115  # 65 + 30 + 20 tasks


def test_generated_workload_and_elastic(workdir):
    s = {**BASE, "clusters": {"vms": "10", "classes": "3", "elastic": "true"},
         "period": {"length": "500", "workload": '"HFHD"', "workload_seed": "2"}}
    p = load_scenario(write(workdir, s)).problem()
    assert p.objectives == ("clear_time", "vms") and p.n_designs == math.comb(10, 3)


def test_a_profile_without_rows_for_the_clusters_names_the_file_and_key(workdir):
    # only the paper's row (class 2 on 10 VMs): the file, the section, the key and the CSV are named
    from mopt.vmc.profile import default_table

    default_table().iloc[:1].to_csv(workdir / "paper_row.csv", index=False)
    path = write(workdir, {**BASE, "clusters": {**BASE["clusters"], "profile": '"paper_row.csv"'}})
    with no_simulation(), pytest.raises(InputError) as exc:
        load_scenario(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: [clusters] 'profile' 'paper_row.csv' does not cover these clusters")
    assert "no row for class 1 on 1 VMs" in msg


def test_compare_on_a_huge_space_says_the_ground_truth_needs_exhaustive_search(workdir, capsys):
    # 1,000 VMs over 4 clusters: C(999, 3) = 165,668,499 schedules; the user asked for blind_pick, so
    # the error must say that the ground truth (not the user's method) cannot enumerate the space
    path = write(workdir, {**BASE, "clusters": {"vms": "1000", "classes": "4"}})
    with no_simulation():
        assert main(["compare", str(path), "--methods", "blind_pick", "--budgets", "200", "--macroreps", "2",
                     "--out", str(workdir / "huge_compare"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the ground truth is exhaustive search over every design: 165,668,499 designs" in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_frontier_decide_compare_on_a_vmc_file(workdir, capsys):
    path = write(workdir, BASE)
    out = workdir / "out"
    assert main(["frontier", str(path), "--out", str(out), "--quiet"]) == 0
    assert (out / "front.csv").exists() and "theta_1" in (out / "front.csv").read_text()
    assert main(["decide", str(out)]) == 0
    cmp = workdir / "cmp"
    assert main(["compare", str(path), "--methods", "oo,blind_pick", "--budgets", "800",
                 "--macroreps", "2", "--truth-reps", "20", "--out", str(cmp), "--quiet"]) == 0
    assert (cmp / "summary.csv").exists()


def test_mopt_vmc_command(workdir, capsys):
    out = workdir / "vmc"
    assert main(["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1", "--methods", "ioo,blind_pick",
                 "--seeds", "2", "--sample-size", "20", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "ioo" in text and (out / "vmc_summary.csv").exists()
    # the cluster size is named as --vms names it, not "theta" (issue #36)
    header = text.splitlines()[2].split()
    assert header[:3] == ["scenario", "VMs", "workload"] and "theta" not in text


@pytest.mark.parametrize("argv", [
    ["vmc", "--workloads", "XX"], ["vmc", "--scenarios", "3"], ["vmc", "--vms", "3"],
    ["vmc", "--methods", "nsga2"], ["vmc", "--seeds", "0"], ["vmc", "--sample-size", "0"],
])
def test_mopt_vmc_bad_input_exits_2(argv, capsys, workdir):
    with no_simulation():
        assert main([*argv, "--out", str(workdir / "bad")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mopt: error:") and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("argv, word", [
    (["vmc", "--vms", "3"], "'--vms' must be >= 7"),
    (["vmc", "--sample-size", "0"], "'--sample-size' must be"),
])
def test_mopt_vmc_errors_name_the_option(argv, word, capsys, workdir):
    with no_simulation():
        assert main([*argv, "--out", str(workdir / "bad")]) == 2
    assert word in capsys.readouterr().err


def test_mopt_vmc_progress_goes_to_stderr_and_stdout_holds_the_table(workdir, capsys):
    assert main(["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1", "--methods", "ioo",
                 "--seeds", "1", "--sample-size", "20", "--out", str(workdir / "bar")]) == 0
    cap = capsys.readouterr()
    assert cap.out.startswith("mean throughput") and "done" not in cap.out
    assert "8 VMs HFHD scenario 1" in cap.err  # the bar's label


def test_mopt_vmc_help_shows_a_plain_percent(capsys):
    assert main(["vmc", "--help"]) == 0
    text = capsys.readouterr().out
    assert "95% interval" in text and "%%" not in text


@pytest.mark.parametrize("command", ["vmc", "demo"])
def test_seed_help_mentions_no_scenario_where_the_command_takes_none(command, capsys):
    """``mopt vmc`` and ``mopt demo`` take no scenario file: their --seed's default is 1, not "the
    scenario's [run] seed" (issue #36)."""
    assert main([command, "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 1)" in text.split("--seed S", 2)[2] and "scenario's [run] seed" not in text


def test_mopt_vmc_refuses_a_bad_out_before_simulating(capsys, workdir):
    afile = workdir / "a_file"
    afile.write_text("x", encoding="utf-8")
    with no_simulation():
        assert main(["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1", "--seeds", "1",
                     "--sample-size", "20", "--out", str(afile)]) == 2
    assert "'--out' must be a directory" in capsys.readouterr().err


def test_mopt_vmc_uses_the_executor_of_workers(workdir, capsys, monkeypatch):
    # --workers/--scheduler reach every stage's search (a recording in-process executor stands in
    # for the Dask cluster); the results are those of the in-process run
    from concurrent.futures import ThreadPoolExecutor
    from contextlib import contextmanager

    import pandas as pd

    import mopt.core.outputs as outputs

    submitted = []

    class Recording(ThreadPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            submitted.append(fn)
            return super().submit(fn, *args, **kwargs)

    @contextmanager
    def fake(args):
        with Recording(1) as ex:
            yield ex if args.workers > 1 else None

    monkeypatch.setattr(outputs, "executor", fake)
    argv = ["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1", "--methods", "ioo", "--seeds", "1",
            "--sample-size", "20", "--quiet"]
    assert main([*argv, "--out", str(workdir / "w1")]) == 0
    assert not submitted
    assert main([*argv, "--workers", "2", "--out", str(workdir / "w2")]) == 0
    assert submitted
    a, b = (pd.read_csv(workdir / d / "vmc_runs.csv") for d in ("w1", "w2"))
    pd.testing.assert_frame_equal(a, b)
    capsys.readouterr()


# -- fuzzing: one key of the valid file replaced by a bad value ----------------------------------
BAD_VALUES = {
    ("clusters", "vms"): st.sampled_from(["3", "0", "-4", "2.5", '"x"', "true", "nan"]),
    ("clusters", "classes"): st.sampled_from(["0", "13", "-1", "1.5", '"a"']),
    ("clusters", "elastic"): st.sampled_from(["1", '"yes"', "0.5"]),
    ("clusters", "profile"): st.sampled_from(['"no_such.csv"', "3", "[1]"]),
    ("period", "length"): st.sampled_from(["0", "-5", "nan", "inf", '"long"', "100"]),
    ("period", "times"): st.sampled_from(["[0, 200, 120]", "[0, 120]", "[0, 120, 400]", "[-1, 1, 2]",
                                          "[0, nan, 2]", "[]", '"t"']),
    ("period", "batches"): st.sampled_from(["[[1, 2, 3, 4]]", "[[-1, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]",
                                            "[[1, 1, 1], [1, 1, 1], [1, 1, 1]]",
                                            "[[inf, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]", "3"]),
    ("period", "backlog"): st.sampled_from(["[1, 1]", "[1, -1, 0, 0]", "[nan, 0, 0, 0]", '"b"']),
    ("period", "workload"): st.sampled_from(['"XXLD"', "3"]),
    ("period", "tmes"): st.sampled_from(["[0]"]),
    ("clusters", "vm"): st.sampled_from(["12"]),
    ("run", "method"): st.sampled_from(['"eo"', '"nope"', "1"]),
    ("run", "n_reps"): st.sampled_from(["0", "-1", "1.5"]),
}


@fuzz(60)
@given(key=st.sampled_from(sorted(BAD_VALUES)), data=st.data())
def test_fuzz_vmc_section(workdir, key, data):
    section, name = key
    value = data.draw(BAD_VALUES[key])
    sections = {k: dict(v) for k, v in BASE.items()}
    sections[section][name] = value
    path = write(workdir, sections)
    with no_simulation():
        with pytest.raises((InputError, TypeError)) as exc:
            load_scenario(path)
    msg = str(exc.value)
    assert str(path) in msg and "\n" not in msg
    word = {"tmes": "tmes", "vm": "vm"}.get(name, name if name not in ("times", "batches") else "")
    assert word in msg
    count_bad_input("vmc scenario file")


@fuzz(15)
@given(key=st.sampled_from(sorted(BAD_VALUES)), data=st.data())
def test_fuzz_vmc_cli_exits_2(workdir, key, data, capsys):
    section, name = key
    sections = {k: dict(v) for k, v in BASE.items()}
    sections[section][name] = data.draw(BAD_VALUES[key])
    path = write(workdir, sections)
    with no_simulation():
        code = main(["frontier", str(path), "--out", str(workdir / "x"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("mopt: error:") and err.count("\n") == 1
    count_bad_input("mopt frontier (vmc)")


def test_out_of_memory_hints_name_the_commands_own_options(monkeypatch, capsys, tmp_path):
    import mopt.vmc.commands as vmc_commands

    def no_memory(args):
        raise MemoryError()

    monkeypatch.setattr(vmc_commands, "run", no_memory)
    assert main(["vmc", "--out", str(tmp_path / "o")]) == 2
    assert "ask for fewer or smaller clusters (--vms) or a smaller --sample-size" in capsys.readouterr().err


def test_a_batch_no_run_can_use_is_refused_at_load(workdir):
    # 1e300 tasks overflowed to clear_time_se = inf with numpy's warning; now a bound names file and key
    sections = {**BASE, "period": {**BASE["period"], "batches": "[[1e300, 10, 10, 5], [0, 30, 0, 0], [5, 5, 5, 5]]"}}
    with pytest.raises(InputError, match=r"\[period\] 'batches' must hold at most 1e\+09 tasks .* got 1e\+300 "
                                         r"\(batch 1, class 1\)"):
        load_scenario(write(workdir, sections))


@pytest.mark.parametrize("noise", [None, "independent", "common"])
def test_noise_key_reaches_the_problem(tmp_path, noise):
    sections = {**BASE, "clusters": {**BASE["clusters"], **({} if noise is None else {"noise": f'"{noise}"'})}}
    prob = load_scenario(write(tmp_path, sections)).problem()
    assert prob.noise == (noise or "independent")


def test_bad_noise_key_names_file_section_and_key(tmp_path):
    path = write(tmp_path, {**BASE, "clusters": {**BASE["clusters"], "noise": '"crn"'}})
    with pytest.raises(InputError, match=r"\[clusters\].*'noise' must be one of \['independent', 'common'\]; got 'crn'"):
        load_scenario(path)


def test_mopt_vmc_both_scenarios_prints_intervals_and_no_nan_and_writes_a_figure(workdir, capsys):
    # Scenario 1 does not run eOO by default (the paper's Table 2): its cell shows "-", not NaN
    out = workdir / "vmc12"
    assert main(["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1,2", "--seeds", "2", "--sample-size", "10", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "nan" not in text.lower() and " ± " in text
    row1 = next(line for line in text.splitlines() if line.lstrip().startswith("1 "))
    assert row1.split()[-1] == "-"
    assert (out / "vmc_throughput.png").read_bytes()[:4] == b"\x89PNG"


def test_cv_key_scales_the_default_table_and_is_refused_below_zero(tmp_path):
    sections = {**BASE, "clusters": {**BASE["clusters"], "cv": "0.5"}}
    prob = load_scenario(write(tmp_path, sections)).problem()
    assert np.allclose(prob._sd[:, 1:], 0.5 * prob._mean[:, 1:])
    for bad, match in (("-0.1", r"\[clusters\].*'cv' must be in \[0, inf\); got -0.1"), ("true", "'cv'")):
        path = write(tmp_path, {**BASE, "clusters": {**BASE["clusters"], "cv": bad}})
        with pytest.raises(InputError, match=match):
            load_scenario(path)


def test_the_partition_example_says_what_its_n_reps_is_for(tmp_path, capsys):
    """examples/vmc_partition.toml sets n_reps = 20 and OO replicates each schedule 10 times (its
    option n_rough): the run's header says which count is which and where each comes from (issue #36)."""
    from tests.helpers import EXAMPLES

    example = EXAMPLES / "vmc_partition.toml"
    assert "n_reps = 20" in example.read_text() and "10 replications of each (OO's option n_rough" in example.read_text()
    assert main(["frontier", str(example), "--out", str(tmp_path / "vp"), "--quiet"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert header == (f"{example}: 165 schedules; method oo, 10 replications each (option n_rough), "
                      "20 for the selected ([run] n_reps), seed 1.")
