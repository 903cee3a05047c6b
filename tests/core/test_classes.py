"""Classes of equivalent designs (issue #33): designs identical in every replication count once."""

import numpy as np
import pandas as pd
import pytest

import mopt
from mopt.core.classes import class_ids, renumber, representatives


def _sim(p, rng):
    """Depends on ``a`` only while ``b`` is 0: under common random numbers the designs that differ
    in ``b`` alone (for a > 0) are equivalent."""
    z = rng.normal(size=2)
    a = p["a"] + (0.25 * p["b"] if p["a"] == 0 else 0.0)
    return (a + 0.3 * z[0], 3.0 / (a + 1.0) + 0.3 * z[1])


def _problem(crn=True):
    designs = [{"a": a, "b": b} for a in (0, 1, 2, 3) for b in (0, 0.5, 1)]
    return mopt.FunctionProblem(_sim, designs, ["time", "cost"], n_reps=8, common_random_numbers=crn)


def test_class_ids_by_hand():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = a + [0.0, 1e-12]  # one value differs in the last bits: another class
    nan = np.array([[np.nan, 1.0], [2.0, 3.0]])
    ids = class_ids([b, a, a.copy(), None, nan, nan.copy(), b, a[:1]], design_ids=[10, 3, 4, 0, 7, 8, 11, 1])
    # numbered by each class's smallest design index: None (0) -> 0, a[:1] (1) -> 1, a (3) -> 2, nan (7) -> 3, b (10) -> 4
    assert ids.tolist() == [4, 2, 2, 0, 3, 3, 4, 1]
    assert renumber([5, 5, 2], [9, 1, 4]).tolist() == [0, 0, 1]


def test_class_ids_of_a_stacked_array_and_empty():
    x = np.random.default_rng(1).normal(size=(6, 5, 2))
    x[4] = x[1]
    assert class_ids(x).tolist() == [0, 1, 2, 3, 1, 4]
    assert class_ids([]).tolist() == []


def test_common_random_numbers_make_classes():
    result = mopt.solve(_problem(), "exhaustive", seed=3)
    ev = result.evaluations
    # a = 1, 2, 3: b does not matter (3 classes of 3); a = 0: b matters (3 classes of 1)
    assert ev["class"].nunique() == 6
    classes = result.classes
    assert classes["n_designs"].tolist() == [1, 1, 1, 3, 3, 3]
    assert list(classes.columns) == ["class", "n_designs", "design", "time", "time_se", "cost", "cost_se",
                                     "n_reps", "p_nondominated", "varies"]
    three = classes[classes["n_designs"] == 3]
    assert (three["varies"] == "b: any of 0, 0.5, 1").all()
    assert (classes.loc[classes["n_designs"] == 1, "varies"] == "").all()
    # a class's representative is its smallest design index, and its members share every statistic
    for _, members in ev.groupby("class"):
        assert members[["time", "cost", "time_se", "cost_se", "p_nondominated"]].nunique().max() == 1
        assert members["design"].min() in set(classes["design"])
    # the front: one row per class
    front = result.front
    assert front["class"].is_unique
    assert set(front["design"]) <= set(classes["design"])
    assert front["n_designs"].sum() == int(np.isin(ev["class"], front["class"]).sum())


def test_independent_noise_shares_no_class():
    result = mopt.solve(mopt.NormalProblem([[1, 5]] * 6 + [[5, 1]], sd=0.5), "exhaustive", seed=1)
    assert result.evaluations["class"].is_unique
    assert len(result.front) >= 1 and (result.front["n_designs"] == 1).all()
    assert mopt.solve(_problem(crn=False), "exhaustive", seed=3).evaluations["class"].is_unique


def test_probabilities_count_classes():
    """Three copies of one exactly-known design tie with a fourth design: P(best) is not split
    between the copies, and the front's expected counts count the class once."""
    exact = mopt.NormalProblem([[1, 5], [1, 5], [1, 5], [5, 1], [6, 6]], sd=0.0)
    result = mopt.solve(exact, "exhaustive", seed=1)
    assert result.evaluations["class"].tolist() == [0, 0, 0, 1, 2]
    assert len(result.front) == 2
    best = result.best(mopt.utility.minimize("f1"))
    assert best["design"] == 0 and best["p_best"] == 1.0 and best["runner_up"] == 3
    # noisy, under common random numbers: the copies of a design stay copies
    result = mopt.solve(_problem(), "exhaustive", seed=3)
    row = result.best(mopt.utility.minimize("cost"))
    tied = result.evaluations.loc[result.evaluations["class"] == row["class"], "design"]
    assert row["design"] == tied.min()
    assert row["runner_up"] not in set(tied)
    u = result.info["uncertainty"]
    assert u["expected_false_in"] <= result.front.shape[0]
    assert set(u["uncertain"]) <= set(result.classes["design"])


def test_classes_survive_csv_and_refine(tmp_path):
    prob = _problem()
    result = mopt.solve(prob, "exhaustive", seed=3)
    back = mopt.Result.read_csv(result.to_csv(tmp_path))
    assert back.evaluations["class"].tolist() == result.evaluations["class"].tolist()
    assert back.front["design"].tolist() == result.front["design"].tolist()
    refined = mopt.refine(result, prob, 60)
    assert refined.evaluations["class"].nunique() == 6  # the copies got the same replications


def test_representatives_without_classes():
    ev = pd.DataFrame({"design": [2, 0], "f": [1.0, 2.0]})
    out = representatives(ev)
    assert out["n_designs"].tolist() == [1, 1] and out["design"].tolist() == [2, 0]


@pytest.mark.parametrize("n", [1, 3])
def test_one_replication_still_classes(n):
    result = mopt.solve(_problem(), "exhaustive", seed=3, n_reps=n)
    assert result.evaluations["class"].nunique() == 6


def test_a_design_chosen_by_the_tie_break_is_not_given_p_best_zero():
    """Two designs tie exactly on the utility in every resample (a public cost of 0, no spread) and
    differ in another objective: Result.best chose by that objective, and P(best) counts the
    resamples the same tie-break wins (issue #36 audit: KOALA-C's "min public_cost" printed 0.00)."""
    import pandas as pd

    import mopt

    ev = pd.DataFrame({"design": [0, 1, 2], "slowdown": [5.9, 2.3, 4.0], "slowdown_se": [0.2, 0.2, 0.2],
                       "cost": [0.0, 0.0, 100.0], "cost_se": [0.0, 0.0, 20.0], "n_reps": 10})
    result = mopt.Result("exhaustive", 1, 30, ("slowdown", "cost"), ev, {})
    best = result.best(mopt.utility.minimize("cost"))
    assert int(best["design"]) == 1 and best["p_best"] >= 0.99 and best["runner_up"] == 0
    # equal on every objective but the design index: the lower index wins, every resample
    same = ev.assign(slowdown=[2.3, 2.3, 4.0], slowdown_se=0.0)
    best = mopt.Result("exhaustive", 1, 30, ("slowdown", "cost"), same, {}).best(mopt.utility.minimize("cost"))
    assert int(best["design"]) == 0 and best["p_best"] == 1.0
