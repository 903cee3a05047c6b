"""The figure drawn in a forked child (mopt.figure_process): the same pixels as drawn here, and a
child that fails, dies or is never asked leaves the parent to draw (or to end) as before."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.image import imread

from mopt import figure_process
from mopt.plot import plot_frontier, save_figure

ROOT = Path(__file__).resolve().parents[1]


def _data():
    ev = pd.DataFrame({"makespan": [10.0, 20.0, 30.0, 15.0], "cost": [9.0, 5.0, 2.0, 8.0],
                       "makespan_se": [1.0, 1.0, 1.0, 1.0], "cost_se": [0.5, 0.5, 0.5, 0.5]})
    return ev, ev.iloc[:3]


def figure_in_parent_only(parent: int) -> Figure:
    """A figure, drawn only in the process ``parent`` (in any other, an error)."""
    if os.getpid() != parent:
        raise RuntimeError("not the parent")
    fig = Figure(figsize=(2, 2))
    fig.add_subplot().plot([0, 1], [1, 0])
    return fig


#: put before every script: whether this process has waited for its child ``pid`` (none left)
REAPED = """
import os

def reaped(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False
"""


def _run(script: str, **env) -> dict:
    """Run ``script`` in a fresh interpreter (matplotlib not imported: the painter forks) and
    return the JSON it prints."""
    out = subprocess.run([sys.executable, "-c", REAPED + textwrap.dedent(script)], cwd=ROOT, capture_output=True,
                         text=True, timeout=120, env={**os.environ, "MPLBACKEND": "Agg", **env})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_in_a_process_with_matplotlib_the_figure_is_drawn_here(tmp_path):
    painter = figure_process.start()
    assert not painter.forked  # this test process imported matplotlib already
    ev, front = _data()
    drawing = painter.submit("mopt.plot:plot_frontier", ev, front, title="here")
    drawing.save(tmp_path / "a.png")
    save_figure(plot_frontier(ev, front, title="here"), tmp_path / "b.png")
    assert drawing.drawn_by == "here"
    assert np.array_equal(imread(tmp_path / "a.png"), imread(tmp_path / "b.png"))


def test_the_child_draws_the_same_pixels_as_the_parent(tmp_path):
    got = _run(f"""
        import json, sys
        from mopt import figure_process
        painter = figure_process.start()
        forked = painter.forked
        import pandas as pd
        ev = pd.DataFrame({{"makespan": [10.0, 20.0, 30.0, 15.0], "cost": [9.0, 5.0, 2.0, 8.0],
                           "makespan_se": [1.0] * 4, "cost_se": [0.5] * 4}})
        drawing = painter.submit("mopt.plot:plot_frontier", ev, ev.iloc[:3], title="here")
        drawing.save({str(tmp_path / "child.png")!r})
        print(json.dumps({{"forked": forked, "by": drawing.drawn_by, "mpl": "matplotlib" in sys.modules}}))
    """)
    assert got == {"forked": True, "by": "child", "mpl": False}  # the parent never imported matplotlib
    ev, front = _data()
    save_figure(plot_frontier(ev, front, title="here"), tmp_path / "here.png")
    assert np.array_equal(imread(tmp_path / "child.png"), imread(tmp_path / "here.png"))


def test_a_figure_that_fails_in_the_child_is_drawn_by_the_parent(tmp_path):
    got = _run(f"""
        import json, os
        from mopt import figure_process
        painter = figure_process.start()
        drawing = painter.submit("tests.test_figure_process:figure_in_parent_only", os.getpid())
        drawing.save({str(tmp_path / "f.png")!r})
        print(json.dumps({{"forked": painter.pid is not None, "by": drawing.drawn_by}}))
    """)
    assert got == {"forked": True, "by": "here"}
    assert imread(tmp_path / "f.png").shape[:2] == (300, 300)  # 2 in at 150 dpi


def test_a_child_that_died_leaves_the_parent_to_draw(tmp_path):
    got = _run(f"""
        import json, os, signal
        from mopt import figure_process
        painter = figure_process.start()
        os.kill(painter.pid, signal.SIGKILL)
        drawing = painter.submit("tests.test_figure_process:figure_in_parent_only", os.getpid())
        drawing.save({str(tmp_path / "f.png")!r})
        print(json.dumps({{"by": drawing.drawn_by, "reaped": reaped(painter.pid)}}))
    """)
    assert got == {"by": "here", "reaped": True}
    assert (tmp_path / "f.png").stat().st_size > 0


def test_data_that_does_not_pickle_is_drawn_here_and_close_ends_the_child(tmp_path):
    got = _run(f"""
        import json, os
        from mopt import figure_process
        painter = figure_process.start()
        drawing = painter.submit("tests.test_figure_process:figure_in_parent_only", os.getpid(),
                                 unused=lambda: None)
        try:
            drawing.save({str(tmp_path / "f.png")!r})
        except TypeError as e:  # figure_in_parent_only takes no 'unused': raised here, in the parent
            error = str(e)
        painter.close()
        print(json.dumps({{"by": drawing.drawn_by, "error": "unused" in error, "reaped": reaped(painter.pid)}}))
    """)
    assert got == {"by": None, "error": True, "reaped": True}


def test_a_child_never_asked_ends_with_close_and_with_its_parent():
    got = _run("""
        import json, os
        from mopt import figure_process
        closed = figure_process.start()
        closed.close()
        left = figure_process.start()  # the parent exits without a word to it
        print(json.dumps({"closed_reaped": reaped(closed.pid), "left": left.pid}))
    """)
    assert got["closed_reaped"] is True
    _gone_soon(got["left"])


def _gone_soon(pid: int) -> None:
    import time

    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state in ("Z", "X"):  # exited, left for init to reap
            return
        time.sleep(0.05)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError(f"the child {pid} outlived its parent by 10 s")


def test_no_fork_when_turned_off():
    got = _run("""
        import json
        from mopt import figure_process
        print(json.dumps({"forked": figure_process.start().forked}))
    """, MOPT_FIGURE_PROCESS="0")
    assert got == {"forked": False}


@pytest.mark.slow
def test_mopt_demo_draws_front_png_beside_the_run_with_the_same_pixels(tmp_path):
    """Two ``mopt demo`` programs, the figure forked and not: the same front.png, pixel for pixel."""
    for name, flag in (("forked", "1"), ("here", "0")):
        subprocess.run(["mopt", "demo", "--out", str(tmp_path / name), "--quiet"], check=True, capture_output=True,
                       timeout=300, env={**os.environ, "MPLBACKEND": "Agg", "MOPT_FIGURE_PROCESS": flag})
    assert np.array_equal(imread(tmp_path / "forked" / "front.png"), imread(tmp_path / "here" / "front.png"))
