"""What happened in one replication of a TAGS-sets configuration: the family's ``replay`` hook.

``mopt replay DIR --design I --rep R`` (:func:`mopt.core.replay.replay`) asks it about a
:class:`~mopt.koala.TagsProblem`: the replication's window of the trace and its drawn offered load,
how many jobs each site ran, and per job its submission, size, runtime, site, start, end and
slowdown (short jobs: runtime <= L1).
"""

from __future__ import annotations

__all__ = ["replay_lines"]


def replay_lines(problem, design: int, rep: int, seed: int) -> list[str] | None:
    """Lines telling replication ``rep`` of ``design`` (seed entropy ``seed``); None for a problem
    that is not a :class:`~mopt.koala.TagsProblem`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from mopt.koala import TagsProblem
    >>> rng = np.random.default_rng(0)
    >>> jobs = pd.DataFrame({"submit": np.sort(rng.uniform(0, 40 * 86400, 400)),
    ...                      "size": rng.integers(1, 33, 400), "runtime": rng.uniform(60, 20000, 400)})
    >>> lines = replay_lines(TagsProblem(jobs, limits=[20], set2=[["public"]]), 0, 0, 1)
    >>> print(lines[1])
    jobs per site: C1 9, C2 2, C3 0, private 0, public 206.
    """
    import numpy as np
    import pandas as pd

    from mopt.core.random import replication_rng
    from mopt.koala.problem import DAY, TagsProblem
    from mopt.tables import format_table

    if not isinstance(problem, TagsProblem):
        return None
    p = problem.decode(problem.design(design))
    jobs = problem.window(replication_rng(seed, rep))
    names, site, start, end, totals = problem.run(jobs, p)
    a = jobs.attrs
    runtime = jobs["runtime"].to_numpy()
    table = pd.DataFrame({"submit": jobs["submit"].to_numpy(), "size": jobs["size"].to_numpy(), "runtime": runtime,
                          "site": np.array(names, dtype=object)[site], "start": start, "end": end,
                          "slowdown": (end - jobs["submit"].to_numpy()) / runtime,
                          "short": np.where(runtime <= p["L1"] * 60.0, "yes", "no")})
    counts = np.bincount(site, minlength=len(names))
    return [f"window: {len(jobs)} jobs submitted from day {(a['begin'] - problem.table['submit'].iloc[0]) / DAY:.2f} "
            f"of the trace for {a['length'] / DAY:.2f} days, arrivals rescaled to an offered load of "
            f"{a['offered_load']:.3f} ({a['span'] / DAY:.2f} days); public-cloud cost ${float(totals[0]):.2f}.",
            "jobs per site: " + ", ".join(f"{n} {int(c)}" for n, c in zip(names, counts, strict=True)) + ".",
            "each job (times in s from the window's start):",
            *format_table(table, formats={"submit": "{:.0f}", "size": "{:.0f}", "runtime": "{:.0f}",
                                          "start": "{:.0f}", "end": "{:.0f}", "slowdown": "{:.3f}"}).splitlines()]
