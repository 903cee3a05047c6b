"""Scenario files: TOML documents read by the problem family they name.

A scenario file is TOML.  Its top-level key ``family`` (default ``"expert"``, so ExPERT files
without the key keep working) names the problem family that reads the rest; the CLI (``mopt
frontier``, ``mopt compare``, ``mopt decide``) then works the same for every family::

    family = "vmc"                # optional; an installed family (default "expert")

    [...]                         # the family's own sections (see the family's scenario module)

    [run]                         # optional, the same for every family (parse_run)
    method = "ocba"               # one of mopt.METHODS (default: the family's, usually "exhaustive")
    n_reps = 10                   # replications per design (>= 1)
    seed = 1                      # >= 0
    budget = 2890                 # optional, replications (>= 1)
    options = { n0 = 5 }          # optional method options (names checked against `method`);
                                  # used only when the run's method is this one

ExPERT's sections are documented in :mod:`mopt.expert.scenario`.

Family plug-ins
---------------
The ``family`` key is looked up in the registry of installed families
(:func:`mopt.core.family.families`, entry-point group ``mopt.families``), so this loader names no
family. A family's parser, ``parse(path, doc) -> Scenario``, receives the document without the
``family`` key; it checks every section with :func:`check_keys` (unknown keys with a "did you
mean", missing required keys), wraps the checks of one section's values in
``with where(path, "section"):`` so that the library's own errors gain the file and section,
reads ``[run]`` with :func:`parse_run`, builds the problem once (so that bad values fail at load
time) and returns an instance of a :class:`Scenario` subclass.

A :class:`Scenario` subclass is a frozen, keyword-only dataclass that adds the family's fields and
implements :meth:`Scenario.problem`. It may override the hooks, all optional, that the CLI calls
without knowing the family: ``legend`` (class attribute: the objectives' units, printed after the
frontier's size), ``intro(problem)`` (lines printed before a search), ``result_info(problem)``
(extra JSON-serialisable entries of ``Result.info``), ``report(result)`` (text printed after the
frontier) and ``figure(result, path)`` (default: :func:`mopt.result_plots.plot_result` with the
family's objective labels). What designs are called and how objectives are labelled come from the
family's :class:`~mopt.core.family.Family` declaration.

Examples
--------
>>> sc = load_scenario("examples/reference.toml")  # doctest: +SKIP
>>> sc.family, sc.problem().n_designs  # doctest: +SKIP
('expert', 289)
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from mopt.core import inputs
from mopt.core.errors import InputError, check_int
from mopt.core.family import Key, Section
from mopt.core.inputs import canonical, suggest
from mopt.core.problem import check_reps
from mopt.core.utility import generic_utilities
from mopt.scenario_paths import DATA_DIR_VAR, scenario_path, scenario_trace  # noqa: F401 (re-exported)

if TYPE_CHECKING:  # pragma: no cover
    from mopt.core.problem import StochasticProblem
    from mopt.core.result import Result

__all__ = [
    "DEFAULT_FAMILY",
    "RUN_KEYS",
    "Scenario",
    "load_scenario",
    "read_toml",
    "check_keys",
    "check_unknown",
    "where",
    "suggest",
    "parse_run",
    "default_utilities",
    "generic_utilities",
]

#: the family of a file without a ``family`` key
DEFAULT_FAMILY = "expert"
#: the ``[run]`` section, the same for every family (:func:`parse_run` checks it against these)
RUN_KEYS = Section(
    "How to search: the same section for every family. Optional, and so is each of its keys; the "
    "command line's `--method`, `--budget`, `--seed` and `--option` override them.",
    {
        "method": Key("the search method", type="one of `mopt.METHODS`", default='"exhaustive"'),
        "n_reps": Key("replications per design", type="integer >= 1", default="10"),
        "seed": Key("the seed of the run: the same seed gives the same result", type="integer >= 0",
                    default="1"),
        "budget": Key("replications to spend at most", type="integer >= 1",
                      default="the method's own"),
        "options": Key("options of `method` (names checked against it), e.g. `{ n0 = 5 }`; used only "
                       "when the run's method is this one", type="table", default="none"),
    },
)


@dataclass(frozen=True, kw_only=True)
class Scenario:
    """A loaded scenario file: what every family shares (subclasses add their own fields).

    Attributes
    ----------
    family : str
        The family that read the file (an installed family, :func:`mopt.core.family.families`).
    path : Path or None
        The file it was loaded from.
    method : str
        Search method (one of ``mopt.METHODS``).
    n_reps : int
        Replications per design.
    seed : int
        Seed of the run.
    budget : int or None
        Replications to spend at most (None: the method's default).
    options : dict
        Options of ``method`` (from ``[run] options``).

    Examples
    --------
    >>> Scenario(family="demo").name
    'scenario'
    """

    family: str = DEFAULT_FAMILY
    path: Path | None = None
    method: str = "exhaustive"
    n_reps: int = 10
    seed: int = 1
    budget: int | None = None
    options: dict = field(default_factory=dict)

    #: units of the objectives, printed after the frontier's size (e.g. "makespan [s]")
    legend: ClassVar[str] = ""

    @property
    def family_object(self):
        """The :class:`~mopt.core.family.Family` that read this scenario."""
        from mopt.core.family import get_family

        return get_family(self.family)

    @property
    def noun(self) -> str:
        """What designs are called in messages (plural), from the family."""
        return self.family_object.noun[0]

    @property
    def noun_singular(self) -> str:
        """What a design is called in messages, from the family."""
        return self.family_object.noun[1]

    @property
    def labels(self) -> dict:
        """Objective -> axis label (words and unit), from the family."""
        fam = self.family_object
        return {name: fam.label(name) for name in fam.objectives}

    @property
    def name(self) -> str:
        """The file's stem (``"reference"`` for ``reference.toml``)."""
        return self.path.stem if self.path is not None else "scenario"

    def problem(self, n_reps: int | None = None, seed: int | None = None) -> StochasticProblem:
        """The problem of this scenario (``n_reps``, ``seed``: defaults from ``[run]``)."""
        raise NotImplementedError(f"family {self.family!r} must implement Scenario.problem")

    # -- hooks the CLI calls (all optional) ---------------------------------------------------
    def intro(self, problem: StochasticProblem) -> list[str]:
        """Lines printed before a search of ``problem`` (notes on the inputs; default none)."""
        return []

    def result_info(self, problem: StochasticProblem) -> dict:
        """Extra entries of the result's ``info`` (default none)."""
        return {}

    def report(self, result: Result) -> str:
        """Extra text printed after the frontier (default none)."""
        return ""

    def figure(self, result: Result, path: str | os.PathLike) -> None:
        """Write the frontier figure of ``result`` to ``path`` (:func:`mopt.result_plots.plot_result`, labels
        and units from the family): two objectives on one panel, three or more as a matrix of
        pairwise panels, one against the design index; every evaluated design, the Pareto front and
        its confidence intervals; log axes where the report draws them
        (:func:`mopt.report.data.log_objectives`)."""
        from mopt.plot import save_figure
        from mopt.report.data import log_objectives
        from mopt.result_plots import plot_result

        fig = plot_result(
            result, family=self.family_object, title=f"{self.name}: Pareto frontier", log=log_objectives(result),
            caption=f"{self.path}; method {result.method}, {result.n_evals:,} replications, seed {result.seed}.",
        )
        save_figure(fig, path)


def load_scenario(path: str | os.PathLike) -> Scenario:
    """Read and check a scenario file of any family (see the module docstring).

    Raises
    ------
    InputError
        Missing or unreadable file, malformed TOML (with its line), an unknown family (the known
        ones listed) or one that is not installed, and whatever the family refuses (unknown or
        missing keys with a "did you mean" suggestion, out-of-range values), always naming the
        file and the key.
    TypeError
        A value of the wrong type, naming the file and the key.

    Examples
    --------
    >>> load_scenario("no/such.toml")
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: no/such.toml: no such scenario file.
    """
    from mopt.core.family import get_family

    path = Path(path)
    doc = read_toml(path)
    family = doc.pop("family", DEFAULT_FAMILY)
    found = get_family(family, path)
    keys = found.scenario_keys()
    if keys:  # a typo is named (with its "did you mean") before any section or key is missed
        check_unknown(path, doc, {**keys, "run": RUN_KEYS})
    scenario = found.parse(path, doc)
    if not isinstance(scenario, Scenario):
        raise TypeError(f"family {family!r}: parse() must return a mopt.scenario.Scenario; "
                        f"got {type(scenario).__name__}.")
    if scenario.family != family or scenario.path != path:
        scenario = replace(scenario, family=family, path=path)
    if scenario.options:
        _check_options(scenario)
    return scenario


def _check_options(scenario: Scenario) -> None:
    """``[run] options`` checked against the scenario's problem now (a value of the wrong kind, e.g.
    ``n0 = "abc"``), naming the file, ``[run]`` and ``options.KEY``, rather than when the run starts."""
    from mopt.solvers import METHODS

    try:
        METHODS[scenario.method](**scenario.options).min_budget(scenario.problem())
    except (InputError, TypeError, ValueError) as exc:
        text = str(exc)
        for key in scenario.options:
            if text.startswith(f"'{key}'"):
                text = f"'options.{key}'" + text[len(key) + 2:]
                break
        raise InputError(f"{scenario.path}: [run] {text}") from None


def read_toml(path: Path) -> dict:
    """The TOML document at ``path`` (InputError naming the file for anything unreadable): a
    regular file, bounded in size, line length and nesting (:mod:`mopt.core.inputs`)."""
    path = Path(path)
    if not path.exists() and not path.is_symlink():
        raise InputError(f"{path}: no such scenario file.")
    if path.is_dir():
        raise InputError(f"{path}: is a directory, not a scenario file.")
    return inputs.read_toml(path, "scenario file")


def default_utilities(family: str, objectives) -> dict:
    """Label -> utility that ``family`` proposes for results with ``objectives``.

    Examples
    --------
    >>> sorted(default_utilities("expert", ("makespan", "cost")))
    ['min cost', 'min makespan', 'min makespan x cost']
    """
    from mopt.core.family import get_family

    return get_family(family).default_utilities(tuple(objectives))


# -- helpers for the families' parsers ---------------------------------------------------------
def parse_run(path: Path, section) -> dict:
    """The ``[run]`` section as keyword arguments of :class:`Scenario` (only the keys given).

    Examples
    --------
    >>> parse_run(Path("s.toml"), {"method": "ocba", "seed": 3, "options": {"n0": 5}})
    {'method': 'ocba', 'seed': 3, 'options': {'n0': 5}}
    >>> parse_run(Path("s.toml"), {"seeds": 3})
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: s.toml: [run] unknown key 'seeds'; did you mean 'seed'?
    """
    from mopt.solvers import METHODS

    if not isinstance(section, dict):
        raise InputError(f"{path}: 'run' must be a section [run]; got {section!r}.")
    check_keys(path, "run", section, RUN_KEYS)
    out = {}
    with where(path, "run"):
        if "method" in section:
            out["method"] = canonical(section["method"], sorted(METHODS), "'method'")
        if "n_reps" in section:
            out["n_reps"] = check_reps("n_reps", section["n_reps"])
        if "seed" in section:
            out["seed"] = check_int("seed", section["seed"], low=0)
        if "budget" in section:
            out["budget"] = check_int("budget", section["budget"], low=1)
        if "options" in section:
            options = section["options"]
            if not isinstance(options, dict):
                raise InputError(f"'options' must be a table of method options, e.g. {{ n0 = 5 }}; "
                                 f"got {options!r}.")
            METHODS[out.get("method", Scenario.method)](**options)  # unknown names, by name
            for key, value in options.items():  # NaN, infinities, tables: refused here, by name
                if value is None:  # (TOML has no null; a library caller's None is a default)
                    continue
                try:
                    check_option_value(key, value)
                except InputError as exc:
                    raise InputError(str(exc).replace(f"option '{key}'", f"'options.{key}'", 1)) from None
            out["options"] = dict(options)
    return out


def check_option_value(name: str, value, *, top: bool = True):
    """A method option's value, checked before the method sees it: a boolean, an integer, a finite
    number, a string, a list of those (nested lists allowed), or (command line only) none.  NaN,
    infinities and tables are refused, naming the option.

    Examples
    --------
    >>> check_option_value("n0", 5)
    5
    >>> check_option_value("n0", float("nan"))
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: option 'n0' must be a finite number; got nan.
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"option '{name}' must be a finite number; got {value!r}.")
        return value
    if isinstance(value, list):
        for item in value:
            if item is None or isinstance(item, dict):
                raise InputError(f"option '{name}' must be a list of numbers or strings; got an item "
                                 f"{'table' if isinstance(item, dict) else 'none'}.")
            check_option_value(name, item, top=False)
        return value
    kind = "a table" if isinstance(value, dict) else f"a {type(value).__name__}"
    raise InputError(f"option '{name}' must be a number, a string, true/false or a list; got {kind}.")


def check_unknown(path: Path, doc: dict, sections: dict) -> None:
    """Refuse an unknown section of the document ``doc``, or an unknown key of any section it has,
    with a "did you mean" — before anything missing is reported (:func:`load_scenario` calls it
    with the family's declared sections and ``[run]``; a missing section or key is the family's
    parser's to report).

    Examples
    --------
    >>> check_unknown(Path("s.toml"), {"run": {"sed": 3}}, {"grid": {"N": True}, "run": RUN_KEYS})
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: s.toml: [run] unknown key 'sed'; did you mean 'seed'?
    """
    check_keys(path, None, doc, sections, required=False)
    for name, table in doc.items():
        if isinstance(table, dict):
            check_keys(path, name, table, sections[name], required=False)


def check_keys(path: Path, section: str | None, table: dict, allowed: dict, *, context: str = "",
               required: bool = True) -> None:
    """Refuse unknown keys (with a "did you mean") and, with ``required``, missing required keys
    of one section.

    Parameters
    ----------
    path : Path
        The scenario file (named in every message).
    section : str or None
        The section's name; None for the top level, whose keys are sections.
    table : dict
        The section as parsed.
    allowed : dict
        Allowed key -> whether it is required: a bool, or a declaration with a ``required``
        attribute (:class:`~mopt.core.family.Key`, :class:`~mopt.core.family.Section`), so that a
        family passes its ``KEYS`` sections as they are.
    context : str
        Appended to the section in messages (e.g. ``" of kind 'instances'"``).
    required : bool
        Whether to refuse a missing required key too (False: unknown keys only).

    Examples
    --------
    >>> check_keys(Path("s.toml"), "grid", {"NN": [1]}, {"N": False, "T": False})
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: s.toml: [grid] unknown key 'NN'; did you mean 'N'?
    """
    for key in table:
        if key in allowed:
            continue
        hint = suggest(key, allowed, "'{}'" if section else "[{}]")
        if section is not None:
            what = f"[{section}] unknown key '{key}'{context}"
        elif isinstance(table[key], dict):
            what = f"unknown section [{key}]"
        else:
            what = f"unknown top-level key '{key}' (keys belong in a section)"
            hint = suggest(key, ["family"]) or hint  # the one top-level key (``familly = ...``)
        listing = "sections" if section is None else "keys"
        tail = hint or f"; allowed {listing}: {', '.join(allowed)}."
        raise InputError(f"{path}: {what}{tail}")
    if not required:
        return
    for key, declared in allowed.items():
        needed = declared if isinstance(declared, bool) else bool(getattr(declared, "required", False))
        if needed and key not in table:
            if section is None:
                raise InputError(f"{path}: missing section [{key}].")
            raise InputError(f"{path}: [{section}] missing key '{key}'{context}.")


@contextmanager
def where(path: Path, section: str):
    """Prefix the library's own errors (which name the key) with the file and the section.

    Examples
    --------
    >>> with where(Path("s.toml"), "run"):
    ...     check_int("seed", -1, low=0)
    Traceback (most recent call last):
    ...
    mopt.core.errors.InputError: s.toml: [run] 'seed' must be an integer >= 0; got -1.
    """
    try:
        yield
    except InputError as exc:
        raise InputError(f"{path}: [{section}] {exc}") from None
    except TypeError as exc:
        raise TypeError(f"{path}: [{section}] {exc}") from None
    except ValueError as exc:
        raise InputError(f"{path}: [{section}] {exc}") from None
