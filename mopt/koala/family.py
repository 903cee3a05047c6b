"""The KOALA-C family's plug-in declaration (entry point ``mopt.families: koala``).

Light on purpose: ``mopt --help`` imports it; the rest of the family is named by dotted reference.
"""

from __future__ import annotations

from mopt.core.family import Family, Objective

__all__ = ["FAMILY"]

FAMILY = Family(
    name="koala",
    description="clusters, a private and a public cloud: KOALA-C's FF, RR, SJF, HSDF and TAGS policies",
    scenario="mopt.koala.scenario:parse",
    keys="mopt.koala.scenario:KEYS",
    commands="mopt.koala.commands:add_parsers",
    objectives={"slowdown_short": Objective("mean slowdown of short jobs", low=1),
                "slowdown_long": Objective("mean slowdown of long jobs", low=1),
                "public_cost": Objective("public-cloud cost", "$", low=0)},
    examples=("examples/tags_sets.toml",),
    package="mopt.koala",
    formats={"slowdown_short": "{:.3f}", "slowdown_long": "{:.3f}", "public_cost": "{:.2f}"},
    noun=("TAGS-sets configurations", "TAGS-sets configuration"),
    replay="mopt.koala.replay:replay_lines",
)
