"""Workloads: Standard Workload Format traces and synthetic arrivals, for every family.

:func:`read_swf` reads a Standard Workload Format trace (plain or gzip) and :func:`find_trace`
finds one by name through ``MOPT_DATA_DIR``; :func:`clean` drops the jobs the papers drop;
:func:`load_trace` loads a Parallel Workloads Archive trace by name (:data:`TRACES`), fetching it
with a sha256 check (:func:`fetch`) when it is not on disk; :func:`resolve_trace` is the one
resolver of a trace argument (an archive name or a file) that every command uses; :func:`synthetic`
builds JSSPP's arrival patterns (:data:`PATTERNS`).

Examples
--------
>>> from mopt.workloads import TRACES
>>> "KTH-SP2" in TRACES
True
"""

from __future__ import annotations

from mopt.workloads.swf import SWF_COLUMNS, find_trace, read_swf
from mopt.workloads.synthetic import PATTERNS, synthetic
from mopt.workloads.traces import (
           TRACES,
           FetchError,
           archive_name,
           clean,
           fetch,
           fetch_cache,
           load_jobs,
           load_trace,
           resolve_trace,
           trace_files,
)

__all__ = ["SWF_COLUMNS", "find_trace", "read_swf", "TRACES", "FetchError", "clean", "fetch", "fetch_cache", "load_jobs", "load_trace",
           "archive_name", "resolve_trace", "trace_files", "PATTERNS", "synthetic"]
