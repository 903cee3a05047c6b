"""Which portfolio to run: mixes of JSSPP's policies as a search problem (DESIGN §6).

A design is a *mix* — a non-empty subset of JSSPP's 10 policies ({ODS, ODG, ODE, ODW, ODX} ×
{FCFS, SJF}, FirstFit), 1,023 mixes — and the ratio β/α of the utility's exponents in
{¼, ½, 1, 2, 4} that the portfolio scheduler selects by: 5,115 designs. The portfolio scheduler
(:func:`mopt.cloud.simulate_portfolio`) runs the mix with U = κ·(R_J/R_V)·(1/BSD)^(β/α) as its
selection criterion (U with α = 1: ranking policies by U^(1/α) depends only on β/α), every policy
simulated at every selection (Δ = the mix's size, JSSPP). The objectives, both minimised, are the
mean bounded slowdown and the charged VM-hours of the run.

A replication is a workload drawn from replication ``r``'s own random stream, the same for every
design (common random numbers): a window of ``window`` consecutive jobs of a trace starting at a
random job (``workload="trace"``), or a JSSPP synthetic workload (``workload="synthetic"``: one of
``patterns`` at random, ``window`` jobs, runtimes drawn from the trace). The stream also seeds
Algorithm 1's draw (which only orders the simulations, and so breaks ties).

Design vector (ours): ten 0/1 entries, one per JSSPP policy in :func:`portfolio_names` order, then
the index of β/α in :data:`RATIOS`; design index = (mask − 1)·5 + ratio index, mask = Σ 2^k·x_k.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from mopt.cloud.policies import check_vm_key
from mopt.cloud.portfolio_scheduler import simulate_portfolio
from mopt.cloud.portfolios import jsspp_code, portfolio
from mopt.cloud.simulate import MAX_PERIOD, MAX_TIME, MAX_VMS
from mopt.core.errors import InputError, check_int, check_number
from mopt.core.inputs import suggest
from mopt.core.problem import StochasticProblem
from mopt.core.random import replication_rng

__all__ = ["PortfolioProblem", "RATIOS"]

#: β/α values of the design space
RATIOS = (0.25, 0.5, 1.0, 2.0, 4.0)
N_POLICIES = 10
WORKLOADS = ("trace", "synthetic")


#: the most jobs of one replication (ours): a whole LPC-EGEE trace is 214,322 jobs
MAX_WINDOW = 1_000_000

class PortfolioProblem(StochasticProblem):
    """Mixes of JSSPP's policies × β/α → (mean bounded slowdown, charged VM-hours).

    Parameters
    ----------
    jobs : str or pandas.DataFrame
        A trace name (:func:`mopt.cloud.load_trace`, jobs of at most ``max_vms`` processors) or
        a job table.
    workload : {"trace", "synthetic"}
        A replication is a random window of the trace, or a JSSPP synthetic workload whose
        runtimes are drawn from the trace.
    window : int, default 200
        Jobs per replication.
    patterns : sequence of str
        For ``workload="synthetic"``: the arrival patterns to draw from (default all five).
    period : int, default 1
        Selection period in 20 s ticks.
    boot_delay, max_vms : float, int
        The cloud (default SC13's: 120 s boot, at most 256 VMs, which KTH-SP2's jobs of up to
        64 processors fit; JSSPP's 240 s and 64 VMs congest it).
    kappa : float
        U's scale.
    vm_key : {"mod", "binpack"}, default "mod"
        BestFit / WorstFit's key (:func:`mopt.cloud.simulate`). JSSPP's 10 policies all use
        FirstFit, which is the same under both keys, so today the key changes no result; it is
        passed on to every portfolio run (and is part of the problem's identity when not the
        default).
    n_reps, seed
        As for every :class:`~mopt.core.problem.StochasticProblem`.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"submit_time": np.arange(40) * 600, "run_time": rng.integers(60, 4000, 40),
    ...                    "n_procs": rng.integers(1, 5, 40)})
    >>> prob = PortfolioProblem(df, window=10)
    >>> prob.n_designs, prob.decode(prob.design(7))
    (5115, {'mix': 'SS', 'beta_over_alpha': 1.0})
    >>> prob.replicate([7], [0, 1], seed=1).shape
    (1, 2, 2)
    """

    parameter_names = ("mix", "beta_over_alpha")

    def kernels(self) -> tuple:
        """The cloud engine's loop a replication runs (:meth:`StochasticProblem.kernels`)."""
        from mopt.cloud.engine import _first_arrivals, advance

        return _first_arrivals, advance

    def __init__(self, jobs="KTH-SP2", *, workload: str = "trace", window: int = 200,
                 patterns=None, period: int = 1, boot_delay: float = 120.0, max_vms: int = 256,
                 kappa: float = 100.0, vm_key: str = "mod", n_reps: int = 10, seed: int = 0):
        from mopt.workloads.synthetic import PATTERNS
        from mopt.workloads.traces import load_trace

        if isinstance(workload, str) and workload.lower() in WORKLOADS:  # "Trace" is trace
            workload = workload.lower()
        else:
            raise InputError(f"'workload' must be one of {', '.join(WORKLOADS)}; got {workload!r}"
                             f"{suggest(workload, WORKLOADS) or '.'}")
        self.max_vms = check_int("max_vms", max_vms, low=1, high=MAX_VMS)
        if isinstance(jobs, str):
            self.trace = jobs
            jobs = load_trace(jobs, size_limit=self.max_vms)
        elif isinstance(jobs, pd.DataFrame):
            self.trace = jobs.attrs.get("trace", "jobs")
        else:
            raise InputError(f"'jobs' must be a trace name or a DataFrame; got {type(jobs).__name__}.")
        if len(jobs) == 0:
            raise InputError("'jobs' is empty.")
        self.jobs = jobs.reset_index(drop=True)
        self.workload = workload
        self.window = check_int("window", window, low=1, high=MAX_WINDOW)
        if workload == "trace" and self.window > len(self.jobs):
            raise InputError(f"'window' must be at most the trace's {len(self.jobs)} jobs; got {window}.")
        names = {p.lower(): p for p in PATTERNS}
        # a list of names: not one name (its letters), a table (its keys) or a number
        listed = patterns is None or (isinstance(patterns, Iterable)
                                      and not isinstance(patterns, (str, bytes, Mapping)))
        self.patterns = tuple(PATTERNS if patterns is None else patterns) if listed else ()
        if not self.patterns or any(not isinstance(p, str) or p.lower() not in names
                                    for p in self.patterns):
            raise InputError(f"'patterns' must be a non-empty list of {', '.join(PATTERNS)}; "
                             f"got {patterns!r}.")
        self.patterns = tuple(names[p.lower()] for p in self.patterns)
        self.period = check_int("period", check_int("period", period, low=1), high=MAX_PERIOD)
        self.boot_delay = check_number("boot_delay", boot_delay, low=0, high=MAX_TIME)
        self.kappa = check_number("kappa", kappa, low=0, low_open=True)
        self.vm_key = check_vm_key(vm_key)
        self.policies = portfolio("jsspp")
        super().__init__(objectives=("bsd", "vm_hours"), n_var=N_POLICIES + 1,
                         xl=[0] * (N_POLICIES + 1), xu=[1] * N_POLICIES + [len(RATIOS) - 1],
                         n_reps=n_reps, seed=seed)

    # -- design space -------------------------------------------------------------------------
    @property
    def n_designs(self) -> int:
        return (2**N_POLICIES - 1) * len(RATIOS)

    def design(self, i: int) -> np.ndarray:
        i = self._check_index(i)
        mask, r = divmod(i, len(RATIOS))
        mask += 1
        return np.array([(mask >> k) & 1 for k in range(N_POLICIES)] + [r], dtype=np.int64)

    def index(self, x) -> int:
        v = self._design_vector(x)
        bits, r = v[:N_POLICIES], v[N_POLICIES]
        if any(b not in (0, 1) for b in bits) or not 0 <= r < len(RATIOS):
            raise InputError(f"'x' must be ten 0/1 entries and a ratio index in [0, "
                             f"{len(RATIOS) - 1}]; got {list(v)}.")
        mask = sum(b << k for k, b in enumerate(bits))
        if mask == 0:
            raise InputError("'x' is an empty mix: a portfolio needs at least one policy.")
        return (mask - 1) * len(RATIOS) + r

    def mix(self, x) -> list:
        """The policies of design vector ``x``'s mix."""
        v = self.design(self.index(x))
        return [p for p, b in zip(self.policies, v[:N_POLICIES], strict=True) if b]

    def decode(self, x) -> dict:
        v = self.design(self.index(x))
        return {"mix": "+".join(jsspp_code(p) for p in self.mix(v)),
                "beta_over_alpha": RATIOS[int(v[N_POLICIES])]}

    def repair(self, X) -> np.ndarray:
        """Round each entry into its range; an empty mix gets the policy its largest entry
        points at (ours: the nearest non-empty mix)."""
        X = np.atleast_2d(np.asarray(X, dtype=float))
        if X.shape[1] != self.n_var or not np.isfinite(X).all():
            raise InputError(f"'X' must be a list of design vectors of {self.n_var} numbers.")
        bits = np.clip(np.rint(X[:, :N_POLICIES]), 0, 1).astype(np.int64)
        empty = bits.sum(axis=1) == 0
        bits[empty, np.argmax(X[empty, :N_POLICIES], axis=1)] = 1
        r = np.clip(np.rint(X[:, N_POLICIES]), 0, len(RATIOS) - 1).astype(np.int64)
        masks = (bits << np.arange(N_POLICIES)).sum(axis=1)
        return (masks - 1) * len(RATIOS) + r

    # -- replications -------------------------------------------------------------------------
    def workload_of(self, rep: int, entropy: int) -> tuple[pd.DataFrame, int]:
        """Replication ``rep``'s workload and Algorithm 1's seed (the same for every design); the
        workload's ``attrs`` say what was drawn: ``first``, the window's first job (``"trace"``), or
        ``pattern`` (``"synthetic"``)."""
        from mopt.workloads.synthetic import synthetic

        rng = replication_rng(entropy, rep)
        if self.workload == "trace":
            first = int(rng.integers(0, len(self.jobs) - self.window + 1))
            jobs = self.jobs.iloc[first:first + self.window].reset_index(drop=True)
            jobs.attrs = {**jobs.attrs, "first": first}
        else:
            pattern = self.patterns[int(rng.integers(len(self.patterns)))]
            jobs = synthetic(pattern, self.window, runtimes=self.jobs, seed=rng)
            jobs.attrs = {**jobs.attrs, "pattern": pattern}
        return jobs, int(rng.integers(0, 2**63 - 1))

    def run(self, i: int, jobs: pd.DataFrame, seed: int):
        """The portfolio scheduler's run of design ``i`` on ``jobs`` with Algorithm 1's ``seed``
        (a :class:`~mopt.cloud.portfolio_scheduler.PortfolioRun`; :meth:`workload_of` gives a
        replication's ``jobs`` and ``seed``)."""
        v = self.design(int(i))
        mix = self.mix(v)
        return simulate_portfolio(jobs, mix, budget=len(mix), period=self.period, seed=seed,
                                  boot_delay=self.boot_delay, max_vms=self.max_vms, kappa=self.kappa,
                                  alpha=1.0, beta=RATIOS[int(v[N_POLICIES])], vm_key=self.vm_key)

    def _replicate(self, indices, reps, entropy):
        out = np.empty((len(indices), len(reps), self.n_obj))
        for b, r in enumerate(reps):
            jobs, seed = self.workload_of(int(r), entropy)
            for a, i in enumerate(indices):
                run = self.run(int(i), jobs, seed)
                out[a, b] = run.summary["bsd"], run.summary["vm_hours"]
        return out

    def _identity(self) -> dict:
        digest = hashlib.sha256(pd.util.hash_pandas_object(
            self.jobs[["submit_time", "run_time", "n_procs"]], index=False).to_numpy().tobytes())
        return {**super()._identity(), "trace": self.trace, "jobs": digest.hexdigest()[:16],
                "workload": self.workload, "window": self.window, "patterns": self.patterns,
                "period": self.period, "boot_delay": self.boot_delay, "max_vms": self.max_vms,
                "kappa": self.kappa,
                # the default key is left out, so that journals written before it existed match
                **({} if self.vm_key == "mod" else {"vm_key": self.vm_key})}
