"""KOALA-C: task allocation over clusters, a private and a public cloud (Fei et al.; spec ``koala.md``).

Sites and environments (:mod:`~mopt.koala.environment`), the policies FF, RR, SJF, SJF-ideal,
HSDF, TAGS-chain and TAGS-sets (:mod:`~mopt.koala.policies`), a compiled simulator
(:func:`simulate`) and the TAGS configuration search problem (:class:`TagsProblem`).

Examples
--------
>>> import math
>>> import pandas as pd
>>> from mopt.koala import FF, multicloud, simulate
>>> jobs = pd.DataFrame({"submit": [0, 10], "size": [4, 40], "runtime": [60, 120]})
>>> run = simulate(jobs, FF(), multicloud())
>>> run.jobs["site"].tolist(), run.summary["public_cost"]
(['C1', 'private'], 0.0)
"""

from __future__ import annotations

from mopt.koala.environment import (
    Environment,
    Site,
    cluster,
    multicloud,
    multicluster,
    offered_load,
    private_cloud,
    public_cloud,
    real_world,
)  # fmt: skip

#: names imported on first use, so that the CLI starts fast: their modules load Numba (simulation,
#: problem) or pandas (traces) or numpy (policies)
_COMPILED = {"simulate": "simulation", "KoalaRun": "simulation", "job_table": "simulation", "TagsProblem": "problem",
             **dict.fromkeys(("FF", "HSDF", "RR", "SJF", "Policy", "SJFIdeal", "TagsChain", "TagsSets"), "policies"),
             **dict.fromkeys(("koala_trace", "removed_jobs", "short_share"), "traces")}

__all__ = [
    "Environment", "Site", "cluster", "private_cloud", "public_cloud", "multicluster", "multicloud",
    "real_world", "offered_load", "Policy", "FF", "RR", "SJF", "SJFIdeal", "HSDF", "TagsChain", "TagsSets",
    "koala_trace", "short_share", "removed_jobs", "simulate", "KoalaRun", "job_table", "TagsProblem",
]  # fmt: skip


def __getattr__(name: str):
    if name not in _COMPILED:
        raise AttributeError(f"module 'mopt.koala' has no attribute {name!r}")
    import importlib

    globals()[name] = getattr(importlib.import_module(f"mopt.koala.{_COMPILED[name]}"), name)
    return globals()[name]
