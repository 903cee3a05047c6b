"""``mopt simulate`` and the option checks it shares with ``mopt portfolio``
(:mod:`mopt.cloud.portfolio_command`); both are registered by the family's ``add_parsers``
(:mod:`mopt.cloud.family`)."""

from __future__ import annotations

import argparse
from pathlib import Path

__all__ = ["add_simulate", "add_vm_key", "check_cloud_options", "named_policy", "report_beside", "run"]

#: the largest exponent of U accepted on the command line (ours): (R_J/R_V)^α of a half-used cloud
#: underflows to 0 from α ≈ 1075 on, and every U with it (the portfolio's gain over a constituent
#: becomes 0/0)
MAX_EXPONENT = 100.0


def add_simulate(sub, run_options) -> argparse.ArgumentParser:
    """Add the ``simulate`` subcommand to the CLI's subparsers."""
    p = sub.add_parser(
        "simulate", help="one cloud scheduling policy over a workload trace (SC13, JSSPP)",
        description="Replay a trace on leased VMs under a policy PROVISIONING-JOBSELECTION-"
                    "VMSELECTION (e.g. ODA-UNICEF-FirstFit); print the summary (R_J, R_V, "
                    "utilisation, mean bounded slowdown, utility, VM-hours) and write one CSV row "
                    "per job.")
    p.add_argument("--trace", required=True, metavar="TRACE",
                   help="archive name (KTH-SP2, SDSC-SP2, CTC-SP2, SDSC-BLUE, LPC-EGEE, LCG), an "
                        "SWF file, or a file name in MOPT_DATA_DIR")
    p.add_argument("--policy", required=True, metavar="POLICY", help="e.g. ODA-UNICEF-FirstFit")
    p.add_argument("--runtime", choices=["actual", "user", "predicted"], default="actual", type=str.lower,
                   help="runtime information the policies see (default: actual)")
    p.add_argument("--boot-delay", type=run_options.non_negative, default=120.0, metavar="S",
                   help="VM boot delay in seconds (default 120)")
    p.add_argument("--max-vms", type=int, default=256, metavar="N",
                   help="cap on leased VMs (default 256)")
    p.add_argument("--size-limit", type=int, default=64, metavar="P",
                   help="keep jobs of at most P processors (default 64, as SC13)")
    p.add_argument("--first", type=run_options.positive_int, default=None, metavar="N",
                   help="only the first N records of the trace (before cleaning, as in every command)")
    add_vm_key(p)
    p.add_argument("--drop-wide", action="store_true",
                   help="drop jobs wider than the cap instead of refusing the trace")
    p.add_argument("--alpha", type=run_options.non_negative, default=1.0, help="utility exponent α")
    p.add_argument("--beta", type=run_options.non_negative, default=1.0, help="utility exponent β")
    run_options(p, None, out_help="per-job CSV (default: ./mopt-simulate-<trace>-<policy>.csv), its report beside it "
                                  "(NAME.report.html)", out_file=True, seed=False,
                parallel=False)
    p.set_defaults(memory_hint="fewer records (--first N), a smaller --size-limit or a lower --max-vms")
    p.set_defaults(func=run)
    return p


def add_vm_key(p) -> None:
    """The ``--vm-key`` option of ``simulate`` and ``portfolio`` (:data:`mopt.cloud.policies.VM_KEYS`;
    the names are spelt here so that ``mopt --help`` imports no Numba)."""
    p.add_argument("--vm-key", choices=["mod", "binpack"], default="mod", type=str.lower,
                   help="BestFit/WorstFit's key: mod, the leftover of the last paid hour (r - t) mod "
                        "3600 (default); binpack, the signed r - t, bin packing in the paid time "
                        "(spec §3). FirstFit is the same under both")


def check_cloud_options(args) -> None:
    """The cloud's options of ``simulate`` and ``portfolio``, checked before the trace is read; each
    error names its option."""
    from mopt.cloud.simulate import MAX_TIME, MAX_VMS
    from mopt.core.errors import check_int, check_number

    if args.max_vms is not None:
        check_int("--max-vms", args.max_vms, low=1, high=MAX_VMS)
    if args.boot_delay is not None:
        check_number("--boot-delay", args.boot_delay, low=0, high=MAX_TIME)
    for name in ("alpha", "beta"):
        check_number(f"--{name}", getattr(args, name), low=0, high=MAX_EXPONENT)


def named_policy(option: str, make):
    """``make()`` (a Policy or a portfolio), its errors naming ``option`` rather than the library's
    argument ('policy', 'portfolio')."""
    from mopt.core.errors import InputError

    try:
        return make()
    except InputError as exc:
        text = str(exc)
        for word in ("'policy'", "'portfolio'"):
            if text.startswith(word):
                raise InputError(f"'{option}'{text[len(word):]}") from None
        raise InputError(f"'{option}': {text}") from None


