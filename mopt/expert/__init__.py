"""Bags of tasks on unreliable + reliable pools: ExPERT's NTDM_r strategies (Agmon Ben-Yehuda et al.).

The names below are imported on first use (the estimator compiles with Numba), so that
``import mopt.expert`` and the command line stay cheap.

Examples
--------
>>> from mopt.expert import reference_environment
>>> reference_environment().n_tasks
150
"""

from __future__ import annotations

import importlib

#: public name -> the module that defines it (imported on first use)
_LAZY = {
    "Environment": "environment", "reference_environment": "environment", "wl3_environment": "environment",
    "estimate": "estimator",
    "ObservedTail": "online", "ThroughputLog": "online", "estimate_online": "online", "observe": "online",
    "estimate_n_unreliable": "pool",
    "NTDMrProblem": "problem", "fronts_by_N": "problem", "high_resolution_grid": "problem",
    "paper_grid": "problem",
    "STATIC_STRATEGIES": "strategy", "Strategy": "strategy",
    "TurnaroundModel": "turnaround",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'mopt.expert' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mopt.expert.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(__all__)
