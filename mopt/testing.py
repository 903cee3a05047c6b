"""Conformance checks that every problem family passes (scikit-learn's ``check_estimator`` for
families): mopt's own test suite runs them on every registered family, and the author of an
outside family runs them on theirs::

    from mopt.testing import check_family
    check_family(get_family("myfamily"), tmp_path)

Each check raises ``AssertionError`` naming the family and what failed; a check that needs
something this machine lacks (a trace named through ``MOPT_DATA_DIR``) raises :class:`Unavailable`.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from mopt.core.errors import InputError
from mopt.core.family import Family

__all__ = ["CHECKS", "Unavailable", "check_family", "check_declaration", "check_labels", "check_round_trip",
           "check_frontier_and_decide", "check_commands"]

#: designs a conformance search evaluates (``blind_pick`` with ``sample``): a few, so every check is fast
SAMPLE = 3


class Unavailable(Exception):
    """A check cannot run here (e.g. its example names a trace and ``MOPT_DATA_DIR`` is not set)."""


@contextlib.contextmanager
def _needs_traces(path: Path):
    """Turn "this example's trace is not on this machine" into :class:`Unavailable`."""
    from mopt.workloads import FetchError

    try:
        yield
    except FetchError as exc:
        raise Unavailable(f"{path.name} needs a trace that is neither in MOPT_DATA_DIR nor downloadable: "
                          f"{exc}") from None
    except InputError as exc:
        if "MOPT_DATA_DIR" not in str(exc):
            raise
        raise Unavailable(f"{path.name} needs a trace: {exc}") from None


def _load(path: Path):
    from mopt.scenario import load_scenario

    with _needs_traces(path):
        scenario = load_scenario(path)
        scenario.problem()
    return scenario


def check_declaration(family: Family, workdir: Path) -> None:
    """The declaration is complete: a description, objectives with labels, at least one example
    file that exists, and the dotted references resolve."""
    assert family.name and family.name.isidentifier(), f"{family.name!r}: a family's name is an identifier"
    assert family.description.strip(), f"{family.name}: no description"
    assert family.objectives, f"{family.name}: no objectives declared"
    paths = family.example_paths()
    assert paths, f"{family.name}: no example scenario files"
    for path in paths:
        assert path.is_file(), f"{family.name}: example {path} is missing"
    keys = family.scenario_keys()
    for section, table in keys.items():
        assert isinstance(table, Mapping) and table, f"{family.name}: [{section}] declares no keys"
        for key, decl in table.items():
            assert getattr(decl, "doc", "").strip(), f"{family.name}: [{section}] {key} has no description"


def check_labels(family: Family, workdir: Path) -> None:
    """Every objective of every example's problem has a label in words (and the family's table
    formats name only known columns' formats)."""
    for path in family.example_paths():
        problem = _load(path).problem()
        for objective in problem.objectives:
            assert objective in family.objectives, (
                f"{family.name}: objective {objective!r} of {path.name} has no label (Family.objectives)")
            assert family.objectives[objective].label.strip(), f"{family.name}: empty label of {objective!r}"


def check_round_trip(family: Family, workdir: Path) -> None:
    """A scenario file reads as the same problem (its fingerprint) twice and with its ``family``
    key written out; the scenario knows its family; its problem has designs."""
    from mopt.scenario import load_scenario

    for path in family.example_paths():
        first, second = _load(path), _load(path)
        assert first.family == family.name, f"{family.name}: {path.name} was read as {first.family!r}"
        assert first.problem().fingerprint() == second.problem().fingerprint(), (
            f"{family.name}: {path.name} reads differently twice")
        text = path.read_text(encoding="utf-8")
        if "family" not in {line.split("=")[0].strip() for line in text.splitlines() if "=" in line}:
            text = f'family = "{family.name}"\n' + text
        explicit = workdir / f"explicit-{path.name}"
        explicit.write_text(text, encoding="utf-8")
        for name in os.listdir(path.parent):  # files the example names relatively (e.g. a log)
            if not (workdir / name).exists() and not name.endswith(".toml"):
                (workdir / name).symlink_to(path.parent / name)
        with _needs_traces(path):
            again = load_scenario(explicit)
        assert again.family == family.name
        assert again.problem().fingerprint() == first.problem().fingerprint(), (
            f"{family.name}: {path.name} reads differently with its 'family' key written out")
        assert first.problem().n_designs > 0, f"{family.name}: {path.name} has no designs"


def check_frontier_and_decide(family: Family, workdir: Path) -> None:
    """``mopt frontier`` on each example (a few designs by blind pick) writes a result whose
    front holds the family's objectives, and ``mopt decide`` prints every default utility."""
    from mopt.cli import main

    for path in family.example_paths():
        scenario = _load(path)
        out = workdir / f"frontier-{path.stem}"
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["frontier", str(path), "--out", str(out), "--quiet", "--method", "blind_pick",
                         "--option", f"sample={min(SAMPLE, scenario.problem().n_designs)}"])
        assert code == 0, f"{family.name}: mopt frontier {path.name} exited {code}"
        front = pd.read_csv(out / "front.csv")
        objectives = list(scenario.problem().objectives)
        assert len(front) >= 1 and set(objectives) <= set(front.columns), f"{family.name}: {list(front.columns)}"
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            code = main(["decide", str(out)])
        assert code == 0, f"{family.name}: mopt decide exited {code}"
        for label in family.default_utilities(objectives):
            assert label in printed.getvalue(), f"{family.name}: decide did not print {label!r}"


def check_commands(family: Family, workdir: Path) -> None:
    """The family's subcommands register on a parser of their own, none takes a core command's
    name, and each has a help text and the shared ``--out`` and ``--quiet``."""
    from mopt.cli import build_parser
    from mopt.cli.options import RUN_OPTIONS, Parser

    parser = Parser(prog="mopt")
    sub = parser.add_subparsers(dest="command")
    family.add_parsers(sub, RUN_OPTIONS)
    core = {"frontier", "decide", "compare", "traces"}
    assert not core & set(sub.choices), f"{family.name}: a command takes a core command's name"
    assert set(sub.choices) <= set(next(a for a in build_parser()._actions if a.dest == "command").choices)
    for name, command in sub.choices.items():
        text = command.format_help()
        assert (command.description or "").strip(), f"{family.name}: 'mopt {name}' has no description"
        assert "--out" in text and "--quiet" in text, f"{family.name}: 'mopt {name}' lacks the run options"


#: name -> check, in the order :func:`check_family` runs them
CHECKS = {
    "declaration": check_declaration,
    "labels": check_labels,
    "round_trip": check_round_trip,
    "frontier_and_decide": check_frontier_and_decide,
    "commands": check_commands,
}


def check_family(family: Family, workdir: str | os.PathLike) -> list[str]:
    """Run every check of :data:`CHECKS` on ``family`` (files go under ``workdir``); return the
    names of the checks that could not run here (:class:`Unavailable`)."""
    skipped = []
    for name, check in CHECKS.items():
        folder = Path(workdir) / name
        folder.mkdir(parents=True, exist_ok=True)
        try:
            check(family, folder)
        except Unavailable:
            skipped.append(name)
    return skipped
