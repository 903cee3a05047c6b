"""Bounded reading (mopt.core.inputs): regular files only, size, line and nesting limits.

Issue 14, findings 1-3: every hostile file ends in one InputError naming the file (and the limit
and how to raise it), quickly and without growing memory.  The fuzz cases use the shared
settings (``fuzz``) and small limits set through the environment variables, so that each example
stays a few kilobytes.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import threading
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mopt.core import inputs
from mopt.core.errors import InputError
from mopt.core.inputs import check_nesting, limit, read_bytes, read_json, read_text, read_toml
from mopt.core.result import Result
from mopt.scenario import load_scenario
from mopt.vmc.profile import read_table
from mopt.workloads import read_swf
from tests.helpers import count_bad_input, fuzz

RECORD = "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1"


@pytest.fixture
def small_limits(monkeypatch):
    """Limits small enough that a hostile file of a few kilobytes exceeds them."""
    monkeypatch.setenv("MOPT_MAX_INPUT_BYTES", "4K")
    monkeypatch.setenv("MOPT_MAX_LINE_BYTES", "256")
    monkeypatch.setenv("MOPT_MAX_NESTING", "8")


# -- the limits themselves -------------------------------------------------------------------
def test_defaults_and_overrides(monkeypatch):
    for var in ("MOPT_MAX_INPUT_BYTES", "MOPT_MAX_LINE_BYTES", "MOPT_MAX_NESTING", "MOPT_MAX_WORKERS"):
        monkeypatch.delenv(var, raising=False)
    assert limit("input_bytes") == 512 * 2**20
    assert limit("line_bytes") == 2**20
    assert limit("nesting") == 64
    assert limit("workers") == 4 * (os.cpu_count() or 1)
    monkeypatch.setenv("MOPT_MAX_INPUT_BYTES", "3G")  # K, M, G are powers of 1024
    assert limit("input_bytes") == 3 * 2**30
    monkeypatch.setenv("MOPT_MAX_WORKERS", " 7 ")
    assert limit("workers") == 7


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "lots", "K", "1T"])
def test_bad_limit_names_the_variable(monkeypatch, text):
    monkeypatch.setenv("MOPT_MAX_NESTING", text)
    with pytest.raises(InputError, match=f"MOPT_MAX_NESTING must be a positive integer .*got {re.escape(repr(text))}"):
        limit("nesting")


def test_workers_cap(monkeypatch):
    monkeypatch.delenv("MOPT_MAX_WORKERS", raising=False)
    cap = 4 * (os.cpu_count() or 1)
    assert inputs.check_workers("--workers", cap) == cap
    with pytest.raises(InputError, match=rf"'--workers' must be at most {cap} .*MOPT_MAX_WORKERS.*got 1000\."):
        inputs.check_workers("--workers", 1000)
    monkeypatch.setenv("MOPT_MAX_WORKERS", "1000")
    assert inputs.check_workers("--workers", 1000) == 1000


# -- non-regular files -----------------------------------------------------------------------
def _readers(path):
    """Every public way mopt reads a user's file, each as a zero-argument call."""
    return {
        "bytes": lambda: read_bytes(path, "input"),
        "text": lambda: read_text(path, "input"),
        "toml": lambda: read_toml(path, "scenario file"),
        "json": lambda: read_json(path, "metadata"),
        "swf": lambda: read_swf(path),
        "scenario": lambda: load_scenario(path),
        "vmc profile": lambda: read_table(path),
    }


