"""Issue #34, item 1: memory bounded by what is asked, checked before it is allocated.

The readers are measured in a fresh interpreter (peak RSS growth from ``ru_maxrss`` after the
imports), at sizes small enough for a shared machine but large enough to tell: the old
``check_lines`` alone took ~26 bytes per input byte (830 MiB for the 32 MiB below), the old SWF
reader ~19 s and 1.4 GB for 50 MiB of newlines.  The refusals are one line naming the option and
the largest value that fits, given before anything big is allocated.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mopt
from mopt.core.errors import InputError
from mopt.core.inputs import available_memory, check_lines, check_memory

ROOT = Path(__file__).resolve().parents[2]
MiB = 2**20
RECORD = "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1"


def _measure(work: str, setup: str = "", env: dict | None = None) -> dict:
    """Run ``work`` in a fresh interpreter after ``setup``: its peak RSS growth (bytes), seconds and
    outcome ("ok" or the exception's type and message)."""
    code = textwrap.dedent(f"""
        import json, resource, time
        {setup}
        base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        start = time.perf_counter()
        try:
            {work}
            outcome = "ok"
        except Exception as exc:
            outcome = f"{{type(exc).__name__}}: {{exc}}"
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(json.dumps({{"growth": (peak - base) * 1024, "seconds": time.perf_counter() - start,
                           "outcome": outcome}}))
    """)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                         env={**os.environ, **(env or {})}, cwd=ROOT)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout.strip().splitlines()[-1])


# -- (a) the readers: memory per line constant, peak a small multiple of what is kept ---------------
def test_a_trace_of_newlines_costs_no_memory_per_line(tmp_path):
    """32 MiB of newlines in a 33 KB gzip: refused as holding no records, within 80 MiB and 20 s
    (before: check_lines alone ~830 MiB; the whole reader 1.4 GB and 19 s for 50 MiB)."""
    path = tmp_path / "nl.swf.gz"
    path.write_bytes(gzip.compress(b"\n" * (32 * MiB), 9))
    got = _measure(f"read_swf({str(path)!r})", "from mopt.workloads.swf import read_swf")
    assert got["outcome"] == f"InputError: {path}: no job records (only comment or blank lines)."
    assert got["growth"] <= 80 * MiB, got
    assert got["seconds"] < 20, got


def test_a_trace_of_comment_lines_costs_no_memory_per_line(tmp_path):
    path = tmp_path / "c.swf"
    path.write_bytes(b";\n" * (12 * MiB))  # 24 MiB of empty comments
    got = _measure(f"read_swf({str(path)!r})", "from mopt.workloads.swf import read_swf")
    assert got["outcome"].endswith("no job records (only comment or blank lines).")
    assert got["growth"] <= 80 * MiB, got
    assert got["seconds"] < 30, got


def test_the_jobs_kept_bound_the_peak(tmp_path):
    """400,000 jobs (18 MiB of text, 58 MB as a frame of 144 bytes a job): the peak is at most twice
    the frame plus 64 MiB of blocks, and the blank lines between them cost nothing."""
    n = 400_000
    path = tmp_path / "jobs.swf.gz"
    path.write_bytes(gzip.compress(b"; MaxProcs: 4\n" + (RECORD.encode() + b"\n\n\n") * n, 6))
    got = _measure(f"df = read_swf({str(path)!r}, clean=True); assert len(df) == {n}",
                   "from mopt.workloads.swf import read_swf")
    assert got["outcome"] == "ok", got
    frame = n * 18 * 8
    assert got["growth"] <= 2 * frame + 64 * MiB, got
    assert got["seconds"] < 30, got


def test_a_text_padded_with_blank_lines_is_checked_in_constant_memory(tmp_path):
    """A 32 MiB CSV of blank lines (the padded evaluations.csv): read_text holds the bytes and
    the text, nothing per line (before: ~26 bytes per byte in check_lines)."""
    path = tmp_path / "evaluations.csv"
    path.write_bytes(b"design,t\n0,1\n" + b"\n" * (32 * MiB))
    got = _measure(f"text = read_text({str(path)!r}, 'CSV file'); assert len(text) > {32 * MiB}",
                   "from mopt.core.inputs import read_text")
    assert got["outcome"] == "ok", got
    assert got["growth"] <= 2 * 32 * MiB + 32 * MiB, got
    assert got["seconds"] < 10, got


def _reference_check(raw: bytes, cap: int):
    """The old check_lines (numpy, 26 bytes a byte): (line, length) of the first longest line over
    ``cap``, or None."""
    if len(raw) <= cap:
        return None
    arr = np.frombuffer(raw, dtype=np.uint8)
    ends = np.flatnonzero((arr == 10) | (arr == 13))
    bounds = np.concatenate(([-1], ends, [len(raw)]))
    lengths = np.diff(bounds) - 1
    over = np.flatnonzero(lengths > cap)
    if not over.size:
        return None
    k = int(over[0])
    before = raw[: bounds[k] + 1]
    line = before.count(b"\n") + before.count(b"\r") - raw.count(b"\r\n", 0, bounds[k] + 1) + 1
    return line, int(lengths[k])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.sampled_from([b"\n", b"\r", b"\r\n", b""])), max_size=30),
       st.integers(1, 20))
