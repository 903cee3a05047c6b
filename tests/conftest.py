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


#: the slow tests, marked ``slow`` here (besides the few that carry ``@pytest.mark.slow``):
#: end-to-end runs at the papers' sizes, matrices of commands run as subprocesses, fuzzing at full
#: size, runs of the report in a browser. ``python -m pytest`` leaves them out (pyproject.toml's
#: ``addopts``: ``-m 'not slow'``) and runs in minutes; ``python -m pytest -m slow`` runs them, and
#: CI (``.ci/run``) runs both. Whole modules, by path:
SLOW_MODULES = frozenset({
    "tests/test_examples_replications.py",  # three example scenarios run whole: ~20 s
    "tests/cli/test_faults.py",  # SIGKILL/SIGTERM at random moments, Dask workers: ~3 min
    "tests/cli/test_fuzz_inputs.py",  # the command line fuzzed, full size
    "tests/cli/test_pipe.py",  # every command with its stdout closed or piped into head
    "tests/cli/test_recorded_outputs.py",  # every command's printout against the recorded one
    "tests/cli/test_signals.py",  # signals delivered to commands run as subprocesses
    "tests/core/test_faults.py",  # the same outputs on processes, on Dask, resumed, workers killed
    "tests/core/test_journal_stress.py",  # 4 writer processes (2 killed), a Dask search and 2 readers on one journal: ~20 s
    "tests/cloud/test_causality.py",  # the rules walked forward over whole archive traces
    "tests/cloud/test_fuzz_cloud_cli.py",  # the portfolio's scenarios and commands fuzzed, full size
    "tests/koala/test_fuzz_koala.py",  # KOALA-C's scenarios and commands fuzzed, full size
    "tests/koala/test_paper_claims.py",  # the paper's tables on whole traces
    "tests/vmc/test_fuzz_vmc.py",  # VMC's scenarios and commands fuzzed, full size
})
#: single tests of otherwise quick modules, ``path::name`` (every parametrization of it)
SLOW_TESTS = frozenset({
    # the browser (headless Chromium) draws the report
    "tests/test_report.py::test_browser_draws_one_svg_marker_per_design_offline",
    "tests/test_report.py::test_browser_counts_designs_only_when_every_design_is_on_the_front",
    "tests/test_report.py::test_browser_draws_three_objectives_and_progress",
    "tests/test_report.py::test_browser_reports_a_script_error",
    "tests/test_report.py::test_browser_screenshot_is_not_blank",
    "tests/test_report_payloads.py::test_browser_design_report_runs_nothing_and_shows_every_label_literally",
    "tests/test_report_payloads.py::test_browser_summary_page_runs_nothing_and_shows_every_label_literally",
    "tests/test_report_payloads.py::test_browser_mopt_report_and_simulate_pages",
    "tests/test_report.py::test_browser_lays_the_page_out_within_its_width",
    "tests/cli/test_report_assets.py::test_browser_draws_the_demo_report_from_its_assets",
    # a real mopt frontier run watched by mopt report --watch, both as processes
    "tests/cli/test_report_watch.py::test_a_watch_beside_a_running_frontier_ends_with_the_frontiers_own_report",
    # every runnable block of the README and the docs, each a script or shell run
    "tests/test_docs.py::test_block_runs",
    "tests/test_docs.py::test_every_python_block_of_the_docs_runs",
    # commands run as subprocesses, with workers, a cluster, journals
    "tests/cli/test_frontier.py::test_frontier_with_workers_is_identical_to_in_process",
    "tests/cli/test_frontier.py::test_scheduler_address_runs_on_that_cluster",
    "tests/cli/test_frontier.py::test_journal_resumes_and_refuses_another_seed",
    "tests/cli/test_frontier.py::test_journal_of_another_scenario_is_refused",
    "tests/cli/test_frontier.py::test_frontier_with_every_method_and_options",
    "tests/cli/test_frontier.py::test_out_dash_writes_the_front_as_csv_on_stdout",
    "tests/cli/test_frontier.py::test_frontier_of_an_online_scenario",
    "tests/cli/test_compare.py::test_compare_writes_tidy_rows_summary_and_figure",
    "tests/cli/test_compare.py::test_compare_with_a_utility_on_a_small_scenario",
    "tests/cli/test_bad_input_findings.py::test_7_journal_elsewhere_in_out_is_kept",
    "tests/cli/test_main.py::test_installed_console_script_exits_2_without_traceback",
    "tests/koala/test_scenario.py::test_cli_frontier",
    "tests/test_did_you_mean.py::test_vmc_workloads_case_insensitive_and_did_you_mean",
    "tests/cli/test_report_every_set.py::test_compare_directory",
    "tests/cli/test_report_every_set.py::test_compare_directory_without_its_truth_is_refused_in_one_line",
    # causality checked on whole archive traces, and over every stale-information case
    "tests/koala/test_causality.py::test_no_policy_but_sjf_ideal_sees_the_future_random_cases",
    "tests/vmc/test_causality.py::test_stale_information_sees_no_arrival_before_it_arrives",
    # the engines against their reference models over whole spaces, in distribution, every policy
    "tests/vmc/test_reference.py::test_whole_space_walk_equals_the_per_schedule_kernel",
    "tests/vmc/test_reference.py::test_independent_draws_agree_with_the_paper_model_in_distribution",
    "tests/vmc/test_multiperiod.py::test_serial_and_parallel_combine_kernels_agree",
    "tests/cloud/test_model.py::test_engine_matches_model_binpack_key",
    "tests/cloud/test_model.py::test_engine_matches_model_every_policy",
    "tests/cloud/test_model.py::test_engine_matches_model_on_real_trace_slice",
    "tests/cloud/test_online_consistency.py::test_fast_finish_equals_ticking_on",
    # whole archive traces read, commands run end to end with workers
    "tests/workloads/test_swf.py::test_real_trace_record_counts",
    "tests/cloud/test_portfolio_command.py::test_workers_give_the_same_files",
    "tests/cloud/test_portfolio_command.py::test_a_trace_the_vms_cannot_keep_up_with_is_announced",
    "tests/cloud/test_module_layout.py::test_no_import_circle_through_the_simulators",
    "tests/vmc/test_scenario.py::test_frontier_decide_compare_on_a_vmc_file",
    "tests/vmc/test_scenario.py::test_mopt_vmc_both_scenarios_prints_intervals_and_no_nan_and_writes_a_figure",
    "tests/vmc/test_scenario.py::test_mopt_vmc_command",
    "tests/vmc/test_scenario.py::test_mopt_vmc_uses_the_executor_of_workers",
    "tests/test_peers.py::test_the_cli_runs_peers_and_records_their_versions",
    "tests/solvers/test_solve.py::TestNTDMr::test_two_worker_processes_give_the_in_process_result",
    "tests/cli/test_whole_sets.py::test_two_runs_started_together_never_leave_a_mix",
    "tests/core/test_families.py::test_an_outside_family_runs_from_the_command_line",
    "tests/core/test_execute.py::test_a_local_dask_cluster_leaves_no_scratch_space",
    # statistical claims over many macroreplications, every method on every family
    "tests/solvers/test_ocba.py::test_ocba_reaches_pcs_09_with_half_of_equal_allocations_budget",
    "tests/solvers/test_ocba.py::test_default_n0_is_half_the_budget_between_2_and_10",
    "tests/solvers/test_mocba.py::test_mocba_has_lower_type_1_plus_2_error_than_equal_allocation",
    "tests/solvers/test_evolutionary_oo.py::test_eoo_ocba_differs_from_eoo_on_a_half_budget_stage",
    "tests/solvers/test_screen.py::test_every_family",
    "tests/koala/test_problem.py::test_every_method_runs_and_is_reproducible",
    "tests/test_compare.py::test_compare_is_deterministic_with_common_seeds_across_methods",
})


