"""Decisions under risk: the probability that an objective stays within a limit, its quantiles and
its CVaR, estimated per design from the design's replications (issue #37).

A mean says how a strategy does on average; a user with a deadline or a budget asks how often it
keeps it. Each :class:`RiskTerm` is one such quantity of one objective, estimated from the ``n``
replications a design got (the same ones its mean comes from), with a standard error:

``P(x <= b)`` (kind ``"probability"``)
    the fraction ``p̂ = k / n`` of replications at or below ``b``; standard error the standard
    deviation of Jeffreys' posterior Beta(k + 1/2, n - k + 1/2) (about ``sqrt(p̂ (1 - p̂) / n)``,
    never 0: ours). A chance constraint ``P(x <= b) >= p`` is read from it three ways:
    on the estimate (``p̂ >= p``, as a mean-based constraint reads the mean); at a stated
    ``confidence`` (the one-sided Clopper–Pearson lower bound of ``P`` at that confidence is at
    least ``p``: a frequentist guarantee for one design); and as the certainty that it holds, the
    posterior ``P(P >= p)`` under Jeffreys' prior Beta(1/2, 1/2) (ours: a posterior, as
    P(non-dominated) is, not a calibrated frequency).
``quantile(x, q)`` (kind ``"quantile"``)
    the inverted-CDF sample quantile, the ``ceil(n q)``-th smallest replication (as numpy's
    ``method="inverted_cdf"``, but for ``n q`` within 1e-12 of an integer, read as that integer);
    standard error (ours) the distribution-free 95 % interval between the order statistics
    ``n q ∓ 1.96 sqrt(n q (1 - q))``, its width over 2 × 1.96 (conservative: 15-40 % above the
    spread of the estimate in simulations at n = 20-200), NaN while that interval leaves the sample.
``cvar(x, q)`` (kind ``"cvar"``)
    the conditional value at risk: the mean of the worst ``1 - q`` of the outcomes (the upper
    tail: objectives are minimised), by Rockafellar and Uryasev's estimator
    ``v + mean(max(x - v, 0)) / (1 - q)`` with ``v`` the ``q``-quantile (infinite when an outcome
    is); standard error that of the mean of ``v + max(x - v, 0) / (1 - q)`` (its asymptotic form),
    NaN below one replication beyond the quantile (``n (1 - q) < 1``: the tail is not seen).

A replication that is NaN is refused (a problem never returns one; a journal row or given samples
might): a probability of the replications that did not fail would mislead.

Equivalent designs (identical replications) get identical values. A :class:`~mopt.Result` keeps
means and standard errors, not replications: :func:`replications` reads a design's from the run's
journal or simulates them again from the run's seed (each design's ``0 .. n-1``, bit for bit the
run's), and :func:`with_risk` adds the terms' columns to the evaluations. The utilities that speak
of risk (``within_budget(..., probability=p)``, ``by_deadline(..., probability=p)``,
``quantile``, ``cvar`` in :mod:`mopt.core.utility`) list their terms in ``Utility.risk``.
"""

from __future__ import annotations

import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from mopt.core.errors import InputError, check_number

__all__ = ["RiskTerm", "estimate", "replications", "with_risk", "risk_terms", "chance_front", "resampled", "check_run_problem", "constraint_undecided"]

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class RiskTerm:
    """One quantity of the distribution of ``objective``: ``kind`` "probability" (``level`` the
    limit ``b`` of ``P(objective <= b)``), "quantile" or "cvar" (``level`` the ``q`` in (0, 1)).
    ``probability`` and ``confidence`` (probability terms only): the chance constraint
    ``P >= probability`` whose certainty (and, with ``confidence``, Clopper–Pearson lower bound)
    :func:`with_risk` adds as columns too."""

    kind: str
    objective: str
    level: float
    probability: float | None = None
    confidence: float | None = None

    def __post_init__(self):
        if self.kind not in ("probability", "quantile", "cvar"):
            raise InputError(f"a risk term's kind must be 'probability', 'quantile' or 'cvar'; got {self.kind!r}.")
        if not isinstance(self.objective, str) or not self.objective:
            raise InputError(f"a risk term needs an objective name; got {self.objective!r}.")
        if self.kind == "probability":
            check_number("limit", self.level)
        else:
            check_number("q", self.level, low=0, high=1, low_open=True, high_open=True)
        if self.probability is not None:
            check_number("probability", self.probability, low=0, high=1, low_open=True, high_open=True)
        if self.confidence is not None:
            check_number("confidence", self.confidence, low=0, high=1, low_open=True, high_open=True)

    @property
    def column(self) -> str:
        """The column of the estimate, e.g. ``"P(cost <= 1)"``, ``"quantile(makespan, 0.95)"``."""
        if self.kind == "probability":
            return f"P({self.objective} <= {self.level:g})"
        return f"{self.kind}({self.objective}, {self.level:g})"

    @property
    def certainty_column(self) -> str:
        """The column of the posterior certainty that ``P >= probability`` holds."""
        return f"certainty {self.column} >= {self.probability:g}"

    @property
    def lower_column(self) -> str:
        """The column of the Clopper–Pearson lower bound of ``P`` at ``confidence``."""
        return f"{self.column} lower {self.confidence:g}"

    def columns(self) -> tuple[str, ...]:
        """Every column :func:`with_risk` adds for this term."""
        out = [self.column, f"{self.column}_se"]
        if self.probability is not None:
            out.append(self.certainty_column)
        if self.confidence is not None:
            out.append(self.lower_column)
        return tuple(out)


