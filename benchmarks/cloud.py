"""Speed of the cloud simulator (DESIGN §8; spec §8).

* one policy (ODA-UNICEF-FirstFit) over the whole KTH-SP2 trace (≤ 64 processors, 28,147 jobs),
  after compilation: target ≤ 0.3 s;
* the same over LPC-EGEE (214,322 jobs);
* jobs per second for each of SC13's 60 policies on KTH-SP2;
* the independent plain-Python model (tests/reference/cloud_model.py) on a KTH-SP2 slice, for scale.

Each time is the best of ``--repeat`` runs (default 3). Needs ``MOPT_DATA_DIR``. Run from the
repository root: ``PYTHONPATH=$PWD python benchmarks/cloud.py [--quick]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the repo root: mopt, tests.reference

import numpy as np

from mopt.cloud import sc13_policies, simulate
from mopt.workloads import load_trace

CPU = {"best": np.inf}


def best_of(repeat: int, fn) -> float:
    """Best wall time of ``repeat`` calls (the best CPU time goes to ``CPU["best"]``)."""
    best = cpu = np.inf
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        fn()
        best = min(best, time.perf_counter() - t0)
        cpu = min(cpu, time.process_time() - c0)
    CPU["best"] = cpu
    return best


def _model():
    from tests.reference import cloud_model

    return cloud_model


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip LPC-EGEE and the 60 policies")
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    kth = load_trace("KTH-SP2", size_limit=64)
    t0 = time.perf_counter()
    simulate(kth.head(50), "ODA-UNICEF-FirstFit")
    print(f"first call (compilation or cache load): {time.perf_counter() - t0:.2f} s")
    policy = "ODA-UNICEF-FirstFit"
    t = best_of(args.repeat, lambda: simulate(kth, policy))
    print(f"KTH-SP2 {len(kth)} jobs, {policy}: {t:.3f} s wall, {CPU['best']:.3f} s CPU "
          f"({len(kth) / t:,.0f} jobs/s; target <= 0.3 s)")
    # the engine alone, without the DataFrame work around it
    from mopt.cloud import engine as E
    from mopt.cloud.policies import Policy
    from mopt.cloud.simulate import prepare_jobs

    table, _, info = prepare_jobs(kth)

    def engine_only():
        state = E.CloudState.start(table, n_users=info["n_users"])
        state.advance(table, Policy(policy).codes)

    t = best_of(args.repeat, engine_only)
    print(f"  of which the compiled loop: {t:.3f} s wall, {CPU['best']:.3f} s CPU")
    if not args.quick:
        lpc = load_trace("LPC-EGEE", size_limit=64)
        t = best_of(args.repeat, lambda: simulate(lpc, policy))
        print(f"LPC-EGEE {len(lpc)} jobs, {policy}: {t:.3f} s wall, {CPU['best']:.3f} s CPU "
              f"({len(lpc) / t:,.0f} jobs/s)")
        times = []
        for p in sc13_policies():
            times.append((best_of(1, lambda p=p: simulate(kth, p)), p.name))
        rates = np.array([len(kth) / s for s, _ in times])
        slow = max(times)
        print(f"SC13's 60 policies on KTH-SP2: {sum(s for s, _ in times):.1f} s in all; jobs/s "
              f"min {rates.min():,.0f}, median {np.median(rates):,.0f}, max {rates.max():,.0f} "
              f"(slowest {slow[1]}, {slow[0]:.3f} s)")
        for s, name in sorted(times, reverse=True)[:5]:
            print(f"  {name:22s} {s:.3f} s")
    model = _model()
    part = kth.head(300)
    jobs = [{"submit": float(r.submit_time), "run": float(r.run_time), "req": float(r.req_time),
             "n": int(r.n_procs), "user": int(r.user_id)} for r in part.itertuples()]
    t_model = best_of(1, lambda: model.run_model(jobs, policy))
    t_engine = best_of(args.repeat, lambda: simulate(part, policy))
    print(f"plain-Python model, first 300 KTH-SP2 jobs: {t_model:.2f} s vs engine "
          f"{t_engine * 1e3:.1f} ms ({t_model / t_engine:,.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
