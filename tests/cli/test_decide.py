"""``mopt decide``: the hand-checked row of a result directory for each utility spec; bad specs
end in one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import mopt
from mopt.cli import main
from mopt.utility_spec import parse_utility
from tests.helpers import assert_one_line_error, chosen_line


@pytest.fixture
def hand_made_result(tmp_path) -> Path:
    """Four designs (makespan, cost): A (10, 5), B (20, 2), C (40, 0.5), D (30, 3) — D is dominated."""
    ev = pd.DataFrame({
        "design": [0, 1, 2, 3], "name": ["A", "B", "C", "D"],
        "makespan": [10.0, 20.0, 40.0, 30.0], "makespan_se": 0.1,
        "cost": [5.0, 2.0, 0.5, 3.0], "cost_se": 0.01, "n_reps": 10,
    })
    result = mopt.Result("exhaustive", 7, 40, ("makespan", "cost"), ev)
    d = tmp_path / "hand"
    result.to_csv(d)
    return d


@pytest.mark.parametrize(
    "spec, name",
    [
        ("minimize(makespan)", "A"),                               # 10 is the least makespan
        ("minimize(cost)", "C"),                                   # 0.5 is the least cost
        ("product(makespan, cost)", "C"),                          # 50, 40, 20, 90
        ("weighted(makespan=1, cost=10)", "B"),                    # 60, 40, 45, 60
        ("within_budget(cost, 2.5, then=makespan)", "B"),          # B and C fit; B is faster
        ("by_deadline(makespan, 25, then=cost)", "B"),             # A and B in time; B is cheaper
        ("by_deadline('makespan', 1e3, then='cost')", "C"),        # quoted names, exponent
    ],
)
def test_decide_picks_the_hand_checked_row(hand_made_result, capsys, spec, name):
    assert main(["decide", str(hand_made_result), "--utility", spec]) == 0
    out = capsys.readouterr().out
    label = parse_utility(spec).name
    assert chosen_line(out, label)[1] == name


def test_decide_several_utilities_and_none_fits(hand_made_result, capsys):
    specs = ["minimize(makespan)", "within_budget(cost, 0.1, then=makespan)"]
    assert main(["decide", str(hand_made_result), *[x for s in specs for x in ("--utility", s)]]) == 0
    out = capsys.readouterr().out
    assert chosen_line(out, "minimize(makespan)")[:2] == ["0", "A"]
    assert chosen_line(out, "within_budget(cost <= 0.1, then=makespan)")[0] == "-"
    assert "no evaluated design satisfies within_budget(cost <= 0.1, then=makespan)" in out


def test_decide_certifies_the_result_once(hand_made_result, capsys, monkeypatch):
    # the how-sure line is made once per printout
    calls = []
    certified = mopt.Result.certified
    monkeypatch.setattr(mopt.Result, "certified", lambda self, *a, **k: calls.append(a) or certified(self, *a, **k))
    assert main(["decide", str(hand_made_result)]) == 0
    assert "How sure (certified at 95 %" in capsys.readouterr().out and len(calls) == 1


@pytest.mark.parametrize(
    "spec, fragment",
    [
        ("__import__('os')", "'__import__' is not a utility"),
        ("__import__('os').system('true')", "is not a utility"),
        ("minimize(makespan) + 1", "must be a call"),
        ("minimize(open('x'))", "arguments must be objective names or numbers"),
        ("minimize(makespan.real)", "arguments must be objective names or numbers"),
        ("weighted(**{'makespan': 1})", "'**' arguments are not allowed"),
        ("product(makespan)", "missing 1 required positional argument"),
        ("minimize(makespan", "is not a call"),
        ("minimize(speed)", "needs column(s) ['speed']"),
    ],
)
def test_bad_utility_specs(hand_made_result, capsys, spec, fragment):
    code = main(["decide", str(hand_made_result), "--utility", spec])
    assert_one_line_error(capsys, code, fragment)
