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
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)  # (a trace there is not downloaded)
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


def test_trace_names_go_through_one_resolver(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MOPT_DATA_DIR", raising=False)
    monkeypatch.setenv("MOPT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache" / "traces").mkdir(parents=True)
    (tmp_path / "cache" / "traces" / "KTH-SP2-1996-2.1-cln.swf.gz").write_bytes(b"")
    assert main(["traces", "list"]) == 0  # without MOPT_DATA_DIR: the fetch cache, and how to set it
    out = capsys.readouterr().out
    assert f"fetch cache {tmp_path / 'cache' / 'traces'}: 1 trace\n  KTH-SP2-1996-2.1-cln.swf.gz" in out
    assert "MOPT_DATA_DIR is not set: set it to the folder" in out and "MOPT_DATA_DIR " not in out.split("(")[0]
    monkeypatch.setenv("MOPT_DATA_DIR", str(tmp_path / "nothing"))
    assert main(["traces", "list"]) == 2
    assert "is not a directory of SWF traces" in capsys.readouterr().err
    monkeypatch.delenv("MOPT_DATA_DIR")
    assert main(["koala", "--trace", "/dev/zero", "--quiet"]) == 2
    assert "'/dev/zero' is not a regular file" in capsys.readouterr().err
    # offline (nothing listens on port 9): one line saying where to put the file
    monkeypatch.setenv("MOPT_TRACE_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("MOPT_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["traces", "fetch", "KTH-SP2"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot download trace KTH-SP2 (no network): put KTH-SP2-1996-2.1-cln.swf.gz in " \
                              "MOPT_DATA_DIR" in err[0], err


def test_archive_names_and_file_names_work_in_every_trace_command(capsys):
    trace_file("KTH-SP2"), trace_file("SDSC-SP2")  # skip without the traces
    assert main(["traces", "describe", "KTH-SP2"]) == 0
    assert "28476 job records" in capsys.readouterr().out
    assert main(["traces", "fetch", "kth-sp2"]) == 0  # already there: nothing downloaded
    assert "already in MOPT_DATA_DIR" in capsys.readouterr().out
    assert main(["koala", "--trace", "SDSC-SP2", "--first", "500", "--policy", "FF", "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("SDSC-SP2: ")
