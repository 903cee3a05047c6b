"""Trace cleaning (spec §1 counts), fetching from a local HTTP server, synthetic patterns."""

from __future__ import annotations

import socket

import numpy as np
import pandas as pd
import pytest

from mopt.core.errors import InputError
from mopt.workloads import PATTERNS, clean, fetch, load_trace, read_swf, synthetic
from mopt.workloads import traces as T
from tests.helpers import needs_traces
from tests.workloads.archive_server import archive_fixture  # noqa: F401  (the `archive` fixture)


def test_clean_rules_by_hand():
    # job 2 runs 0 s, job 3 has n_procs -1 (uses req_procs 4), job 4 is wider than MaxProcs 8,
    # job 5 has no processor count at all; size_limit 3 then drops job 3
    df = pd.DataFrame({"job_id": [1, 2, 3, 4, 5], "run_time": [10, 0, 5, 7, 9],
                       "n_procs": [2, 1, -1, 9, -1], "req_procs": [2, 1, 4, 9, -1]})
    df.attrs = {"header": {"MaxProcs": "8", "MaxRecords": "6"}, "n_records": 5}
    out = clean(df)
    assert out["job_id"].tolist() == [1, 3] and out["n_procs"].tolist() == [2, 4]
    assert out.attrs["cleaning"] == {"records": 5, "cleaned": 2, "kept": 2, "max_records": 6,
                                     "records_match": False}
    assert clean(df, size_limit=3)["job_id"].tolist() == [1]
    assert clean(df, max_procs=100)["job_id"].tolist() == [1, 3, 4]


@needs_traces()
@pytest.mark.parametrize("name, cleaned, kept", [
    ("LPC-EGEE", 214_322, 214_322), ("KTH-SP2", 28_467, 28_147), ("SDSC-SP2", 54_034, 53_541)])
def test_clean_reproduces_spec_counts(name, cleaned, kept):
    df = load_trace(name, size_limit=64)
    assert (df.attrs["cleaning"]["cleaned"], len(df)) == (cleaned, kept)


@needs_traces()
def test_ctc_record_mismatch_is_reported():
    df = load_trace("CTC-SP2")
    report = df.attrs["cleaning"]
    assert (report["records"], report["max_records"], report["records_match"]) == \
        (77_222, 79_302, False)


def test_unknown_trace_name():
    with pytest.raises(InputError, match="unknown trace 'KTH'"):
        load_trace("KTH")


