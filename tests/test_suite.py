"""mopt.suite: the benchmark instances, their stored references (one regenerated here), and
SubsetProblem (mopt/core/subset.py), which makes the portfolio instance small."""

from __future__ import annotations

import doctest
import importlib

import numpy as np
import pandas as pd
import pytest

import mopt
import mopt.core.subset
from mopt import InputError
from mopt.core.subset import SubsetProblem


def test_doctests():
    # mopt.suite is the function (as mopt.compare): the module by its name
    for module in (importlib.import_module("mopt.suite"), mopt.core.subset):
        assert doctest.testmod(module, optionflags=doctest.ELLIPSIS).failed == 0


def test_the_instances_and_their_exhaustive_budgets():
    s = mopt.suite()
    assert list(s) == ["expert", "vmc", "koala", "portfolio"] and len(s) == 4
    # 289: the paper grid's strategies (DESIGN §4); 560 = C(16, 3) schedules of at most 16 VMs over
    # 3 classes, one each at least; 55 = 10 single policies + C(10, 2) pairs
    sizes = {"expert": (289, 10), "vmc": (560, 5), "koala": (84, 5), "portfolio": (55, 5)}
    for name, (n_designs, n_reps) in sizes.items():
        inst = s[name]
        assert (inst.n_designs, inst.problem.n_reps, inst.n_reps) == (n_designs, n_reps, n_reps)
        assert inst.budget == n_designs * n_reps
    assert list(s["expert"].utilities) == ["min makespan", "min cost", "min makespan x cost"]
    assert list(s["koala"].utilities) == ["min slowdown_short", "min slowdown_long", "min public_cost"]
    assert s["vmc"].problem.objectives == ("clear_time", "vms")


def test_an_unknown_instance_names_the_parameter():
    with pytest.raises(InputError, match=r"'name' must be one of \['expert', 'vmc', 'koala', 'portfolio'\]; got 'nope'"):
        mopt.suite()["nope"]
    with pytest.raises(KeyError):  # a Mapping's lookups
        mopt.suite()["nope"]
    assert "nope" not in mopt.suite() and mopt.suite().get("nope") is None


@pytest.mark.parametrize("name", ["expert", "vmc", "koala", "portfolio"])
def test_the_stored_reference_is_every_design_with_its_command_and_seed(name):
    inst = mopt.suite()[name]
    ref = inst.reference
    assert ref.attrs["command"] == f"python experiments/suite_fronts.py {name}" == inst.command
    assert int(ref.attrs["seed"]) == inst.truth_seed
    assert int(ref.attrs["replications per design"]) == inst.truth_reps
    assert ref["design"].tolist() == list(range(inst.n_designs))
    assert (ref["n_reps"] == inst.truth_reps).all()
    objectives = list(inst.problem.objectives)
    assert np.isfinite(ref[objectives].to_numpy()).all()
    front = inst.reference_front
    assert 1 <= len(front) < len(ref) and set(front["design"]) <= set(ref["design"])
    assert mopt.pareto_mask(front[objectives].to_numpy()).all()


def test_the_vmc_reference_regenerates_from_its_command():
    """The smallest reference to compute (560 schedules x 1,000 replications, seconds): the stored
    table is what Instance.compute_reference gives again, to 1e-12."""
    inst = mopt.suite()["vmc"]
    again = inst.compute_reference()
    stored = inst.reference
    assert list(again.columns) == list(stored.columns)
    pd.testing.assert_frame_equal(again.reset_index(drop=True), stored, check_dtype=False, rtol=1e-12,
                                  check_exact=False)


def test_a_subset_keeps_the_problems_replications_and_refuses_other_vectors():
    prob = mopt.FunctionProblem(lambda p, rng: (p["a"] + rng.normal(), 10 - p["a"]),
                                [{"a": a} for a in range(8)], ["t", "c"], n_reps=3)
    sub = SubsetProblem(prob, [6, 2, 4])
    assert sub.n_designs == 3 and sub.n_reps == 3
    assert list(sub.xl) == [2] and list(sub.xu) == [6]   # the smallest box of the subset's vectors
    np.testing.assert_array_equal(sub.replicate([0, 2], [0, 1, 5], seed=9),
                                  prob.replicate([6, 4], [0, 1, 5], seed=9))
    assert sub.designs_frame([1, 0])["a"].tolist() == [2, 6]
    assert sub.designs_frame([1, 0])["design"].tolist() == [1, 0]
    assert sub.repair([[3], [6]]).tolist() == [1, 0]     # 3 -> the nearest subset design, a = 2
    with pytest.raises(InputError, match="is not a design of this subset"):
        sub.index([3])
    assert sub.fingerprint() != SubsetProblem(prob, [6, 2]).fingerprint()
    res = mopt.solve(sub, "exhaustive", seed=1)
    assert res.evaluations["design"].tolist() == [0, 1, 2]


@pytest.mark.parametrize("designs, fragment", [
    ([], "'designs' must hold at least one"),
    ([1, 1], "'designs' must not repeat"),
    ([9], "'design index' must be"),
    ("ab", "'designs' must be a list of design indices"),
])
def test_a_bad_subset_is_refused(designs, fragment):
    prob = mopt.FunctionProblem(lambda p, rng: (p["a"],), [{"a": a} for a in range(4)], ["t"])
    with pytest.raises(InputError, match=fragment):
        SubsetProblem(prob, designs)
