"""A local HTTP "archive" for fetching traces in tests (no internet): the `archive` fixture (as
tests/cloud/archive_server.py, on mopt.workloads.traces, where the registry now lives)."""

from __future__ import annotations

import functools
import gzip
import hashlib
import http.server
import threading

import pytest

from mopt.workloads import traces as T


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(name="archive")
def archive_fixture(tmp_path):
    """A local 'archive' holding a small KTH-SP2 stand-in; its registry sha256 patched to match."""
    root = tmp_path / "www"
    file, folder, _ = T.TRACES["KTH-SP2"]
    (root / folder).mkdir(parents=True)
    body = gzip.compress(("; MaxProcs: 4\n" + "1 0 0 60 2" + " -1" * 13 + "\n").encode())
    (root / folder / file).write_bytes(body)
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    registry = dict(T.TRACES)
    registry["KTH-SP2"] = (file, folder, hashlib.sha256(body).hexdigest())
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(T, "TRACES", registry)
        yield {"url": f"http://127.0.0.1:{server.server_address[1]}", "root": root,
               "path": root / folder / file, "cache": tmp_path / "cache"}
    server.shutdown()
    server.server_close()
