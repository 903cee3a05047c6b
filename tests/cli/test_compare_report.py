"""``mopt compare``'s report (:func:`mopt.cli.compare.write_compare_report`, issue #36): the seed the
user gave (the ground truth's derived seed a detail), the budgets, what the intervals are said the
same way in the lead and in the run table; drawn from a ground truth and rows made here, without
running a comparison."""

from __future__ import annotations

import html
import json
import re

import pandas as pd
import pytest

import mopt
from mopt.cli.compare import write_compare_report
from mopt.compare import _derived_seed, ground_truth
from mopt.scoring import SCORES


def run_rows(text: str) -> dict:
    """The run table's rows, header -> cell text."""
    table = text.split("<h2>Run</h2>")[1].split("</table>")[0]
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table)}


@pytest.fixture
def comparison():
    """A ground truth of four designs (10 replications each) and the rows of two methods at two
    budgets, two macroreplications each (one method too small for the first budget)."""
    problem = mopt.NormalProblem([[1, 5], [2, 2], [5, 1], [3, 3]], sd=0.3)
    truth_seed = _derived_seed(1, 1)
    truth = ground_truth(problem, 10, seed=truth_seed)
    rows = [{"method": m, "budget": b, "macrorep": k, "status": "ok" if (m, b) != ("ocba", 289) else "budget too small",
             **{s: 0.5 for s in SCORES}} for m in ("blind_pick", "ocba") for b in (289, 1650) for k in (0, 1)]
    facts = {"name": "four", "scenario": "four.toml", "family": "none", "seed": 1, "truth_reps": 10,
             "truth_seed": truth_seed, "objectives": ["f1", "f2"]}
    return pd.DataFrame(rows), truth, facts


def test_the_report_shows_the_users_seed_the_budgets_and_the_derived_seed_as_a_detail(comparison, tmp_path):
    df, truth, facts = comparison
    page = tmp_path / "report.html"
    write_compare_report(page, df, truth, facts)
    text = page.read_text(encoding="utf-8")
    rows = run_rows(text)
    assert rows["seed"] == "1"
    assert rows["ground truth's seed"] == f"{facts['truth_seed']} (its own stream, derived from seed 1)"
    assert rows["budget"] == "40 replications"  # the ground truth's: 4 designs x 10
    assert rows["compared"] == "blind_pick, ocba at budgets 289, 1,650 replications, 2 macroreplications each"
    assert "–" not in rows.values()
    # the lead and the run table say the same about the intervals; nothing claims there are none
    words = rows["intervals"]
    assert words.startswith("means with 95% confidence intervals") and "certified efficient, dominated or undecided" in words
    assert f"Shown: {html.escape(words)}." in text and "carries no" not in text
    progress = json.loads(re.search(r"const REPORT = (\{.*?\});</script>", text, re.S).group(1))["progress"]
    assert progress["x_range"][0] < 289 and progress["x_range"][1] > 1650


def test_a_set_written_before_it_recorded_the_seed_says_so(comparison, tmp_path):
    df, truth, facts = comparison
    page = tmp_path / "report.html"
    write_compare_report(page, df, truth, {k: v for k, v in facts.items() if k != "seed"})
    rows = run_rows(page.read_text(encoding="utf-8"))
    assert rows["seed"] == str(facts["truth_seed"])
    assert rows["ground truth's seed"] == f"{facts['truth_seed']} (this set does not record the run's --seed)"
