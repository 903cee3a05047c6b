"""The join of experiments/peers_suite.py: pieces -> the summary table, the verdicts, the curves.

Intervals are 95 %: Student's t for the means of the hypervolume ratio (clipped to [0, 1]) and
the regret (over the runs that made a choice; clipped at 0), Wilson's score interval for
P(correct selection) (a proportion of macroreplications).  "mopt beats a peer" on a score means:
mopt's best method on that score (the highest mean among the mopt methods that ran at that
budget) has its interval entirely above the peer's, i.e. non-overlapping 95 % intervals (the
verdicts are on the HV ratio and P(CS), the issue's goal).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
from _common import markdown_table, plain_log_ticks, plt
from scipy import stats

from mopt.core.result import atomic_write
from mopt.peers import is_peer

Z = 1.959963984540054  # the 97.5 % normal quantile


def t_interval(values) -> tuple[float, float, float, int]:
    """(mean, lo, hi, n) of the finite ``values``, Student's t 95 % interval (NaN for n < 2).

    >>> [round(v, 4) for v in t_interval([1.0, 2.0, 3.0])[:3]]  # 2 ± 4.3027 · 1 / √3
    [2.0, -0.4841, 4.4841]
    """
    x = np.asarray(values, dtype=float)
    x = x[np.isfinite(x)]
    n = len(x)
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(x.mean())
    if n < 2:
        return mean, math.nan, math.nan, n
    half = float(stats.t.ppf(0.975, n - 1) * x.std(ddof=1) / math.sqrt(n))
    return mean, mean - half, mean + half, n


def wilson(successes: float, n: int) -> tuple[float, float, float]:
    """(proportion, lo, hi): Wilson's 95 % score interval.

    >>> [round(v, 4) for v in wilson(15, 30)]
    [0.5, 0.3315, 0.6685]
    >>> [round(v, 4) for v in wilson(30, 30)]
    [1.0, 0.8865, 1.0]
    """
    if n == 0:
        return math.nan, math.nan, math.nan
    p = successes / n
    denom = 1 + Z**2 / n
    centre = (p + Z**2 / (2 * n)) / denom
    half = Z * math.sqrt(p * (1 - p) / n + Z**2 / (4 * n * n)) / denom
    # the bounds at p = 0 and p = 1 are 0 and 1 exactly (rounding would put them a hair inside)
    return p, 0.0 if successes == 0 else max(0.0, centre - half), 1.0 if successes == n else min(1.0, centre + half)


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    """Per instance × budget × method: runs, replications spent, and mean + 95 % interval of
    hv_ratio, pcs, regret (the primary utility) and the regret of every ``regret[...]`` column."""
    extra = [c for c in df.columns if c.startswith("regret[")]
    rows = []
    for (inst, pct, method), g in df.groupby(["instance", "budget_pct", "method"], sort=False):
        ok = g[g["status"] == "ok"]
        row = {"instance": inst, "budget_pct": pct, "budget": int(g["budget"].iloc[0]), "method": method,
               "peer": is_peer(method), "runs": len(ok), "spent": ok["n_evals"].mean() if len(ok) else math.nan}
        hv = t_interval(ok["hv_ratio"])  # a ratio in [0, 1]: its interval clipped there
        row.update(hv=hv[0], hv_lo=max(0.0, hv[1]) if hv[3] > 1 else math.nan,
                   hv_hi=min(1.0, hv[2]) if hv[3] > 1 else math.nan)
        pcs = wilson(float(ok["pcs"].sum()), len(ok))
        row.update(pcs=pcs[0], pcs_lo=pcs[1], pcs_hi=pcs[2])
        reg = t_interval(ok["regret"])  # never negative: its interval clipped at 0
        row.update(regret=reg[0], regret_lo=max(0.0, reg[1]) if reg[3] > 1 else math.nan, regret_hi=reg[2],
                   regret_runs=reg[3])
        for c in extra:
            r = t_interval(ok[c])
            row.update({c: r[0], f"{c}_half": (r[2] - r[1]) / 2 if r[3] > 1 else math.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def verdicts(table: pd.DataFrame) -> pd.DataFrame:
    """Per instance × budget: mopt's best method on hv and on pcs, and the peers it does not beat
    with non-overlapping 95 % intervals."""
    rows = []
    for (inst, pct), g in table.groupby(["instance", "budget_pct"], sort=False):
        ran = g[g["runs"] > 0]
        ours, peers = ran[~ran["peer"]], ran[ran["peer"]]
        row = {"instance": inst, "budget_pct": pct}
        for score in ("hv", "pcs"):
            if ours.empty or ours[score].isna().all():
                row.update({f"best_{score}": "(none ran)", f"not_beaten_{score}": "all"})
                continue
            best = ours.loc[ours[score].idxmax()]
            lo = best[f"{score}_lo"]
            losing = peers[~(peers[f"{score}_hi"] < lo)]
            better = peers[peers[f"{score}_lo"] > best[f"{score}_hi"]]
            row[f"best_{score}"] = f"{best['method']} {_pm(best, score)}"
            row[f"not_beaten_{score}"] = ", ".join(losing["method"]) or "none"
            row[f"peers_above_{score}"] = ", ".join(better["method"]) or "none"
        rows.append(row)
    return pd.DataFrame(rows)


#: the methods of mopt before issue #35 (``auto`` at >= 25 % must not fall below the best of them)
EARLIER = ("exhaustive", "ocba", "mocba", "oo", "nsga2")


def auto_verdict(table: pd.DataFrame, choices: dict | None = None) -> pd.DataFrame:
    """Per instance × budget, ``auto`` against the peers (issue #35's goal): its HV ratio and
    P(CS), the best peer's, the peers whose interval lies entirely above auto's, whether its mean
    HV is at least every peer's, and (from 25 %) whether an earlier mopt method's interval lies
    entirely above it; ``choices`` (instance, budget % -> what auto chose) adds that column."""
    rows = []
    for (inst, pct), g in table.groupby(["instance", "budget_pct"], sort=False):
        ran = g[g["runs"] > 0].set_index("method")
        if "auto" not in ran.index:
            continue
        a, peers = ran.loc["auto"], ran[ran["peer"]]
        row = {"instance": inst, "budget %": f"{pct:g}"}
        if choices:
            row["auto chose"] = choices.get((inst, pct), "")
        row["auto HV"] = _pm(a, "hv")
        best = peers["hv"].idxmax() if len(peers) else None
        row["best peer HV"] = f"{best} {_pm(peers.loc[best], 'hv')}" if best else ""
        row["mean HV >= every peer's"] = "yes" if best is None or a["hv"] >= peers["hv"].max() else "no"
        for score, label in (("hv", "HV"), ("pcs", "P(CS)")):
            above = peers[peers[f"{score}_lo"] > a[f"{score}_hi"]].index
            row[f"peers above, {label}"] = ", ".join(above) or "none"
        row["auto P(CS)"] = _pm(a, "pcs")
        if pct >= 25:
            earlier = ran[ran.index.isin(EARLIER)]
            above = [m for m in earlier.index for sc in ("hv", "pcs") if earlier.loc[m, f"{sc}_lo"] > a[f"{sc}_hi"]]
            row["earlier methods above"] = ", ".join(dict.fromkeys(above)) or "none"
        else:
            row["earlier methods above"] = ""
        rows.append(row)
    return pd.DataFrame(rows)


def best_of_each(table: pd.DataFrame) -> pd.DataFrame:
    """Per instance × budget: the best mopt method and the best peer on each score (highest hv and
    pcs, lowest regret), each as ``method mean [95 % interval]``."""
    rows = []
    for (inst, pct), g in table.groupby(["instance", "budget_pct"], sort=False):
        ran = g[g["runs"] > 0]
        row = {"instance": inst, "budget %": f"{pct:g}"}
        for score, label in (("hv", "HV ratio"), ("pcs", "P(CS)"), ("regret", "regret")):
            for side, part in (("mopt", ran[~ran["peer"]]), ("peer", ran[ran["peer"]])):
                part = part[part[score].notna()]
                if part.empty:
                    row[f"{label}, best {side}"] = ""
                    continue
                best = part.loc[part[score].idxmin() if score == "regret" else part[score].idxmax()]
                row[f"{label}, best {side}"] = f"{best['method']} {_pm(best, score)}"
        rows.append(row)
    return pd.DataFrame(rows)


def _pm(row, score: str) -> str:
    mean, lo, hi = row[score], row[f"{score}_lo"], row[f"{score}_hi"]
    if not np.isfinite(mean):
        return ""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return f"{mean:.3g}"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The summary as printed: one row per method × budget of an instance, scores as mean [95 %]."""
    out = pd.DataFrame({
        "budget %": table["budget_pct"].map(lambda v: f"{v:g}"), "method": table["method"],
        "runs": table["runs"], "replications spent": table["spent"].round(0),
        "HV ratio": [_pm(r, "hv") for _, r in table.iterrows()],
        "P(CS)": [_pm(r, "pcs") for _, r in table.iterrows()],
        "regret": [_pm(r, "regret") for _, r in table.iterrows()],
    })
    out.loc[table["runs"] == 0, ["HV ratio", "P(CS)", "regret"]] = "budget too small"
    return out


def curves(df: pd.DataFrame, table: pd.DataFrame, inst: str, path: Path, caption: str, utility: str) -> None:
    """Progress curves of one instance: HV ratio, P(CS) and regret against replications spent;
    mopt's methods solid with their 95 % intervals as bands, peers dashed with theirs as bars."""
    t = table[(table["instance"] == inst) & (table["runs"] > 0)]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    cmap = plt.get_cmap("tab20")
    for k, (method, g) in enumerate(t.groupby("method", sort=False)):
        colour = cmap(k % 20)
        x = g["spent"].to_numpy()
        for ax, score in zip(axes, ("hv", "pcs", "regret"), strict=True):
            y, lo, hi = g[score].to_numpy(), g[f"{score}_lo"].to_numpy(), g[f"{score}_hi"].to_numpy()
            if is_peer(method):
                ax.errorbar(x, y, yerr=[np.maximum(y - lo, 0), np.maximum(hi - y, 0)], color=colour, ls="--", marker="o", ms=3, lw=1,
                            elinewidth=0.6, capsize=2, alpha=0.8, label=method)
            else:
                ax.plot(x, y, color=colour, ls="-", marker="s", ms=5, lw=2.2, label=method)
                ax.fill_between(x, lo, hi, color=colour, alpha=0.15)
    labels = ("hypervolume ratio (true means)", "P(correct selection)", f"regret of {utility}")
    for ax, label in zip(axes, labels, strict=True):
        ax.set_xscale("log")
        plain_log_ticks(ax, "x")
        ax.set_xlabel("replications spent (mean over macroreplications)")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[2].legend(fontsize=7, ncol=1, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.suptitle(f"{inst}: mopt's methods (solid, bands) and peers (dashed, bars), mean and 95 % interval")
    fig.text(0.01, 0.005, caption, fontsize=7)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    atomic_write(path, lambda p: fig.savefig(p, format="png", dpi=110))
    plt.close(fig)


def write_report(runs: Path, figures: Path, primary: dict, choices: dict | None = None) -> pd.DataFrame:
    """Join the pieces in ``runs`` (every run's row stays there: they are the data) and write
    peers_suite.md and the curves."""
    pieces = sorted(Path(runs).glob("*.csv"))
    if not pieces:
        raise SystemExit(f"no pieces in {runs}: run `python experiments/peers_suite.py run ...` first")
    df = pd.concat([pd.read_csv(p) for p in pieces], ignore_index=True)
    order = {n: k for k, n in enumerate(primary)}
    df = df.sort_values(["instance", "budget_pct", "macrorep"], key=lambda s: s.map(order) if s.name == "instance"
                        else s, kind="stable").reset_index(drop=True)
    records = [json.loads(p.with_suffix(".json").read_text()) for p in pieces if p.with_suffix(".json").exists()]
    records.sort(key=lambda r: (order.get(r["instance"], len(order)), float(r["budget"].rstrip("%")), r["group"]))
    table = summarise(df)
    verdict = verdicts(table[table["budget_pct"] >= 10])
    lines = ["# mopt against its peers (experiments/peers_suite.py)", "",
             "Mean and 95 % interval over macroreplications (Student's t; Wilson for P(CS)); HV ratio of the "
             "observed Pareto set at its true means; P(CS) and regret under each instance's primary utility "
             f"({', '.join(f'{k}: {v}' for k, v in primary.items())}).", "",
             "## Pieces run", "", markdown_table(pd.DataFrame(records)[
                 ["instance", "budget", "group", "replications", "macroreps", "seed", "seconds", "finished"]]) if records else "",
             f"\nTotal wall time of the pieces: {sum(r['seconds'] for r in records):.0f} s.", ""]
    lines += ["## Best of each side", "", "The best mopt method and the best peer on each score "
              "(ties: the first in the order exhaustive, ocba, mocba, oo, nsga2, then the peers).", "",
              markdown_table(best_of_each(table)), ""]
    auto = auto_verdict(table, choices)
    if len(auto):
        lines += ["## `auto` against the peers (issue #35)", "",
                  "Its HV ratio and P(CS) with their 95 % intervals; the peers whose interval lies entirely "
                  "above auto's (the goal: none); whether auto's mean HV is at least every peer's (the goal at "
                  "5 and 10 %); from 25 %, mopt's earlier methods whose interval lies entirely above auto's on "
                  "HV or P(CS) (the goal: none).", "", markdown_table(auto), ""]
    lines += ["## Verdict at budgets ≥ 10 %", "",
              "mopt's best method per score, and the peers whose 95 % interval it does not clear "
              "(\"none\": it beats every peer with non-overlapping intervals); peers above: peers whose "
              "interval is entirely above mopt's best.", "", markdown_table(verdict), ""]
    for inst in df["instance"].unique():
        t = table[table["instance"] == inst]
        lines += [f"## {inst}", "", markdown_table(readable(t)), ""]
        extra = [c for c in t.columns if c.startswith("regret[") and not c.endswith("_half")
                 and t[c].notna().any()]  # this instance's utilities only (the table joins every family's)
        if extra:
            three = t[["budget_pct", "method"]].copy()
            for c in extra:
                three[c] = [f"{m:.4g} ± {h:.2g}" if np.isfinite(m) and np.isfinite(h) else (f"{m:.4g}" if np.isfinite(m) else "")
                            for m, h in zip(t[c], t[f"{c}_half"], strict=True)]
            lines += [f"Regret under the family's three default utilities (mean ± 95 % half-width), {inst}:", "",
                      markdown_table(three), ""]
        n = int(df[df["instance"] == inst].groupby(["method", "budget_pct"]).size().max())
        curves(df, table, inst, figures / f"peers_suite_{inst}.png",
               f"{inst}: {n} macroreplications per method and budget; truth: the stored reference "
               f"(mopt.suite); seed 2525; python experiments/peers_suite.py join", primary[inst])
    text = "\n".join(lines)
    atomic_write(figures / "peers_suite.md", lambda p: Path(p).write_text(text + "\n", encoding="utf-8"))
    print(markdown_table(verdict))
    return table
