"""Outputs that never mix and never vanish (issue #34, item 2): an output directory is locked from
the checks before the run to the end of writing (a second run is refused in one line naming the lock
and the other run's pid), written whole into a fresh sibling and swapped in (a reader sees the old
set or the new one), kept as it was when the new set fails (a writer raising, a full disk), and
never a directory that is not a mopt set (refused before the run, naming what it holds)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pandas as pd
import pytest

from mopt import Result
from mopt.cli import main
from mopt.core import outputs, set_writer
from tests.cli.test_outputs_never_clobber import _commands
from tests.helpers import no_simulation

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "examples" / "reference.toml"
ENV = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
DIRECTORY_COMMANDS = ["frontier", "compare", "demo", "vmc", "portfolio"]


def tiny(tmp_path: Path, name: str = "tiny.toml", mr_max: str = "0.1") -> Path:
    """The reference scenario on two designs (a run of a few seconds)."""
    text = REFERENCE.read_text().replace('preset = "paper"', 'N = [0, 1]\nT = [0]\nD = [4132]\nMr = [0.1]')
    path = tmp_path / name
    path.write_text(text.replace("mr_max = 0.1", f"mr_max = {mr_max}"))
    return path


def snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def assert_whole(directory: Path) -> dict:
    """The manifest lists exactly the files there (but itself) and each one's sha256."""
    meta = json.loads((directory / "result.json").read_text())
    assert set(meta["files"]) == {p.name for p in directory.iterdir()} - {"result.json"}
    for name, digest in meta["files"].items():
        assert hashlib.sha256((directory / name).read_bytes()).hexdigest() == digest, name
    return meta


def one_line(capsys, code: int, *fragments: str, exit_code: int = 2) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert code == exit_code and len(err) == 1, (code, err)
    for fragment in fragments:
        assert fragment in err[0], (fragment, err[0])
    return err[0]


@pytest.fixture(scope="module")
def result_set(tmp_path_factory) -> tuple[Path, Path]:
    """(scenario, a result directory of it written by `mopt frontier`)."""
    tmp = tmp_path_factory.mktemp("set")
    path = tiny(tmp)
    out = tmp / "run"
    assert main(["frontier", str(path), "--out", str(out), "--quiet"]) == 0
    return path, out


def copy_set(source: Path, target: Path) -> Path:
    target.mkdir()
    for p in source.iterdir():
        (target / p.name).write_bytes(p.read_bytes())
    return target


# -- (a) the lock ------------------------------------------------------------------------------
def test_a_second_run_on_a_locked_out_is_refused_in_one_line_naming_the_lock_and_pid(tmp_path, capsys):
    path, out = tiny(tmp_path), tmp_path / "run"
    outputs.check_out(out, command="frontier")  # "another run" (this process) holds the lock
    try:
        proc = subprocess.run([sys.executable, "-m", "mopt", "frontier", str(path), "--out", str(out), "--quiet"],
                              env=ENV, capture_output=True, text=True, timeout=300)
    finally:
        outputs.release_locks(out)
    err = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(err) == 1, (proc.returncode, err)
    assert f"is being written by another mopt run (pid {os.getpid()}; lock '{tmp_path / '.run.mopt-lock'}')" in err[0]
    assert sorted(os.listdir(tmp_path)) == ["tiny.toml"]  # nothing written, the lock file gone
    assert main(["frontier", str(path), "--out", str(out), "--quiet"]) == 0  # released: runs
    assert_whole(out)
    assert sorted(os.listdir(tmp_path)) == ["run", "tiny.toml"]


