"""Compiling ahead in a background process (mopt._numba_cache.compile_ahead, mopt._ahead): the
kernel lands in numba's cache with the signature the run calls it with, the run's first call loads
it, and the background process never outlives its parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import mopt._numba_cache as cache
from mopt._numba_cache import compile_ahead

KERNEL = textwrap.dedent('''
    import time
    import numpy as np
    from numba import njit

    @njit(cache=True, nogil=True)
    def kernel(x, k):
        return x * k

    def warm():
        kernel(np.ones(3), 2)

    def sleep():
        time.sleep(60)
''')


@pytest.fixture
def module(tmp_path, monkeypatch):
    """A module of one cached kernel, importable here and in a child process (a fresh name per test,
    so that numba's cache of it starts empty)."""
    name = f"ahead_{os.getpid()}_{time.monotonic_ns()}"
    (tmp_path / f"{name}.py").write_text(KERNEL)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("MOPT_COMPILE_AHEAD", raising=False)
    monkeypatch.setattr(cache, "WHILE_WAITING", ())
    return __import__(name)


def test_the_background_process_compiles_and_the_first_call_loads_from_the_cache(module):
    assert cache.needs_compilation(module.kernel)
    ahead = compile_ahead(f"{module.__name__}:warm", module.kernel)
    assert ahead.process is not None
    assert compile_ahead(f"{module.__name__}:warm", module.kernel) is ahead  # one process per target
    assert ahead.wait() is True and ahead.wait() is False  # done; a second wait returns at once
    assert not cache.needs_compilation(module.kernel)
    assert module.kernel(np.arange(3.0), 3).tolist() == [0.0, 3.0, 6.0]
    assert module.kernel.stats.cache_hits and not module.kernel.stats.cache_misses


def test_no_process_when_cached_or_when_turned_off(module, monkeypatch):
    monkeypatch.setenv("MOPT_COMPILE_AHEAD", "0")
    assert compile_ahead(f"{module.__name__}:warm", module.kernel).process is None
    monkeypatch.delenv("MOPT_COMPILE_AHEAD")
    module.warm()  # compiled and cached here
    assert compile_ahead(f"{module.__name__}:warm", module.kernel).process is None


def test_a_failed_background_compilation_leaves_the_first_call_to_compile(module):
    ahead = compile_ahead(f"{module.__name__}:no_such_function", module.kernel)
    assert ahead.wait() is False and cache.needs_compilation(module.kernel)
    assert module.kernel(np.ones(2), 2).tolist() == [2.0, 2.0]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_background_process_ends_with_its_parent(module):
    parent = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from mopt._numba_cache import compile_ahead; "
         f"import {module.__name__} as m; a = compile_ahead('{module.__name__}:sleep', m.kernel); "
         "print(a.process.pid, flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    time.sleep(1.0)  # the child has asked to end with its parent
    os.kill(child, 0)  # it runs
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the background compilation outlived its killed parent")


def test_the_expert_tail_is_warmed_with_the_signature_runs_call_it_with():
    """warm_tail (what the background process runs for ExPERT) compiles the one signature that
    simulate and simulate_observed call _tail_blocks with: after both, it has one signature."""
    from mopt.expert._engine import batch
    from mopt.expert._engine.groups import BoT, Strategies

    one = np.ones(1)
    bot = BoT(10, 5, 500.0, 4000.0, 1.0, 10.0, 1.0, np.array([1000.0]), np.zeros(1), one)
    strategies = Strategies(np.array([0]), np.zeros(1), one * 4000.0, np.array([5]),
                            np.zeros(1, bool), np.zeros(1, bool), np.full(1, np.inf))
    batch.simulate(bot, strategies, np.array([1], np.uint64))
    batch.simulate_observed(bot, strategies, np.array([1], np.uint64), t_tail=1200.0, cost_paid=3100.0,
                            rem_task=np.array([3, 4]), rem_send=np.array([900.0, 1000.0]),
                            running_deadline=4000.0)
    batch.warm_tail()
    assert len(batch._tail_blocks.signatures) == 1


def test_the_uncertainty_kernel_is_warmed_with_the_signature_a_result_calls_it_with():
    """What a run compiles while it waits (WHILE_WAITING) is the signature a result's uncertainty
    then calls: after a two-objective result's uncertainty and the warm-up, one signature."""
    import mopt
    from mopt import FunctionProblem
    from mopt.core.uncertainty import warm_kernels
    from mopt.core.uncertainty_kernels import bootstrap_nondominated_2d
    from tests.known_means import DESIGNS, exact

    assert "mopt.core.uncertainty:warm_kernels" in cache.WHILE_WAITING
    result = mopt.solve(FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=4), "exhaustive", seed=1)
    assert "p_nondominated" in result.evaluations
    assert len(bootstrap_nondominated_2d.signatures) == 1  # the result's uncertainty called it
    warm_kernels()
    assert len(bootstrap_nondominated_2d.signatures) == 1