def _quantile(x: np.ndarray, q: float) -> float:
    """The ``ceil(n q)``-th smallest of ``x`` (inverted CDF), NaN for no values."""
    if len(x) == 0:
        return math.nan
    k = max(1, math.ceil(len(x) * q - 1e-12))
    return float(np.partition(x, k - 1)[k - 1])


def estimate(term: RiskTerm, x) -> dict:
    """``term`` estimated from one design's replications ``x`` (1-D, the term's objective): the
    columns of :meth:`RiskTerm.columns` -> value.

    Examples
    --------
    >>> x = [1.0, 2.0, 3.0, 4.0]
    >>> estimate(RiskTerm("probability", "t", 2.5), x)  # se: the sd of Beta(2.5, 2.5)
    {'P(t <= 2.5)': 0.5, 'P(t <= 2.5)_se': 0.2041241452319315}
    >>> estimate(RiskTerm("quantile", "t", 0.75), x)["quantile(t, 0.75)"]
    3.0
    >>> estimate(RiskTerm("cvar", "t", 0.5), x)["cvar(t, 0.5)"]  # the mean of the worst half
    3.5
    """
    from scipy import special

    x = np.asarray(x, dtype=float)
    if np.isnan(x).any():
        raise InputError(f"a replication of {term.objective!r} is NaN: {term.column} cannot be estimated "
                         "(a probability conditional on the replications that did not fail would mislead).")
    n = len(x)
    out = {}
    if term.kind == "probability":
        k = int(np.count_nonzero(x <= term.level))
        p = k / n if n else math.nan
        out[term.column] = p
        # the standard deviation of Jeffreys' posterior Beta(k + 1/2, n - k + 1/2): about
        # sqrt(p (1 - p) / n), but never 0 (at p = 0 or 1 the binomial one would claim certainty)
        a, b = k + 0.5, n - k + 0.5
        out[f"{term.column}_se"] = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))) if n else math.nan
        if term.probability is not None:  # posterior P(P >= probability), Jeffreys' prior
            out[term.certainty_column] = (float(special.betaincc(k + 0.5, n - k + 0.5, term.probability))
                                          if n else math.nan)
        if term.confidence is not None:  # one-sided Clopper-Pearson lower bound
            alpha = 1 - term.confidence
            out[term.lower_column] = (math.nan if n == 0 else float(special.betaincinv(k, n - k + 1, alpha))
                                      if k > 0 else 0.0)
        return out
    q = term.level
    v = _quantile(x, q)
    if term.kind == "quantile":
        out[term.column] = v
        half = _Z95 * math.sqrt(n * q * (1 - q))
        lo, hi = math.floor(n * q - half), math.ceil(n * q + half)
        if n and lo >= 1 and hi <= n:
            s = np.sort(x)
            out[f"{term.column}_se"] = float(s[hi - 1] - s[lo - 1]) / (2 * _Z95)
        else:
            out[f"{term.column}_se"] = math.nan
        return out
    if n and np.isposinf(x).any():
        out[term.column] = math.inf  # an infinite outcome in the tail: the tail's mean is infinite
        out[f"{term.column}_se"] = math.nan
        return out
    y = v + np.maximum(x - v, 0.0) / (1 - q)
    out[term.column] = float(y.mean()) if n else math.nan
    # fewer than one replication beyond the quantile: the tail is not seen, its spread unknown
    enough = n > 1 and n * (1 - q) >= 1
    out[f"{term.column}_se"] = float(y.std(ddof=1) / math.sqrt(n)) if enough else math.nan
    return out


