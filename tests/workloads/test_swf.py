"""read_swf and find_trace: hand-checked small traces, the six real traces, and fuzzed bad input."""

from __future__ import annotations

import doctest
import gzip
import os
import re
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mopt.workloads
import mopt.workloads.swf
from mopt.core.errors import InputError
from mopt.workloads import SWF_COLUMNS, find_trace, read_swf
from mopt.workloads.swf import _decode, _parse_fast, _parse_slow, _read_bytes
from tests.helpers import count_bad_input

# -- a small hand-written trace --------------------------------------------------------------------
SMALL = """\
; Version: 2.2
; Computer: Test cluster
; MaxRecords: 5
; MaxProcs: 8
; Note: first note
; Note: second note
;       continued note
; Information: http://example.org/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
;
    1      0     10    100    4   95.5  -1    4    200   -1  1  1  1  -1  1  -1  -1  -1
    2     30      0     -1    2     -1  -1    2    100   -1  5  2  1  -1  1  -1  -1  -1
; a comment between records
    3     60      5     50    0     -1  -1    1    100   -1  0  1  1  -1  1  -1  -1  -1
    4     90     20    300   16     -1  -1   16    600   -1  1  3  2  -1  2  -1   1  30
    5    120      0     40    8     -1  -1    8     60   -1  1  3  2  -1  2  -1   4  10
"""
SMALL_RECORDS = [
    [1, 0, 10, 100, 4, 95.5, -1, 4, 200, -1, 1, 1, 1, -1, 1, -1, -1, -1],
    [2, 30, 0, -1, 2, -1, -1, 2, 100, -1, 5, 2, 1, -1, 1, -1, -1, -1],
    [3, 60, 5, 50, 0, -1, -1, 1, 100, -1, 0, 1, 1, -1, 1, -1, -1, -1],
    [4, 90, 20, 300, 16, -1, -1, 16, 600, -1, 1, 3, 2, -1, 2, -1, 1, 30],
    [5, 120, 0, 40, 8, -1, -1, 8, 60, -1, 1, 3, 2, -1, 2, -1, 4, 10],
]
RECORD = "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1"  # one valid record


def _write(path: Path, text: str | bytes, *, compress: bool = False) -> Path:
    data = text.encode() if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def test_columns_are_the_18_swf_fields():
    assert SWF_COLUMNS == (
        "job_id", "submit_time", "wait_time", "run_time", "n_procs", "avg_cpu_time",
        "used_memory", "req_procs", "req_time", "req_memory", "status", "user_id", "group_id",
        "executable", "queue", "partition", "preceding_job", "think_time",
    )  # fmt: skip
    # the SWF reader's public names
    assert {"SWF_COLUMNS", "find_trace", "read_swf"} <= set(mopt.workloads.__all__)


def test_small_trace_values_dtypes_and_attrs(tmp_path):
    path = _write(tmp_path / "small.swf", SMALL)
    df = read_swf(path)
    assert list(df.columns) == list(SWF_COLUMNS)
    assert df.to_numpy().tolist() == SMALL_RECORDS
    assert df.index.tolist() == [0, 1, 2, 3, 4]
    # -1 stays -1 (missing), integers stay int64; avg_cpu_time is always float
    assert df["avg_cpu_time"].dtype == np.float64
    assert all(df[c].dtype == np.int64 for c in SWF_COLUMNS if c != "avg_cpu_time")
    assert df.loc[1, "run_time"] == -1 and df.loc[0, "avg_cpu_time"] == 95.5
    assert df.attrs["source"] == str(path) and df.attrs["n_records"] == 5


def test_header_keys_repeats_and_continuations(tmp_path):
    header = read_swf(_write(tmp_path / "small.swf", SMALL)).attrs["header"]
    assert header == {
        "Version": "2.2",
        "Computer": "Test cluster",
        "MaxRecords": "5",
        "MaxProcs": "8",
        "Note": "first note\nsecond note\ncontinued note",
        "Information": "http://example.org/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/",
    }  # the comment after the blank ';' line has no key and is not header


