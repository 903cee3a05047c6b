"""mkdocs hooks: the reference pages generated from the code, and the repository's figures.

Generated at build time, never written into ``docs/``:

- ``reference/scenario-files.md`` from every installed family's own declaration
  (:meth:`mopt.core.family.Family.scenario_keys`) and :data:`mopt.scenario.RUN_KEYS`;
- ``reference/cli.md`` from :func:`mopt.cli.build_parser` (every subcommand and option);
- ``reference/api/<package>.md``: one mkdocstrings entry per name in the package's ``__all__``
  (:data:`API_PACKAGES`), so the API reference lists every public name;
- ``figures/*``: the repository's ``figures/`` directory, served as it is; pages link to the
  files where they are in the repository (``../../figures/<name>`` from ``docs/families/``), and
  :func:`on_page_markdown` points those links at the served copy.

The functions that write the pages are plain functions of this module, so ``tests/test_docs.py``
checks what they cover without building the site. :class:`SphinxRoles` is a griffe extension
(``mkdocs.yml``: ``extensions``) that turns the docstrings' Sphinx roles (``:class:`Result```)
into links where the target is documented here and into code spans elsewhere.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import re
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _this_checkout() -> None:
    """Put this checkout first on ``sys.path`` (mkdocs restores the path after loading a hook)."""
    if sys.path[:1] != [str(ROOT)]:
        sys.path.insert(0, str(ROOT))
    module = sys.modules.get("mopt")
    if module is not None and Path(module.__file__).resolve().parents[1] != ROOT:
        raise RuntimeError(f"docs/hooks.py: mopt was imported from {module.__file__}, not from {ROOT}")


#: the packages of the API reference, in page order (a name is documented on the first page that
#: lists it; later pages link to it)
API_PACKAGES = ("mopt", "mopt.core", "mopt.core.family", "mopt.scenario", "mopt.solvers",
                "mopt.workloads", "mopt.expert", "mopt.vmc", "mopt.cloud", "mopt.koala", "mopt.report")


# -- mkdocs events ----------------------------------------------------------------------------
def on_files(files, config):
    """Add the generated pages and the figures to the site's files."""
    from mkdocs.structure.files import File

    for uri, content in generated_pages().items():
        files.append(File.generated(config, uri, content=content))
    for path in sorted((ROOT / "figures").iterdir()):
        if path.is_file():
            files.append(File.generated(config, f"figures/{path.name}", abs_src_path=str(path)))
    return files


def on_page_markdown(markdown, page, config, files):
    """Links into the repository's ``figures/`` (``../../figures/x.png`` from ``docs/families/``,
    right on GitHub and in an editor) -> the copy this site serves under ``figures/``."""
    return figure_links(markdown, page.file.src_uri)


def figure_links(markdown: str, src_uri: str) -> str:
    """``markdown`` of the page ``docs/<src_uri>`` with its links into ``figures/`` made relative to
    the site's ``figures/``; other links unchanged."""
    docs, figures = ROOT / "docs", ROOT / "figures"
    here = (docs / src_uri).parent

    def replace(match: re.Match) -> str:
        target = match.group(2)
        if "://" in target or target.startswith("#"):
            return match.group(0)
        where = Path(os.path.normpath(here / target))
        if not where.is_relative_to(figures):
            return match.group(0)
        served = docs / "figures" / where.relative_to(figures)
        return f"{match.group(1)}{Path(os.path.relpath(served, here)).as_posix()})"

    return re.sub(r"(\]\()([^)\s]+)\)", replace, markdown)


def generated_pages() -> dict[str, str]:
    """Site path -> Markdown of every generated page."""
    _this_checkout()
    pages = {"reference/scenario-files.md": scenario_reference(), "reference/cli.md": cli_reference()}
    for package, text in api_reference().items():
        pages[f"reference/api/{package}.md"] = text
    return pages


# -- the scenario-file reference --------------------------------------------------------------
def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") or "—"


