"""Bags of tasks on unreliable + reliable pools: ExPERT's NTDM_r strategies (Agmon Ben-Yehuda et al.)."""

from __future__ import annotations

import os as _os

import numba as _numba

# The simulators run prange loops; numba's default GNU OpenMP layer kills a forked child process,
# which breaks ProcessPoolExecutor (fork on Linux).  "forksafe" picks a layer that survives fork
# (TBB if installed, else the built-in workqueue).  A user's NUMBA_THREADING_LAYER wins.
if "NUMBA_THREADING_LAYER" not in _os.environ:
    _numba.config.THREADING_LAYER = "forksafe"

from mopt.expert.environment import Environment, reference_environment, wl3_environment
from mopt.expert.estimator import estimate
from mopt.expert.online import ObservedTail, ThroughputLog, estimate_online, observe
from mopt.expert.pool import estimate_n_unreliable
from mopt.expert.problem import NTDMrProblem, fronts_by_N, high_resolution_grid, paper_grid
from mopt.expert.strategy import STATIC_STRATEGIES, Strategy
from mopt.expert.turnaround import TurnaroundModel

__all__ = [
    "STATIC_STRATEGIES",
    "Environment",
    "NTDMrProblem",
    "ObservedTail",
    "Strategy",
    "ThroughputLog",
    "TurnaroundModel",
    "estimate",
    "estimate_n_unreliable",
    "fronts_by_N",
    "estimate_online",
    "high_resolution_grid",
    "observe",
    "paper_grid",
    "reference_environment",
    "wl3_environment",
]
