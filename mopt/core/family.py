"""Problem families as plug-ins: the :class:`Family` contract and the registry of installed ones.

A family is a package that exposes one :class:`Family` object and registers it under the entry-point
group ``mopt.families`` (:data:`ENTRY_POINT_GROUP`) of its distribution, e.g. in ``pyproject.toml``::

    [project.entry-points."mopt.families"]
    expert = "mopt.expert.family:FAMILY"

The command line, the scenario loader, ``mopt decide``, tables and figures find families through
:func:`families` / :func:`get_family` and never import one by name; a family never imports the
command line. The object is declarative: a name, a line of description, objective labels and units,
and *dotted references* (``"package.module:attribute"``) to what is loaded only when used — the
scenario parser, the scenario-file keys, the CLI subcommands, the default utilities — so that
``mopt --help`` loads no simulator.

Examples
--------
>>> fam = Family(name="toy", description="a toy family", scenario="toy.scenario:parse",
...              objectives={"time": Objective("time to finish", "s")})
>>> fam.label("time"), fam.label("cost")
('time to finish [s]', 'cost')
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
import importlib.resources
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mopt.core.errors import InputError, MoptError

__all__ = ["ENTRY_POINT_GROUP", "Family", "Key", "Objective", "Section", "families", "get_family",
           "resolve"]

#: the entry-point group under which families register their :class:`Family` object
ENTRY_POINT_GROUP = "mopt.families"


@dataclass(frozen=True)
class Objective:
    """How an objective reads in tables and figures: a label in words, a unit (``""``: none) and
    the least value it can take (``low``: 0 for a cost or a time, 1 for a slowdown; None: no
    bound), at which the report cuts the intervals it draws (a mean ± 1.96 standard errors of a
    cost may reach below 0; the cost cannot).

    Examples
    --------
    >>> Objective("charged VM-hours", "h", low=0).axis
    'charged VM-hours [h]'
    """

    label: str
    unit: str = ""
    low: float | None = None

    @property
    def axis(self) -> str:
        """The axis label: ``"label [unit]"``, or the label alone."""
        return f"{self.label} [{self.unit}]" if self.unit else self.label


@dataclass(frozen=True)
class Key:
    """One key of a scenario-file section: whether it is required, its type and default in words,
    and what it means (the scenario-file reference is generated from these).

    Parameters
    ----------
    doc : str
        What the key means, in a sentence.
    required : bool
        Whether a section that the key belongs to must give it.
    type : str
        The values accepted, in words (``"integer >= 1"``).
    default : str
        The value used when the key is left out, in words (``""``: none, or ``required``).
    when : str
        The condition under which the key belongs to its section, in words
        (``'kind = "instances"'``); ``""``: always. A parser that switches on it derives a table per
        condition from one declaration.

    Examples
    --------
    >>> Key("cluster sizes to search", required=True, type="integer").required
    True
    """

    doc: str
    required: bool = False
    type: str = ""
    default: str = ""
    when: str = ""


@dataclass(frozen=True, eq=False)
class Section(Mapping):
    """One section of a scenario file: what it is for, whether a file must have it, and its keys.

    A read-only mapping key -> :class:`Key` (so a family may declare a section as a plain dict
    too); the docs' scenario-file reference shows ``doc`` and ``required``.

    Examples
    --------
    >>> grid = Section("the designs to search", {"N": Key("replicas", type="list of integers")})
    >>> list(grid), grid["N"].type, grid.required
    (['N'], 'list of integers', False)
    """

    doc: str
    entries: Mapping[str, Key] = field(default_factory=dict)
    required: bool = False

    def __getitem__(self, key: str) -> Key:
        return self.entries[key]

    def __iter__(self):
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def resolve(reference: str | Callable | Any) -> Any:
    """The object a dotted reference ``"package.module:attribute"`` names (imported now); anything
    else is returned as it is.

    Examples
    --------
    >>> resolve("math:pi") > 3
    True
    """
    if not isinstance(reference, str):
        return reference
    module, _, attribute = reference.partition(":")
    if not module or not attribute:
        raise MoptError(f"a family reference must read 'package.module:attribute'; got {reference!r}.")
    value = importlib.import_module(module)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


@dataclass(frozen=True, kw_only=True)
class Family:
    """A problem family, as the command line and the scenario loader see it.

    Parameters
    ----------
    name : str
        The value of a scenario file's ``family`` key and the entry point's name.
    description : str
        One line, shown by ``mopt --help`` and in the docs.
    scenario : str or callable
        ``parse(path, doc) -> mopt.scenario.Scenario`` (or its dotted reference): reads a scenario
        file's document (without the ``family`` key), checks every key, and returns the scenario.
    objectives : mapping of str to Objective
        Label and unit of every objective the family's problems may report.
    keys : str or mapping, optional
        The scenario file's sections, except the shared ``[run]``: section -> key -> :class:`Key`
        (a :class:`Section`, or any mapping), or its dotted reference; the parser's tables of
        allowed keys and the docs' scenario-file reference are both derived from it.
    commands : str or callable, optional
        ``add_parsers(subparsers, run_options)`` (or its dotted reference): adds the family's
        subcommands; ``run_options(parser, out_default, ...)`` declares the shared run options.
    utilities : str or callable, optional
        ``default_utilities(objectives) -> {label: utility}``, used by ``mopt frontier`` and
        ``mopt decide`` (default: ``min`` of each objective, and their product for two).
    examples : tuple of str
        Example scenario files, relative to ``package`` (package data); each must run through
        ``mopt frontier`` in seconds (the family conformance checks do).
    package : str, optional
        The package that holds ``examples`` (default: the module part of ``scenario``'s parent).
    formats : mapping of str to str, optional
        Column -> format spec (``"{:.0f}"``) of the family's parameters and objectives in tables.
    noun : tuple of str
        What designs are called in messages (plural, singular).
    reports : mapping, optional
        Family command -> (the table its output directory holds, ``"module:function"`` drawing its
        page as ``function(target, table, facts, *, plotly_src=None)``, ``plotly_src`` as
        :func:`mopt.report.summary_page.write_summary_report` takes it): how ``mopt report DIR``
        draws that command's set without the core naming the family.
    replay : str or callable, optional
        ``lines(problem, design, rep, seed)`` (or its dotted reference): what happened in
        replication ``rep`` of ``design`` (``seed`` the run's entropy), as lines of text, or None
        for a problem it cannot tell; asked by :func:`mopt.core.replay.replay` only about problems
        whose class the family's package defines.
    """

    name: str
    description: str
    scenario: str | Callable
    objectives: Mapping[str, Objective] = field(default_factory=dict)
    keys: str | Mapping | None = None
    commands: str | Callable | None = None
    utilities: str | Callable | None = None
    examples: tuple[str, ...] = ()
    package: str | None = None
    formats: Mapping[str, str] = field(default_factory=dict)
    noun: tuple[str, str] = ("designs", "design")
    reports: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    replay: str | Callable | None = None

    # -- what the CLI and the loader call --------------------------------------------------------
    def parse(self, path: Path, doc: dict):
        """Read a scenario document with the family's parser."""
        return resolve(self.scenario)(path, doc)

    def add_parsers(self, subparsers, run_options) -> None:
        """Add the family's subcommands (none if it declares none)."""
        if self.commands is not None:
            resolve(self.commands)(subparsers, run_options)

    def default_utilities(self, objectives) -> dict:
        """Label -> utility proposed for results with ``objectives``."""
        if self.utilities is None:
            from mopt.core.utility import generic_utilities

            return generic_utilities(tuple(objectives))
        return resolve(self.utilities)(tuple(objectives))

    def scenario_keys(self) -> dict:
        """Section -> key -> :class:`Key` (empty if the family declares none)."""
        return dict(resolve(self.keys)) if self.keys is not None else {}

    def report_writer(self, command: str):
        """(table file, writer) that ``mopt report`` draws the set of the family's ``command`` with
        (None if the family declares none): ``writer(target, table, facts, *, plotly_src=None)``."""
        if command not in self.reports:
            return None
        table, writer = self.reports[command]
        return table, resolve(writer)

    def replay_lines(self, problem, design: int, rep: int, seed: int) -> list[str] | None:
        """What happened in replication ``rep`` of ``design``, line by line (None if the family
        declares no ``replay`` or cannot tell this problem)."""
        if self.replay is None:
            return None
        lines = resolve(self.replay)(problem, design, rep, seed)
        return None if lines is None else list(lines)

    @property
    def package_name(self) -> str:
        """The family's package: ``package``, else the module part of ``scenario``'s parent."""
        return self.package or str(self.scenario).partition(":")[0].rpartition(".")[0]

    def label(self, objective: str) -> str:
        """The axis label of ``objective`` (its name when the family does not declare it)."""
        found = self.objectives.get(objective)
        return found.axis if found is not None else objective

    def low(self, objective: str) -> float | None:
        """The least value ``objective`` can take (:attr:`Objective.low`; None when not declared)."""
        found = self.objectives.get(objective)
        return found.low if found is not None else None

    def example_paths(self) -> list[Path]:
        """The example scenario files, as paths on disk."""
        root = importlib.resources.files(self.package_name)
        return [Path(str(root.joinpath(name))) for name in self.examples]


@functools.cache
def families() -> dict[str, Family]:
    """Name -> :class:`Family` of every installed family (entry-point group ``mopt.families``), in
    name order. A family whose entry point cannot be loaded is left out with a warning naming it.

    Examples
    --------
    >>> {"expert", "vmc", "cloud", "koala"} <= set(families())
    True
    """
    found = {}
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        try:
            family = entry.load()
        except Exception as exc:  # noqa: BLE001 - an outside plug-in must not break mopt
            warnings.warn(f"mopt family {entry.name!r} ({entry.value}) cannot be loaded: "
                          f"{type(exc).__name__}: {exc}", RuntimeWarning, stacklevel=2)
            continue
        if not isinstance(family, Family) or family.name != entry.name:
            warnings.warn(f"mopt family entry point {entry.name!r} ({entry.value}) is not a "
                          f"mopt.core.family.Family named {entry.name!r}; ignored", RuntimeWarning,
                          stacklevel=2)
            continue
        found.setdefault(family.name, family)
    return dict(sorted(found.items()))


def get_family(name, path=None) -> Family:
    """The installed family ``name``.

    Raises
    ------
    InputError
        No such family (naming the file ``path`` if given, the key ``family`` and the installed
        families, with a "did you mean").

    Examples
    --------
    >>> get_family("expert").noun
    ('strategies', 'strategy')
    """
    known = families()
    if isinstance(name, str) and name in known:
        return known[name]
    from mopt.core.inputs import suggest

    where = f"{path}: " if path is not None else ""
    raise InputError(f"{where}'family' must be one of {sorted(known)}; got {name!r}"
                     f"{suggest(name, known) or '.'}")
