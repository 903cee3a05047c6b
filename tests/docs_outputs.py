"""The output a runnable docs block shows, checked against what the block prints.

A runnable block (``<!-- runnable -->`` above its fence, see ``tests/test_docs.py``) may be followed
by the output it prints, in a block of its own with the marker ``<!-- output -->`` above the fence
(only blank lines between the two blocks)::

    <!-- runnable -->
    ```python
    print(1 / 3)
    ```

    <!-- output -->
    ```text
    0.3333333333333333
    ```

The test runs the block and compares its standard output with the shown one, line by line:

- the text between numbers must be equal (trailing spaces aside);
- a number must equal the printed one to the precision printed, give or take one unit of its last
  digit (``0.592`` matches ``0.591`` … ``0.593``): the last bits of a floating-point result differ
  between CPUs (issue #32), so the docs promise what is printed, not the bits below it;
- a line ``...`` alone stands for any number of lines (long outputs are shown in part).

``python -m tests.docs_outputs [PAGE ...]`` runs the blocks of the pages (default: every page) and
writes what they print into their output blocks, keeping ``...`` lines where they cut a long output;
``--add`` also gives an output block to every runnable block that prints and has none.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

OUTPUT_MARKER = "<!-- output -->"
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
ELLIPSIS = "..."
#: an output shown in full up to this many lines; longer ones keep their first HEAD and last TAIL
MAX_LINES, HEAD, TAIL = 16, 9, 4


def _numbers(line: str) -> tuple[list[str], list[str]]:
    """A line split into its text parts and its number tokens (text, number, text, …)."""
    return NUMBER.split(line), NUMBER.findall(line)


def _close(shown: str, actual: str) -> bool:
    """Whether the number ``actual`` equals ``shown`` to the precision ``shown`` is printed in."""
    if shown == actual:
        return True
    a, b = shown.replace(",", ""), actual.replace(",", "")
    mantissa = re.split(r"[eE]", a)[0]
    b_mantissa = re.split(r"[eE]", b)[0]
    if ("." in mantissa) != ("." in b_mantissa) or len(mantissa.split(".")[-1]) != len(b_mantissa.split(".")[-1]):
        return False  # printed to another precision: a real change of format
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    exponent = int(re.split(r"[eE]", a)[1]) if re.search(r"[eE]", a) else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    unit = 10.0 ** (exponent - decimals)
    return abs(x - y) <= unit * (1 + 1e-9)


def line_matches(shown: str, actual: str) -> bool:
    """Whether the output line ``actual`` is the shown line ``shown`` (numbers to their precision)."""
    shown, actual = shown.rstrip(), actual.rstrip()
    if shown == actual:
        return True
    text_s, num_s = _numbers(shown)
    text_a, num_a = _numbers(actual)
    return (text_s == text_a and len(num_s) == len(num_a)
            and all(_close(s, a) for s, a in zip(num_s, num_a, strict=True)))


def output_matches(shown: str, actual: str) -> bool:
    """Whether ``actual`` (what the block printed) is the ``shown`` output, ``...`` lines standing
    for any run of lines."""
    want = [line.rstrip() for line in shown.rstrip("\n").splitlines()]
    got = [line.rstrip() for line in actual.rstrip("\n").splitlines()]

    def match(i: int, j: int, memo: dict) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(want):
            ok = j == len(got)
        elif want[i].strip() == ELLIPSIS:
            ok = any(match(i + 1, k, memo) for k in range(j, len(got) + 1))
        else:
            ok = j < len(got) and line_matches(want[i], got[j]) and match(i + 1, j + 1, memo)
        memo[key] = ok
        return ok

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * (len(want) + len(got)) + 100))
    return match(0, 0, {})


def first_difference(shown: str, actual: str) -> str:
    """A line or two saying where ``actual`` departs from ``shown`` (for a test's message)."""
    want, got = shown.rstrip("\n").splitlines(), actual.rstrip("\n").splitlines()
    for k, (w, g) in enumerate(zip(want, got, strict=False)):
        if w.strip() == ELLIPSIS:
            return f"output differs after line {k + 1} ('...')"
        if not line_matches(w, g):
            return f"line {k + 1}: shown {w!r}\n        printed {g!r}"
    return f"shown {len(want)} lines, printed {len(got)}"


def shown_output(path: Path, block) -> tuple[int, int, str] | None:
    """The output block that follows ``block`` in ``path``: (first line, last line, text) of its
    content (1-based, inclusive), or None when the block shows no output."""
    lines = path.read_text().splitlines()
    k = block.line + block.code.count("\n")  # index of the closing fence (0-based)
    k += 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines) or lines[k].strip() != OUTPUT_MARKER:
        return None
    fence = k + 1
    opening = re.match(r"^(`{3,}|~{3,})", lines[fence]) if fence < len(lines) else None
    if not opening:
        raise ValueError(f"{path}:{k + 1}: '{OUTPUT_MARKER}' must be the line just above a fence")
    end = fence + 1
    while end < len(lines) and lines[end].rstrip() != opening.group(1):
        end += 1
    return fence + 2, end, "\n".join(lines[fence + 1:end]) + "\n"


