"""A benchmark suite: one noisy multi-objective scheduling problem per family, with reference fronts.

:func:`suite` returns the four instances by name.  Each is small enough that exhaustive search is
a sensible baseline and that its reference (every design's objective means at a high replication
count) is computed here in minutes; the sizes are ours, chosen for that:

* ``expert`` — ExPERT's paper grid (N = 0..3 and ∞, five T and D values, M_r up to 0.1) on the
  paper's Experiment 11 environment (``mopt/expert/examples/reference.toml``): 289 strategies,
  (makespan, cost), 10 replications each for exhaustive search;
* ``vmc`` — one period of a virtual-cluster system at 16 VMs (ours: three task classes, the
  batches of ``examples/vmc_partition.toml`` without its fourth class, elastic Σθ ≤ 16, so the
  VM count is a second objective): 560 schedules, (clear_time, vms), 5 replications each;
* ``koala`` — KOALA-C's TAGS-sets on the first 3,000 records of KTH-SP2 (ours: six limits, three
  sets 2, three public caps, two private minimums; windows of 5-10 days): 84 configurations,
  (slowdown_short, slowdown_long, public_cost), 5 replications each;
* ``portfolio`` — JSSPP's portfolio scheduler on 100-job windows of the first 3,000 jobs of
  KTH-SP2, restricted (ours) to the 55 mixes of one or two policies at β/α = 1: (bsd, vm_hours),
  5 replications each.

An instance's ``reference`` is stored as package data (``mopt/suite_data/<name>.csv``), with the
command and seed that made it in its header; ``python experiments/suite_fronts.py <name>``
computes it again (:meth:`Instance.compute_reference`).  Its ``utilities`` are the first three of
the family's default utilities (:meth:`mopt.core.family.Family.default_utilities`), the ones
:func:`mopt.compare.compare` scores regret with.

Examples
--------
>>> import mopt
>>> s = mopt.suite()
>>> list(s)
['expert', 'vmc', 'koala', 'portfolio']
>>> s["expert"].n_designs, s["expert"].budget
(289, 2890)
>>> s["nope"]
Traceback (most recent call last):
...
mopt.suite.UnknownInstanceError: 'name' must be one of ['expert', 'vmc', 'koala', 'portfolio']; got 'nope'.
"""

from __future__ import annotations

import functools
import importlib.resources
import io
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from mopt.core.errors import InputError

__all__ = ["suite", "Instance", "Suite", "UnknownInstanceError", "DATA_PACKAGE"]

#: the package whose data holds the reference CSVs
DATA_PACKAGE = "mopt.suite_data"
#: the command that regenerates an instance's reference (``{name}``)
COMMAND = "python experiments/suite_fronts.py {name}"


def _expert():
    from mopt.scenario import load_scenario

    path = importlib.resources.files("mopt.expert").joinpath("examples/reference.toml")
    return load_scenario(str(path)).problem(seed=0)


def _vmc():
    from mopt.vmc.problem import VMPartitionProblem

    # the batches of examples/vmc_partition.toml without the fourth class; sub-intervals 120, 80, 100 s
    return VMPartitionProblem(16, [120.0, 80.0, 100.0], [[40, 10, 10], [0, 30, 0], [5, 5, 5]], elastic=True,
                              n_reps=5, seed=0)


def _koala():
    from mopt.koala.problem import TagsProblem
    from mopt.koala.traces import koala_trace

    jobs = koala_trace("KTH-SP2", first=3000)
    return TagsProblem(jobs, limits=[5, 10, 20, 40, 80, 160],
                       set2=[["C3", "private", "public"], ["private", "public"], ["public"]],
                       public_caps=[0, 16, 32], private_mins=[0, 8], window_days=(5.0, 10.0), n_reps=5, seed=0)


def _portfolio():
    from mopt.cloud.portfolio_problem import RATIOS, PortfolioProblem
    from mopt.core.subset import SubsetProblem
    from mopt.workloads.traces import load_trace

    jobs = load_trace("KTH-SP2", size_limit=256).iloc[:3000].reset_index(drop=True)
    jobs.attrs["trace"] = "KTH-SP2 (first 3,000 jobs)"
    full = PortfolioProblem(jobs, window=100, n_reps=5, seed=0)
    n_policies = full.n_var - 1
    ratio = RATIOS.index(1.0)
    mixes = [[j] for j in range(n_policies)] + [[a, b] for a in range(n_policies) for b in range(a + 1, n_policies)]
    designs = []
    for mix in mixes:
        x = np.zeros(full.n_var, dtype=np.int64)
        x[mix] = 1
        x[-1] = ratio
        designs.append(full.index(x))
    return SubsetProblem(full, designs)


