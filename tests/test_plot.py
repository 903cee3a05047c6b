"""mopt.plot: the progress figure of a comparison; the figures of a Result (mopt.result_plots)."""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np
import pytest
from matplotlib.collections import LineCollection
from matplotlib.container import ErrorbarContainer
from matplotlib.figure import Figure

import mopt
import mopt.plot
import mopt.progress_plot
import mopt.result_plots
from mopt import FunctionProblem
from mopt.compare import compare
from mopt.core.family import get_family
from mopt.plot import plot_frontier, save_figure
from mopt.progress_plot import plot_progress
from mopt.result_plots import plot_parallel, plot_result
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


# -- figures of a Result: labels from the family, intervals, P(non-dominated), pairwise panels --
KOALA = ("slowdown_short", "slowdown_long", "public_cost")


def _result(means=((1, 5, 2), (2, 2, 2), (5, 1, 3), (4, 4, 4)), names=None, info=None):
    """A hand-built Result (exhaustive over NormalProblem), objectives renamed to ``names``, without
    the uncertainty columns (as a result of an earlier release; :func:`_with_uncertainty` adds them)."""
    result = mopt.solve(mopt.NormalProblem([list(m) for m in means], sd=0.5), "exhaustive", seed=1)
    how_sure = ["p_nondominated", *(f"{o}_{e}" for o in result.objectives for e in ("lo", "hi"))]
    result = dataclasses.replace(result, evaluations=result.evaluations.drop(columns=how_sure))
    if names is None:
        return dataclasses.replace(result, info=info or {})
    renames = {}
    for old, new in zip(result.objectives, names, strict=True):
        renames.update({old: new, f"{old}_se": f"{new}_se"})
    return dataclasses.replace(result, objectives=tuple(names), info=info or {},
                               evaluations=result.evaluations.rename(columns=renames))


def _with_uncertainty(result, p=(0.9, 0.6, 0.95, 0.02)):
    """``result`` with the uncertainty columns: p_nondominated, and <objective>_lo/_hi put at
    mean - 2 and mean + 3 (asymmetric, so that a test tells them from 1.96 SE)."""
    ev = result.evaluations.copy()
    ev["p_nondominated"] = list(p)
    for o in result.objectives:
        ev[f"{o}_lo"], ev[f"{o}_hi"] = ev[o] - 2.0, ev[o] + 3.0
    info = {**result.info, "uncertainty": {"level": 0.95, "uncertain": [3], "resamples": 100}}
    return dataclasses.replace(result, evaluations=ev, info=info)


def _pairs(fig):
    return [ax for ax in fig.axes if ax.get_label() == "pair"]


def _colorbars(fig):
    return [ax for ax in fig.axes if ax.get_ylabel() == "P(non-dominated)"]


def _errorbars(ax):
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def test_no_family_is_assumed_in_mopt_plot():
    assert inspect.signature(plot_frontier).parameters["x"].default is None
    assert inspect.signature(plot_frontier).parameters["y"].default is None
    for module in (mopt.plot, mopt.result_plots, mopt.progress_plot):
        source = inspect.getsource(module)
        assert "makespan" not in source and "ExPERT" not in source and "expert" not in source


def test_plot_frontier_defaults_to_the_first_two_objectives():
    ev = _result(names=KOALA).evaluations
    ax = plot_frontier(ev, ev.iloc[:2]).axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("slowdown_short", "slowdown_long")
    ax = plot_frontier(ev, ev.iloc[:2], y="public_cost", family="koala").axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("mean slowdown of short jobs", "public-cloud cost [$]")
    with pytest.raises(mopt.InputError, match="needs 'x' and 'y'"):
        plot_frontier(ev[["design", "slowdown_short"]], ev.iloc[:0])


