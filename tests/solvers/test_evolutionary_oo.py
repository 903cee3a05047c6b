"""eOO + OCBA on a stage (mopt/solvers/evolutionary_oo.py): OCBA runs on every stage (spec §5)."""

from __future__ import annotations

import numpy as np
import pytest

from mopt.core.errors import InputError
from mopt.solvers.evolutionary_oo import _fixed_search, _ocba_plan, _options, _search, _stage_plan
from mopt.vmc.multiperiod_problem import VMMultiPeriodProblem
from mopt.vmc.profile import default_table
from mopt.vmc.workload import generate


@pytest.mark.parametrize("n_rough, rough, spend", [(10, 500, 20_000), (5, 5005, 40_000), (3, 27132, 90_000),
                                                   (1, 27132, 30_000), (1, 1000, 1_500), (2, 50, 100)])
def test_ocba_plan_shrinks_n0_never_below_two_and_leaves_budget_to_allocate(n_rough, rough, spend):
    n0, k = _ocba_plan(10, n_rough, rough, spend)
    assert 2 <= n0 <= 10 and n0 == max(2, min(10, n_rough))
    assert 2 <= k <= rough and k * n0 < spend
    if n_rough >= 2 and rough * n0 < spend:
        assert k == rough  # eOO's rough pass had every candidate: so does OCBA


def test_ocba_plan_refuses_a_stage_it_cannot_run():
    with pytest.raises(InputError, match="cannot run OCBA"):
        _ocba_plan(10, 1, 10, 4)


def _stage(seed):
    # 16 VMs over 7 classes (5,005 schedules), σ/μ = 0.5, each schedule its own draws (the paper's)
    w = generate("HFHD", 16, 1200.0, 200.0, seed=seed)
    table = default_table(7)
    table["sd"] = 0.5 * table["mean"]
    mp = VMMultiPeriodProblem(w, 16, scenario=2, horizon=1200.0, base_period=200.0, split_threshold=0.9,
                              merge_threshold=0.6, table=table, seed=seed)
    backlog = np.full(7, 8.0)
    prob = mp.stage_problem(200.0, 300.0, backlog, 1)
    return mp, prob, backlog


def test_eoo_ocba_differs_from_eoo_on_a_half_budget_stage():
    # half of iOO's budget (5,005·10 + 30·(1,000 − 10)) / 2 = 39,875: eOO's n shrinks to 7 (its
    # rough pass), so OCBA's n0 does too, and OCBA spends the rest (it used to fall back to eOO's
    # equal allocation here, 10 per candidate being unaffordable); picks scored on 1,000 fresh
    # replications (another seed) of every schedule.  Measured: eOO's picks 2.7, 7.9, 3.5 % above
    # the best schedule, OCBA's 0.0, 0.0, 0.0 %
    o = _options({})
    gaps = {"eoo": [], "eoo_ocba": []}
    differ = 0
    for seed in range(3):
        mp, prob, backlog = _stage(seed)
        half = _fixed_search(prob, "ioo", o)[2] // 2
        assert half == 39_875
        n_rough, n_acc, s, rough = _stage_plan(prob, o, half)
        assert (n_rough, rough) == (7, 5005) and _ocba_plan(10, n_rough, rough, half) == (7, 5005)
        truth = prob.replicate(np.arange(prob.n_designs), np.arange(1000), seed=10_000 + seed)[:, :, 0].mean(axis=1)
        picks = {}
        for method in gaps:
            design, spent = _search(mp, method, o, 200.0, 300.0, backlog, half, seed,
                                    {"executor": None, "progress": False})
            assert spent == rough * n_rough + s * (n_acc - n_rough)  # exactly eOO's spending
            picks[method] = tuple(design.tolist())
            gaps[method].append(truth[prob.index(design)] / truth.min() - 1)
        differ += picks["eoo"] != picks["eoo_ocba"]
    assert differ >= 2
    assert np.mean(gaps["eoo_ocba"]) < np.mean(gaps["eoo"])
