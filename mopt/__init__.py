"""mopt: multi-objective search over scheduling strategies estimated by stochastic simulation."""

from __future__ import annotations

import sys as _sys
import types as _types

import mopt._numba_cache  # noqa: F401 - numba's cache in step with the sources (after upgrades)

# first (it runs on import): a signal while the `mopt` program imports numpy, pandas and numba
# ends it in one line
import mopt._startup  # noqa: F401
from mopt._lazy import lazy_loader
from mopt.core.errors import InputError, MoptError, SimulationError

#: the public names and the modules that define them, imported on first use (PEP 562), so that
#: ``mopt --help`` and ``import mopt`` load no pandas, scipy, pymoo or numba (ours)
_LAZY = {
    "compare": "mopt.compare",
    "utility": "mopt.core.utility",
    "FunctionProblem": "mopt.core.function_problem",
    "pymoo_operators": "mopt.core.interop",
    "hypervolume": "mopt.core.pareto",
    "pareto_mask": "mopt.core.pareto",
    "StochasticProblem": "mopt.core.problem",
    "Result": "mopt.core.result",
    "NormalProblem": "mopt.core.synthetic",
    "METHODS": "mopt.solvers",
    "refine": "mopt.solvers",
    "solve": "mopt.solvers",
    "suite": "mopt.suite",
}
#: submodules whose name is also a function of the package: ``mopt.compare`` and ``mopt.suite``
#: are the functions, as ``from mopt import compare`` is (the modules stay importable as
#: ``mopt.compare`` through ``from mopt.compare import ...`` and ``importlib.import_module``)
_FUNCTION_MODULES = ("compare", "suite")


class _Package(_types.ModuleType):
    """The package, keeping ``mopt.compare`` and ``mopt.suite`` the functions when the import
    system binds the submodules of those names."""

    def __setattr__(self, name, value):
        if name in _FUNCTION_MODULES and isinstance(value, _types.ModuleType):
            value = getattr(value, name)
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package

__version__ = "0.2.0"

__all__ = [
    "METHODS",
    "FunctionProblem",
    "InputError",
    "MoptError",
    "NormalProblem",
    "Result",
    "SimulationError",
    "StochasticProblem",
    "compare",
    "hypervolume",
    "pareto_mask",
    "pymoo_operators",
    "refine",
    "solve",
    "suite",
    "utility",
]


_lazy_getattr = lazy_loader(globals(), "mopt", _LAZY, modules=("utility",))


def __getattr__(name: str):
    # problem families are imported on first use (they compile simulators with numba)
    if name in ("expert", "vmc"):
        import importlib

        return importlib.import_module(f"mopt.{name}")
    return _lazy_getattr(name)


def __dir__():
    return sorted({*globals(), *__all__})