@pytest.mark.parametrize("suffix", [".swf.gz", ".swf"])  # gzip found by magic bytes, not suffix
def test_gzip_reads_the_same(tmp_path, suffix):
    plain = read_swf(_write(tmp_path / "small.swf", SMALL))
    packed = read_swf(_write(tmp_path / f"packed{suffix}", SMALL, compress=True))
    assert packed.equals(plain) and packed.attrs["header"] == plain.attrs["header"]


def test_cleaning_counts(tmp_path):
    path = _write(tmp_path / "small.swf", SMALL)
    # job 2 has run time -1, job 3 has 0 processors, job 4 has 16 > MaxProcs = 8
    assert read_swf(path, clean=True)["job_id"].tolist() == [1, 5]
    assert read_swf(path, clean=True, max_procs=16)["job_id"].tolist() == [1, 4, 5]
    assert read_swf(path, size_limit=4)["job_id"].tolist() == [1, 2, 3]
    assert read_swf(path, clean=True, size_limit=4)["job_id"].tolist() == [1]
    cleaned = read_swf(path, clean=True)
    assert cleaned.index.tolist() == [0, 1] and cleaned.attrs["n_records"] == 5
    # without MaxProcs (or with MaxProcs -1) there is no upper bound
    for text in (
        SMALL.replace("; MaxProcs: 8\n", ""),
        SMALL.replace("MaxProcs: 8", "MaxProcs: -1"),
    ):
        assert read_swf(_write(tmp_path / "x.swf", text), clean=True)["job_id"].tolist() == [
            1,
            4,
            5,
        ]


def test_lenient_layouts(tmp_path):
    """CRLF, a byte-order mark, tabs, indented and trailing comments, no final newline,
    exponents and fractional values all read; a fractional value makes its column float."""
    text = (
        "\ufeff; MaxProcs: 4\r\n"
        "\t1\t0\t3\t60\t2\t-1\t-1\t2\t120\t-1\t1\t1\t1\t-1\t1\t-1\t-1\t-1 ; trailing\r\n"
        "   ; indented comment\r\n"
        "\r\n"
        "2 1e1 +0 6E1 2 0.5 1.5 2 120 -1 1 1 1 -1 1 -1 -1 -1"
    )
    df = read_swf(_write(tmp_path / "odd.swf", text))
    assert df["submit_time"].tolist() == [0, 10] and df["submit_time"].dtype == np.int64
    assert df["run_time"].tolist() == [60, 60]
    assert df["used_memory"].tolist() == [-1.0, 1.5] and df["used_memory"].dtype == np.float64
    assert df["avg_cpu_time"].tolist() == [-1.0, 0.5]
    assert df.attrs["header"] == {"MaxProcs": "4"}


def test_fast_and_slow_paths_agree_on_a_real_layout(tmp_path):
    raw = _read_bytes(str(_write(tmp_path / "small.swf", SMALL)))
    np.testing.assert_array_equal(_parse_fast(raw), _parse_slow(_decode(raw, "x"), "x"))


# -- hand-written bad input ------------------------------------------------------------------------
def _lines(*records: str) -> str:
    return "; Version: 2.2\n;\n" + "".join(f"{r}\n" for r in records)


def _with(field: int, token: str) -> str:
    """RECORD with its 1-based ``field`` replaced by ``token``."""
    tokens = RECORD.split()
    tokens[field - 1] = token
    return " ".join(tokens)


