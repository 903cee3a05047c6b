"""The named portfolios of SC13 and JSSPP (spec §6).

A portfolio is a list of :class:`~mopt.cloud.Policy` (names ``PROVISIONING-JOBSELECTION-VMSELECTION``
in the papers' words, e.g. ``"ODX-UNICEF-FirstFit"``); :func:`portfolio` gives the named ones and
checks a user's own list.

- ``"sc13"``: SC13's 60 policies, {ODA, ODB, ODE, ODM, ODX} × {FCFS, LXF, UNICEF, WFP3} ×
  {BestFit, FirstFit, WorstFit}, in the order of the caption of SC13's Fig. 5 (provisioning slowest,
  VM selection fastest).
- ``"jsspp"``: JSSPP's 10 policies, {ODS, ODG, ODE, ODW, ODX} × {FCFS, SJF}, all with FirstFit (JSSPP
  has no VM selection). StartUp + FCFS / SJF (JSSPP's UF and US) run beside it as baselines and are
  :data:`JSSPP_BASELINES`, not part of the portfolio.

JSSPP writes a policy as two letters (§5): provisioning U, S, G, E, W, X (StartUp, ODS, ODG, ODE, ODW,
ODX) then job selection F, S (FCFS, SJF): ``jsspp_code("ODS-SJF-FirstFit") == "SS"``.
"""

from __future__ import annotations

import itertools

from mopt.cloud.policies import Policy
from mopt.core.errors import InputError
from mopt.core.inputs import suggest

__all__ = ["PORTFOLIO_NAMES", "JSSPP_BASELINES", "portfolio", "portfolio_names", "jsspp_code"]

SC13_PROVISIONING = ("ODA", "ODB", "ODE", "ODM", "ODX")
SC13_JOB_SELECTION = ("FCFS", "LXF", "UNICEF", "WFP3")
SC13_VM_SELECTION = ("BestFit", "FirstFit", "WorstFit")
JSSPP_PROVISIONING = ("ODS", "ODG", "ODE", "ODW", "ODX")
JSSPP_JOB_SELECTION = ("FCFS", "SJF")

#: the portfolios by name, as tuples of policy names
PORTFOLIO_NAMES: dict[str, tuple[str, ...]] = {
    "sc13": tuple("-".join(p) for p in itertools.product(
        SC13_PROVISIONING, SC13_JOB_SELECTION, SC13_VM_SELECTION)),
    "jsspp": tuple(f"{p}-{j}-FirstFit" for p, j in itertools.product(
        JSSPP_PROVISIONING, JSSPP_JOB_SELECTION)),
}

#: JSSPP's StartUp baselines UF and US (run beside the JSSPP portfolio, not in it)
JSSPP_BASELINES = ("StartUp-FCFS-FirstFit", "StartUp-SJF-FirstFit")

_PROVISIONING_LETTER = {"StartUp": "U", "ODS": "S", "ODG": "G", "ODE": "E", "ODW": "W", "ODX": "X"}
_JOB_LETTER = {"FCFS": "F", "SJF": "S"}


def portfolio_names(name: str) -> list[str]:
    """The policy names of the portfolio called ``name`` (``"sc13"`` or ``"jsspp"``).

    Examples
    --------
    >>> names = portfolio_names("sc13")
    >>> len(names), names[0], names[1], names[3], names[-1]
    (60, 'ODA-FCFS-BestFit', 'ODA-FCFS-FirstFit', 'ODA-LXF-BestFit', 'ODX-WFP3-WorstFit')
    >>> portfolio_names("jsspp")[:3]
    ['ODS-FCFS-FirstFit', 'ODS-SJF-FirstFit', 'ODG-FCFS-FirstFit']
    """
    if not isinstance(name, str) or name.lower() not in PORTFOLIO_NAMES:
        known = ", ".join(repr(k) for k in PORTFOLIO_NAMES)
        raise InputError(f"'portfolio' must be one of {known}; got {name!r}{suggest(name, PORTFOLIO_NAMES) or '.'}")
    return list(PORTFOLIO_NAMES[name.lower()])


def portfolio(name_or_policies) -> list[Policy]:
    """A portfolio as a list of policies: a named one (``"sc13"``, ``"jsspp"``) or a user's own list.

    Parameters
    ----------
    name_or_policies : str or sequence of Policy or str
        A portfolio name, or policies (``Policy`` objects or names like ``"ODA-FCFS-FirstFit"``);
        a user's list must be non-empty and hold no policy twice.

    Examples
    --------
    >>> ps = portfolio("sc13")
    >>> len(ps), ps[0].name, ps[-1].name
    (60, 'ODA-FCFS-BestFit', 'ODX-WFP3-WorstFit')
    >>> [p.name for p in portfolio(["ODB-LXF-FirstFit", "ODX-FCFS-FirstFit"])]
    ['ODB-LXF-FirstFit', 'ODX-FCFS-FirstFit']
    """
    if isinstance(name_or_policies, str):
        return [Policy(n) for n in portfolio_names(name_or_policies)]
    if isinstance(name_or_policies, Policy):
        name_or_policies = [name_or_policies]
    try:
        items = list(name_or_policies)
    except TypeError:
        raise InputError(f"'portfolio' must be a name ({', '.join(map(repr, PORTFOLIO_NAMES))}) or a "
                         f"list of policies; got {name_or_policies!r}.") from None
    if not items:
        raise InputError("'portfolio' must hold at least one policy; got an empty list.")
    policies = []
    for item in items:
        if isinstance(item, Policy):
            policies.append(item)
        elif isinstance(item, str):
            policies.append(Policy(item))
        else:
            raise InputError(f"'portfolio' must hold policies or policy names; got {item!r}.")
    seen = set()
    for p in policies:
        if p in seen:
            raise InputError(f"'portfolio' holds the policy {p.name!r} twice.")
        seen.add(p)
    return policies


def jsspp_code(policy: Policy | str) -> str:
    """JSSPP's two-letter code of a policy name.

    Examples
    --------
    >>> jsspp_code("ODX-FCFS-FirstFit"), jsspp_code(Policy("StartUp-SJF-FirstFit"))
    ('XF', 'US')
    """
    policy = policy if isinstance(policy, Policy) else Policy(policy)
    provisioning, job = policy.provisioning, policy.job_selection
    if provisioning not in _PROVISIONING_LETTER or job not in _JOB_LETTER:
        raise InputError(f"'policy' {policy.name!r} has no JSSPP letter code.")
    return _PROVISIONING_LETTER[provisioning] + _JOB_LETTER[job]
