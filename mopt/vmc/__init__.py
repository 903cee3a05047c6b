"""Virtual clusters: VM partitions across task classes, multi-period scheduling (Zhang et al., TETC 2014).

See the project's specification of the model; ``execute`` is the corrected period model.
"""

from __future__ import annotations

from mopt.vmc.period import execute
from mopt.vmc.profile import default_table, lookup, read_table
from mopt.vmc.space import (
           count_elastic,
           count_partitions,
           rank,
           rank_elastic,
           unrank,
           unrank_elastic,
)
from mopt.vmc.stages import adaptive_stages, merge, partition
from mopt.vmc.workload import KINDS, Workload, generate, pooled_thresholds, similarity

__all__ = ["KINDS", "Workload", "adaptive_stages", "count_elastic", "count_partitions", "default_table",
           "execute", "generate", "lookup", "merge", "partition", "pooled_thresholds", "rank", "rank_elastic",
           "read_table", "similarity", "unrank", "unrank_elastic"]
