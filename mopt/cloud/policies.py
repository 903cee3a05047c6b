"""Scheduling policies of the cloud simulator (SC13, JSSPP; spec §3): names, codes and rules.

A :class:`Policy` is a triple (provisioning, job selection, VM selection). Inside the compiled event
loop (:mod:`mopt.cloud.engine`) each part is an integer code; the rules themselves are the small
named functions below, compiled with Numba and called from the loop, which never compares a code
itself: it asks these functions (the target, how many VMs to lease and may release, a job's
priority, a VM's key, whether the policy has a waiting threshold, ...).

Provisioning (target / supply; leases ``clamp(target - supply, 0, C - L)`` each tick):

========  ==================================================================================
StartUp   Σ n_i / I + B; never releases a VM before the end of the workload (JSSPP)
ODS       JSSPP's one VM per waiting job, which for parallel jobs is ODA's rule (spec §3)
ODA       Σ n_i / I + B
ODB       Σ n_i / L (busy VMs count as supply)
ODE       max(⌈Σ n_i·t_i / 3600⌉, n_head) / I + B (the n_head guard is ours)
ODM       max n_i / I + B
ODX       Σ n_i over jobs with (q_i + max(t_i, 10)) / max(t_i, 10) > 2 / I + B
ODG       leases 1, 2, 4, … while Σ n_i > I + B (ours: doubles after each tick that leased, back
          to 1 on a tick where demand is met); releases at most 1, 2, 4, … of the releasable idle
          VMs per tick (ours: doubles after each tick that released, back to 1 when demand is
          unmet)
ODW       Σ n_i over jobs waiting longer than W / I + B, W the smallest multiple of 300 s that is
          >= 5 × boot delay
========  ==================================================================================

Job selection (highest first; ties by submit time, then job id): FCFS ``q``, SJF ``-t``,
LXF ``(q + t) / t``, WFP3 ``(q / t)³ · n``, UNICEF ``q / (log2(max(n, 2)) · t)`` (the ``max`` is
ours: ``log2(1) = 0``). VM selection: FirstFit takes idle VMs in lease order; BestFit / WorstFit
order the idle VMs by a key of ``r_v``, the VM's paid time left now, and ``t_j``, the job's runtime
as the policy knows it; two readings of SC13's "fit" (spec §3), chosen by ``vm_key``
(:data:`VM_KEYS`), ties in lease order either way:

===========  =====================================================================================
``mod``      the default: ℓ_v = (r_v - t_j) mod 3600, what is left of the last paid hour after the
             job; BestFit the smallest ℓ_v, WorstFit the largest
``binpack``  bin packing in the paid time: d_v = r_v - t_j, signed. BestFit takes the VMs on which
             the job fits in the paid time (d_v >= 0) with the smallest d_v first, and if fewer
             than n_j fit, the rest by the smallest ℓ_v (spec §3); WorstFit takes the largest
             d_v, whether or not the job fits (the spec names no fallback: ours, the same signed
             key, i.e. the VMs with the most paid time left first)
===========  =====================================================================================

FirstFit is the same under both keys. So, in effect, is BestFit: with 0 <= r_v <= 3600 a VM the job
does not fit has ℓ_v = d_v + 3600·k >= 3600 - t_j, at least every fitting VM's d_v = ℓ_v, so the
two tiers give ℓ's order, except where ℓ ties at 0 between a VM at the end of its paid hour
(r_v = 0: nothing fits there) and one leased at this tick with no boot delay (r_v = 3600); the keys
differ in WorstFit. Inside the loop the key rides on the VM-selection code
(:func:`vm_code`: ``vm_selection + 3 · key``), so the loop still passes three codes and never
asks which key it runs.
"""

from __future__ import annotations

import math

from numba import njit

from mopt.cloud.billing import HOUR, paid_until
from mopt.cloud.layout import Q_EST, Q_N, Q_SUB, S_CAP, S_ODG_LEASE, S_ODG_RELEASE
from mopt.core.errors import InputError
from mopt.core.inputs import suggest

__all__ = ["PROVISIONING", "JOB_SELECTION", "VM_SELECTION", "VM_KEYS", "RUNTIMES", "Policy",
           "sc13_policies", "check_vm_key", "vm_code"]

PROVISIONING = ("StartUp", "ODS", "ODA", "ODB", "ODE", "ODM", "ODX", "ODG", "ODW")
JOB_SELECTION = ("FCFS", "SJF", "LXF", "WFP3", "UNICEF")
VM_SELECTION = ("FirstFit", "BestFit", "WorstFit")
#: BestFit / WorstFit's key (module docstring): ``"mod"`` (the default) or ``"binpack"``
VM_KEYS = ("mod", "binpack")
RUNTIMES = ("actual", "user", "predicted")