def _key_table(section, *, with_required: bool = True) -> list[str]:
    head = "| key | required | values | default | meaning |" if with_required else \
        "| key | values | default | meaning |"
    lines = [head, "|---" * (5 if with_required else 4) + "|"]
    for name, key in section.items():
        meaning = _cell(key.doc)
        if getattr(key, "when", ""):
            meaning = f"*only with {_cell(key.when)}:* {meaning}"
        cells = [f"`{name}`"]
        if with_required:
            cells.append("yes" if key.required else "no")
        cells += [_cell(key.type), _cell(key.default), meaning]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def scenario_reference() -> str:
    """The scenario-file reference: every family's sections and keys, then ``[run]``."""
    from mopt.core.family import families
    from mopt.scenario import DEFAULT_FAMILY, RUN_KEYS
    from mopt.solvers import METHODS

    out = [
        "# Scenario files",
        "",
        "<!-- generated by docs/hooks.py from the families' declarations: edit those, not this page -->",
        "",
        "A scenario file is TOML. Its top-level key `family` names the installed family that reads "
        f'the rest (default `"{DEFAULT_FAMILY}"`); every family has its own sections and shares '
        "[`[run]`](#run). Every key is checked: an unknown or misspelt key, a missing required one "
        "or a value out of range ends `mopt frontier`, `mopt compare` and `mopt decide` with one "
        "line naming the file, the section and the key (exit code 2). Paths in a scenario file are "
        "relative to the file.",
        "",
        "This page is generated from each family's declaration (`Family.keys`, a mapping section -> "
        "key -> [`Key`][mopt.core.family.Key]) and from `mopt.scenario.RUN_KEYS`; the families' "
        "parsers check files against the same declarations.",
        "",
        "Installed families:",
        "",
    ]
    fams = families()
    for fam in fams.values():
        out.append(f'- [`family = "{fam.name}"`](#family-{fam.name}): {fam.description}')
    for fam in fams.values():
        description = fam.description[:1].upper() + fam.description[1:]
        out += ["", f'## `family = "{fam.name}"` {{ #family-{fam.name} }}', "", description + ".", ""]
        keys = fam.scenario_keys()
        if not keys:
            out += ["This family declares no keys.", ""]
        for name, section in keys.items():
            need = "required" if getattr(section, "required", False) else "optional"
            out += [f"### `[{name}]` ({need}) {{ #{fam.name}-{name} }}", ""]
            if getattr(section, "doc", ""):
                out += [section.doc, ""]
            out += [*_key_table(section), ""]
        out += ["And the shared section [`[run]`](#run).", ""]
        for path in fam.example_paths():
            out += [f"Example (`{fam.package or fam.name}` package data, `{path.name}`):", "",
                    "```toml", path.read_text().rstrip(), "```", ""]
    out += ["## `[run]` — every family { #run }", "", RUN_KEYS.doc, "", *_key_table(RUN_KEYS), "",
            "Methods: " + ", ".join(f"`{m}`" for m in METHODS) + " (see [Search methods]"
            "(../methods/index.md)); `ioo`, `eoo` and `eoo_ocba` search multi-period problems only.", ""]
    return "\n".join(out)


# -- the command-line reference ---------------------------------------------------------------
def _subparsers(parser: argparse.ArgumentParser):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            for name, sub in action.choices.items():
                yield name, sub, helps.get(name, "")


def _options_table(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        invocation = formatter._format_action_invocation(action)
        help_text = formatter._expand_help(action) if action.help else ""
        if action.choices is not None and not action.option_strings:
            invocation = action.metavar or action.dest
            help_text = (help_text + " " if help_text else "") + "one of " + ", ".join(
                f"`{c}`" for c in action.choices)
        rows.append(f"| `{invocation}` | {_cell(help_text)} |")
    if not rows:
        return []
    return ["| argument | meaning |", "|---|---|", *rows]


def _command(name: str, parser: argparse.ArgumentParser, summary: str, level: int) -> list[str]:
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=96)
    anchor = name.replace(" ", "-")
    out = [f"{'#' * level} `{name}` {{ #{anchor} }}", ""]
    if summary:
        out += [f"*{_cell(summary)}*", ""]
    if parser.description:
        out += [" ".join(parser.description.split()), ""]
    out += ["```text", parser.format_usage().strip(), "```", "", *_options_table(parser), ""]
    if parser.epilog:
        out += [" ".join(parser.epilog.split()), ""]
    for sub_name, sub, sub_help in _subparsers(parser):
        out += _command(f"{name} {sub_name}", sub, sub_help, level + 1)
    return out


def cli_reference() -> str:
    """Every subcommand of ``mopt`` with its usage and options, from the parser itself."""
    from mopt.cli import build_parser

    parser = build_parser()
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=96)
    out = ["# Command line", "",
           "<!-- generated by docs/hooks.py from mopt.cli.build_parser(): edit the parser, not this page -->",
           "", " ".join((parser.description or "").split()), "",
           "```text", parser.format_usage().strip(), "```", "",
           "| command | what it does |", "|---|---|"]
    commands = list(_subparsers(parser))
    out += [f"| [`mopt {n}`](#mopt-{n}) | {_cell(h)} |" for n, _, h in commands]
    out += ["", "Options of `mopt` itself:", "", *_options_table(parser)]
    out += ["", " ".join((parser.epilog or "").split()),
            "Exit codes, progress, atomic outputs and input limits: [Command line](../guide/command-line.md).",
            ""]
    for name, sub, summary in commands:
        out += _command(f"mopt {name}", sub, summary, 2)
    return "\n".join(out)


# -- the API reference ------------------------------------------------------------------------
@cache
def _griffe_package():
    import griffe

    return griffe.load("mopt", search_paths=[str(ROOT)], resolve_aliases=True,
                       resolve_external=False)


