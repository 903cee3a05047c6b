"""``mopt traces``: describe and list the traces in ``MOPT_DATA_DIR`` (a bad record names file and
line); fetch one from an archive (here a local server), its sha256 checked."""

from __future__ import annotations

from mopt.cli import main
from tests.helpers import assert_one_line_error, count_bad_input, fuzz, trace_file
from tests.workloads.archive_server import archive_fixture  # noqa: F401  (the `archive` fixture)

GOOD_RECORD = "1 0 0 10 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1"


def test_traces_describe_counts_the_real_kth_trace(capsys):
    trace_file("KTH-SP2")  # skips without MOPT_DATA_DIR
    assert main(["traces", "describe", "KTH-SP2-1996-2.1-cln.swf.gz"]) == 0
    out = capsys.readouterr().out
    assert ": 28476 job records" in out and "MaxProcs: 100" in out
    assert "after cleaning (run time > 0, 1 .. MaxProcs processors): 28467 jobs" in out
    assert main(["traces", "list"]) == 0
    assert "KTH-SP2-1996-2.1-cln.swf.gz" in capsys.readouterr().out


def test_traces_describe_a_bad_record_names_file_and_line(tmp_path, capsys):
    from hypothesis import given
    from hypothesis import strategies as st

    bad_tokens = st.sampled_from(["abc", "nan", "inf", "1e999", "1,5", "--3", "0x10", "\u00e9", "7e"])

    @fuzz(60)
    @given(n_good=st.integers(0, 5), field=st.integers(0, 17), token=bad_tokens, drop=st.booleans())
    def check(n_good, field, token, drop):
        fields = GOOD_RECORD.split()
        if drop:
            del fields[field]
        else:
            fields[field] = token
        path = tmp_path / "trace.swf"
        path.write_text("; MaxProcs: 4\n" + f"{GOOD_RECORD}\n" * n_good + " ".join(fields) + "\n", encoding="utf-8")
        capsys.readouterr()
        code = main(["traces", "describe", str(path)])
        assert_one_line_error(capsys, code, "trace.swf", f"line {n_good + 2}")
        count_bad_input("cli")

    check()


def test_traces_fetch(archive, monkeypatch, capsys):
    monkeypatch.setenv("MOPT_TRACE_URL", archive["url"])
    monkeypatch.setenv("MOPT_CACHE_DIR", str(archive["cache"]))
    assert main(["traces", "fetch", "KTH-SP2"]) == 0
    assert "sha256 checked" in capsys.readouterr().out
    archive["path"].write_bytes(b"corrupt")
    (archive["cache"] / "traces" / archive["path"].name).unlink()
    assert main(["traces", "fetch", "KTH-SP2"]) == 1  # a failed download is not bad input
    err = capsys.readouterr().err
    assert "sha256" in err and "Traceback" not in err
    assert main(["traces", "fetch", "KTH-SP3"]) == 2