# integer codes used inside the compiled loop (positions in the tuples above)
STARTUP, ODS, ODA, ODB, ODE, ODM, ODX, ODG, ODW = range(9)
FCFS, SJF, LXF, WFP3, UNICEF = range(5)
FIRSTFIT, BESTFIT, WORSTFIT = range(3)
MOD, BINPACK = range(2)


def check_vm_key(value, name: str = "vm_key") -> str:
    """``value`` if it is one of :data:`VM_KEYS`, else one InputError naming ``name``.

    Examples
    --------
    >>> check_vm_key("binpack")
    'binpack'
    """
    if isinstance(value, str) and value.lower() in VM_KEYS:  # "BinPack" is binpack
        return value.lower()
    raise InputError(f"'{name}' must be one of {', '.join(map(repr, VM_KEYS))}; got {value!r}"
                     f"{suggest(value, VM_KEYS) or '.'}")


def vm_code(vm_selection: int, vm_key: str = "mod") -> int:
    """The VM-selection code the loop takes: the selection's code (FirstFit 0, BestFit 1, WorstFit
    2) plus 3 × the key's position in :data:`VM_KEYS` (so ``"mod"`` keeps the codes 0, 1, 2).

    Examples
    --------
    >>> vm_code(BESTFIT), vm_code(BESTFIT, "binpack"), vm_code(WORSTFIT, "binpack")
    (1, 4, 5)
    """
    return int(vm_selection) + len(VM_SELECTION) * VM_KEYS.index(check_vm_key(vm_key))


def _lookup(kind: str, names: tuple[str, ...], value) -> int:
    if isinstance(value, str):
        for i, name in enumerate(names):
            if name.lower() == value.strip().lower():
                return i
    hint = suggest(value.strip(), names) if isinstance(value, str) else ""
    raise InputError(f"unknown {kind} policy {value!r}; expected one of {', '.join(names)}{hint or '.'}")


class Policy:
    """One cloud scheduling policy: provisioning, job selection and VM selection.

    Parameters
    ----------
    provisioning : str
        One of :data:`PROVISIONING`, or a whole name ``"ODA-UNICEF-FirstFit"`` (then the other two
        arguments are omitted). Case does not matter.
    job_selection : str, optional
        One of :data:`JOB_SELECTION`.
    vm_selection : str, optional
        One of :data:`VM_SELECTION`.

    Examples
    --------
    >>> p = Policy("ODA-UNICEF-FirstFit")
    >>> p.name, p.codes
    ('ODA-UNICEF-FirstFit', (2, 4, 0))
    >>> Policy("odb", "fcfs", "bestfit") == Policy.parse("ODB-FCFS-BestFit")
    True
    """

    __slots__ = ("provisioning", "job_selection", "vm_selection", "codes")

    def __init__(self, provisioning: str, job_selection: str | None = None,
                 vm_selection: str | None = None) -> None:
        if job_selection is None and vm_selection is None:
            if not isinstance(provisioning, str) or provisioning.count("-") != 2:
                raise InputError(
                    f"'policy' must read PROVISIONING-JOBSELECTION-VMSELECTION, e.g. "
                    f"'ODA-UNICEF-FirstFit'; got {provisioning!r}."
                )
            provisioning, job_selection, vm_selection = provisioning.split("-")
        codes = (_lookup("provisioning", PROVISIONING, provisioning),
                 _lookup("job-selection", JOB_SELECTION, job_selection),
                 _lookup("VM-selection", VM_SELECTION, vm_selection))
        self.codes = codes
        self.provisioning = PROVISIONING[codes[0]]
        self.job_selection = JOB_SELECTION[codes[1]]
        self.vm_selection = VM_SELECTION[codes[2]]

    @classmethod
    def parse(cls, name: str) -> Policy:
        """The policy named ``"PROVISIONING-JOBSELECTION-VMSELECTION"``.

        Examples
        --------
        >>> Policy.parse("ODX-LXF-WorstFit").vm_selection
        'WorstFit'
        """
        return cls(name)

    @property
    def name(self) -> str:
        return f"{self.provisioning}-{self.job_selection}-{self.vm_selection}"

    def loop_codes(self, vm_key: str = "mod") -> tuple[int, int, int]:
        """The codes the compiled loop takes under BestFit / WorstFit's key ``vm_key``
        (:data:`VM_KEYS`): :attr:`codes` with the key folded into the VM-selection code
        (:func:`vm_code`); ``"mod"`` gives :attr:`codes`.

        Examples
        --------
        >>> Policy("ODA-UNICEF-BestFit").loop_codes("binpack")
        (2, 4, 4)
        """
        return self.codes[0], self.codes[1], vm_code(self.codes[2], vm_key)

    def __repr__(self) -> str:
        return f"Policy({self.name!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Policy) and self.codes == other.codes

    def __hash__(self) -> int:
        return hash(self.codes)


