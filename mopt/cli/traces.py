"""``mopt traces list|describe|fetch``: the SWF workload traces in MOPT_DATA_DIR."""

from __future__ import annotations

import os
from pathlib import Path

from mopt.cli.options import positive_int
from mopt.core.errors import InputError

__all__ = ["add_parser", "run"]


def add_parser(sub) -> None:
    """Add the ``traces`` subcommand to ``sub`` (an argparse subparsers object)."""
    traces = sub.add_parser(
        "traces", help="workload traces (SWF): list those in MOPT_DATA_DIR and the cache, describe or fetch one",
        description="'traces list' shows the SWF traces in the directory named by MOPT_DATA_DIR and "
                    "in the fetch cache; "
                    "'traces describe TRACE' reads one (a path, or a file name in MOPT_DATA_DIR) and "
                    "prints its header, job counts before and after cleaning, and job statistics; "
                    "'traces fetch NAME' downloads an archive trace (KTH-SP2, SDSC-SP2, CTC-SP2, "
                    "SDSC-BLUE, LPC-EGEE, LCG) into the cache, checking its sha256.",
    )
    traces.add_argument("action", choices=["list", "describe", "fetch"])
    traces.add_argument("trace", nargs="?", metavar="TRACE", help="for describe: a path or a trace name; for fetch: an archive name")
    traces.add_argument("--size-limit", type=positive_int, default=None, metavar="P",
                        help="for describe: also count jobs of at most P processors (64 in SC13)")
    traces.set_defaults(func=run)


def run(args) -> int:
    """Run ``mopt traces`` with parsed ``args``; return the exit code."""
    from mopt.workloads import read_swf, resolve_trace

    if args.action == "fetch":
        return fetch(args)

    if args.action == "list":
        if args.trace is not None:
            raise InputError(f"'traces list' takes no TRACE; got {args.trace!r}.")
        return list_traces()
    if args.trace is None:
        raise InputError("'traces describe' needs a TRACE (a path or a trace name in MOPT_DATA_DIR).")
    path = resolve_trace(args.trace, option="TRACE")
    df = read_swf(path)
    header, n_records = df.attrs["header"], len(df)
    del df  # one trace in memory at a time: the cleaned one is read next
    print(f"{path}: {n_records} job records")
    for key in ("Computer", "Installation", "MaxProcs", "MaxNodes", "StartTime", "EndTime"):
        if key in header:
            print(f"  {key}: {header[key]}")
    cleaned = read_swf(path, clean=True)
    print(f"after cleaning (run time > 0, 1 .. MaxProcs processors): {len(cleaned)} jobs")
    if args.size_limit is not None:
        print(f"of at most {args.size_limit} processors: "
              f"{int((cleaned['n_procs'] <= args.size_limit).sum())} jobs")
    if len(cleaned):
        run_time, procs = cleaned["run_time"], cleaned["n_procs"]
        span = (cleaned["submit_time"].max() - cleaned["submit_time"].min()) / 86400
        print(f"run time [s]: median {run_time.median():.0f}, mean {run_time.mean():.0f}, max {run_time.max():.0f}; "
              f"processors: median {procs.median():.0f}, max {procs.max()}; submissions over {span:.1f} days")
    return 0


def list_traces() -> int:
    """``mopt traces list``: the SWF traces in ``MOPT_DATA_DIR`` (if set) and in the fetch cache
    (:func:`mopt.workloads.fetch_cache`, where ``mopt traces fetch`` puts them)."""
    from mopt.workloads import fetch_cache

    directory = os.environ.get("MOPT_DATA_DIR")
    if directory and not Path(directory).is_dir():
        raise InputError(f"MOPT_DATA_DIR={directory!r} is not a directory of SWF traces.")
    folders = ([(f"MOPT_DATA_DIR {directory}", Path(directory))] if directory else []) + [
        (f"fetch cache {fetch_cache()}", fetch_cache())]
    for label, folder in folders:
        names = sorted(p.name for p in folder.iterdir() if ".swf" in p.name) if folder.is_dir() else []
        print(f"{label}: {len(names)} trace{'s' if len(names) != 1 else ''}")
        for name in names:
            print(f"  {name}")
    if not directory:
        print("(MOPT_DATA_DIR is not set: set it to the folder that holds your SWF traces; "
              "mopt traces fetch NAME downloads an archive trace into the cache)")
    return 0


def fetch(args) -> int:
    """Run ``mopt traces fetch NAME``: download an archive trace into the cache."""
    import sys

    from mopt.workloads import TRACES, archive_name, resolve_trace
    from mopt.workloads import fetch as fetch_trace

    if args.trace is None:
        raise InputError(f"'traces fetch' needs a NAME ({', '.join(TRACES)}).")
    key = archive_name(args.trace)
    try:
        path = resolve_trace(key, fetch_missing=False) if key is not None else None
    except InputError:  # not in MOPT_DATA_DIR: download it
        path = None
    if path is not None:
        print(f"{key}: already in MOPT_DATA_DIR: {path} ({os.path.getsize(path)} bytes); nothing downloaded")
        return 0
    path = fetch_trace(args.trace, progress=sys.stderr.isatty())
    print(f"{args.trace}: {path} ({os.path.getsize(path)} bytes, sha256 checked)")
    return 0
