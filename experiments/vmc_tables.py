"""The tables of ``vmc_scenarios.py``: Tables 2-4 of Zhang et al. (IEEE TETC 2014) from the runs, in
the paper's sign conventions, with 95 % t-intervals over seeds, beside the paper's numbers, and
per cell whether the sign agrees with the paper's (specification §7).

Three conventions: Table 2, (T_m − T_OO)/T_OO, + = better than OO (Scenario 1); Table 3,
(T_m − T_eOO)/T_eOO, − = worse than eOO (Scenario 2); Table 4, eOO + OCBA's gain
(M_m − M_OCBA)/M_m with makespans, + = OCBA better (Scenario 2; the paper's at 32 VMs only).
"""

from __future__ import annotations

import math

import pandas as pd
from scipy import stats

KINDS = ("LFLD", "LFHD", "HFLD", "HFHD")
LABEL = {"exhaustive": "MC", "blind_pick": "BP", "ioo": "OO/iOO", "eoo": "eOO", "eoo_ocba": "eOO+OCBA"}
#: the paper's Tables 2-4 (percent), per (method, VMs), in the order of KINDS
PAPER2 = {("exhaustive", 16): (6.19, 5.50, 1.19, 0.80), ("exhaustive", 32): (3.18, 3.32, 2.53, 6.48),
          ("exhaustive", 64): (1.29, 3.51, 4.01, 2.96), ("exhaustive", 128): (1.07, 1.60, 0.04, 0.13),
          ("blind_pick", 16): (-1.03, -3.67, -2.97, -4.73), ("blind_pick", 32): (-2.27, -0.83, -3.78, -5.04),
          ("blind_pick", 64): (-2.58, -4.96, -4.78, -2.31), ("blind_pick", 128): (-1.46, -2.07, -0.68, -2.27)}
PAPER3 = {("exhaustive", 16): (-5.88, -12.12, -17.92, -7.12), ("exhaustive", 32): (-8.51, -10.43, -17.71, -10.31),
          ("exhaustive", 64): (-9.56, -12.31, -22.26, -9.63), ("exhaustive", 128): (-16.00, -13.05, -18.68, -29.06),
          ("blind_pick", 16): (0.98, -18.18, -14.41, -7.98), ("blind_pick", 32): (-3.40, -10.43, -12.31, -20.13),
          ("blind_pick", 64): (-5.98, -19.13, -15.09, -16.50), ("blind_pick", 128): (-13.85, -19.48, -18.08, -32.62),
          ("ioo", 16): (-2.94, -8.33, -7.29, -5.56), ("ioo", 32): (-2.13, -3.24, -15.66, -3.18),
          ("ioo", 64): (-2.79, -5.82, -9.48, -7.06), ("ioo", 128): (-2.24, -11.35, -6.06, -14.05)}
PAPER4 = {("exhaustive", 32): (12.64, 18.33, 16.54, 29.68), ("blind_pick", 32): (14.28, 16.53, 15.79, 29.65),
          ("ioo", 32): (8.52, 11.11, 10.65, 23.73), ("eoo", 32): (2.27, 3.63, 2.01, 7.14)}
COLUMNS = ["method", "theta", "workload", "mean", "hw", "n"]


def interval(x: pd.Series) -> tuple[float, float, int]:
    """Mean, 95 % t half-width (NaN with one value) and count."""
    n = len(x)
    hw = stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n) if n > 1 else float("nan")
    return float(x.mean()), float(hw), n


def paired(runs: pd.DataFrame, scenario: int, column: str = "throughput") -> pd.DataFrame:
    """One row per (VMs, workload, seed), one column per method."""
    return runs[runs.scenario == scenario].pivot_table(index=["theta", "workload", "seed"], columns="method",
                                                       values=column)


def relative(runs: pd.DataFrame, scenario: int, ref: str, column: str = "throughput", gain: bool = False):
    """Per cell and method: mean, 95 % half-width and seeds of (x_m − x_ref)/x_ref (``gain``:
    (x_m − x_ref)/x_m, Table 4's OCBA gain with makespans), in percent, over the seeds that ran both."""
    d = paired(runs, scenario, column)
    out = []
    if ref not in d.columns:
        return pd.DataFrame(columns=COLUMNS)
    for m in d.columns:
        if m == ref:
            continue
        out.extend(_cells(((d[m] - d[ref]) / (d[m] if gain else d[ref]) * 100).dropna(), m))
    return pd.DataFrame(out, columns=COLUMNS)  # with its columns when empty (ref ran alone)