def test_fuzz_streaming_check_lines_agrees_with_the_old_one(parts, cap):
    raw = b"".join(b"x" * n + end for n, end in parts)
    want = _reference_check(raw, cap)
    with mock.patch.dict(os.environ, {"MOPT_MAX_LINE_BYTES": str(cap)}):
        if want is None:
            check_lines(raw, "text", "t.txt")
            return
        with pytest.raises(InputError) as info:
            check_lines(raw, "text", "t.txt")
    assert str(info.value).startswith(f"t.txt, line {want[0]}: the line is {want[1]:,} bytes long"), (raw, cap)


# -- (b) replication counts checked before they are allocated ---------------------------------------
def test_check_memory_names_the_option_and_the_largest_value_that_fits(monkeypatch):
    monkeypatch.setenv("MOPT_MAX_MEMORY", "1M")
    check_memory("n_reps", 2**20 // 16, 16.0)  # exactly fits
    with pytest.raises(InputError) as info:
        check_memory("n_reps", 2**20 // 16 + 1, 16.0)
    assert str(info.value).endswith("(MOPT_MAX_MEMORY): at most 'n_reps' = 65,536.")
    monkeypatch.delenv("MOPT_MAX_MEMORY")
    assert 2**20 < available_memory() < 2**50


def _cli(tmp_path, *args) -> tuple[int, str, int]:
    """``mopt ARGS`` in a fresh process: exit code, stderr, and its peak RSS (bytes)."""
    code = textwrap.dedent(f"""
        import resource, subprocess, sys
        run = subprocess.run([sys.executable, "-m", "mopt", *{list(map(str, args))!r}], capture_output=True, text=True)
        sys.stderr.write(run.stderr)
        print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
    """)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("MOPT_MAX_MEMORY", None)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                         env=env)
    rc, peak = map(int, run.stdout.split())
    return rc, run.stderr.strip(), peak


def _scenario(tmp_path, example: str, n_reps: int) -> Path:
    text = (ROOT / "examples" / example).read_text()
    text, n = re.subn(r"(?m)^n_reps = \d+", f"n_reps = {n_reps}", text)
    assert n == 1
    path = tmp_path / example
    path.write_text(text)
    return path


def _refused(rc: int, err: str, peak: int, option: str) -> int:
    """The one-line refusal naming ``option``; returns the largest value it offers."""
    assert rc == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    match = re.fullmatch(rf"mopt: error: '{re.escape(option)}' = [\d,]+ needs about [\d.,]+ GiB of memory \(.*\); "
                         rf"this machine has [\d.,]+ [GM]iB \(.*\): at most '{re.escape(option)}' = ([\d,]+)\.", lines[0])
    assert match, err
    assert peak < 600 * MiB, peak  # before: killed at 23.5 GB, 18.5 GB, 7.8 GB
    return int(match.group(1).replace(",", ""))


def test_frontier_refine_beyond_memory_is_refused_before_simulating(tmp_path):
    rc, err, peak = _cli(tmp_path, "frontier", ROOT / "examples/vmc_partition.toml", "--refine", 10**12,
                         "--out", tmp_path / "o")
    largest = _refused(rc, err, peak, "--refine")
    assert 0 < largest < 10**12
    assert not (tmp_path / "o" / "result.json").exists()


def test_vmc_n_reps_beyond_memory_is_refused(tmp_path):
    rc, err, peak = _cli(tmp_path, "frontier", _scenario(tmp_path, "vmc_partition.toml", 10**8), "--out", tmp_path / "o")
    assert 0 < _refused(rc, err, peak, "n_reps") < 10**8


def test_expert_n_reps_beyond_memory_is_refused(tmp_path):
    rc, err, peak = _cli(tmp_path, "frontier", _scenario(tmp_path, "reference.toml", 10**9), "--out", tmp_path / "o")
    assert 0 < _refused(rc, err, peak, "n_reps") < 10**9


def test_compare_truth_reps_beyond_memory_is_refused(tmp_path):
    rc, err, peak = _cli(tmp_path, "compare", ROOT / "examples/vmc_partition.toml", "--methods", "oo,blind_pick",
                         "--budgets", 100, "--macroreps", 2, "--truth-reps", 10**9, "--out", tmp_path / "o")
    assert 0 < _refused(rc, err, peak, "--truth-reps") < 10**9


def test_the_api_refuses_too_before_simulating(monkeypatch):
    """solve (n_reps and budget), refine (budget) and compare (truth_reps) under a 64 MiB cap."""
    prob = mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.5, n_reps=4)
    first = mopt.solve(prob, "exhaustive", seed=1)
    monkeypatch.setenv("MOPT_MAX_MEMORY", "64M")
    with pytest.raises(InputError, match=r"^'budget' = 1,000,000,000 needs about .* at most 'budget' = [\d,]+\.$"):
        mopt.solve(prob, "exhaustive", budget=10**9, seed=1)
    big = mopt.NormalProblem([[1, 5], [2, 2], [5, 1]], sd=0.5, n_reps=10**8)
    with pytest.raises(InputError, match=r"^'n_reps' = 100,000,000 needs about .* at most 'n_reps' = [\d,]+\.$"):
        mopt.solve(big, "exhaustive", seed=1)
    with pytest.raises(InputError, match=r"^'budget' = 1,000,000,000 needs about .*beside 12 held"):
        mopt.refine(first, prob, 10**9)
    with pytest.raises(InputError, match=r"^'truth_reps' = 1,000,000,000 needs about"):
        mopt.compare(prob, ["exhaustive"], [12], 1, seed=1, truth_reps=10**9)
    assert len(mopt.solve(prob, "exhaustive", budget=30, seed=1).evaluations) == 3  # small runs still run


