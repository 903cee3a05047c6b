"""What happened in one replication of a portfolio mix: the family's ``replay`` hook.

``mopt replay DIR --design I --rep R`` (:func:`mopt.core.replay.replay`) asks it about a
:class:`~mopt.cloud.PortfolioProblem`: the replication's workload (which window of the trace, or
which synthetic pattern), the run's totals, how often the portfolio scheduler chose each policy of
the mix, and the per-job table (submit, run, processors, start, end, wait, bounded slowdown).
"""

from __future__ import annotations

__all__ = ["replay_lines"]


def replay_lines(problem, design: int, rep: int, seed: int) -> list[str] | None:
    """Lines telling replication ``rep`` of ``design`` (seed entropy ``seed``); None for a problem
    that is not a :class:`~mopt.cloud.PortfolioProblem`.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from mopt.cloud import PortfolioProblem
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"submit_time": np.arange(40) * 600, "run_time": rng.integers(60, 4000, 40),
    ...                    "n_procs": rng.integers(1, 5, 40)})
    >>> lines = replay_lines(PortfolioProblem(df, window=10), 7, 0, 1)
    >>> print(lines[0])
    mix SS, beta/alpha = 1.0; workload: jobs 0 .. 9 of the trace jobs (a window of 10).
    >>> print(lines[2])
    no selection: ODS-SJF-FirstFit ran throughout.
    >>> len(lines) == 4 + 1 + 10  # the table: a header and one row per job
    True
    """
    from mopt.cloud.portfolio_problem import PortfolioProblem
    from mopt.tables import format_table

    if not isinstance(problem, PortfolioProblem):
        return None
    params = problem.decode(problem.design(design))
    jobs, algorithm_seed = problem.workload_of(rep, seed)
    if problem.workload == "trace":
        first = jobs.attrs["first"]
        workload = (f"jobs {first} .. {first + len(jobs) - 1} of the trace {problem.trace} "
                    f"(a window of {len(jobs)})")
    else:
        workload = (f"{len(jobs)} jobs of the synthetic pattern {jobs.attrs['pattern']}, runtimes drawn "
                    f"from the trace {problem.trace}")
    run = problem.run(design, jobs, algorithm_seed)
    s = run.summary
    lines = [f"mix {params['mix']}, beta/alpha = {params['beta_over_alpha']}; workload: {workload}.",
             f"run: mean bounded slowdown {s['bsd']!r}, {s['vm_hours']!r} charged VM-hours, utilisation "
             f"{s['utilisation']:.3f}; {s['selections']} selections, {s['online_simulations']} online simulations "
             f"(Algorithm 1's seed {algorithm_seed})."]
    if s["selections"]:
        shares = run.shares()
        never = int((shares == 0).sum())
        lines.append("policies chosen (share of selections): "
                     + ", ".join(f"{name} {share:.2f}" for name, share in shares[shares > 0].items())
                     + (f"; the other {never} never." if never else "."))
    else:  # before the first selection the mix's first policy is active
        lines.append(f"no selection: {run.portfolio[0].name} ran throughout.")
    lines.append("each job:")
    lines += format_table(run.jobs, ["job_id", "submit", "run", "n_procs", "start", "end", "wait", "bsd"],
                          {"job_id": "{:.0f}", "submit": "{:.0f}", "run": "{:.0f}", "n_procs": "{:.0f}",
                           "start": "{:.0f}", "end": "{:.0f}", "wait": "{:.0f}", "bsd": "{:.3f}"}).splitlines()
    return lines
