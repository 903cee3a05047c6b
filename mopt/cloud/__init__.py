"""Cloud scheduling on workload traces (DESIGN §6; SC13, JSSPP).

Traces: :func:`read_swf` reads a Standard Workload Format trace and :func:`find_trace` finds one
through ``MOPT_DATA_DIR``; :func:`clean`, :func:`load_trace` (by archive name, fetched with a
sha256 check when missing) and :func:`synthetic` (JSSPP's arrival patterns). The simulator: :class:`Policy` and :func:`simulate` (a compiled event
loop over a copyable :class:`~mopt.cloud.engine.CloudState`, see :mod:`mopt.cloud.engine`).
The portfolio scheduler: :func:`portfolio` (SC13's 60, JSSPP's 10 or a list of policies),
:func:`simulate_portfolio` and SC13's Algorithm 1, :class:`TimeConstrainedSelection`.
"""

from __future__ import annotations

from mopt.cloud.policies import (
    JOB_SELECTION,
    PROVISIONING,
    RUNTIMES,
    VM_SELECTION,
    Policy,
    sc13_policies,
)
from mopt.cloud.portfolio_scheduler import PortfolioRun, simulate_portfolio
from mopt.cloud.portfolios import jsspp_code, portfolio, portfolio_names
from mopt.cloud.selection import TimeConstrainedSelection
from mopt.cloud.simulate import CloudRun, simulate, utility
from mopt.cloud.swf import SWF_COLUMNS, find_trace, read_swf
from mopt.cloud.traces import PATTERNS, TRACES, FetchError, clean, fetch, load_trace, synthetic

__all__ = [
    "SWF_COLUMNS", "find_trace", "read_swf", "Policy", "PROVISIONING", "JOB_SELECTION",
    "VM_SELECTION", "RUNTIMES", "sc13_policies", "CloudRun", "simulate", "utility",
    "PATTERNS", "TRACES", "FetchError", "clean", "fetch", "load_trace", "synthetic",
    "portfolio", "portfolio_names", "jsspp_code", "TimeConstrainedSelection", "simulate_portfolio",
    "PortfolioRun",
]