def test_two_runs_started_together_never_leave_a_mix(tmp_path):
    """The issue's reproduction: two `mopt frontier` runs of different scenarios on one --out,
    started together (3 of 9 tries left a mix the manifest vouched for).  Now each try ends with
    one whole set, of one run, and a run that found the directory locked said so in one line."""
    a, b = tiny(tmp_path, "a.toml"), tiny(tmp_path, "b.toml", mr_max="0.2")
    out = tmp_path / "run"
    refused = 0
    for attempt in range(2):
        procs = [subprocess.Popen([sys.executable, "-m", "mopt", "frontier", str(s), "--out", str(out), "--quiet",
                                   "--seed", str(attempt + 1)], env=ENV, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for s in (a, b)]
        results = [(p.wait(timeout=300), p.stderr.read().strip().splitlines()) for p in procs]
        for code, err in results:
            assert code == 0 or (code == 2 and len(err) == 1 and "is being written by another mopt run" in err[0]), err
            refused += code == 2
        meta = assert_whole(out)
        assert meta["seed"] == attempt + 1
        scenario = meta["info"]["scenario"]
        assert Result.read_csv(out).info["scenario"] == scenario
        assert sorted(os.listdir(tmp_path)) == ["a.toml", "b.toml", "run"]  # no sibling, no lock left
    print(f"refused {refused} of 4 runs")


def test_a_reader_sees_the_old_set_or_the_new_one_never_a_mix(tmp_path):
    """Sets rewritten in a loop while a reader, holding the directory it opened, reads every file:
    each read finds the manifest's sha256s; with the old in-place writing, a reader found files
    of one set under the manifest of another."""
    out = tmp_path / "run"
    outputs.write_set(out, {"a.csv": lambda p: Path(p).write_text("0\n"), "b.csv": lambda p: Path(p).write_text("0\n")})
    stop, seen, mixed = threading.Event(), [0], []

    def read():
        while not stop.is_set():
            try:
                fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
            except FileNotFoundError:
                continue
            try:
                def content(name, fd=fd):
                    f = os.open(name, os.O_RDONLY, dir_fd=fd)
                    with os.fdopen(f, "rb") as stream:
                        return stream.read()
                meta = json.loads(content("manifest.json"))
                for name, digest in meta["files"].items():
                    if hashlib.sha256(content(name)).hexdigest() != digest:
                        mixed.append(name)
                seen[0] += 1
            except (FileNotFoundError, json.JSONDecodeError):  # the old set being deleted: read again
                pass
            finally:
                os.close(fd)

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for k in range(1, 200):
            outputs.write_set(out, {"a.csv": lambda p, k=k: Path(p).write_text(f"{k}\n" * 1000),
                                    "b.csv": lambda p, k=k: Path(p).write_text(f"{k}\n")})
    finally:
        stop.set()
        reader.join()
    assert not mixed and seen[0] > 10, (mixed, seen)
    assert (out / "a.csv").read_text().startswith("199\n")


def test_result_read_csv_reads_one_set_while_it_is_replaced(tmp_path):
    out = tmp_path / "run"
    ev = pd.DataFrame({"design": [0, 1], "x": [1.0, 2.0], "y": [2.0, 1.0], "n_reps": [1, 1]})
    outputs.write_outputs(Result("exhaustive", 0, 2, ("x", "y"), ev), out, lambda p: Path(p).write_bytes(b"0"))
    stop, bad = threading.Event(), []

    def write():
        k = 0
        while not stop.is_set():
            k += 1
            e = ev.assign(x=[float(k), 2.0 * k], n_reps=[k, k])
            outputs.write_outputs(Result("exhaustive", k, 2 * k, ("x", "y"), e), out, lambda p: Path(p).write_bytes(b"0"))

    writer = threading.Thread(target=write)
    writer.start()
    try:
        for _ in range(150):
            r = Result.read_csv(out)
            if r.evaluations["n_reps"].iloc[0] != r.seed and r.seed != 0:
                bad.append((r.seed, int(r.evaluations["n_reps"].iloc[0])))
    finally:
        stop.set()
        writer.join()
    assert not bad, bad


@pytest.mark.parametrize("command", ["decide", "report"])
def test_a_result_edited_after_it_was_written_is_refused_in_one_line(command, tmp_path, capsys, result_set):
    """``mopt decide DIR`` / ``mopt report DIR`` read DIR with Result.read_csv, which checks
    evaluations.csv against the sha256 its manifest result.json recorded: a well-formed edit (one
    makespan changed) is refused in one line, exit 2; without the digests (an older set) it reads."""
    copy = copy_set(result_set[1], tmp_path / "copy")
    ev = copy / "evaluations.csv"
    rows = ev.read_text().splitlines()
    header, first = rows[0].split(","), rows[1].split(",")
    k = header.index("makespan")
    first[k] = repr(float(first[k]) + 1.0)
    ev.write_text("\n".join([rows[0], ",".join(first), *rows[2:]]) + "\n")
    one_line(capsys, main([command, str(copy)]),
             f"mopt: error: '{ev}' does not match the sha256 recorded in '{copy / 'result.json'}' "
             "(edited after it was written?).")
    meta = json.loads((copy / "result.json").read_text())
    del meta["files"]
    (copy / "result.json").write_text(json.dumps(meta))
    assert main([command, str(copy)]) == 0, capsys.readouterr().err


# -- (b) the old set survives any failure of the new one ----------------------------------------
@pytest.mark.parametrize("fault", ["report raises", "disk full in the figure", "disk full in the manifest"])
def test_a_failed_rewrite_leaves_the_old_set_byte_identical(fault, tmp_path, capsys, monkeypatch, result_set):
    path, first = result_set
    out = copy_set(first, tmp_path / "run")
    before = snapshot(out)
    if fault == "report raises":
        import mopt.cli.frontier as frontier

        def boom(*args, **kwargs):
            raise RuntimeError("boom")

        monkeypatch.setattr(frontier, "_write_report", boom)
        fragments, exit_code = ["RuntimeError: boom"], 1
    elif fault == "disk full in the figure":
        from matplotlib.figure import Figure

        def full(self, fname, **kw):
            Path(fname).write_bytes(b"\x89PNG partial")
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(Figure, "savefig", full)
        fragments, exit_code = ["No space left on device", f"'{out / 'front.png'}'"], 1
    else:
        def full(self, files):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(Result, "_manifest_text", full)
        fragments, exit_code = ["No space left on device", f"'{out / 'result.json'}'"], 1
    code = main(["frontier", str(path), "--out", str(out), "--quiet", "--seed", "9"])
    one_line(capsys, code, *fragments, exit_code=exit_code)
    assert snapshot(out) == before  # the old set, byte for byte
    assert sorted(os.listdir(tmp_path)) == ["run"]  # no sibling, no lock, no temporary file
    assert Result.read_csv(out).seed == 1


def test_a_symlinked_front_png_is_refused_before_simulating(tmp_path, capsys, result_set):
    path, first = result_set
    out = copy_set(first, tmp_path / "run")
    target = tmp_path / "figure.png"
    target.write_bytes(b"the user's figure")
    (out / "front.png").unlink()
    (out / "front.png").symlink_to(target)
    with no_simulation():
        code = main(["frontier", str(path), "--out", str(out), "--quiet"])
    one_line(capsys, code, "'--out'", "front.png is a symbolic link", "does not replace it")
    assert (out / "front.png").is_symlink() and target.read_bytes() == b"the user's figure"
    assert Result.read_csv(out).seed == 1 and sorted(os.listdir(tmp_path)) == ["figure.png", "run"]


def test_result_to_csv_failing_keeps_the_old_set(tmp_path, monkeypatch):
    """The library's Result.to_csv (in place): every file written to a temporary first."""
    ev = pd.DataFrame({"design": [0, 1], "x": [1.0, 2.0], "y": [2.0, 1.0], "n_reps": [1, 1]})
    Result("exhaustive", 1, 2, ("x", "y"), ev).to_csv(tmp_path)
    before = snapshot(tmp_path)
    calls = []
    original = pd.DataFrame.to_csv

    def second_fails(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", second_fails)
    with pytest.raises(OSError, match="No space left on device") as info:
        Result("exhaustive", 2, 4, ("x", "y"), ev.assign(x=[3.0, 4.0])).to_csv(tmp_path)
    assert info.value.filename == str(tmp_path / "front.csv")
    assert snapshot(tmp_path) == before
    assert Result.read_csv(tmp_path).seed == 1


# -- (c) a directory that is not a mopt set ----------------------------------------------------
@pytest.mark.parametrize("command", DIRECTORY_COMMANDS)
def test_a_foreign_directory_is_refused_naming_what_it_holds(command, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    mine = {"front.csv": b"my own front\n", "result.json": b'{"mine": true}\n', "report.html": b"<p>mine</p>\n"}
    for name, data in mine.items():
        (out / name).write_bytes(data)
    argv = _commands(tmp_path, str(out))[command]
    with no_simulation():
        code = main(argv)
    one_line(capsys, code, f"'--out' '{out}' holds front.csv, report.html, result.json and is not a mopt result",
             "give a new or empty directory")
    assert snapshot(out) == mine
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")]  # the lock released


def test_an_empty_directory_and_a_mopt_set_are_replaced_keeping_the_users_other_files(tmp_path, capsys, result_set):
    path, first = result_set
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["frontier", str(path), "--out", str(empty), "--quiet"]) == 0
    assert_whole(empty)
    out = copy_set(first, tmp_path / "run")
    (out / "notes.txt").write_text("mine\n")
    (out / "sub").mkdir()
    (out / "sub" / "data.txt").write_text("mine too\n")
    assert main(["frontier", str(path), "--out", str(out), "--quiet", "--seed", "3"]) == 0
    assert (out / "notes.txt").read_text() == "mine\n" and (out / "sub" / "data.txt").read_text() == "mine too\n"
    meta = json.loads((out / "result.json").read_text())
    assert meta["seed"] == 3 and set(meta["files"]) == {"evaluations.csv", "front.csv", "front.png", "report.html"}
    # a file of the user's under a name the command writes is refused, not replaced
    (out / "statics.csv").write_text("my statics\n")
    capsys.readouterr()
    with no_simulation():
        code = main(["demo", "--out", str(out), "--quiet"])
    one_line(capsys, code, "statics.csv is not a file of the mopt set there")
    assert (out / "statics.csv").read_text() == "my statics\n"


def test_the_other_commands_sets_have_a_manifest(tmp_path, capsys):
    out = tmp_path / "vmc"
    assert main(["vmc", "--seeds", "1", "--vms", "32", "--sample-size", "20", "--out", str(out), "--quiet"]) == 0
    meta = json.loads((out / "manifest.json").read_text())
    assert set(meta["files"]) == {"vmc_runs.csv", "vmc_summary.csv", "vmc_throughput.png", "report.html"}
    for name, digest in meta["files"].items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest
    assert outputs.set_members(out) == {*meta["files"], "manifest.json"}
    assert main(["vmc", "--seeds", "1", "--vms", "32", "--sample-size", "20", "--out", str(out), "--quiet"]) == 0


# -- (d) a full disk ---------------------------------------------------------------------------
def test_a_full_disk_names_the_file_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    """The issue's reproduction: "No space left on device" named no path and left a partial
    front.png in a new directory."""
    from matplotlib.figure import Figure

    path, out = tiny(tmp_path), tmp_path / "new" / "run"

    def full(self, fname, **kw):
        with open(fname, "wb") as f:
            f.write(b"\x89PNG half a figure")
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full)
    code = main(["frontier", str(path), "--out", str(out), "--quiet"])
    one_line(capsys, code, f"No space left on device: '{out / 'front.png'}'", exit_code=1)
    assert sorted(os.listdir(tmp_path)) == ["tiny.toml"]  # no directory, no partial file, no lock


def test_enospc_in_os_write_names_the_file(tmp_path, monkeypatch):
    """A full disk seen by os.write (a writer writing raw bytes) is named the same way."""
    out = tmp_path / "run"
    real = os.write

    def write(fd, data):
        if len(data) > 100:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, data)

    def big(path):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT)
        try:
            os.write(fd, b"x" * 1000)
        finally:
            os.close(fd)

    monkeypatch.setattr(os, "write", write)
    with pytest.raises(OSError) as info:
        outputs.write_set(out, {"small.csv": lambda p: Path(p).write_text("1\n"), "big.bin": big})
    assert (info.value.errno, info.value.filename) == (errno.ENOSPC, str(out / "big.bin"))
    assert os.listdir(tmp_path) == []


