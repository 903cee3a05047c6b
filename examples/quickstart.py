"""Quick start: the ExPERT reference scenario, its Pareto frontier and one decision.

Run with ``python examples/quickstart.py`` (a few seconds once numba has compiled the simulator).
F_s in the reference scenario is a stand-in (a shifted lognormal) for the paper's Fig. 5 CDF,
which is not available as data.
"""

import mopt
from mopt.expert import NTDMrProblem, reference_environment

env = reference_environment(mr_max=0.1)  # ExPERT's "Experiment 11": 150 tasks, 50 unreliable machines
problem = NTDMrProblem(env)  # the paper's grid of (N, T, D, Mr) strategies
result = mopt.solve(problem, "exhaustive", seed=1, n_reps=10)

columns = ["N", "T", "D", "Mr", "makespan", "cost"]
print(f"{result!r}\nPareto frontier (tail-phase makespan [s], cost [cent/task]):")
print(result.front[columns].round({"makespan": 0, "cost": 3}).to_string(index=False))

best = result.best(mopt.utility.product("makespan", "cost"))
print(f"\nbest for makespan x cost: N={best['N']:g} T={best['T']:g} D={best['D']:g} Mr={best['Mr']:g}"
      f" -> {best['makespan']:.0f} s, {best['cost']:.3f} cent/task")
