"""SC13's 60 scheduling policies on whole traces: the slowdown-cost picture of SC13 Fig. 4.

Runs {ODA, ODB, ODE, ODM, ODX} × {FCFS, LXF, UNICEF, WFP3} × {BestFit, FirstFit, WorstFit} over
the whole KTH-SP2, SDSC-SP2 and LPC-EGEE traces (jobs of at most 64 processors; boot 120 s,
20 s ticks, 256 VMs, actual runtimes; U with κ = 100, α = β = 1) and writes
``figures/cloud_policies.png`` (mean bounded slowdown against charged VM-hours, every policy,
the best of each provisioning group ringed) and ``figures/cloud_policies.md`` (the best policy
of each group, as SC13 Fig. 4 plots them, and how the paper's trends hold). Deterministic: no
randomness is involved. Needs ``MOPT_DATA_DIR``.

``--vm-key binpack`` runs the same under BestFit / WorstFit's bin-packing key (spec §3,
:mod:`mopt.cloud.policies`) and writes ``figures/cloud_policies_binpack.{png,md,csv}``; its table
also puts each provisioning group's best VM selection under both keys side by side (the default
key's from ``figures/cloud_policies.csv``).

Run from the repository root: ``PYTHONPATH=$PWD python experiments/cloud_policies.py``
(``--traces KTH-SP2`` for one trace). Every run is also written to ``figures/cloud_policies.csv``;
``--plot-only`` redraws the figure from it without simulating (the table is left as it is).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.ticker import FuncFormatter, MaxNLocator  # noqa: E402

from mopt.cloud import sc13_policies, simulate  # noqa: E402
from mopt.cloud.policies import VM_KEYS  # noqa: E402
from mopt.core.family import get_family  # noqa: E402
from mopt.core.result import atomic_write  # noqa: E402
from mopt.plot import label_points, plain_log_ticks  # noqa: E402
from mopt.workloads import load_trace  # noqa: E402

FIGURES = Path(__file__).resolve().parents[1] / "figures"
TRACES = ("KTH-SP2", "SDSC-SP2", "LPC-EGEE")
GROUPS = ("ODA", "ODB", "ODE", "ODM", "ODX")
COLORS = dict(zip(GROUPS, ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"),
                  strict=True))
MARKERS = {"FCFS": "s", "LXF": "^", "UNICEF": "o", "WFP3": "D"}
#: SC13 Fig. 4 caption: the best allocation policy (job + VM selection) per provisioning group
PAPER_BEST = {
    "KTH-SP2": {g: "UNICEF-FirstFit" for g in GROUPS},
    "SDSC-SP2": {**{g: "UNICEF-FirstFit" for g in GROUPS}, "ODA": "UNICEF-BestFit"},
    "LPC-EGEE": {**{g: "LXF-FirstFit" for g in GROUPS}, "ODM": "LXF-WorstFit"},
}


def stem(vm_key: str) -> str:
    """The output files' stem: ``cloud_policies`` (default key) or ``cloud_policies_binpack``."""
    return "cloud_policies" if vm_key == "mod" else f"cloud_policies_{vm_key}"


def run_trace(name: str, vm_key: str = "mod") -> pd.DataFrame:
    jobs = load_trace(name, size_limit=64)
    rows = []
    for policy in sc13_policies():
        t0 = time.perf_counter()
        s = simulate(jobs, policy, vm_key=vm_key).summary
        rows.append({"trace": name, "policy": policy.name, "provisioning": policy.provisioning,
                     "job_selection": policy.job_selection, "vm_selection": policy.vm_selection,
                     "bsd": s["bsd"], "vm_hours": s["vm_hours"], "utilisation": s["utilisation"],
                     "utility": s["utility"], "seconds": time.perf_counter() - t0,
                     "n_jobs": s["n_jobs"]})
    return pd.DataFrame(rows)


def best_per_group(df: pd.DataFrame) -> pd.DataFrame:
    """The best policy (highest U) of each (trace, provisioning group); ties go to the earlier
    policy (BestFit, FirstFit, WorstFit order). Its VM selection is the group's best VM selection:
    the one whose best job selection has the highest U."""
    idx = df.groupby(["trace", "provisioning"], sort=False)["utility"].idxmax()
    return df.loc[idx]


