"""MOCBA: multi-objective OCBA (Lee, Chew, Teng & Goldsman, IIE Transactions 42, 2010).

Replications are allocated to make the *observed* Pareto set right: few Type I errors (a design
observed as Pareto-optimal that is not) and few Type II errors (a Pareto-optimal design observed as
dominated).  With x̄_il the sample mean of design i on objective l, s²_il its per-replication
variance and n_i its replications:

* δ_ijl = x̄_jl − x̄_il and the separation v_ij = max_l δ_ijl·|δ_ijl| / (s²_il/n_i + s²_jl/n_j):
  design j dominates i with a probability that falls as v_ij grows, and l_ij (the argmax) is the
  objective on which j is least likely to beat i;
* j_i = argmin_{j≠i} v_ij is the design most likely to dominate i (designs with the very same
  mean vector as i are not candidates: they cannot dominate it);
* S_A = the designs h whose own separation |v_{h j_h}| is smaller than that of every design they are
  the likeliest dominator of (Θ_h = {i : j_i = h}; an empty Θ_h counts as +∞); S_B = the others;
* h ∈ S_A gets α_h = s²_{h l}/δ²_{h j_h l} (l = l_{h j_h}), and d ∈ S_B gets
  α_d = sqrt( Σ_{h ∈ S_A, j_h = d} s²_{d l_h} α_h² / s²_{h l_h} ).

These fractions are the paper's asymptotic allocation rule; the sequential procedure gives every
design ``n0`` replications, then spends rounds of ``delta`` replications following the fractions
(:func:`mopt.solvers.ocba.allocate`, largest-remainder rounding) until the budget is spent.  A
difference smaller than 1e-9 of the objective's scale (its spread, or its largest magnitude if
larger) counts as that much, so exact ties never divide by zero.
"""

from __future__ import annotations

import math

import numpy as np

from mopt.core.errors import InputError, check_array, check_int
from mopt.core.problem import check_reps
from mopt.solvers.base import SearchState, requests
from mopt.solvers.ocba import Sequential, allocate, largest_remainder

__all__ = ["MOCBA", "mocba_ratios", "mocba_allocation"]

_kernel = None


def _dominators_kernel():
    """The O(k²·H) search for every design's likeliest dominator, compiled once (numba, cached)."""
    global _kernel
    if _kernel is None:
        import numba

        @numba.njit(cache=True, nogil=True)
        def dominators(M, W):  # pragma: no cover - compiled
            k, H = M.shape
            j_of = np.full(k, -1, dtype=np.int64)
            l_of = np.zeros(k, dtype=np.int64)
            v_of = np.full(k, np.inf)
            for i in range(k):
                best, bj, bl = np.inf, -1, 0
                for j in range(k):
                    if j == i:
                        continue
                    vmax, lmax, same = -np.inf, 0, True
                    for obj in range(H):
                        d = M[j, obj] - M[i, obj]
                        if d != 0.0:
                            same = False
                        s = W[i, obj] + W[j, obj]
                        if s <= 0.0:
                            s = 1e-300
                        val = d * abs(d) / s
                        if val > vmax:
                            vmax, lmax = val, obj
                    if same:
                        continue
                    if vmax < best:
                        best, bj, bl = vmax, j, lmax
                j_of[i], l_of[i], v_of[i] = bj, bl, best
            return j_of, l_of, v_of

        _kernel = dominators
    return _kernel


def mocba_ratios(means, variances, n) -> np.ndarray:
    """MOCBA's allocation fractions (summing to 1) for the designs' ``means`` (n_designs, n_obj),
    per-replication ``variances`` (same shape) and current replications ``n`` (n_designs,)."""
    M = check_array("means", means, ndim=2)
    V = check_array("variances", variances, ndim=2, shape=M.shape, nonnegative=True)
    n = np.asarray(n, dtype=float)
    if n.shape != (len(M),) or not (n > 0).all():
        raise InputError(f"'n' must hold {len(M)} positive replication counts.")
    k = len(M)
    if k == 1:
        return np.ones(1)
    j_of, l_of, v_of = _dominators_kernel()(np.ascontiguousarray(M), np.ascontiguousarray(V / n[:, None]))
    has = j_of >= 0
    # smallest separation among the designs each h is the likeliest dominator of
    theta_min = np.full(k, np.inf)
    np.minimum.at(theta_min, j_of[has], np.abs(v_of[has]))
    in_a = has & (np.abs(v_of) < theta_min)
    scale = np.maximum(np.ptp(M, axis=0), np.abs(M).max(axis=0))
    eps = 1e-9 * np.where(scale > 0, scale, 1.0)
    h = np.flatnonzero(in_a)
    lh, jh = l_of[h], j_of[h]
    delta = np.maximum(np.abs(M[jh, lh] - M[h, lh]), eps[lh])
    alpha = np.zeros(k)
    alpha[h] = V[h, lh] / delta**2
    # α_d² = Σ s²_{d l} α_h² / s²_{h l} = Σ s²_{h l} s²_{d l} / δ⁴  (no division by a variance)
    sq = np.zeros(k)
    np.add.at(sq, jh, V[h, lh] * V[jh, lh] / delta**4)
    b = ~in_a
    alpha[b] = np.sqrt(sq[b])
    total = alpha.sum()
    if not np.isfinite(total) or total <= 0:
        return np.full(k, 1.0 / k)
    return alpha / total


def mocba_allocation(means, variances, n, budget) -> np.ndarray:
    """Integer replications to add (summing to ``budget``) under MOCBA; see :func:`mocba_ratios`."""
    budget = check_int("budget", budget, low=0)
    add = allocate(mocba_ratios(means, variances, n), np.asarray(n, dtype=float), budget)
    return largest_remainder(add, budget)


class MOCBA(Sequential):
    """Sequential multi-objective OCBA: ``n0`` replications of every design (None: see
    :class:`~mopt.solvers.ocba.Sequential`), then rounds of ``delta`` replications allocated by
    :func:`mocba_ratios` (None: about 25 rounds, at least 10 replications each; a round costs
    O(n_designs²), so very many small rounds are slow on large spaces).

    The default budget is exhaustive's (``n_designs × n_reps``).  The observed Pareto set is
    ``Result.front``.  ``sample`` (None: every design, or above the enumeration limit a sample
    sized by the budget) allocates over that many designs drawn uniformly instead (see
    :class:`~mopt.solvers.ocba.Sequential`).
    """

    name = "mocba"
    defaults = {"n0": None, "delta": None, "sample": None}

    def _delta(self, problem, budget=None):
        d = self.options["delta"]
        if d is not None:
            return check_reps("delta", d)
        if budget is None:
            return 10
        # about 25 rounds: each round costs O(n_designs²) to allocate
        return max(10, math.ceil((budget - self._n0(problem, budget) * self._k(problem)) / 25))

    def _ask(self, state: SearchState):
        problem = state.problem
        if state.spent == 0:
            self._rounds = 0
            self._designs = self._candidates(state)
            return [(self._designs, self._n0(problem, state.budget))]
        add = min(self._delta(problem, state.budget), state.remaining)
        if add <= 0:
            return []
        self._rounds += 1
        d = self._designs
        return requests(d, mocba_allocation(state.mean[d], state.var[d], state.count[d], add))

    def _info(self, state: SearchState):
        problem, budget = state.problem, state.budget
        return {"n0": self._n0(problem, budget), "delta": self._delta(problem, budget),
                "rounds": int(self._rounds), **self._sample_info(problem)}