def _cells(rel: pd.Series, method: str) -> list[dict]:
    """One row per (VMs, workload) of ``rel`` (indexed by VMs, workload, seed): its interval."""
    return [{"method": method, "theta": theta, "workload": kind, **dict(zip(("mean", "hw", "n"), interval(x), strict=True))}
            for (theta, kind), x in rel.groupby(level=[0, 1])]


def against(sens: pd.DataFrame, main: pd.DataFrame, scenario: int) -> pd.DataFrame:
    """Per cell and method: (T_sens − T_main)/T_main in %, the same method, workload and seed run
    under the main configuration and a changed one (paired); meaningful where the change touches the
    searches only (noise, information), so that both face the same truth."""
    a, b = paired(sens, scenario), paired(main, scenario)
    out = []
    for m in a.columns.intersection(b.columns):
        out.extend(_cells(((a[m] - b[m]) / b[m] * 100).dropna(), m))
    return pd.DataFrame(out, columns=COLUMNS)


def three_tables(runs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Tables 2, 3 and 4 (every size) from one configuration's runs."""
    return (relative(runs, 1, "ioo"), relative(runs, 2, "eoo"),
            relative(runs, 2, "eoo_ocba", column="makespan", gain=True))


def sign(mean: float, hw: float, paper: float | None) -> str:
    """Whether a cell's sign agrees with the paper's: "agrees"/"opposite", and "(n.s.)" when the
    95 % interval includes 0 (or there is no interval); "tie" when the mean is 0."""
    if paper is None or mean != mean:
        return ""
    if abs(mean) < 1e-9:  # the same throughput in every seed (e.g. OO found MC's pick)
        return "tie"
    word = "agrees" if (mean > 0) == (paper > 0) and mean != 0 else "opposite"
    return word if hw == hw and abs(mean) > hw else f"{word} (n.s.)"


def cell(r, paper: float | None = None) -> str:
    s = f"{r['mean']:+.2f} ± {r['hw']:.2f} (n={r['n']})"
    return s if paper is None else f"{s} [paper {paper:+.2f}] {sign(r['mean'], r['hw'], paper)}"


def table_md(rel: pd.DataFrame, methods, paper, title: str) -> str:
    lines = [f"### {title}", "", "| VMs | method | " + " | ".join(KINDS) + " |", "|---|---|" + "---|" * len(KINDS)]
    for m in methods:
        for theta in sorted(rel.theta.unique()):
            cells = []
            for k, kind in enumerate(KINDS):
                x = rel[(rel.method == m) & (rel.theta == theta) & (rel.workload == kind)]
                p = paper.get((m, theta)) if paper else None
                cells.append(cell(x.iloc[0], None if p is None else p[k]) if len(x) else "—")
            lines.append(f"| {theta} | {LABEL.get(m, m)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def agreement(rel: pd.DataFrame, paper) -> str:
    """How many cells with a paper number agree in sign, and how many of those significantly."""
    marks = [sign(r["mean"], r["hw"], paper[(r["method"], r["theta"])][KINDS.index(r["workload"])])
             for _, r in rel.iterrows() if (r["method"], r["theta"]) in paper]
    agree = sum(m.startswith("agrees") for m in marks)
    sig = sum(m == "agrees" for m in marks)
    ties = sum(m == "tie" for m in marks)
    return (f"sign agrees with the paper in {agree} of {len(marks)} cells ({sig} with the interval excluding 0"
            f"{f'; {ties} ties at 0' if ties else ''})")


def tables_md(runs: pd.DataFrame, heading: str) -> list[str]:
    """Tables 2-4 of one configuration's runs, beside the paper's, with the sign agreement."""
    t2, t3, t4 = three_tables(runs)
    parts = []
    for t, methods, paper, title in (
            (t2, ("exhaustive", "blind_pick"), PAPER2,
             "Table 2 (Scenario 1): (T_m − T_OO)/T_OO in %, + = better than OO"),
            (t3, ("exhaustive", "blind_pick", "ioo"), PAPER3,
             "Table 3 (Scenario 2): (T_m − T_eOO)/T_eOO in %, − = worse than eOO"),
            (t4, ("exhaustive", "blind_pick", "ioo", "eoo"), PAPER4,
             "Table 4 (Scenario 2): (M_m − M_OCBA)/M_m with makespans, in %, + = OCBA better "
             "(the paper's at 32 VMs only)")):
        methods = [m for m in methods if m in set(t.method)]
        if methods:
            parts.append(table_md(t, methods, paper, f"{heading}{title}"))
            if any((m, theta) in paper for m in methods for theta in set(t.theta)):
                parts.append(f"Cells with a paper number: {agreement(t[t.method.isin(methods)], paper)}.")
    return parts


def must_holds(runs: pd.DataFrame) -> str:
    """Issue #23's must-holds per cell, paired over seeds: Scenario 1 MC ≥ OO > BP; Scenario 2 iOO
    beats MC; eOO + OCBA's makespan gain over eOO."""
    lines = ["| VMs | workload | S1: MC vs OO, % | S1: BP vs OO, % | S1: MC ≥ OO > BP | S2: iOO vs MC, % | "
             "S2: iOO beats MC | S2: OCBA's makespan gain over eOO, % |", "|---|---|---|---|---|---|---|---|"]
    s1, s2, mk = paired(runs, 1), paired(runs, 2), paired(runs, 2, "makespan")

    def rel(d, m, ref, gain=False):
        if not {m, ref} <= set(d.columns):
            return None
        x = ((d[m] - d[ref]) / (d[m] if gain else d[ref]) * 100).dropna()
        return {key: interval(v) for key, v in x.groupby(level=[0, 1])}

    mc, bp = rel(s1, "exhaustive", "ioo") or {}, rel(s1, "blind_pick", "ioo") or {}
    io, oc = rel(s2, "ioo", "exhaustive") or {}, rel(mk, "eoo", "eoo_ocba", gain=True) or {}
    fmt = lambda v: "—" if v is None else f"{v[0]:+.2f} ± {v[1]:.2f} (n={v[2]})"  # noqa: E731
    counts = {"s1": [0, 0], "s2": [0, 0]}
    for key in sorted({*mc, *bp, *io, *oc}):
        a, b, c = mc.get(key), bp.get(key), io.get(key)
        h1 = h2 = "—"
        if a and b:  # MC ≥ OO: not significantly below; OO > BP: BP significantly below
            ok = not (a[0] + a[1] < 0) and b[0] + b[1] < 0
            h1 = "holds" if ok else "fails"
            counts["s1"][0] += ok
            counts["s1"][1] += 1
        if c:
            ok = c[0] - c[1] > 0
            h2 = "holds" if ok else "fails" if c[0] + c[1] < 0 else "n.s."
            counts["s2"][0] += ok
            counts["s2"][1] += 1
        lines.append(f"| {key[0]} | {key[1]} | {fmt(a)} | {fmt(b)} | {h1} | {fmt(c)} | {h2} | {fmt(oc.get(key))} |")
    lines.append("")
    lines.append(f"Scenario 1, MC ≥ OO > BP (MC's interval not wholly below 0, BP's wholly below 0): holds in "
                 f"{counts['s1'][0]} of {counts['s1'][1]} cells. Scenario 2, iOO beats MC (interval wholly "
                 f"above 0): holds in {counts['s2'][0]} of {counts['s2'][1]} cells.")
    if oc:
        x = ((mk["eoo"] - mk["eoo_ocba"]) / mk["eoo"] * 100).dropna()
        mean, hw, n = interval(x)
        lines.append(f"eOO + OCBA's makespan gain over eOO pooled over its cells' runs: {mean:+.2f} ± {hw:.2f} % "
                     f"(n = {n} cell-seeds; + = OCBA better).")
    return "\n".join(lines)


def config_label(config: dict) -> str:
    return f"noise={config['noise']}, σ/μ={config['cv']:g}, information={config['information']}"
