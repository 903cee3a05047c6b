"""Cloud scenario files (``family = "cloud"``): the portfolio-mix problem in TOML, read by
:func:`mopt.scenario.load_scenario` and run by ``mopt frontier``.

::

    family = "cloud"

    [workload]                    # what a replication replays
    trace = "KTH-SP2"             # an archive trace (jobs of at most max_vms processors)
    kind = "trace"                # "trace": a random window of the trace; "synthetic": a JSSPP
                                  # arrival pattern with runtimes drawn from the trace
    window = 100                  # jobs per replication
    patterns = ["Steady", "Bursty"]  # optional, for kind = "synthetic" (default all five)

    [cloud]                       # optional (SC13's cloud)
    boot_delay = 120              # s
    max_vms = 256
    period = 1                    # selection period in 20 s ticks
    kappa = 100
    vm_key = "mod"                # BestFit/WorstFit's key: "mod" or "binpack" (spec §3)

    [run]                         # as for every family (mopt.scenario.parse_run)
    method = "mocba"
    n_reps = 3
    seed = 1
    budget = 3000

The designs are :class:`~mopt.cloud.portfolio_problem.PortfolioProblem`'s: a non-empty mix of
JSSPP's 10 policies × β/α in {¼, ½, 1, 2, 4}; the objectives are mean bounded slowdown and charged
VM-hours.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from mopt.cloud.policies import check_vm_key
from mopt.cloud.portfolio_problem import WORKLOADS, PortfolioProblem
from mopt.cloud.simulate import MAX_PERIOD, MAX_TIME, MAX_VMS
from mopt.core.errors import InputError, check_int, check_number
from mopt.core.family import Key, Section
from mopt.scenario import RUN_KEYS, Scenario, check_keys, parse_run, scenario_trace, where

__all__ = ["KEYS", "CloudScenario", "parse"]

#: the scenario file's sections (``[run]``: :data:`mopt.scenario.RUN_KEYS`); the parser's tables
#: of allowed and required keys below are derived from it, and so is the docs' reference
KEYS = {
    "workload": Section(
        "What one replication replays; every design sees the same workload in replication r "
        "(common random numbers).",
        {
            "trace": Key("an archive trace (`mopt traces list`; jobs of at most `max_vms` processors)",
                         required=True, type="trace name"),
            "kind": Key('"trace": a random window of the trace; "synthetic": a JSSPP arrival pattern '
                        "with runtimes drawn from the trace", type='"trace" or "synthetic"',
                        default='"trace"'),
            "window": Key("jobs per replication", type="integer >= 1 (at most the trace's jobs)",
                          default="200"),
            "patterns": Key('for kind = "synthetic": the arrival patterns to draw from (Steady, '
                            "Increment, Decline, Periodic, Bursty)", type="list of pattern names",
                            default="all five"),
        },
        required=True,
    ),
    "cloud": Section(
        "The cloud the portfolio runs on (default SC13's).",
        {
            "boot_delay": Key("seconds before a leased VM is usable", type="seconds, a number in [0, 1e12]",
                              default="120"),
            "max_vms": Key("the cap on leased VMs (also the widest job kept)", type="integer in [1, 100,000]",
                           default="256"),
            "period": Key("selection period, in 20 s ticks", type="integer in [1, 10^9]", default="1"),
            "kappa": Key("κ, the scale of the utility U = κ·(R_J/R_V)^α·(1/BSD)^β",
                         type="number > 0", default="100"),
            "vm_key": Key('BestFit/WorstFit\'s key: "mod", the leftover of the last paid hour '
                          '(r − t) mod 3600; "binpack", the signed r − t (bin packing in the paid '
                          "time). JSSPP's policies all use FirstFit, which neither key changes",
                          type='"mod" or "binpack"', default='"mod"'),
        },
    ),
}
_SECTIONS = {**{name: section.required for name, section in KEYS.items()}, "run": RUN_KEYS.required}
_WORKLOAD = KEYS["workload"]
_CLOUD = KEYS["cloud"]


@dataclass(frozen=True, kw_only=True)
class CloudScenario(Scenario):
    """A loaded cloud scenario file: :class:`mopt.scenario.Scenario` and the problem's arguments.

    Examples
    --------
    >>> from mopt.scenario import load_scenario
    >>> sc = load_scenario("examples/portfolio_mix.toml")  # doctest: +SKIP
    >>> sc.problem().n_designs  # doctest: +SKIP
    5115
    """

    family: str = "cloud"
    problem_kwargs: dict = field(default_factory=dict)

    legend: ClassVar[str] = "bsd = mean bounded slowdown, vm_hours = charged VM-hours"

    def problem(self, n_reps: int | None = None, seed: int | None = None) -> PortfolioProblem:
        """The portfolio-mix problem of this scenario (``n_reps``, ``seed``: defaults from [run])."""
        return PortfolioProblem(**self.problem_kwargs,
                                n_reps=self.n_reps if n_reps is None else n_reps,
                                seed=self.seed if seed is None else seed)


def parse(path: Path, doc: dict) -> CloudScenario:
    """Check a cloud scenario document (the family interface of :mod:`mopt.scenario`)."""
    check_keys(path, None, doc, _SECTIONS)
    sections = {}
    for name in _SECTIONS:
        value = doc.get(name, {})
        if not isinstance(value, dict):
            raise InputError(f"{path}: '{name}' must be a section [{name}]; got {value!r}.")
        sections[name] = value
    check_keys(path, "workload", sections["workload"], _WORKLOAD)
    check_keys(path, "cloud", sections["cloud"], _CLOUD)
    work = sections["workload"]
    kwargs = {"jobs": work["trace"], "workload": work.get("kind", "trace")}
    for key in ("window", "patterns"):
        if key in work:
            kwargs[key] = work[key]
    with where(path, "cloud"):
        cloud = sections["cloud"]
        for key, high in (("max_vms", MAX_VMS), ("period", MAX_PERIOD)):
            if key in cloud:
                kwargs[key] = check_int(key, check_int(key, cloud[key], low=1), high=high)
        if "boot_delay" in cloud:
            kwargs["boot_delay"] = check_number("boot_delay", cloud["boot_delay"], low=0, high=MAX_TIME)
        if "kappa" in cloud:
            kwargs["kappa"] = check_number("kappa", cloud["kappa"], low=0, low_open=True)
        if "vm_key" in cloud:
            kwargs["vm_key"] = check_vm_key(cloud["vm_key"])
    with where(path, "workload"):
        if not isinstance(kwargs["jobs"], str):
            raise InputError(f"'trace' must be a trace name; got {kwargs['jobs']!r}.")
        kwargs["jobs"] = os.fspath(scenario_trace(path, "trace", kwargs["jobs"]))  # never a file outside
        if not isinstance(kwargs["workload"], str) or kwargs["workload"] not in WORKLOADS:
            raise InputError(f"'kind' must be 'trace' or 'synthetic'; got {kwargs['workload']!r}.")
    run = parse_run(path, sections["run"])
    scenario = CloudScenario(problem_kwargs=kwargs, path=path, **run)
    with where(path, "workload"):  # the values are checked where the problem is built
        scenario.problem()
    return scenario