def vm_winners(df: pd.DataFrame) -> dict[str, dict[str, str]]:
    """``{trace: {group: best VM selection}}`` (:func:`best_per_group`)."""
    out: dict[str, dict[str, str]] = {}
    for r in best_per_group(df).itertuples():
        out.setdefault(r.trace, {})[r.provisioning] = r.vm_selection
    return out


def figure(df: pd.DataFrame, path: Path, vm_key: str = "mod") -> None:
    traces = list(dict.fromkeys(df["trace"]))
    cloud = get_family("cloud")
    fig, axes = plt.subplots(1, len(traces), figsize=(5.4 * len(traces), 4.8), squeeze=False)
    best = best_per_group(df)
    for ax, name in zip(axes[0], traces, strict=True):
        part = df[df["trace"] == name]
        for (group, jobsel), sub in part.groupby(["provisioning", "job_selection"]):
            ax.scatter(sub["vm_hours"], sub["bsd"], c=COLORS[group], marker=MARKERS[jobsel],
                       s=22, alpha=0.55, linewidths=0)
        for row in best[best["trace"] == name].itertuples():
            ax.scatter(row.vm_hours, row.bsd, s=150, facecolors="none",
                       edgecolors=COLORS[row.provisioning], linewidths=1.6)
        ax.set_yscale("log")
        plain_log_ticks(ax, "y")
        ax.xaxis.set_major_locator(MaxNLocator(5))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.set_xlabel(cloud.label("vm_hours"))
        ax.set_ylabel(cloud.label("bsd"))
        ax.set_title(f"{name} ({part['n_jobs'].iloc[0]:,} jobs)")
        ax.grid(alpha=0.3)
    handles = [plt.Line2D([], [], color=c, marker="o", ls="", label=g) for g, c in COLORS.items()]
    handles += [plt.Line2D([], [], color="gray", marker=m, ls="", label=j)
                for j, m in MARKERS.items()]
    handles += [plt.Line2D([], [], color="k", marker="o", mfc="none", ms=10, ls="",
                           label="best U of its provisioning group (ODx-*)")]
    fig.legend(handles=handles, loc="lower center", ncol=10, frameon=False, fontsize=8)
    key = "" if vm_key == "mod" else f", BestFit/WorstFit key {vm_key!r}"
    fig.suptitle("SC13's 60 policies on whole traces: colour = provisioning, marker = job selection; "
                 f"deterministic, actual runtimes{key} (SC13 Fig. 4)", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    for ax, name in zip(axes[0], traces, strict=True):  # labels last: they are placed on the final layout
        b = best[best["trace"] == name]
        label_points(ax, b["vm_hours"].to_numpy(), b["bsd"].to_numpy(),
                     [f"{g}-*" for g in b["provisioning"]], colors=[COLORS[g] for g in b["provisioning"]],
                     avoid=df.loc[df["trace"] == name, ["vm_hours", "bsd"]].to_numpy())
    atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=110, format="png"))
    plt.close(fig)


