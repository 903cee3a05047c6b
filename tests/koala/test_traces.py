"""The paper's traces as KOALA-C uses them: Table II statistics and Table III's short-job shares."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mopt.core.errors import InputError
from mopt.koala import koala_trace
from mopt.koala.traces import PAPER_VERSION_REMOVED, removed_jobs, short_share
from mopt.workloads.traces import clean
from tests.helpers import paper_trace


def paper_share(name: str, limit_min: float) -> float:
    """Table III's share as the paper's version of the trace holds it (see mopt.koala.traces)."""
    jobs = paper_trace(name)
    extra = removed_jobs(jobs) if name in PAPER_VERSION_REMOVED else 0
    return short_share(jobs, 60.0 * limit_min, removed_short=extra)


@pytest.mark.parametrize("name,limit,paper,tolerance", [
    ("KTH-SP2", 25, 55, 0.5),    # 55.3 %
    ("LCG", 20, 69, 0.5),        # first 50,000 records: 69.0 %
    ("SDSC-BLUE", 55, 87, 1.0),  # 87.6 %
    ("CTC-SP2", 125, 69, 1.0),   # 68.5 %: the cleaned file plus its 2,080 removed (short) jobs
])  # fmt: skip
def test_short_job_share_at_the_papers_limits(name, limit, paper, tolerance):
    """The issue's targets: KTH-SP2 55 %, LCG 69 %, CTC-SP2 and SDSC-BLUE within a point of 69 / 87 %."""
    assert abs(paper_share(name, limit) - paper) <= tolerance


