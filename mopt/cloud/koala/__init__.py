"""KOALA-C: task allocation over clusters, a private and a public cloud (Fei et al.; spec ``koala.md``).

Sites and environments (:mod:`~mopt.cloud.koala.environment`), the policies FF, RR, SJF, SJF-ideal,
HSDF, TAGS-chain and TAGS-sets (:mod:`~mopt.cloud.koala.policies`), a compiled simulator
(:func:`simulate`) and the TAGS configuration search problem (:class:`TagsProblem`).

Examples
--------
>>> import math
>>> import pandas as pd
>>> from mopt.cloud.koala import FF, multicloud, simulate
>>> jobs = pd.DataFrame({"submit": [0, 10], "size": [4, 40], "runtime": [60, 120]})
>>> run = simulate(jobs, FF(), multicloud())
>>> run.jobs["site"].tolist(), run.summary["public_cost"]
(['C1', 'private'], 0.0)
"""

from __future__ import annotations

import importlib

#: public name -> module (imported on first use, so that ``import mopt.cloud.koala`` and the CLI stay
#: cheap: no Numba until a simulation runs)
_LAZY = {
    **dict.fromkeys(("Environment", "Site", "cluster", "private_cloud", "public_cloud", "multicluster",
                     "multicloud", "real_world", "offered_load"), "mopt.cloud.koala.environment"),
    **dict.fromkeys(("Policy", "FF", "RR", "SJF", "SJFIdeal", "HSDF", "TagsChain", "TagsSets"),
                    "mopt.cloud.koala.policies"),
    **dict.fromkeys(("simulate", "KoalaRun", "job_table"), "mopt.cloud.koala.simulation"),
    "koala_trace": "mopt.cloud.koala.traces",
    "TagsProblem": "mopt.cloud.koala.problem",
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mopt.cloud.koala' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)
