"""Leased VMs as table rows, shared by the cloud simulator and KOALA-C (SC13/JSSPP spec §2,
KOALA-C spec §1).

Both simulators keep their VMs in a float64 table, one row per VM, with at least the columns

==========  =====================================================================
``V_LEASE``  the lease time (billing counts started hours from it, :mod:`.billing`)
``V_READY``  when the VM is up: the lease time plus the boot delay
``V_SLOT``   what runs on it: a job (slot or index, >= 0), :data:`IDLE` (-1), or, in a table
             of fixed places (KOALA-C), :data:`UNLEASED` (-2)
==========  =====================================================================

and the same rules for a VM's life: :func:`lease_vm` (usable after the boot delay), :func:`is_idle`
(up and running nothing), :func:`first_idle` (the first idle VMs in table order: SC13's FirstFit
on the cloud simulator's lease-ordered table, KOALA-C's lowest slot first on its fixed places),
hourly billing and the release at the paid hour (:mod:`mopt.cloud.billing`).

What stays each simulator's own, because the papers' rules differ: *when* VMs are leased (the
cloud simulator's provisioning policies lease ahead of the jobs, each tick; KOALA-C leases on
demand the shortfall of the job it places, which waits for them to boot), how the table is kept
(the cloud simulator appends leases and compacts released rows, so rows stay in lease order;
KOALA-C has a fixed place per VM of each site), and KOALA-C's private cloud (a minimum always up,
released after an idle time, free).

Examples
--------
>>> import numpy as np
>>> vms = np.full((3, 3), UNLEASED)
>>> lease_vm(vms, 0, 100.0, 120.0, IDLE); lease_vm(vms, 1, 100.0, 0.0, IDLE)
>>> is_idle(vms, 0, 200.0), is_idle(vms, 0, 220.0), is_idle(vms, 1, 100.0), is_idle(vms, 2, 100.0)
(False, True, True, False)
>>> rows = np.empty(3, np.int64)
>>> first_idle(vms, 0, 3, 150.0, 3, rows), rows[:1].tolist()  # row 0 boots until 220
(1, [1])
"""

from __future__ import annotations

from mopt.cloud.kernels import kernel

__all__ = ["V_LEASE", "V_READY", "V_SLOT", "IDLE", "UNLEASED", "lease_vm", "is_idle", "first_idle"]

V_LEASE, V_READY, V_SLOT = range(3)
#: ``V_SLOT`` of a VM that is up and runs nothing
IDLE = -1.0
#: ``V_SLOT`` of a place in a fixed table that holds no leased VM (KOALA-C)
UNLEASED = -2.0


@kernel
def lease_vm(vms, v, t, boot_delay, slot):
    """Lease a VM into row ``v`` at ``t``: up after ``boot_delay``, running ``slot`` (or IDLE)."""
    vms[v, V_LEASE] = t
    vms[v, V_READY] = t + boot_delay
    vms[v, V_SLOT] = slot


@kernel
def is_idle(vms, v, t):
    """Whether the VM of row ``v`` is up at ``t`` and runs nothing."""
    return vms[v, V_READY] <= t and vms[v, V_SLOT] == IDLE


@kernel
def first_idle(vms, lo, hi, t, n, rows):
    """Write into ``rows`` the first (at most ``n``) idle VMs of rows ``lo`` to ``hi - 1``, in table
    order; return how many."""
    m = 0
    for v in range(lo, hi):
        if m == n:
            break
        if is_idle(vms, v, t):
            rows[m] = v
            m += 1
    return m
