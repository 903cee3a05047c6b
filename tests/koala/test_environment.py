"""Sites, environments and policy parameters: constructors and bad input."""

from __future__ import annotations

import math

import pytest

from mopt.core.errors import InputError
from mopt.koala import (
    Environment,
    Site,
    TagsChain,
    TagsSets,
    cluster,
    multicloud,
    multicluster,
    private_cloud,
    public_cloud,
    real_world,
)  # fmt: skip


def test_paper_environments():
    assert multicluster(3).names == ("C1", "C2", "C3", "C4", "C5", "C6")
    assert multicluster(3).capacity() == 192
    env = multicloud()
    assert [s.kind for s in env.sites] == ["cluster", "cluster", "cluster", "private", "public"]
    assert (env.sites[3].minimum, env.sites[3].size, env.sites[4].size) == (8, 64, 128)
    assert env.sites[4].price == 0.065 and env.sites[3].price == 0
    rw = real_world()
    assert (rw.capacity("cluster"), rw.capacity("private"), rw.capacity("public")) == (64, 32, 64)


@pytest.mark.parametrize("make,match", [
    (lambda: Environment(()), "empty set of sites"),
    (lambda: Environment((cluster("A"), cluster("A"))), "unique"),
    (lambda: public_cloud(price=-0.1), "'price' must be in"),
    (lambda: public_cloud(maximum=-1), "'size' must be an integer >= 0"),
    (lambda: cluster("A", 0), "'size' must be an integer >= 1"),
    (lambda: private_cloud(minimum=-1), "'minimum' must be an integer >= 0"),
    (lambda: private_cloud(minimum=65, maximum=64), "private minimum must be <= its maximum"),
    (lambda: Site("x", "grid", 4), "'kind'"),
    (lambda: Site("x", "cluster", 4, price=1.0), "only a public cloud"),
    (lambda: multicluster(0), "'n_chains'"),
])  # fmt: skip
def test_bad_sites(make, match):
    with pytest.raises(InputError, match=match):
        make()


@pytest.mark.parametrize("make,match", [
    (lambda: TagsChain([600, 300, math.inf]), "strictly increasing"),
    (lambda: TagsChain([600, 600, math.inf]), "strictly increasing"),
    (lambda: TagsChain([600, 1200]), "must end with math.inf"),
    (lambda: TagsChain([math.inf]), "at least two limits"),
    (lambda: TagsChain([-5, math.inf]), "'limits' must be in"),
    (lambda: TagsChain([60, math.inf], dispatch="LIFO"), "'dispatch'"),
    (lambda: TagsChain([60, math.inf], n_chains=0), "'n_chains'"),
    (lambda: TagsSets([["C1"]], [60, math.inf]), "one set per limit"),
    (lambda: TagsSets([["C1"], ["C1"]], [60, 30]), "must end with math.inf"),
])  # fmt: skip
def test_bad_policies(make, match):
    with pytest.raises(InputError, match=match):
        make()


@pytest.mark.parametrize("sets,match", [
    ([["C1", "C2", "C3", "private"], ["C3"]], "set 1 must be the whole system"),
    ([multicloud().names, multicloud().names], "set 2 .* must be a proper subset of set 1"),
    ([multicloud().names, ["C3", "nowhere"]], "unknown site 'nowhere'"),
    ([multicloud().names, []], "set 2 is empty"),
])  # fmt: skip
def test_bad_tags_sets_on_an_environment(sets, match):
    with pytest.raises(InputError, match=match):
        TagsSets(sets, [2400, math.inf]).queues(multicloud())


def test_three_sets_must_decrease():
    env = multicloud()
    bad = TagsSets([env.names, ["C3", "private", "public"], ["C1"]], [600, 2400, math.inf])
    with pytest.raises(InputError, match="set 3 \\['C1'\\] must be a proper subset of set 2"):
        bad.queues(env)
    good = TagsSets([env.names, [2, 3, 4], [4]], [600, 2400, math.inf])
    assert good.queues(env).sites == ((0, 1, 2, 3, 4), (2, 3, 4), (4,))
