"""mopt.core.replay: one replication simulated again equals the record bit for bit, for a
FunctionProblem and every family's problem, with and without a journal; an altered record differs;
bad input is refused in one line naming the argument, before anything is simulated."""

from __future__ import annotations

import dataclasses
import math
import sqlite3

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.core.errors import InputError
from mopt.core.family import Family
from mopt.core.journal import Journal
from mopt.core.problem import IndexedProblem
from mopt.core.replay import replay
from mopt.core.subset import SubsetProblem
from tests.helpers import no_simulation, noisy_quadratic


def _function_problem():
    return mopt.FunctionProblem(noisy_quadratic, [{"x": x} for x in (0.0, 1.0, 2.0, 3.0)], ["f1", "f2"])


def _altered(path, design: int, rep: int, column: str) -> None:
    """The journal's value of ``column`` for ``(design, rep)`` moved to the next float up."""
    db = sqlite3.connect(path)
    (value,) = db.execute(f'SELECT "{column}" FROM replications WHERE design = ? AND rep = ?', (design, rep)).fetchone()
    db.execute(f'UPDATE replications SET "{column}" = ? WHERE design = ? AND rep = ?',
               (float(np.nextafter(value, np.inf)), design, rep))
    db.commit()
    db.close()


def _check_every_replication(problem, result, journal=None):
    """Every replication of every evaluated design replays equal, and its values are those the run
    got: with a journal, the journal's row; without, the replication simulated alone."""
    for design, n in result.evaluations[["design", "n_reps"]].itertuples(index=False):
        for rep in range(int(n)):
            done = replay(problem, result, int(design), rep, journal=journal)
            assert done.equal, done.lines()[:2]
            assert done.values.tobytes() == problem.replicate([design], [rep], result.seed)[0, 0].tobytes()
    return done


# -- a FunctionProblem ------------------------------------------------------------------------------
def test_function_problem_replays_equal_to_the_result_and_calls_the_function_again():
    problem = _function_problem()
    result = mopt.solve(problem, "exhaustive", n_reps=3, seed=2)
    done = _check_every_replication(problem, result)
    assert done.checked == ("f1", "f1_se", "f2", "f2_se")
    row = result.evaluations.set_index("design").loc[done.design]
    assert done.recorded.tolist() == [row["f1"], row["f1_se"], row["f2"], row["f2_se"]]
    # the detail is the user's function called with replication 2's Generator: the same values
    assert done.detail[0].startswith("noisy_quadratic({'x': 3.0}, rng) returned (")
    assert repr(float(done.values[0])) in done.detail[0] and repr(float(done.values[1])) in done.detail[0]
    assert result.replay(done.design, done.rep, problem).lines() == done.lines()


def test_function_problem_replays_equal_to_its_journal(tmp_path):
    problem = _function_problem()
    path = tmp_path / "run.sqlite"
    result = mopt.solve(problem, "exhaustive", n_reps=3, seed=2, journal=str(path))
    done = _check_every_replication(problem, result, journal=path)
    assert done.checked == ("f1", "f2") and done.source == f"the journal {str(path)!r}"
    _altered(path, 1, 2, "f2")
    bad = replay(problem, result, 1, 2, journal=path)
    assert not bad.equal and bad.differing == ("f2",)
    assert bad.recorded[1] == np.nextafter(bad.replayed[1], np.inf) and bad.recorded[0] == bad.replayed[0]
    assert bad.lines()[1].startswith(f"DIFFERS from the journal {str(path)!r}: f2 recorded ")
    assert replay(problem, result, 1, 1, journal=path).equal  # the other replications are untouched


def test_an_altered_mean_or_standard_error_differs():
    problem = _function_problem()
    result = mopt.solve(problem, "exhaustive", n_reps=3, seed=2)
    for column in ("f1", "f2_se"):
        ev = result.evaluations.copy()
        ev.loc[ev["design"] == 2, column] = np.nextafter(ev.loc[ev["design"] == 2, column], -np.inf)
        bad = replay(problem, dataclasses.replace(result, evaluations=ev), 2, 0)
        assert not bad.equal and bad.differing == (column,)
        assert "DIFFERS from the mean and standard error of replications 0..2 in the result" in bad.lines()[1]
        assert replay(problem, dataclasses.replace(result, evaluations=ev), 1, 0).equal


def test_one_replication_of_a_design_is_compared_with_its_mean():
    problem = _function_problem()
    result = mopt.solve(problem, "exhaustive", n_reps=1, seed=4)
    done = replay(problem, result, 3, 0)
    assert done.equal and done.replayed[0::2].tobytes() == done.values.tobytes()
    assert np.isnan(done.replayed[1::2]).all() and np.isnan(done.recorded[1::2]).all()  # NaN equals NaN


