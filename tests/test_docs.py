"""Docs that run: every code block of the README and every block of the docs marked runnable is
executed as a user would run it, and the generated reference pages cover what they claim to.

Which blocks run, and how (docs/contributing.md, "Docs that run"):

- the README: every ``python``, ``bash``, ``sh`` and ``console`` block;
- docs/**/*.md: the blocks whose fence follows the line ``<!-- runnable -->``;
  ``<!-- runnable needs-traces -->`` blocks skip when ``MOPT_DATA_DIR`` is unset;
- a Python block is a script run by this interpreter, with this checkout first on the path; a
  shell block runs in ``bash`` with ``mopt`` = ``python -m mopt``; a ``console`` block runs its
  ``$ `` lines; each block runs in its own temporary directory holding a link to ``examples/``;
- the commands CI runs itself (``python -m pip install``, ``python -m pytest``, ``mkdocs``) are not
  run here: they must appear exactly in ``.ci/run``.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs_outputs import OUTPUT_MARKER, first_difference, output_matches, shown_output

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
CI = (ROOT / ".ci" / "run").read_text()
RUNNABLE = ("python", "bash", "sh", "console")
MARKER = re.compile(r"^<!--\s*runnable(?P<flags>(?:\s+[\w-]+)*)\s*-->$")
FLAGS = {"needs-traces"}
#: commands CI runs itself: checked against .ci/run, never run inside the tests
CI_COMMANDS = re.compile(r"^(python -m pip install|python -m pytest|mkdocs)\b")
TIMEOUT = 600  # s, per block; blocks should take seconds


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence
    lang: str
    code: str
    marker: str  # the line before the fence

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def flags(self) -> set:
        match = MARKER.match(self.marker)
        return set(match.group("flags").split()) if match else set()


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file (fences at the start of a line)."""
    lines = path.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        opening = re.match(r"^(`{3,}|~{3,})\s*([\w+-]*)", lines[i])
        if not opening:
            i += 1
            continue
        fence, lang = opening.group(1), opening.group(2)
        j = i + 1
        while j < len(lines) and not (lines[j].startswith(fence[0] * len(fence))
                                      and not lines[j].strip(fence[0]).strip()):
            j += 1
        marker = lines[i - 1].strip() if i else ""
        out.append(Block(path, i + 1, lang, "\n".join(lines[i + 1:j]) + "\n", marker))
        i = j + 1
    return out


def doc_pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def runnable_blocks() -> list[Block]:
    found = [b for b in blocks(README) if b.lang in RUNNABLE]
    for page in doc_pages():
        found += [b for b in blocks(page) if MARKER.match(b.marker)]
    return found


# -- running one block ------------------------------------------------------------------------
def _environment() -> dict:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": path, "MOPT_PYTHON": sys.executable}


def shell_commands(block: Block) -> list[str]:
    """The block's command lines to run, with the CI commands checked against .ci/run and left out."""
    lines = block.code.splitlines()
    if block.lang == "console":
        lines = [line[2:] for line in lines if line.startswith("$ ")]
    commands = []
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = []
        for part in re.sub(r"\s+#.*$", "", line).split("&&"):
            part = part.strip()
            if CI_COMMANDS.match(part):
                assert part in CI, f"{block.id}: {part!r} is not a command of .ci/run"
            elif part:
                parts.append(part)
        if parts:
            commands.append(" && ".join(parts))
    return commands


def run_block(block: Block, workdir: Path) -> subprocess.CompletedProcess:
    (workdir / "examples").symlink_to(ROOT / "examples", target_is_directory=True)
    if block.lang == "python":
        script = workdir / "block.py"
        script.write_text(block.code)
        argv = [sys.executable, str(script)]
    else:
        prelude = ['set -eo pipefail', 'mopt() { "$MOPT_PYTHON" -m mopt "$@"; }',
                   'python() { "$MOPT_PYTHON" "$@"; }']
        script = workdir / "block.sh"
        script.write_text("\n".join(prelude + shell_commands(block)) + "\n")
        argv = ["bash", str(script)]
    return subprocess.run(argv, cwd=workdir, env=_environment(), text=True, capture_output=True,
                          timeout=TIMEOUT)