def sc13_policies() -> list[Policy]:
    """SC13's 60 policies: {ODA, ODB, ODE, ODM, ODX} × {FCFS, LXF, UNICEF, WFP3} × {BestFit,
    FirstFit, WorstFit}, in this nested order.

    Examples
    --------
    >>> ps = sc13_policies()
    >>> len(ps), ps[0].name, ps[-1].name
    (60, 'ODA-FCFS-BestFit', 'ODX-WFP3-WorstFit')
    """
    return [Policy(p, j, v) for p in ("ODA", "ODB", "ODE", "ODM", "ODX")
            for j in ("FCFS", "LXF", "UNICEF", "WFP3") for v in ("BestFit", "FirstFit", "WorstFit")]


# -- compiled rules ---------------------------------------------------------------------------------
@njit(cache=True)
def priority(code: int, q: float, t: float, n: float) -> float:
    """Job-selection priority (higher first) of a job waiting ``q`` s, runtime ``t``, ``n`` VMs."""
    t = max(t, 1.0)  # ours: runtimes are >= 1 s after cleaning; guards a zero estimate
    if code == FCFS:
        return q
    if code == SJF:
        return -t
    if code == LXF:
        return (q + t) / t
    if code == WFP3:
        x = q / t
        return x * x * x * n
    return q / (math.log2(max(n, 2.0)) * t)  # UNICEF


@njit(cache=True)
def odx_urgent(q: float, t: float) -> bool:
    """ODX's test: the job's bounded slowdown so far, (q + max(t, 10)) / max(t, 10), exceeds 2."""
    m = max(t, 10.0)
    return (q + m) / m > 2.0


@njit(cache=True)
def odw_wait(boot_delay: float) -> float:
    """ODW's threshold W: the smallest multiple of 5 min that is >= 5 × the boot delay (ours)."""
    return math.ceil(5.0 * boot_delay / 300.0) * 300.0


@njit(cache=True)
def provisioning_target(code, queue, nq, now, head, boot_delay):
    """Target number of VMs of provisioning policy ``code`` for the ``nq`` queued jobs ``queue``.

    Returns ``(target, counts_busy)``: ``counts_busy`` is True where the supply is every leased
    VM (ODB) rather than the idle and booting ones. ODG's target is ODA's (its lease size is
    decided by the loop).
    """
    total = 0.0
    if code == ODM:
        for i in range(nq):
            total = max(total, queue[i, Q_N])
    elif code == ODE:
        work = 0.0
        for i in range(nq):
            work += queue[i, Q_N] * queue[i, Q_EST]
        total = float(math.ceil(work / HOUR))
        if nq > 0:
            total = max(total, queue[head, Q_N])  # the guard (ours)
    elif code == ODX:
        for i in range(nq):
            if odx_urgent(now - queue[i, Q_SUB], queue[i, Q_EST]):
                total += queue[i, Q_N]
    elif code == ODW:
        w = odw_wait(boot_delay)
        for i in range(nq):
            if now - queue[i, Q_SUB] > w:
                total += queue[i, Q_N]
    else:  # StartUp, ODS, ODA, ODB, ODG
        for i in range(nq):
            total += queue[i, Q_N]
    return total, code == ODB


@njit(cache=True)
def vms_to_lease(code, scalars, target, supply, room):
    """VMs to lease this tick: clamp(target - supply, 0, room). ODG: 1, 2, 4, ... while demand is
    unmet (doubling after each tick that leased, back to 1 on a tick where it is met; ours);
    unmet demand also resets ODG's release allowance to 1."""
    if code == ODG:
        if target > supply:
            new = min(scalars[S_ODG_LEASE], room)
            scalars[S_ODG_RELEASE] = 1.0
            if new > 0:
                scalars[S_ODG_LEASE] = min(2.0 * scalars[S_ODG_LEASE], scalars[S_CAP])
        else:
            new = 0.0
            scalars[S_ODG_LEASE] = 1.0
        return new
    return min(max(target - supply, 0.0), room)


