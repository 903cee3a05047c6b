"""Virtual-cluster scenario files (``family = "vmc"``): one period's VM partition, read by
:func:`mopt.scenario.load_scenario` and run by ``mopt frontier``, ``mopt compare``, ``mopt decide``::

    family = "vmc"

    [clusters]
    vms = 20                      # θ, VMs in all (with elastic = true: at most θ)
    classes = 7                   # optional, task classes = virtual clusters (default 7)
    elastic = false               # optional: Σθ_c ≤ vms, the VM count a second objective (ours)
    profile = "profile.csv"       # optional profiling table (mopt.vmc.profile columns), relative
                                  # to this file; default: the paper's row and ours
    cv = 0.25                     # optional, σ/μ of the default table's task times (not with profile)
    noise = "independent"         # optional: each schedule draws its own task times (the paper's,
                                  # default) or "common" random numbers shared by all (ours)

    [period]                      # the period [0, length) to schedule
    length = 300                  # seconds
    times = [0, 120, 200]         # batch arrival times in [0, length), sorted
    batches = [[40, 10, 10, 5, 5, 5, 5], [0, 30, 0, 0, 10, 0, 0], [5, 5, 5, 5, 5, 5, 5]]
    backlog = [0, 0, 0, 0, 0, 0, 0]   # optional, tasks waiting at 0
    # or, instead of times and batches, a generated workload (ours, mopt.vmc.workload):
    # workload = "HFHD"           # LFLD, LFHD, HFLD or HFHD
    # workload_seed = 1

    [run]                         # optional (mopt.scenario.parse_run)
    method = "oo"
    n_reps = 100
    seed = 1

The objective is ``clear_time`` (seconds to clear the period's work; :mod:`mopt.vmc.problem`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from mopt.core.errors import InputError, check_array, check_int, check_number
from mopt.core.family import Key, Section
from mopt.core.inputs import canonical
from mopt.scenario import RUN_KEYS, Scenario, check_keys, parse_run, scenario_path, where
from mopt.vmc.period import MAX_BATCH, check_workload, intervals
from mopt.vmc.problem import VMPartitionProblem, check_noise
from mopt.vmc.profile import class_tables, default_table, read_table
from mopt.vmc.space import MAX_CLASSES, MAX_COUNT, MAX_THETA
from mopt.vmc.workload import KINDS, generate

__all__ = ["KEYS", "VMCScenario", "parse"]

#: the scenario file's sections (``[run]``: :data:`mopt.scenario.RUN_KEYS`); the parser's tables
#: of allowed and required keys below are derived from it, and so is the docs' reference
KEYS = {
    "clusters": Section(
        "The virtual clusters: one per task class, sharing θ VMs; a schedule gives each θ_c >= 1.",
        {
            "vms": Key("θ, the VMs in all (with `elastic = true`: at most θ)", required=True,
                       type="integer in [classes, 10,000]"),
            "classes": Key("task classes C, one virtual cluster each", type="integer in [1, 100]",
                           default="7"),
            "elastic": Key("Σθ_c <= vms and the VM count a second objective (ours)", type="boolean",
                           default="false"),
            "profile": Key("profiling table, relative to the scenario file (columns of "
                           "`mopt.vmc.profile`; it must cover every class and cluster size)",
                           type="path", default="the paper's row and ours (`mopt.vmc.default_table()`)"),
            "cv": Key("σ/μ of the task times in the default profiling table (a sensitivity run; the "
                      "paper's row has 0.25); not with `profile`", type="number >= 0", default="0.25",
                      when="no profile"),
            "noise": Key("each schedule draws its own task times (`independent`, the paper's Algorithm 1) "
                         "or every schedule shares one draw per replication, sub-interval and class "
                         "(`common` random numbers, ours: a variance reduction the paper does not use)",
                         type='"independent" or "common"', default='"independent"'),
        },
        required=True,
    ),
    "period": Section(
        "The period [0, length) to schedule and the work that arrives in it: explicit batches "
        "(`times` and `batches`) or a generated workload (`workload`), one of the two.",
        {
            "length": Key("length of the period [s]", required=True, type="number > 0 [s]"),
            "times": Key("batch arrival times, sorted, in [0, length) [s]; with `batches`",
                         type="list of numbers [s]", when="no workload"),
            "batches": Key("tasks of each class arriving at each time: one row per time, one column "
                           "per class; with `times`", type="list of lists of numbers >= 0",
                           when="no workload"),
            "backlog": Key("tasks of each class waiting at time 0", type="list of numbers >= 0",
                           default="none"),
            "workload": Key("a generated workload (ours, `mopt.vmc.workload`) instead of `times` and "
                            "`batches`", type=" or ".join(f'"{kind}"' for kind in KINDS),
                            when="no times and batches"),
            "workload_seed": Key("the seed of the generated workload", type="integer >= 0",
                                 default="1", when="workload"),
        },
        required=True,
    ),
}
SECTIONS = {**{name: section.required for name, section in KEYS.items()}, "run": RUN_KEYS.required}
CLUSTER_KEYS = KEYS["clusters"]
PERIOD_KEYS = KEYS["period"]


@dataclass(frozen=True, kw_only=True)
class VMCScenario(Scenario):
    """A loaded ``family = "vmc"`` file (see the module's text)."""

    theta: int = 20
    n_classes: int = 7
    elastic: bool = False
    table: object = None
    lengths: tuple = ()
    arrivals: tuple = ()
    backlog: tuple | None = None
    noise: str = "independent"

    legend: ClassVar[str] = "clear_time [s]"

    def problem(self, n_reps: int | None = None, seed: int | None = None) -> VMPartitionProblem:
        return VMPartitionProblem(self.theta, np.array(self.lengths), np.array(self.arrivals),
                                  None if self.backlog is None else np.array(self.backlog), table=self.table,
                                  elastic=self.elastic, noise=self.noise, n_reps=self.n_reps if n_reps is None else n_reps,
                                  seed=self.seed if seed is None else seed)

    def intro(self, problem) -> list[str]:
        return [f"{self.theta} VMs over {self.n_classes} virtual clusters: {problem.n_designs:,} schedules; "
                f"{len(self.lengths)} sub-intervals, {float(np.sum(self.arrivals)):g} tasks arriving."]


def _bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"'{name}' must be true or false; got {value!r}.")
    return value