def test_a_subset_problem_is_told_as_its_problem():
    problem = _function_problem()
    sub = SubsetProblem(problem, [3, 1])
    done = replay(sub, mopt.solve(sub, "exhaustive", n_reps=2, seed=2), 0, 1)
    assert done.equal and done.detail[0].startswith("noisy_quadratic({'x': 3.0}, rng)")


# -- bad input: one line naming the argument, nothing simulated --------------------------------------
def test_bad_input_is_refused_before_anything_is_simulated(tmp_path):
    problem = _function_problem()
    path = tmp_path / "run.sqlite"
    result = mopt.solve(problem, "blind_pick", budget=6, n_reps=3, seed=2, journal=str(path))
    evaluated = set(result.evaluations["design"].tolist())
    missing = min(set(range(problem.n_designs)) - evaluated)
    design = min(evaluated)
    other_seed, other_problem = tmp_path / "seed.sqlite", tmp_path / "problem.sqlite"
    Journal(other_seed, problem, seed=3).close()
    Journal(other_problem, mopt.NormalProblem([[1.0, 2.0]] * 4, sd=1.0), seed=2).close()
    other = mopt.FunctionProblem(noisy_quadratic, [{"x": x} for x in (0.0, 1.0, 2.0, 5.0)], ["f1", "f2"])
    cases = [
        (dict(rep=3), r"'rep' must be in \[0, 2\] \(design \d has 3 replications\); got 3\."),
        (dict(rep=-1), r"'rep' must be an integer >= 0; got -1\."),
        (dict(design=missing), rf"'design' must be a design the run evaluated \(one of the 2 in its evaluations\); "
                               rf"got {missing}\."),
        (dict(journal=other_seed), r"'journal' '.*seed.sqlite' was written with seed 3; the run's seed is 2\."),
        (dict(journal=other_problem), r"'journal' '.*problem.sqlite' was written for another problem"),
        (dict(journal=tmp_path / "none.sqlite"), r"'journal' '.*none.sqlite' is missing"),
        (dict(problem=None), r"'problem' is required: a Result does not hold the problem it searched"),
        (dict(problem=mopt.NormalProblem([[1.0]] * 4, sd=1.0)), r"'problem' has the objectives \['f1'\], not the run's"),
    ]
    with no_simulation():
        for change, message in cases:
            args = {"problem": problem, "design": design, "rep": 0, "journal": None, **change}
            with pytest.raises(InputError, match=message):
                replay(args["problem"], result, args["design"], args["rep"], journal=args["journal"])
        # a result that records its problem's fingerprint (mopt frontier, mopt demo) refuses another problem
        recorded = dataclasses.replace(result, info={**result.info, "fingerprint": problem.fingerprint()})
        with pytest.raises(InputError, match=r"'problem' is not the problem the run searched \(fingerprint "):
            replay(other, recorded, design, 0)
        with pytest.raises(InputError, match=r"'--rep' 7: '--journal' '.*run.sqlite' holds no replication 7"):
            _more = result.evaluations.assign(n_reps=10)  # the result claims more than the journal holds
            replay(problem, dataclasses.replace(result, evaluations=_more), design, 7, journal=path,
                   names={"rep": "'--rep'", "journal": "'--journal'"})
    with pytest.raises(InputError, match="'problem' is required"):
        result.replay(design, 0)


# -- every family's problem, small ------------------------------------------------------------------
def _expert():
    from mopt.expert import NTDMrProblem, reference_environment

    return NTDMrProblem(reference_environment(0.1), N=[1, math.inf], T=[0.0, 1033.0], D=[4132.0], Mr=[0.02, 0.1])


def _expert_observed():
    from mopt.core.family import get_family
    from mopt.expert import NTDMrProblem
    from mopt.scenario import load_scenario

    full = load_scenario(get_family("expert").example_paths()[1]).problem()  # online.toml
    return NTDMrProblem(full.env, N=[0, 2], T=[1033.0], D=[4132.0], Mr=[0.1], observed=full.observed)


def _cloud():
    from mopt.cloud import PortfolioProblem

    rng = np.random.default_rng(0)
    jobs = pd.DataFrame({"submit_time": np.arange(60) * 300, "run_time": rng.integers(60, 4000, 60),
                         "n_procs": rng.integers(1, 9, 60)})
    return PortfolioProblem(jobs, window=12)


def _vmc(**kw):
    from mopt.vmc import VMPartitionProblem

    return VMPartitionProblem(8, [50.0, 50.0, 30.0], [[10, 5, 2], [0, 5, 2], [3, 0, 1]], **kw)


def _koala():
    from mopt.koala import TagsProblem
    from tests.koala.test_problem import synthetic_trace

    return TagsProblem(synthetic_trace(), limits=[10, 60], set2=[["C3", "private", "public"]], public_caps=[0, 64],
                       private_mins=[8], window_days=(5, 10))


