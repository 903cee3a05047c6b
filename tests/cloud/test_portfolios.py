"""The named portfolios: SC13's 60 policies in its Fig. 5 caption order, JSSPP's 10 and their codes."""

from __future__ import annotations

import itertools

import pytest

from mopt.cloud import Policy, sc13_policies
from mopt.cloud.portfolios import JSSPP_BASELINES, jsspp_code, portfolio, portfolio_names
from mopt.core.errors import InputError


def test_sc13_order_is_the_fig5_caption_product():
    names = portfolio_names("sc13")
    assert len(names) == len(set(names)) == 60
    # "iterating the combination {ODA, ODB, ODE, ODM, ODX} x {FCFS, LXF, UNICEF, WFP3} x
    # {BestFit, FirstFit, WorstFit}": index = 12 * provisioning + 3 * job + vm
    assert names[12 * 4 + 3 * 2 + 1] == "ODX-UNICEF-FirstFit"
    assert names[12 * 1 + 3 * 3 + 2] == "ODB-WFP3-WorstFit"
    policies = portfolio("sc13")
    assert policies == sc13_policies()
    assert {p.provisioning for p in policies} == {"ODA", "ODB", "ODE", "ODM", "ODX"}
    assert "SJF" not in {p.job_selection for p in policies}


def test_jsspp_portfolio_and_codes():
    policies = portfolio("JSSPP")
    assert len(policies) == 10 and {p.vm_selection for p in policies} == {"FirstFit"}
    codes = [jsspp_code(p) for p in policies]
    assert codes == ["".join(p) for p in itertools.product("SGEWX", "FS")]
    assert [jsspp_code(b) for b in JSSPP_BASELINES] == ["UF", "US"]
    assert not {Policy(b) for b in JSSPP_BASELINES} & set(policies)


def test_own_list():
    assert portfolio([Policy("ODA-FCFS-FirstFit"), "odb-lxf-bestfit"]) == [
        Policy("ODA", "FCFS", "FirstFit"), Policy("ODB", "LXF", "BestFit")]


@pytest.mark.parametrize("bad, match", [
    ("sc14", "'portfolio' must be one of 'sc13', 'jsspp'; got 'sc14'"),
    ("", "'portfolio' must be one of"),
    ([], "'portfolio' must hold at least one policy"),
    (3, "'portfolio' must be a name"),
    (["ODA-FCFS-FirstFit", "oda-fcfs-firstfit"], "holds the policy 'ODA-FCFS-FirstFit' twice"),
    ([1], "'portfolio' must hold policies or policy names; got 1"),
    (["ODQ-FCFS-FirstFit"], "unknown provisioning policy 'ODQ'"),
])
def test_bad_portfolio(bad, match):
    with pytest.raises(InputError, match=match):
        portfolio(bad)


def test_no_jsspp_code():
    with pytest.raises(InputError, match="'ODA-LXF-FirstFit' has no JSSPP letter code"):
        jsspp_code("ODA-LXF-FirstFit")