@pytest.mark.parametrize("reader", ["bytes", "text", "toml", "json", "swf", "scenario", "vmc profile"])
def test_fifo_is_refused_without_blocking(tmp_path, reader):
    """A FIFO with no writer would block open() forever: refused from its stat, at once."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    outcome = {}

    def run():
        try:
            _readers(fifo)[reader]()
        except InputError as exc:
            outcome["error"] = str(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=10)
    if worker.is_alive():  # unblock the reader before failing
        with open(fifo, "wb"):
            pass
        pytest.fail("reading a FIFO blocked")
    assert "not a regular file (a FIFO)" in outcome["error"] and str(fifo) in outcome["error"]
    count_bad_input("inputs")


@pytest.mark.parametrize("reader", ["bytes", "text", "toml", "json", "swf", "scenario", "vmc profile"])
def test_dev_zero_is_refused(reader):
    """/dev/zero never ends: refused as a character device before a byte is read."""
    start = time.perf_counter()
    with pytest.raises(InputError, match=r"'/dev/zero' is not a regular file \(a character device\)"):
        _readers("/dev/zero")[reader]()
    assert time.perf_counter() - start < 5
    count_bad_input("inputs")


def test_directory_and_missing(tmp_path):
    with pytest.raises(InputError, match=r"is not a regular file \(a directory\)"):
        read_bytes(tmp_path, "input")
    with pytest.raises(InputError, match=r"'.*nope' does not exist"):
        read_bytes(tmp_path / "nope", "input")


# -- size, lines, gzip -----------------------------------------------------------------------
def test_size_limit_names_file_and_variable(tmp_path, small_limits):
    path = tmp_path / "big.csv"
    path.write_text("x\n" * 2049)  # 4,098 bytes > 4 KiB
    with pytest.raises(InputError, match=r"big\.csv' is too large; the limit is 4,096 bytes \(set "
                                         r"MOPT_MAX_INPUT_BYTES"):
        read_text(path, "CSV file")
    path.write_text("x\n" * 2048)  # exactly the limit: read
    assert len(read_text(path, "CSV file")) == 4096


@fuzz(25)
@given(n_lines=st.integers(0, 5), long_at=st.integers(0, 5), extra=st.integers(1, 3000),
       ending=st.sampled_from(["\n", "\r\n", "\r"]))
def test_fuzz_a_huge_line_is_refused_naming_it(tmp_path_factory, small_limits, n_lines, long_at, extra, ending):
    """A line of 257 .. 3,256 bytes among short ones: refused naming its 1-based line number,
    whatever the line ends (a lone CR counts as a line end, so a CR-only file is not one line)."""
    long_at = min(long_at, n_lines)
    lines = [RECORD] * n_lines
    lines.insert(long_at, "1 " * ((256 + extra) // 2) + "1" * ((256 + extra) % 2))
    assert len(lines[long_at]) == 256 + extra
    path = tmp_path_factory.mktemp("huge") / "t.swf"
    path.write_bytes(ending.join(lines).encode())
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert str(info.value).startswith(f"{path}, line {long_at + 1}: the line is {256 + extra:,} bytes long")
    assert "MOPT_MAX_LINE_BYTES" in str(info.value)
    count_bad_input("inputs")


@fuzz(15)
@given(factor=st.integers(2, 40), member_split=st.booleans())
def test_fuzz_inflating_gzip_is_refused(tmp_path_factory, small_limits, factor, member_split):
    """Gzip data that inflates to ``factor`` x the 4 KiB limit (in one or two members) is refused
    while inflating: no more than the limit (+ one chunk) is ever produced."""
    payload = b"\n" * (4096 * factor)
    packed = gzip.compress(payload)
    if member_split:
        packed = gzip.compress(payload[:10]) + gzip.compress(payload[10:])
    assert len(packed) < 4096  # the compressed file itself is within the size limit
    path = tmp_path_factory.mktemp("bomb") / "t.swf.gz"
    path.write_bytes(packed)
    with pytest.raises(InputError, match=r"inflates beyond the size limit; the limit is 4,096 bytes"):
        read_swf(path)
    count_bad_input("inputs")


def test_gzip_within_the_limit_and_multi_member(tmp_path):
    text = (RECORD + "\n") * 3
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress(text[:20].encode()) + gzip.compress(text[20:].encode()) + b"\0" * 8)
    assert read_bytes(path, "trace", gunzip=True) == text.encode()
    assert len(read_swf(path)) == 3
    path.write_bytes(gzip.compress(text.encode()) + b"junk")
    with pytest.raises(InputError, match=r"line 4: the gzip data is corrupt \(trailing garbage\)"):
        read_swf(path)


def test_large_gzip_bomb_is_refused_quickly(tmp_path, monkeypatch):
    """Finding 2 at scale: 256 KiB of gzip that inflates to 256 MiB of newlines, limit 32 MiB:
    refused after inflating 32 MiB (the old reader inflated it all, then parsed)."""
    monkeypatch.setenv("MOPT_MAX_INPUT_BYTES", "32M")
    packed = gzip.compress(b"\n" * 2**24, compresslevel=9) * 16  # 16 gzip members of 16 MiB
    path = tmp_path / "bomb.swf.gz"
    path.write_bytes(packed)
    start = time.perf_counter()
    with pytest.raises(InputError, match="inflates beyond the size limit"):
        read_swf(path)
    assert time.perf_counter() - start < 30  # about 1 s alone; generous under load


# -- nesting ---------------------------------------------------------------------------------
@fuzz(20)
@given(depth=st.integers(9, 5000), kind=st.sampled_from(["toml-array", "toml-table", "json"]))
def test_fuzz_deep_nesting_is_refused(tmp_path_factory, small_limits, monkeypatch, depth, kind):
    """Nested 9 .. 5,000 deep (Python's recursion limit is 1,000): refused naming the file and the
    limit (8 here), never a RecursionError."""
    monkeypatch.setenv("MOPT_MAX_INPUT_BYTES", "1M")  # room for 5,000 brackets
    monkeypatch.setenv("MOPT_MAX_LINE_BYTES", "1M")
    folder = tmp_path_factory.mktemp("deep")
    if kind == "json":
        path = folder / "result.json"
        path.write_text('{"a": ' + "[" * depth + "]" * depth + "}")
        call = lambda: read_json(path, "metadata")  # noqa: E731
    else:
        path = folder / "s.toml"
        body = "[" * depth + "]" * depth if kind == "toml-array" else "{a = " * depth + "1" + "}" * depth
        path.write_text(f"x = {body}\n")
        call = lambda: load_scenario(path)  # noqa: E731
    with pytest.raises(InputError, match=rf"{re.escape(str(path))}: arrays or tables nested deeper than 8 "
                                         r"levels \(set MOPT_MAX_NESTING"):
        call()
    count_bad_input("inputs")


def test_nesting_at_the_limit_is_read(tmp_path, small_limits):
    # depth counts containers: the top-level table is 1, x's arrays 2 .. 8
    path = tmp_path / "s.toml"
    path.write_text("x = " + "[" * 7 + "]" * 7 + "\n")
    assert read_toml(path, "scenario file")["x"] == [[[[[[[]]]]]]]
    check_nesting({"a": [[1]]}, "here")
    with pytest.raises(InputError, match="here: arrays or tables nested deeper than 8"):
        check_nesting([[[[[[[[[1]]]]]]]]], "here")


def test_huge_integers_name_the_file(tmp_path):
    """Finding 3: a 5,000-digit integer (over Python's 4,300-digit conversion limit)."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"seed": 1}).replace("1", "7" * 5000))
    with pytest.raises(InputError, match=r"result\.json: malformed metadata \(an integer has more than 4,300 digits\)"):
        read_json(path, "metadata")
    toml = tmp_path / "s.toml"
    toml.write_text("[run]\nseed = " + "7" * 5000 + "\n")
    with pytest.raises(InputError, match=r"s\.toml: malformed TOML: an integer has more than 4,300 digits"):
        load_scenario(toml)


def test_result_directory_uses_the_bounds(tmp_path, small_limits):
    """result.json and evaluations.csv of a result directory go through the same bounds."""
    import pandas as pd

    ev = pd.DataFrame({"design": [0, 1], "t": [1.0, 2.0], "c": [2.0, 1.0], "n_reps": [1, 1]})
    Result("exhaustive", 1, 2, ("t", "c"), ev).to_csv(tmp_path)
    assert Result.read_csv(tmp_path).n_evals == 2
    (tmp_path / "evaluations.csv").write_text("design,t,c\n" + "0,1,1\n" * 1000)
    with pytest.raises(InputError, match=r"evaluations\.csv' is too large"):
        Result.read_csv(tmp_path)
    os.unlink(tmp_path / "evaluations.csv")
    os.mkfifo(tmp_path / "evaluations.csv")
    with pytest.raises(InputError, match=r"evaluations\.csv' is not a regular file \(a FIFO\)"):
        Result.read_csv(tmp_path)
