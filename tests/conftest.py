"""Hooks and fixtures for the whole suite. The helpers that test modules import are in
:mod:`tests.helpers`; the reference models the tests compare against are in :mod:`tests.reference`."""

from __future__ import annotations

import functools
import os

import pytest

from tests.helpers import BAD_INPUTS, DATA_VAR

#: where the tests "download" archive traces from: a local port that nothing listens on. A trace
#: that ``MOPT_DATA_DIR`` lacks is never fetched from the internet by a test (nor by a command a
#: test runs as a subprocess, which inherits the variable); in-process, such a test is skipped.
NO_DOWNLOADS = "http://127.0.0.1:9/mopt-tests-download-no-traces"


def pytest_configure(config):
    os.environ.setdefault("MOPT_TRACE_URL", NO_DOWNLOADS)
    _hypothesis_profiles()


def _hypothesis_profiles() -> None:
    """The fuzzers draw the same examples on every run ("default": derandomized, so a CI run is
    reproducible and a red run is a change's fault, not the draw's); ``MOPT_FUZZ=explore`` draws
    fresh examples on each run, to hunt for new failures before a release."""
    from hypothesis import settings

    settings.register_profile("default", derandomize=True, database=None)
    settings.register_profile("explore", derandomize=False)
    settings.load_profile(os.environ.get("MOPT_FUZZ", "default"))


def pytest_terminal_summary(terminalreporter):
    if BAD_INPUTS:
        parts = ", ".join(f"{k} {v}" for k, v in sorted(BAD_INPUTS.items()))
        terminalreporter.write_line(
            f"bad inputs checked: {sum(BAD_INPUTS.values())} ({parts}); each ended in one clear error"
        )


@pytest.fixture(autouse=True, scope="session")
def _no_trace_downloads():
    """A test that needs an archive trace that neither ``MOPT_DATA_DIR`` nor the download cache
    holds is skipped, naming the variable: its download goes to :data:`NO_DOWNLOADS`, not to the
    internet, and fails at once. Fetching from a test's own server (an explicit ``base_url`` or
    ``MOPT_TRACE_URL``) is untouched."""
    import mopt.workloads
    from mopt.workloads import traces

    real = traces.fetch

    @functools.wraps(real)
    def fetch(name, *, base_url=None, **kwargs):
        try:
            return real(name, base_url=base_url, **kwargs)
        except traces.FetchError:
            if (base_url or os.environ.get("MOPT_TRACE_URL")) != NO_DOWNLOADS:
                raise
            folder = os.environ.get(DATA_VAR)
            pytest.skip(f"trace {name!r} is not in {DATA_VAR} ({repr(folder) if folder else 'not set'}); "
                        "tests download no trace")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(traces, "fetch", fetch)
        mp.setattr(mopt.workloads, "fetch", fetch)
        yield


@pytest.fixture(autouse=True)
def _fresh_family_registry():
    """A family a test installed (:func:`tests.helpers.install_family`) does not outlive the test."""
    yield
    from mopt.core.family import families

    families.cache_clear()