# -- (c) a huge ExPERT grid: counted and refused before any table is built ---------------------------
def test_a_huge_expert_grid_is_refused_before_it_is_built(tmp_path):
    """N = 0..999, T = 0..999, D = 1..1000 (2 x 10^9 strategies): before, memory grew ~10 MB/s in
    NTDMrProblem.__init__ with no end in sight."""
    text = (ROOT / "examples" / "reference.toml").read_text()
    grid = f"N = {list(range(1000))}\nT = {list(range(1000))}\nD = {list(range(1, 1001))}\n"
    text, n = re.subn(r'(?m)^preset = "paper".*$', grid, text)
    assert n == 1
    path = tmp_path / "huge.toml"
    path.write_text(text)
    rc, err, peak = _cli(tmp_path, "frontier", path, "--out", tmp_path / "o")
    assert rc == 2 and len(err.splitlines()) == 1, err
    assert "the strategy grid has 2,005,996,000 strategies with T <= D (1,000 N x 501,499 (T, D) pairs x 4 Mr), " \
           "more than the 10,000,000 designs mopt enumerates" in err, err
    assert peak < 600 * MiB, peak


def test_the_expert_grid_built_in_arrays_is_the_grid_of_the_loops():
    """The vectorised enumeration gives the designs (and the count left out) of the old loops, in
    the same order, on random grids; 2.7 million designs build in about a second."""
    import math
    import time

    from mopt.expert import reference_environment
    from mopt.expert.estimator import can_finish
    from mopt.expert.problem import NTDMrProblem
    from mopt.expert.strategy import Strategy

    def loops(env, g):
        rows, excluded = [], 0
        for a, n in enumerate(g["N"]):
            for b, t in enumerate(g["T"]):
                for c, d in enumerate(g["D"]):
                    if t > d:
                        continue
                    for e, mr in enumerate(g["Mr"]):
                        if math.isinf(n) and e > 0:
                            break
                        if not can_finish(Strategy(n, t, d, mr), env):
                            excluded += 1
                            continue
                        rows.append((a, b, c, e))
        return rows, excluded

    rng = np.random.default_rng(3)
    checked = 0
    for mr_max in (0.1, 0.5):
        env = reference_environment(mr_max)
        for k in range(15):
            kw = {} if k == 0 else dict(
                N=list(rng.choice([0, 1, 2, 3, 5, math.inf], rng.integers(1, 5), replace=False)),
                T=list(rng.uniform(0, 9000, rng.integers(1, 7)).round()),
                D=list(rng.uniform(1, 9000, rng.integers(1, 7)).round() + 1),
                Mr=list(rng.choice([0.0, 0.02, 0.05, 0.1], rng.integers(1, 4), replace=False)))
            try:
                prob = NTDMrProblem(env, **kw)
            except InputError as exc:
                assert "no design with T <= D that can finish" in str(exc)
                continue
            rows, excluded = loops(env, prob.grid)
            assert [tuple(r) for r in prob._x.tolist()] == rows, kw
            assert prob.n_excluded == excluded
            assert all(prob.index(prob.design(i)) == i for i in range(prob.n_designs))
            checked += 1
    assert checked >= 20
    start = time.perf_counter()
    big = NTDMrProblem(reference_environment(0.1), N=list(range(20)), T=list(range(0, 3000, 20)),
                       D=list(range(20, 6020, 20)))
    assert big.n_designs == 2_717_920 and time.perf_counter() - start < 15
    with pytest.raises(InputError, match=r"is not a design of this grid"):
        big.index([0, 149, 0, 0])  # T > D