def canonical_path(package: str, name: str) -> str:
    """Where the public ``package.name`` is defined (its module path and qualified name)."""
    module = importlib.import_module(package)
    obj = getattr(module, name)
    if inspect.ismodule(obj):
        return obj.__name__
    target = getattr(obj, "py_func", obj)
    if (inspect.isclass(target) or inspect.isfunction(target)) and getattr(target, "__module__", None):
        qualname = getattr(target, "__qualname__", name)
        if "<" not in qualname:
            return f"{target.__module__}.{qualname}"
    # data: the module among the package's that defines the name rather than importing it
    loaded = _griffe_package()
    for mod_name in sorted(m for m in sys.modules if m == package or m.startswith(package + ".")):
        if getattr(sys.modules[mod_name], name, None) is not obj:
            continue
        try:
            griffe_module = loaded[mod_name.removeprefix("mopt").lstrip(".")] if mod_name != "mopt" else loaded
        except KeyError:
            continue
        member = griffe_module.members.get(name)
        if member is not None and not member.is_alias:
            return f"{mod_name}.{name}"
    return f"{package}.{name}"


def api_reference() -> dict[str, str]:
    """Package -> its API page: the package's docstring, then one entry per public name."""
    documented: dict[str, str] = {}  # canonical path -> package whose page documents it
    pages = {}
    for package in API_PACKAGES:
        module = importlib.import_module(package)
        names = list(module.__all__)
        out = ["<!-- generated by docs/hooks.py from the package's __all__ -->", "",
               f"::: {package}", "    options:", "      members: false", "      heading_level: 1",
               "      show_root_heading: true", "      show_root_full_path: true", ""]
        elsewhere = []
        for name in names:
            path = canonical_path(package, name)
            if path in documented:
                elsewhere.append(f"[`{name}`][{path}] (on [`{documented[path]}`]({documented[path]}.md))")
                continue
            documented[path] = package
            out += [f"::: {path}", "    options:", "      heading_level: 2",
                    "      show_root_full_path: false", ""]
        if elsewhere:
            out += ["## Documented on another page", "", "Also public here: " + "; ".join(elsewhere) + ".", ""]
        pages[package] = "\n".join(out)
    return pages


def documented_paths() -> set[str]:
    """The canonical paths the API reference documents (for :class:`SphinxRoles`)."""
    paths = set()
    for package in API_PACKAGES:
        paths.add(package)
        for name in importlib.import_module(package).__all__:
            paths.add(canonical_path(package, name))
    return paths


# -- the griffe extension ---------------------------------------------------------------------
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|exc|obj|const|ref):`(~?)([^`<]+?)`")

try:
    import griffe as _griffe
except ImportError:  # pragma: no cover - griffe comes with mkdocstrings
    _griffe = None


if _griffe is not None:

    class SphinxRoles(_griffe.Extension):
        """``:role:`target``` in docstrings -> an autorefs link if ``target`` is documented in the
        API reference (or is a public member of something that is), else a code span."""

        def on_object(self, *, obj, loader, **kwargs) -> None:
            if obj.docstring is None or ":" not in obj.docstring.value:
                return
            linkable = _linkable()
            module = obj.module.path if not obj.is_module else obj.path
            scopes = [obj.path, module] + ([obj.parent.path] if obj.parent is not None else [])

            def replace(match: re.Match) -> str:
                short, target = match.group(1), match.group(2).strip()
                shown = target.rsplit(".", 1)[-1] if short else target
                for candidate in [target] + [f"{scope}.{target}" for scope in scopes]:
                    found = _resolve(loader, candidate)
                    if found is not None and _is_documented(found, linkable):
                        return f"[`{shown}`][{found.path}]"
                return f"`{shown}`"

            obj.docstring.value = ROLE.sub(replace, obj.docstring.value)


@cache
def _linkable() -> frozenset:
    _this_checkout()
    return frozenset(documented_paths())


def _resolve(loader, path: str):
    """The griffe object at ``path``, aliases followed (None if there is none)."""
    try:
        found = loader.modules_collection[path]
        return found.final_target if found.is_alias else found
    except Exception:  # noqa: BLE001 - not in the tree, or an alias to something outside it
        return None


def _is_documented(found, linkable) -> bool:
    """Whether the API reference renders ``found``: a documented object, or a public member with a
    docstring of a documented class (what mkdocstrings shows with this site's options)."""
    if found.path in linkable:
        return True
    parent = found.parent
    return (parent is not None and parent.is_class and parent.path in linkable
            and not found.name.startswith("_") and found.docstring is not None)


if os.environ.get("MOPT_DOCS_PRINT"):  # pragma: no cover - `MOPT_DOCS_PRINT=1 python docs/hooks.py`
    for uri, text in generated_pages().items():
        print(f"==> {uri}\n{text}\n")
