"""Check that a change to the core or the solvers leaves every method's results bit-identical.

Runs every method of ``mopt.solve`` (with and without options and budgets, several seeds) on
ExPERT's reference problem and on synthetic NormalProblems, and either saves the results
(``--save FILE``, before the change) or compares them exactly with a saved file (``--check FILE``,
after it): ``Result.evaluations`` (every value, bit for bit), ``n_evals`` and ``info``.

    git stash; PYTHONPATH=$PWD python benchmarks/identity_check.py --save /tmp/before.pkl; git stash pop
    PYTHONPATH=$PWD python benchmarks/identity_check.py --check /tmp/before.pkl
"""

from __future__ import annotations

import argparse
import pickle
import sys

import numpy as np

import mopt
from mopt.expert import NTDMrProblem, reference_environment


def cases():
    """(name, problem, method, seed, keyword arguments of mopt.solve)."""
    ntdmr = NTDMrProblem(reference_environment(0.1), n_reps=5, seed=1)
    rng = np.random.default_rng(7)
    two = mopt.NormalProblem(rng.uniform(0, 10, (60, 2)), sd=1.5, n_reps=6)
    one = mopt.NormalProblem(rng.uniform(0, 10, 40), sd=2.0, n_reps=6)
    runs = [
        ("exhaustive", {}), ("exhaustive", {"budget": 400}), ("blind_pick", {"alpha": 0.3}),
        ("blind_pick", {"budget": 100}), ("oo", {}), ("oo", {"alpha": 0.5, "s": 5}), ("oo", {"budget": 300}),
        ("ocba", {"budget": 1200}), ("ocba", {"budget": 1200, "n0": 3, "delta": 40}), ("mocba", {"budget": 1200}),
        ("mocba", {"budget": 1200, "n0": 4}), ("nsga2", {"budget": 1200, "pop_size": 12}), ("nsga2", {}),
    ]
    for name, problem in (("ntdmr", ntdmr), ("normal2", two), ("normal1", one)):
        for seed in (1, 2):
            for method, kwargs in runs:
                if name == "ntdmr" and (seed == 2 or method == "nsga2" and not kwargs):
                    continue  # keep the check short
                yield name, problem, method, seed, kwargs


def results() -> dict:
    out = {}
    for name, problem, method, seed, kwargs in cases():
        res = mopt.solve(problem, method, seed=seed, **kwargs)
        key = (name, method, seed, tuple(sorted(kwargs.items())))
        out[key] = (res.evaluations, res.n_evals, res.info)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--save", metavar="FILE")
    group.add_argument("--check", metavar="FILE")
    args = parser.parse_args()
    now = results()
    if args.save:
        with open(args.save, "wb") as fh:
            pickle.dump(now, fh)
        print(f"saved {len(now)} results to {args.save}")
        return 0
    with open(args.check, "rb") as fh:
        before = pickle.load(fh)
    bad = []
    for key, (ev, n, info) in before.items():
        ev2, n2, info2 = now[key]
        same = ev.equals(ev2) and list(ev.columns) == list(ev2.columns) and n == n2 and info == info2
        if not same:
            bad.append(key)
    print(f"{len(before) - len(bad)} of {len(before)} results bit-identical")
    for key in bad:
        print("DIFFERENT:", key)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