def _shorten(text: str) -> str:
    lines = text.rstrip("\n").splitlines()
    if len(lines) <= MAX_LINES:
        return "\n".join(lines) + "\n"
    head, tail = lines[:HEAD], lines[-TAIL:]
    return "\n".join([*head, ELLIPSIS, *tail]) + "\n"


def _refresh(shown: str, actual: str) -> str:
    """The new content of an output block: ``actual``, cut where ``shown`` was cut (its ``...``
    lines kept with as many lines around them as before), or shortened when it is long."""
    if output_matches(shown, actual):
        return shown
    if ELLIPSIS not in [line.strip() for line in shown.splitlines()]:
        return _shorten(actual)
    want = shown.rstrip("\n").splitlines()
    cut = want.index(next(w for w in want if w.strip() == ELLIPSIS))
    got = actual.rstrip("\n").splitlines()
    after = len(want) - cut - 1
    return "\n".join([*got[:cut], ELLIPSIS, *(got[-after:] if after else [])]) + "\n"


def write_outputs(pages: list[Path], *, add: bool) -> list[str]:
    """Run the runnable blocks of ``pages`` and write their outputs (see the module's docstring);
    returns a line per block written."""
    from tests.test_docs import MARKER, blocks, run_block

    done = []
    for page in pages:
        # from the last block up, so that the line numbers of the blocks above stay valid
        for block in reversed([b for b in blocks(page) if MARKER.match(b.marker)]):
            shown = shown_output(page, block)
            if shown is None and not add:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                run = run_block(block, Path(tmp))
            if run.returncode != 0:
                done.append(f"{block.id}: failed (exit {run.returncode}), left as it is")
                continue
            if not run.stdout.strip():
                continue
            lines = page.read_text().splitlines()
            if shown is None:
                close = block.line + block.code.count("\n")  # the closing fence (0-based)
                new = ["", OUTPUT_MARKER, "```text", *_shorten(run.stdout).rstrip("\n").splitlines(), "```"]
                lines[close + 1:close + 1] = new
            else:
                first, last, text = shown
                lines[first - 1:last] = _refresh(text, run.stdout).rstrip("\n").splitlines()
            page.write_text("\n".join(lines) + "\n")
            done.append(f"{block.id}: {'added' if shown is None else 'refreshed'}")
    return done


def main(argv=None) -> int:
    from tests.test_docs import DOCS, doc_pages

    parser = argparse.ArgumentParser(prog="python -m tests.docs_outputs", description=__doc__.split("\n\n")[0])
    parser.add_argument("pages", nargs="*", type=Path, help="Markdown pages (default: every page of docs/)")
    parser.add_argument("--add", action="store_true", help="give every runnable block that prints an output block")
    args = parser.parse_args(argv)
    pages = [p if p.exists() else DOCS / p for p in args.pages] or doc_pages()
    for line in write_outputs([p.resolve() for p in pages], add=args.add):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
