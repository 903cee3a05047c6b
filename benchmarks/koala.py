"""KOALA-C simulator speed (DESIGN §8): one policy over the whole KTH-SP2 trace (<= 32 processors).

    MOPT_DATA_DIR=... python benchmarks/koala.py [--repeat 3]

Target: <= 0.3 s per policy for ``simulate`` (the whole call: job table, engine, metrics), measured
after a warm-up run (Numba's cache load) and reported as the best of ``--repeat`` runs, with the
machine's load average. Also prints the plain-Python reference model's time on 2,000 jobs.
"""

from __future__ import annotations

import argparse
import math
import os
import time

from mopt.koala import (
    FF,
    HSDF,
    RR,
    SJF,
    SJFIdeal,
    TagsChain,
    TagsSets,
    koala_trace,
    multicloud,
    multicluster,
    simulate,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    kth = koala_trace("KTH-SP2")
    env5 = multicloud()
    cases = [
        ("FF", FF(), multicluster(1)), ("RR", RR(), multicluster(1)), ("SJF", SJF(), multicluster(1)),
        ("SJF-ideal", SJFIdeal(), multicluster(1)), ("HSDF", HSDF(), multicluster(1)),
        ("TAGS-chain 25 min", TagsChain([1500, math.inf]), multicluster(1)),
        ("FF, five sites", FF(), env5),
        ("TAGS-sets 40 min", TagsSets([env5.names, ["C3", "private", "public"]], [2400, math.inf]), env5),
    ]  # fmt: skip
    print(f"KTH-SP2: {len(kth):,} jobs <= 32 processors; load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    worst = 0.0
    for name, policy, env in cases:
        simulate(kth, policy, env)  # warm-up
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            simulate(kth, policy, env)
            times.append(time.perf_counter() - t0)
        worst = max(worst, min(times))
        print(f"  {name:<20} {min(times):.3f} s")
    print(f"slowest policy {worst:.3f} s (target <= 0.3 s): {'met' if worst <= 0.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
