"""The named portfolios of SC13 and JSSPP (spec §6).

A policy name is ``provisioning+job_selection+vm_selection`` in the papers' words, e.g.
``"ODX+UNICEF+FirstFit"``.

- ``"sc13"``: SC13's 60 policies, {ODA, ODB, ODE, ODM, ODX} × {FCFS, LXF, UNICEF, WFP3} ×
  {BestFit, FirstFit, WorstFit}, in the order of the caption of SC13's Fig. 5 (provisioning slowest,
  VM selection fastest).
- ``"jsspp"``: JSSPP's 10 policies, {ODS, ODG, ODE, ODW, ODX} × {FCFS, SJF}, all with FirstFit (JSSPP
  has no VM selection). StartUp + FCFS / SJF (JSSPP's UF and US) run beside it as baselines and are
  :data:`JSSPP_BASELINES`, not part of the portfolio.

JSSPP writes a policy as two letters (§5): provisioning U, S, G, E, W, X (StartUp, ODS, ODG, ODE, ODW,
ODX) then job selection F, S (FCFS, SJF): ``jsspp_code("ODS+SJF+FirstFit") == "SS"``.
"""

from __future__ import annotations

import itertools

from mopt.core.errors import InputError

__all__ = ["PORTFOLIO_NAMES", "JSSPP_BASELINES", "portfolio_names", "jsspp_code", "split_name"]

SC13_PROVISIONING = ("ODA", "ODB", "ODE", "ODM", "ODX")
SC13_JOB_SELECTION = ("FCFS", "LXF", "UNICEF", "WFP3")
SC13_VM_SELECTION = ("BestFit", "FirstFit", "WorstFit")
JSSPP_PROVISIONING = ("ODS", "ODG", "ODE", "ODW", "ODX")
JSSPP_JOB_SELECTION = ("FCFS", "SJF")

#: the portfolios by name, as tuples of policy names
PORTFOLIO_NAMES: dict[str, tuple[str, ...]] = {
    "sc13": tuple("+".join(p) for p in itertools.product(
        SC13_PROVISIONING, SC13_JOB_SELECTION, SC13_VM_SELECTION)),
    "jsspp": tuple(f"{p}+{j}+FirstFit" for p, j in itertools.product(
        JSSPP_PROVISIONING, JSSPP_JOB_SELECTION)),
}

#: JSSPP's StartUp baselines UF and US (run beside the JSSPP portfolio, not in it)
JSSPP_BASELINES = ("StartUp+FCFS+FirstFit", "StartUp+SJF+FirstFit")

_PROVISIONING_LETTER = {"StartUp": "U", "ODS": "S", "ODG": "G", "ODE": "E", "ODW": "W", "ODX": "X"}
_JOB_LETTER = {"FCFS": "F", "SJF": "S"}


def portfolio_names(name: str) -> list[str]:
    """The policy names of the portfolio called ``name`` (``"sc13"`` or ``"jsspp"``).

    Examples
    --------
    >>> names = portfolio_names("sc13")
    >>> len(names), names[0], names[1], names[3], names[-1]
    (60, 'ODA+FCFS+BestFit', 'ODA+FCFS+FirstFit', 'ODA+LXF+BestFit', 'ODX+WFP3+WorstFit')
    >>> portfolio_names("jsspp")[:3]
    ['ODS+FCFS+FirstFit', 'ODS+SJF+FirstFit', 'ODG+FCFS+FirstFit']
    """
    if not isinstance(name, str) or name.lower() not in PORTFOLIO_NAMES:
        known = ", ".join(repr(k) for k in PORTFOLIO_NAMES)
        raise InputError(f"'portfolio' must be one of {known}; got {name!r}.")
    return list(PORTFOLIO_NAMES[name.lower()])


def split_name(policy: str) -> tuple[str, str, str]:
    """``"ODA+FCFS+BestFit"`` -> ``("ODA", "FCFS", "BestFit")``; the VM selection defaults to FirstFit.

    Examples
    --------
    >>> split_name("ODS+SJF")
    ('ODS', 'SJF', 'FirstFit')
    """
    parts = policy.split("+") if isinstance(policy, str) else []
    if len(parts) == 2:
        parts.append("FirstFit")
    if len(parts) != 3 or not all(parts):
        raise InputError(
            f"'policy' must read provisioning+job_selection[+vm_selection], e.g. 'ODA+FCFS+BestFit'; "
            f"got {policy!r}.")
    return parts[0], parts[1], parts[2]


def jsspp_code(policy: str) -> str:
    """JSSPP's two-letter code of a policy name.

    Examples
    --------
    >>> jsspp_code("ODX+FCFS+FirstFit"), jsspp_code("StartUp+SJF+FirstFit")
    ('XF', 'US')
    """
    provisioning, job, _ = split_name(policy)
    if provisioning not in _PROVISIONING_LETTER or job not in _JOB_LETTER:
        raise InputError(f"'policy' {policy!r} has no JSSPP letter code.")
    return _PROVISIONING_LETTER[provisioning] + _JOB_LETTER[job]
