"""The ``mopt`` command itself (mopt.cli): usage errors and missing inputs exit 2 with one line,
failures that are not bad input exit 1 with one line, the installed console script."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mopt
from mopt.cli import main
from tests.helpers import assert_one_line_error


def test_missing_inputs_exit_2(tmp_path, capsys):
    code = main(["frontier", str(tmp_path / "none.toml")])
    assert_one_line_error(capsys, code, "none.toml", "no such scenario file")
    code = main(["decide", str(tmp_path / "nodir"), "--utility", "minimize(makespan)"])
    assert_one_line_error(capsys, code, "nodir", "not a mopt result directory")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "evaluations.csv").write_text("design,makespan\n0,1\n")
    (tmp_path / "broken" / "result.json").write_text("{not json")
    code = main(["decide", str(tmp_path / "broken"), "--utility", "minimize(makespan)"])
    assert_one_line_error(capsys, code, "broken", "malformed mopt result")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["frontier"],
        ["demo", "--workers", "0"],
        ["demo", "--seed", "minus-one"],
        ["decide"],
        ["nonsense"],
    ],
)
def test_usage_errors_exit_2(capsys, argv):
    """Issue 14 finding 10: a usage error is one line naming the command, as the README promises."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("mopt: error: ") and err.count("\n") == 1, err
    assert "usage:" not in err and "Traceback" not in err
    if argv and argv[0] in ("frontier", "demo", "decide"):
        assert err.startswith(f"mopt: error: {argv[0]}: "), err


def test_installed_console_script_exits_2_without_traceback(tmp_path):
    script = Path(sys.executable).with_name("mopt")
    exe = str(script) if script.exists() else shutil.which("mopt")
    assert exe, "the 'mopt' console script is not installed (pip install -e .)"
    proc = subprocess.run([exe, "decide", str(tmp_path / "missing"), "--utility", "minimize(makespan)"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"mopt: error: '{tmp_path / 'missing'}' is not a mopt result directory: evaluations.csv is missing."
    ]


def test_an_unexpected_error_is_one_line_with_exit_1(tmp_path, capsys, monkeypatch):
    """A bug (here: a KeyError raised inside the search) gives one line and exit code 1."""
    def broken(*args, **kwargs):
        raise KeyError("boom")

    monkeypatch.setattr(mopt, "solve", broken)
    code = main(["demo", "--out", str(tmp_path / "d"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1
    assert err.strip().splitlines() == ["mopt: error: KeyError: 'boom' (MOPT_DEBUG=1 shows the traceback)"]


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), ConnectionResetError("lost"),
                                   TimeoutError("scheduler gone")])
def test_failures_that_are_not_bad_input_exit_1(tmp_path, capsys, monkeypatch, error):
    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(mopt, "solve", broken)
    code = main(["demo", "--out", str(tmp_path / "d"), "--quiet"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("mopt: error: ")


def test_version_and_the_installed_families_in_help(capsys):
    import mopt

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"mopt {mopt.__version__}"
    assert main(["--help"]) == 0
    text = capsys.readouterr().out
    for name in ("expert", "vmc", "cloud", "koala"):
        assert f"\n  {name} " in text


@pytest.mark.parametrize("argv, message", [
    (["vmc", "--vms", "16,,32"], "a comma-separated list of cluster sizes has an empty element"),
    (["vmc", "--vms", "128", "--sample-size", "1000000000"], "'--sample-size' must be an integer in [1, 10000000]"),
    (["koala", "--trace", "TRACE", "--chains", "3"], "'--chains' applies to '--env multicluster' only"),
    (["koala", "--trace", "TRACE", "--policy", "TAGS-sets", "--limits", "1e308"], "'--limits' must be minutes in (0, 525,600]"),
])
def test_option_messages_name_the_option(argv, message, tmp_path, capsys):
    swf = tmp_path / "t.swf"
    swf.write_text("1 0 0 60 1 -1 -1 1 100 -1 1 1 1 -1 1 -1 -1 -1\n")
    argv = [str(swf) if a == "TRACE" else a for a in argv]
    assert main([*argv, "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err
