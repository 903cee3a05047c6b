"""Decisions under risk (issue #37 part 1): chance constraints, quantiles and CVaR estimated from
each design's replications (mopt.core.risk), the utilities that read them, P(best) over them, and
``mopt decide`` with them. Known answers: hand-computed samples, normal designs whose P(x <= b) is
Phi((b - mu) / sd) exactly, Clopper-Pearson's closed form at k = n."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import mopt
from mopt.cli import main
from mopt.core.errors import InputError
from mopt.core.journal import Journal
from mopt.core.risk import RiskTerm, chance_front, estimate, replications, with_risk
from mopt.core.utility import by_deadline, cvar, quantile, within_budget
from mopt.utility_spec import parse_utility
from tests.helpers import REFERENCE

X = [float(v) for v in range(1, 11)]  # 1, 2, ..., 10


def test_a_probability_by_hand():
    e = estimate(RiskTerm("probability", "t", 3.0, probability=0.25, confidence=0.95), X)
    assert e["P(t <= 3)"] == 0.3
    assert e["P(t <= 3)_se"] == pytest.approx(stats.beta.std(3.5, 7.5), rel=1e-12)  # Jeffreys' posterior sd
    # Jeffreys' posterior Beta(3.5, 7.5): P(P >= 0.25); Clopper-Pearson: Beta(3, 8)'s 5 % quantile
    assert e["certainty P(t <= 3) >= 0.25"] == pytest.approx(stats.beta.sf(0.25, 3.5, 7.5), rel=1e-12)
    assert e["P(t <= 3) lower 0.95"] == pytest.approx(stats.beta.ppf(0.05, 3, 8), rel=1e-10)


def test_clopper_pearson_at_k_equal_n_is_the_closed_form():
    e = estimate(RiskTerm("probability", "t", 100.0, confidence=0.95), X)
    assert e["P(t <= 100)"] == 1.0 and e["P(t <= 100) lower 0.95"] == pytest.approx(0.05 ** (1 / 10))
    assert e["P(t <= 100)_se"] > 0.02  # 10 of 10 within: not certain (the binomial sqrt(p(1-p)/n) would say 0)
    none = estimate(RiskTerm("probability", "t", 0.0, confidence=0.95), X)
    assert none["P(t <= 0)"] == 0.0 and none["P(t <= 0) lower 0.95"] == 0.0


def test_quantiles_and_cvar_by_hand():
    assert estimate(RiskTerm("quantile", "t", 0.9), X)["quantile(t, 0.9)"] == 9.0  # the 9th of 10
    assert estimate(RiskTerm("quantile", "t", 0.95), X)["quantile(t, 0.95)"] == 10.0  # ceil(9.5) = 10th
    assert estimate(RiskTerm("quantile", "t", 0.1), X)["quantile(t, 0.1)"] == 1.0
    c = estimate(RiskTerm("cvar", "t", 0.8), X)
    assert c["cvar(t, 0.8)"] == pytest.approx(9.5)  # the mean of the worst fifth: (9 + 10) / 2
    y = np.array([8.0] * 8 + [13.0, 18.0])  # v + max(x - v, 0) / (1 - q), v = 8
    assert c["cvar(t, 0.8)_se"] == pytest.approx(y.std(ddof=1) / math.sqrt(10))
    assert np.isnan(estimate(RiskTerm("quantile", "t", 0.99), X)["quantile(t, 0.99)_se"])  # interval leaves the sample
    assert estimate(RiskTerm("quantile", "t", 0.3), X * 20)["quantile(t, 0.3)"] == 3.0


@pytest.mark.parametrize("kind, level, truth", [
    ("probability", 2.0, stats.norm.cdf(1.0)),   # P(N(1, 1) <= 2)
    ("quantile", 0.9, 1.0 + stats.norm.ppf(0.9)),
    ("cvar", 0.9, 1.0 + stats.norm.pdf(stats.norm.ppf(0.9)) / 0.1),  # E[X | X >= q_0.9]
])
def test_normal_designs_known_answers_within_their_standard_errors(kind, level, truth):
    prob = mopt.NormalProblem([[1.0, 0.0], [5.0, 0.0]], sd=1.0, n_reps=4000)
    result = mopt.solve(prob, "exhaustive", seed=3)
    term = RiskTerm(kind, "f1", level)
    ev = with_risk(result, [term], problem=prob).evaluations.set_index("design")
    value, se = ev.loc[0, term.column], ev.loc[0, f"{term.column}_se"]
    assert 0 < se < 0.1 and abs(value - truth) <= 4 * se


def test_the_clopper_pearson_bound_covers_the_true_probability_at_its_confidence():
    # P(N(0, 1) <= 0.5) = 0.691; 400 independent designs of 50 replications each
    prob = mopt.NormalProblem([[0.0]] * 400, sd=1.0, n_reps=50)  # each design its own noise
    result = mopt.solve(prob, "exhaustive", seed=5)
    term = RiskTerm("probability", "f1", 0.5, confidence=0.9)
    lower = with_risk(result, [term], problem=prob).evaluations[term.lower_column].to_numpy()
    covered = float(np.mean(lower <= stats.norm.cdf(0.5)))
    assert covered >= 0.9 - 2 * math.sqrt(0.9 * 0.1 / 400), covered  # exact test: at least its confidence


def test_a_chance_constrained_utility_reads_the_estimate_or_its_bound():
    import pandas as pd

    df = pd.DataFrame({"cost": [1.0, 1.0, 1.0], "makespan": [5.0, 3.0, 4.0],
                       "P(cost <= 1)": [0.95, 0.85, 0.92], "P(cost <= 1) lower 0.95": [0.91, 0.8, 0.88]})
    u = within_budget("cost", 1.0, then="makespan", probability=0.9)
    assert u(df).tolist() == [5.0, math.inf, 4.0]
    v = within_budget("cost", 1.0, then="makespan", probability=0.9, confidence=0.95)
    assert v(df).tolist() == [5.0, math.inf, math.inf]
    assert [t.column for t in by_deadline("makespan", 8000, then="cost", probability=0.5).risk] == ["P(makespan <= 8000)"]
    assert quantile("makespan", 0.95).name == "quantile(makespan, 0.95)" and cvar("cost", 0.9).columns == ("cvar(cost, 0.9)",)


def test_best_needs_the_replications_and_says_how_to_add_them():
    prob = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0]], sd=0.5, n_reps=50)
    result = mopt.solve(prob, "exhaustive", seed=1)
    u = parse_utility("within_budget(f1, 1.5, then=f2, probability=0.8)")
    with pytest.raises(InputError, match=r"reads 'P\(f1 <= 1.5\)', estimated from each design's replications"):
        result.best(u)
    row = with_risk(result, [u], problem=prob).best(u)
    assert row["design"] == 0 and row["P(f1 <= 1.5)"] >= 0.8  # P(N(1, .25) <= 1.5) = 0.84; design 1: 0.16
    assert 0.0 <= row["p_best"] <= 1.0


def test_p_best_resamples_the_risk_estimate():
    # design 1 is cheaper in f2 but its P(f1 <= 0) is near the 0.5 the utility asks (0.55 true):
    # which of the two is best is in doubt, so P(best) is neither 0 nor 1
    prob = mopt.NormalProblem([[-1.0, 1.0], [-0.125, 0.5]], sd=1.0, n_reps=40)
    result = mopt.solve(prob, "exhaustive", seed=2)
    u = within_budget("f1", 0.0, then="f2", probability=0.5)
    risky = with_risk(result, [u], problem=prob)
    row = risky.best(u)
    assert 0.0 < row["p_best"] < 1.0, row
    assert row["runner_up"] is not None


@pytest.mark.parametrize("spec, fragment", [
    ("within_budget(cost, 1.0, then=makespan, probability=1.5)", "'probability' must be"),
    ("within_budget(cost, 1.0, then=makespan, probability=0)", "'probability' must be"),
    ("within_budget(cost, 1.0, then=makespan, confidence=0.9)", "'confidence' goes with 'probability'"),
    ("quantile(makespan, 1)", "'q' must be"),
    ("cvar(makespan)", "missing 1 required positional argument"),
])
def test_bad_risk_specs_are_one_line_naming_the_argument(spec, fragment):
    with pytest.raises(InputError, match=re_escape(fragment)):
        parse_utility(spec)


def re_escape(text):
    import re

    return re.escape(text)


def test_a_risk_measure_of_an_unknown_objective_is_refused():
    prob = mopt.NormalProblem([[1.0, 2.0]], sd=0.5, n_reps=5)
    result = mopt.solve(prob, "exhaustive", seed=1)
    with pytest.raises(InputError, match="'makespan', which is not an objective of the result"):
        with_risk(result, [quantile("makespan", 0.9)], problem=prob)


def test_replications_from_the_journal_are_the_runs_bit_for_bit(tmp_path):
    prob = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]], sd=0.5, n_reps=7)
    journal = tmp_path / "run.sqlite"
    result = mopt.solve(prob, "exhaustive", seed=4, journal=journal)
    read = replications(result, journal=journal)
    again = replications(result, problem=prob)
    assert sorted(read) == [0, 1, 2] and all(np.array_equal(read[d], again[d]) for d in read)
    assert np.allclose([read[d][:, 0].mean() for d in range(3)], result.evaluations["f1"])
    with Journal(tmp_path / "other.sqlite", prob, seed=5) as j:
        j.commit([0], [0], prob.replicate([0], [0], 5))
    with pytest.raises(InputError, match="was written with seed 5"):
        replications(result, journal=tmp_path / "other.sqlite")
    with pytest.raises(InputError, match="give the run's 'journal' or its 'problem'"):
        replications(result)


def test_chance_front_keeps_the_designs_that_satisfy_the_constraint_at_the_confidence():
    prob = mopt.NormalProblem([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0]], sd=0.5, n_reps=200)
    result = mopt.solve(prob, "exhaustive", seed=1)
    # P(f1 <= 1.6): 0.9993, 0.885, 0.21: at 0.8 with 95 % confidence, designs 0 and 1
    front = chance_front(result, "f1", 1.6, 0.8, problem=prob)
    assert front["design"].tolist() == [0, 1]
    assert (front["P(f1 <= 1.6) lower 0.95"] >= 0.8).all()


def test_decide_on_the_expert_grid_a_chance_constraint_against_the_mean(tmp_path, capsys):
    out = tmp_path / "ref"
    assert main(["frontier", str(REFERENCE), "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    mean_based = "by_deadline(makespan, 8000, then=cost)"
    chance = "by_deadline(makespan, 8000, then=cost, probability=0.9)"
    assert main(["decide", str(out), "--utility", mean_based, "--utility", chance,
                 "--scenario", str(REFERENCE)]) == 0
    text = capsys.readouterr().out
    assert "P(makespan <= 8000)" in text
    assert "certainty" not in text  # a posterior, kept in the evaluations, not printed as a frequency
    result = mopt.Result.read_csv(out)
    problem = mopt.scenario.load_scenario(REFERENCE).problem(seed=result.seed)
    risky = with_risk(result, [parse_utility(chance)], problem=problem)
    chosen = risky.best(parse_utility(chance))
    plain = risky.best(parse_utility(mean_based))
    assert chosen["P(makespan <= 8000)"] >= 0.9 and plain["makespan"] <= 8000
    ev = risky.evaluations
    ok = ev[ev["P(makespan <= 8000)"] >= 0.9]
    assert chosen["cost"] == ok["cost"].min()  # the cheapest that keeps the deadline 9 times in 10


@pytest.mark.parametrize("method", ["screen", "oo"])
def test_a_search_method_refuses_a_utility_under_risk_in_one_line(method):
    prob = mopt.NormalProblem([[1.0, 2.0], [2.0, 1.0]], n_reps=3)
    with pytest.raises(InputError, match=r"^'utility' quantile\(f1, 0.9\) reads estimates from each design's"):
        mopt.solve(prob, method, budget=60, seed=1, utility=parse_utility("quantile(f1, 0.9)"))


def _steady_or_cheap():
    # cost: A 0.9 (sd 0.05), B 0.7 (sd 0.4), C 0.95 (sd 0.02); makespan 5, 4, 6 (sd 0.5)
    # P(cost <= 1): 0.977, 0.773, 0.994: on the mean B is the fastest within budget, under
    # P(cost <= 1) >= 0.9 it is A
    return mopt.NormalProblem([[0.9, 5.0], [0.7, 4.0], [0.95, 6.0]], sd=[[0.05, 0.5], [0.4, 0.5], [0.02, 0.5]],
                              objectives=["cost", "makespan"], n_reps=10)


def test_ocba_searches_under_a_chance_constraint():
    prob = _steady_or_cheap()
    on_mean = mopt.solve(prob, "ocba", budget=600, seed=1, utility="within_budget(cost, 1.0, then=makespan)")
    on_risk = mopt.solve(prob, "ocba", budget=600, seed=1,
                         utility="within_budget(cost, 1.0, then=makespan, probability=0.9)")
    assert on_mean.info["best"] == 1 and on_risk.info["best"] == 0
    assert on_risk.info["utility"] == "within_budget(P(cost <= 1) >= 0.9, then=makespan)"
    n = on_risk.evaluations.set_index("design")["n_reps"]
    assert n.sum() == 600 and n[0] > 10  # replications went beyond n0 where the choice is made


def test_ocba_under_risk_is_the_same_whatever_the_executor():
    from concurrent.futures import ProcessPoolExecutor

    prob = _steady_or_cheap()
    spec = "within_budget(cost, 1.0, then=makespan, probability=0.9)"
    alone = mopt.solve(prob, "ocba", budget=300, seed=7, utility=spec)
    with ProcessPoolExecutor(2) as pool:
        pooled = mopt.solve(prob, "ocba", budget=300, seed=7, utility=spec, executor=pool, batch_size=7)
    assert alone.evaluations.equals(pooled.evaluations)


def test_a_scenario_files_ocba_takes_a_utility_under_risk(tmp_path, capsys):
    text = REFERENCE.read_text(encoding="utf-8")
    head, _, _ = text.partition("[run]")
    scenario = tmp_path / "risky.toml"
    scenario.write_text(head + '[run]\nmethod = "ocba"\nn_reps = 10\nseed = 1\nbudget = 3000\n'
                        'options = { n0 = 5, utility = "by_deadline(makespan, 8000, then=cost, probability=0.9)" }\n',
                        encoding="utf-8")
    out = tmp_path / "out"
    assert main(["frontier", str(scenario), "--out", str(out), "--quiet"]) == 0
    result = mopt.Result.read_csv(out)
    assert result.info["utility"] == "by_deadline(P(makespan <= 8000) >= 0.9, then=cost)"
    bad = tmp_path / "bad.toml"
    bad.write_text(head + '[run]\nmethod = "ocba"\noptions = { utility = "quantile(speed, 0.9)" }\n', encoding="utf-8")
    assert main(["frontier", str(bad), "--out", str(tmp_path / "bad"), "--quiet"]) == 2
    assert "'speed', which is not an objective" in capsys.readouterr().err


def test_refine_spends_where_a_chance_constraint_is_undecided():
    # P(cost <= 1): A 0.977, B 0.773, C 0.994; at 10 replications whether A and B keep 0.9 is open
    prob = _steady_or_cheap()
    first = mopt.solve(prob, "exhaustive", seed=3)
    spec = "within_budget(cost, 1.0, then=makespan, probability=0.9)"
    surer = mopt.refine(first, prob, 600, target=spec)
    r = surer.info["refine"]
    assert r["target"] == spec and r["constraint_undecided_before"] >= 1
    assert r["constraint_undecided_after"] < r["constraint_undecided_before"]
    got = surer.evaluations.set_index("design")["n_reps"] - first.evaluations.set_index("design")["n_reps"]
    assert got.sum() == r["spent"] > 0
    with pytest.raises(InputError, match="has no chance constraint"):
        mopt.refine(first, prob, 10, target="quantile(cost, 0.9)")


def test_frontier_refines_where_a_chance_constraint_is_undecided(tmp_path, capsys):
    spec = "by_deadline(makespan, 8000, then=cost, probability=0.9)"
    assert main(["frontier", str(REFERENCE), "--out", str(tmp_path / "o"), "--quiet", "--refine", "600",
                 "--refine-target", spec]) == 0
    line = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("refined:")][0]
    before, after = (int(v) for v in line.rsplit("undecided ", 1)[1].split(" -> "))
    assert f"target {spec}" in line and after < before
    assert main(["frontier", str(REFERENCE), "--refine", "10", "--refine-target", "quantile(cost, 0.5)"]) == 2
    assert "a utility with a chance constraint" in capsys.readouterr().err


def test_too_few_tail_replications_leave_p_best_unknown_not_certain():
    # CVaR at 0.95 from 10 replications: no replication beyond the quantile, the tail unseen
    prob = mopt.NormalProblem([[1.0], [1.05], [1.1]], sd=1.0, n_reps=10)
    result = mopt.solve(prob, "exhaustive", seed=1)
    u = cvar("f1", 0.95)
    risky = with_risk(result, [u], problem=prob)
    assert risky.evaluations["cvar(f1, 0.95)_se"].isna().all()
    row = risky.best(u)
    assert row["p_best"] is None and row["runner_up"] is None


def test_an_infinite_outcome_makes_the_cvar_infinite_and_a_nan_one_is_refused():
    assert estimate(RiskTerm("cvar", "t", 0.75), [1.0, 2.0, math.inf, math.inf])["cvar(t, 0.75)"] == math.inf
    with pytest.raises(InputError, match="a replication of 't' is NaN"):
        estimate(RiskTerm("probability", "t", 1.0), [1.0, math.nan])


def test_ocba_under_a_chance_constraint_finds_the_feasible_best_over_seeds():
    # the reviewer's case: an unlucky start must not shut the right design out for good
    prob = _steady_or_cheap()
    spec = "within_budget(cost, 1.0, then=makespan, probability=0.9)"
    picks = [mopt.solve(prob, "ocba", budget=600, seed=s, utility=spec).info["best"] for s in range(20)]
    assert picks.count(0) >= 19, picks
