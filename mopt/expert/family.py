"""The ExPERT family's plug-in declaration (entry point ``mopt.families: expert``).

Light on purpose: ``mopt --help`` imports it, so it names the rest of the family by dotted
reference only (no simulator is compiled until a command or a scenario needs one).
"""

from __future__ import annotations

from mopt.core.family import Family, Objective

__all__ = ["FAMILY"]

FAMILY = Family(
    name="expert",
    description="bags of tasks on unreliable + reliable machines: ExPERT's NTDM_r replication strategies",
    scenario="mopt.expert.scenario:parse",
    keys="mopt.expert.scenario:KEYS",
    commands="mopt.expert.commands:add_parsers",
    objectives={"makespan": Objective("tail-phase makespan", "s", low=0), "cost": Objective("cost", "cent/task", low=0)},
    examples=("examples/reference.toml", "examples/online.toml"),
    package="mopt.expert",
    formats={"N": "count", "T": "seconds", "D": "seconds", "makespan": "{:.0f}", "Mr": "{:.2f}",
             "cost": "{:.3f}"},
    noun=("strategies", "strategy"),
    replay="mopt.expert.replay:replay_lines",
)
