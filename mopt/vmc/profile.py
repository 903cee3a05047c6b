"""The profiling table: execution time of one task on one VM, per class and cluster size, as data.

The paper (Zhang et al. 2014, Table 1) prints one row: class-2 tasks, 100–110 of them, on 10 small
VMs take N(20, 5²) seconds per task, failure rate 0, utilisation 70–80 %.  That row is kept verbatim
(``source = "paper"``).  Every other row is ours: class means spread over 10–40 s (class 2 at 20 s, as
in the paper's row), σ = 0.25·μ (the paper row's coefficient of variation), and a mild efficiency
loss as a virtual cluster grows (×1.00 up to 10 VMs, ×1.05 up to 32, ×1.10 beyond).  A user replaces
the table with their own DataFrame or CSV with the same columns.

Rows are keyed by ``cls`` (1-based), the task-count range ``[tasks_min, tasks_max]`` and the VM-count
range ``[vms_min, vms_max]``; :func:`lookup` takes the most specific matching row.
"""

from __future__ import annotations

import io
import math
import os

import numpy as np
import pandas as pd

from mopt.core.errors import InputError
from mopt.core.inputs import read_text

__all__ = ["COLUMNS", "default_table", "read_table", "check_table", "lookup", "class_tables"]

COLUMNS = ("cls", "tasks_min", "tasks_max", "vms_min", "vms_max", "mean", "sd", "failure_rate",
           "utilisation_min", "utilisation_max", "source")

#: the paper's row (Table 1), verbatim
PAPER_ROW = {"cls": 2, "tasks_min": 100, "tasks_max": 110, "vms_min": 10, "vms_max": 10, "mean": 20.0,
             "sd": 5.0, "failure_rate": 0.0, "utilisation_min": 0.7, "utilisation_max": 0.8, "source": "paper"}

#: ours: mean seconds per task of classes 1..7 (class 2 as in the paper's row)
DEFAULT_MEANS = (10.0, 20.0, 15.0, 25.0, 30.0, 35.0, 40.0)
#: ours: (vms_min, vms_max, slowdown factor) of the efficiency loss as a cluster grows
EFFICIENCY = ((1, 10, 1.00), (11, 32, 1.05), (33, math.inf, 1.10))


def default_table(n_classes: int = 7, cv: float = 0.25) -> pd.DataFrame:
    """The default profiling table (the paper's row first, then ours).

    ``cv`` is σ/μ of every row (default 0.25, the paper's row's 5/20, which the default keeps
    verbatim; another ``cv`` scales the paper's σ too, a sensitivity run of spec §7, e.g. 0.5).

    Examples
    --------
    >>> t = default_table()
    >>> t.loc[0, ["cls", "mean", "sd", "source"]].to_dict()
    {'cls': 2, 'mean': 20.0, 'sd': 5.0, 'source': 'paper'}
    """
    from mopt.core.errors import check_number

    cv = check_number("cv", cv, low=0)
    rows = [{**PAPER_ROW, "sd": PAPER_ROW["sd"] * cv / 0.25}]
    for c in range(n_classes):
        mu = DEFAULT_MEANS[c % len(DEFAULT_MEANS)]
        for lo, hi, f in EFFICIENCY:
            rows.append({"cls": c + 1, "tasks_min": 0, "tasks_max": math.inf, "vms_min": lo, "vms_max": hi,
                         "mean": mu * f, "sd": cv * mu * f, "failure_rate": 0.0, "utilisation_min": math.nan,
                         "utilisation_max": math.nan, "source": "ours"})
    return pd.DataFrame(rows, columns=list(COLUMNS))


def read_table(path) -> pd.DataFrame:
    """A profiling table from a CSV file with the columns :data:`COLUMNS` (checked)."""
    if not os.path.exists(path):
        raise InputError(f"profiling table {str(path)!r} does not exist.")
    text = read_text(path, "profiling table")  # a regular file, bounded in size and line length
    try:
        table = pd.read_csv(io.StringIO(text))
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(f"profiling table {str(path)!r} is not a readable CSV ({exc}).") from None
    return check_table(table, name=str(path))