def _expert_detail(problem, done):
    out = done.values
    assert f"tail: makespan {float(out[0])!r} s (T_tail to the last result), cost {float(out[1])!r} cent/task" \
        in done.detail[2]  # the traced run is the replication, bit for bit
    n_tail = int(done.detail[1].split(" tasks remain")[0].rsplit(" ", 1)[1])
    table = done.detail[4:-1]
    assert table[0].split() == ["task", "sent", "ends", "outcome", "machine", "tail_unreliable", "reliable", "done"]
    assert len(table) == 1 + n_tail and all(row.split()[-1] == "yes" for row in table[1:])  # every task finished


def _cloud_detail(problem, done):
    assert f"run: mean bounded slowdown {float(done.values[0])!r}, {float(done.values[1])!r} charged VM-hours" \
        in done.detail[1]
    assert done.detail[4].split() == ["job_id", "submit", "run", "n_procs", "start", "end", "wait", "bsd"]
    assert len(done.detail) == 5 + 12  # one row per job of the window
    bsd = [float(row.split()[-1]) for row in done.detail[5:]]
    assert np.mean(bsd) == pytest.approx(done.values[0], abs=6e-4)  # the rows' bounded slowdowns (3 decimals)


def _vmc_detail(problem, done):
    table = done.detail[2:-1]
    assert len(table) == 1 + 3 * 3  # a header, one row per (sub-interval, class)
    total = float(done.detail[-1].rsplit("clear_time = ", 1)[1].removesuffix(" s."))
    assert total == pytest.approx(done.values[0], rel=1e-5)  # the engine's rules, printed to 6 digits


def _koala_detail(problem, done):
    counts = done.detail[1].removeprefix("jobs per site: ").removesuffix(".").split(", ")
    n_jobs = int(done.detail[0].split(" jobs submitted")[0].removeprefix("window: "))
    assert sum(int(c.rsplit(" ", 1)[1]) for c in counts) == n_jobs == len(done.detail) - 4
    assert f"public-cloud cost ${done.values[2]:.2f}." in done.detail[0]


FAMILIES = {
    "expert": (_expert, _expert_detail),
    "expert-observed": (_expert_observed, _expert_detail),
    "cloud": (_cloud, _cloud_detail),
    "vmc": (_vmc, _vmc_detail),
    "vmc-common-elastic": (lambda: _vmc(noise="common", elastic=True), _vmc_detail),
    "koala": (_koala, _koala_detail),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_every_family_replays_equal_and_tells_the_replication(name, tmp_path):
    make, check_detail = FAMILIES[name]
    problem = make()
    if problem.n_designs > 3:  # three designs, told by the family as designs of its problem
        last = problem.n_designs - 1
        problem = SubsetProblem(problem, [last, last // 2, 0])
    path = tmp_path / "run.sqlite"
    result = mopt.solve(problem, "exhaustive", n_reps=2, seed=5, journal=str(path))
    for journal in (None, path):
        done = _check_every_replication(problem, result, journal=journal)
    check_detail(problem, done)
    _altered(path, done.design, done.rep, result.objectives[0])
    bad = replay(problem, result, done.design, done.rep, journal=path)
    assert not bad.equal and bad.differing == (result.objectives[0],)


# -- the hook's dispatch ----------------------------------------------------------------------------
class ToyProblem(IndexedProblem):
    """A problem of this module's package (tests.core), told by the toy family below."""

    def __init__(self):
        super().__init__(objectives=("t",), n_designs=3)

    def decode(self, x):
        return {"i": self.index(x)}

    def _replicate(self, indices, reps, entropy):
        return (indices[:, None] + reps[None, :] / 10.0)[:, :, None].astype(float)


def _toy_lines(problem, design, rep, seed):
    return [f"toy: design {design}, replication {rep}, seed {seed}"] if isinstance(problem, ToyProblem) else None


def test_a_family_is_asked_only_about_problems_of_its_package(monkeypatch):
    asked = []

    def nosy(problem, design, rep, seed):
        asked.append(type(problem).__name__)
        return ["never shown"]

    toy = Family(name="toy", description="a toy", scenario="tests.core.scenario:parse", replay=_toy_lines)
    other = Family(name="other", description="another", scenario="elsewhere.scenario:parse", replay=nosy)
    monkeypatch.setattr("mopt.core.family.families", lambda: {"other": other, "toy": toy})
    problem = ToyProblem()
    result = mopt.solve(problem, "exhaustive", n_reps=2, seed=9)
    assert replay(problem, result, 2, 1).detail == ("toy: design 2, replication 1, seed 9",)
    normal = mopt.NormalProblem([[1.0], [2.0]], sd=1.0)
    told = replay(normal, mopt.solve(normal, "exhaustive", n_reps=2, seed=9), 0, 0)
    assert told.equal and told.detail == ("(NormalProblem tells nothing of a replication but its objective values.)",)
    assert asked == []
