"""No command ever replaces a device, a FIFO, a symbolic link or one of its inputs, nor takes an
empty ``--out`` for the current directory: each is refused before the run (exit 2, one line naming
``--out``), and the target is left as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from mopt.cli import main

REFERENCE = Path(__file__).resolve().parents[2] / "examples" / "reference.toml"


def _tiny_swf(path: Path) -> Path:
    """Twenty one-processor jobs a minute apart, 10 minutes each (SWF, 18 fields)."""
    lines = ["; MaxProcs: 64"]
    lines += [f"{k + 1} {60 * k} 0 600 1 -1 -1 1 900 -1 1 {k % 3 + 1} 1 -1 1 -1 -1 -1" for k in range(20)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _commands(tmp: Path, out: str) -> dict[str, list[str]]:
    trace = str(_tiny_swf(tmp / "tiny.swf"))
    return {
        "simulate": ["simulate", "--trace", trace, "--policy", "ODA-FCFS-FirstFit", "--out", out, "--quiet"],
        "koala": ["koala", "--trace", trace, "--policy", "FF", "--out", out, "--quiet"],
        "portfolio": ["portfolio", "--trace", trace, "--portfolio", "jsspp", "--out", out, "--quiet"],
        "vmc": ["vmc", "--seeds", "1", "--out", out, "--quiet"],
        "frontier": ["frontier", str(REFERENCE), "--out", out, "--quiet"],
        "compare": ["compare", str(REFERENCE), "--methods", "blind_pick", "--budgets", "10", "--macroreps", "1",
                    "--out", out, "--quiet"],
        "demo": ["demo", "--out", out, "--quiet"],
    }


COMMANDS = ["simulate", "koala", "portfolio", "vmc", "frontier", "compare", "demo"]
#: commands whose --out is a file (the others write a directory of files)
FILE_OUTPUT = {"simulate", "koala"}


def _refused(capsys, argv, *fragments) -> None:
    code = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("mopt: error: '--out'"), (argv, code, err)
    for fragment in fragments:
        assert fragment in err[0], (fragment, err[0])


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_out_is_refused(command, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path))
    _refused(capsys, _commands(tmp_path, "")[command], "must name a")
    assert sorted(os.listdir(tmp_path)) == sorted({*before, "tiny.swf"})  # nothing written here


@pytest.mark.parametrize("command", COMMANDS)
def test_a_fifo_is_never_replaced(command, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused(capsys, _commands(tmp_path, str(fifo))[command], "a FIFO")
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_device_is_never_replaced(command, tmp_path, capsys):
    _refused(capsys, _commands(tmp_path, "/dev/null")[command], "a character device")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


@pytest.mark.parametrize("command", sorted(FILE_OUTPUT))
def test_a_symlink_is_never_replaced(command, tmp_path, capsys):
    target = tmp_path / "target.csv"
    target.write_text("keep me\n")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    _refused(capsys, _commands(tmp_path, str(link))[command], "a symbolic link")
    assert link.is_symlink() and target.read_text() == "keep me\n"


@pytest.mark.parametrize("command", ["simulate", "koala", "portfolio", "frontier", "compare"])
def test_an_input_is_never_replaced(command, tmp_path, capsys):
    argv = _commands(tmp_path, "PLACEHOLDER")[command]
    the_input = argv[2] if command in ("simulate", "portfolio", "koala") else argv[1]
    before = Path(the_input).read_bytes()
    argv[argv.index("PLACEHOLDER")] = the_input
    _refused(capsys, argv, "is one of the run's inputs")
    assert Path(the_input).read_bytes() == before


@pytest.mark.parametrize("command", sorted(FILE_OUTPUT))
def test_a_directory_is_refused_before_the_run(command, tmp_path, capsys):
    _refused(capsys, _commands(tmp_path, str(tmp_path))[command], "a directory")
