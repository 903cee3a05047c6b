"""Every registered family passes the same conformance checks (:mod:`mopt.testing`), and a family
defined outside mopt — a package installed in a folder of its own, found through its entry point —
appears in ``mopt --help``, loads its scenario file and runs ``mopt frontier`` and ``mopt decide``
with no change to mopt."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from mopt.core.family import families, get_family
from mopt.testing import CHECKS, Unavailable
from tests.helpers import chosen_line, install_family

BUILT_IN = ("cloud", "expert", "koala", "vmc")


def test_the_built_in_families_are_registered():
    assert set(BUILT_IN) <= set(families())


@pytest.mark.parametrize("check", list(CHECKS))
@pytest.mark.parametrize("name", BUILT_IN)
def test_conformance(name, check, tmp_path):
    try:
        CHECKS[check](get_family(name), tmp_path)
    except Unavailable as exc:
        pytest.skip(f"set MOPT_DATA_DIR to run this check: {exc}")


# -- a family from outside mopt ---------------------------------------------------------------------
PACKAGE = '''
"""A family outside mopt: designs with known objective means and no noise."""
from dataclasses import dataclass, field

from mopt import NormalProblem
from mopt.core.family import Family, Key, Objective
from mopt.scenario import Scenario, check_keys, parse_run, where

KEYS = {"designs": {"means": Key("objective means of each design, one row per design", required=True)}}


@dataclass(frozen=True, kw_only=True)
class ToyScenario(Scenario):
    means: list = field(default_factory=list)

    def problem(self, n_reps=None, seed=None):
        return NormalProblem(self.means, sd=0.0, objectives=("time", "energy"),
                             n_reps=self.n_reps if n_reps is None else n_reps,
                             seed=self.seed if seed is None else seed)


def parse(path, doc):
    check_keys(path, None, doc, {"designs": True, "run": False})
    check_keys(path, "designs", doc["designs"], {k: key.required for k, key in KEYS["designs"].items()})
    scenario = ToyScenario(family="toyfam", path=path, means=doc["designs"]["means"],
                           **parse_run(path, doc.get("run", {})))
    with where(path, "designs"):
        scenario.problem()
    return scenario


def add_parsers(sub, run_options):
    p = sub.add_parser("toy", help="say how many toys there are", description="Count the toys.")
    run_options(p, None, parallel=False)
    p.set_defaults(func=lambda args: print("toys: 4") or 0)


FAMILY = Family(name="toyfam", description="toys with known means (a family from outside mopt)",
                scenario=parse, keys=KEYS, commands=add_parsers,
                objectives={"time": Objective("time to finish", "h"), "energy": Objective("energy", "J")},
                examples=("examples/toy.toml",), package="mopt_toyfam", noun=("toys", "toy"))
'''
EXAMPLE = """family = "toyfam"

[designs]
means = [[1.0, 5.0], [2.0, 3.0], [4.0, 1.0], [5.0, 5.0]]
"""


@pytest.fixture
def outside_family(tmp_path, monkeypatch):
    """The package ``mopt_toyfam`` installed in ``tmp_path/site``, as pip would leave it."""
    site = tmp_path / "site"
    package = site / "mopt_toyfam"
    (package / "examples").mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (package / "examples" / "toy.toml").write_text(EXAMPLE)
    install_family(site, monkeypatch, "mopt_toyfam", None, entry_name="toyfam")
    return site


def _mopt(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "mopt", *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


def test_an_outside_family_passes_the_conformance_checks(outside_family, tmp_path):
    family = get_family("toyfam")
    for check in CHECKS.values():
        check(family, tmp_path)


def test_an_outside_family_runs_from_the_command_line(outside_family, tmp_path):
    help_text = _mopt(outside_family, "--help", cwd=tmp_path)
    assert help_text.returncode == 0 and "toyfam toys with known means" in " ".join(help_text.stdout.split())
    assert "toy " in help_text.stdout  # its own subcommand is listed
    assert _mopt(outside_family, "toy", "--quiet", cwd=tmp_path).stdout == "toys: 4\n"
    example = outside_family / "mopt_toyfam" / "examples" / "toy.toml"
    run = _mopt(outside_family, "frontier", str(example), "--out", "out", "--quiet", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "4 toys; method exhaustive" in run.stdout
    front = pd.read_csv(tmp_path / "out" / "front.csv")
    assert front["design"].tolist() == [0, 1, 2]  # (5, 5) is dominated by (2, 3); no noise
    decided = _mopt(outside_family, "decide", "out", cwd=tmp_path)
    assert decided.returncode == 0, decided.stderr
    # the generic utilities: min time picks design 0 (time 1), min energy design 2 (energy 1), and
    # the product time x energy (5, 6, 4, 25) design 2; each row ends with design, i, time, energy,
    # p_best and runner_up (each objective printed as "mean ± se": chosen_line drops the ± se)
    labels = ("min time x energy", "min time", "min energy")
    rows = {label: chosen_line(decided.stdout, label)[0] for label in labels}
    assert rows == {"min time": "0", "min energy": "2", "min time x energy": "2"}, decided.stdout
    # without the package on the path, the file names an unknown family (exit 2, one line)
    unknown = subprocess.run([sys.executable, "-m", "mopt", "frontier", str(example)], capture_output=True,
                             text=True, cwd=tmp_path, env={**os.environ, "MPLBACKEND": "Agg"})
    assert unknown.returncode == 2 and "'family' must be one of" in unknown.stderr
