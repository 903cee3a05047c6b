"""Multi-period search: Monte Carlo, Blind Pick, iOO, eOO and eOO + OCBA stage by stage.

Zhang et al. (IEEE TETC 2014) compare per-period search methods on a system run over many periods:

- ``exhaustive`` (the paper's Monte Carlo, MC): every design of the stage, ``n_accurate`` (N)
  replications each;
- ``blind_pick`` (BP): a uniform fraction ``alpha`` of the designs, N each; by default (ours) the
  fraction that spends iOO's budget, since the paper's "normally > 80 %" contradicts its results;
- ``ioo`` (also ``oo``): a rough pass of ``n_rough`` (n) replications over all designs, then the
  top ``s`` get N in all (:class:`mopt.solvers.oo.OO`);
- ``eoo``: iOO on adaptive stages (the problem's ``adaptive_grid``, Algorithms 2 and 3), stage k
  searching with a budget of width(stage k−1) / O replications (Scenario 1's first: its own width
  / O; in Scenario 2 the initial schedule runs for iOO's first stage, then the adaptive stages
  begin, ours, see :func:`_stage_grid`); its selection set is what the budget left after the rough
  pass pays for (:func:`_stage_plan`);
- ``eoo_ocba``: OCBA (``n0`` = 10, about 8 rounds, ours) over the designs eOO's rough pass would
  order, with exactly what eOO spends on the stage (the paper: OCBA replaces "its equal schedule
  simulation allocation"); its n0 replications play the rough pass, so n0 shrinks (to at least 2)
  with eOO's n on a stage whose budget cannot pay 10 per candidate, and OCBA runs on every stage
  (spec §5; it never falls back to eOO's equal allocation, :func:`_ocba_plan`).  Its pick is the
  lowest mean among the designs it allocated beyond n0.

With the problem's ``information = "stale"`` (ours, spec §6) a search sees only what is known when
it starts: the arrivals before it and the true backlog (see
:class:`~mopt.vmc.multiperiod_problem.VMMultiPeriodProblem`); the default is the paper's look-ahead.
eOO's and eOO + OCBA's stages are then decided one at a time, each stage's width when its search
starts, from the inputs before then (ours, :func:`_stale_adaptive_grid`): Algorithms 2 and 3 run up
front read the batches of a stage and of the next one, which no search has seen.

Each stage's search is a :func:`mopt.solve` call on the stage's StochasticProblem, and costs
(replications spent) × O of simulated time: not charged in Scenario 1, and the length of the
method's stages in Scenario 2 (see :mod:`mopt.core.multiperiod`).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import canonical, suggest
from mopt.core.moved import moved_names
from mopt.core.multiperiod import MultiPeriodProblem, MultiPeriodResult, Stage
from mopt.core.names import fold_keys
from mopt.core.problem import check_reps
from mopt.core.random import resolve_seed
from mopt.solvers.ocba import OCBA
from mopt.solvers.oo import OO

__all__ = ["MULTI_PERIOD_METHODS", "solve_multiperiod", "IOO", "EOO", "EooOcba"]

#: per-stage methods of a multi-period run
MULTI_PERIOD_METHODS = ("exhaustive", "blind_pick", "oo", "ioo", "eoo", "eoo_ocba")
DEFAULTS = {"n_rough": 10, "n_accurate": 1000, "s": 30, "alpha": None, "n0": 10}


class IOO(OO):
    """iOO on one period: :class:`~mopt.solvers.oo.OO` with the paper's n = 10, N = 1,000, s = 30
    (s capped at the designs the rough model orders)."""

    name = "ioo"
    defaults = {**OO.defaults, "n_rough": 10, "n_accurate": 1000, "s": 30}

    def _s(self, problem):
        s = self.options["s"]
        if s is not None and isinstance(s, int) and not isinstance(s, bool) and s >= 1:
            self.options = {**self.options, "s": min(s, self._u_max(problem))}
        return super()._s(problem)

    def min_budget(self, problem):
        super().min_budget(problem)  # validates the options
        return 1

    def check_budget(self, problem, budget):
        """A budget below s·N shrinks s, then N, as an eOO stage does (:func:`_stage_plan`)."""
        super().check_budget(problem, budget)
        n_rough, n_acc = self._reps(problem)
        s = self._s(problem) or 1
        if budget < s * n_acc:
            s2 = max(1, min(s, budget // (2 * n_acc)))
            n_acc2 = max(1, min(n_acc, budget // (2 * s2)))
            self.options = {**self.options, "s": s2, "n_accurate": n_acc2, "n_rough": min(n_rough, n_acc2)}


class EOO(IOO):
    """eOO's search of one stage (on a single-period problem: iOO; on a multi-period problem:
    iOO on adaptive stages, see the module's text)."""

    name = "eoo"


