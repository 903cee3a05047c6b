"""The names of the search methods and peers, for the command line's help without importing them.

``mopt --help`` and ``mopt frontier --help`` name every method; importing :mod:`mopt.solvers`
(pymoo, scipy) to list them took most of a second. These tuples are what
:data:`mopt.solvers.METHODS` registers (sorted) and :data:`mopt.peers.PEERS` (in its order)
(``tests/test_method_names.py`` checks that they agree).

Examples
--------
>>> "ocba" in METHOD_NAMES and "random" in PEER_NAMES
True
"""

from __future__ import annotations

__all__ = ["METHOD_NAMES", "PEER_NAMES"]

METHOD_NAMES = ("auto", "blind_pick", "eoo", "eoo_ocba", "exhaustive", "ioo", "mocba", "nsga2", "ocba",
                "oo", "screen")
PEER_NAMES = ("random", "pymoo-nsga2", "optuna-tpe", "optuna-nsga2")
