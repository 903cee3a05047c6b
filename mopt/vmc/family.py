"""The virtual-clusters family's plug-in declaration (entry point ``mopt.families: vmc``).

Light on purpose: ``mopt --help`` imports it; the rest of the family is named by dotted reference.
"""

from __future__ import annotations

from mopt.core.family import Family, Objective

__all__ = ["FAMILY"]

FAMILY = Family(
    name="vmc",
    description="VM partitions across virtual clusters, one period or many (iOO, eOO; Zhang et al.)",
    scenario="mopt.vmc.scenario:parse",
    keys="mopt.vmc.scenario:KEYS",
    commands="mopt.vmc.commands:add_parsers",
    objectives={"clear_time": Objective("time to clear the period's work", "s", low=0),
                "vms": Objective("VMs leased", low=0)},
    examples=("examples/partition.toml",),
    package="mopt.vmc",
    formats={"clear_time": "{:.1f}"},
    noun=("schedules", "schedule"),
    reports={"vmc": ("vmc_summary.csv", "mopt.vmc.commands:write_report")},
    replay="mopt.vmc.replay:replay_lines",
)