class EooOcba(OCBA):
    """eOO + OCBA's search of one stage (on a single-period problem: OCBA with n0 = 10; on a
    multi-period problem: see the module's text)."""

    name = "eoo_ocba"
    defaults = {**OCBA.defaults, "n0": 10}


def _options(options: dict) -> dict:
    options = fold_keys(options, DEFAULTS)  # ``N_Rough=3`` is ``n_rough=3``
    unknown = sorted(set(options) - set(DEFAULTS))
    if unknown:
        raise InputError(f"unknown option {unknown[0]!r} for a multi-period method; options are: "
                         f"{', '.join(sorted(DEFAULTS))}{suggest(unknown[0], DEFAULTS) or '.'}")
    o = {**DEFAULTS, **options}
    o["n_rough"] = check_reps("n_rough", o["n_rough"])
    o["n_accurate"] = check_reps("n_accurate", o["n_accurate"])
    if o["n_accurate"] < o["n_rough"]:
        raise InputError(f"'n_accurate' must be >= n_rough={o['n_rough']}; got {o['n_accurate']}.")
    o["s"] = check_int("s", o["s"], low=1)
    o["n0"] = check_reps("n0", o["n0"], low=2)
    if o["alpha"] is not None:
        o["alpha"] = check_number("alpha", o["alpha"], low=0, high=1, low_open=True)
    return o


def _ioo(prob, o) -> OO:
    return OO(n_rough=o["n_rough"], n_accurate=o["n_accurate"], s=min(o["s"], prob.n_designs))


def _fixed_search(prob, method: str, o: dict) -> tuple[str, dict, int]:
    """(solver name, its options, budget) of a non-adaptive method on the stage problem ``prob``."""
    N, u = o["n_accurate"], prob.n_designs
    if method == "exhaustive":
        return "exhaustive", {"n_reps": N}, u * N
    ioo = _ioo(prob, o)
    budget = ioo._default_budget(prob)
    if method in ("oo", "ioo"):
        return "oo", dict(ioo.options), budget
    alpha = o["alpha"] if o["alpha"] is not None else min(1.0, budget / (u * N))
    count = max(1, math.ceil(alpha * u))
    return "blind_pick", {"alpha": alpha, "n_reps": N}, count * N