def risk_terms(utilities) -> list[RiskTerm]:
    """The distinct risk terms of ``utilities`` (one utility or an iterable of them)."""
    items = [utilities] if callable(utilities) else list(utilities)
    seen: dict[RiskTerm, None] = {}
    for u in items:
        for term in getattr(u, "risk", ()):
            seen.setdefault(term)
    return list(seen)


def resampled(evaluations: pd.DataFrame, objectives, utility) -> list[str] | None:
    """The columns that P(best) resamples for ``utility``: the ``objectives`` and the estimates of
    its risk terms (a bound or a certainty is not resampled: ours); None when an estimate has no
    standard error in some row (a quantile or CVaR of too few replications): P(best) is then
    unknown, not certain."""
    extra = [t.column for t in getattr(utility, "risk", ()) if t.column in evaluations.columns]
    for c in extra:
        se = evaluations.get(f"{c}_se")
        if se is None or se.isna().any():
            return None
    return list(dict.fromkeys([*objectives, *extra]))


def replications(result, *, problem=None, journal=None, designs=None) -> dict[int, np.ndarray]:
    """Design index -> its replications ``(n, n_obj)``, the ``n_reps`` the result counts (indices
    ``0 .. n-1``), for ``designs`` (default: every evaluated design): read from ``journal`` (the
    run's, read-only) when given, else simulated again with ``problem`` from the run's seed.

    Raises
    ------
    InputError
        Neither given; a problem or journal of another run; a journal without some replication.
    """
    ev = result.evaluations
    if "n_reps" not in ev.columns:
        raise InputError("the result's evaluations have no 'n_reps' column (how many replications each design "
                         "got): its replications cannot be found again.")
    counts = dict(zip(ev["design"].astype(np.int64).tolist(), ev["n_reps"].astype(np.int64).tolist(), strict=True))
    chosen = list(counts) if designs is None else [int(d) for d in designs]
    missing = [d for d in chosen if d not in counts]
    if missing:
        raise InputError(f"design(s) {missing[:5]} were not evaluated by this run.")
    if journal is not None:
        return _from_journal(Path(journal), result, problem, {d: counts[d] for d in chosen})
    if problem is None:
        raise InputError("the replications of each design are needed (a risk measure is estimated from them): "
                         "give the run's 'journal' or its 'problem' (simulated again from the run's seed).")
    check_run_problem(problem, result, "'problem'")
    out: dict[int, np.ndarray] = {}
    by_n: dict[int, list[int]] = {}
    for d in chosen:
        by_n.setdefault(counts[d], []).append(d)
    for n, ds in by_n.items():
        values = problem.replicate(np.asarray(ds, dtype=np.int64), np.arange(n, dtype=np.int64), int(result.seed))
        for k, d in enumerate(ds):
            out[d] = np.asarray(values[k], dtype=float)
    return out


def check_run_problem(problem, result, name: str) -> None:
    """``problem`` has the result's objectives and, when the result records one, its fingerprint."""
    if tuple(problem.objectives) != tuple(result.objectives):
        raise InputError(f"{name} has the objectives {list(problem.objectives)}, not the run's "
                         f"{list(result.objectives)}.")
    recorded = result.info.get("fingerprint")
    if recorded is not None and recorded != problem.fingerprint():
        raise InputError(f"{name} is not the problem the run searched (fingerprint {problem.fingerprint()}; "
                         f"the result records {recorded}).")


def _from_journal(path: Path, result, problem, counts: dict) -> dict[int, np.ndarray]:
    import json

    from mopt.core.journal import BUSY_SECONDS, _quote
    from mopt.core.journal_view import _uri, is_journal

    where = f"'journal' {str(path)!r}"
    if not path.is_file() or not is_journal(path):
        raise InputError(f"{where} is not a mopt journal file.")
    try:
        db = sqlite3.connect(_uri(path), uri=True, isolation_level=None, timeout=BUSY_SECONDS)
        try:
            meta = dict(db.execute("SELECT key, value FROM meta"))
            objectives = tuple(json.loads(meta["objectives"]))
            if objectives != tuple(result.objectives):
                raise InputError(f"{where} holds the objectives {list(objectives)}, not the run's "
                                 f"{list(result.objectives)}.")
            if meta.get("seed") != str(int(result.seed)):
                raise InputError(f"{where} was written with seed {meta.get('seed')}; the run's seed is {result.seed}.")
            recorded = problem.fingerprint() if problem is not None else result.info.get("fingerprint")
            if recorded is not None and meta.get("fingerprint") != recorded:
                raise InputError(f"{where} was written for another problem (fingerprint {meta.get('fingerprint')}; "
                                 f"the run's is {recorded}).")
            cols = ", ".join(_quote(o) for o in objectives)
            out = {}
            for d, n in counts.items():
                rows = db.execute(f"SELECT rep, {cols} FROM replications WHERE design = ? AND rep < ? ORDER BY rep",
                                  (int(d), int(n))).fetchall()
                if len(rows) != n:
                    raise InputError(f"{where} holds {len(rows)} of design {d}'s {n} replications.")
                out[d] = np.array([[math.nan if v is None else v for v in r[1:]] for r in rows], dtype=float)
            return out
        finally:
            db.close()
    except (sqlite3.Error, KeyError, ValueError) as exc:
        raise InputError(f"{where} cannot be read ({type(exc).__name__}: {exc}).") from None


