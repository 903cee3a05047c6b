"""figures/README.md indexes figures/: every file there has a row naming the experiments/ script and
command that write it, every row's files exist, and every file the docs name is there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "figures"
INDEX = (FIGURES / "README.md").read_text(encoding="utf-8")


def _rows() -> list[tuple[list[str], str]]:
    """(files of the first cell, the rest of the row) of every index table row."""
    rows = []
    for line in INDEX.splitlines():
        if line.startswith("| `"):
            first, _, rest = line[2:].partition(" | ")
            rows.append((re.findall(r"`([^`]+)`", first), rest))
    return rows


def test_every_file_in_figures_is_indexed_once():
    indexed = [name for files, _ in _rows() for name in files]
    assert len(indexed) == len(set(indexed)), "a file has two rows"
    present = {p.name for p in FIGURES.iterdir() if p.is_file() and p.name != "README.md"}
    assert sorted(present - set(indexed)) == [], "files in figures/ without a row in figures/README.md"
    assert sorted(set(indexed) - present) == [], "rows of figures/README.md naming missing files"


def test_every_row_names_an_existing_script():
    scripts = {p.name for p in (ROOT / "experiments").glob("*.py")}
    for files, rest in _rows():
        named = set(re.findall(r"([a-z0-9_]+\.py)", rest))
        assert named and named <= scripts, (files, named - scripts)


def test_files_the_docs_name_are_indexed():
    """Every figures/ file the README or a docs page names (a link or a path; patterns aside)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in pages if p.is_file())
    named = {m for m in re.findall(r"figures/([A-Za-z0-9_.-]+\.(?:png|md|csv))", text)}
    indexed = {name for files, _ in _rows() for name in files}
    assert named and named <= indexed, sorted(named - indexed)


def test_no_row_is_marked_stale():
    """A table whose numbers the current code no longer gives is re-run (and the docs' numbers
    with it), not kept under a "stale" mark."""
    # (the virtual clusters' information="stale" option and its runs' files are names, not marks)
    option = re.compile(r"""information[ =]+["']?stale["']?|stale information|\w*_stale\w*\.csv""", re.IGNORECASE)
    stale = [files for files, rest in _rows() if "stale" in option.sub("", rest).lower()]
    assert stale == [], stale