@pytest.mark.parametrize("how", ["argument", "info"])
def test_three_objectives_are_three_pairwise_panels_labelled_by_the_family(how):
    labels = {o: get_family("koala").label(o) for o in KOALA}
    assert labels["public_cost"] == "public-cloud cost [$]"
    result = _result(names=KOALA, info={"family": "koala"} if how == "info" else {})
    fig = plot_result(result, family="koala" if how == "argument" else None)
    pairs = _pairs(fig)
    assert len(pairs) == 3
    # lower triangle: x = objective j, y = objective i + 1 (j <= i); labelled at the bottom and left
    shown = [(ax.get_xlabel().replace("\n", " "), ax.get_ylabel().replace("\n", " ")) for ax in pairs]
    assert shown == [("", labels["slowdown_long"]),
                     (labels["slowdown_short"], labels["public_cost"]),
                     (labels["slowdown_long"], "")]
    assert _colorbars(fig) == []  # no p_nondominated column: no colorbar
    front = {int(d) for d in result.front["design"]}
    assert front == {0, 1, 2}
    for ax in pairs:  # the front highlighted in every panel, with its intervals; no zigzag line
        (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("Pareto")
                   or ln.get_label() == "_nolegend_" and ln.get_marker() == "o"]
        assert len(line.get_xdata()) == 3 and line.get_linestyle() == "None"
        (bars,) = _errorbars(ax)
        assert sum(len(c.get_segments()) for c in bars.lines[2]) == 2 * 3  # x and y bar of 3 designs


def test_unknown_family_in_info_falls_back_to_the_column_names():
    fig = plot_result(_result(names=KOALA, info={"family": "no_such_family"}))
    assert _pairs(fig)[1].get_xlabel() == "slowdown_short"
    with pytest.raises(mopt.InputError, match="'family' must be one of"):
        plot_result(_result(names=KOALA), family="no_such_family")


def test_intervals_come_from_lo_and_hi_else_from_the_standard_error():
    result = _result()  # two objectives: f1, f2 (the third dropped below)
    two = dataclasses.replace(result, objectives=("f1", "f2"))
    ax = _pairs(plot_result(two))[0]
    (bars,) = _errorbars(ax)
    front = two.front.sort_values(["f1", "f2"])
    se = front["f2_se"].to_numpy()
    ys = sorted((seg[0][1], seg[1][1]) for seg in bars.lines[2][1].get_segments())
    expected = sorted(zip(front["f2"] - 1.96 * se, front["f2"] + 1.96 * se, strict=True))
    assert np.allclose(ys, expected)
    ax = _pairs(plot_result(_with_uncertainty(two)))[0]
    (bars,) = _errorbars(ax)
    ys = sorted((seg[0][1], seg[1][1]) for seg in bars.lines[2][1].get_segments())
    # the front's three designs and design 3, listed as uncertain: mean - 2 to mean + 3
    means = sorted(_with_uncertainty(two).evaluations["f2"])
    assert np.allclose(ys, sorted((m - 2.0, m + 3.0) for m in means))
    assert _errorbars(_pairs(plot_result(two, intervals=None))[0]) == []


def test_a_results_figure_colours_the_designs_by_certified_status_and_draws_no_probability():
    # P(non-dominated) is not a calibrated frequency (the how-sure guide): front.png shows the
    # certified status instead, as the printouts and report.html do (issue #33)
    from matplotlib.colors import to_rgba

    from mopt.plot import STATUS_COLOURS

    result = _with_uncertainty(_result(names=KOALA))
    status = result.certified().set_index("design")["status"]
    fig = plot_result(result, family="koala")
    assert _colorbars(fig) == []
    for ax in _pairs(fig):
        drawn = [c for c in ax.collections if c.get_label().startswith(("certified", "undecided", "_nolegend_"))
                 and len(c.get_offsets()) and c.get_array() is None and len(c.get_facecolors()) == 1]
        colours = {tuple(to_rgba(STATUS_COLOURS[s])) for s in status}
        assert {tuple(c.get_facecolors()[0]) for c in drawn} >= colours
        assert sum(len(c.get_offsets()) for c in drawn) >= len(status)
    (legend,) = [ax.get_legend_handles_labels()[1] for ax in _pairs(fig)[:1]]
    counts = status.value_counts()
    words = {"efficient": "certified efficient", "undecided": "undecided", "dominated": "certified dominated"}
    noun = get_family("koala").noun[0]
    for name, k in counts.items():
        assert f"{words[name]} {noun} ({k})" in legend
    two = dataclasses.replace(result, objectives=KOALA[:2])
    assert _colorbars(plot_result(two)) == [] and len(_pairs(plot_result(two))) == 1


