"""Signals inside mopt.core.interrupt.sigterm_raises: never raised inside Numba's compiler."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from mopt.core.interrupt import Terminated, sigterm_raises


@pytest.mark.parametrize("signum,exception", [(signal.SIGTERM, Terminated), (signal.SIGINT, KeyboardInterrupt)])
def test_a_signal_while_numba_compiles_is_raised_when_the_compilation_ends(signum, exception):
    """An exception raised inside Numba's compiler can leave it half-way (measured before: a
    SIGTERM during the first compilation of KOALA-C was swallowed, the run went on to exit 0, in 3
    of 12 tries); the signal waits until the compiler lock is released, then raises."""
    from numba.core.compiler_lock import global_compiler_lock

    during, after = [], []
    with pytest.raises(exception):
        with sigterm_raises():
            with global_compiler_lock:  # as while compiling, or loading from Numba's cache
                signal.raise_signal(signum)
                time.sleep(0.2)
                during.append("not raised")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                time.sleep(0.01)
            after.append("never raised")
    assert during == ["not raised"] and after == []


def test_outside_numba_a_signal_raises_at_once():
    with pytest.raises(Terminated):
        with sigterm_raises():
            signal.raise_signal(signal.SIGTERM)
            pytest.fail("not raised at once")


def test_the_program_handler_is_installed_only_in_the_mopt_program():
    from mopt._startup import started_as_program

    assert not started_as_program()  # pytest imported mopt as a library
    # a program importing mopt keeps its own handlers (whatever it inherited: a CI job may start
    # with SIGINT ignored)
    code = ("import signal; before = (signal.getsignal(2), signal.getsignal(15)); import mopt, mopt.cli; "
            "print((signal.getsignal(2), signal.getsignal(15)) == before)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "True", out.stderr


def test_a_signal_inside_numbas_own_python_code_is_raised_after_it():
    """A compiled function calls back into Numba's Python code while it converts its results
    (``numba.core.serialize._numba_unpickle``); a signal raised there crashed ``mopt koala LCG``
    (exit -11, 2 of 8 tries before): it waits until that code returns."""
    numba_code = {"__name__": "numba.core.serialize", "signal": signal, "time": time}
    exec("def convert():\n"  # a function of a numba module, busy for 0.2 s after the signal
         "    signal.raise_signal(signal.SIGTERM)\n"
         "    start = time.monotonic()\n"
         "    while time.monotonic() < start + 0.2:\n"
         "        pass\n"
         "    return 'converted'\n", numba_code)  # fmt: skip
    got, after = [], []
    with pytest.raises(Terminated):
        with sigterm_raises():
            got.append(numba_code["convert"]())
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                time.sleep(0.01)
            after.append("never raised")
    assert got == ["converted"] and after == []


def test_clean_before_exit_releases_the_locks_and_removes_dask_scratch(tmp_path):
    """What the program still cleans when a signal during a compilation ends it at once
    (exit_while_compiling): the lock of --out with the folder made for it, and the scratch
    folder of a local Dask cluster still open."""
    from mopt.core import execute, outputs
    from mopt.core.interrupt import clean_before_exit

    out = tmp_path / "new" / "out"
    outputs.check_out(out, command="frontier")
    assert (tmp_path / "new" / ".out.mopt-lock").is_file()
    scratch = tmp_path / "mopt-dask-test"
    scratch.mkdir()
    (scratch / "worker-1").mkdir()
    execute._SCRATCH.add(str(scratch))
    clean_before_exit()
    assert sorted(os.listdir(tmp_path)) == []  # no lock, no folder made for it, no scratch
    assert not execute._SCRATCH
