"""A synthetic problem with known means (tests of mopt.compare, mopt.scoring and mopt.plot): two
objectives, deterministic, so that every score can be worked out by hand. ``exact`` is module level
so that worker processes can unpickle it."""

from __future__ import annotations

import numpy as np


def exact(params, rng):
    """Deterministic: time = x + 1 + penalty, cost = (5 - x)² + 1 + penalty (rng unused)."""
    x, penalty = params["x"], params["penalty"]
    return (x + 1 + penalty, (5 - x) ** 2 + 1 + penalty)


#: designs 0-5 (x = 0..5) are all Pareto-optimal; 6 (x=1, +3) and 7 (x=4, +2) are dominated
DESIGNS = [{"x": x, "penalty": 0} for x in range(6)] + [{"x": 1, "penalty": 3}, {"x": 4, "penalty": 2}]
#: the known means, row i = design i
MEANS = np.array([exact(d, None) for d in DESIGNS], dtype=float)
#: time × cost of each design: 26, 34, 30, 20, 10, 6, 100, 28 — design 5 is best (6)
PRODUCT = MEANS.prod(axis=1)
