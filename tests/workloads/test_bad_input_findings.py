"""Issue 14, finding 1 in the SWF reader: old Mac (CR-only) line ends keep the header. (The
findings met through the ``mopt`` command: tests/cli/test_bad_input_findings.py.)"""

from __future__ import annotations

from mopt.workloads import read_swf

RECORD = "1 0 3 60 2 -1 -1 2 120 -1 1 1 1 -1 1 -1 -1 -1"


def test_1_cr_only_line_ends_keep_the_header(tmp_path):
    big = RECORD.replace(" 2 -1 -1 2 ", " 8 -1 -1 8 ", 1)  # 8 processors > MaxProcs 4
    path = tmp_path / "mac.swf"
    path.write_bytes(f"; MaxProcs: 4\r; Note: old Mac\r{RECORD}\r{big}\r".encode())
    df = read_swf(path, clean=True)
    assert df.attrs["header"] == {"MaxProcs": "4", "Note": "old Mac"}
    assert df.attrs["n_records"] == 2 and len(df) == 1  # the 8-processor job is cleaned away
