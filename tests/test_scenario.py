"""The family plug-in mechanism of scenario files and the CLI, tested with a tiny fake family
installed as an outside distribution would be (an entry point under ``mopt.families``).

The fake family ``toy`` reads one section ``[designs]`` (a table of objective means, zero noise)
into a :class:`~mopt.NormalProblem`, so every number below is known by hand.
"""

from __future__ import annotations

import json
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from mopt import InputError, NormalProblem
from mopt.cli import main
from mopt.core.family import Family, Objective, families
from mopt.core.utility import minimize
from mopt.scenario import Scenario, check_keys, load_scenario, parse_run, where
from tests.helpers import install_family

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"

# -- the fake family -----------------------------------------------------------------------------
# means (time, energy) of four designs, no noise: design 3 (5, 5) is dominated by design 1 (2, 3);
# designs 0, 1, 2 are the Pareto frontier
MEANS = [[1.0, 5.0], [2.0, 3.0], [4.0, 1.0], [5.0, 5.0]]
TOY = """family = "toy"

[designs]
means = [[1.0, 5.0], [2.0, 3.0], [4.0, 1.0], [5.0, 5.0]]
"""


@dataclass(frozen=True, kw_only=True)
class ToyScenario(Scenario):
    means: list = field(default_factory=list)
    legend: ClassVar[str] = "time [h], energy [J]"

    def problem(self, n_reps=None, seed=None):
        return NormalProblem(self.means, sd=0.0, objectives=("time", "energy"),
                             n_reps=self.n_reps if n_reps is None else n_reps,
                             seed=self.seed if seed is None else seed)

    def intro(self, problem):
        return [f"toy intro: {problem.n_designs} toys"]

    def result_info(self, problem):
        return {"toy_info": 42}

    def report(self, result):
        return f"toy report: {len(result.front)} on the front"


def _parse(path: Path, doc: dict) -> ToyScenario:
    check_keys(path, None, doc, {"designs": True, "run": False})
    check_keys(path, "designs", doc["designs"], {"means": True})
    sc = ToyScenario(family="toy", path=path, means=doc["designs"]["means"], **parse_run(path, doc.get("run", {})))
    with where(path, "designs"):
        sc.problem()
    return sc


def _family_module(module_name: str, **family) -> types.ModuleType:
    module = types.ModuleType(module_name)
    module.FAMILY = Family(**family)
    return module


TOY_FAMILY = dict(name="toy", description="toys with known means", scenario=_parse,
                  utilities=lambda objectives: {"fastest": minimize("time")},
                  objectives={"time": Objective("time", "h"), "energy": Objective("energy", "J")},
                  noun=("toys", "toy"))


