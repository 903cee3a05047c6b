"""ExPERT scenario files (``family = "expert"``, the default): an environment, a strategy grid and
run settings in TOML, read by :func:`mopt.scenario.load_scenario`.

A scenario file has four sections; every key is checked, and a mistyped one is an error that names
the file, the section and the key, with a suggestion::

    [environment]                 # a bag of tasks on an unreliable + a reliable pool (ExPERT Table I)
    n_tasks = 150
    n_unreliable = 50             # #ur, effective size of the unreliable pool
    t_ur = 2066                   # mean CPU time of a successful unreliable instance [s]
    t_r = 2066                    # task time on a reliable machine [s] (optional, default t_ur)
    c_ur = "1/3600"               # cents per second; a number or a fraction string "a/b"
    c_r = "34/3600"
    mr_max = 0.1                  # optional, default 0.1
    charging_period_r = 1         # optional, default 1 (per second; 3600 = started hours)

    [turnaround]                  # F(t, t') = F_s(t)·γ(t')
    kind = "shifted_lognormal"    # F_s: a lognormal shifted to start at `shift`, scaled to `mean`
    mean = 2066
    shift = 1000
    sigma = 0.5                   # optional, default 0.5 (log space)
    reliability = 0.827           # γ

    # or, from observed instances (CSV with columns send_time, turnaround_time;
    # "inf" or an empty field = no result; extra columns are ignored):
    # kind = "instances"
    # file = "instances.csv"      # relative to this TOML file
    # deadline = 8264             # D of the observed instances [s]
    # t_tail = 20000              # optional: online γ as known at T_tail (default: offline γ)
    # group_size = 50             # optional

    # Online use: instead of [turnaround], a log of the throughput phase observed up to T_tail
    # (CSV with columns task, send_time, result_time; an empty result_time = no result yet).
    # The turnaround model is the online one (γ as known at t_tail), n_tasks comes from the log
    # (optional in [environment]; if given it must agree), t_ur defaults to the observed mean
    # successful turnaround, and the tail starts from the observed state (mopt.expert.observe).
    # [observed]
    # file = "online_log.csv"     # relative to this TOML file
    # t_tail = 34586              # the decision time T_tail [s]
    # deadline = 8264             # deadline of the logged instances (D_0 = 4·t_ur) [s]
    # group_size = 50             # optional, default 50

    [grid]                        # optional; absent = the paper's grid
    preset = "paper"              # or "high_resolution"; lists below override the preset
    N = [0, 1, 2, 3, "inf"]       # "inf" (or TOML's inf) = never use the reliable pool
    T = [0, 1033, 2066]
    D = [2066, 4132]
    Mr = [0.02, 0.1]

    [run]                         # optional
    method = "exhaustive"         # one of mopt.METHODS
    n_reps = 10
    seed = 1
    budget = 2890                 # optional, replications
    options = { n0 = 5 }          # optional, options of `method` (see mopt.scenario)

Costs (``c_ur``, ``c_r``) may be numbers or simple fraction strings ``"a/b"`` of two non-negative
decimal numbers (``"34/3600"`` is 34/3600 cent/s, EC2 m1.large's rate in the paper).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import numbers
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.family import Key, Section
from mopt.core.inputs import read_text
from mopt.expert.environment import Environment, shifted_lognormal
from mopt.expert.online import ObservedTail, ThroughputLog, observe
from mopt.expert.problem import NTDMrProblem, high_resolution_grid
from mopt.expert.turnaround import TurnaroundModel
from mopt.scenario import RUN_KEYS, Scenario, check_keys, parse_run, scenario_path, suggest, where

__all__ = ["KEYS", "ExpertScenario", "parse"]

#: the kinds of ``[turnaround]``, each with its own keys (``Key.when``)
TURNAROUND_KINDS = ("shifted_lognormal", "instances")


def _kind(kind: str) -> str:
    return f'kind = "{kind}"'


#: the scenario file's sections (``[run]``: :data:`mopt.scenario.RUN_KEYS`); the parser's tables
#: of allowed and required keys below are derived from it, and so is the docs' reference
KEYS = {
    "environment": Section(
        "A bag of tasks on an unreliable pool (grid machines) and a reliable one (cloud machines): "
        "ExPERT's Table I.",
        {
            "n_tasks": Key("tasks in the bag; with `[observed]` optional (the log's tasks; if given "
                           "it must agree)", required=True, type="integer in [1, 10^6]"),
            "n_unreliable": Key("#ur, the effective size of the unreliable pool", required=True,
                                type="integer in [1, 10^6]"),
            "t_ur": Key("mean CPU time of a successful instance on an unreliable machine [s]; with "
                        "`[observed]` optional (default: the log's mean successful turnaround)",
                        required=True, type="number > 0 [s]"),
            "t_r": Key("task time on a reliable machine [s]", type="number > 0 [s]", default="t_ur"),
            "c_ur": Key("cost of an unreliable machine [cent/s]: a number or a fraction string "
                        '"a/b" ("1/3600")', required=True, type='number >= 0 or "a/b"'),
            "c_r": Key("cost of a reliable machine [cent/s] (\"34/3600\" is EC2 m1.large's rate in "
                       "the paper)", required=True, type='number >= 0 or "a/b"'),
            "mr_max": Key("M_r^max, the largest ratio M_r of reliable to unreliable machines",
                          type="number >= 0", default="0.1"),
            "charging_period_r": Key("seconds per charged unit on the reliable pool (1 = per second, "
                                     "3600 = started hours)", type="number > 0 [s], at most a year",
                                     default="1"),
        },
        required=True,
    ),
    "turnaround": Section(
        "The turnaround model F(t, t') = F_s(t)·γ(t') of the unreliable pool: parametric, or built "
        "from observed instances. A file gives `[turnaround]` or `[observed]`, not both.",
        {
            "kind": Key("which model: a shifted lognormal F_s and a constant γ, or observed "
                        "instances", required=True,
                        type=" or ".join(f'"{kind}"' for kind in TURNAROUND_KINDS)),
            "mean": Key("mean of F_s [s]", required=True, type="number > shift [s]",
                        when=_kind("shifted_lognormal")),
            "shift": Key("where F_s starts: the shortest turnaround [s]", required=True,
                         type="number >= 0 [s]", when=_kind("shifted_lognormal")),
            "sigma": Key("σ of the lognormal, in log space", type="number > 0", default="0.5",
                         when=_kind("shifted_lognormal")),
            "reliability": Key("γ, the probability that an instance returns a result", required=True,
                               type="number in [0, 1]", when=_kind("shifted_lognormal")),
            "file": Key("CSV of observed instances, relative to the scenario file: columns "
                        "`send_time`, `turnaround_time` (`inf` or empty: no result; other columns "
                        "ignored)", required=True, type="path", when=_kind("instances")),
            "deadline": Key("D of the observed instances [s]", required=True, type="number > 0 [s]",
                            when=_kind("instances")),
            "t_tail": Key("build the online γ, as known at T_tail [s]", type="number >= 0 [s]",
                          default="the offline γ (every result known)", when=_kind("instances")),
            "group_size": Key("instances per group when γ is estimated by send time",
                              type="integer >= 1", default="50", when=_kind("instances")),
        },
    ),
    "observed": Section(
        "Online use (the paper's Fig. 4): instead of `[turnaround]`, a log of the throughput phase "
        "observed up to T_tail. The turnaround model is the online one, `n_tasks` comes from the "
        "log, and every replication's tail starts from the observed state.",
        {
            "file": Key("CSV log, relative to the scenario file: columns `task`, `send_time`, "
                        "`result_time` (empty: no result yet)", required=True, type="path"),
            "t_tail": Key("the decision time T_tail [s]", required=True, type="number [s]"),
            "deadline": Key("deadline of the logged instances (D_0 = 4·t_ur) [s]", required=True,
                            type="number > 0 [s]"),
            "group_size": Key("instances per group when γ is estimated by send time",
                              type="integer >= 1", default="50"),
        },
    ),
    "grid": Section(
        "The NTDM_r strategies to search; absent: the paper's grid. Lists given override the "
        "preset's; a single value counts as a list of one.",
        {
            "preset": Key('"paper": N = 0..3 and ∞, T ∈ {0, ½, 1, 2, 4}·t_ur, D ∈ {¾, 1, 1½, 2, 4}·t_ur '
                          '(T ≤ D), M_r from 0.02 to M_r^max; "high_resolution": N = 0..5 and ∞, '
                          "T and D at 20 values, ten M_r values", type='"paper" or "high_resolution"',
                          default='"paper"'),
            "N": Key('unreliable instances per task before the reliable one; "inf" (or TOML\'s inf): '
                     "never use the reliable pool", type='list of integers >= 0 or "inf"',
                     default="the preset's"),
            "T": Key("time since a task's last instance was sent before it gets another [s]",
                     type="list of numbers >= 0 [s]", default="the preset's"),
            "D": Key("deadline of an unreliable instance [s]", type="list of numbers > 0 [s]",
                     default="the preset's"),
            "Mr": Key("reliable machines per unreliable one, M_r (0: no reliable pool)",
                      type="list of numbers in [0, mr_max]", default="the preset's"),
        },
    ),
}
_SECTIONS = {**{name: section.required for name, section in KEYS.items()}, "run": RUN_KEYS.required}
_ENVIRONMENT = KEYS["environment"]
_TURNAROUND = {kind: {k: key for k, key in KEYS["turnaround"].items() if key.when in ("", _kind(kind))}
               for kind in TURNAROUND_KINDS}
_OBSERVED = KEYS["observed"]
_GRID = KEYS["grid"]
#: printed wherever results of a parametric F_s are shown: :func:`fs_note` of the scenario
FS_NOTE = ("note: F_s is a parametric shifted lognormal (for the reference scenario, a stand-in for the "
           "paper's Fig. 5 CDF, which is not available as data).")
#: the reference scenario's environment and F_s (mopt.expert.reference_environment)
_REFERENCE = {"n_tasks": 150, "n_unreliable": 50, "t_ur": 2066.0, "mean": 2066.0, "shift": 1000.0, "sigma": 0.5}


def fs_note(env: Environment, mean: float, shift: float, sigma: float) -> str:
    """The note on a scenario's parametric F_s (its ``[turnaround]`` ``mean``, ``shift``,
    ``sigma``): the paper's Fig. 5 is named only for the reference scenario.

    Examples
    --------
    >>> from mopt.expert import wl3_environment
    >>> print(fs_note(wl3_environment(), 1911, 1484, 0.5))
    note: F_s is this scenario's parametric shifted lognormal (mean 1911 s, from 1484 s, sigma 0.5), a model of its CPU times, not a measured distribution.
    """
    values = {"n_tasks": env.n_tasks, "n_unreliable": env.n_unreliable, "t_ur": env.t_ur,
              "mean": mean, "shift": shift, "sigma": sigma}
    if all(math.isclose(float(values[k]), v) for k, v in _REFERENCE.items()):
        return FS_NOTE
    return (f"note: F_s is this scenario's parametric shifted lognormal (mean {mean:g} s, from {shift:g} s, "
            f"sigma {sigma:g}), a model of its CPU times, not a measured distribution.")
_PRESETS = ("paper", "high_resolution")
_FRACTION = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*/\s*(\d+(?:\.\d*)?|\.\d+)\s*$")


@dataclass(frozen=True, kw_only=True)
class ExpertScenario(Scenario):
    """A loaded ExPERT scenario file (the fields of :class:`mopt.scenario.Scenario` and these).

    Attributes
    ----------
    env : Environment
    problem_kwargs : dict
        The grid, ``N``, ``T``, ``D``, ``Mr`` lists for :class:`~mopt.expert.NTDMrProblem`
        (empty: the paper's grid).
    turnaround_kind : str
        ``"shifted_lognormal"``, ``"instances"`` or ``"observed"`` (an ``[observed]`` log).
    observed : ObservedTail or None
        With ``[observed]``: the tail state at ``t_tail``; the problem starts every replication's
        tail from it.

    Examples
    --------
    >>> from mopt.scenario import load_scenario
    >>> sc = load_scenario("examples/reference.toml")  # doctest: +SKIP
    >>> sc.problem().n_designs  # doctest: +SKIP
    289
    """

    env: Environment
    family: str = "expert"
    problem_kwargs: dict = field(default_factory=dict)
    turnaround_kind: str = "shifted_lognormal"
    observed: ObservedTail | None = field(default=None, compare=False, repr=False)
    #: the note on a parametric F_s (:func:`fs_note`), "" for another turnaround model
    note: str = field(default="", compare=False, repr=False)

    legend: ClassVar[str] = "makespan = tail phase [s], cost [cent/task]"

    def problem(self, n_reps: int | None = None, seed: int | None = None) -> NTDMrProblem:
        """The NTDM_r problem of this scenario (``n_reps``, ``seed``: defaults from ``[run]``)."""
        return NTDMrProblem(
            self.env,
            **self.problem_kwargs,
            n_reps=self.n_reps if n_reps is None else n_reps,
            seed=self.seed if seed is None else seed,
            observed=self.observed,
        )

    def intro(self, problem: NTDMrProblem) -> list[str]:
        """Strategies left out, the observed tail state and the F_s note."""
        lines = []
        if problem.n_excluded:
            lines.append(f"{problem.n_excluded} strategies that can never finish left out.")
        if self.observed is not None:
            tail = self.observed
            lines.append(f"observed: the tail starts at T_tail = {tail.t_tail:g} s with {tail.n_remaining} of "
                         f"{tail.n_tasks} tasks remaining (online turnaround model; t_ur = {self.env.t_ur:.1f} s).")
        if self.note:
            lines.append(self.note)
        return lines

    def result_info(self, problem: NTDMrProblem) -> dict:
        """The number of strategies left out because they can never finish."""
        return {"n_excluded": int(problem.n_excluded)}


def parse(path: Path, doc: dict) -> ExpertScenario:
    """Check an ExPERT scenario document (see the module docstring for the schema).

    ``doc`` is the TOML document of ``path`` without its ``family`` key (the family interface of
    :mod:`mopt.scenario`; users call :func:`mopt.scenario.load_scenario`).

    Raises
    ------
    InputError
        Missing or unreadable file, malformed TOML (with its line), unknown or missing keys (with a
        "did you mean" suggestion), out-of-range values — always naming the file and the key.
    TypeError
        A value of the wrong type, naming the file and the key.
    """
    data = doc
    check_keys(path, None, data, _SECTIONS)
    sections = {}
    for name in _SECTIONS:
        value = data.get(name, {})
        if not isinstance(value, dict):
            raise InputError(f"{path}: '{name}' must be a section [{name}]; got {value!r}.")
        sections[name] = value

    if "turnaround" in data and "observed" in data:
        raise InputError(f"{path}: [turnaround] and [observed] are alternatives (a turnaround model or a "
                         "throughput log); give only one of them.")
    if "turnaround" not in data and "observed" not in data:
        raise InputError(f"{path}: missing section [turnaround] (or [observed], a throughput log).")
    env_section, turn_section = sections["environment"], sections["turnaround"]
    observed = None
    if "observed" in data:
        # n_tasks comes from the log and t_ur defaults to its mean successful turnaround
        check_keys(path, "environment", env_section, {**_ENVIRONMENT, "n_tasks": False, "t_ur": False})
        observed, turnaround = _observed(path, sections["observed"])
        kind = "observed"
    else:
        check_keys(path, "environment", env_section, _ENVIRONMENT)
        turnaround = _turnaround(path, turn_section)
        kind = turn_section["kind"]
    with where(path, "environment"):
        env_values = {k: v for k, v in env_section.items()}
        if observed is not None:
            if "n_tasks" in env_values:
                n_tasks = check_int("n_tasks", env_values["n_tasks"], low=1)
                if n_tasks != observed.n_tasks:
                    raise InputError(f"'n_tasks' = {n_tasks} disagrees with the {observed.n_tasks} tasks of "
                                     f"the [observed] log {sections['observed']['file']!r}; leave 'n_tasks' "
                                     "out or make them agree.")
            env_values["n_tasks"] = observed.n_tasks
            env_values.setdefault("t_ur", turnaround.mean_success)
        env_values.setdefault("t_r", env_values["t_ur"])
        for key in ("n_tasks", "n_unreliable"):
            env_values[key] = check_int(key, env_values[key], low=1)
        for key in ("c_ur", "c_r"):
            env_values[key] = _cost(key, env_values[key])
        env = Environment(turnaround=turnaround, **env_values)
        # store times and ratios as floats, as the library's own constructors do
        env = dataclasses.replace(env, **{k: float(getattr(env, k)) for k in
                                          ("t_ur", "t_r", "mr_max", "charging_period_r")})
        if observed is not None:
            observed.check_environment(env)

    grid = _grid(path, sections["grid"], env)
    run = parse_run(path, sections["run"])
    note = ""
    if kind == "shifted_lognormal":
        note = fs_note(env, turn_section["mean"], turn_section["shift"], turn_section.get("sigma", 0.5))
    scenario = ExpertScenario(env=env, problem_kwargs=grid, turnaround_kind=kind, path=path, observed=observed,
                              note=note, **run)
    with where(path, "grid"):  # the grid's values are checked where the problem is built
        scenario.problem()
    return scenario


# -- sections ---------------------------------------------------------------------------------
def _turnaround(path: Path, section: dict) -> TurnaroundModel:
    if "kind" not in section:
        # a misspelt 'kind' is named as such (unknown keys of every kind first)
        every = {k: False for keys in _TURNAROUND.values() for k in keys}
        check_keys(path, "turnaround", section, every)
        raise InputError(f"{path}: [turnaround] missing key 'kind' ({' or '.join(map(repr, _TURNAROUND))}).")
    kind = section["kind"]
    if not isinstance(kind, str) or kind not in _TURNAROUND:
        raise InputError(
            f"{path}: [turnaround] 'kind' must be one of {sorted(_TURNAROUND)}; got {kind!r}"
            f"{suggest(kind, _TURNAROUND) or '.'}"
        )
    check_keys(path, "turnaround", section, _TURNAROUND[kind], context=f" of kind {kind!r}")
    with where(path, "turnaround"):
        if kind == "shifted_lognormal":
            fs = shifted_lognormal(section["mean"], section["shift"], section.get("sigma", 0.5))
            return TurnaroundModel.parametric(fs, section["reliability"])
        send, turn = _read_instances(scenario_path(path, "file", section["file"]))
        return TurnaroundModel.from_instances(
            send, turn, section["deadline"], section.get("t_tail"),
            group_size=check_int("group_size", section.get("group_size", 50), low=1),
        )


def _observed(path: Path, section: dict) -> tuple[ObservedTail, TurnaroundModel]:
    """The tail state and the online turnaround model of an ``[observed]`` throughput log."""
    check_keys(path, "observed", section, _OBSERVED)
    with where(path, "observed"):
        csv_path = scenario_path(path, "file", section["file"])
        try:
            log = ThroughputLog.read_csv(csv_path)
        except IsADirectoryError:
            raise InputError(f"'file' {csv_path}: is a directory, not a throughput log.") from None
        except (OSError, UnicodeDecodeError, pd.errors.ParserError) as exc:
            raise InputError(f"'file' {csv_path}: cannot read it ({' '.join(str(exc).split())}).") from None
        except InputError as exc:  # not a log, missing: named by the key
            text, head = str(exc), f"throughput log {str(csv_path)!r}"
            if text.startswith(head + ": not a throughput log"):
                raise InputError(f"'file' {csv_path}{text[len(head):]}") from None
            raise
        group_size = check_int("group_size", section.get("group_size", 50), low=1)
        tail = observe(log, section["t_tail"], section["deadline"])
        return tail, tail.turnaround_model(group_size)


def _read_instances(csv_path: Path) -> tuple[list[float], list[float]]:
    """Send times and turnaround times (inf = no result) from a CSV of observed instances."""
    if not csv_path.exists() and not csv_path.is_symlink():
        raise InputError(f"'file' {csv_path}: no such file.")
    text = read_text(csv_path, "CSV file of instances")  # a regular file, bounded
    try:
        with io.StringIO(text, newline="") as fh:
            reader = csv.DictReader(fh)
            columns = reader.fieldnames or []
            missing = [c for c in ("send_time", "turnaround_time") if c not in columns]
            if len(missing) == 2:  # not a CSV of instances at all: its content is not quoted
                raise InputError(f"'file' {csv_path}: missing columns ['send_time', 'turnaround_time']: not a "
                                 "CSV of observed instances (its first line is not their header).")
            if missing:
                raise InputError(
                    f"'file' {csv_path}: missing column(s) {missing}; the header has {columns}."
                )
            send, turn = [], []
            for row in reader:
                line = reader.line_num
                send.append(_csv_number(csv_path, line, "send_time", row["send_time"], empty=None))
                turn.append(_csv_number(csv_path, line, "turnaround_time", row["turnaround_time"],
                                        empty=math.inf))
    except csv.Error as exc:
        raise InputError(f"'file' {csv_path}: cannot read it ({exc}).") from None
    if not send:
        raise InputError(f"'file' {csv_path}: no instances (only a header).")
    return send, turn


def _csv_number(csv_path: Path, line: int, column: str, text, *, empty) -> float:
    text = (text or "").strip()
    if not text and empty is not None:
        return empty
    try:
        value = float(text)
    except ValueError:
        allowed = "a number, 'inf' or empty" if empty is not None else "a number"
        raise InputError(f"'file' {csv_path}, line {line}: '{column}' must be {allowed}; got {text!r}.") from None
    # send times are finite; a turnaround may be inf (no result); neither is NaN or negative
    if math.isnan(value) or value < 0 or (empty is None and math.isinf(value)):
        allowed = "non-negative (or 'inf')" if empty is not None else "finite and non-negative"
        raise InputError(f"'file' {csv_path}, line {line}: '{column}' must be {allowed}; "
                         f"got {text!r}.")
    return value


def _grid(path: Path, section: dict, env: Environment) -> dict:
    check_keys(path, "grid", section, _GRID)
    preset = section.get("preset", "paper")
    if not isinstance(preset, str) or preset not in _PRESETS:
        raise InputError(
            f"{path}: [grid] 'preset' must be one of {list(_PRESETS)}; got {preset!r}{suggest(preset, _PRESETS) or '.'}"
        )
    # the paper's grid is NTDMrProblem's default: only the lists given are passed on
    grid = {} if preset == "paper" else {
        k: [x.item() if hasattr(x, "item") else x for x in v] for k, v in high_resolution_grid(env).items()
    }
    if preset == "high_resolution" and not grid["Mr"] and "Mr" not in section:
        raise InputError(f"{path}: [grid] preset 'high_resolution' has no M_r <= "
                         f"'mr_max'={env.mr_max:g} (its smallest is 0.02): give the grid's 'Mr' "
                         "values.")
    for key in ("N", "T", "D", "Mr"):
        if key not in section:
            continue
        values = section[key]
        if not isinstance(values, list):
            values = [values]
        if key == "N":
            values = [_inf(v) for v in values]
        grid[key] = values
    return grid


def _inf(value):
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity", "+inf"):
        return math.inf
    return value


# -- helpers ----------------------------------------------------------------------------------
def _cost(key: str, value) -> float:
    """A cost per second: a number or a fraction string such as ``"34/3600"``."""
    if isinstance(value, str):
        m = _FRACTION.match(value)
        if not m:
            raise InputError(f"'{key}' must be a number or a fraction string like \"34/3600\"; got {value!r}.")
        num, den = float(m.group(1)), float(m.group(2))
        if den == 0:
            raise InputError(f"'{key}' fraction must have a non-zero denominator; got {value!r}.")
        value = num / den
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"'{key}' must be a number or a fraction string like \"34/3600\"; got {value!r} ({type(value).__name__})."
        )
    return check_number(key, value, low=0)
