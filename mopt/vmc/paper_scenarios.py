"""Scenarios 1 and 2 of Zhang et al. (2014), ready to run: one cell = cluster size × workload × scenario.

Ours (the paper gives neither): Scenario 1 runs ``periods`` base periods (default 6); Scenario 2
runs ``periods`` Monte Carlo periods (default 3, the specification's minimum), then drains.  The
base period is iOO's overhead on the searched space (:func:`~mopt.vmc.multiperiod_problem.ioo_overhead`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import canonical
from mopt.core.random import SeedLike, resolve_seed
from mopt.vmc.multiperiod_problem import (
    OVERHEAD_PER_REP,
    SAMPLE_SIZE,
    VMMultiPeriodProblem,
    ioo_overhead,
)
from mopt.vmc.profile import default_table
from mopt.vmc.space import check_space, count_partitions
from mopt.vmc.workload import KINDS, generate

__all__ = ["scenario_problem", "compare_methods", "SCENARIO_METHODS"]

#: task classes of the generated workloads (the paper's seven)
N_CLASSES = 7

#: the methods each scenario compares in the paper (Tables 2 and 3; eoo_ocba is Table 4's)
SCENARIO_METHODS = {1: ("exhaustive", "blind_pick", "ioo"), 2: ("exhaustive", "blind_pick", "ioo", "eoo")}


def scenario_problem(theta: int, kind: str, scenario: int, seed: SeedLike = 0, *, periods: float | None = None,
                     sample_size: int = SAMPLE_SIZE, n_accurate: int = 1000, n_classes: int = N_CLASSES,
                     overhead_per_rep: float = OVERHEAD_PER_REP,
                     keep_base_period: bool = False, split_threshold: float | None = None,
                     merge_threshold: float | None = None, noise: str = "independent",
                     information: str = "lookahead", cv: float = 0.25) -> VMMultiPeriodProblem:
    """The multi-period problem of one cell, its workload drawn from ``seed``.

    ``keep_base_period`` (a reduction for small machines, ours): with a ``sample_size`` K below
    the specification's 27,132, scale O by (min(u, 27,132)·n + s·N) / (min(u, K)·n + s·N) so that
    the base period t, hence the batch sizes and the stage lengths in seconds, stay those of the
    specification's K; what changes is the sample searched and Monte Carlo's period in base
    periods, K·N / (K·n + s·N).  ``split_threshold`` / ``merge_threshold``: Algorithms 2 and 3's
    thresholds (None: the pooled quantiles; 0 never splits, 1 never merges).  ``noise``: the
    searches' noise model, each schedule its own draws (the paper's) or ``"common"`` (ours).
    ``information``: the paper's ``"lookahead"`` or ``"stale"`` (ours; see VMMultiPeriodProblem).
    ``cv``: σ/μ of the default profiling table's rows of ours (:func:`mopt.vmc.profile.default_table`).

    Examples
    --------
    >>> mp = scenario_problem(16, "LFLD", 1, seed=1, sample_size=100)
    >>> round(mp.base_period, 2), len(mp.base_grid()) - 1
    (93.0, 6)
    """
    theta, n_classes = check_space(theta, n_classes)
    table = default_table(n_classes, cv)
    kind = canonical(kind, KINDS, "'workload'")  # "lfld" is LFLD
    if scenario not in (1, 2):
        raise InputError(f"'scenario' must be 1 or 2; got {scenario!r}.")
    sample_size = check_int("sample_size", sample_size, low=1)
    n_accurate = check_int("n_accurate", n_accurate, low=1)
    cost = check_number("overhead_per_rep", overhead_per_rep, low=0, low_open=True)
    periods = (6.0 if scenario == 1 else 3.0) if periods is None else check_number("periods", periods, low=0,
                                                                                    low_open=True)
    u = min(count_partitions(theta, n_classes), sample_size)
    if keep_base_period:
        u_spec = min(count_partitions(theta, n_classes), SAMPLE_SIZE)
        cost *= ioo_overhead(u_spec, n_accurate=n_accurate) / ioo_overhead(u, n_accurate=n_accurate)
    t = ioo_overhead(u, n_accurate=n_accurate, overhead_per_rep=cost)
    horizon = periods * (t if scenario == 1 else u * n_accurate * cost)
    entropy = resolve_seed(seed)
    w = generate(kind, theta, horizon, t, np.random.default_rng([entropy, 0x3011]), n_classes=n_classes)
    if len(w.times) == 0:
        raise InputError(f"the {kind} workload over {horizon:g} s is empty; use more 'periods'.")
    return VMMultiPeriodProblem(w, theta, scenario=scenario, horizon=horizon, base_period=t,
                                overhead_per_rep=cost, sample_size=sample_size, seed=entropy,
                                split_threshold=split_threshold, merge_threshold=merge_threshold, noise=noise,
                                information=information, table=table)


def compare_methods(theta: int, kind: str, scenario: int, methods, seeds, *, progress=None, executor=None,
                    **kwargs) -> pd.DataFrame:
    """Run ``methods`` on one cell for every seed: one row per (seed, method) with ``throughput``,
    ``makespan`` (Σ busy time), ``overhead`` (Σ search time, simulated s), ``n_evals``, ``stages``.

    The workload, the truth and Scenario 2's initial schedule depend on the seed only, so every
    method of a seed faces the same system.  A method is a name or ``(label, name, options)``, e.g.
    ``("blind_pick_0.8", "blind_pick", {"alpha": 0.8})``.  ``executor`` goes to every stage's search
    (:func:`mopt.solve`; the results do not depend on it).

    Examples
    --------
    >>> df = compare_methods(16, "HFLD", 1, ["ioo", "blind_pick"], [1], sample_size=60, periods=2)
    >>> df[["method", "seed"]].values.tolist()
    [['ioo', 1], ['blind_pick', 1]]
    """
    import mopt

    rows = []
    for seed in seeds:
        mp = scenario_problem(theta, kind, scenario, seed, **kwargs)
        for m in methods:
            label, name, opts = (m, m, {}) if isinstance(m, str) else m
            r = mopt.solve(mp, name, seed=seed, executor=executor, **opts)
            rows.append({"theta": theta, "workload": kind, "scenario": scenario, "seed": seed, "method": label,
                         "throughput": r.throughput, "makespan": r.makespan, "overhead": r.overhead,
                         "n_evals": r.n_evals, "stages": len(r.stages) - 1})
            if progress is not None:
                progress(rows[-1])
    return pd.DataFrame(rows)
