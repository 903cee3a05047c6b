"""The paper's qualitative claims on whole traces (slow: full-trace simulations, about 10 s), and
Table III as ``experiments/koala_tables.py`` recorded it (``figures/koala_sweep.csv``)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from mopt.koala import FF, SJF, TagsSets, multicloud, simulate
from tests.helpers import paper_trace

#: the sweep behind Table III, written by experiments/koala_tables.py
SWEEP = Path(__file__).resolve().parents[2] / "figures" / "koala_sweep.csv"
#: the paper's Table III: TAGS-chain's best limit (min)
PAPER_LIMITS = {"KTH-SP2": 25, "CTC-SP2": 125, "SDSC-BLUE": 55, "LCG": 20}


@pytest.mark.slow
@pytest.mark.parametrize("name", ["KTH-SP2", "CTC-SP2", "SDSC-BLUE"])
def test_tags_sets_beats_ff_and_sjf_at_a_higher_public_cost(name):
    """Fig. 6: on the five sites, TAGS-sets (40 min; set 2 = C3, private, public) has a lower mean
    slowdown than FF and SJF, and costs more in the public cloud (the paper: 1.3-4.2x). LCG, the
    fourth trace, holds too (figures/koala_fig6.md) but SJF takes a minute there."""
    jobs = paper_trace(name)
    env = multicloud()
    tags = simulate(jobs, TagsSets([env.names, ["C3", "private", "public"]], [2400, math.inf]), env).summary
    for policy in (FF(), SJF()):
        other = simulate(jobs, policy, env).summary
        assert tags["slowdown"] < other["slowdown"], policy.name
        assert tags["public_cost"] > other["public_cost"], policy.name


@pytest.mark.slow
@pytest.mark.parametrize("n_chains", [4, 8])
def test_tags_chain_best_limit_on_kth_lies_in_15_to_40_minutes(n_chains):
    """Fig. 3 / Table III: on KTH-SP2 with RR dispatch and strict FCFS sites the best TAGS-chain limit
    lies within 15-40 min (paper: 25). Checked on a coarse grid around it: 25 min beats 10 and 60 min,
    and the best of {10, 15, 25, 40, 60} is inside [15, 40] (full sweep: figures/koala_tables.md,
    25-30 min for N = 3..10; 65 min at N = 1 and 2, loads 0.82 and 0.41)."""
    from mopt.koala import TagsChain, multicluster

    jobs = paper_trace("KTH-SP2")
    slowdown = {m: simulate(jobs, TagsChain([60.0 * m, math.inf], n_chains=n_chains), multicluster(n_chains))
                .summary["slowdown"] for m in (10, 15, 25, 40, 60)}
    best = min(slowdown, key=slowdown.get)
    assert 15 <= best <= 40 and slowdown[25] < min(slowdown[10], slowdown[60])


def _tags_sets_sweep(name, limits_min):
    env = multicloud()
    jobs = paper_trace(name)
    out = {}
    for m in limits_min:
        s = simulate(jobs, TagsSets([env.names, ["C3", "private", "public"]], [60.0 * m, math.inf]), env).summary
        out[m] = (s["slowdown"], s["public_cost"])
    return out


@pytest.mark.slow
def test_fig4_tags_sets_limit_on_kth_moves_cost_not_slowdown():
    """Fig. 4's claim (the limit barely moves slowdown while cost varies a lot) holds on KTH-SP2
    (load 0.18 of the five sites): over limits 5, 40, 120 and 240 min the mean slowdown stays
    within 1.56-1.72 (max/min < 1.15) while the public cost falls from $5,478 to $3,230 (max/min >
    1.5; figures/koala_fig4.md, whole grid: 1.12 and 1.70)."""
    runs = _tags_sets_sweep("KTH-SP2", (5, 40, 120, 240))
    slowdown, cost = (np.array(v) for v in zip(*runs.values(), strict=True))
    assert slowdown.max() / slowdown.min() < 1.15 and cost.max() / cost.min() > 1.5


@pytest.mark.slow
def test_fig4_not_reproduced_on_ctc():
    """On CTC-SP2 (load 0.49), one of the paper's Fig. 4 traces, it is the other way round in our
    model: slowdown more than doubles from 20 to 240 min (1.71 -> 3.7; long limits let long jobs
    hold the clusters) while the cost moves by less than 10 % (figures/koala_fig4.md)."""
    runs = _tags_sets_sweep("CTC-SP2", (20, 240))
    assert runs[240][0] > 2 * runs[20][0]
    assert abs(runs[240][1] / runs[20][1] - 1) < 0.10


def _recorded(blocking: bool = True):
    import pandas as pd

    sw = pd.read_csv(SWEEP)
    return sw[(sw["dispatch"] == "RR") & (sw["blocking"].astype(bool) == blocking)]


def _argmins(rows) -> dict:
    return {(name, int(n)): int(g.loc[g["slowdown"].idxmin(), "limit_min"])
            for (name, n), g in rows.groupby(["trace", "chains"])}


def test_table_iii_as_recorded():
    """Spec koala.md §5: at N = 4 chains, RR dispatch, strict FCFS at each site, limits 5..240 min by
    5, the lowest mean slowdown falls at the paper's 25, 125, 55 and 20 min; N = 4 is the only chain
    count of 1..10 that gives all four; with non-blocking sites SDSC-BLUE's best is 35 min."""
    rows = _recorded()
    assert sorted(rows["limit_min"].unique()) == list(range(5, 241, 5))
    best = _argmins(rows)
    assert {name: best[name, 4] for name in PAPER_LIMITS} == PAPER_LIMITS
    matching = [n for n in range(1, 11) if all(best.get((name, n)) == v for name, v in PAPER_LIMITS.items())]
    assert matching == [4]
    assert _argmins(_recorded(blocking=False))["SDSC-BLUE", 4] == 35


@pytest.mark.slow
@pytest.mark.parametrize("name", ["KTH-SP2", "LCG"])
def test_table_iii_on_the_whole_trace(name):
    """KTH-SP2's and LCG's Table III limits (25 and 20 min) from the whole traces at N = 4 chains
    (about 2 s and 15 s), and the recorded sweep is what the code computes now."""
    from mopt.koala import TagsChain, multicluster

    jobs = paper_trace(name)
    recorded = _recorded().query("trace == @name and chains == 4").set_index("limit_min")["slowdown"]
    slowdown = {m: simulate(jobs, TagsChain([60.0 * m, math.inf], n_chains=4), multicluster(4)).summary["slowdown"]
                for m in range(5, 241, 5)}
    assert min(slowdown, key=slowdown.get) == PAPER_LIMITS[name]
    np.testing.assert_allclose([slowdown[m] for m in recorded.index], recorded.to_numpy(), rtol=1e-12)