def test_stale_siblings_of_killed_runs_are_removed(tmp_path):
    out = tmp_path / "run"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (tmp_path / f".run.mopt-{pid}-abc.new").mkdir()
    (tmp_path / f".run.mopt-{pid}-abc.new" / "front.csv").write_text("half\n")
    outputs.check_out(out, command="vmc")
    outputs.write_set(out, {"a.csv": lambda p: Path(p).write_text("1\n")})
    assert sorted(os.listdir(tmp_path)) == ["run"]


def test_check_out_without_a_command_takes_no_lock(tmp_path):
    outputs.check_out(tmp_path / "run")
    outputs.check_out(tmp_path / "run")
    assert os.listdir(tmp_path) == []


def test_out_dot_is_written_in_place_and_a_failure_still_keeps_the_old_set(tmp_path, capsys, monkeypatch):
    """`--out .` cannot be swapped (the shell would be left in the deleted old set): written in
    place, every file to a private folder first, then renamed into place, the manifest last."""
    path = tiny(tmp_path)
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    assert main(["frontier", str(path), "--out", ".", "--quiet"]) == 0
    assert_whole(here)
    before = snapshot(here)
    from matplotlib.figure import Figure

    def full(self, fname, **kw):
        Path(fname).write_bytes(b"\x89PNG partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", full)
    capsys.readouterr()
    code = main(["frontier", str(path), "--out", ".", "--quiet", "--seed", "5"])
    one_line(capsys, code, "No space left on device: 'front.png'", exit_code=1)
    assert snapshot(here) == before and os.getcwd() == str(here)
    assert sorted(os.listdir(tmp_path)) == ["here", "tiny.toml"]
    monkeypatch.undo()
    monkeypatch.chdir(here)
    assert main(["frontier", str(path), "--out", ".", "--quiet", "--seed", "5"]) == 0
    assert assert_whole(here)["seed"] == 5 and os.getcwd() == str(here)


def test_without_the_exchange_two_renames_swap_the_set_and_a_killed_swap_is_undone(tmp_path, monkeypatch):
    """On a file system without renameat2(RENAME_EXCHANGE): the old set aside, the new one in;
    an old set left aside by a run killed between the two renames is put back by the next run."""
    out = tmp_path / "run"
    outputs.write_set(out, {"a.csv": lambda p: Path(p).write_text("1\n")})
    monkeypatch.setattr(set_writer, "_exchange", lambda a, b: False)
    outputs.write_set(out, {"a.csv": lambda p: Path(p).write_text("2\n")})
    assert (out / "a.csv").read_text() == "2\n" and sorted(os.listdir(tmp_path)) == ["run"]
    dead = int(subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                              text=True).stdout)
    out.rename(tmp_path / f".run.mopt-{dead}-xyz.old")  # killed between the renames: no run/
    outputs.write_set(out, {"b.csv": lambda p: Path(p).write_text("3\n")})
    assert sorted(os.listdir(out)) == ["b.csv", "manifest.json"] and sorted(os.listdir(tmp_path)) == ["run"]
