"""The public names exist and the docstring examples run."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import mopt
import mopt.cli
import mopt.cloud
import mopt.core
import mopt.expert
import mopt.koala
import mopt.solvers
import mopt.vmc
import mopt.workloads


@pytest.mark.parametrize(
    "module", [mopt, mopt.core, mopt.expert, mopt.solvers, mopt.cloud, mopt.koala, mopt.vmc, mopt.workloads],
    ids=lambda m: m.__name__,
)
def test_every_listed_name_exists(module):
    assert module.__all__, module.__name__
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name, None) is not None, f"{module.__name__}.{name}"


def test_top_level_names():
    assert mopt.__version__
    assert issubclass(mopt.InputError, ValueError) and issubclass(mopt.InputError, mopt.MoptError)
    assert mopt.expert is importlib.import_module("mopt.expert")
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mopt.nothing  # noqa: B018


def test_the_search_problems_are_reached_from_their_family():
    """Each family's StochasticProblem is a name of the family's package (DESIGN §5-6)."""
    from mopt.core.problem import StochasticProblem

    for cls in (mopt.vmc.VMPartitionProblem, mopt.cloud.PortfolioProblem, mopt.koala.TagsProblem,
                mopt.expert.NTDMrProblem):
        assert issubclass(cls, StochasticProblem), cls
    from mopt.core.multiperiod import MultiPeriodProblem

    assert issubclass(mopt.vmc.VMMultiPeriodProblem, MultiPeriodProblem)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mopt.vmc.nothing  # noqa: B018


def _modules():
    names = ["mopt", "mopt.tables"]
    for pkg in (mopt.core, mopt.solvers, mopt.workloads, mopt.expert, mopt.cloud, mopt.koala, mopt.cli, mopt.vmc):
        names.append(pkg.__name__)
        names += [f"{pkg.__name__}.{m.name}" for m in pkgutil.iter_modules(pkg.__path__)]
    return [n for n in names if not n.endswith("._engine") and n != "mopt.cli.__main__"  # runs the command
            and not _deprecated(n)]


def _deprecated(name: str) -> bool:
    """An old module path kept for one release: its docstring starts with "Deprecated" (it warns
    on import and is tested in test_old_module_paths_warn_and_still_work and below)."""
    origin = importlib.util.find_spec(name).origin
    with open(origin, encoding="utf-8") as f:
        return f.read(16).startswith('"""Deprecated')


def test_the_module_list_is_complete():
    mods = _modules()
    for expected in (
        "mopt.core.problem",
        "mopt.core.utility",
        "mopt.solvers.base",
        "mopt.expert.estimator",
        "mopt.expert.turnaround",
    ):
        assert expected in mods


@pytest.mark.parametrize("name", _modules())
def test_doctests(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} doctest failure(s) in {name}"
    if name in WITH_EXAMPLES:
        assert result.attempted > 0, f"{name} lost its Examples"


#: modules whose public functions carry runnable Examples today
WITH_EXAMPLES = {
    "mopt.cli",
    "mopt.cli.options",
    "mopt.core.outputs",
    "mopt.core.output_sets",
    "mopt.core.family",
    "mopt.tables",
    "mopt.workloads",
    "mopt.core.errors",
    "mopt.core.names",
    "mopt.scenario_paths",
    "mopt.core.journal",
    "mopt.core.journal_view",
    "mopt.cli.watch",
    "mopt.cli.replay",
    "mopt.core.replay",
    "mopt.core.moments",
    "mopt.expert.replay",
    "mopt.cloud.replay",
    "mopt.koala.replay",
    "mopt.vmc.replay",
    "mopt.core.pareto",
    "mopt.core.problem",
    "mopt.core.random",
    "mopt.core.utility",
    "mopt.solvers",
    "mopt.expert.environment",
    "mopt.expert.estimator",
    "mopt.expert.problem",
    "mopt.expert.strategy",
    "mopt.expert.turnaround",
    "mopt.workloads.swf",
    "mopt.cloud.policies",
    "mopt.cloud.simulate",
    "mopt.workloads.traces",
    "mopt.cloud.selection",
    "mopt.cloud.portfolios",
    "mopt.cloud.portfolio_scheduler",
}