def _no_bools(name: str, value) -> None:
    """Refuse true/false among numbers (numpy would read them as 1 and 0)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, bool):
            raise InputError(f"'{name}' must hold numbers; got {v!r} in {value!r}.")
        if isinstance(v, list):
            stack.extend(v)


def parse(path: Path, doc: dict) -> VMCScenario:
    """Check the document of a ``family = "vmc"`` file and return its scenario."""
    check_keys(path, None, doc, SECTIONS)
    for name in ("clusters", "period"):
        if not isinstance(doc[name], dict):
            raise InputError(f"{path}: '{name}' must be a section [{name}]; got {doc[name]!r}.")
    cl, pe = doc["clusters"], doc["period"]
    check_keys(path, "clusters", cl, CLUSTER_KEYS)
    check_keys(path, "period", pe, PERIOD_KEYS)
    with where(path, "clusters"):
        theta = check_int("vms", cl["vms"], low=1, high=MAX_THETA)
        C = check_int("classes", cl.get("classes", 7), low=1, high=MAX_CLASSES)
        if theta < C:
            raise InputError(f"'vms' must be >= classes={C} (every class needs a VM); got {theta}.")
        elastic = _bool("elastic", cl.get("elastic", False))
        noise = check_noise(cl.get("noise", "independent"))
        count = math.comb(theta, C) if elastic else math.comb(theta - 1, C - 1)
        if count >= MAX_COUNT:
            raise InputError(f"'vms' = {theta} over classes = {C}{' (elastic)' if elastic else ''} gives more "
                             "than 2**62 schedules; use fewer VMs or classes.")
        table = None
        if "cv" in cl:
            if "profile" in cl:
                raise InputError("give 'cv' or 'profile', not both ('cv' scales the default table).")
            _no_bools("cv", cl["cv"])
            table = default_table(C, check_number("cv", cl["cv"], low=0))
        if "profile" in cl:
            if not isinstance(cl["profile"], str):
                raise InputError(f"'profile' must be a file name; got {cl['profile']!r}.")
            try:
                table = read_table(scenario_path(path, "profile", cl["profile"]))
            except InputError as exc:
                raise InputError(f"'profile': {exc}") from None
            try:
                class_tables(table, C, theta)  # a row for every class and cluster size
            except InputError as exc:
                raise InputError(f"'profile' {cl['profile']!r} does not cover these clusters: {exc}") from None
    with where(path, "period"):
        length = check_number("length", pe["length"], low=0, low_open=True)
        explicit = "times" in pe or "batches" in pe
        if explicit == ("workload" in pe):
            raise InputError("give either 'times' and 'batches' or 'workload'.")
        if explicit:
            if "times" not in pe or "batches" not in pe:
                raise InputError(f"'{'batches' if 'times' in pe else 'times'}' is missing (times and batches "
                                 "go together).")
            _no_bools("times", pe["times"])
            _no_bools("batches", pe["batches"])
            times, batches = check_workload(pe["times"], pe["batches"], C)
            if times[0] < 0 or times[-1] >= length:
                raise InputError(f"'times' must lie in [0, length={length:g}); got {times[0]:g}..{times[-1]:g}.")
        else:
            pe = {**pe, "workload": canonical(pe["workload"], KINDS, "'workload'")}  # "lfld" is LFLD
            seed = check_int("workload_seed", pe.get("workload_seed", 1), low=0)
            try:
                w = generate(pe["workload"], theta, length, length, seed, n_classes=C)
            except ValueError:  # numpy's own (a Poisson mean too large to draw from)
                w = None
            if w is None or (w.batches.size and w.batches.max() > MAX_BATCH):
                raise InputError(f"the {pe['workload']} workload over 'length' = {length:g} s has batches of more than "
                                 f"{MAX_BATCH:.0e} tasks of a class; use a shorter 'length'.")
            if len(w.times) == 0:
                raise InputError(f"the generated workload has no batch in [0, {length:g}); use a longer 'length'.")
            times, batches = w.times, w.batches
        backlog = None
        if "backlog" in pe:
            _no_bools("backlog", pe["backlog"])
            backlog = tuple(check_array("backlog", pe["backlog"], ndim=1, shape=(C,), nonnegative=True).tolist())
            if max(backlog) > MAX_BATCH:  # as for a batch: beyond it no period clears
                raise InputError(f"'backlog' must hold at most {MAX_BATCH:.0e} tasks of a class; got "
                                 f"{max(backlog):g} (class {backlog.index(max(backlog)) + 1}).")
        L, A = intervals(times, batches, 0.0, length)
    run = parse_run(path, doc.get("run", {}))
    sc = VMCScenario(family="vmc", path=path, theta=theta, n_classes=C, elastic=elastic, table=table, noise=noise,
                     lengths=tuple(L.tolist()), arrivals=tuple(map(tuple, A.tolist())), backlog=backlog, **run)
    try:
        sc.problem()  # bad combinations fail at load time
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    return sc