def with_risk(result, terms, *, problem=None, journal=None, samples=None):
    """``result`` with the columns of every risk term (``terms``: RiskTerms, or utilities whose
    ``risk`` lists them) added to its evaluations, estimated from each design's replications
    (``samples``: design -> ``(n, n_obj)``; else :func:`replications` from ``journal`` or
    ``problem``).

    Examples
    --------
    >>> import mopt
    >>> prob = mopt.NormalProblem([[1.0], [3.0]], sd=1.0, n_reps=400)
    >>> result = mopt.solve(prob, "exhaustive", seed=1)
    >>> risky = with_risk(result, [RiskTerm("probability", "f1", 2.0)], problem=prob)
    >>> risky.evaluations["P(f1 <= 2)"].tolist()  # Phi(1) = 0.841, Phi(-1) = 0.159
    [0.86, 0.1575]
    """
    import dataclasses

    items = [terms] if isinstance(terms, RiskTerm) or callable(terms) else list(terms)
    chosen = [t for t in items if isinstance(t, RiskTerm)] + risk_terms([u for u in items if not isinstance(u, RiskTerm)])
    chosen = list(dict.fromkeys(chosen))
    if not chosen:
        return result
    unknown = sorted({t.objective for t in chosen} - set(result.objectives))
    if unknown:
        raise InputError(f"a risk measure of {unknown[0]!r}, which is not an objective of the result "
                         f"({', '.join(result.objectives)}).")
    ev = result.evaluations
    if samples is None:
        samples = replications(result, problem=problem, journal=journal)
    position = {o: k for k, o in enumerate(result.objectives)}
    rows = []
    for d in ev["design"].astype(np.int64).tolist():
        x = samples[int(d)]
        row = {}
        for t in chosen:
            row.update(estimate(t, x[:, position[t.objective]]))
        rows.append(row)
    extra = pd.DataFrame(rows, index=ev.index)
    kept = ev.drop(columns=[c for c in extra.columns if c in ev.columns])
    return dataclasses.replace(result, evaluations=pd.concat([kept, extra], axis=1))


def chance_front(result, objective: str, limit: float, probability: float, *, confidence: float = 0.95,
                 problem=None, journal=None, samples=None) -> pd.DataFrame:
    """The Pareto front (on the means) of the designs that satisfy the chance constraint
    ``P(objective <= limit) >= probability`` at ``confidence``: each design's one-sided
    Clopper–Pearson lower bound of the probability is at least ``probability`` (a guarantee per
    design, not for all at once). The rows carry the term's columns."""
    from mopt.core.pareto import pareto_mask

    term = RiskTerm("probability", objective, limit, probability=probability, confidence=confidence)
    ev = with_risk(result, [term], problem=problem, journal=journal, samples=samples).evaluations
    ok = ev[ev[term.lower_column] >= probability]
    if len(ok) == 0:
        return ok
    mask = pareto_mask(ok[list(result.objectives)].to_numpy(dtype=float))
    return ok[mask].sort_values([*result.objectives, "design"]).reset_index(drop=True)


def constraint_undecided(terms, x: np.ndarray, objectives, level: float) -> bool:
    """Whether some chance constraint ``P(objective <= b) >= p`` of ``terms`` is neither sure to
    hold nor sure to fail on replications ``x``: the one-sided Clopper-Pearson bounds at ``level``
    straddle ``p`` (ours)."""
    from scipy import special

    for t in terms:
        values = x[:, list(objectives).index(t.objective)]
        values = values[~np.isnan(values)]
        n, k = len(values), int(np.count_nonzero(values <= t.level))
        lower = float(special.betaincinv(k, n - k + 1, 1 - level)) if k > 0 else 0.0
        upper = float(special.betaincinv(k + 1, n - k, level)) if k < n else 1.0
        if lower < t.probability <= upper:
            return True
    return False
