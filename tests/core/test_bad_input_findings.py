"""Issue 14, findings 6 and 7 in the library: a function problem's bad simulation names the design
and replication; a damaged or special journal file is refused. (The findings met through the
``mopt`` command: tests/cli/test_bad_input_findings.py.)"""

from __future__ import annotations

import math
import os
import sqlite3

import pytest

import mopt
from mopt import FunctionProblem, InputError, SimulationError
from tests.helpers import no_simulation


# -- 6: messages that name nothing -----------------------------------------------------------
def _raises(p, rng):
    if p["x"] == 2:
        raise ZeroDivisionError("division by zero")
    return (p["x"], 3 - p["x"])


def _text(p, rng):
    return "abc" if p["x"] == 1 else (1.0, 2.0)


def _mapping(p, rng):
    return {"time": 1.0, "cost": 2.0} if p["x"] == 1 else (1.0, 2.0)


def _nan(p, rng):
    return (math.nan if p["x"] == 3 else 1.0, 2.0)


@pytest.mark.parametrize("method", ["exhaustive", "ocba"])
def test_6_function_problem_names_the_design(method):
    designs = [{"x": x} for x in range(4)]

    def solve(f):
        return mopt.solve(FunctionProblem(f, designs, ["time", "cost"], n_reps=2), method, seed=1, budget=40)

    with pytest.raises(SimulationError, match=r"'simulate' raised ZeroDivisionError on design 2 \(x=2\), "
                                              r"replication \d+: division by zero") as info:
        solve(_raises)
    assert isinstance(info.value.__cause__, ZeroDivisionError)  # the user's own error is kept
    with pytest.raises(InputError, match=r"must return 2 values \(time, cost\); got 'abc' \(str\) for design 1 "
                                         r"\(x=1\)"):
        solve(_text)
    with pytest.raises(InputError, match=r"got \{'time': 1.0, 'cost': 2.0\} \(dict\) for design 1 \(x=1\)"):
        solve(_mapping)
    # NaN: not an empty front (exhaustive) nor an internal message (ocba)
    with pytest.raises(InputError, match=r"the simulation of design 3 \(x=3\), replication \d+ gave NaN for "
                                         r"objective 'time'"):
        solve(_nan)


# -- 7: journal integrity --------------------------------------------------------------------
def test_7_fractional_replication_in_the_journal_is_refused(tmp_path):
    problem = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], sd=1.0, n_reps=3)
    path = tmp_path / "run.sqlite"
    clean = mopt.solve(problem, "exhaustive", seed=4, journal=path)
    with sqlite3.connect(path) as db:  # a hand edit: replication 1 of design 2 becomes 1.5
        db.execute("UPDATE replications SET rep = 1.5 WHERE design = 2 AND rep = 1")
    with pytest.raises(InputError, match=r"run\.sqlite' is damaged: the row of design 2, replication 1\.5 does "
                                         r"not address a replication"):
        mopt.solve(problem, "exhaustive", seed=4, journal=path)
    with sqlite3.connect(path) as db:  # undone: the journal is whole again and gives the same result
        db.execute("UPDATE replications SET rep = 1 WHERE design = 2 AND rep = 1.5")
    again = mopt.solve(problem, "exhaustive", seed=4, journal=path)
    assert again.evaluations.equals(clean.evaluations)


@pytest.mark.parametrize("special", ["/dev/zero", "fifo"])
def test_7_journal_that_is_not_a_regular_file(tmp_path, special):
    if special == "fifo":
        special = str(tmp_path / "fifo")
        os.mkfifo(special)
    problem = mopt.NormalProblem([[1.0], [2.0]], sd=1.0)
    with no_simulation(), pytest.raises(InputError, match=f"'journal' must be a regular file; '{special}' is not"):
        mopt.solve(problem, "exhaustive", seed=1, journal=special)
