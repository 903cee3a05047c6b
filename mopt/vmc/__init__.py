"""Virtual clusters: VM partitions across task classes, multi-period scheduling (Zhang et al., TETC 2014).

See the project's specification of the model; ``execute`` is the corrected period model.
The search problems — :class:`VMPartitionProblem` (one period) and :class:`VMMultiPeriodProblem`
(Scenarios 1 and 2, solved with ``mopt.solve(..., "ioo" | "eoo" | ...)``) — load the compiled
engine and are imported on first use, so that ``import mopt.vmc`` stays cheap.
"""

from __future__ import annotations

#: every public name and its module, imported on first use (the engine loads Numba; the rest
#: pandas and scipy), so that ``import mopt.vmc`` and the command line stay cheap
_COMPILED = {"VMPartitionProblem": "mopt.vmc.problem", "VMMultiPeriodProblem": "mopt.vmc.multiperiod_problem",
             "ioo_overhead": "mopt.vmc.multiperiod_problem", "scenario_problem": "mopt.vmc.paper_scenarios",
             "compare_methods": "mopt.vmc.paper_scenarios", "execute": "mopt.vmc.period",
             **dict.fromkeys(("default_table", "lookup", "read_table"), "mopt.vmc.profile"),
             **dict.fromkeys(("count_elastic", "count_partitions", "rank", "rank_elastic", "unrank",
                              "unrank_elastic"), "mopt.vmc.space"),
             **dict.fromkeys(("adaptive_stages", "merge", "partition", "stale_stage_width"), "mopt.vmc.stages"),
             **dict.fromkeys(("KINDS", "Workload", "generate", "pooled_thresholds", "similarity"),
                             "mopt.vmc.workload")}

__all__ = ["KINDS", "Workload", "adaptive_stages", "count_elastic", "count_partitions", "default_table",
           "execute", "generate", "lookup", "merge", "partition", "pooled_thresholds", "rank", "rank_elastic",
           "read_table", "similarity", "stale_stage_width", "unrank", "unrank_elastic", "VMPartitionProblem",
           "VMMultiPeriodProblem", "ioo_overhead", "scenario_problem", "compare_methods"]


def __getattr__(name: str):
    if name not in _COMPILED:
        raise AttributeError(f"module 'mopt.vmc' has no attribute {name!r}")
    import importlib

    globals()[name] = getattr(importlib.import_module(_COMPILED[name]), name)
    return globals()[name]