NOT_FINITE_MSG = "must be a finite number; got"
BAD_CASES = {
    "17 fields": (RECORD.rsplit(" ", 1)[0], "expected 18 fields, got 17."),
    "19 fields": (RECORD + " 7", "expected 18 fields, got 19."),
    "a word": (_with(4, "abc"), "field 4 ('run_time') is not a number: 'abc'."),
    "nan": (_with(4, "nan"), f"field 4 ('run_time') {NOT_FINITE_MSG} 'nan'."),
    "-inf": (_with(5, "-inf"), f"field 5 ('n_procs') {NOT_FINITE_MSG} '-inf'."),
    "overflow": (_with(3, "1e999"), "field 3 ('wait_time') is out of range: '1e999'."),
    "two dots": (_with(9, "1.2.0"), "field 9 ('req_time') is not a number: '1.2.0'."),
    "hex": (_with(1, "0x1"), "field 1 ('job_id') is not a number: '0x1'."),
    "bool": (_with(18, "True"), "field 18 ('think_time') is not a number: 'True'."),
    "semicolon": (RECORD.replace(" -1 2 ", " -1 ;2 ", 1), "expected 18 fields, got 7."),
}


@pytest.mark.parametrize("case", list(BAD_CASES))
def test_bad_record_names_file_line_and_fault(tmp_path, case):
    bad, message = BAD_CASES[case]
    path = _write(tmp_path / "trace.swf", _lines(RECORD, RECORD, bad, RECORD))
    with pytest.raises(InputError, match=re.escape(f"{path}, line 5: {message}")):
        read_swf(path)


def test_missing_empty_and_recordless_files(tmp_path):
    with pytest.raises(
        InputError, match=re.escape(f"SWF trace not found: '{tmp_path / 'no.swf'}'")
    ):
        read_swf(tmp_path / "no.swf")
    with pytest.raises(InputError, match="is a directory"):
        read_swf(tmp_path)
    with pytest.raises(
        InputError, match=re.escape(f"{tmp_path / 'e.swf'}: no job records (the file is empty)")
    ):
        read_swf(_write(tmp_path / "e.swf", ""))
    with pytest.raises(InputError, match="no job records \\(only comment or blank lines\\)"):
        read_swf(_write(tmp_path / "h.swf", "; Version: 2.2\n;\n\n   \n"))
    with pytest.raises(InputError, match="no job records"):
        read_swf(_write(tmp_path / "h.swf.gz", "; MaxProcs: 4\n", compress=True))


def test_binary_and_broken_gzip(tmp_path):
    path = _write(tmp_path / "bin.swf", _lines(RECORD).encode() + b"\x89PNG\r\n\x1a\n\xff\x00")
    with pytest.raises(
        InputError, match=re.escape(f"{path}, line 4: not UTF-8 text (byte 0x89 at column 1)")
    ):
        read_swf(path)
    packed = gzip.compress(_lines(RECORD, RECORD, RECORD).encode())
    truncated = _write(tmp_path / "cut.swf.gz", packed[:-12])
    with pytest.raises(
        InputError, match=re.escape(f"{truncated}, line ") + r"\d+: the gzip data ends early"
    ):
        read_swf(truncated)
    corrupt = _write(tmp_path / "crc.swf.gz", packed[:-8] + bytes(8))  # wrong CRC and length
    with pytest.raises(InputError, match=r"line 6: the gzip data is corrupt"):
        read_swf(corrupt)


def test_bad_keywords_and_bad_header(tmp_path):
    path = _write(tmp_path / "small.swf", SMALL)
    with pytest.raises(InputError, match="'max_procs' applies only with clean=True"):
        read_swf(path, max_procs=8)
    with pytest.raises(InputError, match="'size_limit' must be an integer >= 1; got 0"):
        read_swf(path, size_limit=0)
    with pytest.raises(InputError, match="'max_procs' must be an integer >= 1; got -3"):
        read_swf(path, clean=True, max_procs=-3)
    with pytest.raises(InputError, match="'clean' must be True or False; got 'yes'"):
        read_swf(path, clean="yes")
    bad = _write(tmp_path / "bad.swf", SMALL.replace("MaxProcs: 8", "MaxProcs: many"))
    assert len(read_swf(bad)) == 5  # the header is only used when cleaning
    with pytest.raises(
        InputError,
        match=re.escape(f"{bad}, line 4: header 'MaxProcs' must be an integer; got 'many'"),
    ):
        read_swf(bad, clean=True)
    assert len(read_swf(bad, clean=True, max_procs=8)) == 2