@pytest.fixture
def toy(monkeypatch, tmp_path):
    """Install the family ``toy`` (module ``_mopt_toy_family``) and return a writer of toy files."""
    install_family(tmp_path / "site", monkeypatch, "_mopt_toy_family", _family_module("_mopt_toy_family", **TOY_FAMILY),
                   entry_name="toy")

    def write(text: str = TOY, name: str = "toy.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    yield write
    families.cache_clear()


def one_line_error(capsys, code, *fragments):
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mopt: error: "), err
    for f in fragments:
        assert f in lines[0], (f, lines[0])


# -- loading -----------------------------------------------------------------------------------
def test_a_family_parses_its_own_file(toy):
    path = toy(TOY + '\n[run]\nmethod = "blind_pick"\nseed = 4\noptions = { alpha = 0.5 }\n')
    sc = load_scenario(path)
    assert isinstance(sc, ToyScenario)
    assert (sc.family, sc.path, sc.name) == ("toy", path, "toy")
    assert (sc.method, sc.seed, sc.n_reps, sc.budget, sc.options) == ("blind_pick", 4, 10, None, {"alpha": 0.5})
    assert sc.problem().n_designs == 4


def test_family_errors_name_file_and_key(toy):
    with pytest.raises(InputError, match=r"toy\.toml: \[designs\] unknown key 'mean'; did you mean 'means'\?"):
        load_scenario(toy(TOY.replace("means =", "mean =")))
    with pytest.raises(InputError, match=r"toy\.toml: \[designs\] 'means'"):  # NormalProblem's own check
        load_scenario(toy(TOY.replace("[5.0, 5.0]]", "[5.0, nan]]")))


def test_unknown_family_lists_the_known_ones(toy):
    path = toy(TOY.replace('"toy"', '"tyo"'))
    with pytest.raises(InputError) as info:
        load_scenario(path)
    msg = str(info.value)
    assert msg.startswith(f"{path}: 'family' must be one of [") and "'tyo'; did you mean 'toy'?" in msg
    for name in ("cloud", "expert", "koala", "toy", "vmc"):
        assert f"'{name}'" in msg
    with pytest.raises(InputError, match="'family' must be one of .*got 3"):
        load_scenario(toy(TOY.replace('"toy"', "3")))


def test_a_family_whose_module_is_missing_is_left_out_with_a_warning(toy, monkeypatch, tmp_path):
    install_family(tmp_path / "ghost-site", monkeypatch, "_mopt_no_such_package", None, entry_name="ghost")
    with pytest.warns(RuntimeWarning, match="mopt family 'ghost' .*cannot be loaded: ModuleNotFoundError"):
        known = families()
    assert "toy" in known and "ghost" not in known
    path = toy(TOY.replace('"toy"', '"ghost"'))
    with pytest.raises(InputError, match=r"toy\.toml: 'family' must be one of \[.*'toy'.*\]; got 'ghost'"):
        load_scenario(path)


def test_an_entry_point_that_is_not_a_family_is_ignored(monkeypatch, tmp_path):
    module = types.ModuleType("_mopt_not_a_family")
    module.FAMILY = {"name": "bad"}
    install_family(tmp_path / "site", monkeypatch, "_mopt_not_a_family", module, entry_name="bad")
    with pytest.warns(RuntimeWarning, match="is not a mopt.core.family.Family named 'bad'"):
        assert "bad" not in families()
    families.cache_clear()


def test_a_missing_import_inside_a_family_module_is_not_hidden(toy, monkeypatch, tmp_path):
    # the family's parser imports something missing: a bug, not "not installed"
    def parse(path, doc):
        import _mopt_missing_dependency  # noqa: F401

    broken = _family_module("_mopt_broken_family", name="broken", description="broken", scenario=parse)
    install_family(tmp_path / "broken-site", monkeypatch, "_mopt_broken_family", broken, entry_name="broken")
    with pytest.raises(ModuleNotFoundError, match="_mopt_missing_dependency"):
        load_scenario(toy(TOY.replace('"toy"', '"broken"')))


def test_parse_must_return_a_scenario(toy, monkeypatch, tmp_path):
    bad = _family_module("_mopt_toy_family", **{**TOY_FAMILY, "scenario": lambda path, doc: {"not": "a scenario"}})
    install_family(tmp_path / "site", monkeypatch, "_mopt_toy_family", bad, entry_name="toy")
    with pytest.raises(TypeError, match="parse\\(\\) must return a mopt.scenario.Scenario; got dict"):
        load_scenario(toy())


def test_expert_is_the_default_family(tmp_path):
    text = (EXAMPLES / "reference.toml").read_text()  # no relative file paths in it
    implicit = load_scenario(EXAMPLES / "reference.toml")
    assert implicit.family == "expert" and "family" not in text
    (tmp_path / "explicit.toml").write_text('family = "expert"\n' + text)
    explicit = load_scenario(tmp_path / "explicit.toml")
    assert explicit.family == "expert" and explicit.problem_kwargs == implicit.problem_kwargs
    np.testing.assert_array_equal(explicit.problem().replicate([0, 288], [0, 1], 3),
                                  implicit.problem().replicate([0, 288], [0, 1], 3))


@pytest.mark.parametrize("run, fragments", [
    ({"options": {"alpah": 0.5}, "method": "blind_pick"}, ["[run]", "unknown option 'alpah' for method 'blind_pick'"]),
    ({"options": {"n0": 5}}, ["[run]", "unknown option 'n0' for method 'exhaustive'"]),  # default method
    ({"options": 5}, ["[run]", "'options' must be a table of method options"]),
    ({"method": "ocb"}, ["[run]", "'method' must be one of", "did you mean 'ocba'?"]),
    ({"seed": -1}, ["[run]", "'seed' must be an integer >= 0; got -1"]),
    ({"n_rep": 3}, ["[run] unknown key 'n_rep'; did you mean 'n_reps'?"]),
])
def test_run_section_errors(run, fragments):
    with pytest.raises(InputError) as info:
        parse_run(Path("x.toml"), run)
    assert str(info.value).startswith("x.toml: ")
    for f in fragments:
        assert f in str(info.value)


# -- the CLI through the hooks -----------------------------------------------------------------
def test_frontier_and_decide_for_a_fake_family(toy, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["frontier", str(toy()), "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "toy.toml: 4 toys; method exhaustive, 10 replications each, seed 1." in printed
    assert "toy intro: 4 toys" in printed  # intro hook
    assert "Pareto frontier: 3 of 4 evaluated toys, 40 replications (time [h], energy [J])" in printed
    assert "toy report: 3 on the front" in printed  # report hook
    front = pd.read_csv(out / "front.csv")
    assert front["design"].tolist() == [0, 1, 2]  # hand-checked above
    assert front[["time", "energy"]].to_numpy().tolist() == MEANS[:3]
    meta = json.loads((out / "result.json").read_text())
    assert meta["info"]["family"] == "toy" and meta["info"]["toy_info"] == 42  # result_info hook
    assert (out / "front.png").stat().st_size > 0  # the generic figure
    # the family's default utility is printed after the frontier: the fastest toy is design 0
    line = next(ln for ln in printed.splitlines() if ln.startswith("fastest"))
    # i, time ± se, energy ± se, p_best (no noise: sure)
    assert line.split()[1:9] == ["0", "1", "±", "0", "5", "±", "0", "1.00"]

    # decide without --utility: the defaults of the family that wrote the directory
    assert main(["decide", str(out)]) == 0
    decided = capsys.readouterr().out
    line = next(ln for ln in decided.splitlines() if ln.startswith("fastest"))
    # design, i, time ± se, energy ± se (then p_best, runner_up)
    assert line.split()[1:9] == ["0", "0", "1", "±", "0", "5", "±", "0"]
    # with a utility, any objective names of the result work (the cheapest in energy: design 2)
    assert main(["decide", str(out), "--utility", "minimize(energy)"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("minimize(energy)"))
    assert line.split()[1:9] == ["2", "2", "4", "±", "0", "1", "±", "0"]  # design, i, time ± se, energy ± se


def test_scenario_options_and_option_flags(toy, tmp_path, capsys):
    path = toy(TOY + '\n[run]\nmethod = "blind_pick"\noptions = { alpha = 0.5 }\n')
    out = tmp_path / "bp"
    assert main(["frontier", str(path), "--out", str(out), "--quiet"]) == 0
    result = pd.read_csv(out / "evaluations.csv")
    assert len(result) == 2  # alpha 0.5 of 4 designs
    assert main(["frontier", str(path), "--out", str(out), "--quiet", "--option", "alpha=0.25"]) == 0
    assert len(pd.read_csv(out / "evaluations.csv")) == 1  # --option overrides the file
    # another method: the file's options (for blind_pick) are not passed to it
    assert main(["frontier", str(path), "--out", str(out), "--quiet", "--method", "exhaustive"]) == 0
    assert len(pd.read_csv(out / "evaluations.csv")) == 4
    capsys.readouterr()


def test_compare_for_a_fake_family(toy, tmp_path, capsys):
    out = tmp_path / "cmp"
    code = main(["compare", str(toy()), "--methods", "exhaustive,blind_pick", "--budgets", "20",
                 "--macroreps", "2", "--truth-reps", "5", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "4 toys, 10 replications each for exhaustive search (40 in all)" in printed
    assert "ground truth: exhaustive search with 5 replications per toy." in printed
    df = pd.read_csv(out / "compare.csv")
    assert set(df["method"]) == {"exhaustive", "blind_pick"} and len(df) == 4  # 2 methods x 2 macroreps
    # no noise: the product time x energy is smallest for design 2 (4), then 0 (5), 1 (6), 3 (25);
    # exhaustive (5 replications each within the budget of 20) finds design 2; blind pick (the
    # budget pays two designs of 4, 10 replications each) picks the better of two: regret 4 - 4 if
    # design 2 is one of them, else 5 - 4 (design 0 with 1 or 3) or 6 - 4 (designs 1 and 3)
    ex, bp = df[df["method"] == "exhaustive"], df[df["method"] == "blind_pick"]
    assert (ex["pcs"] == 1).all() and (ex["regret"] == 0).all() and (ex["n_evals"] == 20).all()
    assert bp["regret"].isin([0.0, 1.0, 2.0]).all() and (bp["n_evals"] == 20).all()


def test_cli_unknown_family_exits_2(toy, tmp_path, capsys):
    code = main(["frontier", str(toy(TOY.replace('"toy"', '"vmcc"'))), "--out", str(tmp_path / "o"), "--quiet"])
    one_line_error(capsys, code, "toy.toml: 'family' must be one of", "'vmcc'")
    assert not (tmp_path / "o").exists()
