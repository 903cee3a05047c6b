"""Problems whose truth is known, for measuring how sure mopt is (issue #33).

Each function takes ``n_reps`` and returns ``(problem, truth)``: a :class:`mopt.StochasticProblem`
whose designs are ``0 .. D-1`` and the bool mask (D,) of the designs that are truly Pareto-efficient
among them (with respect to the objectives' true means). :data:`TRUTHS` names them:

* ``synthetic``: the how-sure guide's 12 designs (8 on a convex front (x, 2/x), 4 just behind it),
  normal noise of sd 0.3 in both objectives, independent designs;
* ``heteroscedastic``: 30 designs (15 on the front, 15 behind it at 0.03 to 0.6), normal noise whose
  sd ranges over 0.05 to 0.5 across the designs (a 10x range; the same in both objectives);
* ``correlated+`` / ``correlated-``: the same 30 means, sd 0.15, the two objectives' noise
  correlated with rho = +0.7 / -0.7 within each replication;
* ``lognormal``: the same 30 means, each objective lognormal (sigma of its log 0.5: skewness 1.75,
  as makespans are) with that mean;
* ``expert``: the ExPERT paper grid (289 strategies, common random numbers: replication r of every
  strategy shares its random numbers), truth from 1,000 replications of each (cached under /tmp).

The synthetic problems draw replication r from ``replication_rng(entropy, r)`` (one draw per design
and objective), as :class:`mopt.NormalProblem` does: designs are independent.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np

import mopt
from mopt.core.pareto import pareto_mask
from mopt.core.problem import IndexedProblem
from mopt.core.random import replication_rng

__all__ = ["TRUTHS", "synthetic", "heteroscedastic", "correlated", "lognormal", "expert",
           "CorrelatedNormalProblem", "LognormalProblem", "front_layout"]

#: where the ExPERT truth (1,000 replications of each strategy) is cached
EXPERT_CACHE = "/tmp/mopt_expert_truth_1000.npz"


def front_layout(k_front: int = 15, offsets=(0.03, 0.075, 0.15, 0.3, 0.6), base: float = 1.0) -> np.ndarray:
    """(D, 2) true means: ``k_front`` designs on the convex front (x, 2/x), x in [0.5, 4], and, per
    offset c, ``k_front // 5`` designs behind front designs by (c, c) * ``base`` (each dominated)."""
    x = np.linspace(0.5, 4.0, k_front)
    front = np.stack([x, 2.0 / x], axis=1)
    per = max(1, k_front // 5)
    behind = []
    for j, c in enumerate(offsets):
        rows = (np.arange(per) * 5 + j) % k_front  # spread each offset over the front
        behind.append(front[rows] + c * base)
    return np.vstack([front, *behind])


class CorrelatedNormalProblem(IndexedProblem):
    """Two objectives: ``means`` plus normal noise of std ``sd`` (per design, or one), correlated
    with ``rho`` between the objectives of one replication; designs independent."""

    parameter_names = ("i",)

    def __init__(self, means, sd=1.0, rho=0.0, *, n_reps: int = 10, seed: int = 0):
        self.means = np.asarray(means, dtype=float)
        self.sd = np.broadcast_to(np.asarray(sd, dtype=float).reshape(-1, 1) if np.ndim(sd) else sd,
                                  self.means.shape).copy()
        self.rho = float(rho)
        super().__init__(objectives=("f1", "f2"), n_designs=len(self.means), n_reps=n_reps, seed=seed)

    def decode(self, x) -> dict:
        return {"i": self.index(x)}

    def _noise(self, indices, reps, entropy) -> np.ndarray:
        """(len(indices), len(reps), 2) standard normals, correlated rho between objectives."""
        z = np.stack([replication_rng(entropy, r).standard_normal(self.means.shape) for r in reps], axis=1)
        z = z[indices]
        z1, z2 = z[..., 0], z[..., 1]
        return np.stack([z1, self.rho * z1 + np.sqrt(1.0 - self.rho ** 2) * z2], axis=-1)

    def _replicate(self, indices, reps, entropy):
        return self.means[indices, None, :] + self.sd[indices, None, :] * self._noise(indices, reps, entropy)

    def _identity(self) -> dict:
        return {**super()._identity(), "means": self.means.tolist(), "sd": self.sd.tolist(), "rho": self.rho}


class LognormalProblem(CorrelatedNormalProblem):
    """Each objective lognormal with mean ``means`` and ``sigma`` the std of its log (CV
    sqrt(exp(sigma^2) - 1)); objectives and designs independent."""

    def __init__(self, means, sigma=0.5, *, n_reps: int = 10, seed: int = 0):
        self.sigma = float(sigma)
        super().__init__(means, sd=1.0, rho=0.0, n_reps=n_reps, seed=seed)
        self.log_mean = np.log(self.means) - self.sigma ** 2 / 2

    def _replicate(self, indices, reps, entropy):
        z = self._noise(indices, reps, entropy)
        return np.exp(self.log_mean[indices, None, :] + self.sigma * z)

    def _identity(self) -> dict:
        return {**super()._identity(), "sigma": self.sigma}


def synthetic(n_reps: int):
    """The how-sure guide's 12 designs: 8 on a convex front (x, 2/x), 4 just behind; sd 0.3."""
    x = np.linspace(0.5, 4.0, 8)
    front = np.stack([x, 2.0 / x], axis=1)
    behind = front[[1, 3, 5, 6]] + [0.15, 0.1]
    means = np.vstack([front, behind])
    return mopt.NormalProblem(means, sd=0.3, n_reps=n_reps), pareto_mask(means)


def heteroscedastic(n_reps: int):
    """30 designs of :func:`front_layout`, sd 0.05 to 0.5 (log-spaced, assigned in a fixed shuffled
    order), the same in both objectives."""
    means = front_layout(base=1.0)
    sd = np.geomspace(0.05, 0.5, len(means))[np.random.default_rng(33).permutation(len(means))]
    return mopt.NormalProblem(means, sd=sd[:, None], n_reps=n_reps), pareto_mask(means)


def correlated(n_reps: int, rho: float = 0.7):
    """30 designs of :func:`front_layout`, sd 0.15, objectives' noise correlated ``rho``."""
    means = front_layout()
    return CorrelatedNormalProblem(means, sd=0.15, rho=rho, n_reps=n_reps), pareto_mask(means)


def lognormal(n_reps: int, sigma: float = 0.5):
    """30 designs of :func:`front_layout` as lognormal means (sigma of the log 0.5)."""
    means = front_layout()
    return LognormalProblem(means, sigma=sigma, n_reps=n_reps), pareto_mask(means)


def expert(n_reps: int, truth_reps: int = 1000):
    """The ExPERT paper grid on the demo's environment (289 strategies, common random numbers); the
    truth from ``truth_reps`` replications of each (seed 987654), cached in :data:`EXPERT_CACHE`."""
    from mopt.expert import NTDMrProblem, reference_environment

    env = reference_environment(0.1)
    problem = NTDMrProblem(env, n_reps=n_reps)
    cache = EXPERT_CACHE if truth_reps == 1000 else EXPERT_CACHE.replace("1000", str(truth_reps))
    if os.path.exists(cache):
        means = np.load(cache)["means"]
    else:
        values = problem.replicate(np.arange(problem.n_designs), np.arange(truth_reps), 987654)
        means = values.mean(axis=1)
        np.savez(cache, means=means)
    return problem, pareto_mask(means)


#: name -> function of n_reps returning (problem, truth)
TRUTHS = {
    "synthetic": synthetic,
    "heteroscedastic": heteroscedastic,
    "correlated+": lambda n_reps: correlated(n_reps, 0.7),
    "correlated-": lambda n_reps: correlated(n_reps, -0.7),
    "lognormal": lognormal,
    "expert": expert,
}


if __name__ == "__main__":
    for name, make in TRUTHS.items():
        problem, truth = make(10)
        print(f"{name}: {problem.n_designs} designs, {int(truth.sum())} efficient")