# -- find_trace ------------------------------------------------------------------------------------
def test_find_trace(tmp_path, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    with pytest.raises(InputError, match="MOPT_DATA_DIR is not set.*'KTH'"):
        find_trace("KTH")
    monkeypatch.setenv("MOPT_DATA_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(
        InputError, match=re.escape(f"MOPT_DATA_DIR='{tmp_path / 'nowhere'}' is not a directory")
    ):
        find_trace("KTH")
    monkeypatch.setenv("MOPT_DATA_DIR", str(tmp_path))
    with pytest.raises(
        InputError,
        match=re.escape(
            f"trace 'KTH' not found in MOPT_DATA_DIR='{tmp_path}'; tried '{tmp_path / 'KTH'}'"
        ),
    ):
        find_trace("KTH")
    (tmp_path / "traces").mkdir()
    _write(tmp_path / "traces" / "KTH.swf.gz", SMALL, compress=True)
    assert find_trace("KTH") == tmp_path / "traces" / "KTH.swf.gz"
    _write(tmp_path / "KTH.swf", SMALL)
    assert find_trace("KTH") == tmp_path / "KTH.swf"
    assert find_trace("KTH.swf.gz") == tmp_path / "traces" / "KTH.swf.gz"


def test_docstring_examples(monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    result = doctest.testmod(mopt.workloads.swf, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0


# -- the real traces (README of the data directory) ------------------------------------------------
TRACES = {  # file -> (records, MaxProcs, jobs left by clean=True, counted independently with awk)
    "KTH-SP2-1996-2.1-cln.swf.gz": (28_476, "100", 28_467),
    "SDSC-SP2-1998-4.2-cln.swf.gz": (59_715, "128", 54_034),
    "CTC-SP2-1996-3.1-cln.swf.gz": (77_222, "338", 77_205),
    "SDSC-BLUE-2000-4.2-cln.swf.gz": (243_306, "1152", None),
    "LPC-EGEE-2004-1.2-cln.swf.gz": (234_889, "140", 214_322),
    "LCG-2005-1.swf.gz": (188_041, "24515", None),
}


def _trace(name: str) -> Path:
    if not os.environ.get("MOPT_DATA_DIR"):
        pytest.skip("MOPT_DATA_DIR is not set")
    try:
        return find_trace(name)
    except InputError as err:
        pytest.skip(str(err))


@pytest.mark.parametrize("name", list(TRACES))
def test_real_trace_record_counts(name):
    n_records, max_procs, n_clean = TRACES[name]
    df = read_swf(_trace(name))
    assert len(df) == n_records == df.attrs["n_records"]
    assert df.attrs["header"]["MaxProcs"] == max_procs
    assert df["job_id"].is_monotonic_increasing and df["job_id"].is_unique
    if n_clean is not None:
        cleaned = df[(df.run_time > 0) & (df.n_procs > 0) & (df.n_procs <= int(max_procs))]
        assert len(cleaned) == n_clean


def test_kth_header_first_record_and_cleaning():
    path = _trace("KTH-SP2-1996-2.1-cln.swf.gz")
    df = read_swf(path)
    header = df.attrs["header"]
    assert header["MaxRecords"] == "28476" and header["MaxJobs"] == "28490"
    assert header["Installation"] == "Swedish Royal Institute of Technology (KTH)"
    assert header["Information"] == (
        "http://www.pdc.kth.se/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"
    )
    first = [15, 599850, 192180, 3477, 4, -1, -1, 4, 53940, -1, 1, 12, 12, -1, -1, -1, -1, -1]
    assert df.iloc[0].tolist() == first
    last = ["job_id", "submit_time", "wait_time", "run_time", "n_procs"]
    assert df.iloc[-1][last].tolist() == [28490, 29363618, 720, 8, 1]
    assert len(read_swf(path, clean=True)) == 28_467
    assert len(read_swf(path, clean=True, size_limit=64)) == 28_147  # SC13's size limit
    assert len(read_swf(path, size_limit=32)) == 27_318
    raw = _read_bytes(str(path))  # the line-by-line reference grammar gives the same numbers
    np.testing.assert_array_equal(_parse_slow(_decode(raw, "x"), "x"), _parse_fast(raw))


def test_lpc_egee_right_aligned_header():
    header = read_swf(_trace("LPC-EGEE-2004-1.2-cln.swf.gz"), size_limit=1).attrs["header"]
    assert header["MaxProcs"] == "140" and header["MaxNodes"] == "70  (dual)"
    assert header["Queue"].split("\n") == [
        "1   test", "2   short", "3   long", "4   day", "5   infinite", "6   batch"
    ]  # fmt: skip
    assert header["Note"].startswith("THIS IS A CLEANED VERSION OF THE LOG\n9932 jobs were removed")


# -- fuzzed bad input ------------------------------------------------------------------------------
NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
HEADER = ["; Version: 2.2", "; MaxProcs: 128", "; Note: fuzz", ";", "  ; indented", ""]
SEPARATORS = st.sampled_from([" ", "  ", "\t", " \t ", "      "])


@st.composite
def valid_lines(draw):
    """Lines of a valid SWF file and its records."""
    lines = draw(st.lists(st.sampled_from(HEADER), max_size=3))
    records = []
    for _ in range(draw(st.integers(1, 6))):
        values = draw(st.lists(st.integers(-1, 10**7), min_size=18, max_size=18))
        sep = draw(SEPARATORS)
        lead, trail = (
            draw(st.sampled_from(["", " ", "\t"])),
            draw(st.sampled_from(["", " ", " ;x"])),
        )
        lines.append(lead + sep.join(map(str, values)) + trail)
        records.append(values)
        if draw(st.integers(0, 4)) == 0:
            lines.append(draw(st.sampled_from(HEADER)))
    return lines, records


@st.composite
def tokens_with_one_bad(draw, bad_token):
    """18 valid number tokens, one replaced by ``bad_token``; returns (line, field index)."""
    tokens = [str(v) for v in draw(st.lists(st.integers(-1, 10**6), min_size=18, max_size=18))]
    field = draw(st.integers(0, 17))
    tokens[field] = draw(bad_token)
    return draw(SEPARATORS).join(tokens), field


def _check_bad(path: Path, lines: list[str], position: int, bad: str | bytes, must: str = ""):
    """Write ``lines`` with ``bad`` inserted at ``position``; the error names file and line."""
    parts = [line.encode() for line in lines]
    parts.insert(position, bad if isinstance(bad, bytes) else bad.encode())
    path.write_bytes(b"\n".join(parts) + b"\n")
    with pytest.raises(InputError) as info:
        read_swf(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line {position + 1}: "), message
    assert must in message, message
    count_bad_input("swf")


FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def fuzz_path(tmp_path_factory):
    return tmp_path_factory.mktemp("swf_fuzz") / "fuzzed-trace.swf"


@FUZZ
@given(valid_lines(), st.data(), st.integers(1, 40).filter(lambda k: k != 18))
def test_fuzz_wrong_field_count(fuzz_path, base, data, n_fields):
    lines, _ = base
    position = data.draw(st.integers(0, len(lines)))
    bad = " ".join(
        str(v)
        for v in data.draw(st.lists(st.integers(-1, 999), min_size=n_fields, max_size=n_fields))
    )
    _check_bad(fuzz_path, lines, position, bad, f"expected 18 fields, got {n_fields}.")


JUNK_TEXT = st.text(
    st.characters(codec="utf-8", exclude_characters=" \t\n\r;\ufeff"), min_size=1, max_size=8
).filter(lambda t: not NUMBER.fullmatch(t))
#: tokens made only of number characters that pass the fast path's byte check but are no number
JUNK_NUMBER = st.text("0123456789+-.eE", min_size=1, max_size=8).filter(
    lambda t: not NUMBER.fullmatch(t)
)
NOT_FINITE = st.sampled_from(
    ["nan", "NaN", "-nan", "inf", "-inf", "+Inf", "Infinity", "1e999", "-2.5E400"]
)


@settings(FUZZ, max_examples=120)
@given(valid_lines(), st.data(), st.sampled_from(["text", "number", "not finite"]))
def test_fuzz_bad_token(fuzz_path, base, data, kind):
    lines, _ = base
    junk = {"text": JUNK_TEXT, "number": JUNK_NUMBER, "not finite": NOT_FINITE}[kind]
    bad, field = data.draw(tokens_with_one_bad(junk))
    position = data.draw(st.integers(0, len(lines)))
    _check_bad(fuzz_path, lines, position, bad, f"field {field + 1} ({SWF_COLUMNS[field]!r})")


@settings(FUZZ, max_examples=100)
@given(valid_lines(), st.data())
def test_fuzz_binary_junk_line(fuzz_path, base, data):
    lines, _ = base
    junk = data.draw(st.binary(max_size=30)).translate(None, b"\n\r;")
    cut = data.draw(st.integers(0, len(junk)))  # one byte no number or separator can hold
    junk = (
        junk[:cut]
        + data.draw(st.sampled_from([b"\x00", b"\x01", b"\x0b", b"\x80", b"\xff", b"#", b"x"]))
        + junk[cut:]
    )
    position = data.draw(st.integers(0, len(lines)))
    if position == 0:  # would be taken for gzip data / a byte-order mark
        junk = b"?" + junk
    _check_bad(fuzz_path, lines, position, junk)


@settings(FUZZ, max_examples=50)
@given(valid_lines(), st.data())
def test_fuzz_comment_or_carriage_return_inside_a_record(fuzz_path, base, data):
    lines, _ = base
    tokens = [str(v) for v in data.draw(st.lists(st.integers(-1, 999), min_size=18, max_size=18))]
    gap = data.draw(st.integers(1, 17))
    joint = data.draw(st.sampled_from([" ;", ";", "\r", " \r "]))
    bad = " ".join(tokens[:gap]) + joint + " ".join(tokens[gap:])
    position = data.draw(st.integers(0, len(lines)))
    must = f"expected 18 fields, got {gap}." if ";" in joint else ""
    _check_bad(fuzz_path, lines, position, bad, must)


@settings(FUZZ, max_examples=40)
@given(valid_lines(), st.data())
def test_fuzz_non_utf8_header_line(fuzz_path, base, data):
    lines, _ = base
    lead = data.draw(st.text("abc :", max_size=10)).encode()
    bad = b"; Note: " + lead + bytes([data.draw(st.integers(0x80, 0xFF))]) + b"x"
    position = data.draw(st.integers(0, len(lines)))
    _check_bad(fuzz_path, lines, position, bad, "not UTF-8 text")


@settings(FUZZ, max_examples=60)
@given(valid_lines(), st.data())
def test_fuzz_truncated_gzip(fuzz_path, base, data):
    lines, _ = base
    packed = gzip.compress(("\n".join(lines) + "\n").encode())
    cut = data.draw(st.integers(2, len(packed) - 1))
    path = fuzz_path.with_suffix(".gz")
    path.write_bytes(packed[:cut])
    line = zlib.decompressobj(wbits=31).decompress(packed[:cut]).count(b"\n") + 1
    with pytest.raises(InputError) as info:
        read_swf(path)
    assert str(info.value) == f"{path}, line {line}: the gzip data ends early (truncated file)."
    count_bad_input("swf")


@settings(FUZZ, max_examples=60)
@given(valid_lines(), st.booleans())
def test_fuzz_valid_files_read_exactly(fuzz_path, base, crlf):
    """The other side of the fuzz: any valid layout reads to exactly the numbers written."""
    lines, records = base
    fuzz_path.write_bytes(("\r\n" if crlf else "\n").join(lines).encode())
    df = read_swf(fuzz_path)
    assert df.to_numpy().tolist() == records
    raw = _read_bytes(str(fuzz_path))
    np.testing.assert_array_equal(_parse_slow(_decode(raw, "x"), "x"), np.array(records, float))


# -- issue 14, finding 1: long plain numbers, lone CR line ends --------------------------------
LONG_NUMBER = st.builds(
    lambda sign, digits, point: sign + digits[: point] + ("." + digits[point:] if point < len(digits) else ""),
    st.sampled_from(["", "+", "-"]), st.text("0123456789", min_size=300, max_size=400), st.integers(300, 400),
)


@settings(FUZZ, max_examples=40)
@given(valid_lines(), st.data(), tokens_with_one_bad(LONG_NUMBER))
def test_fuzz_long_plain_number(fuzz_path, base, data, bad):
    """A field of 300-400 digits without an exponent: read as its float64 value when that is
    finite (fewer than 309 integer digits after leading zeros), else refused naming the line and
    the field as out of range (it was read as inf and accepted)."""
    lines, _ = base
    line, field = bad
    token = line.split()[field]
    position = data.draw(st.integers(0, len(lines)))
    from mopt.workloads.swf import _TIME_COLUMNS, MAX_TIME

    column = SWF_COLUMNS[field]
    if np.isfinite(float(token)) and column in _TIME_COLUMNS and abs(float(token)) > MAX_TIME:
        # a finite time beyond every trace reader's bound: refused with its line and field
        _check_bad(fuzz_path, lines, position, line, f"field {field + 1} ({column!r}) must be at most 1e+12 s")
    elif np.isfinite(float(token)):
        lines.insert(position, line)
        fuzz_path.write_text("\n".join(lines) + "\n")
        df = read_swf(fuzz_path)
        assert float(token) in df[column].to_numpy(dtype=float)
    else:
        _check_bad(fuzz_path, lines, position, line, f"field {field + 1} ({SWF_COLUMNS[field]!r}) is out of range")


@settings(FUZZ, max_examples=30)
@given(valid_lines())
def test_fuzz_lone_cr_line_ends_read_as_lines(fuzz_path, base):
    """Old-Mac line ends (CR only) read exactly as LF ones: the header and every record."""
    lines, records = base
    fuzz_path.write_bytes("\n".join(lines).encode())
    header = read_swf(fuzz_path).attrs["header"]
    fuzz_path.write_bytes("\r".join(lines).encode())
    df = read_swf(fuzz_path)
    assert df.to_numpy().tolist() == records
    assert df.attrs["header"] == header
    if "; MaxProcs: 128" in lines:
        assert df.attrs["header"]["MaxProcs"].split("\n")[0] == "128"  # a repeated key keeps each value


def test_a_fractional_processor_count_is_refused_with_its_line(tmp_path):
    # SWF field 5 (allocated processors) and 8 (requested) are integers: 2.5 processors would be
    # simulated as 2.5 VMs' worth of work; the 5th line holds the second record
    path = tmp_path / "frac.swf"
    path.write_text("; MaxProcs: 64\n1 0 0 60 2 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n; c\n\n"
                    "2 10 0 60 2.5 -1 -1 2 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(InputError, match=r"frac\.swf, line 5: field 5 \('n_procs'\) must be a whole number of "
                                         r"processors; got 2\.5"):
        read_swf(path)
    path.write_text("1 0 0 60 2 -1 -1 3.25 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(InputError, match=r"line 1: field 8 \('req_procs'\) .* got 3\.25"):
        read_swf(path)


def test_a_time_beyond_the_one_bound_is_refused_with_its_line(tmp_path):
    # every trace reader shares the bound (the cloud simulator's 1e12 s); KOALA-C ran for ever on 1e22
    from mopt.workloads.swf import MAX_TIME

    path = tmp_path / "huge.swf"
    path.write_text("1 0 0 60 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n2 5 0 1e22 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    with pytest.raises(InputError, match=r"huge\.swf, line 2: field 4 \('run_time'\) must be at most 1e\+12 s; "
                                         r"got 1e\+22"):
        read_swf(path)
    assert MAX_TIME == 1e12
