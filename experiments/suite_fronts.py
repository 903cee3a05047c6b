"""The benchmark suite's reference tables: every design's objective means at a high replication count.

Run from the repository root::

    python experiments/suite_fronts.py              # every instance
    python experiments/suite_fronts.py expert vmc   # some

For each instance of :func:`mopt.suite`, exhaustive search with the instance's ``truth_reps``
replications per design and its ``truth_seed`` (:meth:`mopt.suite.Instance.compute_reference`),
written to ``mopt/suite_data/<name>.csv`` with a header of ``#`` lines: this command, the seed,
the replications, mopt's version and the wall time.  Same command, same numbers (the wall time
aside).
"""

from __future__ import annotations

import argparse
import time
from importlib.metadata import version
from pathlib import Path

import mopt
from mopt.core.pareto import pareto_mask
from mopt.suite import reference_text

DATA = Path(__file__).resolve().parent.parent / "mopt" / "suite_data"


def main(argv=None) -> None:
    instances = mopt.suite()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(instances), metavar="NAME",
                        help=f"instances, from {', '.join(instances)} (default: all)")
    args = parser.parse_args(argv)
    chosen = [instances[name] for name in args.names]  # an unknown name: InputError naming it
    for inst in chosen:
        start = time.perf_counter()
        table = inst.compute_reference()
        seconds = time.perf_counter() - start
        prob = inst.problem
        header = {"instance": inst.name, "description": inst.description, "command": inst.command,
                  "seed": inst.truth_seed, "replications per design": inst.truth_reps,
                  "designs": prob.n_designs, "objectives": ", ".join(prob.objectives),
                  "mopt": version("mopt"), "wall time": f"{seconds:.0f} s"}
        (DATA / f"{inst.name}.csv").write_text(reference_text(table, header))
        front = int(pareto_mask(table[list(prob.objectives)].to_numpy()).sum())
        print(f"{inst.name}: {prob.n_designs} designs x {inst.truth_reps} replications in {seconds:.0f} s; "
              f"{front} on the reference front -> {DATA / (inst.name + '.csv')}", flush=True)


if __name__ == "__main__":
    main()
