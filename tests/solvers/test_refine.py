"""mopt.refine: more replications where they can change the front, the same values as a longer
run, the journal's replications reused, and P(correct selection) reported before and after."""

from __future__ import annotations

import numpy as np
import pytest

import mopt

MEANS = [[1, 5], [2, 2], [2.1, 2.1], [5, 1], [6, 6], [3, 1.5], [3.05, 1.45]]


@pytest.mark.parametrize("allocation", ["mocba", "equal"])
def test_refine_adds_replications_with_the_values_of_a_longer_run(allocation):
    prob = mopt.NormalProblem(MEANS, sd=0.5, n_reps=10)
    first = mopt.solve(prob, "exhaustive", seed=1)
    surer = mopt.refine(first, prob, 600, allocation=allocation)
    info = surer.info["refine"]
    assert info["allocation"] == allocation and 0 < info["spent"] <= 600
    assert surer.n_evals == first.n_evals + info["spent"]
    assert info["p_correct_selection_before"] == first.info["uncertainty"]["p_correct_selection"]
    assert info["p_correct_selection_after"] == surer.info["uncertainty"]["p_correct_selection"]
    old, new = first.evaluations.set_index("design"), surer.evaluations.set_index("design")
    # design 4 (6, 6) is dominated beyond doubt: untouched
    assert new.loc[4, "n_reps"] == 10 and new.loc[4, "f1"] == old.loc[4, "f1"]
    assert info["designs"] == 6 and new["n_reps"].sum() == old["n_reps"].sum() + info["spent"]
    for d in (1, 2, 5, 6):  # replication r of design d is the same draw as in a longer run
        n = int(new.loc[d, "n_reps"])
        longer = mopt.solve(mopt.NormalProblem(MEANS, sd=0.5, n_reps=n), "exhaustive", seed=1)
        assert longer.evaluations.set_index("design").loc[d, "f1"] == pytest.approx(new.loc[d, "f1"], abs=1e-12)
    if allocation == "equal":
        assert len(set(new.loc[[0, 1, 2, 3, 5, 6], "n_reps"])) == 1


def test_refine_reuses_the_journal_and_is_sure_of_a_separated_front(tmp_path):
    prob = mopt.NormalProblem(MEANS, sd=0.5, n_reps=10)
    journal = tmp_path / "run.sqlite"
    first = mopt.solve(prob, "exhaustive", seed=1, journal=journal)
    with_journal = mopt.refine(first, prob, 600, journal=journal)
    assert with_journal.info["refine"]["resimulated"] == 0
    without = mopt.refine(first, prob, 600)
    assert without.info["refine"]["resimulated"] == 60  # 6 designs x 10 replications, simulated again
    assert with_journal.evaluations.equals(without.evaluations)
    far = mopt.refine(first, prob, 20_000)  # enough to tell (2, 2) from (2.1, 2.1) and 5 from 6
    assert far.info["uncertainty"]["p_correct_selection"] > 0.9
    assert set(far.front["design"]) == {0, 1, 3, 5, 6}


def test_refine_refuses_bad_arguments():
    prob = mopt.NormalProblem(MEANS, sd=0.5, n_reps=4)
    first = mopt.solve(prob, "exhaustive", seed=1)
    with pytest.raises(mopt.InputError, match="'budget'"):
        mopt.refine(first, prob, 0)
    with pytest.raises(mopt.InputError, match="'allocation'"):
        mopt.refine(first, prob, 10, allocation="best")
    other = mopt.NormalProblem(MEANS, sd=0.5, objectives=["a", "b"])
    with pytest.raises(mopt.InputError, match="objectives"):
        mopt.refine(first, other, 10)
    old = first.evaluations.drop(columns=["p_nondominated"])
    import dataclasses

    with pytest.raises(mopt.InputError, match="uncertainty"):
        mopt.refine(dataclasses.replace(first, evaluations=old), prob, 10)
    assert np.isfinite(first.info["uncertainty"]["p_correct_selection"])


def test_refine_targets_the_undecided_classes():
    """target="undecided": only the classes the certified sets leave undecided get replications,
    and certification at 95 % is never undone by them (anytime-valid)."""
    prob = mopt.NormalProblem([[1, 5], [2, 2], [2.05, 2.05], [5, 1], [9, 9]], sd=0.3, n_reps=10)
    first = mopt.solve(prob, "exhaustive", seed=1)
    sets = first.certified()
    undecided = set(sets.loc[sets["status"] == "undecided", "design"])
    assert undecided and undecided != set(sets["design"])
    surer = mopt.refine(first, prob, 400, target="undecided")
    grew = set(surer.evaluations.loc[surer.evaluations["n_reps"] > 10, "design"])
    assert grew and grew <= undecided  # MOCBA may leave some undecided at their count
    assert surer.info["refine"]["designs"] == len(undecided)
    info = surer.info["refine"]
    assert info["target"] == "undecided" and info["undecided_after"] <= info["undecided_before"]
    after = surer.certified().set_index("design")["status"]
    for d, status in sets.set_index("design")["status"].items():
        if status != "undecided":
            assert after[d] == status
    with pytest.raises(mopt.InputError, match="'target'"):
        mopt.refine(first, prob, 10, target="everything")
