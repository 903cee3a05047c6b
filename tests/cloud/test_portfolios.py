"""The named portfolios: SC13's 60 policies in its Fig. 5 caption order, JSSPP's 10 and their codes."""

from __future__ import annotations

import itertools

import pytest

from mopt.cloud.portfolios import JSSPP_BASELINES, jsspp_code, portfolio_names, split_name
from mopt.core.errors import InputError


def test_sc13_order_is_the_fig5_caption_product():
    names = portfolio_names("sc13")
    assert len(names) == len(set(names)) == 60
    # "iterating the combination {ODA, ODB, ODE, ODM, ODX} x {FCFS, LXF, UNICEF, WFP3} x
    # {BestFit, FirstFit, WorstFit}": index = 12 * provisioning + 3 * job + vm
    assert names[12 * 4 + 3 * 2 + 1] == "ODX+UNICEF+FirstFit"
    assert names[12 * 1 + 3 * 3 + 2] == "ODB+WFP3+WorstFit"
    assert {split_name(n)[0] for n in names} == {"ODA", "ODB", "ODE", "ODM", "ODX"}
    assert "SJF" not in {split_name(n)[1] for n in names}


def test_jsspp_portfolio_and_codes():
    names = portfolio_names("JSSPP")
    assert len(names) == 10 and all(n.endswith("+FirstFit") for n in names)
    codes = [jsspp_code(n) for n in names]
    expected = ["".join(p) for p in itertools.product("SGEWX", "FS")]
    assert codes == expected
    assert [jsspp_code(b) for b in JSSPP_BASELINES] == ["UF", "US"]
    assert not set(JSSPP_BASELINES) & set(names)


@pytest.mark.parametrize("bad", ["sc14", "", 3, None])
def test_unknown_portfolio(bad):
    with pytest.raises(InputError, match="'portfolio' must be one of 'sc13', 'jsspp'"):
        portfolio_names(bad)


@pytest.mark.parametrize("bad", ["ODA", "ODA++FirstFit", "a+b+c+d"])
def test_bad_policy_name(bad):
    with pytest.raises(InputError, match="'policy' must read"):
        split_name(bad)
