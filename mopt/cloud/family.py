"""The cloud family's plug-in declaration (entry point ``mopt.families: cloud``).

Light on purpose: ``mopt --help`` imports it; the rest of the family is named by dotted reference.
"""

from __future__ import annotations

from mopt.core.family import Family, Objective

__all__ = ["FAMILY", "add_parsers"]


def add_parsers(sub, run_options) -> None:
    """Add the family's commands, ``simulate`` and ``portfolio``, to ``sub``."""
    from mopt.cloud import commands, portfolio_command

    commands.add_simulate(sub, run_options)
    portfolio_command.add_parser(sub, run_options)


FAMILY = Family(
    name="cloud",
    description="leased VMs for a stream of parallel jobs: policies and portfolio scheduling (SC13, JSSPP)",
    scenario="mopt.cloud.scenario:parse",
    keys="mopt.cloud.scenario:KEYS",
    commands="mopt.cloud.family:add_parsers",
    objectives={"bsd": Objective("mean bounded slowdown", low=1), "vm_hours": Objective("charged VM-hours", "h", low=0)},
    examples=("examples/portfolio_mix.toml",),
    package="mopt.cloud",
    formats={"bsd": "{:.3f}", "vm_hours": "{:.0f}"},
    noun=("mixes", "mix"),
    reports={"portfolio": ("portfolio.csv", "mopt.cloud.portfolio_command:write_report")},
    replay="mopt.cloud.replay:replay_lines",
)
