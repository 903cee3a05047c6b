"""A plain-Python model of one period of virtual clusters (reference implementation).

Independent of ``mopt.vmc.engine`` (which compiles the same rules per class and cluster size with
Numba): this walks one schedule and one replication at a time, sub-interval by sub-interval and
class by class, exactly as the specification states the corrected Algorithm 1:

    δ_c = backlog_c + Δδ_c; β_c = θ_c / p_c
    if δ_c / β_c > L: CET_c = L, backlog_c = δ_c − β_c·L   else: CET_c = δ_c / β_c, backlog_c = 0
    EET = max_c CET_c
    objective = Σ_j EET_j + max_c backlog_c(end) / β_c(last sub-interval)

with p_c = max(ε·μ, μ + σ·z[j, c]), μ and σ looked up in the profiling table for θ_c VMs.
``tests/vmc/test_reference.py`` checks that both give the same replications.
"""

from __future__ import annotations

from mopt.vmc.profile import lookup


def clear_time(schedule, z, lengths, arrivals, backlog, table, eps_frac):
    """Objective of one schedule in one replication (``z[j][c]`` its normals)."""
    C = len(schedule)
    b = [float(x) for x in backlog]
    total = 0.0
    beta = [0.0] * C
    for j, L in enumerate(lengths):
        eet = 0.0
        for c in range(C):
            mu, sd = lookup(table, c + 1, int(schedule[c]))
            p = max(eps_frac * mu, mu + sd * z[j][c])
            beta[c] = schedule[c] / p
            delta = b[c] + arrivals[j][c]
            if delta / beta[c] > L:
                cet, b[c] = L, delta - beta[c] * L
            else:
                cet, b[c] = delta / beta[c], 0.0
            eet = max(eet, cet)
        total += eet
    return total + max(b[c] / beta[c] for c in range(C))


def replicate(problem, indices, reps, entropy):
    """Replications of a :class:`~mopt.vmc.problem.VMPartitionProblem`, one loop iteration each,
    with the problem's own normals (shared under ``noise="common"``, each schedule's own otherwise)."""
    from mopt.vmc.noise import independent_normals
    from mopt.vmc.problem import EPS_FRACTION

    J, C = problem.arrivals.shape
    out = []
    for i, s in zip(indices, problem.schedules(indices).tolist(), strict=True):
        if problem.noise == "common":
            Z = problem.normals(reps, entropy)
        else:
            Z = independent_normals(entropy, problem._ranks([i]), reps, J, C)[0]
        out.append([clear_time(s, Z[k].tolist(), problem.lengths.tolist(), problem.arrivals.tolist(),
                               problem.backlog.tolist(), problem.table, EPS_FRACTION) for k in range(len(reps))])
    return out


def replicate_numpy(problem, indices, n_reps, rng):
    """``n_reps`` replications of each schedule with its own z drawn by numpy's ``rng`` (the
    paper's noise model, independent of mopt's generator): for comparisons in distribution."""
    from mopt.vmc.problem import EPS_FRACTION

    J, C = problem.arrivals.shape
    out = []
    for s in problem.schedules(indices).tolist():
        Z = rng.standard_normal((n_reps, J, C))
        out.append([clear_time(s, Z[k].tolist(), problem.lengths.tolist(), problem.arrivals.tolist(),
                               problem.backlog.tolist(), problem.table, EPS_FRACTION) for k in range(n_reps)])
    return out