def check_table(table, name: str = "table") -> pd.DataFrame:
    """``table`` checked: the columns present, class ≥ 1, ranges ordered, mean > 0, sd ≥ 0."""
    if not isinstance(table, pd.DataFrame):
        raise InputError(f"'{name}' must be a pandas DataFrame; got {type(table).__name__}.")
    missing = [c for c in COLUMNS if c not in table.columns and c != "source"]
    if missing:
        raise InputError(f"profiling table {name!r} lacks column {missing[0]!r}.")
    if len(table) == 0:
        raise InputError(f"profiling table {name!r} has no rows.")
    num = table[["cls", "tasks_min", "tasks_max", "vms_min", "vms_max", "mean", "sd"]]
    try:
        arr = num.to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"profiling table {name!r} must hold numbers in cls..sd.") from None
    for k, row in enumerate(arr):
        cls, tmin, tmax, vmin, vmax, mean, sd = row
        where = f"profiling table {name!r}, row {k + 1}"
        if not (cls >= 1 and cls == math.floor(cls)):
            raise InputError(f"{where}: 'cls' must be an integer >= 1; got {cls:g}.")
        if not (0 <= tmin <= tmax) or not (1 <= vmin <= vmax):
            raise InputError(f"{where}: the task and VM ranges must be ordered and non-negative.")
        if not (math.isfinite(mean) and mean > 0):
            raise InputError(f"{where}: 'mean' must be a finite number > 0; got {mean:g}.")
        if not (math.isfinite(sd) and sd >= 0):
            raise InputError(f"{where}: 'sd' must be a finite number >= 0; got {sd:g}.")
    return table.reset_index(drop=True)


def _columns(table: pd.DataFrame) -> dict:
    return {k: table[k].to_numpy(float) for k in ("cls", "tasks_min", "tasks_max", "vms_min", "vms_max",
                                                  "mean", "sd")}


def _lookup(col: dict, cls: int, vms: int, tasks: float | None) -> tuple[float, float]:
    tmin, tmax = col["tasks_min"], col["tasks_max"]
    t = (tmin == 0) & np.isinf(tmax) if tasks is None else (tmin <= tasks) & (tasks <= tmax)
    ok = (col["cls"] == cls) & (col["vms_min"] <= vms) & (vms <= col["vms_max"]) & t
    rows = np.flatnonzero(ok)
    if rows.size == 0:
        raise InputError(f"profiling table has no row for class {cls} on {vms} VMs"
                         + ("" if tasks is None else f" with {tasks:g} tasks") + ".")
    width = (col["vms_max"] - col["vms_min"])[rows]
    best = rows[np.lexsort(((tmax - tmin)[rows], width))[0]]
    return float(col["mean"][best]), float(col["sd"][best])


def lookup(table: pd.DataFrame, cls: int, vms: int, tasks: float | None = None) -> tuple[float, float]:
    """``(mean, sd)`` of one task on one VM of class ``cls`` in a cluster of ``vms`` VMs.

    The matching row with the narrowest VM range, then the narrowest task range, wins; ``tasks``
    None matches only rows whose task range starts at 0 and is unbounded (the simulator's case).

    Examples
    --------
    >>> t = default_table()
    >>> lookup(t, 2, 10, tasks=105), lookup(t, 2, 10), lookup(t, 2, 40)
    ((20.0, 5.0), (20.0, 5.0), (22.0, 5.5))
    """
    return _lookup(_columns(table), cls, vms, tasks)


_CACHE: dict = {}


def class_tables(table: pd.DataFrame, n_classes: int, theta: int) -> tuple[np.ndarray, np.ndarray]:
    """Arrays ``mean[c, v]`` and ``sd[c, v]`` for classes 0..C−1 and cluster sizes v = 0..θ (v = 0 unused).

    Cached by the table's content (the arrays are read-only).
    """
    from mopt.vmc.space import MAX_CLASSES, MAX_THETA

    if not 1 <= n_classes <= MAX_CLASSES or not 1 <= theta <= MAX_THETA:
        raise InputError(f"the profiling arrays hold at most {MAX_CLASSES} classes and {MAX_THETA:,} VMs; got "
                         f"{n_classes} classes and {theta} VMs.")
    col = _columns(table)
    key = (b"".join(a.tobytes() for a in col.values()), n_classes, theta)
    if key not in _CACHE:
        mean = np.full((n_classes, theta + 1), np.nan)
        sd = np.full((n_classes, theta + 1), np.nan)
        # lookup(table, c + 1, v) for every v at once: the rows of class c whose task range is
        # [0, inf), in lookup's order (narrowest VM range, then task range, then the table's order)
        vms = np.arange(1, theta + 1)
        whole = (col["tasks_min"] == 0) & np.isinf(col["tasks_max"])
        width, twidth = col["vms_max"] - col["vms_min"], col["tasks_max"] - col["tasks_min"]
        for c in range(n_classes):
            rows = np.flatnonzero(whole & (col["cls"] == c + 1))
            rows = rows[np.lexsort((twidth[rows], width[rows]))]
            ok = (col["vms_min"][rows, None] <= vms) & (vms <= col["vms_max"][rows, None])
            covered = ok.any(axis=0)
            if not covered.all():
                raise InputError(f"profiling table has no row for class {c + 1} on {vms[~covered][0]} VMs.")
            best = rows[ok.argmax(axis=0)]
            mean[c, 1:], sd[c, 1:] = col["mean"][best], col["sd"][best]
        mean.flags.writeable = sd.flags.writeable = False
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[key] = (mean, sd)
    return _CACHE[key]
