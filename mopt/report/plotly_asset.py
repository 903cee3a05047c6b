"""Where a report page finds plotly's JavaScript (~4.6 MB): inlined in the page (the default: one
self-contained file that opens from disk with no network), or written once into a folder of assets
that every page names by a relative path (``--report-assets DIR``: pages of a few hundred KB).

:func:`plotly_src` writes ``DIR/plotly-<version>.min.js`` (atomically; left as it is when it holds
the same bytes already) and returns its address relative to the page; :func:`plotly_tag` is the
``<script>`` element a page writes, either way. Only these two import plotly.
"""

from __future__ import annotations

import html
import os
import urllib.parse
from pathlib import Path

__all__ = ["plotly_file", "write_plotly", "plotly_src", "plotly_tag", "relative_address"]


def plotly_file() -> str:
    """The asset's file name, ``plotly-<version>.min.js`` (the version of the installed plotly.js)."""
    from plotly.offline import get_plotlyjs_version

    return f"plotly-{get_plotlyjs_version()}.min.js"


def write_plotly(directory: str | os.PathLike) -> Path:
    """Write plotly's JavaScript into ``directory`` (made if missing) as :func:`plotly_file`,
    atomically, unless it holds those bytes already (then it is not touched); return its path.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     first = write_plotly(d)
    ...     mtime = first.stat().st_mtime_ns
    ...     write_plotly(d).stat().st_mtime_ns == mtime, first.name.startswith("plotly-")
    (True, True)
    """
    from plotly.offline import get_plotlyjs

    from mopt.core.set_writer import atomic_write

    directory = Path(directory)
    path = directory / plotly_file()
    data = get_plotlyjs().encode("utf-8")
    try:
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return path
    except OSError:
        pass  # unreadable: written again below (the error, if any, is the writer's)
    atomic_write(path, lambda p: Path(p).write_bytes(data))
    return path


def plotly_src(directory: str | os.PathLike | None, page: str | os.PathLike) -> str | None:
    """Write plotly's JavaScript into ``directory`` (:func:`write_plotly`) and return its address
    relative to where ``page`` will be (symbolic links resolved, as the browser will), URL-quoted;
    None (the page inlines it) when ``directory`` is None.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     plotly_src(Path(d) / "assets", Path(d) / "run" / "report.html").startswith("../assets/plotly-")
    True
    """
    if directory is None:
        return None
    return relative_address(write_plotly(directory), page)


def relative_address(path: str | os.PathLike, page: str | os.PathLike) -> str:
    """The address of the file ``path`` as a page at ``page`` names it: relative to the page's
    folder (symbolic links resolved, as the browser will), URL-quoted.

    Examples
    --------
    >>> relative_address("/data/run/front.png", "/data/run/report.html")
    'front.png'
    >>> relative_address("/data/assets/plotly x.js", "/data/run/report.html")
    '../assets/plotly%20x.js'
    """
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(Path(page).parent))
    return urllib.parse.quote(Path(relative).as_posix())


def plotly_tag(src: str | None) -> str:
    """The page's plotly ``<script>``: ``src`` loads it from that address (:func:`plotly_src`),
    None inlines it whole."""
    if src is not None:
        return f'<script src="{html.escape(src)}"></script>'
    from plotly.offline import get_plotlyjs

    return f"<script>{get_plotlyjs()}</script>"