def run(args) -> int:
    """Run ``mopt simulate``."""
    from mopt.cloud import Policy, simulate
    from mopt.core.errors import InputError
    from mopt.core.outputs import atomic_write, check_out_file
    from mopt.workloads import load_jobs, trace_files

    policy = named_policy("--policy", lambda: Policy(args.policy))
    check_cloud_options(args)
    stem = Path(args.trace).name.split(".")[0]
    out = check_out_file(args.out if args.out is not None else f"mopt-simulate-{stem}-{policy.name}.csv",
                         inputs=trace_files(args.trace))  # before the run
    page = check_out_file(report_beside(out), "--out (its report)", inputs=(out, *trace_files(args.trace)))
    jobs = load_jobs(args.trace, args.size_limit, first=args.first)
    wide = int((jobs["n_procs"] > args.max_vms).sum())
    if wide and not args.drop_wide:
        raise InputError(f"{wide} jobs of {args.trace} need more than '--max-vms' {args.max_vms} VMs; give "
                         f"'--drop-wide', '--size-limit' {args.max_vms} (now {args.size_limit}) or a larger "
                         "'--max-vms'.")
    from mopt._numba_cache import say_if_compiling
    from mopt.cloud.engine import run_ticks, run_to_end

    say_if_compiling("the cloud simulator", run_ticks, run_to_end, quiet=args.quiet)
    result = simulate(jobs, policy, boot_delay=args.boot_delay, max_vms=args.max_vms,
                      runtime=args.runtime, alpha=args.alpha, beta=args.beta,
                      drop_wide=args.drop_wide, progress=not args.quiet, vm_key=args.vm_key)
    atomic_write(out, lambda tmp: result.jobs.to_csv(tmp, index=False))
    s = result.summary
    print(f"{policy.name} on {args.trace} ({s['n_jobs']:,} jobs, {args.runtime} runtimes, boot "
          f"{args.boot_delay:g} s, cap {args.max_vms} VMs"
          f"{'' if args.vm_key == 'mod' else f', VM key {args.vm_key}'})")
    if s["dropped"]:
        print(f"  dropped {s['dropped']:,} jobs wider than the cap")
    if s["missing_req_time"]:
        print(f"  {s['missing_req_time']:,} jobs without a requested time take the largest one "
              f"requested before them")
    print(f"  R_J {s['R_J']:,.0f} VM-s   R_V {s['R_V']:,.0f} VM-s   utilisation {s['utilisation']:.3f}")
    print(f"  mean bounded slowdown {s['bsd']:.3f}   charged {s['vm_hours']:,.0f} VM-hours")
    print(f"  utility U = {s['utility']:.3f} (kappa 100, alpha {args.alpha:g}, beta {args.beta:g})")
    _simulate_report(page, args, policy.name, result)
    print(f"wrote {out}, {page}")
    return 0


def report_beside(out: Path) -> Path:
    """The report page written beside the output file ``out``: ``<name>.report.html``."""
    return out.with_name(f"{out.stem}.report.html")


def _simulate_report(page: Path, args, name: str, result) -> None:
    """``mopt simulate``'s report: every job's bounded slowdown against its submission, the summary."""
    import pandas as pd

    from mopt.report.plotly_asset import plotly_src
    from mopt.report.summary_page import Scatter, write_summary_report

    s = result.summary
    jobs = result.jobs.assign(submit_day=result.jobs["submit"] / 86400.0)
    summary = pd.DataFrame([{"policy": name, "jobs": s["n_jobs"], "R_J [VM-s]": s["R_J"], "R_V [VM-s]": s["R_V"],
                             "utilisation": s["utilisation"], "mean bounded slowdown": s["bsd"],
                             "charged VM-hours": s["vm_hours"], "utility U": s["utility"]}])
    write_summary_report(
        page, title=f"mopt simulate: {name} on {args.trace}", plotly_src=plotly_src(args.report_assets, page),
        lead=f"{s['n_jobs']:,} jobs, {args.runtime} runtimes, boot {args.boot_delay:g} s, at most "
             f"{args.max_vms} VMs: mean bounded slowdown {s['bsd']:.3f}, {s['vm_hours']:,.0f} charged VM-hours.",
        tables=[("Summary", summary)],
        scatter=Scatter(jobs, "submit_day", "bsd", "submission [days from the trace's start]",
                        "bounded slowdown (log)", label="job_id", hover=("wait", "run", "n_procs"), log_y=True),
        facts={"command": "mopt simulate", "trace": args.trace, "policy": name, "runtime": args.runtime,
               "VM key": args.vm_key, "alpha": args.alpha, "beta": args.beta})

