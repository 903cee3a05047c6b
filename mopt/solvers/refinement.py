"""Make me surer: :func:`refine` spends more replications where they can change a Result's front.

The designs that can matter are the front and every design not dominated beyond doubt
(:func:`mopt.core.uncertainty.screen`); the others keep their rows. Their
replications so far are taken from the journal when one is given (else simulated again: every
replication is addressed by (seed, design, replication), so the values are the same), then the
budget is spent in rounds allocated by MOCBA (:func:`mopt.solvers.mocba.mocba_allocation`), each
design continuing from its next replication index. The refined Result reports P(correct selection)
before and after in ``info["refine"]``.
"""

from __future__ import annotations

import numpy as np

from mopt.core.certified import certified_sets
from mopt.core.classes import class_ids, renumber
from mopt.core.errors import InputError, check_int
from mopt.core.execute import Runner
from mopt.core.pareto import pareto_mask
from mopt.core.problem import check_replications
from mopt.core.result import Result, summarise
from mopt.core.uncertainty import annotate, screen
from mopt.solvers.base import (
    SearchState,
    _open_journal,
    _plan,
    _round,
    progress_bar,
    requests,
)
from mopt.solvers.finish import close_search
from mopt.solvers.mocba import mocba_allocation

__all__ = ["refine"]

#: mean correlation of the designs' replications above which "auto" allocates equally
CRN_CORRELATION = 0.2