def test_plot_frontier_given_p_nondominated_itself_still_shades_by_it():
    ev = _with_uncertainty(_result(names=KOALA)).evaluations
    fig = plot_frontier(ev, ev.iloc[:3], x=KOALA[0], y=KOALA[1])
    (bar,) = [ax for ax in fig.axes if ax.get_ylabel() == "P(non-dominated)"]
    (points,) = [c for c in fig.axes[0].collections if c.get_array() is not None]
    assert points.get_array().tolist() == [0.9, 0.6, 0.95, 0.02] and points.get_clim() == (0.0, 1.0)


def test_plot_parallel_draws_a_line_per_design_and_highlights_the_front():
    result = _with_uncertainty(_result(names=KOALA))
    fig = plot_parallel(result, family="koala")
    ax = fig.axes[0]
    labels = [t.get_text().replace("\n", " ") for t in ax.get_xticklabels()]
    assert labels == [get_family("koala").label(o) for o in KOALA]
    (designs,) = [c for c in ax.collections if isinstance(c, LineCollection) and len(c.get_segments()) == 4]
    status = result.certified().set_index("design")["status"]  # coloured by status, no probability
    from matplotlib.colors import to_rgba

    from mopt.plot import STATUS_COLOURS

    assert [tuple(c[:3]) for c in designs.get_colors()] == [
        tuple(to_rgba(STATUS_COLOURS[status[d]])[:3]) for d in result.evaluations["design"]]
    front_lines = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
    assert len(front_lines) == 3  # designs 0, 1, 2
    # normalised to the range of the means and the front's intervals: the ends are 0 and 1
    ys = np.array([ln.get_ydata() for ln in front_lines])
    assert ys.min() >= 0.0 and ys.max() <= 1.0
    assert len(_errorbars(ax)) == 3 and len(_colorbars(fig)) == 0
    with pytest.raises(mopt.InputError, match="two objectives or more"):
        plot_parallel(result, objectives=["public_cost"])


def test_result_plot_and_each_kind_saved_once(tmp_path):
    result = _with_uncertainty(_result(names=KOALA, info={"family": "koala"}))
    chosen = {"min public cost": result.best(mopt.utility.minimize("public_cost"))}
    figures = {
        "matrix": result.plot(chosen=chosen, title="three objectives"),
        "pair": plot_result(result, objectives=["public_cost", "slowdown_long"], chosen=chosen),
        "parallel": plot_parallel(result, chosen=chosen),
        "one": plot_result(result, objectives=["public_cost"]),
    }
    for name, fig in figures.items():
        assert isinstance(fig, Figure)
        save_figure(fig, tmp_path / f"{name}.png")
        assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _pairs(figures["one"])[0].get_xlabel() == "design (index)"
    with pytest.raises(mopt.InputError, match="'objectives' must be distinct objectives"):
        plot_result(result, objectives=["public_cost", "cost"])


