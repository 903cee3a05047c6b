"""The paper's traces as KOALA-C uses them: Table II statistics and Table III's short-job shares."""

from __future__ import annotations

import pytest
from conftest import paper_trace

from mopt.cloud.koala import koala_trace
from mopt.core.errors import InputError


def short_share(name: str, limit_min: float) -> float:
    minutes = paper_trace(name)["run_time"] / 60
    return 100 * float((minutes <= limit_min).mean())


@pytest.mark.parametrize("name,limit,paper,tolerance", [
    ("KTH-SP2", 25, 55, 0.5),    # measured 55.3 %
    ("LCG", 20, 69, 0.5),        # first 50,000 jobs: 69.0 %
    ("SDSC-BLUE", 55, 87, 1.0),  # 87.6 %
])  # fmt: skip
def test_short_job_share_at_the_papers_limits(name, limit, paper, tolerance):
    assert abs(short_share(name, limit) - paper) <= tolerance


def test_ctc_short_share_is_the_known_miss():
    """The paper's CTC-SP2 share at 125 min is 69 %; the cleaned archive version holds 72,361 jobs of
    <= 32 processors (the paper: 74K, 94 %, which matches the original, uncleaned file of 79,302
    jobs), and gives 67.6 %: 1.4 points low, not within a point (reported in the README). Jobs of
    the cleaned file with status 1 only would give 69.9 %."""
    assert short_share("CTC-SP2", 125) == pytest.approx(67.64, abs=0.01)


def test_table_ii_rows():
    kth = paper_trace("KTH-SP2")
    minutes = kth["run_time"] / 60
    # paper: 27K jobs (96 %), mean 149, median 14, Q3 164 minutes
    assert len(kth) == 27_309 and round(100 * len(kth) / kth.attrs["n_records"]) == 96
    assert round(minutes.mean()) == 149 and round(minutes.median()) == 14
    assert abs(minutes.quantile(0.75) - 164) < 1
    lcg = paper_trace("LCG")
    assert len(lcg) == 49_999  # the first 50,000 records, one of them with run time 0
    assert lcg["n_procs"].max() <= 32


def test_first_records():
    paper_trace("KTH-SP2")  # skips without the traces
    assert len(koala_trace("KTH-SP2", first=100)) <= 100
    with pytest.raises(InputError, match="'first'"):
        koala_trace("KTH-SP2", first=0)
