"""KOALA-C scenario files (``family = "koala"``): a TagsProblem from TOML.

Read through :func:`mopt.scenario.load_scenario` (``mopt frontier``, ``mopt compare``)::

    family = "koala"

    [trace]
    name = "CTC-SP2"          # KTH-SP2, CTC-SP2, SDSC-BLUE, LCG, a trace file in MOPT_DATA_DIR,
                              # or an SWF file relative to this TOML file
    first = 50000             # optional: keep the first records (LCG: 50,000 by default)

    [grid]                    # optional; absent = spec §6's whole grid (21,312 designs)
    limits = [10, 20, 40, 80] # L1 in minutes
    set2 = [["C3", "private", "public"], ["private", "public"]]
    public_caps = [0, 32, 128]
    private_mins = [8]
    limits2 = [120, 240]      # optional: three sets, L2 in minutes (L2 > L1)
    set3 = [["private", "public"]]  # optional with limits2: candidate sets 3 (proper subsets of set 2)

    [replication]             # optional
    window_days = [14, 28]    # window length range (days)
    load = [0.8, 1.3]         # drawn offered load, of the three clusters' 96 nodes
    step = 30                 # scheduler period (s)

    [run]                     # the same for every family (mopt.scenario.parse_run)
    method = "mocba"
    n_reps = 5
    seed = 1
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pandas as pd

from mopt.core.errors import InputError, check_int
from mopt.core.family import Key, Section
from mopt.koala.problem import TagsProblem
from mopt.koala.traces import koala_trace
from mopt.scenario import RUN_KEYS, Scenario, check_keys, parse_run, scenario_trace, where

__all__ = ["KEYS", "KoalaScenario", "parse"]

#: the scenario file's sections (``[run]``: :data:`mopt.scenario.RUN_KEYS`); the parser's tables
#: of allowed and required keys below are derived from it, and so is the docs' reference
KEYS = {
    "trace": Section(
        "The jobs: a trace, cleaned as in KOALA-C (run time > 0, 1..32 processors).",
        {
            "name": Key("KTH-SP2, CTC-SP2, SDSC-BLUE, LCG, a trace file in MOPT_DATA_DIR, or an SWF "
                        "file relative to the scenario file", required=True, type="trace name or path"),
            "first": Key("keep the first records of the file (before cleaning)", type="integer >= 1",
                         default="all (LCG: 50,000)"),
        },
        required=True,
    ),
    "grid": Section(
        "The TAGS-sets configurations to search; absent: the whole grid (21,312 designs). "
        "Site names: C1, C2, C3, private, public.",
        {
            "limits": Key("L1, the first set's runtime limit [min]", type="list of distinct numbers in (0, 525,600] [min]",
                          default="5..240 by 5"),
            "set2": Key("candidate sets 2 (proper subsets of the five sites)",
                        type="list of lists of site names", default="every proper non-empty subset (30)"),
            "public_caps": Key("the public cloud's cap on VMs", type="list of integers in [0, 100,000]",
                               default="[0, 16, 32, 64, 128]"),
            "private_mins": Key("VMs the private cloud keeps up", type="list of integers in [0, 64]",
                                default="[0, 8, 16]"),
            "limits2": Key("L2, the second limit [min]: three sets (L2 > L1)",
                           type="list of numbers in (0, 525,600] [min]", default="none: two sets"),
            "set3": Key("candidate sets 3, proper subsets of set 2", type="list of lists of site names",
                        default="every proper non-empty subset", when="limits2"),
        },
    ),
    "replication": Section(
        "What one replication is: a random window of the trace with its arrivals rescaled to a "
        "drawn offered load (common random numbers).",
        {
            "window_days": Key("range of the window's length [days]", type="pair [low, high] of numbers > 0",
                               default="[14, 28]"),
            "load": Key("range of the drawn offered load, of the three clusters' 96 nodes",
                        type="pair [low, high] of numbers >= 0.001", default="[0.8, 1.3]"),
            "step": Key("the scheduler's period [s]", type="number in (0, 3600) [s]", default="30"),
        },
    ),
}
_SECTIONS = {**{name: section.required for name, section in KEYS.items()}, "run": RUN_KEYS.required}
_TRACE = KEYS["trace"]
_GRID = KEYS["grid"]
_REPLICATION = KEYS["replication"]


@dataclass(frozen=True, kw_only=True)
class KoalaScenario(Scenario):
    """A loaded KOALA-C scenario: the trace and the TagsProblem's keyword arguments.

    Examples
    --------
    >>> from mopt.scenario import load_scenario
    >>> sc = load_scenario("ctc.toml")  # doctest: +SKIP
    >>> sc.problem().objectives  # doctest: +SKIP
    ('slowdown_short', 'slowdown_long', 'public_cost')
    """

    family: str = "koala"
    trace: str = ""
    jobs: pd.DataFrame = field(default=None, compare=False, repr=False)
    problem_kwargs: dict = field(default_factory=dict)

    legend: ClassVar[str] = "mean slowdown of short and of long jobs, public-cloud cost [$]"

    def problem(self, n_reps: int | None = None, seed: int | None = None) -> TagsProblem:
        return TagsProblem(self.jobs, **self.problem_kwargs, n_reps=self.n_reps if n_reps is None else n_reps,
                           seed=self.seed if seed is None else seed)

    def intro(self, problem) -> list[str]:
        lo, hi = problem.load
        return [f"trace {self.trace}: {len(self.jobs):,} jobs; replications = {problem.window_days[0]:g}-"
                f"{problem.window_days[1]:g}-day windows at an offered load of {lo:g}-{hi:g} of the 96 cluster "
                f"nodes; {problem.n_excluded} designs left out (set 2 cannot hold the largest job)."]


def parse(path: Path, doc: dict) -> KoalaScenario:
    """Check a KOALA-C scenario document (see the module docstring for the schema).

    Raises
    ------
    InputError
        Unknown or missing sections and keys, bad values, a trace that cannot be read — naming the
        file, the section and the key.
    """
    check_keys(path, None, doc, _SECTIONS)
    sections = {}
    for name in _SECTIONS:
        value = doc.get(name, {})
        if not isinstance(value, dict):
            raise InputError(f"{path}: '{name}' must be a section [{name}]; got {value!r}.")
        sections[name] = value
    check_keys(path, "trace", sections["trace"], _TRACE)
    check_keys(path, "grid", sections["grid"], _GRID)
    check_keys(path, "replication", sections["replication"], _REPLICATION)
    with where(path, "trace"):
        name = sections["trace"]["name"]
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"'name' must be a trace name or file; got {name!r}.")
        first = sections["trace"].get("first")
        first = None if first is None else check_int("first", first, low=1)
        jobs = koala_trace(scenario_trace(path, "name", name), first=first)  # never a file outside
    run = parse_run(path, sections["run"])
    kwargs = {**sections["grid"], **sections["replication"]}
    scenario = KoalaScenario(path=Path(path), trace=name, jobs=jobs, problem_kwargs=kwargs, **run)
    try:
        scenario.problem()
    except (InputError, TypeError, ValueError) as exc:  # named by the section of the key it names
        section = "replication" if any(f"'{key}'" in str(exc) for key in _REPLICATION) else "grid"
        with where(path, section):
            raise exc from None
    return scenario
