"""Numba's cache is kept in step with mopt's sources (mopt._numba_cache)."""

from __future__ import annotations

import os

from mopt._numba_cache import keep_cache_in_step, sources_stamp


def test_a_changed_source_removes_the_cached_files_once(tmp_path, monkeypatch):
    monkeypatch.delenv("MOPT_KEEP_NUMBA_CACHE", raising=False)
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "engine.py").write_text("x = 1\n")
    (pkg / "policies.py").write_text("y = 1\n")
    cached = [pkg / "__pycache__" / "engine.run-1.py311.nbi", pkg / "__pycache__" / "engine.run-1.py311.1.nbc"]
    marker = pkg / "__pycache__" / "mopt-sources"
    assert keep_cache_in_step(pkg, marker)  # no stamp yet: the cache (none) is cleared, stamped
    for path in cached:
        path.write_bytes(b"compiled")
    assert not keep_cache_in_step(pkg, marker) and all(p.exists() for p in cached)  # unchanged
    stamp = sources_stamp(pkg)
    (pkg / "policies.py").write_text("y = 2  # a rule changed in another file\n")
    os.utime(pkg / "policies.py", ns=(1, 1))  # whatever the clock says
    assert sources_stamp(pkg) != stamp
    assert keep_cache_in_step(pkg, marker) and not any(p.exists() for p in cached)
    assert marker.read_text() == sources_stamp(pkg)
    assert not keep_cache_in_step(pkg, marker)


def test_a_developer_may_keep_the_cache_across_edits(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "cli.py").write_text("x = 1\n")
    marker = pkg / "__pycache__" / "mopt-sources"
    cached = pkg / "__pycache__" / "engine.run-1.py311.nbi"
    cached.write_bytes(b"compiled")
    monkeypatch.setenv("MOPT_KEEP_NUMBA_CACHE", "1")
    assert not keep_cache_in_step(pkg, marker) and cached.exists() and not marker.exists()
    monkeypatch.setenv("MOPT_KEEP_NUMBA_CACHE", "0")  # only "1" keeps it
    assert keep_cache_in_step(pkg, marker) and not cached.exists()


def test_a_command_says_once_that_it_compiles(monkeypatch, capsys):
    """``say_if_compiling``: one line on a terminal when a kernel has no cache yet, then never
    again in the process; nothing when quiet, when stderr is not a terminal, or when cached."""
    import sys

    from numba import njit

    import mopt._numba_cache as nc

    @njit(cache=True)
    def kernel(x):  # pragma: no cover - compiled
        return x + 1

    monkeypatch.setattr(nc, "_SAID", set())
    monkeypatch.setattr(nc, "needs_compilation", lambda *k: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert not nc.say_if_compiling("the toy", kernel, quiet=True)
    assert nc.say_if_compiling("the toy", kernel) and not nc.say_if_compiling("the toy", kernel)
    assert capsys.readouterr().err.count("mopt: compiling the toy on first use") == 1
    monkeypatch.setattr(nc, "_SAID", set())
    monkeypatch.setattr(nc, "needs_compilation", lambda *k: False)
    assert not nc.say_if_compiling("the toy", kernel)
    monkeypatch.setattr(nc, "needs_compilation", lambda *k: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert not nc.say_if_compiling("the toy", kernel) and capsys.readouterr().err == ""


def test_every_familys_problem_names_its_compiled_kernels():
    """frontier and compare say that a family's simulator compiles (issue #36 audit: a first
    ``mopt frontier`` of a KOALA-C scenario sat 19 s silent): each example scenario's problem names
    cached numba kernels that its replications run."""
    from mopt._numba_cache import needs_compilation
    from mopt.scenario import load_scenario
    from tests.helpers import EXAMPLES

    for name in ("reference.toml", "koala_tags_sets.toml", "portfolio_mix.toml", "vmc_partition.toml"):
        problem = load_scenario(EXAMPLES / name).problem(seed=1)
        kernels = problem.kernels()
        assert kernels and all(hasattr(k, "_cache") and hasattr(k, "py_func") for k in kernels), name
        problem.replicate([0, 1], [0], 1)
        # the kernels named are the ones a replication runs (compiled or loaded here, so cached)
        assert all(k.signatures for k in kernels) and not needs_compilation(*kernels), name


def test_frontier_says_once_that_the_simulator_compiles(monkeypatch, capsys, tmp_path):
    import sys

    import mopt._numba_cache as nc
    from mopt.cli import main
    from tests.helpers import REFERENCE

    monkeypatch.setattr(nc, "_SAID", set())
    monkeypatch.setattr(nc, "needs_compilation", lambda *k: True)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert main(["frontier", str(REFERENCE), "--estimate"]) == 0
    assert capsys.readouterr().err.count("mopt: compiling the simulator on first use") == 1