def test_family_packages_import_without_numba():
    """``import mopt.vmc`` / ``mopt.cloud`` stay cheap: the compiled problems load on first use."""
    import subprocess
    import sys

    code = "import sys, mopt.vmc, mopt.cloud, mopt.koala; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("old, new", [
    ("mopt.cloud.read_swf", "mopt.workloads.read_swf"),
    ("mopt.cloud.fetch", "mopt.workloads.fetch"),
    ("mopt.cloud.load_trace", "mopt.workloads.load_trace"),
    ("mopt.cloud.synthetic", "mopt.workloads.synthetic"),
    ("mopt.cloud.koala", "mopt.koala"),
])
def test_old_import_paths_warn_and_still_work(old, new):
    import sys

    module, _, name = old.rpartition(".")
    sys.modules.pop(old, None)  # a deprecated submodule imported before would be found without a warning
    vars(importlib.import_module(module)).pop(name, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; use {new}"):
        value = getattr(importlib.import_module(module), name)
    new_module, _, new_name = new.rpartition(".")
    expected = importlib.import_module(new) if new == "mopt.koala" else getattr(importlib.import_module(new_module), new_name)
    assert value is expected


def test_old_module_paths_warn_and_still_work():
    import sys

    for old, new, name in (("mopt.cloud.swf", "mopt.workloads.swf", "read_swf"),
                           ("mopt.cloud.traces", "mopt.workloads.traces", "clean"),
                           ("mopt.cloud.koala", "mopt.koala", "TagsSets")):
        sys.modules.pop(old, None)
        with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; use {new}"):
            module = importlib.import_module(old)
        assert getattr(module, name) is getattr(importlib.import_module(new), name)


# the modules renamed or moved by issue #20 that user code imported before (the old tree's own
# experiments, benchmarks and README did): each old module is the new one, after a warning
KOALA_MODULES = ("commands", "engine", "environment", "policies", "problem", "scenario", "simulation", "traces")


@pytest.mark.parametrize("old, new", [
    *((f"mopt.cloud.koala.{name}", f"mopt.koala.{name}") for name in KOALA_MODULES),
    ("mopt.vmc.multiperiod", "mopt.vmc.multiperiod_problem"),
    ("mopt.vmc.scenarios", "mopt.vmc.paper_scenarios"),
    ("mopt.solvers.multiperiod", "mopt.solvers.evolutionary_oo"),
])
def test_renamed_modules_warn_and_are_the_new_ones(old, new):
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; use {new}"):
        module = importlib.import_module(old)
    assert module is importlib.import_module(new)


@pytest.mark.parametrize("old, new", [
    ("mopt.plot.plot_progress", "mopt.progress_plot.plot_progress"),
    ("mopt.solvers.EOOOCBA", "mopt.solvers.evolutionary_oo.EooOcba"),
    ("mopt.solvers.evolutionary_oo.EOOOCBA", "mopt.solvers.evolutionary_oo.EooOcba"),
    ("mopt.cloud.traces.synthetic", "mopt.workloads.synthetic"),
    ("mopt.cloud.traces.PATTERNS", "mopt.workloads.PATTERNS"),
    ("mopt.core.problem.FunctionProblem", "mopt.core.function_problem.FunctionProblem"),
])
def test_moved_names_warn_and_still_work(old, new):
    import warnings

    module, _, name = old.rpartition(".")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # a deprecated module's own warning
        module = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=f"{old} is deprecated; use {new}"):
        value = getattr(module, name)
    new_module, _, new_name = new.rpartition(".")
    assert value is getattr(importlib.import_module(new_module), new_name)


def test_help_imports_none_of_the_heavy_libraries():
    """``mopt --help`` and every command's help are read before any work (issue #36: 1.2-1.7 s when
    they imported pandas and pymoo): building the parser and printing the helps loads none of the
    numerical libraries, so that it costs little more than Python's own start."""
    import subprocess
    import sys

    code = ("import sys; from mopt.cli import build_parser; p = build_parser(); p.format_help(); "
            "[a.choices[c].format_help() for a in p._subparsers._group_actions for c in a.choices]; "
            "print(sorted(m for m in ('pandas', 'numpy', 'scipy', 'pymoo', 'numba', 'matplotlib', 'distributed') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
