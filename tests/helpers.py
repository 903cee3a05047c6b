"""Helpers shared by the test modules (``from tests.helpers import ...``): module-level simulators
(module level so that worker processes can unpickle them), result comparison, the fuzz tests'
settings and counter, and the real workload traces (found through ``MOPT_DATA_DIR`` only)."""

from __future__ import annotations

import contextlib
import functools
import os
from pathlib import Path

import pandas as pd
import pytest


# -- simulators for FunctionProblem (must pickle: module-level functions) --------------------------
def noisy_quadratic(params, rng):
    """Two conflicting objectives of one design parameter ``x``, plus noise from ``rng``."""
    x = params["x"]
    return (x + rng.normal(0.0, 0.1), (3 - x) ** 2 + rng.uniform(0.0, 0.1))


def pure_noise(params, rng):
    """The replication's random draw itself: shows which stream a design got."""
    return (rng.normal(), rng.normal())


# -- a near-deterministic ExPERT environment --------------------------------------------------------
#: every successful turnaround is 1000 s + at most 1e-6 s
DETERMINISTIC_FS_LOC = 1000.0
DETERMINISTIC_FS_SCALE = 1e-6


def deterministic_environment(**overrides):
    """12 tasks, 5 unreliable machines, γ = 1, every turnaround ≈ 1000 s, t_r = 1500 s.

    Throughput phase by hand (D0 = 4·t_ur = 4000 s, nothing ever fails):
    t=0: tasks 0-4 start; t≈1000: they return, tasks 5-9 start (7 tasks remain);
    t≈2000: the 1st result of the 2nd wave starts task 10, the 2nd starts task 11, the 3rd leaves
    4 < #ur = 5 remaining tasks  ->  T_tail ≈ 2000 s with 4 tail tasks: two of tasks 5-9 (finishing
    within 1e-6 s after T_tail) and tasks 10, 11 (sent at ≈2000 s, finishing at ≈3000 s).
    """
    from scipy import stats

    from mopt.expert import Environment, TurnaroundModel

    fs = stats.uniform(loc=DETERMINISTIC_FS_LOC, scale=DETERMINISTIC_FS_SCALE)
    params = dict(
        n_tasks=12,
        n_unreliable=5,
        t_ur=1000.0,
        t_r=1500.0,
        c_ur=0.01,
        c_r=0.1,
        turnaround=TurnaroundModel.parametric(fs, 1.0),
        mr_max=1.0,
    )
    params.update(overrides)
    return Environment(**params)


def assert_same_result(a, b):
    """Two Results hold exactly the same evaluations and bookkeeping."""
    assert a.method == b.method
    assert a.seed == b.seed
    assert a.n_evals == b.n_evals
    assert a.objectives == b.objectives
    pd.testing.assert_frame_equal(a.evaluations, b.evaluations, check_exact=True)


# -- the mopt command ------------------------------------------------------------------------------
#: the repository's example scenarios
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
REFERENCE = EXAMPLES / "reference.toml"


def chosen_line(stdout: str, label: str) -> list[str]:
    """The cells after ``label`` in the row of the chosen-strategies table, an objective's
    ``mean ± se`` as its mean alone."""
    import re

    for line in stdout.splitlines():
        if re.match(re.escape(label) + r"\s{2,}\S", line):
            return re.sub(r" ± \S+", "", line[len(label):]).split()
    raise AssertionError(f"no row {label!r} in:\n{stdout}")