def test_the_scenario_figure_of_a_three_objective_family(tmp_path):
    from mopt.scenario import load_scenario

    scenario = load_scenario(get_family("koala").example_paths()[0])
    scenario.figure(_result(names=KOALA), tmp_path / "front.png")
    assert (tmp_path / "front.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_doctests_of_result_plots():
    import doctest

    outcome = doctest.testmod(mopt.result_plots, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert outcome.attempted >= 2 and outcome.failed == 0


def test_legends_say_evaluated_not_sampled():
    """An exhaustive search samples nothing: the legends count the evaluated designs (issue #36:
    front.png said "sampled strategies (289)")."""
    result = _with_uncertainty(_result(names=KOALA, info={"family": "koala"}))
    ev = result.evaluations
    noun = get_family("koala").noun[0]

    def legends(fig):
        return [t.get_text() for leg in [*(ax.get_legend() for ax in fig.axes), *fig.legends] if leg
                for t in leg.get_texts()]

    texts = legends(plot_frontier(ev, ev.iloc[:2], family="koala"))
    assert f"evaluated {noun} ({len(ev)})" in texts and not any("sampled" in t for t in texts), texts
    texts = legends(plot_parallel(result, family="koala"))  # by certified status: every design counted once
    counted = [int(t.rsplit("(", 1)[1].rstrip(")")) for t in texts if f" {noun} (" in t]
    assert sum(counted) == len(ev) and not any("sampled" in t for t in texts), texts


@pytest.mark.parametrize("names", [KOALA, KOALA[:2]])
def test_intervals_stop_at_the_least_value_an_objective_can_take(names):
    # slowdowns of about 2 with standard errors of 1: mean - 1.96 se reaches below 0, but a slowdown
    # is never below 1 (Objective.low): every bar stops at 1 in front.png, as in the report (the
    # cost, about 50, stays far above its least value, 0)
    means = [(2.0, 2.4, 50.0), (2.2, 2.2, 50.0), (2.4, 2.0, 60.0)]
    result = _result(means=[m[: len(names)] for m in means], names=names, info={"family": "koala"})
    evaluations = result.evaluations.assign(**{f"{o}_se": 1.0 for o in names})
    result = dataclasses.replace(result, evaluations=evaluations)
    assert get_family("koala").low("slowdown_short") == get_family("koala").low("slowdown_long") == 1.0
    ends = []
    for ax in _pairs(plot_result(result)):
        (bars,) = _errorbars(ax)
        ends += [v for collection in bars.lines[2] for seg in collection.get_segments() for v in np.ravel(seg)]
    assert len(ends) >= 2 * 2 * 2 * 3 and min(ends) == pytest.approx(1.0)
    free = plot_frontier(result.evaluations, result.front, x=names[0], y=names[1])  # no family: mean - 1.96 se
    (bars,) = _errorbars(free.axes[0])
    assert min(v for c in bars.lines[2] for seg in c.get_segments() for v in np.ravel(seg)) < 0.5


def test_a_frontier_with_baselines_is_laid_out_once_and_saved_in_one_draw(tmp_path):
    """Labelled baselines need the final layout: it is computed once and kept, so saving draws the
    figure once (it was laid out twice and drawn three times), with the labels where they were placed
    and inside the axes, at the resolution the file is written at."""
    import pandas as pd

    ev = pd.DataFrame({"design": range(6), "time": [1.0, 2.0, 3.0, 4.0, 2.5, 3.5], "time_se": 0.1,
                       "cost": [6.0, 4.0, 3.0, 1.0, 5.0, 4.5], "cost_se": 0.1})
    statics = pd.DataFrame({"name": ["A", "B"], "time": [1.5, 3.9], "cost": [5.9, 5.5]})
    fig = plot_frontier(ev, ev.iloc[:4], statics=statics, title=r"a title with $M_r^{max}$",
                        caption="a caption under the axes")
    assert fig.get_layout_engine() is None and fig.dpi == mopt.plot.SAVE_DPI
    ax = fig.axes[0]
    before = ax.get_position().bounds
    labels = [t for t in ax.texts if t.get_text() in ("A", "B")]
    placed = [t.get_window_extent().bounds for t in labels]
    draws = []
    fig.canvas.mpl_connect("draw_event", lambda event: draws.append(event))
    save_figure(fig, tmp_path / "front.png")
    assert len(draws) == 1
    assert ax.get_position().bounds == pytest.approx(before)
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    for text, bounds in zip(labels, placed, strict=True):
        box = text.get_window_extent(renderer)
        assert box.bounds == pytest.approx(bounds)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1
    # a figure without baselines keeps its layout engine: what a caller adds is laid out when saved
    assert plot_frontier(ev, ev.iloc[:4]).get_layout_engine() is not None
