"""Cloud portfolio scheduling and KOALA-C (DESIGN §6).

For now this holds the workload traces: :func:`read_swf` reads a Standard Workload Format trace
(plain or gzip) into a DataFrame and :func:`find_trace` finds one through ``MOPT_DATA_DIR``. The
cloud simulator, its policies and the portfolio scheduler come later.
"""

from __future__ import annotations

from mopt.cloud.swf import SWF_COLUMNS, find_trace, read_swf

__all__ = ["SWF_COLUMNS", "find_trace", "read_swf"]