def assert_one_line_error(capsys, code: int, *fragments: str) -> str:
    """The command exited 2 with one line ``mopt: error: ...`` on stderr holding every fragment."""
    out = capsys.readouterr()
    assert code == 2, (code, out.err)
    assert "Traceback" not in out.err and "Traceback" not in out.out
    lines = out.err.strip().splitlines()
    assert len(lines) == 1, out.err
    assert lines[0].startswith("mopt: error: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


# -- counting generated bad inputs (the fuzz tests report how many they tried) ----------------------
#: entry point -> number of generated bad inputs checked in this session
BAD_INPUTS: dict[str, int] = {}


def count_bad_input(entry_point: str) -> None:
    """Record that one generated bad input of ``entry_point`` was checked (reported after the run)."""
    BAD_INPUTS[entry_point] = BAD_INPUTS.get(entry_point, 0) + 1


#: every generated input of a fuzz test ends within this many seconds (hypothesis's deadline: an
#: input over it is run again, and fails the test if it is over again) ...
FUZZ_SECONDS = 60.0
#: ... and within this much memory above what the process held when the test began (issue #34:
#: the fuzz suites grow a memory budget; bad input is refused before anything large is allocated)
FUZZ_MEMORY = 768 << 20


def fuzz(n: int):
    """The fuzz tests' decorator: hypothesis settings (``n`` examples, fixtures allowed) and the
    budget of every generated input, :data:`FUZZ_SECONDS` each and :data:`FUZZ_MEMORY` above the
    test's start (the resident set sampled every 5 ms while the test runs; the peak over the test
    bounds every input's).  Apply it above ``@given``."""
    from datetime import timedelta

    from hypothesis import HealthCheck, settings

    chosen = settings(max_examples=n, deadline=timedelta(seconds=FUZZ_SECONDS),
                      suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

    def decorate(test):
        test = chosen(test)

        @functools.wraps(test)
        def bounded(*args, **kwargs):
            with memory_watch() as peak:
                out = test(*args, **kwargs)
            assert peak() <= FUZZ_MEMORY, (f"{test.__name__}: an input took {peak() / 2**20:.0f} MiB above the "
                                           f"test's start (budget {FUZZ_MEMORY >> 20} MiB)")
            return out

        return bounded

    return decorate


def _resident() -> int:
    """This process's resident set in bytes (Linux: /proc/self/statm)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _high_water() -> int | None:
    """The peak resident set since it was last reset (VmHWM), in bytes; None off Linux."""
    try:
        with open("/proc/self/status") as f:
            return int(next(line for line in f if line.startswith("VmHWM:")).split()[1]) << 10
    except (OSError, StopIteration, ValueError):
        return None


@contextlib.contextmanager
def memory_watch(every: float = 0.005):
    """The peak of this process's resident set within the block, above the resident set at its
    start: yields a function giving it so far.  Exact where the kernel lets the peak be reset
    (Linux: ``/proc/self/clear_refs``, then VmHWM); else sampled every ``every`` s in a thread."""
    import threading

    start = _resident()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current resident set
        exact = _high_water() is not None
    except OSError:
        exact = False
    peak, done = [0], threading.Event()

    def sample():
        while not done.wait(every):
            peak[0] = max(peak[0], _resident() - start)

    thread = None if exact else threading.Thread(target=sample, name="memory_watch", daemon=True)
    if thread is not None:
        thread.start()
    try:
        yield lambda: (_high_water() - start) if exact else max(peak[0], _resident() - start)
    finally:
        done.set()
        if thread is not None:
            thread.join()


@contextlib.contextmanager
def no_simulation():
    """Bad input must be rejected before anything is simulated: replicate() fails the test."""
    from unittest import mock

    from mopt.core.problem import StochasticProblem

    with mock.patch.object(StochasticProblem, "replicate",
                           side_effect=AssertionError("bad input reached the simulator")):
        yield


# -- the real workload traces: read from MOPT_DATA_DIR, never downloaded --------------------------
#: the variable naming the folder of the Parallel Workloads Archive traces
DATA_VAR = "MOPT_DATA_DIR"


def _no_traces_reason(file: str | None = None) -> str | None:
    """Why a test that needs the real traces (or the trace ``file``) cannot run, or None."""
    folder = os.environ.get(DATA_VAR)
    if not folder:
        return f"{DATA_VAR} is not set (the folder of the archive traces; tests download none)"
    if not Path(folder).is_dir():
        return f"{DATA_VAR}={folder!r} is not a folder"
    if file is not None and not (Path(folder) / file).is_file():
        return f"{DATA_VAR}={folder!r} does not hold {file}"
    return None


def trace_file(name: str) -> Path:
    """The file of the archive trace ``name`` (``"KTH-SP2"``, ...) in ``MOPT_DATA_DIR``; skips the
    test, naming the variable, when it is not set or does not hold the trace."""
    from mopt.workloads.traces import TRACES

    file = TRACES[name][0]
    reason = _no_traces_reason(file)
    if reason:
        pytest.skip(reason)
    return Path(os.environ[DATA_VAR]) / file


def needs_traces(*names: str):
    """A mark skipping a test (or, as ``pytestmark``, a module) when ``MOPT_DATA_DIR`` is not set or
    lacks one of the archive traces ``names`` (default: every trace the archive lists)."""
    from mopt.workloads.traces import TRACES

    reasons = [_no_traces_reason(TRACES[name][0]) for name in (names or TRACES)]
    reason = next((r for r in reasons if r), None)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


# KOALA-C: the paper's traces, read once per session
@functools.cache
def _koala_trace(name: str):
    from mopt.koala import koala_trace

    return koala_trace(name)


def paper_trace(name: str):
    """``mopt.koala.koala_trace(name)``, cached (do not modify it); skips the test when
    ``MOPT_DATA_DIR`` is not set or does not hold the trace."""
    trace_file(name)
    return _koala_trace(name)


def install_family(site, monkeypatch, module_name: str, module, entry_name: str | None = None,
                   value: str | None = None):
    """Install a family the way a distribution outside mopt would: a ``*.dist-info`` folder in the
    directory ``site`` (put on ``sys.path``) whose ``entry_points.txt`` registers
    ``module_name:FAMILY`` (or ``value``) under ``mopt.families``; ``module`` (a module object, or
    None when ``site`` holds the module's file) is what importing ``module_name`` gives. The
    registry's cache is cleared now (a fixture using it clears it again when the test ends)."""
    import sys
    from pathlib import Path

    from mopt.core.family import families

    entry_name = entry_name or module_name
    dist = Path(site) / f"{module_name}-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module_name}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        f"[mopt.families]\n{entry_name} = {value or module_name + ':FAMILY'}\n")
    monkeypatch.syspath_prepend(str(site))
    if module is not None:
        monkeypatch.setitem(sys.modules, module_name, module)
    families.cache_clear()
    return families


