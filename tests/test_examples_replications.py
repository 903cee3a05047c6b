"""mopt's example scenarios give every design that may be on the front the replications mopt asks
for (issue #36: three of them triggered its own "over-confident below 10 replications" warning)."""

from __future__ import annotations

import json

import pytest

from mopt.cli import main
from mopt.core.uncertainty import MIN_REPS
from tests.helpers import EXAMPLES


def _warning(tmp_path, name: str, *extra: str):
    assert main(["frontier", str(EXAMPLES / name), "--out", str(tmp_path / "o"), "--quiet", *extra]) == 0
    return json.loads((tmp_path / "o" / "result.json").read_text())["info"]["uncertainty"].get("warning")


@pytest.mark.parametrize("name", ["reference.toml", "online.toml", "vmc_partition.toml"])
def test_an_example_draws_no_warning(name, tmp_path, capsys):
    assert MIN_REPS == 10
    assert _warning(tmp_path, name) is None


@pytest.mark.parametrize("name", ["koala_tags_sets.toml", "portfolio_mix.toml"])
def test_an_example_on_a_trace_gives_each_design_the_replications_mopt_asks_for(name):
    """These two take minutes to run whole (exhaustive, and NSGA-II at 10 per design): their
    ``[run]`` gives every design it evaluates ``n_reps`` replications, and asks for MIN_REPS."""
    import tomllib

    run = tomllib.loads((EXAMPLES / name).read_text())["run"]
    assert run["n_reps"] >= MIN_REPS and run.get("options", {}).get("n0", run["n_reps"]) >= MIN_REPS