@njit(cache=True)
def no_demand(scalars):
    """Ticks skipped with an empty queue had no demand: ODG's lease size is back to 1 (kept under
    every policy, as a portfolio may switch to ODG)."""
    scalars[S_ODG_LEASE] = 1.0


@njit(cache=True)
def release_allowance(code, scalars):
    """How many releasable idle VMs may go this tick: none under StartUp (never before the end of
    the workload), ODG's allowance (1, 2, 4, ...), else all."""
    if code == STARTUP:
        return 0.0
    if code == ODG:
        return scalars[S_ODG_RELEASE]
    return math.inf


@njit(cache=True)
def after_release(code, scalars, released):
    """ODG doubles its release allowance after a tick that released."""
    if code == ODG and released > 0:
        scalars[S_ODG_RELEASE] = 2.0 * scalars[S_ODG_RELEASE]


@njit(cache=True)
def releases_idle_vms(code) -> bool:
    """Whether idle VMs are released at their paid hour before the end (all but StartUp)."""
    return code != STARTUP


@njit(cache=True)
def releases_all_at_paid_hour(code) -> bool:
    """Whether every idle VM goes at its paid hour (not StartUp, which keeps them, nor ODG, which
    releases a few per tick): the loop may then finish an empty queue in one step."""
    return code != STARTUP and code != ODG


@njit(cache=True)
def has_waiting_threshold(code) -> bool:
    """Whether a queued job starts to count towards the target after a wait (ODX, ODW)."""
    return code == ODX or code == ODW


@njit(cache=True)
def waiting_threshold(code, est, boot_delay):
    """The wait after which a queued job counts: ODX max(t, 10) (its bounded slowdown then exceeds
    2), ODW's W (:func:`odw_wait`)."""
    if code == ODX:
        return max(est, 10.0)
    return odw_wait(boot_delay)


@njit(cache=True)
def target_follows_head(code) -> bool:
    """Whether the target depends on which job heads the queue (ODE's guard n_head)."""
    return code == ODE


@njit(cache=True)
def paid_left(lease: float, now: float) -> float:
    """r_v: the paid time a VM leased at ``lease`` has left at ``now`` (0 on an hour boundary)."""
    return paid_until(now, lease) - now


@njit(cache=True)
def fit_leftover(lease: float, now: float, t: float) -> float:
    """ℓ_v = (r_v - t_j) mod 3600: what is left of the VM's last paid hour after running the job."""
    x = paid_left(lease, now) - t
    return x - HOUR * math.floor(x / HOUR)


@njit(cache=True)
def in_lease_order(code) -> bool:
    """Whether the VM selection (a :func:`vm_code`) takes idle VMs in lease order (FirstFit,
    under either key)."""
    return code % 3 == FIRSTFIT


@njit(cache=True)
def vm_key(code, lease, now, t):
    """BestFit / WorstFit's key of an idle VM for a job of runtime ``t``: ``(tier, key)``, the VMs
    taken in increasing order of both (tier first; ties in lease order). ``code`` is a
    :func:`vm_code`.

    ``mod``: ``(0, ℓ_v)`` (BestFit) or ``(0, -ℓ_v)`` (WorstFit). ``binpack``: BestFit ``(0, d_v)``
    where the job fits in the paid time (d_v >= 0), else ``(1, ℓ_v)``; WorstFit ``(0, -d_v)``.
    """
    selection = code % 3
    if code // 3 == BINPACK:
        d = paid_left(lease, now) - t
        if selection == WORSTFIT:
            return 0, -d
        if d >= 0.0:
            return 0, d
        return 1, fit_leftover(lease, now, t)
    key = fit_leftover(lease, now, t)
    if selection == WORSTFIT:
        return 0, -key
    return 0, key


@njit(cache=True)
def priority_line(code: int, submit: float, t: float, n: float):
    """``(a, b)`` with the priority an increasing function of ``a + b·now`` for a queued job.

    The loop uses it to find the next tick at which a job can overtake the head of the queue
    (FCFS, LXF, UNICEF are linear in ``now``; WFP3 is the cube of a linear function; SJF is
    constant).
    """
    t = max(t, 1.0)
    if code == FCFS:
        return -submit, 1.0
    if code == SJF:
        return -t, 0.0
    if code == LXF:
        return (t - submit) / t, 1.0 / t
    if code == WFP3:
        c = n ** (1.0 / 3.0) / t
        return -submit * c, c
    b = 1.0 / (math.log2(max(n, 2.0)) * t)  # UNICEF
    return -submit * b, b