def refine(result: Result, problem, budget: int, *, rounds: int = 5, allocation: str = "auto",
           target: str = "front", level: float = 0.95, executor=None, journal=None,
           progress: bool = False) -> Result:
    """``result`` with ``budget`` more replications on the designs whose membership of the front is
    not sure, allocated by MOCBA in ``rounds`` rounds; the same seed (``result.seed``).

    Parameters
    ----------
    result : Result
        From :func:`mopt.solve` on ``problem`` (with the uncertainty columns).
    problem : StochasticProblem
        The problem ``result`` was computed on.
    budget : int
        Replications to add.
    rounds : int, default 5
        MOCBA allocations (each of about ``budget / rounds`` replications).
    allocation : {"auto", "mocba", "equal"}
        ``"mocba"``: MOCBA's fractions, which assume independent designs; ``"equal"``: the same
        replications for every refined design, which keeps common random numbers paired (ours:
        on the ExPERT paper grid, whose designs share each replication's randomness, MOCBA's
        unequal counts break the pairing and leave the front less sure than before; equal counts
        double P(correct selection) for the budget of 35 more replications of every design).
        ``"auto"``: equal where the designs' replications are correlated (a mean correlation above
        :data:`CRN_CORRELATION`), else MOCBA.
    target : {"front", "undecided"} or a utility with a chance constraint, default "front"
        Which designs get the replications: ``"front"``, the front and every design not dominated
        beyond doubt (:func:`mopt.core.uncertainty.screen`); ``"undecided"``, the classes that
        :meth:`Result.certified` at ``level`` leaves undecided (neither certified efficient nor
        dominated), so that more of them get decided; a utility (or its spec) with
        ``probability=`` (:mod:`mopt.core.risk`), the designs whose chance constraint is
        undecided at ``level`` (its one-sided Clopper–Pearson bounds straddle the probability),
        in equal shares (``info["refine"]`` adds ``constraint_undecided_before`` and ``_after``;
        without a journal the designs' replications are simulated twice, once to find them).
    level : float, default 0.95
        The certification level of ``target="undecided"``.
    executor, journal, progress
        As in :func:`mopt.solve`; with the journal of the original run, its replications are
        reused instead of simulated again.

    Returns
    -------
    Result
        ``n_evals`` grows by what was spent: ``budget``, or a little less where designs whose
        replications are identical so far (equivalent strategies) get the same replications, so
        that they stay identical; ``info["refine"]`` holds ``budget``, ``spent``, ``designs`` (how
        many were refined), ``classes`` (of equivalent designs), ``p_correct_selection_before`` and
        ``_after`` and ``resimulated`` (earlier replications simulated again, without a journal).

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.NormalProblem([[1, 5], [2, 2], [2.1, 2.1], [5, 1], [6, 6]], sd=0.5, n_reps=10)
    >>> first = mopt.solve(prob, "exhaustive", seed=1)
    >>> surer = mopt.refine(first, prob, 400)
    >>> surer.n_evals - first.n_evals, surer.info["refine"]["designs"]
    (400, 4)
    """
    budget = check_int("budget", budget, low=1)
    if allocation not in ("auto", "mocba", "equal"):
        raise InputError(f"'allocation' must be 'auto', 'mocba' or 'equal'; got {allocation!r}.")
    rounds = check_int("rounds", rounds, low=1)
    ev = result.evaluations
    if "p_nondominated" not in ev.columns:
        raise InputError("'result' has no uncertainty columns (a result of an earlier release): solve again.")
    if tuple(problem.objectives) != tuple(result.objectives):
        raise InputError(f"'problem' has objectives {tuple(problem.objectives)}; the result's are "
                         f"{tuple(result.objectives)}.")
    chance = _chance_target(target)
    if chance is None and target not in ("front", "undecided"):
        raise InputError(f"'target' must be 'front', 'undecided' or a utility with a chance constraint "
                         f"(e.g. 'within_budget(cost, 1.0, then=makespan, probability=0.9)'); got {target!r}.")
    objectives = list(result.objectives)
    means = ev[objectives].to_numpy(dtype=float)
    if chance is not None:  # the designs whose chance constraints are neither sure to hold nor to fail
        from mopt.core.risk import constraint_undecided, replications

        before_samples = replications(result, problem=problem, journal=journal)
        maybe = np.array([constraint_undecided(chance, before_samples[int(d)], objectives, level)
                          for d in ev["design"].tolist()])
        if not maybe.any():
            raise InputError(f"no design's chance constraint is undecided at level {level:g}: nothing to refine.")
        if allocation == "mocba":
            raise InputError("'allocation' 'mocba' allocates for the front; a chance-constraint target is refined "
                             "in equal shares: give allocation='auto' or 'equal'.")
        allocation = "equal"
    elif target == "undecided":
        sets = result.certified(level)
        undecided = sets.loc[sets["status"] == "undecided", "class"]
        key = ev["class"] if "class" in ev.columns else ev["design"]
        maybe = key.isin(undecided).to_numpy() if "class" in ev.columns else key.isin(
            sets.loc[sets["status"] == "undecided", "design"]).to_numpy()
        if not maybe.any():
            raise InputError(f"no class is undecided at level {level:g}: nothing to refine.")
    else:
        maybe = screen(means, ev[[f"{o}_se" for o in objectives]].to_numpy(dtype=float)) | pareto_mask(means)
    designs = np.sort(ev.loc[maybe, "design"].to_numpy(dtype=np.int64))
    have = ev.set_index("design").loc[designs, "n_reps"].to_numpy(dtype=np.int64)
    check_replications("budget", budget, problem, held=int(ev["n_reps"].sum()))
    jr, entropy, own = _open_journal(journal, problem, result.seed)
    runner = Runner(problem, entropy, executor)
    state = SearchState(problem, int(have.sum()) + budget, np.random.default_rng([entropy, 0x5EED]))
    bar = progress_bar(progress, int(have.sum()) + budget, "refine")
    try:
        # the replications the result has (journal, or simulated again: the same values)
        reused = _round(state, _plan(state, requests(designs, have)), runner, jr, None, None)
        state.spent = int(have.sum())
        if bar is not None:
            bar.update(state.spent)
        lead, members = _equivalent(designs, state)
        if allocation == "auto":
            allocation = "equal" if _correlation(state, lead) > CRN_CORRELATION else "mocba"
        size = np.bincount(members, minlength=len(lead))
        for k in range(rounds):
            room = int(have.sum()) + (budget * (k + 1)) // rounds - state.spent
            units = room // max(1, round(float(size.mean())))
            if units <= 0:
                continue
            if allocation == "equal":  # every class the same: paired replications stay paired
                per = np.full(len(lead), room // len(designs), dtype=np.int64)
            else:
                per = mocba_allocation(state.mean[lead], state.var[lead], state.count[lead], units)
            add = per[members]  # each design as its class's lead
            while add.sum() > room:  # equivalent designs cost more than one replication each
                c = int(np.argmax(np.where(per > 0, per, -1)))
                per[c] -= 1
                add = per[members]
            if add.sum() == 0:
                continue
            _round(state, _plan(state, requests(designs, add)), runner, jr, bar, None)
            state.spent += int(add.sum())
    finally:
        close_search(runner, bar, jr if own else None)
    spent = state.spent - int(have.sum())
    refined = summarise(problem.designs_frame(designs), [state.samples[int(i)] for i in designs],
                        problem.objectives)
    base_cols = [c for c in refined.columns]
    rows = ev[base_cols].set_index("design")
    rows.loc[designs] = refined.set_index("design")[rows.columns].to_numpy()
    merged = rows.reset_index()
    for c in base_cols:  # dtypes as before (n_reps an integer)
        merged[c] = merged[c].astype(ev[c].dtype)
    samples = [state.samples.get(int(d)) for d in merged["design"]]
    merged.insert(int(merged.columns.get_loc("n_reps")) + 1, "class", _classes(merged, ev, samples))
    merged, uncertainty = annotate(merged, problem.objectives, samples=samples,
                                   rng=np.random.default_rng([entropy, 0x0CE7, result.n_evals]))
    before = result.info.get("uncertainty", {}).get("p_correct_selection")
    info = {**result.info, "uncertainty": uncertainty,
            "refine": {"budget": int(budget), "spent": int(spent), "designs": len(designs), "target": target,
                       "classes": int(len(lead)), "rounds": int(rounds), "allocation": allocation,
                       "p_correct_selection_before": before,
                       "p_correct_selection_after": uncertainty["p_correct_selection"],
                       "resimulated": int(have.sum()) - int(reused)}}
    if chance is not None:
        info["refine"]["target"] = str(target if isinstance(target, str) else target.name)
        info["refine"]["constraint_undecided_before"] = int(maybe.sum())
        info["refine"]["constraint_undecided_after"] = int(sum(
            constraint_undecided(chance, state.samples[int(d)], objectives, level) for d in designs))
    if all(f"{o}_se" in ev.columns for o in objectives) and "n_reps" in ev.columns:  # the certified sets
        certified = certified_sets(merged, objectives, level)["status"]
        info["refine"]["undecided_before"] = int((result.certified(level)["status"] == "undecided").sum())
        info["refine"]["undecided_after"] = int((certified == "undecided").sum())
    return Result(method=result.method, seed=result.seed, n_evals=int(result.n_evals) + int(spent),
                  objectives=tuple(result.objectives), evaluations=merged, info=info)


def _chance_target(target):
    """The chance-constraint terms of a ``target`` utility (a spec or a Utility), or None when
    ``target`` is not one."""
    if isinstance(target, str) and "(" in target:
        from mopt.utility_spec import parse_utility

        target = parse_utility(target)
    terms = [t for t in getattr(target, "risk", ()) if t.kind == "probability" and t.probability is not None]
    if getattr(target, "risk", ()) and not terms:
        raise InputError(f"'target' {target.name} has no chance constraint (a probability= to reach): "
                         "refine targets the designs whose constraint is undecided.")
    return terms or None


def _classes(merged, ev, samples) -> np.ndarray:
    """The classes of equivalent designs after refining: the refined designs' by their
    replications, the others' as before (a class is refined whole or not at all: its members
    share their means and standard errors, so :func:`screen` keeps all or none)."""
    ids = merged["design"].to_numpy(dtype=np.int64)
    have = np.array([s is not None for s in samples], dtype=bool)
    labels = np.empty(len(ids), dtype=np.int64)
    labels[have] = class_ids([s for s in samples if s is not None], ids[have])
    if (~have).any():
        old = (ev.set_index("design").loc[ids[~have], "class"].to_numpy(dtype=np.int64) if "class" in ev.columns
               else np.arange(int((~have).sum())))
        labels[~have] = int(labels[have].max(initial=-1)) + 1 + old
    return renumber(labels, ids)


def _equivalent(designs: np.ndarray, state) -> tuple[np.ndarray, np.ndarray]:
    """Designs whose replications so far are identical (equivalent strategies: e.g. a parameter
    that never comes into play) form a class that moves together: ``(lead, members)``, the first
    design of each class (positions in ``designs``) and each design's class. Given different
    replication counts, they would part by noise alone and MOCBA would spend the budget on telling
    them apart.  The classes are those of :func:`mopt.core.classes.class_ids` (numbered in the
    order of their first design)."""
    members = class_ids([state.samples[int(d)] for d in designs.tolist()])
    _, lead = np.unique(members, return_index=True)
    return designs[lead], members


def _correlation(state, lead: np.ndarray) -> float:
    """The mean correlation between different designs' replications (over their common
    replication indices, averaged over objectives): high under common random numbers."""
    if len(lead) < 2:
        return 0.0
    n = min(len(state.samples[int(d)]) for d in lead)
    if n < 3:
        return 0.0
    x = np.stack([state.samples[int(d)][:n] for d in lead])  # (designs, n, m)
    values = []
    for j in range(x.shape[2]):
        rows = x[:, :, j]
        rows = rows[rows.std(axis=1) > 0]
        if len(rows) >= 2:
            c = np.corrcoef(rows)
            values.append((c.sum() - len(c)) / (len(c) * (len(c) - 1)))
    return float(np.mean(values)) if values else 0.0

