"""A reader closing ``mopt``'s standard output (``mopt frontier s.toml | head``) loses only the rest
of the printout: every command still writes its files, prints no traceback and exits 0."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path
from unittest import mock

from mopt.cli import main
from mopt.cli.pipe import PipeGuard

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "examples" / "reference.toml"
# SWF: id submit wait run alloc cpu mem req_procs req_time req_mem status user group exe queue
# partition preceding think.  Four small jobs.
SWF = """; MaxProcs: 16
1 0 0 600 4 -1 -1 4 900 -1 1 1 1 1 1 1 -1 -1
2 30 0 60 1 -1 -1 1 120 -1 1 2 1 1 1 1 -1 -1
3 4000 0 300 2 -1 -1 2 600 -1 1 3 1 1 1 1 -1 -1
4 9000 0 50 8 -1 -1 8 100 -1 1 1 1 1 1 1 -1 -1
"""


class ClosedPipe(io.TextIOBase):
    """A standard output whose reader has gone: every write and flush raises BrokenPipeError."""

    def __init__(self):
        self.attempts = 0

    def write(self, text):
        self.attempts += 1
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")


def test_the_guard_discards_what_follows_a_closed_pipe():
    real = io.StringIO()
    guard = PipeGuard(real)
    assert guard.write("kept\n") == 5 and not guard.closed_pipe
    guard._stream = ClosedPipe()  # the reader goes away
    assert guard.write("lost\n") == 5 and guard.closed_pipe
    guard.write("lost too\n")
    guard.flush()
    assert guard._stream.attempts == 1 and real.getvalue() == "kept\n"


def _commands(tmp: Path) -> list[tuple[list[str], list[Path]]]:
    """(argv, files it must write) for every command that prints a table, on small inputs."""
    swf = tmp / "tiny.swf"
    swf.write_text(SWF)
    front = tmp / "front"
    return [
        (["frontier", str(REFERENCE), "--out", str(front), "--quiet"],
         [front / "front.csv", front / "evaluations.csv", front / "result.json", front / "front.png"]),
        (["decide", str(front), "--utility", "minimize(makespan)", "--utility", "product(makespan, cost)"], []),
        (["demo", "--out", str(tmp / "demo"), "--quiet"], [tmp / "demo" / "statics.csv", tmp / "demo" / "result.json"]),
        (["compare", str(REFERENCE), "--methods", "exhaustive,blind_pick", "--budgets", "10%", "--macroreps", "1",
          "--truth-reps", "20", "--out", str(tmp / "cmp"), "--quiet"], [tmp / "cmp" / "compare.csv",
                                                                       tmp / "cmp" / "summary.csv"]),
        (["vmc", "--vms", "8", "--workloads", "HFHD", "--scenarios", "1", "--methods", "blind_pick", "--seeds", "1",
          "--sample-size", "20", "--out", str(tmp / "vmc"), "--quiet"], [tmp / "vmc" / "vmc_summary.csv"]),
        (["portfolio", "--trace", str(swf), "--portfolio", "ODA-FCFS-FirstFit,ODX-FCFS-FirstFit", "--out",
          str(tmp / "pf"), "--quiet"], [tmp / "pf" / "portfolio.csv"]),
        (["koala", "--trace", str(swf), "--policy", "FF", "--policy", "RR", "--out", str(tmp / "koala.csv"), "--quiet"],
         [tmp / "koala.csv"]),
        (["simulate", "--trace", str(swf), "--policy", "ODA-FCFS-FirstFit", "--out", str(tmp / "jobs.csv"),
          "--quiet"], [tmp / "jobs.csv"]),
        (["traces", "list"], []),
    ]


def test_every_command_writes_its_files_and_exits_0_on_a_closed_stdout(tmp_path, monkeypatch):
    data = {"MOPT_DATA_DIR": str(tmp_path)}  # 'traces list' lists tiny.swf (the tests' own, not the real traces)
    for argv, files in _commands(tmp_path):
        pipe, err = ClosedPipe(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", pipe)  # (set here: pytest's capture resets it between fixtures)
        with contextlib.redirect_stderr(err), mock.patch.dict(os.environ, data):
            code = main(argv)
        monkeypatch.undo()
        assert code == 0 and "Traceback" not in err.getvalue(), (argv, err.getvalue())
        for path in files:
            assert path.is_file() and path.stat().st_size > 0, (argv, path)
        assert pipe.attempts == 1, argv  # it printed, into the closed pipe, once: the rest was dropped


def _mopt(*argv: str, **kwargs) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}
    return subprocess.Popen([sys.executable, "-m", "mopt", *argv], env=env, stderr=subprocess.PIPE, **kwargs)


def test_frontier_piped_into_head_writes_its_files_and_exits_0(tmp_path):
    out = tmp_path / "run"
    mopt = _mopt("frontier", str(REFERENCE), "--out", str(out), "--quiet", stdout=subprocess.PIPE)
    head = subprocess.Popen(["head", "-n", "1"], stdin=mopt.stdout, stdout=subprocess.PIPE)
    mopt.stdout.close()  # head alone reads the pipe: when it exits, the pipe is closed
    first = head.communicate(timeout=300)[0].decode()
    err = mopt.communicate(timeout=300)[1].decode()
    assert first.startswith(f"{REFERENCE}: 289 strategies") and first.count("\n") == 1
    assert mopt.returncode == 0 and err == ""
    assert sorted(p.name for p in out.iterdir()) == ["evaluations.csv", "front.csv", "front.png", "report.html",
                                                     "result.json"]


def test_a_pipe_closed_before_anything_is_printed(tmp_path):
    # no race: the reading end is closed before mopt starts, so its first print meets a closed pipe
    read, write = os.pipe()
    os.close(read)
    out = tmp_path / "run"
    try:
        mopt = _mopt("frontier", str(REFERENCE), "--out", str(out), "--quiet", stdout=write)
    finally:
        os.close(write)
    err = mopt.communicate(timeout=300)[1].decode()
    assert mopt.returncode == 0 and err == ""
    assert (out / "result.json").is_file() and (out / "front.csv").is_file()
