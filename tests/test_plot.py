"""mopt.plot: the progress figure of a comparison."""

from __future__ import annotations

import pytest

from mopt import FunctionProblem
from mopt.compare import compare
from mopt.plot import plot_progress
from tests.known_means import DESIGNS, MEANS, exact


@pytest.fixture
def prob():
    return FunctionProblem(exact, DESIGNS, ["time", "cost"], n_reps=3)


def test_plot_progress_saves_atomically(prob, tmp_path):
    df = compare(prob, ["exhaustive", "blind_pick"], [8, 24], 2, seed=1, truth=MEANS)
    fig = plot_progress(df, tmp_path / "progress.png", title="t", caption="c")
    assert (tmp_path / "progress.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.png"]   # no temporary left
    assert len(fig.axes) == 4 and all(ax.get_xscale() == "log" for ax in fig.axes)
    pcs_lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert pcs_lines["exhaustive"].get_xydata().tolist() == [[8, 1.0], [24, 1.0]]  # exact problem
    assert set(pcs_lines) == {"exhaustive", "blind_pick"}