@pytest.mark.parametrize("block", runnable_blocks(), ids=lambda b: b.id)
def test_block_runs(block, tmp_path):
    if "needs-traces" in block.flags and not os.environ.get("MOPT_DATA_DIR"):
        pytest.skip("needs the workload traces: set MOPT_DATA_DIR to the directory that holds them")
    done = run_block(block, tmp_path)
    assert done.returncode == 0, f"{block.id} failed:\n{block.code}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, f"{block.id}:\n{done.stderr[-3000:]}"
    shown = shown_output(block.path, block)
    if shown is not None:  # the output the page shows is what the block prints (tests/docs_outputs.py)
        assert output_matches(shown[2], done.stdout), (
            f"{block.id}: the output shown at line {shown[0]} is not what the block prints: "
            f"{first_difference(shown[2], done.stdout)}\n(python -m tests.docs_outputs {block.path.name} rewrites it)")


# -- what the blocks are ----------------------------------------------------------------------
def test_markers_mark_runnable_blocks():
    """A marker names known flags and precedes a block of a language that runs; a marker that is
    not directly above a fence is a mistake (it would silently mark nothing)."""
    for page in doc_pages():
        lines = page.read_text().splitlines()
        fences = {b.line: b for b in blocks(page)}
        inside = {n for b in blocks(page) for n in range(b.line, b.line + b.code.count("\n") + 2)}
        for k, line in enumerate(lines, start=1):
            match = MARKER.match(line.strip())
            if not match or k in inside:
                continue
            block = fences.get(k + 1)
            assert block is not None, f"{page}:{k}: a runnable marker must be the line just above a fence"
            assert block.lang in RUNNABLE, f"{page}:{k}: a {block.lang!r} block cannot run"
            assert set(match.group("flags").split()) <= FLAGS, f"{page}:{k}: unknown flag"


def test_output_blocks_follow_a_runnable_block():
    """An ``<!-- output -->`` block shows a runnable block's output: one that follows anything else
    would be checked against nothing."""
    for page in [README, *doc_pages()]:
        lines = page.read_text().splitlines()
        owned = {shown[0] - 2 for b in blocks(page) if MARKER.match(b.marker)
                 if (shown := shown_output(page, b)) is not None}  # the marker lines (1-based)
        for k, line in enumerate(lines, start=1):
            if line.strip() == OUTPUT_MARKER:
                assert k in owned, f"{page}:{k}: an output block must follow a runnable block"


def test_shown_output_is_compared_to_the_precision_printed():
    """Hand cases of the comparison of a shown output with a printed one."""
    assert output_matches("P = 0.592\n", "P = 0.593\n")  # one unit of the last digit
    assert not output_matches("P = 0.592\n", "P = 0.594\n")
    assert not output_matches("P = 0.592\n", "P = 0.5921\n")  # another precision is another format
    assert output_matches("1,946 of 15,579 designs\n", "1,946 of 15,579 designs\n")
    assert not output_matches("1,946 of 15,579 designs\n", "1,950 of 15,579 designs\n")
    assert output_matches("x 1.50e+04\n", "x 1.51e+04\n") and not output_matches("x 1.50e+04\n", "x 1.52e+04\n")
    assert not output_matches("makespan\n", "cost\n")
    assert output_matches("a\n...\nz\n", "a\nb\nc\nz\n") and output_matches("a\n...\nz\n", "a\nz\n")
    assert not output_matches("a\n...\nz\n", "a\nb\n")
    assert not output_matches("a\nb\n", "a\nb\nc\n")  # a line more is a difference


def test_every_python_block_of_the_docs_runs():
    """Python examples on the pages are all marked runnable (shell blocks may show installs)."""
    unmarked = [b.id for page in doc_pages() for b in blocks(page)
                if b.lang == "python" and not MARKER.match(b.marker)]
    assert not unmarked, f"python blocks without <!-- runnable -->: {unmarked}"