def _stage_plan(prob, o, budget):
    """eOO's stage plan for ``budget`` replications: (n_rough, n_accurate, s, designs in the rough pass).

    The paper (§III.B, §III.C): the rough model orders all of U, and the selection set of iOO and
    eOO "is determined by the time left for the second scheduling period".  So the rough pass
    orders every design with n replications and the ``s = (budget − u·n) // (N − n)`` best get N in
    all (the rough replications are reused): a merged stage of 2·t selects more than iOO's s ("more
    simulation time ... improves the accuracy"), a split one fewer.  When the budget cannot pay n
    rough replications of every design and N for one, n shrinks (ours), then N, and only if one
    rough replication of every design does not fit does the rough pass take a uniform sample.
    """
    N, n, u = o["n_accurate"], o["n_rough"], prob.n_designs
    n_rough = max(1, min(n, (budget - N) // u)) if budget > N else 1
    n_acc = max(n_rough, min(N, budget - u * n_rough))
    if budget < u * n_rough + n_acc - n_rough:  # not even one replication of every design and N
        n_acc = max(1, min(N, budget // 2))
        n_rough = 1
        rough = max(1, min(u, budget - n_acc + 1))
        return n_rough, n_acc, 1, rough
    s = max(1, min(u, (budget - u * n_rough) // (n_acc - n_rough))) if n_acc > n_rough else u
    return n_rough, n_acc, s, u


def _best(result, n0: int | None = None) -> int:
    """Design index that a stage's search picks: the lowest mean of the first objective among the
    designs with the most replications (OO's selected set; every design for MC and BP), or for
    OCBA among the designs it allocated beyond ``n0`` (spec §5: a design left at n0 has a rough
    mean only, as eOO's unselected designs do), or all if it allocated to none."""
    ev = result.evaluations
    obj = result.objectives[0]
    if result.method != "ocba":
        ev = ev[ev["n_reps"] == ev["n_reps"].max()]
    elif n0 is not None and (ev["n_reps"] > n0).any():
        ev = ev[ev["n_reps"] > n0]
    return int(ev["design"].to_numpy()[np.argmin(ev[obj].to_numpy())])


def _search(mp, method, o, start, end, state, budget, seed, solve_kw, seen=None):
    """Choose the design of stage [start, end): (design vector, replications spent).  ``seen``: with
    stale information, the time up to which arrivals are known (the search's own start)."""
    from mopt.solvers import solve

    grid = mp.base_grid()
    key = int(np.searchsorted(grid, start, side="right") - 1)
    prob = mp.stage_problem(start, end, state, key) if seen is None else mp.stage_problem(start, end, state, key,
                                                                                          seen=seen)
    rng = np.random.default_rng([seed, key, int(round(start * 1000)) % 2**32])
    stage_seed = int(rng.integers(0, 2**63 - 1))
    if method not in ("eoo", "eoo_ocba"):
        name, opts, b = _fixed_search(prob, method, o)
        res = solve(prob, name, budget=b, seed=stage_seed, uncertainty=False, **opts, **solve_kw)
        return prob.design(_best(res)), res.n_evals
    n_rough, n_acc, s, rough = _stage_plan(prob, o, budget)
    sample = None if rough == prob.n_designs else rough
    spend = rough * n_rough + s * (n_acc - n_rough)  # eOO's spending on this stage
    if method == "eoo" or prob.n_designs == 1:  # (one schedule: nothing to allocate)
        oo = {"n_rough": n_rough, "n_accurate": n_acc, "s": s, "sample": sample}
        res = solve(prob, "oo", seed=stage_seed, uncertainty=False, **oo, **solve_kw)
        return prob.design(_best(res)), res.n_evals
    n0, k = _ocba_plan(o["n0"], n_rough, rough, spend)
    delta = max(10, (spend - k * n0) // 8)  # about 8 allocation rounds (ours; each costs a call per group)
    if hasattr(prob, "tabulate") and getattr(prob, "noise", "common") == "common" and prob.n_designs * n_acc <= 10**7:
        # OCBA asks in many small groups: under common random numbers the whole table costs about
        # as much as one group (the space walk shares the classes' maxima); with independent draws
        # every replication costs its own, so only what OCBA asks for is simulated
        prob.tabulate(n_acc)
    sample = None if k == prob.n_designs else k
    res = solve(prob, "ocba", budget=spend, seed=stage_seed, n0=n0, delta=delta, sample=sample, uncertainty=False,
                **solve_kw)
    return prob.design(_best(res, n0)), res.n_evals


def _ocba_plan(n0_option: int, n_rough: int, rough: int, spend: int) -> tuple[int, int]:
    """(n0, candidates) of eOO + OCBA on a stage where eOO spends ``spend``: spec §5.

    OCBA runs on every stage with exactly eOO's spending; its n0 replications play eOO's rough pass
    over the same ``rough`` candidates, so n0 = min(n0 option, eOO's n), never below 2 (OCBA needs
    a variance).  When even 2 of every candidate would leave nothing to allocate (eOO's rough pass
    gave 1), the candidates shrink to a uniform sample of ``spend // (2·n0)`` so that about half of
    the budget is allocated by OCBA.  It never falls back to eOO's equal allocation: a half-budget
    stage is exactly where OCBA can gain.

    Examples
    --------
    >>> _ocba_plan(10, 10, 5005, 80050)  # a full stage: the option's n0 over every candidate
    (10, 5005)
    >>> _ocba_plan(10, 5, 27132, 150585)  # a half-budget stage: n0 shrinks to eOO's n = 5
    (5, 27132)
    >>> _ocba_plan(10, 1, 27132, 30000)  # eOO's rough pass gave 1: n0 = 2 over a sample
    (2, 7500)
    """
    n0 = max(2, min(n0_option, n_rough))
    k = rough
    if k * n0 >= spend or (n_rough < 2 and k * n0 > spend // 2):
        k = max(2, min(rough, spend // (2 * n0)))
    if k * n0 >= spend:
        raise InputError(f"a stage budget of {spend} replications cannot run OCBA (n0 = 2 over 2 schedules "
                         "and one more); give the stage more time (a larger base period or O smaller).")
    return n0, k


def _row(k, start, end, mp, design, stage: Stage, overhead, n_evals):
    row = {"stage": k, "start": float(start), "end": float(end), **mp.describe(design),
           "finished": stage.finished, "busy_time": stage.busy_time,
           "throughput": stage.finished / stage.busy_time if stage.busy_time > 0 else np.nan,
           "overhead": float(overhead), "n_evals": int(n_evals)}
    row.update(stage.extra)
    return row


def _budget(width: float, cost: float) -> int:
    """Replications that ``width`` simulated seconds pay for at ``cost`` each (a width of exactly
    k·cost pays k, whatever the rounding of the division)."""
    return int(math.floor(width / cost + 1e-9)) if cost > 0 else 0


def _stale_adaptive_grid(mp, bounds) -> np.ndarray:
    """eOO's stage boundaries under stale information (ours): after the fixed ``bounds``, each
    stage's end decided when its search starts, by ``mp.adaptive_end`` from the inputs before then —
    in Scenario 1 at the stage's own start, in Scenario 2 at the start of the stage during which its
    search runs (the one before it) — until the horizon is reached."""
    grid = [float(b) for b in bounds]
    lag = 1 if mp.scenario == 1 else 2
    while grid[-1] < mp.horizon:
        grid.append(float(mp.adaptive_end(grid[-1], seen=grid[-lag])))
    return np.array(grid)


def _stage_grid(mp, method, o, seed, solve_kw) -> np.ndarray:
    """Scenario 2's stage boundaries for ``method``: each non-adaptive stage lasts its search overhead.

    eOO and eOO + OCBA (ours; the specification says only that the shared initial schedule runs
    first): the initial schedule runs while eOO's first search runs, and that search is iOO's, so
    the initial stage lasts iOO's first stage for every OO method; the adaptive stages (Algorithms 2
    and 3 on base periods of t) start after it, the first searched with iOO's budget (its width / O).
    """
    adaptive = method in ("eoo", "eoo_ocba")
    grid = mp.base_grid()
    prob = mp.stage_problem(grid[0], grid[1], mp.initial_state(), 0)
    _, _, budget = _fixed_search(prob, "ioo" if adaptive else method, o)
    T = budget * mp.overhead_per_rep
    if not T > 0:
        raise InputError("'overhead_per_rep' must be > 0 in Scenario 2 (stage length = search overhead).")
    if adaptive and getattr(mp, "information", "lookahead") == "stale":
        return _stale_adaptive_grid(mp, [mp.start, mp.start + T])
    if adaptive:
        return np.concatenate([[mp.start], mp.adaptive_grid(mp.start + T)])
    n = max(1, math.ceil((mp.horizon - mp.start) / T))
    return mp.start + T * np.arange(n + 1)


def solve_multiperiod(mp: MultiPeriodProblem, method: str, *, seed=None, executor=None, progress=False,
                      **options) -> MultiPeriodResult:
    """Run ``method`` stage by stage on the multi-period problem ``mp`` (see the module's text).

    Called by :func:`mopt.solve` when its problem is a :class:`~mopt.core.multiperiod.MultiPeriodProblem`.
    Options: ``n_rough`` (10), ``n_accurate`` (N, 1,000), ``s`` (30), ``alpha`` (BP's fraction; None:
    iOO's budget), ``n0`` (OCBA's first replications, 10).
    """
    method = canonical(method, MULTI_PERIOD_METHODS, "'method' for a multi-period problem")
    o = _options(options)
    entropy = resolve_seed(seed)
    kw = {"executor": executor, "progress": progress}
    stale = getattr(mp, "information", "lookahead") == "stale"
    cost = mp.overhead_per_rep
    rows = []
    state = mp.initial_state()
    if mp.scenario == 1:
        if method not in ("eoo", "eoo_ocba"):
            grid = mp.base_grid()
        else:
            grid = _stale_adaptive_grid(mp, [mp.start]) if stale else mp.adaptive_grid()
        prev = None
        for k, (a, b) in enumerate(zip(grid[:-1], grid[1:], strict=True)):
            width = (b - a) if prev is None else prev
            design, spent = _search(mp, method, o, a, b, state, _budget(width, cost), entropy, kw,
                                    seen=a if stale else None)
            state, st = mp.run(state, design, a, b)
            rows.append(_row(k, a, b, mp, design, st, spent * cost, spent))
            prev = b - a
    elif mp.scenario == 2:
        grid = _stage_grid(mp, method, o, entropy, kw)
        design = mp.initial_design()
        spent_now = 0
        for k, (a, b) in enumerate(zip(grid[:-1], grid[1:], strict=True)):
            nxt = None
            if k + 2 < len(grid):  # search the next stage while this one runs
                if stale:  # known at a: the arrivals before a and the true backlog
                    nxt, spent = _search(mp, method, o, b, grid[k + 2], state, _budget(b - a, cost), entropy, kw,
                                         seen=a)
                else:  # the paper's look-ahead: the next stage's arrivals, the backlog projected
                    projected = mp.project(state, design, a, b)
                    nxt, spent = _search(mp, method, o, b, grid[k + 2], projected, _budget(b - a, cost), entropy,
                                         kw)
            state, st = mp.run(state, design, a, b)
            rows.append(_row(k, a, b, mp, design, st, spent_now * cost, spent_now))
            if nxt is not None:
                design, spent_now = nxt, spent
    else:
        raise InputError(f"'scenario' must be 1 or 2; got {mp.scenario!r}.")
    end = float(grid[-1])
    st = mp.drain(state, design, end)
    rows.append(_row("drain", end, end + st.busy_time, mp, design, st, 0.0, 0))
    return MultiPeriodResult(method=method, seed=entropy, scenario=mp.scenario, stages=pd.DataFrame(rows))


__getattr__ = moved_names(__name__, {"EOOOCBA": "mopt.solvers.evolutionary_oo.EooOcba"})