def report(df: pd.DataFrame, path: Path, seconds: float, vm_key: str = "mod",
           other: pd.DataFrame | None = None) -> None:
    """The table behind the figure; ``other``: the default key's runs, for the side-by-side table
    of best VM selections (with ``vm_key="binpack"``)."""
    best = best_per_group(df)
    title = "" if vm_key == "mod" else ", bin-packing VM key"
    option = "" if vm_key == "mod" else f" --vm-key {vm_key}"
    lines = [f"# SC13's 60 policies on whole traces (SC13 Fig. 4{title})", "",
             f"Generated by `experiments/cloud_policies.py{option}` (deterministic; jobs <= 64 "
             "processors, boot 120 s, 20 s ticks, cap 256 VMs, actual runtimes, U with kappa 100, "
             f"alpha = beta = 1; BestFit/WorstFit key `vm_key={vm_key!r}`). {len(df)} simulations "
             f"in {seconds:.0f} s (load average {os.getloadavg()[0]:.1f} on 2 cores).", "",
             "## Best policy of each provisioning group (what SC13 Fig. 4 plots as ODx-*)", "",
             "| trace | group | best policy | U | mean BSD | VM-hours | utilisation | "
             "paper's best allocation |", "|---|---|---|---|---|---|---|---|"]
    for r in best.itertuples():
        paper = PAPER_BEST[r.trace][r.provisioning] if r.trace in PAPER_BEST else "-"
        ours = f"{r.job_selection}-{r.vm_selection}"
        lines.append(f"| {r.trace} | {r.provisioning} | {r.policy} | {r.utility:.2f} | "
                     f"{r.bsd:.2f} | {r.vm_hours:,.0f} | {r.utilisation:.3f} | {paper}"
                     f"{' (same)' if paper == ours else ''} |")
    if other is not None:
        lines += ["", "## Best VM selection of each provisioning group under both keys", "",
                  "The VM selection of the group's best policy (the VM selection whose best job "
                  "selection has the highest U; ties to the earlier of BestFit, FirstFit, "
                  "WorstFit). SC13's Fig. 4 caption: FirstFit, except SDSC-SP2 ODA (BestFit) and "
                  "LPC-EGEE ODM (WorstFit).", "",
                  "| trace | key | " + " | ".join(GROUPS) + " | FirstFit wins |",
                  "|---|---|" + "---|" * len(GROUPS) + "---|"]
        for name in dict.fromkeys(df["trace"]):
            for key, runs in (("mod", other), (vm_key, df)):
                won = vm_winners(runs[runs["trace"] == name]).get(name, {})
                if not won:
                    continue
                cells = [won.get(g, "-") for g in GROUPS]
                count = sum(c == "FirstFit" for c in cells)
                lines.append(f"| {name} | {key} | " + " | ".join(cells) + f" | {count} of {len(GROUPS)} |")
    lines += ["", "## The paper's trends", ""]
    for name, part in df.groupby("trace", sort=False):
        b = best[best["trace"] == name].set_index("provisioning")
        by_job = part.groupby("job_selection")["utility"].mean().sort_values(ascending=False)
        vm_win = part.loc[part.groupby(["provisioning", "job_selection"])["utility"].idxmax(),
                          "vm_selection"].value_counts()
        high_bsd = b["bsd"].sort_values(ascending=False).index[:2].tolist()
        low_cost = b["vm_hours"].sort_values().index[:2].tolist()
        lines += [
            f"**{name}.** Mean utility by job selection: "
            + ", ".join(f"{k} {v:.2f}" for k, v in by_job.items())
            + " (paper: UNICEF and LXF lead). Best VM selection over the 20 (group, job "
            "selection) pairs: " + ", ".join(f"{k} {v}" for k, v in vm_win.items())
            + " (paper: FirstFit in most groups). Highest slowdown among the group bests: "
            f"{', '.join(high_bsd)}; lowest cost: {', '.join(low_cost)} (paper: ODB and ODE "
            "have the highest slowdown and low cost; ODA, ODM, ODX the reverse).", ""]
    lines += ["## Every policy", "", "| trace | policy | U | mean BSD | VM-hours | utilisation |",
              "|---|---|---|---|---|---|"]
    lines += [f"| {r.trace} | {r.policy} | {r.utility:.2f} | {r.bsd:.2f} | {r.vm_hours:,.0f} | "
              f"{r.utilisation:.3f} |" for r in df.itertuples()]
    atomic_write(path, lambda tmp: Path(tmp).write_text("\n".join(lines) + "\n"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", nargs="+", default=list(TRACES))
    parser.add_argument("--out", default=str(FIGURES), help="output folder (default figures/)")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw the figure from OUT/cloud_policies.csv (no simulation)")
    parser.add_argument("--vm-key", choices=VM_KEYS, default="mod",
                        help="BestFit/WorstFit's key (default mod); binpack writes "
                             "cloud_policies_binpack.*")
    args = parser.parse_args(argv)
    out = Path(args.out)
    name = stem(args.vm_key)
    if args.plot_only:
        df = pd.read_csv(out / f"{name}.csv")
        figure(df[df["trace"].isin(args.traces)], out / f"{name}.png", args.vm_key)
        print(f"wrote {out / f'{name}.png'} from {out / f'{name}.csv'}")
        return 0
    t0 = time.perf_counter()
    df = pd.concat([run_trace(trace, args.vm_key) for trace in args.traces], ignore_index=True)
    seconds = time.perf_counter() - t0
    atomic_write(out / f"{name}.csv", lambda tmp: df.to_csv(tmp, index=False))
    figure(df, out / f"{name}.png", args.vm_key)
    default = out / "cloud_policies.csv"
    other = pd.read_csv(default) if args.vm_key != "mod" and default.is_file() else None
    report(df, out / f"{name}.md", seconds, args.vm_key, other)
    print(best_per_group(df)[["trace", "policy", "utility", "bsd", "vm_hours"]].to_string())
    print(f"wrote {out / f'{name}.png'} and {out / f'{name}.md'} ({seconds:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