def test_malformed_swf_line_named(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text("1 0 0 10 1" + " -1" * 13 + "\n2 0 0 10\n")
    with pytest.raises(InputError, match="bad.swf, line 2"):
        clean(read_swf(path))


# -- fetching from a local server ------------------------------------------------------------------
def test_fetch_good_file_then_from_cache(archive, monkeypatch):
    path = fetch("KTH-SP2", base_url=archive["url"], cache_dir=archive["cache"])
    assert path.read_bytes() == archive["path"].read_bytes()
    archive["path"].unlink()  # the second call must not need the server
    assert fetch("kth-sp2", base_url=archive["url"], cache_dir=archive["cache"]) == path
    # load_trace falls back on fetching when MOPT_DATA_DIR lacks the file
    monkeypatch.setenv("MOPT_DATA_DIR", str(archive["root"]))
    monkeypatch.setenv("MOPT_CACHE_DIR", str(archive["cache"]))
    df = load_trace("KTH-SP2")
    assert len(df) == 1 and df.attrs["trace"] == "KTH-SP2"


def test_fetch_corrupted_file_refused(archive):
    archive["path"].write_bytes(b"not the archive's file")
    with pytest.raises(T.FetchError, match="sha256"):
        fetch("KTH-SP2", base_url=archive["url"], cache_dir=archive["cache"])
    assert not list(archive["cache"].rglob("*.swf.gz"))  # nothing corrupt was kept


def test_fetch_server_down(tmp_path):
    with socket.socket() as s:  # a port with nobody listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(T.FetchError, match="cannot download trace KTH-SP2"):
        fetch("KTH-SP2", base_url=f"http://127.0.0.1:{port}", cache_dir=tmp_path)


# -- synthetic patterns ----------------------------------------------------------------------------
DONOR = pd.DataFrame({"run_time": np.arange(1, 1201), "req_time": np.arange(1, 1201) * 2,
                      "user_id": np.arange(1200) % 7})


def test_synthetic_patterns_by_hand():
    gaps = {p: np.diff(synthetic(p, runtimes=DONOR)["submit_time"].to_numpy()) for p in PATTERNS}
    assert set(gaps["Steady"]) == {300}
    # Increment: 600 s for the first 100 gaps, 530 for the next, ..., clipped at 5 s from 900 on
    assert (gaps["Increment"][0], gaps["Increment"][100], gaps["Increment"][899],
            gaps["Increment"][900]) == (600, 530, 40, 5)
    assert (gaps["Decline"][0], gaps["Decline"][100], gaps["Decline"][998]) == (5, 75, 635)
    # Periodic: 600 -> 10 over 100 jobs and back, 5 cycles
    assert gaps["Periodic"][0] == 600 and gaps["Periodic"][99] == 10 and \
        gaps["Periodic"][199] == 600 and gaps["Periodic"][200] == 600
    # Bursty: 10 bursts of 100 jobs, 5 s apart, one every 30,000 s
    submit = synthetic("Bursty", runtimes=DONOR)["submit_time"].to_numpy()
    assert submit[99] == 495 and submit[100] == 30_000 and submit[-1] == 270_495
    assert len(set(np.asarray(submit) // 30_000)) == 10


def test_synthetic_runtimes_and_seed():
    first = synthetic("Steady", n_jobs=5, runtimes=DONOR)
    assert first["run_time"].tolist() == [1, 2, 3, 4, 5] and set(first["n_procs"]) == {1}
    a = synthetic("Steady", n_jobs=50, runtimes=DONOR, seed=4, n_procs=2)
    b = synthetic("Steady", n_jobs=50, runtimes=DONOR, seed=4, n_procs=2)
    pd.testing.assert_frame_equal(a, b)
    assert (a["req_time"] == 2 * a["run_time"]).all() and set(a["n_procs"]) == {2}


@pytest.mark.parametrize("kwargs, match", [
    ({"pattern": "Spiky"}, "unknown arrival pattern 'Spiky'"),
    ({"n_jobs": 0}, "'n_jobs'"),
    ({"n_jobs": 5000}, "fewer than 'n_jobs'=5000"),
    ({"runtimes": pd.DataFrame({"x": [1]})}, "'runtimes'"),
])
def test_synthetic_bad_input(kwargs, match):
    args = {"pattern": "Steady", "runtimes": DONOR, **kwargs}
    with pytest.raises(InputError, match=match):
        synthetic(**args)


def test_a_trace_cleaning_empties_is_refused_naming_the_file_and_why(tmp_path):
    from mopt.workloads import load_jobs

    wide = tmp_path / "wide.swf"
    wide.write_text("; MaxProcs: 128\n" + "".join(
        f"{k} {10 * k} 0 60 100 -1 -1 100 100 -1 1 1 1 -1 1 -1 -1 -1\n" for k in range(1, 3)))
    with pytest.raises(InputError, match=r"wide\.swf: no job left to simulate: of 2 records, 2 have a run time "
                                         r"> 0, .* and 2 of those are wider than the size limit of 64"):
        load_jobs(str(wide), 64)


def test_clean_drops_a_negative_submit_time():
    # SWF's -1 is "unknown": such a job has no place in the arrival stream (ours; no paper trace has one)
    df = pd.DataFrame({"submit_time": [-1, 0, 5], "run_time": [10, 10, 10], "n_procs": [1, 1, 1]})
    assert clean(df)["submit_time"].tolist() == [0, 5]