def test_enough_blocks_run():
    found = runnable_blocks()
    readme = [b for b in found if b.path == README]
    assert {b.lang for b in readme} >= {"python", "bash"}, "the README lost its examples"
    pages = {b.path.relative_to(DOCS).as_posix() for b in found if b.path != README}
    for page in ("getting-started.md", "families/expert.md", "families/vmc.md", "families/cloud.md",
                 "families/koala.md", "architecture.md", "methods/oo.md", "methods/multiperiod.md"):
        assert page in pages, f"docs/{page} has no runnable block"


# -- the README -------------------------------------------------------------------------------
def test_readme_is_short_and_points_inside_the_repository():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    assert not re.search(r"(?<![\w.])/(work|home|tmp|root)/|\.\./", text), "a path outside the repository"
    for target in re.findall(r"\]\(([^)#\s]+)", text):
        if not re.match(r"https?://", target):
            assert (ROOT / target).exists(), f"README links to a missing {target}"


def test_readme_setup_is_what_ci_runs():
    text = README.read_text()
    setup = next(b for b in blocks(README) if b.lang == "bash")
    first, test = [re.sub(r"\s+#.*$", "", line).strip() for line in setup.code.splitlines()[:2]]
    install, demo = (part.strip() for part in first.split("&&"))
    assert install == 'python -m pip install -e ".[test]"' and install in CI
    assert demo.split()[:2] == ["mopt", "demo"] and re.search(r"^(time )?mopt demo\b", CI, re.M)  # CI times it
    assert test == "python -m pytest" and re.search(r"^python -m pytest$", CI, re.M)
    assert 'python -m pip install -e ".[docs]"' in text and 'python -m pip install -e ".[docs]"' in CI
    assert "mkdocs build --strict" in text and "mkdocs build --strict" in CI


def test_links_to_files_of_the_repository_exist():
    """Images and links to repository files (figures, their tables) resolve from the page, as on
    GitHub; the docs build serves figures/ at the same place (docs/hooks.py)."""
    for page in [README, *doc_pages()]:
        for target in re.findall(r"\]\(([^)#\s]+)", page.read_text()):
            resolved = (page.parent / target).resolve()
            if "://" in target or (resolved.is_relative_to(DOCS) and target.endswith(".md")):
                continue  # the web, or a page of the site (mkdocs build --strict checks those)
            assert resolved.is_relative_to(ROOT) and resolved.exists(), f"{page}: {target}"


# -- the generated pages ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def hooks():
    spec = importlib.util.spec_from_file_location("mopt_docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scenario_reference_lists_every_key(hooks):
    from mopt.core.family import families
    from mopt.scenario import RUN_KEYS

    page = hooks.scenario_reference()
    for family in families().values():
        assert f'`family = "{family.name}"`' in page
        keys = family.scenario_keys()
        assert keys, f"family {family.name!r} declares no scenario keys"
        for section, table in keys.items():
            assert f"### `[{section}]`" in page
            for key, declared in table.items():
                assert f"| `{key}` |" in page and hooks._cell(declared.doc) in page, (section, key)
    for key in RUN_KEYS:
        assert f"| `{key}` |" in page


def test_cli_reference_lists_every_command_and_option(hooks):
    import argparse

    from mopt.cli import build_parser

    page = hooks.cli_reference()

    def walk(parser, name):
        assert name == "mopt" or f"## `{name}`" in page, name
        for action in parser._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in page, f"{name} {option}"
            if isinstance(action, argparse._SubParsersAction):
                for sub, subparser in action.choices.items():
                    walk(subparser, f"{name} {sub}")

    walk(build_parser(), "mopt")


def test_api_reference_lists_every_public_name(hooks):
    pytest.importorskip("griffe", reason="the API pages need griffe (the docs extra)")
    import importlib

    pages = hooks.api_reference()
    text = "\n".join(pages.values())
    for package in hooks.API_PACKAGES:
        for name in importlib.import_module(package).__all__:
            path = hooks.canonical_path(package, name)
            assert f"::: {path}\n" in text or f"][{path}]" in pages[package], f"{package}.{name}"