def test_ctc_paper_version_reconciles_table_ii_and_bounds_the_share():
    """Why CTC-SP2 needs the removed flurry. The cleaned archive file alone: 72,361 jobs <= 32
    processors, mean 189 min, median 19, Q3 237, and 67.6 % short at 125 min (1.4 points below the
    paper). Its header says 2,080 jobs of user 135 were removed; that user's jobs just before the
    removed range ran 43-52 s on 1 processor. Adding 2,080 jobs of 48 s gives the paper's whole
    Table II row: 74,441 jobs (74K), mean 183.9 (184), Q1 1.5 (2), median 15.7 (16), Q3 223.1
    (223), p99 1,081 (1,081).

    Whatever their runtimes, the paper's count and mean bound the share: 74,441 jobs with a mean
    below 184.5 min leave at most 74,441 * 184.5 - sum(cleaned runtimes) minutes for the 2,080
    removed jobs, so at most that / 125 of them are long; the share then lies in
    [(short + 2,080 - that) / 74,441, (short + 2,080) / 74,441] = [68.06, 68.54] %, within a point
    of 69 %."""
    jobs = paper_trace("CTC-SP2")
    minutes = jobs["run_time"].to_numpy() / 60
    assert len(jobs) == 72_361 and short_share(jobs, 7500) == pytest.approx(67.64, abs=0.01)
    flurry = removed_jobs(jobs)
    assert flurry == 2080
    rebuilt = np.concatenate([minutes, np.full(flurry, 48 / 60)])
    assert round(len(rebuilt) / 1000) == 74 and round(rebuilt.mean()) == 184
    q1, median, q3, p99 = np.percentile(rebuilt, [25, 50, 75, 99])
    assert (round(q1), round(median), round(q3), round(p99)) == (2, 16, 223, 1081)
    n, short = len(rebuilt), int((minutes <= 125).sum())
    budget = n * 184.5 - minutes.sum()  # minutes left for the removed jobs by the paper's mean
    most_long = int(budget // 125)
    low, high = 100 * (short + flurry - most_long) / n, 100 * (short + flurry) / n
    assert 0 < most_long < flurry
    assert low == pytest.approx(68.06, abs=0.01) and high == pytest.approx(68.54, abs=0.01)
    assert abs(low - 69) <= 1 and abs(high - 69) <= 1
    # rejected explanations: "<" instead of "<=" at the limit moves one job (7,500 s exactly); only
    # completed jobs (status 1) give 69.9 % but 57,376 jobs, far from the paper's 74K
    assert 100 * (jobs["run_time"] < 7500).mean() == pytest.approx(67.64, abs=0.01)
    done = jobs[jobs["status"] == 1]
    assert len(done) == 57_376 and short_share(done, 7500) == pytest.approx(69.86, abs=0.01)


def test_sdsc_blue_allocated_processors_only():
    """Ours: jobs with no allocated processors (n_procs = -1) are dropped. SDSC-BLUE has 19,516 of
    them (cancelled); the cloud simulator's rule counts their requested processors instead and
    keeps 6,974 more jobs <= 32 processors, which moves the 55-min share from 87.6 % to 88.1 %
    (the paper: 87 %)."""
    jobs = paper_trace("SDSC-BLUE")
    assert len(jobs) == 170_374 and short_share(jobs, 3300) == pytest.approx(87.59, abs=0.01)
    fallback = koala_trace("SDSC-BLUE", req_fallback=True)
    assert len(fallback) == 177_348 and short_share(fallback, 3300) == pytest.approx(88.08, abs=0.01)


def test_table_ii_rows():
    kth = paper_trace("KTH-SP2")
    minutes = kth["run_time"] / 60
    # paper: 27K jobs (96 % of the cleaned trace), mean 149, median 14, Q3 164 minutes
    assert len(kth) == 27_309 and round(100 * len(kth) / kth.attrs["cleaning"]["cleaned"]) == 96
    assert round(minutes.mean()) == 149 and round(minutes.median()) == 14
    assert abs(minutes.quantile(0.75) - 164) < 1
    # paper: SDSC-BLUE 76 % of the cleaned trace (223,637 records with run time and processors)
    blue = paper_trace("SDSC-BLUE")
    assert round(100 * len(blue) / blue.attrs["cleaning"]["cleaned"]) == 76
    lcg = paper_trace("LCG")
    assert len(lcg) == 49_999  # the first 50,000 records, one of them with run time 0
    assert lcg.attrs["n_records_used"] == 50_000 and lcg["n_procs"].max() <= 32
    assert removed_jobs(kth) == 14 and removed_jobs(blue) == 477 + 1468 + 5181 + 8 and removed_jobs(lcg) == 0


def test_first_records():
    paper_trace("KTH-SP2")  # skips without the traces
    assert len(koala_trace("KTH-SP2", first=100)) <= 100
    with pytest.raises(InputError, match="'first'"):
        koala_trace("KTH-SP2", first=0)


def test_cleaning_hand_case_allocated_only():
    """Five records: run time 0 (dropped), n_procs -1 with 4 requested (kept only with the
    fallback), 40 processors (over the size limit), 200 (over MaxProcs 128), and 2 (kept)."""
    df = pd.DataFrame({"run_time": [0, 50, 60, 70, 80], "n_procs": [1, -1, 40, 200, 2],
                       "req_procs": [1, 4, 40, 200, 2]})
    df.attrs["header"] = {"MaxProcs": "128"}
    assert clean(df, size_limit=32)["n_procs"].tolist() == [4, 2]
    out = clean(df, size_limit=32, req_fallback=False)
    assert out["n_procs"].tolist() == [2] and out.attrs["cleaning"]["cleaned"] == 2  # 2 and 40 processors


def test_short_share_hand_cases_and_errors():
    jobs = pd.DataFrame({"run_time": [1, 300, 301, 7500, 7501]})
    assert short_share(jobs, 300) == 40.0  # 1 and 300 s: "<=" at the limit
    assert short_share(jobs, 7500) == 80.0
    assert short_share(jobs, 7500, removed_short=5) == 90.0  # (4 + 5) / (5 + 5)
    with pytest.raises(InputError, match="'limit'"):
        short_share(jobs, -1)
    with pytest.raises(InputError, match="'removed_short'"):
        short_share(jobs, 60, removed_short=-2)
    with pytest.raises(InputError, match="'jobs'"):
        short_share(pd.DataFrame({"size": [1]}), 60)