@dataclass(eq=False)
class Instance:
    """One benchmark problem: how to build it, its exhaustive budget and its stored reference.

    Attributes
    ----------
    name, family, description : str
    n_reps : int
        Replications per design of exhaustive search (its budget is ``n_designs × n_reps``).
    truth_reps, truth_seed : int
        Replications per design and seed of the reference.
    """

    name: str
    family: str
    description: str
    n_reps: int
    truth_reps: int
    truth_seed: int
    make: object = field(repr=False)
    _problem: object = field(default=None, repr=False)

    @property
    def problem(self):
        """The :class:`~mopt.StochasticProblem` (built on first use: it may read a trace)."""
        if self._problem is None:
            self._problem = self.make()
        return self._problem

    @property
    def n_designs(self) -> int:
        return int(self.problem.n_designs)

    @property
    def budget(self) -> int:
        """Exhaustive search's replications: ``n_designs × n_reps``."""
        return self.n_designs * self.n_reps

    @property
    def command(self) -> str:
        """The command that recomputes the reference."""
        return COMMAND.format(name=self.name)

    @property
    def utilities(self) -> dict:
        """The first three of the family's default utilities: label -> utility."""
        from mopt.core.family import get_family

        found = get_family(self.family).default_utilities(tuple(self.problem.objectives))
        return dict(list(found.items())[:3])

    @property
    def reference(self) -> pd.DataFrame:
        """Every design's objective means (and standard errors) at ``truth_reps`` replications, as
        stored; ``attrs`` holds the header (command, seed, replications, versions, time)."""
        return read_reference(self.name)

    @property
    def reference_front(self) -> pd.DataFrame:
        """The Pareto-optimal rows of :attr:`reference`."""
        from mopt.core.pareto import pareto_mask

        table = self.reference
        return table[pareto_mask(table[list(self.problem.objectives)].to_numpy())].reset_index(drop=True)

    def compute_reference(self, progress: bool = False) -> pd.DataFrame:
        """The reference computed again: exhaustive search, ``truth_reps`` replications per design,
        seed ``truth_seed`` (what :attr:`reference` stores)."""
        from mopt.compare import ground_truth

        truth = ground_truth(self.problem, self.truth_reps, seed=self.truth_seed, progress=progress)
        objectives = list(self.problem.objectives)
        columns = ["design", *[c for o in objectives for c in (o, f"{o}_se")], "n_reps"]
        return truth[[c for c in columns if c in truth.columns]].reset_index(drop=True)


def reference_text(table: pd.DataFrame, header: dict) -> str:
    """The CSV of ``table`` with ``header`` (key: value) as leading ``#`` lines."""
    lines = [f"# {key}: {value}" for key, value in header.items()]
    body = io.StringIO()
    table.to_csv(body, index=False, float_format="%.17g", lineterminator="\n")
    return "\n".join(lines) + "\n" + body.getvalue()


@functools.cache
def _read(name: str) -> tuple[pd.DataFrame, dict]:
    resource = importlib.resources.files(DATA_PACKAGE).joinpath(f"{name}.csv")
    if not resource.is_file():
        raise InputError(f"the reference of suite instance {name!r} is not stored ({DATA_PACKAGE}/{name}.csv); "
                         f"make it with: {COMMAND.format(name=name)}")
    text = resource.read_text()
    header = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(": ")
        header[key] = value
    return pd.read_csv(io.StringIO(text), comment="#"), header


def read_reference(name: str) -> pd.DataFrame:
    """The stored reference of instance ``name`` (a copy), its header in ``attrs``."""
    table, header = _read(name)
    out = table.copy()
    out.attrs = dict(header)
    return out


class Suite(Mapping):
    """Name -> :class:`Instance`, in the order of :func:`suite`; an unknown name is an InputError
    naming the parameter ``name``."""

    def __init__(self, instances):
        self._instances = {i.name: i for i in instances}

    def __getitem__(self, name) -> Instance:
        if name not in self._instances:
            from mopt.core.inputs import suggest

            raise UnknownInstanceError(f"'name' must be one of {list(self._instances)}; got {name!r}"
                                       f"{suggest(name, self._instances) or '.'}")
        return self._instances[name]

    def __contains__(self, name) -> bool:
        return name in self._instances

    def __iter__(self):
        return iter(self._instances)

    def __len__(self) -> int:
        return len(self._instances)


class UnknownInstanceError(InputError, KeyError):
    """No instance of that name (a KeyError too, as a Mapping's lookups expect)."""

    def __str__(self) -> str:
        return str(self.args[0])


def suite() -> Suite:
    """The benchmark suite: ``expert``, ``vmc``, ``koala`` and ``portfolio`` (see the module's text).

    Problems are built on first use of :attr:`Instance.problem` (``koala`` and ``portfolio`` read
    KTH-SP2 from ``MOPT_DATA_DIR``, or fetch it).
    """
    return Suite([
        Instance("expert", "expert", "ExPERT's paper grid, Experiment 11 (289 strategies)", n_reps=10,
                 truth_reps=1000, truth_seed=2501, make=_expert),
        Instance("vmc", "vmc", "one period at 16 VMs, 3 classes, elastic (560 schedules; ours)", n_reps=5,
                 truth_reps=1000, truth_seed=2502, make=_vmc),
        Instance("koala", "koala", "TAGS-sets on KTH-SP2's first 3,000 records (84 configurations; ours)",
                 n_reps=5, truth_reps=200, truth_seed=2503, make=_koala),
        Instance("portfolio", "cloud", "JSSPP portfolios of 1-2 policies on KTH-SP2's first 3,000 jobs "
                 "(55 mixes; ours)", n_reps=5, truth_reps=100, truth_seed=2504, make=_portfolio),
    ])