#: modules whose tests time the program (a stop within 2 s of a signal, runs started together):
#: CI runs them alone (``--part timed``), the other slow tests in two processes at once beside the
#: README's command (``--part 0/2``, ``--part 1/2``; .ci/run)
TIMED_MODULES = frozenset({
    "tests/cli/test_signals.py",  # a stop within 2 s of a signal, cold starts included
    "tests/cli/test_whole_sets.py",  # two runs started 1.35-1.55 s apart
    "tests/cli/test_report_watch.py",  # a watch refreshing beside a running search
    "tests/core/test_memory_bounds.py",  # peak memory and seconds of a run in a subprocess
})


def pytest_addoption(parser):
    parser.addoption("--part", default=None, metavar="timed|K/N",
                     help="run a part of the selected tests: 'timed' (the modules of TIMED_MODULES, which "
                          "time the program) or K/N (every N-th of the others, from the K-th; N parts "
                          "may run at once)")


def _part(config, items) -> None:
    """Deselect the items outside ``--part`` (see :func:`pytest_addoption`)."""
    part = config.getoption("part")
    if part is None:
        return
    timed = [item.nodeid.partition("::")[0] in TIMED_MODULES for item in items]
    if part == "timed":
        keep = timed
    else:
        try:
            k, n = (int(x) for x in part.split("/"))
            assert 0 <= k < n
        except (ValueError, AssertionError):
            raise pytest.UsageError(f"--part must be 'timed' or K/N with 0 <= K < N; got {part!r}") from None
        others = [i for i, t in enumerate(timed) if not t]
        chosen = set(others[k::n])
        keep = [i in chosen for i in range(len(items))]
    config.hook.pytest_deselected(items=[it for it, kept in zip(items, keep, strict=True) if not kept])
    items[:] = [it for it, kept in zip(items, keep, strict=True) if kept]


class _Part:
    """The ``--part`` split, after ``-m`` has selected (a plugin: conftest holds one hook of a name)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config, items):
        _part(config, items)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Mark :data:`SLOW_MODULES` and :data:`SLOW_TESTS` ``slow`` before ``-m`` selects; an entry that
    names no test of a collected module is an error (a renamed test must not turn quick unnoticed)."""
    collected, matched = set(), set()
    for item in items:
        module, _, rest = item.nodeid.partition("::")
        name = f"{module}::{rest.split('[', 1)[0]}"
        collected.add(module)
        for key in (module, name):
            if key in SLOW_MODULES or key in SLOW_TESTS:
                matched.add(key)
                item.add_marker(pytest.mark.slow)
    stale = sorted(key for key in SLOW_MODULES | SLOW_TESTS
                   if key.partition("::")[0] in collected and key not in matched)
    if stale:
        raise pytest.UsageError(f"tests/conftest.py lists slow tests that do not exist: {stale}")


def pytest_configure(config):
    config.pluginmanager.register(_Part(), "mopt-part")
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
