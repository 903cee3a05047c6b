"""The command line's lists of method and peer names agree with the registries (mopt.method_names)."""

from __future__ import annotations

from mopt.method_names import METHOD_NAMES, PEER_NAMES
from mopt.peers import PEERS
from mopt.solvers import METHODS


def test_the_names_are_the_registered_methods_and_peers():
    assert METHOD_NAMES == tuple(sorted(METHODS))
    assert PEER_NAMES == tuple(PEERS)
