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
